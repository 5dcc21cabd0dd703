"""The grammar prior as production probabilities: hand-computed costs, the fit, and the
enumerator pricing every hypothesis as `description_bits` does under any prior."""

import dataclasses
import json
import math

import numpy as np
import pytest

from eleusis_lab.rules import parse
from eleusis_lab.rules.complexity import description_bits
from eleusis_lab.rules.enumerate import build_space
from eleusis_lab.rules.grammar import get_grammar
from eleusis_lab.rules.prior import (
    CHOICES,
    UNIFORM,
    ProductionPrior,
    count_productions,
    fit_prior,
    load_prior,
)

log2 = math.log2


def test_the_uniform_prior_prices_a_comparison_by_hand():
    # bool: compare (9 kinds), one of 6 operators; each side: int kind (7), feature (4), card (3)
    expected = log2(9) + log2(6) + 2 * (log2(7) + log2(4) + log2(3))
    assert description_bits(parse("rank(card) > rank(last)").expr) == pytest.approx(expected)


def test_fitting_one_rule_counts_its_choices_plus_one():
    prior = fit_prior([parse("red(card)")], smoothing=1.0)
    # bool kinds: predicate chosen once, (1 + 1) / (1 + 9); the eight others 1 / 10
    assert prior.bits("bool", "predicate") == pytest.approx(-log2(0.2))
    assert prior.bits("bool", "and") == pytest.approx(-log2(0.1))
    assert prior.bits("card", "card") == pytest.approx(-log2(2 / 4))
    assert prior.bits("predicate", "red") == pytest.approx(-log2(2 / 10))
    expected = -log2(0.2) - log2(0.2) - log2(0.5)
    assert description_bits(parse("red(card)").expr, prior=prior) == pytest.approx(expected)


def test_mirrored_comparisons_share_their_count():
    prior = fit_prior([parse("rank(card) > rank(last)")] * 3)
    assert prior.bits("compare", "<") == prior.bits("compare", ">")
    assert prior.bits("compare", ">") < prior.bits("compare", "==")


def test_copies_are_counted_as_written_once():
    counts = count_productions([parse("suit(card) == suit(last)")], copies=True)
    assert counts["feature", "suit"] == 1 and counts["card", "last"] == 0
    plain = count_productions([parse("suit(card) == suit(last)")])
    assert plain["feature", "suit"] == 2 and plain["card", "last"] == 1


def test_a_prior_must_leave_every_production_with_children_a_bit():
    skewed = ((0.92, *[0.01] * 8),)  # "and" at 0.92: 0.12 bits
    with pytest.raises(ValueError, match="at least 1"):
        ProductionPrior("skewed", (("bool", skewed[0]),))
    with pytest.raises(ValueError, match="unknown choice point"):
        ProductionPrior("bad", (("colour", (1.0,)),))
    with pytest.raises(ValueError, match="sums to"):
        ProductionPrior("bad", (("card", (0.5, 0.5, 0.5)),))


def test_a_prior_reads_back_what_it_wrote(tmp_path):
    prior = fit_prior([parse("red(card)"), parse("rank(card) > rank(last)")], name="two")
    path = tmp_path / "prior.json"
    path.write_text(json.dumps(prior.to_json()))
    assert load_prior(path) == prior
    assert set(dict(prior.probabilities)) == set(CHOICES)
    with pytest.raises(ValueError, match="not a production prior"):
        load_prior({"name": "x"})


def test_the_enumerator_prices_hypotheses_under_a_fitted_prior():
    people = fit_prior([parse(t) for t in ("suit(card) == suit(last)", "red(card)", "odd(card)")])
    grammar = dataclasses.replace(get_grammar("colours_suits"), copies=True, prior=people)
    space = build_space(grammar, max_hypotheses=1500, cache=False)
    uniform = build_space(dataclasses.replace(grammar, prior=UNIFORM), 1500, cache=False)
    assert (np.diff(space.bits) >= -1e-9).all()
    for i in range(0, len(space), 5):
        bits = description_bits(space.node(i), copies=True, prior=people)
        assert space.bits[i] == pytest.approx(bits, abs=1e-9), space.text(i)
    # what people write comes cheaper than under the hand-set prior
    rule = parse("suit(card) == suit(last)")
    assert space.bits[space.index_of(rule)] < uniform.bits[uniform.index_of(rule)] - 1
    assert grammar.digest() != dataclasses.replace(grammar, prior=UNIFORM).digest()
