"""Cards: parsing, formatting, the feature table of the 52 faces, and the decks."""

from collections import Counter

import numpy as np
import pytest

from eleusis_lab.cards import (
    COLOR,
    FACE_CARD,
    FEATURES,
    HIGH,
    N_FACES,
    PARITY,
    PRIME,
    RANK,
    SUIT,
    Card,
    CardError,
    face_card,
    format_cards,
    parse_card,
    parse_cards,
    seed004_deck,
    standard_deck,
    two_decks,
)

CLUBS, DIAMONDS, HEARTS, SPADES = range(4)

# -- parsing ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("token", "rank", "suit"),
    [
        ("10H", 10, HEARTS),
        ("TH", 10, HEARTS),
        ("th", 10, HEARTS),
        ("QS", 12, SPADES),
        ("A♣", 1, CLUBS),
        ("ah", 1, HEARTS),
        (" kd ", 13, DIAMONDS),
        ("2C", 2, CLUBS),
        ("9♦", 9, DIAMONDS),
        ("J♥", 11, HEARTS),
        ("K♠", 13, SPADES),
        ("jc", 11, CLUBS),
    ],
)
def test_parse_card(token, rank, suit):
    card = parse_card(token)
    assert (card.rank, card.suit, card.copy) == (rank, suit, 0)
    assert card == Card(rank, suit)


@pytest.mark.parametrize("token", ["1X", "0H", "14S", "", "   ", "10", "H", "QQ", "10HH", "XS"])
def test_bad_cards_fail_naming_the_token(token):
    with pytest.raises(CardError) as caught:
        parse_card(token)
    assert repr(token) in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_parse_cards():
    assert parse_cards("7S, 8H 10C") == [Card(7, SPADES), Card(8, HEARTS), Card(10, CLUBS)]
    assert parse_cards("  ") == []
    with pytest.raises(CardError, match="'1X'"):
        parse_cards("7S 1X 8H")


@pytest.mark.parametrize("rank", [0, 14, -1, 1.0, "A"])
def test_card_rank_is_checked(rank):
    with pytest.raises(CardError):
        Card(rank, CLUBS)


@pytest.mark.parametrize("suit", [-1, 4, "S"])
def test_card_suit_is_checked(suit):
    with pytest.raises(CardError):
        Card(1, suit)


# -- formatting ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "ascii_text", "symbol"),
    [
        (Card(10, HEARTS), "10H", "10♥"),
        (Card(1, CLUBS), "AC", "A♣"),
        (Card(12, SPADES), "QS", "Q♠"),
        (Card(13, DIAMONDS), "KD", "K♦"),
        (Card(11, HEARTS), "JH", "J♥"),
        (Card(7, CLUBS), "7C", "7♣"),
    ],
)
def test_formatting(card, ascii_text, symbol):
    assert str(card) == ascii_text
    assert card.symbol == symbol
    assert parse_card(ascii_text) == parse_card(symbol) == card
    assert repr(card) == f"Card({ascii_text!r})"


def test_format_cards_and_round_trip():
    cards = parse_cards("8C 8D 10H AS")
    assert format_cards(cards) == "8C 8D 10H AS"
    assert format_cards(cards, symbols=True) == "8♣ 8♦ 10♥ A♠"
    assert parse_cards(format_cards(cards, symbols=True)) == cards
    for card in standard_deck():
        assert parse_card(str(card)) == card
        assert parse_card(card.symbol) == card


def test_copies():
    first, second = Card(12, HEARTS), Card(12, HEARTS, copy=1)
    assert first != second and first.face == second.face == 37
    assert repr(second) == "Card('QH', copy=1)"
    assert len({first, second}) == 2


# -- the feature table of the 52 faces ---------------------------------------------------

RED_SUITS = {"D", "H"}
PRIME_RANKS = {"2", "3", "5", "7", "J", "K"}
ODD_RANKS = {"A", "3", "5", "7", "9", "J", "K"}
HIGH_RANKS = {"8", "9", "10", "J", "Q", "K"}
FACE_RANKS = {"J", "Q", "K"}
RANK_VALUES = {"A": 1, **{str(n): n for n in range(2, 11)}, "J": 11, "Q": 12, "K": 13}


def test_faces_are_numbered_suit_by_suit():
    assert N_FACES == 52
    assert Card(1, CLUBS).face == 0 and Card(13, SPADES).face == 51
    assert Card(12, HEARTS).face == 37
    for face in range(52):
        assert face_card(face).face == face
    assert [str(face_card(f)) for f in (0, 12, 13, 26, 39)] == ["AC", "KC", "AD", "AH", "AS"]


def test_features_of_every_face_against_hand_written_sets():
    for card in standard_deck():
        text = str(card)
        rank_text, suit_text = text[:-1], text[-1]
        face = card.face
        assert RANK[face] == RANK_VALUES[rank_text]
        assert SUIT[face] == "CDHS".index(suit_text)
        assert COLOR[face] == (suit_text in RED_SUITS)
        assert PARITY[face] == (rank_text in ODD_RANKS)
        assert PRIME[face] == (rank_text in PRIME_RANKS)
        assert HIGH[face] == (rank_text in HIGH_RANKS)
        assert FACE_CARD[face] == (rank_text in FACE_RANKS)
        assert card.is_red == (suit_text in RED_SUITS)


def test_feature_counts():
    assert COLOR.sum() == 26  # red faces
    assert PRIME.sum() == 6 * 4
    assert sorted(set(RANK[PRIME == 1].tolist())) == [2, 3, 5, 7, 11, 13]
    assert PARITY.sum() == 7 * 4  # A 3 5 7 9 J K
    assert HIGH.sum() == 6 * 4  # 8 .. K
    assert FACE_CARD.sum() == 3 * 4
    assert Counter(RANK.tolist()) == {rank: 4 for rank in range(1, 14)}
    assert Counter(SUIT.tolist()) == {suit: 13 for suit in range(4)}


def test_the_features_table():
    assert set(FEATURES) == {"rank", "suit", "color", "parity", "face", "high", "prime"}
    for values in FEATURES.values():
        assert values.shape == (52,) and np.issubdtype(values.dtype, np.integer)


# -- decks -------------------------------------------------------------------------------


def test_standard_deck():
    deck = standard_deck()
    assert len(deck) == len(set(deck)) == 52
    assert sorted(card.face for card in deck) == list(range(52))
    assert {card.copy for card in deck} == {0}
    assert deck[0] == Card(1, CLUBS) and deck[-1] == Card(13, SPADES)


def test_two_decks():
    deck = two_decks()
    assert len(deck) == len(set(deck)) == 104
    assert Counter(card.face for card in deck) == {face: 2 for face in range(52)}
    assert Counter(card.copy for card in deck) == {0: 52, 1: 52}


TWO = 2


@pytest.mark.parametrize(
    ("participants", "cards_used", "hands", "hand_size", "missing"),
    [
        (4, 52, 3, 17, []),
        (5, 51, 5, 10, ["2C"]),
        (6, 49, 6, 8, ["2S", "2C", "2D"]),
        (7, 99, 7, 14, ["2C", "2C", "2D", "2D", "2H"]),
        (8, 97, 8, 12, ["2C", "2C", "2D", "2D", "2H", "2H", "2S"]),
    ],
)
def test_seed004_deck_table(participants, cards_used, hands, hand_size, missing):
    plan = seed004_deck(participants)
    assert plan.participants == participants
    assert len(plan.cards) == cards_used
    assert (plan.hands, plan.hand_size, plan.starter_cards) == (hands, hand_size, 1)
    assert plan.starter_cards + plan.hands * plan.hand_size == cards_used
    assert len(set(plan.cards)) == cards_used  # every card is a distinct card
    full = standard_deck() if participants <= 6 else two_decks()
    gone = Counter(str(c) for c in full) - Counter(str(c) for c in plan.cards)
    assert gone == Counter(missing)


def test_seed004_eight_players_keep_one_two_of_spades_and_no_other_two():
    twos = [str(card) for card in seed004_deck(8).cards if card.rank == TWO]
    assert twos == ["2S"]


@pytest.mark.parametrize("participants", [2, 3, 9])
def test_seed004_deck_outside_the_table(participants):
    with pytest.raises(ValueError, match="4 to 8"):
        seed004_deck(participants)
