"""New Eleusis: the state of a round and its moves, which the engine and the replay share:
the deal, the stock and its extra decks, the turn order, the Prophet and sudden death.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from eleusis_lab.cards import Card, standard_deck, two_decks
from eleusis_lab.engines import (
    check_seed,
)
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.classic.record import PLAYER_OUT
from eleusis_lab.games.new_eleusis.decisions import NewEleusisObservation
from eleusis_lab.games.new_eleusis.record import (
    ALL_EXPELLED,
    FALSE_NO_PLAY_PENALTY,
    GAME,
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
from eleusis_lab.rules import Context, Rule, parse

if TYPE_CHECKING:
    from eleusis_lab.games.new_eleusis import NewEleusisConfig

# -- the table: the state of a round and its moves, shared by the engine and replay ---------


def _shuffled(rng: np.random.Generator, cards: list[Card]) -> list[Card]:
    return [cards[i] for i in rng.permutation(len(cards)).tolist()]


def _deal(
    rng: np.random.Generator, n: int, hand_size: int
) -> tuple[Card, list[list[Card]], list[Card]]:
    """Two decks shuffled, dealt one card at a time from seat 0; the starter; the stock."""
    deck = _shuffled(rng, two_decks())
    dealt = n * hand_size
    if dealt >= len(deck):
        raise ConfigError(
            f"hand_size={hand_size} for {n} players needs {dealt} cards and a starter,"
            f" but two decks have {len(deck)}"
        )
    hands = [deck[seat:dealt:n] for seat in range(n)]
    return deck[dealt], hands, deck[dealt + 1 :]


def first_player(starter: Card, n_players: int, count_dealer: bool = False) -> int:
    """The seat that plays first: the starter's value counted clockwise from the dealer.

    Count 1 is the player left of the dealer (seat 0). By default the dealer, who does
    not play, is not counted; with ``count_dealer`` his place counts too and a count
    ending on him gives the turn to his left.

    Examples
    --------
    >>> from eleusis_lab.cards import parse_card
    >>> first_player(parse_card("3H"), 4), first_player(parse_card("KS"), 4)
    (2, 0)
    >>> first_player(parse_card("5H"), 4, count_dealer=True)
    0
    """
    if count_dealer:
        place = starter.rank % (n_players + 1)
        return 0 if place == 0 else place - 1
    return (starter.rank - 1) % n_players


class RoundTable:
    """A round without its agents: the deal, the stock, the lines, and every move.

    The engine feeds it the agents' decisions; `replay_new_eleusis` feeds it the ones of
    a record and compares what comes out. ``hands[seat]`` lists a seat's cards in the
    order he received them; the stock is a list whose top is its last item.
    """

    def __init__(self, rule: Rule, n: int, seed: int, config: NewEleusisConfig):
        self.rule, self.n, self.config = rule, n, config
        self.sequence = np.random.SeedSequence(seed)
        self.rng = np.random.default_rng(self.sequence)
        self.starter, self.hands, stock = _deal(self.rng, n, config.hand_size)
        self.deal = tuple(map(tuple, self.hands))
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
        self.turns = 0
        self.end: str | None = None

    # -- the stock ----------------------------------------------------------------------------

    def _refill(self) -> None:
        while len(self.stock) <= self.config.low_stock:
            deck = _shuffled(self.rng, standard_deck(copy=self.decks))
            self.stock = deck[::-1] + self.stock  # under the stock
            self.decks += 1

    def draw(self, count: int) -> tuple[Card, ...]:
        drawn = []
        for _ in range(count):
            drawn.append(self.stock.pop())
            self._refill()
        return tuple(drawn)

    # -- state ----------------------------------------------------------------------------------

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
        return self.rule.legal_mask(Context(tuple(self.main) if line is None else line))

    def string_right(self, cards: tuple[Card, ...]) -> bool:
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

    # -- moves ----------------------------------------------------------------------------------

    def play(self, cards: tuple[Card, ...], call: bool | None) -> Turn:
        """The turn of the seat to play: ``cards`` (legal, checked by the caller) or "no play"."""
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
                drawn = self.draw(max(0, len(set_aside) - NO_PLAY_SHRINK))
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
            penalty = self.draw(WRONG_CARD_PENALTY * len(cards) if cards else FALSE_NO_PLAY_PENALTY)
            hand.extend(penalty)
            drawn += penalty
            if phase == 2:
                expelled = True
                self.expelled.append(seat)
                self.out.add(seat)
        prophet_drawn: tuple[Card, ...] = ()
        if overthrown:
            assert prophet is not None
            prophet_drawn = self.draw(OVERTHROW_PENALTY)
            self.hands[prophet].extend(prophet_drawn)
            self.prophets[-1] = replace(self.prophets[-1], overthrown=self.turns)
            self.prophet = self.marker = None
        self.last_right = right
        self.turns += 1
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

    def declare(self, seat: int) -> None:
        """``seat`` becomes the Prophet; his marker goes on the last card played."""
        self.prophet = seat
        self.marker = (self.played, self.main_played, self.side_played)
        self.been_prophet.add(seat)
        self.prophets.append(ProphetTerm(seat, self.turns - 1, self.played))

    def advance(self) -> None:
        """Pass the turn clockwise to the next seat still in the round."""
        for step in range(1, self.n + 1):
            seat = (self.seat + step) % self.n
            if self.in_round(seat):
                self.seat = seat
                return

    # -- the end ------------------------------------------------------------------------------

    def scores(self) -> tuple[list[int], int]:
        sizes = [len(hand) for hand in self.hands]
        if self.marker is None:
            players = new_eleusis_player_scores(sizes)
            return players, new_eleusis_dealer_score(players)
        played, main, side = self.marker
        players = new_eleusis_player_scores(
            sizes, self.prophet, self.main_played - main, self.side_played - side
        )
        return players, new_eleusis_dealer_score(players, played)

    def observation(self, seat: int) -> NewEleusisObservation:
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


def check_rule(rule: Rule | str) -> Rule:
    if isinstance(rule, str):
        rule = parse(rule)
    if "outcome" in rule.slots:
        raise ConfigError(
            f"the New Eleusis rule {rule.text!r} reads last_play_right; a New Eleusis"
            " rule reads only the main line (RULES.md section 5)"
        )
    return rule


def new_eleusis_deal(
    seed: int, n_players: int, hand_size: int = 14
) -> tuple[Card, list[list[Card]], tuple[Card, ...]]:
    """The starter, the hands and the stock (top first) that `play_new_eleusis` deals.

    The stock as dealt, before a round adds decks to it when it runs low.

    Examples
    --------
    >>> starter, hands, stock = new_eleusis_deal(1, n_players=3)
    >>> starter, [len(hand) for hand in hands], len(stock)
    (Card('KH', copy=1), [14, 14, 14], 61)
    """
    rng = np.random.default_rng(np.random.SeedSequence(check_seed(seed)))
    starter, hands, stock = _deal(rng, n_players, hand_size)
    return starter, hands, tuple(stock)
