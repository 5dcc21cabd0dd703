"""The rule enumerator: one exact hypothesis per behaviour, shortest formula, summed prior."""

from __future__ import annotations

import math

import numpy as np
import pytest

from eleusis_lab.cards import parse_card, parse_cards
from eleusis_lab.rules import Context, parse
from eleusis_lab.rules.complexity import description_bits
from eleusis_lab.rules.enumerate import build_space
from eleusis_lab.rules.grammar import GRAMMARS, Grammar, get_grammar
from eleusis_lab.rules.space_cache import cached_space

# Small grammars that between them use every production and every source of undefined
# values (previous verdict before any play, no card two back, an empty main line).
SMALL = {
    "colours_suits": (GRAMMARS["colours_suits"], 1500),
    "standard": (GRAMMARS["standard"], 1500),
    "arithmetic": (GRAMMARS["arithmetic"], 1500),
    "verdict": (GRAMMARS["verdict"], 1500),
    "relational": (GRAMMARS["relational"], 1500),
    "prev": (
        Grammar(
            name="prev",
            cards=("card", "last", "prev"),
            last_play_right=True,
            features=("color", "suit"),
            predicates=("red", "odd"),
            int_predicates=("odd",),
            numbers=(0, 1),
            constants=(),
            comparisons=("==", "<"),
            arithmetic=("+",),
            moduli=(2,),
            functions=(),
        ),
        300,
    ),
    "empty_line": (
        Grammar(
            name="empty_line",
            empty_line=True,
            last_play_right=True,
            features=("rank", "color"),
            predicates=("red", "high"),
            set_sizes=(2,),
        ),
        1500,
    ),
}


@pytest.fixture(scope="module", params=list(SMALL))
def space(request):
    grammar, size = SMALL[request.param]
    return build_space(grammar, size, cache=False)


def test_every_hypothesis_is_a_well_typed_rule_with_its_stored_verdicts(space):
    for i in range(0, len(space), 3):
        rule = space.rule(i)
        assert parse(str(rule)) == rule
        judged = parse(str(rule)).evaluate_keys(space.slots, space.contexts)
        assert (judged == space.verdicts(i)).all(), str(rule)
        assert space.index_of(rule) == i


def test_no_two_hypotheses_share_a_behaviour(space):
    behaviours = {np.packbits(space.verdicts(i)).tobytes() for i in range(len(space))}
    assert len(behaviours) == len(space)


def test_bits_are_the_description_length_of_the_shortest_formula_in_order(space):
    assert (np.diff(space.bits) >= -1e-9).all()
    for i in range(0, len(space), 7):
        bits = description_bits(space.node(i), copies=space.grammar.copies)
        assert space.bits[i] == pytest.approx(bits, abs=1e-9)


def test_prior_sums_the_formulas_of_a_behaviour(space):
    assert np.logaddexp.reduce(space.log_prior) == pytest.approx(0.0, abs=1e-9)
    # the mass of a behaviour is at least that of its shortest formula, 2 ** -bits
    mass = space.log_prior + space.info["log_total_mass"]
    assert (mass >= -space.bits * math.log(2) - 1e-9).all()
    # true and false have many formulas (x or not x, ...): far more than their shortest
    assert mass[0] > -space.bits[0] * math.log(2) + 0.1


def test_contexts_are_those_games_reach():
    assert len(build_space("standard", 50, cache=False).contexts) == 52
    assert len(build_space("verdict", 50, cache=False).contexts) == 52 * 3
    grammar, _ = SMALL["prev"]
    # prev missing: before any play or after wrong plays only; else right or wrong
    assert len(build_space(grammar, 50, cache=False).contexts) == 52 * 2 + 52 * 52 * 2
    grammar, _ = SMALL["empty_line"]
    assert len(build_space(grammar, 50, cache=False).contexts) == 52 * 3 + 2


def test_verdicts_agree_with_rules_in_real_contexts():
    space = build_space("verdict", 1500, cache=False)
    contexts = [
        Context(tuple(parse_cards("7S"))),
        Context(tuple(parse_cards("7S 10H")), last_play_right=True),
        Context(tuple(parse_cards("7S 10H")), last_play_right=False),
    ]
    for i in range(0, len(space), 11):
        rule = space.rule(i)
        for context in contexts:
            row = space.verdicts(i)[space.context_index(context)]
            assert (row == rule.legal_faces(context)).all()


def test_reading_a_missing_card_counts_as_right_left_to_right():
    grammar, _ = SMALL["empty_line"]
    space = build_space(grammar, 3000, cache=False)
    empty = space.context_index(Context(()))
    alternate = space.index_of(parse("color(card) != color(last)"))
    assert space.verdicts(alternate)[empty].all()
    # `and` reads left to right: on an empty line only the second one needs a red card
    first = space.index_of(parse("color(card) != color(last) and red(card)"))
    second = space.index_of(parse("red(card) and color(card) != color(last)"))
    assert first is not None and second is not None and first != second
    assert space.verdicts(first)[empty].all()
    assert space.verdicts(second)[empty].sum() == 26
    # games with a starter never show the difference: one hypothesis
    starter = build_space()
    assert starter.index_of(parse("color(card) != color(last) and red(card)")) == (
        starter.index_of(parse("red(card) and color(card) != color(last)"))
    )


def test_known_rules_are_in_the_standard_space_at_the_default_size():
    space = build_space()  # the standard grammar, 100,000 hypotheses
    for text in (
        "color(card) != color(last)",
        "suit(card) == (suit(last) + 1) mod 4",
        "parity(card) != parity(last)",
        "if red(last) then black(card) else red(card)",
    ):
        index = space.index_of(parse(text))
        assert index is not None, text
        assert (
            space.rule(index).evaluate_keys(space.slots, space.contexts)
            == (parse(text).evaluate_keys(space.slots, space.contexts))
        ).all()
    assert space.text(space.index_of(parse("not black(card)"))) == "red(card)"


def test_rules_outside_the_grammar_are_not_found():
    space = build_space("colours_suits", 500, cache=False)
    assert space.index_of(parse("rank(card) > rank(last)")) is None  # beyond the space
    assert space.index_of(parse("red(prev)")) is None  # reads a slot the space ignores
    assert space.index_of(parse("run(color) < 2")) is None
    assert space.index_of(parse("if last_play_right then red(card) else true")) is None


def test_the_space_stops_at_max_bits():
    space = build_space("standard", 10**6, max_bits=20.5, cache=False)
    assert space.bits.max() < 20.5
    assert len(space) == len(build_space("standard", 10**6, max_bits=21, cache=False)) - sum(
        20.5 <= bits < 21 for bits in build_space("standard", 10**6, max_bits=21).bits
    )


def test_a_small_grammar_stops_when_it_has_every_behaviour():
    # Only the colours of card and last: 4 cases, so 2 ** 4 behaviours at most, even
    # though ever longer sums of colours keep making new numbers.
    colours = Grammar(
        name="colours",
        features=("color",),
        predicates=("red",),
        int_predicates=(),
        numbers=(0, 1),
        constants=(),
        comparisons=("==",),
        arithmetic=("+",),
        moduli=(),
        functions=(),
    )
    space = build_space(colours, 1000, max_bits=None, cache=False)
    assert len(space) == 16


def test_disk_cache_round_trip(tmp_path, monkeypatch):
    monkeypatch.setenv("ELEUSIS_LAB_CACHE", str(tmp_path))
    cached_space.cache_clear()
    try:
        built = build_space("colours_suits", 300)
        assert list((tmp_path / "spaces").iterdir())
        cached_space.cache_clear()
        loaded = build_space("colours_suits", 300)
        assert loaded is not built
        assert isinstance(loaded.table.base, np.memmap)  # a plain view of the shared map
        assert (np.asarray(loaded.table) == built.table).all()
        assert [loaded.text(i) for i in range(len(loaded))] == [
            built.text(i) for i in range(len(built))
        ]
        assert loaded.index_of(parse("red(card)")) == built.index_of(parse("red(card)"))
    finally:
        cached_space.cache_clear()


def test_cache_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("ELEUSIS_LAB_CACHE", "off")
    cached_space.cache_clear()
    try:
        assert build_space("colours_suits", 50) is build_space("colours_suits", 50)
    finally:
        cached_space.cache_clear()


def test_grammar_checks_its_vocabulary():
    with pytest.raises(ValueError, match="unknown features"):
        Grammar(features=("rank", "size"))
    with pytest.raises(ValueError, match="needs the card variable"):
        Grammar(cards=("last",))
    with pytest.raises(ValueError, match="unknown grammar"):
        get_grammar("colors")
    with pytest.raises(ValueError, match="max_hypotheses"):
        build_space("standard", 0)
    assert Grammar(features=["rank"]) == Grammar(features=("rank",))  # lists are fine
    assert hash(GRAMMARS["standard"]) == hash(
        Grammar(name="standard", constants=("ace", "jack", "queen", "king"))
    )


def test_grammars_differ_in_what_they_can_conceive():
    colours = build_space("colours_suits", 5000, cache=False)
    standard = build_space("standard", 5000, cache=False)
    ranks = parse("rank(card) > rank(last)")
    assert colours.index_of(ranks) is None and standard.index_of(ranks) is not None
    card = parse_card("QH")
    context = Context((parse_card("7S"),))
    for space in (colours, standard):
        i = space.index_of(parse("red(card)"))
        assert space.verdicts(i)[space.context_index(context)][card.face]


def test_copies_make_comparisons_of_one_feature_more_probable():
    standard = build_space("standard", 3000, cache=False)
    relational = build_space("relational", 3000, cache=False)

    def log_prior(space, text):
        return space.log_prior[space.index_of(parse(text))]

    same, mixed = "suit(card) == suit(last)", "suit(card) == color(last)"
    assert log_prior(standard, same) == pytest.approx(log_prior(standard, mixed), abs=0.5)
    assert log_prior(relational, same) > log_prior(relational, mixed) + 2
    # the shortest formula of a copy is the copy, priced as in description_bits
    i = relational.index_of(parse(same))
    assert relational.bits[i] == pytest.approx(description_bits(parse(same).expr, copies=True))
    assert relational.bits[i] < description_bits(parse(same).expr) - 3
