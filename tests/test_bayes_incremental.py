"""The Bayesian agents' shortcuts give what the full computations give.

Each shortcut (`BayesAgent.confident_proposal`, `Leaders`, the in-place weighing, the
row reads of `verdict_bits`) is checked against the plain computation it stands for,
on scripted games and random inputs; none is timed here (``eleusis-lab bench
decisions`` shows the figures).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from eleusis_agents.bayes import BayesAgent
from eleusis_agents.posterior import (
    Leaders,
    Pruner,
    count_mismatches,
    exp_in_place,
    heaviest_weights,
    log_weights,
    normalise,
)
from eleusis_agents.simple import RandomAgent
from eleusis_lab.agent import GameInfo
from eleusis_lab.games.classic import play_classic
from eleusis_lab.rules import Context
from eleusis_lab.rules.enumerate import build_space
from eleusis_lab.shards import IDENTIFIED_MASS, _same_rule

RULES = (
    "color(card) != color(last)",
    "suit(card) == suit(last)",
    "suit(card) == suit(last) or rank(card) == rank(last)",
    "rank(card) > rank(last)",
)
MODEL = {"grammar": "standard", "max_hypotheses": 2000}


def scripted_game(rule: str, seed: int):
    """A classic game of one Bayes agent and two random ones: its events and deal."""
    seats = [BayesAgent(**MODEL), RandomAgent(), RandomAgent()]
    return play_classic(rule, seats, seed=seed)


def replayed(record, seat: int = 1) -> BayesAgent:
    """A Bayes agent at ``seat`` that has seen nothing of ``record`` yet."""
    agent = BayesAgent(**MODEL)
    info = GameInfo("classic", seat, 3, (), record.starter)
    agent.start_game(info, np.random.default_rng(seat))
    return agent


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_incremental_proposal_is_the_full_one_whenever_it_can_count(rule, seed):
    """After every play, `confident_proposal` is None only when `propose_rule` states
    less than the threshold, and otherwise is `propose_rule`: the play at which a seat
    identifies the rule (as the experiments' watch decides it) is the same."""
    record = scripted_game(rule, seed)
    full, incremental = replayed(record), replayed(record)
    identified = {"full": None, "incremental": None}
    skipped = 0
    for play, event in enumerate(record.events, start=1):
        full.observe(event)
        incremental.observe(event)
        expected = full.propose_rule()
        got = incremental.confident_proposal(IDENTIFIED_MASS)
        if got is None:
            skipped += 1
            assert expected is None or expected[1] < IDENTIFIED_MASS
        else:
            assert got == expected
        for name, proposal in (("full", expected), ("incremental", got)):
            found = proposal and proposal[1] >= IDENTIFIED_MASS and _same_rule(rule, proposal[0])
            if identified[name] is None and found:
                identified[name] = play
    assert identified["incremental"] == identified["full"]
    assert skipped  # the shortcut was taken


def test_the_leaders_bound_the_best_probability_as_plays_add_up():
    """`Leaders.bound` is never below the best probability `Pruner.weigh` gives, for
    random counts that only grow and a fallback whose weight moves either way."""
    rng = np.random.default_rng(0)
    for trial in range(40):
        n = int(rng.integers(2, 3000))
        with np.errstate(divide="ignore"):  # a prior of 0 (a refuted hypothesis) is -inf
            prior = np.log(rng.dirichlet(np.ones(n) * rng.choice([0.05, 1.0])))
        log_prior = prior.astype(np.float32)
        mismatches = np.zeros(n, np.uint16)
        noise, leaders = float(rng.choice([0.005, 0.1])), None
        for _ in range(12):
            mismatches += rng.random(n) < rng.random()
            fallback = float(rng.normal(-8, 4))
            post = Pruner().weigh(mismatches, log_prior, noise, fallback)
            best = float(post.weights.max(initial=0.0)) / (post.total + post.fallback)
            if leaders is not None:
                bound = leaders.bound(mismatches, log_prior, noise, fallback)
                assert bound >= best, (trial, bound, best)
            if rng.random() < 0.3:
                leaders = Leaders(post, size=int(rng.integers(1, 40)))


def test_the_heaviest_weights_are_those_of_a_partition_of_all():
    """`heaviest_weights` finds the next weight a partition of every weight finds, and
    ``k`` weights as heavy as its ``k`` (ties may be other hypotheses of equal weight),
    whether the floors hold more than ``k`` weights or not."""
    rng = np.random.default_rng(3)
    for trial in range(60):
        n = int(rng.choice([50, 5000, 100_000]))
        k = int(rng.integers(1, 40))
        scale = float(rng.choice([1.0, 20.0, 60.0, 200.0]))
        weights = np.exp(-rng.random(n) * scale).astype(np.float32)
        if trial % 3 == 0:  # ties, some at the k-th weight
            weights = np.round(weights * 8) / np.float32(8)
        weights[rng.random(n) < 0.5] = 0.0
        at, next_weight = heaviest_weights(weights, k)
        order = np.argpartition(-weights, k)
        assert next_weight == float(weights[order[k]]), trial
        assert len(np.unique(at)) == k
        assert np.array_equal(np.sort(weights[at]), np.sort(weights[order[:k]])), trial
        rest = np.setdiff1d(np.arange(n), at)
        assert weights[rest].max() == np.float32(next_weight)


def test_normalising_is_numpys_exp_over_the_sum():
    """`normalise` takes its subnormal weights apart (`exp_in_place`): the same log
    evidence and posterior as ``np.exp`` over the float64 sum, to the bit."""
    rng = np.random.default_rng(1)
    logw = (rng.normal(-60, 40, 10_001)).astype(np.float32)
    log_evidence, posterior = normalise(logw)
    top = logw.max()
    weights = np.exp(logw - top)
    total = float(weights.sum(dtype=np.float64))
    assert log_evidence == float(top) + math.log(total)
    assert np.array_equal(weights / np.float32(total), posterior)


def test_exp_in_place_is_numpys_exp_to_the_bit():
    rng = np.random.default_rng(2)
    for scale in (5, 90, 110, 300):
        x = (-rng.random(50_003) * scale).astype(np.float32)
        x[rng.random(len(x)) < 0.05] = -np.inf
        assert np.array_equal(exp_in_place(x.copy()).view(np.uint32), np.exp(x).view(np.uint32))


def test_log_weights_add_the_log_odds_of_each_mismatch_to_the_prior():
    mismatches = np.array([0, 1, 7, 300], np.uint16)
    prior = np.log(np.array([0.1, 0.2, 0.3, 0.4], np.float32))
    logw = log_weights(mismatches, prior, 0.01)
    assert logw.dtype == np.float32
    one_mismatch = math.log(0.01 / 0.99) + math.log(2)  # and twice the prior
    assert math.isclose(float(logw[1] - logw[0]), one_mismatch, rel_tol=1e-5)


def test_rows_count_in_place_as_a_gathered_update_would():
    space = build_space("colours_suits", max_hypotheses=500, cache=False)
    rng = np.random.default_rng(3)
    in_place = np.zeros((5, len(space)), np.uint16)
    gathered = in_place.copy()
    for _ in range(30):
        probe, right = int(rng.integers(space.n_probes)), bool(rng.random() < 0.5)
        rows = rng.choice(5, int(rng.integers(1, 5)), replace=False)
        count_mismatches(in_place, space, probe, right, rows=rows)
        said = space.verdict_rows(probe)
        gathered[rows] += said != right
    assert np.array_equal(in_place, gathered)


def test_verdict_bits_read_by_rows_equal_the_bits_one_by_one():
    space = build_space("colours_suits", max_hypotheses=500, cache=False)
    rng = np.random.default_rng(4)
    hypotheses = rng.choice(len(space), 300)
    probes = rng.choice(space.n_probes, 7)
    expected = np.array(
        [[space.verdicts(int(h)).reshape(-1)[p] for h in hypotheses] for p in probes]
    )
    assert np.array_equal(space.verdict_bits(probes[:, None], hypotheses), expected)
    assert np.array_equal(space.verdict_bits(int(probes[0]), hypotheses), expected[0])
    assert np.array_equal(space.verdict_bits(probes[None, :], hypotheses[:, None]), expected.T)


def test_verdict_floats_are_the_verdicts_cast_to_the_bit():
    space = build_space("colours_suits", max_hypotheses=500, cache=False)
    rng = np.random.default_rng(5)
    weights = (rng.random(space.padded_size) ** 6).astype(np.float32)
    for stop in (len(space), space.padded_size, 13, 1):
        probes = rng.choice(space.n_probes, 14)
        floats = space.verdict_floats(probes, stop=stop)
        cast = space.verdict_rows(probes, stop=stop).astype(np.float32)
        assert floats.flags.c_contiguous and np.array_equal(floats, cast)
        assert np.array_equal(floats @ weights[:stop], cast @ weights[:stop])
        one = int(probes[0])
        assert space.verdict_floats(one, stop) @ weights[:stop] == cast[0] @ weights[:stop]


class _Unshared(BayesAgent):
    """A Bayes agent that weighs its posterior before any play itself, as it used to."""

    def _opening(self, fallback):
        self.opening_ = None
        return None


def test_the_shared_opening_is_the_agents_own_posterior_to_the_bit():
    """Before any play, the posterior and P(right) come from the space's `Opening`,
    shared by games and agents: exactly what the agent computes alone, game after game."""
    record = scripted_game("color(card) != color(last)", 0)
    for _ in range(2):  # the second game reads what the first filled in
        shared, alone = replayed(record), replayed(record)
        alone.__class__ = _Unshared
        contexts = [Context((record.starter,)), Context((record.starter, record.events[0].card))]
        for context in contexts:
            assert np.array_equal(shared.predict_faces(context), alone.predict_faces(context))
        assert shared.opening_ is not None and alone.opening_ is None
        assert np.array_equal(shared.posterior()[0], alone.posterior()[0])
        assert shared.propose_rule() == alone.propose_rule()
        shared.observe(record.events[0])
        alone.observe(record.events[0])
        assert shared.predict_faces(contexts[0]) is not None and shared.opening_ is None
        assert np.array_equal(shared.predict_faces(contexts[1]), alone.predict_faces(contexts[1]))


@pytest.mark.parametrize(
    "model",
    [{}, {"prior": "spread", "fallback": 0.0}, {"unacceptable": 0.0, "prior": "uniform"}],
)
def test_the_cached_log_prior_is_the_one_computed_for_each_game(model):
    """`HypothesisModel.padded_log_prior` against the computation each game made, and a
    refutation in one agent's copy leaves the next game's alone."""
    from eleusis_agents.hypothesis_model import base_log_prior

    agent = BayesAgent(**MODEL, **model)
    agent.start_game(GameInfo("classic", 0, 2, (), None), np.random.default_rng(0))
    space = agent.space_
    log_prior = base_log_prior(
        space, agent.prior, agent.unacceptable, acceptability=agent._acceptability()
    )
    if agent.fallback > 0:
        log_prior = log_prior + math.log1p(-agent.fallback)
    expected = np.full(space.padded_size, -np.inf, dtype=np.float32)
    expected[: len(space)] = log_prior
    assert np.array_equal(agent.log_prior_, expected)
    agent.refute(5)
    again = BayesAgent(**MODEL, **model)
    again.start_game(GameInfo("classic", 0, 2, (), None), np.random.default_rng(0))
    assert np.array_equal(again.log_prior_, expected)


def test_agents_of_one_model_share_the_counts_they_would_have_counted():
    """`Counts`: the agents of one model at a table hold the same counts, those of their
    own history, and weigh them as a fresh `Pruner` would; another model counts apart."""
    agents = [BayesAgent(**MODEL), BayesAgent(**MODEL), BayesAgent(**MODEL, noise=0.01)]
    play_classic(RULES[0], [*agents, RandomAgent()], seed=3)
    first, second, other = agents
    assert first.counts_ is second.counts_ and first.counts_ is not other.counts_
    for agent in agents:
        expected = np.zeros(agent.space_.padded_size, np.uint16)
        for probe, right in agent.history_:
            if probe >= 0:
                count_mismatches(expected, agent.space_, probe, right)
        assert np.array_equal(agent.mismatches_, expected)
        fallback = agent._fallback_log_weight()
        fresh = Pruner().weigh(expected, agent.log_prior_, agent.noise, fallback)
        post = agent._posterior()
        assert np.array_equal(post.weights, fresh.weights) and post.total == fresh.total
        assert (post.active is None) == (fresh.active is None)
        if post.active is not None:
            assert np.array_equal(post.active, fresh.active)


def test_counts_counted_in_place_are_no_one_elses():
    """An agent alone on its counts counts in place; one that learns the same plays
    later gets counts of its own, not those moved on."""
    from eleusis_lab.cards import parse_cards

    seven, queen, two, king = parse_cards("7S QH 2C KD")
    plays = [(Context((seven,)), queen, True), (Context((seven, queen)), two, False)]
    ahead, behind = BayesAgent(**MODEL), BayesAgent(**MODEL)
    for agent in (ahead, behind):
        agent.start_game(GameInfo("classic", 0, 2, (), seven), np.random.default_rng(0))
    for context, card, right in plays:
        ahead.learn(context, card, right)
    moved = ahead.counts_
    ahead.learn(Context((seven, queen)), king, True)
    assert ahead.counts_ is moved  # in place
    for context, card, right in plays:
        behind.learn(context, card, right)
    assert behind.counts_ is not ahead.counts_
    for agent in (ahead, behind):
        expected = np.zeros(agent.space_.padded_size, np.uint16)
        for probe, right in agent.history_:
            if probe >= 0:
                count_mismatches(expected, agent.space_, probe, right)
        assert np.array_equal(agent.mismatches_, expected)
