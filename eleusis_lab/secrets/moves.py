"""Secrets (RULES.md section 4): the vocabulary of the board game.

Squares and their names, the seats and their suits, the values of the cards (for
beating and for scoring), the actions a player can take (`SecretsAction`, written as
text by ``str`` and read back by `parse_action`) and the effects an action has (pairs
``(code, card)``, `EFFECTS`). The positions and the rules that use them are in
`eleusis_lab.secrets.state`.

Squares are numbered ``8 * row + column`` (0..31); row ``a`` is 0 and column ``1`` is
0, so ``a1`` is 0 and ``d8`` is 31. Row a is hearts, b diamonds, c clubs, d spades;
seat 0 owns hearts, seat 1 diamonds, seat 2 clubs, seat 3 spades.

>>> square_name(12), parse_square("d8"), str(parse_action("a3/5C"))
('b5', 31, 'a3/5C')
>>> from eleusis_lab.cards import parse_cards
>>> secrets_score(parse_cards("JS QH 7C"))
1100.01
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from eleusis_lab.cards import Card, CardError, parse_card, standard_deck

__all__ = [
    "ACE",
    "DECK",
    "DIRECTIONS",
    "DUEL",
    "EFFECTS",
    "JACK",
    "KILL",
    "KING",
    "LEAVE",
    "MOVE",
    "N_COLS",
    "N_ROWS",
    "N_SEATS",
    "N_SQUARES",
    "NEIGHBORS",
    "QUEEN",
    "ROWS",
    "SEAT_SUITS",
    "SECRET_SQUARES",
    "SKIP",
    "SUIT_SEATS",
    "TAKE",
    "SecretsAction",
    "beat_value",
    "card_points",
    "deck_card",
    "effect_text",
    "parse_action",
    "parse_effect",
    "parse_square",
    "score_cents",
    "secrets_ranks",
    "secrets_score",
    "square_name",
]

ACE, JACK, QUEEN, KING = 1, 11, 12, 13
N_ROWS, N_COLS, N_SEATS = 4, 8, 4
N_SQUARES = N_ROWS * N_COLS
ROWS = "abcd"
#: The suit of each seat (hearts, diamonds, clubs, spades) and the seat of each suit.
SEAT_SUITS = (2, 1, 0, 3)
SUIT_SEATS = (2, 1, 0, 3)
KING_SQUARES = tuple(N_COLS * row for row in range(N_ROWS))
JACK_SQUARES = tuple(N_COLS * row + 1 for row in range(N_ROWS))
#: The squares of the secrets, in the order `secrets_setup` lays them: a5 a6 b5 ... d6.
SECRET_SQUARES = tuple(N_COLS * row + col for row in range(N_ROWS) for col in (4, 5))
#: The squares that get a face-up card at the set-up, in square order (24).
CARD_SQUARES = tuple(
    sq for sq in range(N_SQUARES) if sq not in KING_SQUARES and sq not in JACK_SQUARES
)

#: Card objects of the one deck, by face; the state only ever holds these.
DECK = tuple(standard_deck())


def deck_card(rank: int, suit: int) -> Card:
    """The card of ``DECK`` with this rank and suit."""
    return DECK[13 * suit + rank - 1]


def _neighbors(sq: int) -> tuple[int, ...]:
    row, col = divmod(sq, N_COLS)
    steps = ((row - 1, col), (row, col + 1), (row + 1, col), (row, col - 1))
    return tuple(N_COLS * r + c for r, c in steps if 0 <= r < N_ROWS and 0 <= c < N_COLS)


#: The order in which a piece's neighbours are listed: up, right, down, left.
DIRECTIONS = ("up", "right", "down", "left")
#: Each square's neighbours, in the order of `DIRECTIONS`.
NEIGHBORS = tuple(_neighbors(sq) for sq in range(N_SQUARES))


def square_name(sq: int) -> str:
    """A square's name: 0 -> ``"a1"``, 31 -> ``"d8"``.

    >>> square_name(0), square_name(12), square_name(31)
    ('a1', 'b5', 'd8')
    """
    row, col = divmod(sq, N_COLS)
    return f"{ROWS[row]}{col + 1}"


def parse_square(text: str) -> int:
    """The inverse of `square_name`; `ValueError` for a name that is not a square.

    >>> parse_square("b5")
    12
    """
    match = re.fullmatch(r"\s*([a-dA-D])([1-8])\s*", text) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f"not a square: {text!r} (rows a-d, columns 1-8, e.g. 'b5')")
    return N_COLS * ROWS.index(match.group(1).lower()) + int(match.group(2)) - 1


def beat_value(card: Card) -> int:
    """A card's value for beating in a duel: 2..10, J, Q, K, then the ace (14).

    >>> beat_value(parse_card("AS")), beat_value(parse_card("KS"))
    (14, 13)
    """
    return 14 if card.rank == ACE else card.rank


_CENTS = {JACK: 100_000, QUEEN: 10_000, ACE: 1_000, KING: 100}


def card_points(card: Card) -> float:
    """The points of one card in hand: J 1000, Q 100, A 10, K 1, any other 0.01."""
    return _CENTS.get(card.rank, 1) / 100


def score_cents(cards: Iterable[Card]) -> int:
    """The score of a hand in hundredths of a point, exactly.

    >>> from eleusis_lab.cards import parse_cards
    >>> score_cents(parse_cards("JS QH AD KC 2C 7H"))
    111102
    """
    return sum(_CENTS.get(card.rank, 1) for card in cards)


def secrets_score(cards: Iterable[Card]) -> float:
    """The score of a hand, in points: ``score_cents(cards) / 100``.

    >>> from eleusis_lab.cards import parse_cards
    >>> secrets_score(parse_cards("JS QH AD KC 2C 7H"))
    1111.02
    """
    return score_cents(cards) / 100


def secrets_ranks(scores: Sequence[float]) -> tuple[int, ...]:
    """Each seat's place, 1 for the highest score; equal scores share the best place.

    Scores are compared in hundredths of a point (rounded), so that float sums of the
    same cards always tie.

    >>> secrets_ranks([1000.02, 1000.03, 0.5, 1000.03])
    (3, 1, 4, 1)
    """
    cents = [round(score * 100) for score in scores]
    return tuple(1 + sum(other > mine for other in cents) for mine in cents)


# -- actions ------------------------------------------------------------------------------

MOVE, DUEL, LEAVE, KILL, TAKE, SKIP = "move", "duel", "leave", "kill", "take", "skip"
KINDS = (MOVE, DUEL, LEAVE, KILL, TAKE, SKIP)


@dataclass(frozen=True, slots=True)
class SecretsAction:
    """One action of the player to move, with his active piece (jack, else king).

    Attributes
    ----------
    kind : str
        ``"move"`` (to an empty square, onto a card of the mover's suit, or onto a
        face-up ace), ``"duel"`` (onto a card of another suit, sending ``card``),
        ``"leave"`` (off the board from column 8, into the owner's hand), ``"kill"``
        (an adjacent enemy piece, holding an ace), ``"take"`` (an adjacent piece of the
        suit of the queen ``card``, into hand) or ``"skip"`` (only when nothing else is
        possible).
    square : int or None
        The square moved to or acted on; None for leave and skip.
    card : Card or None
        The card sent (duel), the queen shown (take), the ace spent (kill, only with
        the ``spend_special`` option); else None.

    Text: ``"a3"`` (move), ``"a3/5C"`` (duel sending 5C), ``"out"``, ``"kill b2"``
    (``"kill b2 AS"`` when the ace is spent), ``"take b2 QD"``, ``"skip"``.

    Examples
    --------
    >>> str(SecretsAction(DUEL, 2, parse_card("5C")))
    'a3/5C'
    >>> parse_action("take b2 QD") == SecretsAction(TAKE, 9, parse_card("QD"))
    True
    """

    kind: str
    square: int | None = None
    card: Card | None = None

    def __str__(self) -> str:
        kind, sq, card = self.kind, self.square, self.card
        if kind == MOVE:
            return square_name(sq)
        if kind == DUEL:
            return f"{square_name(sq)}/{card}"
        if kind == LEAVE:
            return "out"
        if kind == SKIP:
            return "skip"
        return f"{kind} {square_name(sq)}" + (f" {card}" if card is not None else "")


def parse_action(text: str) -> SecretsAction:
    """The action written as ``str(action)``; `ValueError` for other text.

    >>> parse_action("a3/5C"), parse_action("out")
    (SecretsAction(kind='duel', square=2, card=Card('5C')), SecretsAction(kind='leave', \
square=None, card=None))
    """
    if not isinstance(text, str):
        raise ValueError(f"not a Secrets action: {text!r}")
    words = text.split()
    try:
        if words == ["out"]:
            return SecretsAction(LEAVE)
        if words == ["skip"]:
            return SecretsAction(SKIP)
        if len(words) == 1:
            square, slash, card = words[0].partition("/")
            if slash:
                return SecretsAction(DUEL, parse_square(square), DECK[parse_card(card).face])
            return SecretsAction(MOVE, parse_square(square))
        if len(words) in (2, 3) and words[0] in (KILL, TAKE):
            card = DECK[parse_card(words[2]).face] if len(words) == 3 else None
            return SecretsAction(words[0], parse_square(words[1]), card)
    except (ValueError, CardError):
        pass
    raise ValueError(
        f"not a Secrets action: {text!r} (e.g. 'a3', 'a3/5C', 'out', 'kill b2', 'take b2 QD',"
        " 'skip')"
    )


# -- effects --------------------------------------------------------------------------------

#: What an action did, as (code, card) pairs in order; `effect_text` reads them.
EFFECTS = {
    "capture": "captures {card}",
    "send": "sends {card}",
    "beat": "beaten by {card}",
    "discard": "{card} leaves the game",
    "secret": "secret {card}",
    "ace": "takes the ace {card}",
    "die": "{card} dies",
    "leave": "{card} leaves the board",
    "kill": "kills {card}",
    "take": "takes {card}",
    "spend": "spends {card}",
}


def effect_text(effect: tuple[str, Card]) -> str:
    """An effect as record text: ``("send", 5C)`` -> ``"send 5C"``."""
    return f"{effect[0]} {effect[1]}"


def parse_effect(text: str) -> tuple[str, Card]:
    """The inverse of `effect_text`; `ValueError` for other text."""
    code, _, card = text.partition(" ")
    if code not in EFFECTS:
        raise ValueError(f"not a Secrets effect: {text!r}")
    return code, DECK[parse_card(card).face]
