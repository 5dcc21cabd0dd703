"""The rules of Delphi (RULES.md section 3) as data and transitions: `DelphiState`.

The oracle's deck is turned card by card; before each card every player predicts, in
seat order, whether it is right. A game has one kind of decision:

- **a prediction**: the seat to move gives its probability that the card to predict
  (`DelphiState.card`) is right, a float in [0, 1]; its token says "right" when the
  probability is at least `TOKEN_THRESHOLD`. Seats 0, 1, ... predict the same card in
  turn, and none of them sees the others' predictions of it (`DelphiState.observation`
  shows the table as it was before the card): the players show their tokens "at the
  same time". The last seat's prediction turns the card: the oracle's verdict is the
  event that `DelphiState.apply` returns, and the next card is predicted by seat 0.

Nobody chooses cards, so nothing but the predictions can differ from one game of a
seed to another. The game is over once every card is judged; the scores are the
settlement of the chips the tokens won (`eleusis_lab.games.delphi.scoring`).

Examples
--------
A two-card deck after the starter, judged by "a red card": seat 0 always says "right",
seat 1 always "wrong".

>>> from eleusis_lab.cards import parse_card, parse_cards
>>> state = DelphiState("red(card)", parse_card("KS"), parse_cards("3H 4C"), players=2)
>>> state.to_move(), state.card
(0, Card('3H'))
>>> state.apply(1.0)
()
>>> state.apply(0.0)  # the last seat: the oracle places the card
(Event(seat=-1, card=Card('3H'), phase=1, right=True, position=0, kind='play'),)
>>> state.apply(1.0), [event.right for event in state.apply(0.0)]
((), [False])
>>> state.is_terminal(), state.main_line, state.side_column
(True, (Card('KS'), Card('3H')), (Card('4C'),))
>>> state.hits(), state.chips(), state.settlement()
([[True, False], [False, True]], [0, 1], ([-1, 1], 1))
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

from eleusis_lab.agent import Event, Observation
from eleusis_lab.cards import Card
from eleusis_lab.engines import check_seed
from eleusis_lab.games.delphi.record import (
    DECK,
    GAME,
    ORACLE,
    SUBSTITUTE_PROBABILITY,
    TOKEN_THRESHOLD,
)
from eleusis_lab.games.delphi.scoring import delphi_chips, delphi_scores
from eleusis_lab.games.state import GameState
from eleusis_lab.rules import Context, Rule, parse

__all__ = ["PREDICTIONS", "DelphiState", "delphi_deal"]

#: The predictions `DelphiState.legal_actions` lists: the substitute of a faulty
#: prediction first, then a certain "wrong" and a certain "right". Any probability in
#: [0, 1] is legal; these are the two tokens a search over the game needs.
PREDICTIONS = (SUBSTITUTE_PROBABILITY, 0.0, 1.0)


def delphi_deal(seed: int) -> tuple[Card, tuple[Card, ...]]:
    """The starter and the 51 other cards in the order `DelphiState.deal` turns them.

    The same shuffle as `eleusis_lab.games.classic.classic_deal`: its starter is
    the same card.

    Examples
    --------
    >>> starter, cards = delphi_deal(3)
    >>> starter, len(cards)
    (Card('QH'), 51)
    """
    rng = np.random.default_rng(np.random.SeedSequence(check_seed(seed)))
    deck = [DECK[i] for i in rng.permutation(len(DECK)).tolist()]
    return deck[0], tuple(deck[1:])


def _number(action: object) -> float:
    """A prediction given as another real number (an int, a NumPy scalar) as a float."""
    if not isinstance(action, numbers.Real):
        raise ValueError(f"a prediction is a probability in [0, 1], got {action!r}")
    return float(action)


class DelphiState(GameState):
    """One position of a game of Delphi; `apply` a prediction to move it on.

    Parameters
    ----------
    rule : Rule or str
        The oracle's rule (text is parsed with `eleusis_lab.rules.parse`).
    starter : Card
        The first card, placed unjudged.
    cards : sequence of Card
        The cards to predict and judge, in the order they are turned.
    players : int
        How many seats predict (at least one).

    Attributes
    ----------
    rule : Rule
    players : int
    starter : Card
    cards : tuple of Card
    card : Card or None
        The card the seats predict now; None once every card is judged.
    main_line : tuple of Card
        The right cards so far, the starter first.
    side_column : tuple of Card
        The wrong cards so far.
    last_right : bool or None
        The previous card's verdict; None before the first.
    events : list of Event
        One per card judged (``seat=ORACLE``, ``phase=1``, the verdict, the main-line
        position it was judged against).
    probabilities : list of tuple of float
        Per card judged, each seat's prediction.
    """

    game = GAME
    __slots__ = (
        "rule",
        "players",
        "starter",
        "cards",
        "main_line",
        "side_column",
        "last_right",
        "events",
        "probabilities",
        "card",
        "_row",
        "_legal_mask",
    )

    def __init__(self, rule: Rule | str, starter: Card, cards: Sequence[Card], players: int):
        if isinstance(rule, str):
            rule = parse(rule)
        if not (isinstance(players, int) and players >= 1):
            raise ValueError(f"Delphi needs at least one player, got {players!r}")
        self.rule = rule
        self.players = players
        self.starter = starter
        self.cards = tuple(cards)
        self.main_line: tuple[Card, ...] = (starter,)
        self.side_column: tuple[Card, ...] = ()
        self.last_right: bool | None = None
        self.events: list[Event] = []
        self.probabilities: list[tuple[float, ...]] = []
        self.card: Card | None = self.cards[0] if self.cards else None
        self._row: list[float] = []  # the predictions of `card` so far
        self._legal_mask = rule.legal_mask

    @classmethod
    def deal(
        cls, rule: Rule | str, seed: int, config: object = None, *, players: int
    ) -> DelphiState:
        """The first position of the game `eleusis_lab.games.delphi.play_delphi` plays
        for ``seed`` with ``players`` seats (`delphi_deal`).

        ``config`` (a `eleusis_lab.games.delphi.DelphiConfig`) holds only what the
        engine does about agents' faults: it changes nothing of the rules.

        >>> state = DelphiState.deal("red(card)", 3, players=2)
        >>> state.starter, len(state.cards), state.to_move()
        (Card('QH'), 51, 0)
        """
        starter, cards = delphi_deal(seed)
        return cls(rule, starter, cards, players)

    # -- the decisions ------------------------------------------------------------------

    def to_move(self) -> int | None:
        """The seat that predicts next, or None once every card is judged."""
        return None if self.card is None else len(self._row)

    def legal_actions(self) -> tuple[float, ...]:
        """`PREDICTIONS` (any probability in [0, 1] is legal), or () once over."""
        return () if self.card is None else PREDICTIONS

    def apply(self, action: float) -> tuple[Event, ...]:
        """The seat to move predicts ``action``, its probability that `card` is right.

        Returns the oracle's event when this was the last seat to predict the card
        (the card is then placed), else ().

        Raises
        ------
        ValueError
            For a prediction that is not a probability in [0, 1], or once the game is
            over.
        """
        if self.card is None:
            raise ValueError("the game is over: every card is judged")
        p = action if type(action) is float else _number(action)
        if not 0.0 <= p <= 1.0:  # NaN fails too
            raise ValueError(f"a prediction is a probability in [0, 1], got {action!r}")
        row = self._row
        row.append(p)
        if len(row) < self.players:
            return ()
        self._row = []
        return (self._place(tuple(row)),)

    def _place(self, row: tuple[float, ...]) -> Event:
        """The oracle judges the card every seat predicted, and places it."""
        card, main = self.card, self.main_line
        right = bool((self._legal_mask(Context(main, self.last_right)) >> card.face) & 1)
        event = Event(ORACLE, card, 1, right, len(main) - 1)
        self.events.append(event)
        self.probabilities.append(row)
        if right:
            self.main_line = main + (card,)
        else:
            self.side_column += (card,)
        self.last_right = right
        k = len(self.events)
        self.card = self.cards[k] if k < len(self.cards) else None
        return event

    def observation(self, seat: int) -> Observation:
        """What ``seat`` sees before it predicts: no hand, the main line, the side
        column as its one pile of ``wrong_cards``, the previous verdict. (The card to
        predict is `card`; the engine hands it to ``agent.predict``.)"""
        return Observation(GAME, seat, 1, (), self.main_line, (self.side_column,), self.last_right)

    # -- the scores ---------------------------------------------------------------------

    def hits(self) -> list[list[bool]]:
        """Per card judged, whether each seat's token matched the verdict."""
        return [
            [(p >= TOKEN_THRESHOLD) == event.right for p in row]
            for row, event in zip(self.probabilities, self.events, strict=True)
        ]

    def accuracy(self) -> tuple[float, ...] | None:
        """Each seat's share of correct tokens so far; None before the first verdict."""
        hits = self.hits()
        if not hits:
            return None
        return tuple(sum(row[seat] for row in hits) / len(hits) for seat in range(self.players))

    def chips(self) -> list[int]:
        """Each seat's chips now (`eleusis_lab.games.delphi.scoring.delphi_chips`)."""
        hits = self.hits()
        return delphi_chips(hits) if hits else [0] * self.players

    def settlement(self) -> tuple[list[int], int]:
        """The players' scores and the oracle's from the chips now
        (`eleusis_lab.games.delphi.scoring.delphi_scores`), as the record has them."""
        return delphi_scores(self.chips())

    def scores(self) -> tuple[float, ...]:
        """Each seat's score after the settlement (final once the game is over)."""
        return tuple(float(score) for score in self.settlement()[0])

    def __repr__(self) -> str:
        return f"<DelphiState card {len(self.events)} of {len(self.cards)}, seat {self.to_move()}>"
