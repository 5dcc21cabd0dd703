"""Classic Eleusis for people: what a human seat shows (`ClassicView`, also the view of
the 4-8 player variant) and the scores of a game stopped before its end
(`classic_scores_so_far`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from eleusis_lab.agent import Event, GameInfo, Observation
from eleusis_lab.games.classic.engine import classic_deal
from eleusis_lab.games.classic.scoring import classic_dealer_score, classic_player_scores
from eleusis_lab.games.people import SeatView
from eleusis_lab.text import plural

if TYPE_CHECKING:
    from eleusis_lab.stopped import GameSoFar

__all__ = ["ClassicView", "classic_scores_so_far"]


class ClassicView(SeatView):
    """The generic view and the phase: in phase 2 the turn and the cap (announced once
    in full), and a ``*`` after the wrong cards of phase 2 in the table.

    Examples
    --------
    >>> view = ClassicView(GameInfo("classic", 0, 2, (), None), "classic Eleusis", 1000)
    >>> view.status(Observation("classic", 0, 2, (), (), ((), ()), None), [])[-1]
    'phase-2 turn 1 of at most 1,000 (999 after this one)'
    """

    def __init__(self, info: GameInfo, title: str, turn_cap: int | None = None):
        super().__init__(info, title, turn_cap)
        self.phase2_told = False  # phase 2 and its cap announced

    def wrong_mark(self, event: Event) -> str:
        return "*" if event.phase == 2 else ""

    def status(self, obs: Observation, seen: Sequence[Event]) -> list[str]:
        if obs.phase == 1:
            phase = ["phase 1: play each card of your hand once"]
        else:
            phase = self._phase2_status(seen)
        return [*super().status(obs, seen), *phase]

    def _phase2_status(self, seen: Sequence[Event]) -> list[str]:
        lines = ["phase 2: play your wrong cards; a wrong one comes back to you"]
        cap = self.turn_cap
        if cap is None:
            return lines
        if not self.phase2_told:
            self.phase2_told = True
            lines.append(
                "phase 2 ends when a player is out of cards, when no wrong card can be"
                f" played, or after {cap:,} turns"
            )
        turn = _phase2_turn(seen, self.info.seat)
        left = f"{cap - turn:,} after this one" if turn < cap else "this is the last one"
        lines.append(f"phase-2 turn {turn:,} of at most {cap:,} ({left})")
        return lines


def _phase2_turn(events: Sequence[Event], seat: int) -> int:
    """The phase-2 turn of ``seat``'s decision, counted from the plays as the engines
    count turns (all seats' turns; a wrong card retried in the same turn,
    ``retry_in_turn``, is not a new turn).

    >>> from eleusis_lab.cards import parse_card
    >>> def play(seat, phase):
    ...     return Event(seat, parse_card("2H"), phase, False, 0)
    >>> plays = [play(0, 1), play(1, 1), play(0, 2), play(0, 2), play(1, 2)]
    >>> _phase2_turn(plays, 0), _phase2_turn(plays[:-1], 0)  # turn 3; a retry in turn 1
    (3, 1)
    """
    turns, previous = 0, None
    for event in events:
        if event.phase == 2 and (
            previous is None or previous.phase != 2 or previous.seat != event.seat
        ):
            turns += 1
        previous = event
    retrying = previous is not None and previous.phase == 2 and previous.seat == seat
    return turns if retrying else turns + 1


def classic_scores_so_far(game: GameSoFar) -> list[str]:
    """The scores of a classic game stopped early, from the deal of its seed and the
    plays: the dealer's score of the wrong cards of phase 1 so far, and the players'
    scores if the game ended now, from the cards each still holds.

    Examples
    --------
    >>> from eleusis_lab.cards import parse_card
    >>> from eleusis_lab.games.classic import ClassicConfig
    >>> from eleusis_lab.stopped import GameSoFar
    >>> plays = (Event(0, parse_card("2H"), 1, False, 0), Event(1, parse_card("3H"), 1, True, 0))
    >>> for line in classic_scores_so_far(GameSoFar(plays, 1, 2, 0, ClassicConfig())):
    ...     print(line)
    the dealer's score so far: 1 (wrong cards in phase 1: seat 0 1, you 0)
    the players' scores if the game ended now: seat 0 0 (26 cards held), you 8 (24 cards held)
    """
    n, events = game.players, game.events
    _, hands, _ = classic_deal(game.seed, n, game.config.hand_size)
    wrong = [0] * n  # wrong cards of phase 1
    held = [len(hand) for hand in hands]
    for event in events:
        if event.phase == 1 and not event.right:
            wrong[event.seat] += 1
        if event.right:
            held[event.seat] -= 1
    phase2 = any(event.phase == 2 for event in events)
    names = ["you" if seat == game.seat else f"seat {seat}" for seat in range(n)]
    counts = ", ".join(f"{name} {count}" for name, count in zip(names, wrong, strict=True))
    dealer = classic_dealer_score(wrong)
    so_far = "" if phase2 else " so far"
    players = classic_player_scores(held)
    scores = ", ".join(
        f"{name} {score:g} ({plural(count, 'card')} held)"
        for name, score, count in zip(names, players, held, strict=True)
    )
    return [
        f"the dealer's score{so_far}: {dealer} (wrong cards in phase 1: {counts})",
        f"the players' scores if the game ended now: {scores}",
    ]
