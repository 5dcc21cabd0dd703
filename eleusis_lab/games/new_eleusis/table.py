"""New Eleusis: the deal of a round and who plays first, and the check of a dealer's rule.

The round's moves are `eleusis_lab.games.new_eleusis.state.NewEleusisState`.
"""

from __future__ import annotations

import numpy as np

from eleusis_lab.cards import Card, two_decks
from eleusis_lab.engines import check_seed
from eleusis_lab.errors import ConfigError
from eleusis_lab.rules import Rule, parse


def shuffled(rng: np.random.Generator, cards: list[Card]) -> list[Card]:
    """``cards`` in the order of one permutation drawn from ``rng``."""
    return [cards[i] for i in rng.permutation(len(cards)).tolist()]


def deal_round(
    rng: np.random.Generator, n: int, hand_size: int
) -> tuple[Card, list[list[Card]], list[Card]]:
    """Two decks shuffled, dealt one card at a time from seat 0; the starter; the stock."""
    deck = shuffled(rng, two_decks())
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


def check_rule(rule: Rule | str) -> Rule:
    """``rule`` parsed, refused if it reads ``last_play_right``."""
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
    starter, hands, stock = deal_round(rng, n_players, hand_size)
    return starter, hands, tuple(stock)
