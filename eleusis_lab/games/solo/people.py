"""Solo Eleusis for people: what a human seat shows (`SoloView`) and the score of a
game stopped before its end (`solo_scores_so_far`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from eleusis_lab.agent import Event, GameInfo, Observation
from eleusis_lab.cards import Card, format_cards
from eleusis_lab.games.people import SeatView
from eleusis_lab.games.solo.scoring import WRONG_PENALTY, solo_score
from eleusis_lab.text import plural

if TYPE_CHECKING:
    from eleusis_lab.stopped import GameSoFar

__all__ = ["SoloView", "solo_scores_so_far"]


class SoloView(SeatView):
    """One player finds the rule: the status tells the turn of the cap and what a
    correct declaration now would score; after the events come the card drawn and, once
    the game has gone on after a declaration, that it was wrong, with a counter-example
    when the engine told one (`judged`).

    Examples
    --------
    >>> from eleusis_lab.cards import parse_card
    >>> view = SoloView(GameInfo("solo", 0, 1, (), parse_card("QH")), "solo Eleusis", 30)
    >>> view.opening()
    '== solo Eleusis: find the rule; the starter is QH =='
    >>> view.declared(None, "black(card)")
    >>> view.news(None), view.wrong_declarations()
    (['  your rule black(card) was judged wrong (-2 points)'], 1)
    """

    def __init__(self, info: GameInfo, title: str, turn_cap: int | None = None):
        super().__init__(info, title, turn_cap)
        self.played_from: tuple[Observation, Card] | None = None  # the last play
        self.rule_told: str | None = None  # a declaration not yet told to be wrong
        self.counter_example: str | None = None  # where that declaration is wrong
        self.wrong = 0  # the declarations told to be wrong

    def played(self, obs: Observation, card: Card) -> None:
        self.played_from = (obs, card)

    def declared(self, obs: Observation, rule: str) -> None:
        self.rule_told = rule

    def judged(self, declaration: Any) -> None:
        """Only a wrong declaration matters: its ``reason`` is a counter-example (a state
        and a card on which the declared rule and the secret rule disagree), shown at the
        next decision. The secret rule itself is not told."""
        if declaration is not None and not declaration.correct:
            self.counter_example = str(declaration.reason).replace(
                "under the declared one", "under yours"
            )

    def wrong_declarations(self) -> int:
        """The declarations found wrong so far, the last one included if the game went on
        after it (it would have ended on a correct one)."""
        return self.wrong + (self.rule_told is not None)

    def opening(self) -> str:
        return f"== {self.title}: find the rule; the starter is {self.info.starter} =="

    def news(self, obs: Observation) -> list[str]:
        lines = self._drawn(obs)
        if self.rule_told is not None:  # the game goes on only after a wrong one
            lines.append(f"  your rule {self.rule_told} was judged wrong (-{WRONG_PENALTY} points)")
            if self.counter_example is not None:
                lines.append(f"  a counter-example: {self.counter_example}")
            self.rule_told = self.counter_example = None
            self.wrong += 1
        return lines

    def _drawn(self, obs: Observation) -> list[str]:
        """The card drawn after the last play, named once (compared with the hand it was
        played from)."""
        if self.played_from is None or self.played_from[0] is obs:
            return []
        before, played = self.played_from
        self.played_from = None
        kept = Counter(before.hand) - Counter([played])
        drawn = list((Counter(obs.hand) - kept).elements())
        if not drawn:
            return ["  you drew no card: the stock is empty"]
        return [f"  you drew {format_cards(drawn)}"]

    def status(self, obs: Observation, seen: Sequence[Event]) -> list[str]:
        side = obs.wrong_cards[0] if obs.wrong_cards else ()
        turn = len(obs.main_line) + len(side)  # the starter is not a turn: this one is
        cap = self.turn_cap or turn
        wrong = self.wrong
        line = f"turn {turn} of {cap}"
        if turn <= cap:
            line += f"; a correct declaration now scores {solo_score(turn, wrong, cap)}"
            if wrong:
                line += f" (-{WRONG_PENALTY * wrong} for {plural(wrong, 'wrong declaration')})"
        return [line]


def solo_scores_so_far(game: GameSoFar) -> list[str]:
    """The score of a solo game stopped early: the turns played of the cap, the wrong
    declarations (the seat's view tells them, `SoloView.wrong_declarations`), and the
    score of a game ended now (the rule not found).

    >>> from eleusis_lab.games.solo import SoloConfig
    >>> from eleusis_lab.stopped import GameSoFar
    >>> view = SoloView(GameInfo("solo", 0, 1, (), None), "solo Eleusis")
    >>> view.declared(None, "black(card)")
    >>> for line in solo_scores_so_far(GameSoFar((), 0, 1, 3, SoloConfig(), view)):
    ...     print(line)
    turns played: 0 of 30; 1 wrong declaration
    score so far: -2 (the rule not found)
    """
    wrong = game.view.wrong_declarations() if isinstance(game.view, SoloView) else 0
    cap = game.config.max_turns
    return [
        f"turns played: {len(game.events)} of {cap}; {plural(wrong, 'wrong declaration')}",
        f"score so far: {solo_score(None, wrong, cap)} (the rule not found)",
    ]
