"""The rules of the solo game (RULES.md section 6) as a position and its moves:
`SoloState`.

The deal, a play's verdict and the card drawn after it, the judging of a statement,
the end and the score are written here once: the engine (`play_solo`, which asks an
agent), the replay (`replay_solo`, which applies a record's plays and statements) and
the Gymnasium environment (`eleusis_lab.envs.solo.SoloEnv`) all move a game through
this state.

A turn is a card and a statement. The card is one of the hand: it is judged (right:
main line; wrong: side line) and a card is drawn from the stock while it lasts. The
statement (`Statement`: a tentative rule, its confidence, declared or not; or None,
stating nothing) is judged in the position after the card (`SoloConfig.judge_in`); a
correct declaration ends the game. The statement belongs to the card's turn, so it is
still judged after a card that ended the game for cards (the last turn, or the hand's
last card). When the player states is the game's ``timing`` (`SoloState.awaited`
says what `SoloState.apply` awaits):

- ``"before_verdict"`` (the published move): one action, a `Turn`, the card with its
  statement (a card alone states nothing);
- ``"after_verdict"``: two, the card, then, once its verdict is known, the statement.

Examples
--------
>>> from eleusis_lab.games.solo import SoloConfig
>>> state = SoloState.deal("black(card)", seed=0, config=SoloConfig())
>>> state.starter, state.refused, len(state.hand), len(state.stock)
(Card('QC'), (Card('2H'), Card('JH')), 12, 89)
>>> state.to_move(), state.awaited, state.legal_actions() == tuple(state.hand)
(0, 'move', True)
>>> state.apply(Turn(state.hand[0], Statement("red(card)", 0.9, declare=True)))  # 9H: wrong
(Event(seat=0, card=Card('9H', copy=1), phase=1, right=False, position=0, kind='play'),)
>>> state.turn_declaration.correct
False
>>> _ = state.apply(Turn(state.hand[0], Statement("black(card)", 0.9, declare=True)))
>>> state.turn_declaration.correct
True
>>> state.to_move(), state.end, state.scores()
(None, 'found', (27.0,))

After the verdict, the statement is a decision of its own:

>>> state = SoloState.deal("black(card)", seed=0, config=SoloConfig(timing="after_verdict"))
>>> (event,) = state.apply(state.hand[0])
>>> event.right, state.to_move(), state.awaited
(False, 0, 'statement')
>>> state.apply(Statement("red(card)", 0.9)), state.tentative[-1].correct, state.awaited
((), False, 'card')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from eleusis_lab.agent import Event, Observation
from eleusis_lab.cards import Card, two_decks
from eleusis_lab.engines import check_seed
from eleusis_lab.games.solo.judge import Judgement
from eleusis_lab.games.solo.record import (
    FOUND,
    GAME,
    NO_STARTER,
    OUT_OF_CARDS,
    TURN_CAP,
    Declaration,
    SoloRecord,
    Tentative,
    published_success,
)
from eleusis_lab.games.solo.scoring import solo_score
from eleusis_lab.games.state import GameState
from eleusis_lab.record import Fault
from eleusis_lab.rules import Context, Rule, parse

if TYPE_CHECKING:  # the engine's options; the engine imports this module
    from eleusis_lab.games.solo.engine import SoloConfig

__all__ = [
    "AFTER_VERDICT",
    "BEFORE_VERDICT",
    "CARD",
    "DECK",
    "MOVE",
    "STATEMENT",
    "TIMINGS",
    "Dealt",
    "SoloState",
    "Statement",
    "Turn",
    "solo_deal_from",
]

#: Two decks, in order: the solo game's 104 cards.
DECK = tuple(two_decks())

#: A deal: the hand, the refused starters, the starter (None: none was accepted) and
#: the stock after it, in drawing order.
Dealt = tuple[tuple[Card, ...], tuple[Card, ...], Card | None, tuple[Card, ...]]

#: When the player states and declares (`SoloConfig.timing`): with its card, before the
#: card's verdict (published), or after it.
BEFORE_VERDICT, AFTER_VERDICT = "before_verdict", "after_verdict"
TIMINGS = (BEFORE_VERDICT, AFTER_VERDICT)
#: What `SoloState.apply` awaits (`SoloState.awaited`): a `Turn` (timing
#: ``"before_verdict"``), or a card and then its `Statement` (``"after_verdict"``).
MOVE, CARD, STATEMENT = "move", "card", "statement"


class Statement(NamedTuple):
    """A turn's statement: the tentative ``text`` with its ``confidence`` (None: none
    given), declared or not. Stating nothing is None, not a statement."""

    text: str
    confidence: float | None = None
    declare: bool = False


class Turn(NamedTuple):
    """A whole turn at once, the action of timing ``"before_verdict"``: the ``card``
    played, and the ``statement`` judged after it (None: nothing stated)."""

    card: Card
    statement: Statement | None = None


def solo_deal_from(rng: np.random.Generator, rule: Rule, hand_size: int) -> Dealt:
    """The solo deal from ``rng``: two decks shuffled together, the first ``hand_size``
    cards to the hand, then cards drawn until ``rule`` accepts one on an empty line.

    >>> hand, refused, starter, stock = solo_deal_from(np.random.default_rng(0),
    ...                                                parse("red(card)"), 12)
    >>> len(hand), all(card.is_black for card in refused), starter.is_red
    (12, True, True)
    >>> len(hand) + len(refused) + 1 + len(stock)
    104
    """
    deck = [DECK[i] for i in rng.permutation(len(DECK)).tolist()]
    hand, stock = tuple(deck[:hand_size]), deck[hand_size:]
    mask = rule.legal_mask(Context())
    start = next((i for i, card in enumerate(stock) if (mask >> card.face) & 1), None)
    if start is None:
        return hand, tuple(stock), None, ()
    return hand, tuple(stock[:start]), stock[start], tuple(stock[start + 1 :])


class SoloState(GameState):
    """A position of the solo game; `apply` plays a card, its statement, or both.

    Make the first position with `deal` (the deal `play_solo` makes for a seed) or with
    the constructor (a given deal). The attributes are to be read: only `apply` moves
    the game on.

    Parameters
    ----------
    rule : Rule or str
        The secret rule.
    config : SoloConfig
        The game's options (hand size, turns, when the player states, how statements
        are judged).
    hand, refused, starter, stock : see `solo_deal_from`
        The deal.
    seed : int
        The seed the deal came from (kept for the record).

    Attributes
    ----------
    dealt, refused, starter : tuple of Card, tuple of Card, Card or None
        The deal (the hand as dealt).
    hand : list of Card
        The cards in hand, in the order they came (the order they are offered in).
    main_line, side_line : list of Card
        The main line (the starter first) and the wrong cards.
    last_right : bool or None
        The previous play's verdict, None before the first play.
    events, declarations, tentative : list
        Every play (`eleusis_lab.agent.Event`), declaration and tentative rule so far.
    found_turn : int or None
        The turn of the correct declaration.
    end : str or None
        How the game ended (`FOUND`, `TURN_CAP`, `OUT_OF_CARDS`, `NO_STARTER`), or None
        while it goes on (while the last card's statement is awaited too).
    awaited : str or None
        What `apply` awaits: `MOVE` (a `Turn`, timing ``"before_verdict"``), `CARD` or,
        after its verdict, `STATEMENT` (``"after_verdict"``); None once the game is
        over.
    """

    game = GAME

    def __init__(
        self,
        rule: Rule | str,
        config: SoloConfig,
        hand: Sequence[Card],
        refused: Sequence[Card],
        starter: Card | None,
        stock: Sequence[Card],
        seed: int = 0,
    ):
        self.rule = parse(rule) if isinstance(rule, str) else rule
        self.config = config
        self.seed = seed
        self._legal_mask = self.rule.legal_mask  # bound once: called every play
        self._max_turns = config.max_turns
        self._before = config.timing == BEFORE_VERDICT
        self._turn_starts = MOVE if self._before else CARD  # what a turn awaits first
        self.dealt, self.refused, self.starter = tuple(hand), tuple(refused), starter
        self._stock = tuple(stock)
        self._drawn = 0  # cards drawn from the stock after the starter
        self.hand = list(hand)
        self.main_line: list[Card] = [] if starter is None else [starter]
        self.side_line: list[Card] = []
        self.last_right: bool | None = None
        self.events: list[Event] = []
        self.declarations: list[Declaration] = []
        self.tentative: list[Tentative] = []
        self.found_turn: int | None = None
        self._stating = False  # after the verdict: a card was played, its statement awaited
        self.end: str | None = None
        self.awaited: str | None = None
        self._settle()

    def _settle(self) -> None:
        """Set `end` and `awaited` after the deal and after every move, the only times
        they change.

        A correct declaration counts before the turn cap (the last turn's statement may
        find the rule), the turn cap before an empty hand; a turn whose statement is
        awaited is not over.
        """
        if self.starter is None:
            self.end = NO_STARTER
        elif self.found_turn is not None:
            self.end = FOUND
        elif self._stating:
            self.end, self.awaited = None, STATEMENT
            return
        elif len(self.events) >= self._max_turns:
            self.end = TURN_CAP
        elif not self.hand:
            self.end = OUT_OF_CARDS
        else:
            self.end, self.awaited = None, self._turn_starts
            return
        self.awaited = None

    @classmethod
    def deal(cls, rule: Rule | str, seed: int, config: SoloConfig) -> SoloState:
        """The first position of the game `play_solo` plays with ``seed``.

        The seed feeds one ``numpy.random.SeedSequence``: the deck is shuffled by a
        generator on it (the agent's generator is a child of it, see
        `eleusis_lab.games.solo.engine.agent_start`).

        Raises
        ------
        ConfigError
            For a seed that is not a whole number >= 0.
        """
        rule = parse(rule) if isinstance(rule, str) else rule
        seed = check_seed(seed)
        rng = np.random.default_rng(np.random.SeedSequence(seed))
        return cls(rule, config, *solo_deal_from(rng, rule, config.hand_size), seed=seed)

    # -- where the game stands ------------------------------------------------------------

    @property
    def turns(self) -> int:
        """Turns played (cards played)."""
        return len(self.events)

    @property
    def stock(self) -> tuple[Card, ...]:
        """The cards left in the stock, in drawing order."""
        return self._stock[self._drawn :]

    def to_move(self) -> int | None:
        """0 while the player has a card to play or a statement to make, None once the
        game is over."""
        return 0 if self.end is None else None

    def is_terminal(self) -> bool:
        """Whether the game is over (`end` is set)."""
        return self.end is not None

    def legal_actions(self) -> tuple[Any, ...]:
        """The cards of the hand, in hand order (a card alone is a `Turn` that states
        nothing); ``(None,)`` while a statement is awaited (any `Statement` may be made,
        and None states nothing); none once the game is over."""
        if self.end is not None:
            return ()
        return (None,) if self._stating else tuple(self.hand)

    def observation(self, seat: int) -> Observation:
        """What the player (seat 0) sees: its hand, the main line, the wrong cards and
        the previous verdict (the refused starters and the stock are hidden)."""
        if seat != 0:
            raise ValueError(f"the solo game has one seat, 0; got {seat!r}")
        return Observation(
            GAME,
            0,
            1,
            tuple(self.hand),
            tuple(self.main_line),
            (tuple(self.side_line),),
            self.last_right,
        )

    @property
    def turn_declaration(self) -> Declaration | None:
        """The declaration of the last turn's statement; None when it declared nothing
        (or is still awaited)."""
        declarations = self.declarations
        if declarations and declarations[-1].turn == len(self.events):
            return declarations[-1]
        return None

    @property
    def wrong_declarations(self) -> int:
        """Declarations judged wrong so far."""
        return sum(not d.correct for d in self.declarations)

    @property
    def score(self) -> int:
        """`solo_score` of the game as it stands (final once it is over)."""
        return solo_score(self.found_turn, self.wrong_declarations, self.config.max_turns)

    def scores(self) -> tuple[float, ...]:
        """The player's `solo_score`, as a one-seat tuple."""
        return (float(self.score),)

    def results(self) -> dict[str, Any]:
        """What the record derives from the game as it stands: ``turns``,
        ``found_turn``, ``wrong_declarations``, ``score``, ``floored_score``, ``found``
        and ``success`` (found with a score of at least 2)."""
        score, found = self.score, self.found_turn is not None
        return {
            "turns": len(self.events),
            "found_turn": self.found_turn,
            "wrong_declarations": self.wrong_declarations,
            "score": score,
            "floored_score": max(0, score),
            "found": found,
            "success": published_success(found, score),
        }

    # -- moves ----------------------------------------------------------------------------

    def apply(self, action: Any) -> tuple[Event, ...]:
        """Make the move `awaited`; the events it made.

        A card of the hand (or a `Turn`'s) is judged against the main line, then one
        card is drawn from the stock while it lasts: the play's event. A statement (a
        `Turn`'s, or ``action`` itself while one is awaited) is then judged in the
        position after its card: every statement is recorded as a `Tentative`, a
        declaration also as a `Declaration` (`turn_declaration`), and a correct one
        ends the game. The statement is taken as given (`play_solo` checks an agent's
        first).

        Raises
        ------
        ValueError
            Once the game is over, for a card not in the hand, for a `Turn` with timing
            ``"after_verdict"``, or for anything but a `Statement` or None while a
            statement is awaited; the state is unchanged.
        """
        if self.end is not None:
            raise ValueError(f"the game is over ({self.end}): no card can be played")
        if self._stating:
            if action is not None and not isinstance(action, Statement):
                raise ValueError(
                    f"turn {len(self.events)} awaits its statement (a Statement, or None),"
                    f" not {action!r}"
                )
            self._stating = False
            if action is not None:
                self._judge_statement(action)
            self._settle()
            return ()
        statement = None
        if isinstance(action, Turn):
            if not self._before:
                raise ValueError(
                    "with timing 'after_verdict' a turn's statement follows its card's"
                    " verdict: play the card alone"
                )
            action, statement = action
        hand, main = self.hand, self.main_line
        try:
            card = hand.pop(hand.index(action))
        except ValueError:
            raise ValueError(f"{action!r} is not in the hand") from None
        right = bool((self._legal_mask(Context(tuple(main), self.last_right)) >> card.face) & 1)
        event = Event(0, card, 1, right, len(main) - 1)
        (main if right else self.side_line).append(card)
        self.last_right = right
        if self._drawn < len(self._stock):
            hand.append(self._stock[self._drawn])
            self._drawn += 1
        self.events.append(event)
        if statement is not None:
            self._judge_statement(statement)
        elif not self._before:
            self._stating = True
        self._settle()
        return (event,)

    def judge(self, text: str) -> Judgement:
        """How ``text`` is judged as a declaration now (`SoloConfig.judge_in` in the
        main line and verdict of now); the state does not change."""
        context = Context(tuple(self.main_line), self.last_right)
        return self.config.judge_in(self.rule, text, context)

    def _judge_statement(self, statement: Statement) -> None:
        """Record the turn's ``statement`` as judged now (a correct declaration finds
        the rule; `_settle` ends the game)."""
        text, confidence, declare = statement
        turn, judged = len(self.events), self.judge(text)
        self.tentative.append(Tentative(turn, text, confidence, judged.correct))
        if declare:
            self.declarations.append(
                Declaration(turn, text, judged.correct, judged.method, judged.reason, confidence)
            )
            if judged.correct:
                self.found_turn = turn

    # -- the record -----------------------------------------------------------------------

    def record(self, agent: dict[str, Any], faults: Sequence[Fault] = ()) -> SoloRecord:
        """The record of the game as it stands, played by ``agent`` (its description,
        `eleusis_lab.engines.describe_seat`) with ``faults``.

        Raises
        ------
        ValueError
            While the game goes on.
        """
        end = self.end
        if end is None:
            raise ValueError("the game goes on: it has no record yet")
        return SoloRecord(
            game=GAME,
            rule=self.rule.text,
            rule_name=self.rule.name,
            seed=self.seed,
            config=self.config.to_dict(),
            agent=agent,
            deal=self.dealt,
            refused=self.refused,
            starter=self.starter,
            events=tuple(self.events),
            declarations=tuple(self.declarations),
            main_line=tuple(self.main_line),
            side_line=tuple(self.side_line),
            hand=tuple(self.hand),
            stock=self.stock,
            end=end,
            faults=tuple(faults),
            tentative=tuple(self.tentative),
            **self.results(),
        )

    def __repr__(self) -> str:
        return (
            f"SoloState(rule={self.rule.text!r}, seed={self.seed}, turns={len(self.events)},"
            f" end={self.end!r})"
        )
