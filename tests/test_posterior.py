"""The posterior core of the Bayesian agents, against posteriors computed hypothesis by
hypothesis from the rules themselves (not from the verdict table)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from eleusis_agents.posterior import (
    LaplaceFallback,
    Pruner,
    count_mismatches,
    log_weights,
    normalise,
    weight_calling_right,
)
from eleusis_lab.cards import N_FACES, face_card
from eleusis_lab.rules import Context
from eleusis_lab.rules.enumerate import build_space

NOISE = 0.1


@pytest.fixture(scope="module")
def space():
    return build_space("colours_suits", max_hypotheses=60, cache=False)


@pytest.fixture(scope="module")
def says_right(space) -> np.ndarray:
    """Every hypothesis's verdict on every probe, (probes, hypotheses), by its rule."""
    assert space.slots == ("last",)
    rules = [space.rule(h) for h in range(len(space))]
    said = np.zeros((space.n_probes, len(space)), dtype=bool)
    for probe in range(space.n_probes):
        (last,) = space.contexts[probe // N_FACES]
        context, card = Context((face_card(int(last)),)), face_card(probe % N_FACES)
        said[probe] = [rule.accepts(card, context) for rule in rules]
    return said


def random_plays(space, n: int, seed: int = 0) -> list[tuple[int, bool]]:
    rng = np.random.default_rng(seed)
    return [(int(rng.integers(space.n_probes)), bool(rng.random() < 0.5)) for _ in range(n)]


def test_mismatches_count_the_plays_each_rule_judges_otherwise(space, says_right):
    plays = random_plays(space, 40)
    mismatches = np.zeros(space.padded_size, np.uint16)
    for probe, right in plays:
        count_mismatches(mismatches, space, probe, right)
    expected = sum(says_right[probe] != right for probe, right in plays)
    assert (mismatches[: len(space)] == expected).all()
    # Rows over the same space: a play counts in the rows it is made in, only there.
    cells = np.zeros((3, len(space)), np.uint16)
    for i, (probe, right) in enumerate(plays):
        count_mismatches(cells, space, probe, right, rows=[i % 2, 2])
    assert (cells[0] == sum(says_right[p] != r for p, r in plays[0::2])).all()
    assert (cells[1] == sum(says_right[p] != r for p, r in plays[1::2])).all()
    assert (cells[2] == expected).all()


def test_a_row_posterior_is_bayes_rule_by_hand(space, says_right):
    plays = random_plays(space, 8, seed=1)
    rng = np.random.default_rng(2)
    prior = rng.random(len(space)) ** 4
    prior /= prior.sum()
    mismatches = np.zeros(len(space), np.uint16)
    # the likelihood of every play, (1 - noise) or noise, hypothesis by hypothesis
    weights = prior.copy()
    for probe, right in plays:
        count_mismatches(mismatches, space, probe, right)
        weights *= np.where(says_right[probe] == right, 1 - NOISE, NOISE)
    logw = log_weights(mismatches, np.log(prior).astype(np.float32), NOISE)
    assert logw.dtype == np.float32
    log_evidence, posterior = normalise(logw)
    assert posterior == pytest.approx(weights / weights.sum(), rel=1e-5)
    # the evidence leaves out the (1 - noise) of every play, which all hypotheses share
    shared = len(plays) * math.log1p(-NOISE)
    assert log_evidence == pytest.approx(math.log(weights.sum()) - shared, rel=1e-6)


def brute_force(mismatches, log_prior, noise, fallback_log_weight):
    """Every weight, float64, the best (or the fallback) at 1."""
    logw = mismatches * math.log(noise / (1 - noise)) + log_prior.astype(np.float64)
    top = max(logw.max(), fallback_log_weight)
    return np.exp(logw - top), math.exp(fallback_log_weight - top)


def test_the_pruned_posterior_leaves_out_only_what_weighs_nothing():
    rng = np.random.default_rng(3)
    n = 4000
    log_prior = np.log(rng.dirichlet(np.ones(n))).astype(np.float32)
    mismatches = np.zeros(n, np.uint16)
    pruner = Pruner()
    seen_dense = seen_sparse = used_candidates = False
    for _ in range(30):
        # the plays split the hypotheses: a few explain all of them
        mismatches += (rng.random(n) < 0.7) & (np.arange(n) >= 5)
        used_candidates |= pruner.candidates is not None
        post = pruner.weigh(mismatches, log_prior, 0.02, fallback_log_weight=-60.0)
        expected, fallback = brute_force(mismatches, log_prior, 0.02, -60.0)
        kept = np.arange(n) if post.active is None else post.active
        seen_dense |= post.active is None
        seen_sparse |= post.active is not None
        assert post.weights == pytest.approx(expected[kept], rel=1e-4, abs=1e-30)
        assert post.total == pytest.approx(expected[kept].sum(), rel=1e-5)
        assert post.fallback == pytest.approx(fallback, rel=1e-5)
        left_out = np.setdiff1d(np.arange(n), kept)
        assert (expected[left_out] < math.exp(-pruner.prune) * 1.001).all()
        # the candidates noted in earlier passes give what a pass over all would
        fresh = Pruner().weigh(mismatches, log_prior, 0.02, fallback_log_weight=-60.0)
        assert (post.active is None) == (fresh.active is None)
        assert np.array_equal(post.weights, fresh.weights) and post.total == fresh.total
        if post.active is not None:
            assert np.array_equal(post.active, fresh.active)
    assert seen_dense and seen_sparse and used_candidates


def test_a_fallback_above_every_hypothesis_weighs_one():
    mismatches = np.array([3, 4, 5, 9], np.uint16)
    log_prior = np.log(np.full(4, 0.25, np.float32))
    post = Pruner().weigh(mismatches, log_prior, 0.01, fallback_log_weight=0.0)
    expected, fallback = brute_force(mismatches, log_prior, 0.01, 0.0)
    assert post.fallback == 1.0 == fallback
    assert post.weights == pytest.approx(expected, rel=1e-5)
    none = Pruner().weigh(mismatches, log_prior, 0.01, fallback_log_weight=-math.inf)
    assert none.fallback == 0.0 and float(none.weights.max()) == 1.0


def test_the_weight_calling_a_probe_right_sums_the_rules_that_do(space, says_right):
    rng = np.random.default_rng(4)
    weights = rng.random(len(space)).astype(np.float32)
    probes = rng.integers(space.n_probes, size=7)
    expected = says_right[probes] @ weights.astype(np.float64)
    assert weight_calling_right(space, probes, weights) == pytest.approx(expected, rel=1e-5)
    assert float(weight_calling_right(space, probes[0], weights)) == pytest.approx(expected[0])
    some = np.array([2, 9, 10, 41])
    partial = says_right[probes][:, some] @ weights[some].astype(np.float64)
    for hypotheses in (some, space.bit_position(some)):
        said = weight_calling_right(space, probes, weights[some], hypotheses)
        assert said == pytest.approx(partial, rel=1e-5)
    columns = np.stack([weights, 2 * weights], axis=1)  # one sum per column
    both = weight_calling_right(space, probes, columns)
    assert both.shape == (7, 2) and both == pytest.approx(np.stack([expected, 2 * expected], 1))


def test_the_fallback_predicts_the_laplace_rate_of_right_plays():
    verdicts = [True, False, True, True, False, True]
    fallback, likelihood, rights = LaplaceFallback(), 1.0, 0
    for n, right in enumerate(verdicts):
        rate = (rights + 1) / (n + 2)
        assert fallback.rate == pytest.approx(rate)
        likelihood *= rate if right else 1 - rate
        rights += right
        fallback.learn(right)
    assert (fallback.plays, fallback.rights) == (6, 4)
    assert fallback.log_likelihood == pytest.approx(math.log(likelihood))
    # against hypotheses whose weights leave out (1 - noise) for each of 5 plays
    assert math.exp(fallback.log_weight(0.01, NOISE, 5)) == pytest.approx(
        0.01 * likelihood / (1 - NOISE) ** 5
    )
    assert fallback.log_weight(0.0, NOISE, 5) == -math.inf
