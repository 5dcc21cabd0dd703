"""Semantics of the rule evaluator, on cases computed by hand.

A rule that reads a card that is not there yet (``last`` on an empty main line, ``prev``
at length 1, the previous verdict before any play) is undefined, and an undefined verdict
counts as right. ``and``, ``or`` and ``if`` look at their operands left to right and only
as far as they need to.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from rule_trees import bool_trees, contexts, reference_verdict

from eleusis_lab.cards import Card, face_card, parse_cards, standard_deck
from eleusis_lab.rules import Context, parse
from eleusis_lab.rules.rule import Rule

ALL = frozenset(str(card) for card in standard_deck())
REDS = frozenset(str(card) for card in standard_deck() if card.suit in (1, 2))
HEARTS = frozenset(str(card) for card in standard_deck() if card.suit == 2)


def context(line: str = "", last_play_right: bool | None = None) -> Context:
    return Context(tuple(parse_cards(line)), last_play_right)


def right(rule_text: str, line: str = "", last_play_right: bool | None = None) -> set[str]:
    """The cards (as text) that ``rule_text`` accepts after ``line``."""
    rule = parse(rule_text)
    return {str(card) for card in rule.legal_cards(context(line, last_play_right))}


def cards(*ranks: str, suits: str = "CDHS") -> set[str]:
    return {rank + suit for rank in ranks for suit in suits}


# -- undefined values count as right -----------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["color(card) != color(last)", "rank(card) > rank(last)", "suit(card) == rank(last) mod 4"],
)
def test_last_on_an_empty_main_line_is_undefined_so_every_card_is_right(text):
    assert right(text) == ALL


def test_prev_is_undefined_at_length_one():
    assert right("suit(card) != suit(prev)", "5H") == ALL
    # with two cards, prev is the 5 of hearts: hearts are wrong
    assert right("suit(card) != suit(prev)", "5H 9C") == ALL - HEARTS


def test_and_with_a_defined_left_side():
    text = "rank(card) != rank(last) and suit(card) != suit(prev)"
    # At length 1 the left side decides when it is false; otherwise the right side is
    # undefined and the card is right.
    assert right(text, "5H") == ALL - cards("5")
    # At length 2: not a 9 (the last card) and not a heart (the card before it).
    expected = {c for c in ALL if not c.startswith("9") and not c.endswith("H")}
    assert right(text, "5H 9C") == expected
    assert len(expected) == 52 - 13 - 3


def test_and_with_an_undefined_left_side_is_undefined():
    # Left to right: the left side is undefined at length 1, so the whole rule is,
    # whatever the right side says (so `and` does not commute at the start of the line).
    assert right("suit(card) != suit(prev) and rank(card) != rank(last)", "5H") == ALL


def test_and_a_defined_false_left_side_settles_it():
    assert right("red(card) and suit(card) != suit(prev)", "5H") == REDS


def test_or_a_defined_true_left_side_settles_it():
    assert right("red(card) or rank(card) > rank(last)") == ALL
    assert right("red(card) or rank(card) > rank(last)", "9S") == (
        REDS | cards("10", "J", "Q", "K", suits="CS")
    )
    assert right("red(last) or red(card)") == ALL  # the left side is undefined


def test_if_with_an_undefined_condition_is_undefined():
    text = "if red(last) then black(card) else red(card)"
    assert right(text) == ALL
    assert right(text, "QH") == ALL - REDS


def test_if_ignores_an_undefined_branch_it_does_not_take():
    text = "if length >= 2 then suit(card) != suit(prev) else red(card)"
    assert right(text) == REDS
    assert right(text, "5H") == REDS
    assert right(text, "5H 6S") == ALL - HEARTS


def test_if_takes_an_undefined_branch():
    assert right("if red(card) then rank(card) > rank(last) else false") == REDS


def test_last_play_right_before_any_play_is_undefined():
    text = "if last_play_right then red(card) else black(card)"
    assert right(text, "5C", None) == ALL
    assert right(text, "", None) == ALL
    assert right(text, "5C", True) == REDS
    assert right(text, "5C", False) == ALL - REDS
    assert right("not last_play_right", "5C", None) == ALL
    assert right("not last_play_right", "5C", True) == set()
    assert right("last_play_right or red(card)", "5C", None) == ALL


def test_empty_and_length():
    assert right("empty") == ALL
    assert right("empty", "5H") == set()
    assert right("if empty then face(card) else true") == cards("J", "Q", "K")
    assert right("length == 2", "AC 2C") == ALL
    assert right("length == 2", "AC") == set()


# -- run(feature) ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "feature", "expected"),
    [
        ("", "color", 0),
        ("", "face", 0),
        ("3H 7D 9S 2C", "color", 2),  # 9S 2C are black, 7D is red
        ("2H 5H 9H", "suit", 3),
        ("5C 5D 6S", "rank", 1),
        ("6S 5C 5D", "rank", 2),
        ("2C 4D 6S 3H", "parity", 1),
        ("2C 3C 5D 7S", "parity", 3),
        ("9C 3D 8S JH", "high", 2),
        ("JC QD 2S KH", "face", 1),
        ("JC QD KS", "face", 3),
        ("2C 3D 4S", "prime", 1),  # the run of non-primes
        ("4S 2C 3D", "prime", 2),
    ],
)
def test_run_values(line, feature, expected):
    assert context(line).run(feature) == expected
    assert right(f"run({feature}) == {expected}", line) == ALL
    assert right(f"run({feature}) == {expected + 1}", line) == set()


# -- arithmetic ----------------------------------------------------------------------------


def test_mod_of_a_negative_number_is_not_negative():
    # (rank - 5) mod 13 == 12 only for rank 4: -1 mod 13 is 12, as in Python
    assert right("(rank(card) - rank(last)) mod 13 == 12", "5H") == cards("4")
    assert right("(rank(card) - rank(last)) mod 13 == 12", "AS") == cards("K")
    # -rank mod 4 == 3 exactly when rank is 1 mod 4: A, 5, 9, K
    assert right("-rank(card) mod 4 == 3") == cards("A", "5", "9", "K")
    # mod binds tighter than -: rank - (5 mod 4) is never negative
    assert right("rank(card) - rank(last) mod 4 < 0", "5H") == set()


def test_odd_and_even_of_negative_numbers():
    # 1 - 8 = -7 is odd: after an 8, the odd ranks give an odd difference
    assert right("odd(rank(card) - rank(last))", "8C") == cards("A", "3", "5", "7", "9", "J", "K")
    assert right("even(rank(card) - rank(last))", "8C") == cards("2", "4", "6", "8", "10", "Q")


def test_abs_min_max():
    assert right("abs(rank(card) - rank(last)) == 2", "5D") == cards("3", "7")
    assert right("rank(card) == min(rank(last), rank(prev))", "9C 4D") == cards("4")
    assert right("rank(card) == max(rank(last), rank(prev))", "9C 4D") == cards("9")


# -- predicates, including the ones that are also run features --------------------------


def test_a_rule_that_reads_no_context():
    assert right("red(card)") == right("red(card)", "5S") == REDS
    assert right("true") == ALL
    assert right("false", "5S") == set()


def test_prime_of_a_number_reads_it_as_a_rank():
    # after a 2: rank + 2 is a prime rank (3, 5, 7, 11, 13) for A, 3, 5, 9, J
    assert right("prime(rank(card) + rank(last))", "2C") == cards("A", "3", "5", "9", "J")
    # no prime rank is above 13, and no rank is negative
    assert right("prime(rank(card) * 5 + rank(last))", "AC") == cards("2")
    assert right("prime(rank(card) - 20)") == set()


@pytest.mark.parametrize(
    ("predicate", "ranks"),
    [
        ("face", ("J", "Q", "K")),
        ("high", ("8", "9", "10", "J", "Q", "K")),
        ("prime", ("2", "3", "5", "7", "J", "K")),
        ("number", ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")),
        ("low", ("A", "2", "3", "4", "5", "6", "7")),
        ("odd", ("A", "3", "5", "7", "9", "J", "K")),
        ("even", ("2", "4", "6", "8", "10", "Q")),
    ],
)
def test_predicates_and_their_negation(predicate, ranks):
    assert right(f"{predicate}(card)") == cards(*ranks)
    assert right(f"not {predicate}(card)") == ALL - cards(*ranks)
    assert right(f"not {predicate}(card) or empty", "5H") == ALL - cards(*ranks)
    assert right(f"{predicate}(card) == {predicate}(last)", "KS") == (
        cards(*ranks) if "K" in ranks else ALL - cards(*ranks)
    )


# -- vectorised evaluation against card-by-card verdicts ----------------------------------

SAMPLE_RULES = [
    "color(card) != color(last)",
    "rank(card) != rank(last) and suit(card) != suit(prev)",
    "if run(color) < 3 then color(card) == color(last) else color(card) != color(last)",
    "if last_play_right then rank(card) > rank(last) else even(card)",
    "(rank(card) - rank(last)) mod 13 in {1, 2, 3}",
    "if odd(length) then red(card) else black(card)",
    "prime(abs(rank(card) - rank(last)))",
]
SAMPLE_CONTEXTS = [
    context(),
    context("", True),
    context("KD"),
    context("5H 9C", False),
    context("2H 4D 6H", True),
    context("AS 2S 3C 4C JD"),
]


@pytest.mark.parametrize("text", SAMPLE_RULES)
def test_all_faces_at_once_agree_with_card_by_card(text):
    rule = parse(text)
    for ctx in SAMPLE_CONTEXTS:
        faces = rule.legal_faces(ctx)
        assert faces.shape == (52,) and faces.dtype == bool
        by_card = [rule.accepts(face_card(face), ctx) for face in range(52)]
        assert faces.tolist() == by_card
        assert rule.legal_cards(ctx) == [face_card(f) for f in range(52) if faces[f]]
        assert by_card == [reference_verdict(rule.expr, card, ctx) for card in standard_deck()]
    # many contexts in one call give the same rows as one context at a time
    keys = [rule.key(ctx) for ctx in SAMPLE_CONTEXTS]
    batch = rule.evaluate_keys(rule.slots, keys)
    for row, ctx in zip(batch, SAMPLE_CONTEXTS, strict=True):
        assert np.array_equal(row, rule.legal_faces(ctx))


def test_duplicate_cards_are_judged_by_their_face():
    rule = parse("color(card) != color(last)")
    line = (Card(5, 2, copy=1),)  # a 5 of hearts from the second deck
    assert rule.accepts(Card(7, 3, copy=1), Context(line))
    assert not rule.accepts(Card(7, 2, copy=1), Context(line))


@settings(max_examples=150, deadline=None)
@given(tree=bool_trees(3), ctx=contexts())
def test_random_rules_agree_with_a_reference_evaluator(tree, ctx):
    """The vectorised evaluator against a card-at-a-time evaluator written separately."""
    rule = Rule(tree)
    faces = rule.legal_faces(ctx)
    expected = [reference_verdict(tree, card, ctx) for card in standard_deck()]
    assert faces.tolist() == expected, str(tree)
