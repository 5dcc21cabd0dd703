"""New Eleusis (RULES.md section 5) as a `eleusis_lab.games.state.GameState`:
`NewEleusisState`, the rules of a round written once.

The engine (`eleusis_lab.games.new_eleusis.play_new_eleusis`) asks agents and applies
their answers to the state, the replay (`eleusis_lab.games.new_eleusis.replay_new_eleusis`)
applies a record's decisions and compares, and the PettingZoo environment
(`eleusis_lab.envs.new_eleusis`) applies a policy's actions.

Decisions and actions
---------------------
A turn is up to three decisions; `NewEleusisState.decision` says which is next and
`NewEleusisState.to_move` whose it is:

- `TURN`, the player whose turn it is: an action is a tuple of cards, 1 to 4 different
  cards of his hand in the order played (`MAX_STRING`), or `NO_PLAY` (the empty tuple)
  to declare "no play".
- `CALL`, the Prophet, when one is in place: his call of the turn just chosen
  (`NewEleusisState.pending`), ``True`` for right (a right string or a true "no
  play"), ``False`` for wrong.
- `DECLARE`, the player who has just played, when he may become Prophet
  (`NewEleusisState.can_declare`): ``True`` to declare himself Prophet.

The strings a hand of 14 allows are many (over 24,000), so `legal_actions` lists, for a
`TURN`, each card of the hand alone (in the hand's order: the first is the engine's
substitute for a faulty decision) and then `NO_PLAY`; `NewEleusisState.is_legal` checks
any action, strings included, and `NewEleusisState.legal_turns` enumerates every turn.
For `CALL` and `DECLARE` the actions are booleans, the substitute first.

`NewEleusisState.apply` returns the events the agents are told
(`eleusis_lab.games.new_eleusis.record.Turn.events`) once a turn is judged: at the
`TURN` action with no Prophet, at the `CALL` with one; a declaration makes none. Each
judged turn is appended to `NewEleusisState.turns` as the record has it.

Examples
--------
Under "red(card)", seat 0 plays a string whose second card is black: wrong, he draws
two cards per card played, then declares himself Prophet. Seat 1 plays a black card;
the Prophet calls it right, so he is overthrown and draws 5, and seat 1 draws nothing.

>>> from eleusis_lab.games.new_eleusis import NewEleusisConfig
>>> state = NewEleusisState.deal("red(card)", 1, NewEleusisConfig(), players=3)
>>> state.starter, state.to_move(), state.decision, len(state.legal_actions())
(Card('KH', copy=1), 0, 'turn', 15)
>>> hand = state.hands[0]
>>> [str(card) for card in hand[:2]], state.is_legal((hand[0], hand[0]))
(['JH', '7S'], False)
>>> [(str(event.card), event.right, event.kind) for event in state.apply(tuple(hand[:2]))]
[('JH', False, 'string'), ('7S', False, 'string')]
>>> len(state.turns[-1].drawn), len(state.hands[0]), state.decision, state.to_move()
(4, 16, 'declare', 0)
>>> state.apply(True), state.prophet, state.to_move(), state.legal_actions()[-1] == NO_PLAY
((), 0, 1, True)
>>> state.apply((state.hands[1][0],)), state.decision, state.to_move(), state.legal_actions()
((), 'call', 0, (True, False))
>>> [(str(event.card), event.right) for event in state.apply(True)]
[('9C', False)]
>>> turn = state.turns[-1]
>>> turn.overthrown, turn.drawn, len(turn.prophet_drawn), state.prophet
(True, (), 5, None)
>>> state.decision, state.to_move()  # with no Prophet, seat 1 may now become one
('declare', 1)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from itertools import permutations
from typing import TYPE_CHECKING, Any

import numpy as np

from eleusis_lab.agent import Event
from eleusis_lab.cards import Card, standard_deck
from eleusis_lab.engines import check_seed
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.classic.record import PLAYER_OUT
from eleusis_lab.games.new_eleusis.decisions import NewEleusisObservation
from eleusis_lab.games.new_eleusis.record import (
    ALL_EXPELLED,
    FALSE_NO_PLAY_PENALTY,
    GAME,
    MAX_PLAYERS,
    MAX_STRING,
    MIN_PLAYERS,
    NO_PLAY_SHRINK,
    OVERTHROW_PENALTY,
    WRONG_CARD_PENALTY,
    ProphetTerm,
    Turn,
)
from eleusis_lab.games.new_eleusis.scoring import (
    new_eleusis_dealer_score,
    new_eleusis_player_scores,
)
from eleusis_lab.games.new_eleusis.table import check_rule, deal_round, first_player, shuffled
from eleusis_lab.games.state import GameState
from eleusis_lab.record import TURN_CAP
from eleusis_lab.rules import Context, Rule

if TYPE_CHECKING:
    from eleusis_lab.games.new_eleusis.engine import NewEleusisConfig

__all__ = ["CALL", "DECLARE", "NO_PLAY", "TURN", "NewEleusisState"]

#: The decisions of a turn (`NewEleusisState.decision`).
TURN, CALL, DECLARE = "turn", "call", "declare"
#: The `TURN` action that declares "no play".
NO_PLAY: tuple[Card, ...] = ()


class NewEleusisState(GameState):
    """A round of New Eleusis without its agents: the deal, the stock, the lines, the
    Prophet, and the decision to come (see the module docstring for the actions).

    ``hands[seat]`` lists a seat's cards in the order he received them; ``stock`` is a
    list whose top is its last item. Make the first position with `deal`.
    """

    game = GAME

    def __init__(self, rule: Rule, n: int, seed: int, config: NewEleusisConfig):
        self.rule, self.n, self.config = rule, n, config
        self.sequence = np.random.SeedSequence(seed)
        self.rng = np.random.default_rng(self.sequence)
        self.starter, self.hands, stock = deal_round(self.rng, n, config.hand_size)
        #: The hands as dealt.
        self.dealt = tuple(map(tuple, self.hands))
        self.stock = stock[::-1]
        self.decks = 2
        self._refill()
        self.first = self.seat = first_player(self.starter, n, config.count_dealer)
        self.main = [self.starter]
        self.side: list[list[Card]] = [[]]
        self.played = self.main_played = self.side_played = 0
        self.set_aside: list[list[Card]] = [[] for _ in range(n)]
        self.prophet: int | None = None
        self.marker: tuple[int, int, int] | None = None  # (played, main, side) at the marker
        self.been_prophet: set[int] = set()
        self.prophets: list[ProphetTerm] = []
        self.expelled: list[int] = []
        self.out: set[int] = set()
        self.last_right: bool | None = None
        #: The turns judged so far, as the record has them.
        self.turns: list[Turn] = []
        self.end: str | None = TURN_CAP if config.max_turns == 0 else None
        #: The decision to come: `TURN`, `CALL` or `DECLARE`.
        self.decision = TURN
        #: The turn chosen and awaiting the Prophet's call.
        self.pending: tuple[Card, ...] = NO_PLAY

    @classmethod
    def deal(
        cls,
        rule: Rule | str,
        seed: int,
        config: NewEleusisConfig,
        players: int = MIN_PLAYERS,
    ) -> NewEleusisState:
        """The first position of a round of ``players`` players: the deal
        `eleusis_lab.games.new_eleusis.play_new_eleusis` makes for ``seed``.

        Raises
        ------
        ConfigError
            For a rule that reads ``last_play_right``, a player count outside 3 to 7, a
            bad seed or a hand size the decks cannot deal.
        """
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ConfigError(f"New Eleusis has 3 to 7 players, got {players}")
        return cls(check_rule(rule), players, check_seed(seed), config)

    # -- the stock ------------------------------------------------------------------------------

    def _refill(self) -> None:
        while len(self.stock) <= self.config.low_stock:
            deck = shuffled(self.rng, standard_deck(copy=self.decks))
            self.stock = deck[::-1] + self.stock  # under the stock
            self.decks += 1

    def _draw(self, count: int) -> tuple[Card, ...]:
        drawn = []
        for _ in range(count):
            drawn.append(self.stock.pop())
            self._refill()
        return tuple(drawn)

    # -- the position ---------------------------------------------------------------------------

    def to_move(self) -> int | None:
        """The seat whose decision is next (the Prophet for a `CALL`), None at the end."""
        if self.end is not None:
            return None
        return self.prophet if self.decision == CALL else self.seat

    def phase(self) -> int:
        """2 if sudden death is in force for the next play, else 1."""
        if self.marker is None:
            return 2 if self.played >= self.config.sudden_death_after else 1
        after = self.played - self.marker[0]
        return 2 if after >= self.config.sudden_death_after_marker else 1

    def in_round(self, seat: int) -> bool:
        """Whether ``seat`` takes turns: neither expelled nor the Prophet."""
        return seat not in self.out and seat != self.prophet

    def right_mask(self, line: tuple[Card, ...] | None = None) -> int:
        """The faces the rule accepts after ``line`` (the main line by default), as bits."""
        return self.rule.legal_mask(Context(tuple(self.main) if line is None else line))

    def string_right(self, cards: tuple[Card, ...]) -> bool:
        """Whether each of ``cards`` is right after the main line and the cards before it."""
        line = tuple(self.main)
        for card in cards:
            if not (self.right_mask(line) >> card.face) & 1:
                return False
            line += (card,)
        return True

    def can_declare(self, seat: int) -> bool:
        """Whether ``seat``, who has just played, may declare himself Prophet now."""
        others = sum(1 for other in range(self.n) if other != seat and other not in self.out)
        return (
            self.end is None
            and self.prophet is None
            and seat not in self.been_prophet
            and seat not in self.out
            and others >= 2
        )

    # -- the actions ----------------------------------------------------------------------------

    def legal_actions(self) -> tuple[Any, ...]:
        """A `TURN`'s single cards (hand order) and `NO_PLAY`; a `CALL`'s ``(True,
        False)``; a `DECLARE`'s ``(False, True)``; nothing once the round is over."""
        if self.end is not None:
            return ()
        if self.decision == TURN:
            return (*((card,) for card in self.hands[self.seat]), NO_PLAY)
        return (True, False) if self.decision == CALL else (False, True)

    def legal_turns(self) -> Iterator[tuple[Card, ...]]:
        """Every turn the player to move may take: strings by length (single cards
        first), then `NO_PLAY`. Empty unless the decision is a `TURN`."""
        if self.end is not None or self.decision != TURN:
            return
        for length in range(1, min(MAX_STRING, len(self.hands[self.seat])) + 1):
            yield from permutations(self.hands[self.seat], length)
        yield NO_PLAY

    def is_legal(self, action: Any) -> bool:
        """Whether ``action`` is one the decision to come allows (see the module)."""
        if self.end is not None:
            return False
        if self.decision != TURN:
            return type(action) is bool or type(action) is np.bool_
        if not isinstance(action, tuple) or len(action) > MAX_STRING:
            return False
        hand = self.hands[self.seat]
        for i, card in enumerate(action):
            if not isinstance(card, Card) or card not in hand or card in action[:i]:
                return False
        return True

    def apply(self, action: Any) -> tuple[Event, ...]:
        """Take the decision to come; the events of the turn once it is judged.

        Raises
        ------
        ValueError
            For an action `is_legal` refuses, or once the round is over.
        """
        if not self.is_legal(action):
            over = " (the round is over)" if self.end is not None else ""
            raise ValueError(f"{action!r} is not a legal {self.decision} action{over}")
        if self.decision == TURN:
            if self.prophet is not None:
                self.pending, self.decision = action, CALL
                return ()
            return self._judged(self._play(action, None))
        if self.decision == CALL:
            cards, self.pending = self.pending, NO_PLAY
            return self._judged(self._play(cards, bool(action)))
        if action:
            self._declare(self.seat)
            self.turns[-1] = replace(self.turns[-1], declared_prophet=True)
        self._next_turn()
        return ()

    def _judged(self, turn: Turn) -> tuple[Event, ...]:
        self.turns.append(turn)
        if self.can_declare(turn.seat):
            self.decision = DECLARE
        else:
            self._next_turn()
        return tuple(turn.events())

    def _next_turn(self) -> None:
        """Pass the turn clockwise to the next seat still in the round; stop at the cap."""
        for step in range(1, self.n + 1):
            seat = (self.seat + step) % self.n
            if self.in_round(seat):
                self.seat = seat
                break
        self.decision = TURN
        if self.end is None and len(self.turns) >= self.config.max_turns:
            self.end = TURN_CAP

    def _play(self, cards: tuple[Card, ...], call: bool | None) -> Turn:
        """The turn of the seat to play: ``cards`` or "no play", and the Prophet's call."""
        seat, hand = self.seat, self.hands[self.seat]
        phase, position, prophet = self.phase(), len(self.main) - 1, self.prophet
        drawn: tuple[Card, ...] = ()
        set_aside: tuple[Card, ...] = ()
        dealer_card = None
        if cards:
            right = self.string_right(cards)
            for card in cards:
                hand.remove(card)
            if right:
                self.main.extend(cards)
                self.side.extend([] for _ in cards)
                self.main_played += len(cards)
            else:
                self.side[position].extend(cards)
                self.side_played += len(cards)
            self.played += len(cards)
        else:
            mask = self.right_mask()
            right_cards = [card for card in hand if (mask >> card.face) & 1]
            right = not right_cards
        overthrown = call is not None and call != right
        if not cards:
            if right:  # the hand is set aside; a new one, 4 smaller (none: he is out)
                set_aside = tuple(hand)
                self.set_aside[seat].extend(hand)
                hand.clear()
                drawn = self._draw(max(0, len(set_aside) - NO_PLAY_SHRINK))
                hand.extend(drawn)
            else:  # the dealer plays the first right card of the hand
                dealer_card = right_cards[0]
                hand.remove(dealer_card)
                self.main.append(dealer_card)
                self.side.append([])
                self.played += 1
                self.main_played += 1
        expelled = False
        if not right and not overthrown:
            penalty = self._draw(
                WRONG_CARD_PENALTY * len(cards) if cards else FALSE_NO_PLAY_PENALTY
            )
            hand.extend(penalty)
            drawn += penalty
            if phase == 2:
                expelled = True
                self.expelled.append(seat)
                self.out.add(seat)
        prophet_drawn: tuple[Card, ...] = ()
        if overthrown:
            assert prophet is not None
            prophet_drawn = self._draw(OVERTHROW_PENALTY)
            self.hands[prophet].extend(prophet_drawn)
            self.prophets[-1] = replace(self.prophets[-1], overthrown=len(self.turns))
            self.prophet = self.marker = None
        self.last_right = right
        if not hand and seat not in self.out:
            self.end = PLAYER_OUT
        elif not any(self.in_round(other) for other in range(self.n)):
            self.end = ALL_EXPELLED
        return Turn(
            seat=seat,
            cards=tuple(cards),
            right=right,
            position=position,
            phase=phase,
            prophet_call=call,
            overthrown=overthrown,
            expelled=expelled,
            set_aside=set_aside,
            dealer_card=dealer_card,
            drawn=drawn,
            prophet_drawn=prophet_drawn,
        )

    def _declare(self, seat: int) -> None:
        """``seat`` becomes the Prophet; his marker goes on the last card played."""
        self.prophet = seat
        self.marker = (self.played, self.main_played, self.side_played)
        self.been_prophet.add(seat)
        self.prophets.append(ProphetTerm(seat, len(self.turns) - 1, self.played))

    # -- what is seen, and the end ----------------------------------------------------------------

    def observation(self, seat: int) -> NewEleusisObservation:
        """What ``seat`` sees now (every seat sees the same but for its own hand)."""
        return NewEleusisObservation(
            GAME,
            seat,
            self.phase(),
            tuple(self.hands[seat]),
            tuple(self.main),
            tuple(map(tuple, self.set_aside)),
            self.last_right,
            side_line=tuple(map(tuple, self.side)),
            hand_sizes=tuple(map(len, self.hands)),
            prophet=self.prophet,
            marker=None if self.marker is None else self.marker[0],
            cards_played=self.played,
            expelled=tuple(self.expelled),
        )

    def final_scores(self) -> tuple[tuple[int, ...], int]:
        """The players' scores and the dealer's, as the round stands (RULES.md section 5)."""
        sizes = [len(hand) for hand in self.hands]
        if self.marker is None:
            players = new_eleusis_player_scores(sizes)
            return tuple(players), new_eleusis_dealer_score(players)
        played, main, side = self.marker
        players = new_eleusis_player_scores(
            sizes, self.prophet, self.main_played - main, self.side_played - side
        )
        return tuple(players), new_eleusis_dealer_score(players, played)

    def scores(self) -> tuple[float, ...]:
        """Each player's score (`final_scores`; the dealer, not a seat, is left out)."""
        return self.final_scores()[0]

    def record_fields(self) -> dict[str, Any]:
        """The fields of a `eleusis_lab.games.new_eleusis.NewEleusisRecord` that the play
        gives (all but the game, rule, seed, config, agents and faults)."""
        players, dealer = self.final_scores()
        return {
            "starter": self.starter,
            "first_seat": self.first,
            "deal": self.dealt,
            "turns": tuple(self.turns),
            "prophets": tuple(self.prophets),
            "main_line": tuple(self.main),
            "side_line": tuple(map(tuple, self.side)),
            "hands": tuple(map(tuple, self.hands)),
            "set_aside": tuple(map(tuple, self.set_aside)),
            "expelled": tuple(self.expelled),
            "stock": tuple(reversed(self.stock)),
            "decks": self.decks,
            "end": self.end,
            "turn_cap_hit": self.end == TURN_CAP,
            "player_scores": players,
            "dealer_score": dealer,
        }
