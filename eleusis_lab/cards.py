"""Playing cards: the `Card` type, parsing and formatting, features, and decks.

A card has a rank (A=1 .. K=13), a suit (clubs, diamonds, hearts, spades, in
that order) and a ``copy`` number that tells apart the duplicates of games played
with two decks. Rules only ever look at a card's *face* (rank and suit): the 52
faces are numbered ``face = 13 * suit + (rank - 1)``, and the numpy arrays of this
module give every face's features, so that rules can be evaluated on all 52 faces
at once.

>>> parse_card("10H"), parse_card("qs"), parse_card("A♣")
(Card('10H'), Card('QS'), Card('AC'))
>>> parse_card("TH").rank, str(parse_card("TH")), parse_card("TH").symbol
(10, '10H', '10♥')
>>> len(standard_deck()), len(two_decks()), len(set(two_decks()))
(52, 104, 104)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

SUITS = "CDHS"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
SUIT_SYMBOLS = "♣♦♥♠"
RANK_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}
PRIMES = frozenset({2, 3, 5, 7, 11, 13})
N_FACES = 52


class CardError(ValueError):
    """A card token could not be read."""


class _CardFields(NamedTuple):
    rank: int
    suit: int
    copy: int = 0


class Card(_CardFields):
    """One playing card.

    Parameters
    ----------
    rank : int
        1 (ace) to 13 (king).
    suit : int
        0 clubs, 1 diamonds, 2 hearts, 3 spades.
    copy : int
        Which deck the card comes from when several decks are shuffled together;
        two cards with the same face and different copies are different cards.

    Notes
    -----
    A card is a tuple ``(rank, suit, copy)``, ordered and hashed as one: nothing can
    change it, not even ``object.__setattr__``, so the cards an engine hands to agents
    (the decks it deals from are shared by every game of a process) are safe from them.

    Examples
    --------
    >>> Card(12, 2)
    Card('QH')
    >>> Card(12, 2).face, Card(12, 2, copy=1).face
    (37, 37)
    >>> Card(12, 2) == Card(12, 2, copy=1)
    False
    >>> object.__setattr__(Card(12, 2), "rank", 1)
    Traceback (most recent call last):
    ...
    AttributeError: can't set attribute
    """

    __slots__ = ()

    def __new__(cls, rank: int, suit: int, copy: int = 0) -> Card:
        if not (isinstance(rank, int) and 1 <= rank <= 13):
            raise CardError(f"rank must be 1..13, got {rank!r}")
        if not (isinstance(suit, int) and 0 <= suit <= 3):
            raise CardError(f"suit must be 0..3, got {suit!r}")
        return super().__new__(cls, rank, suit, copy)

    @property
    def face(self) -> int:
        """Index 0..51 of the card's face (rank and suit, ignoring the copy)."""
        return 13 * self.suit + self.rank - 1

    @property
    def is_red(self) -> bool:
        return self.suit in (1, 2)

    @property
    def symbol(self) -> str:
        """The card with a suit symbol, e.g. ``10♥``."""
        return _rank_text(self.rank) + SUIT_SYMBOLS[self.suit]

    def __str__(self) -> str:
        return _rank_text(self.rank) + SUITS[self.suit]

    def __repr__(self) -> str:
        extra = f", copy={self.copy}" if self.copy else ""
        return f"Card({str(self)!r}{extra})"


def _rank_text(rank: int) -> str:
    return RANK_NAMES.get(rank, str(rank))


_RANKS_BY_TEXT = {"A": 1, "T": 10, "J": 11, "Q": 12, "K": 13} | {str(r): r for r in range(1, 14)}
_SUITS_BY_TEXT = {c: i for i, c in enumerate(SUITS)} | {s: i for i, s in enumerate(SUIT_SYMBOLS)}
_CARD_PATTERN = re.compile(r"^\s*(10|[2-9AJQKT1]|1[1-3])\s*([CDHS♣♦♥♠])\s*$", re.IGNORECASE)


def parse_card(token: str) -> Card:
    """Read one card such as ``10H``, ``TH``, ``QS``, ``A♣`` or ``ah`` (any case).

    Raises
    ------
    CardError
        Naming the token, when it is not a card.

    Examples
    --------
    >>> parse_card("kd")
    Card('KD')
    >>> try:
    ...     parse_card("1X")
    ... except CardError as error:
    ...     print(error)
    not a card: '1X' (expected a rank A,2..10,J,Q,K and a suit C,D,H,S)
    """
    match = _CARD_PATTERN.match(token) if isinstance(token, str) else None
    if match is None:
        raise CardError(f"not a card: {token!r} (expected a rank A,2..10,J,Q,K and a suit C,D,H,S)")
    rank_text, suit_text = match.groups()
    return Card(_RANKS_BY_TEXT[rank_text.upper()], _SUITS_BY_TEXT[suit_text.upper()])


def parse_cards(text: str) -> list[Card]:
    """Read cards separated by spaces or commas: ``"7S, 8H 10C"``."""
    return [parse_card(token) for token in re.split(r"[\s,]+", text.strip()) if token]


def face_card(face: int) -> Card:
    """The copy-0 card of a face index."""
    face = int(face)
    return Card(face % 13 + 1, face // 13)


def format_cards(cards, symbols: bool = False) -> str:
    """Cards as one line of text, e.g. ``"8C 8D 8H"``."""
    return " ".join(card.symbol if symbols else str(card) for card in cards)


# ---------------------------------------------------------------------------
# Features of the 52 faces, shared by every vectorised path.
# ---------------------------------------------------------------------------

FACES = np.arange(N_FACES)
RANK = FACES % 13 + 1
SUIT = FACES // 13
COLOR = np.isin(SUIT, (1, 2)).astype(np.int64)  # 1 red, 0 black
PARITY = RANK % 2  # 1 odd, 0 even
FACE_CARD = (RANK >= 11).astype(np.int64)  # J, Q, K
HIGH = (RANK >= 8).astype(np.int64)  # 8..K high, A..7 low
PRIME = np.isin(RANK, sorted(PRIMES)).astype(np.int64)

#: Every card feature by name, as an int array over the 52 faces.
FEATURES: dict[str, np.ndarray] = {
    "rank": RANK,
    "suit": SUIT,
    "color": COLOR,
    "parity": PARITY,
    "face": FACE_CARD,
    "high": HIGH,
    "prime": PRIME,
}


# ---------------------------------------------------------------------------
# Decks
# ---------------------------------------------------------------------------


def standard_deck(copy: int = 0) -> list[Card]:
    """The 52 cards of one deck, clubs first, ace to king within a suit."""
    return [Card(rank, suit, copy) for suit in range(4) for rank in range(1, 14)]


def two_decks() -> list[Card]:
    """104 cards: two decks whose duplicates differ by their ``copy``."""
    return standard_deck(0) + standard_deck(1)


@dataclass(frozen=True)
class DeckPlan:
    """One row of the seed-004 table: the cards used and how they are dealt."""

    participants: int
    cards: tuple[Card, ...]
    starter_cards: int
    hands: int
    hand_size: int


def _without(cards: list[Card], removed: list[tuple[int, int]]) -> tuple[Card, ...]:
    """Remove one card per (rank, suit) in ``removed``, highest copy first."""
    remaining = list(cards)
    for rank, suit in removed:
        same_face = [c for c in remaining if (c.rank, c.suit) == (rank, suit)]
        match = max(same_face, key=lambda c: c.copy)
        remaining.remove(match)
    return tuple(remaining)


def seed004_deck(participants: int) -> DeckPlan:
    """The deck and deal of the 4-8 player variant (RULES.md section 2), as tabled.

    Examples
    --------
    >>> plan = seed004_deck(7)
    >>> len(plan.cards), plan.hands, plan.hand_size
    (99, 7, 14)
    """
    c, d, h, s = range(4)
    one, two = standard_deck(), two_decks()
    table = {
        4: (one, [], 3, 17),
        5: (one, [(2, c)], 5, 10),
        6: (one, [(2, s), (2, c), (2, d)], 6, 8),
        7: (two, [(2, c), (2, c), (2, d), (2, d), (2, h)], 7, 14),
        8: (two, [(2, c), (2, c), (2, d), (2, d), (2, h), (2, h), (2, s)], 8, 12),
    }
    if participants not in table:
        raise ValueError(f"the 4-8 player variant takes 4 to 8 participants, got {participants}")
    cards, removed, hands, hand_size = table[participants]
    plan = DeckPlan(participants, _without(cards, removed), 1, hands, hand_size)
    assert len(plan.cards) == plan.starter_cards + plan.hands * plan.hand_size
    return plan
