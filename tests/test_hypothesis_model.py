"""The hypothesis model the Bayesian agents share (`eleusis_agents.hypothesis_model`)."""

import gc
import inspect
import math
import re
import weakref

import numpy as np
import pytest

from eleusis_agents.bayes import BayesAgent
from eleusis_agents.bayes_context import ContextBayesAgent
from eleusis_agents.hypothesis_model import (
    HypothesisModel,
    ModelCache,
    ModelParams,
    base_log_prior,
)
from eleusis_lab.agent import GameInfo, GameTraits
from eleusis_lab.rules.enumerate import build_space

SMALL = {"grammar": "colours_suits", "max_hypotheses": 500, "one_card": 0}
SHARED = [  # the parameters both agents take, in their order
    "grammar",
    "max_hypotheses",
    "noise",
    "fallback",
    "prior",
    "productions",
    "unacceptable",
    "acceptability",
    "one_card",
    "declaring",
    "calibrated_decisions",
    "declare_confidence",
    "calibration",
]


def _started(cls, **params):
    agent = cls(**SMALL, **params)
    agent.start_game(GameInfo("classic", 0, 2, (), None), np.random.default_rng(0))
    return agent


@pytest.mark.parametrize("cls", [BayesAgent, ContextBayesAgent])
def test_the_agents_take_the_shared_parameters_with_the_same_defaults(cls):
    params = cls().get_params()
    assert [name for name in params if name in SHARED] == SHARED  # in the same order
    expected = {
        "grammar": "relational",
        "max_hypotheses": 100_000,
        "noise": 0.005,
        "fallback": 0.01,
        "prior": "bits",
        "productions": "auto",
        "unacceptable": 1e-3,
        "acceptability": "auto",
        "one_card": "auto",
        "declaring": "expected_score",
        "calibrated_decisions": False,
        "declare_confidence": 2 / 3,
        "calibration": "default",
    }
    assert {name: params[name] for name in SHARED} == expected
    assert vars(ModelParams.of(cls(noise=0.1))) == {**expected, "noise": 0.1}


def test_the_constructors_keep_their_own_parameters_in_place():
    assert list(inspect.signature(BayesAgent).parameters)[4:6] == ["policy", "mix"]
    context = list(inspect.signature(ContextBayesAgent).parameters)
    assert context[4:7] == ["plain", "switches", "policy"]
    assert BayesAgent(mix=0.2).mix == 0.2 and ContextBayesAgent(plain=0.3).plain == 0.3


def test_agents_of_one_model_share_one_cache_and_other_models_do_not():
    bayes, context = _started(BayesAgent), _started(ContextBayesAgent)
    assert bayes.model_.cache is context.model_.cache
    assert bayes.space_ is context.space_
    noisier = _started(BayesAgent, noise=0.01)
    assert noisier.space_ is bayes.space_ and noisier.model_.cache is not bayes.model_.cache
    solo = _started(BayesAgent, acceptability="solo")
    assert solo.model_.cache is not bayes.model_.cache


def test_the_model_resolves_auto_for_the_game():
    params = ModelParams(**SMALL)
    dealer = HypothesisModel.build(params, GameTraits())
    solo = HypothesisModel.build(params, GameTraits(rule_from="benchmark"))
    assert (dealer.acceptability, solo.acceptability) == ("dealer", "solo")
    one_card = HypothesisModel.build(
        ModelParams(grammar="colours_suits", max_hypotheses=500), GameTraits(rule_from="benchmark")
    )
    assert len(one_card.space) > len(solo.space)  # the one-card language added


def test_the_padded_prior_is_the_base_prior_scaled_and_padded():
    space = build_space("colours_suits", max_hypotheses=40, cache=False)
    model = HypothesisModel(space, "uniform", 1.0, "dealer", fallback=0.2)
    padded = model.padded_log_prior()
    assert padded.dtype == np.float32 and len(padded) == space.padded_size
    assert np.allclose(np.exp(padded[:40]), 0.8 / 40)  # uniform over 40, times 1 - 0.2
    assert np.all(np.isneginf(padded[40:]))
    assert not padded.flags.writeable
    assert np.array_equal(model.log_prior(), base_log_prior(space, "uniform", 1.0))


def test_the_opening_is_the_posterior_of_no_play_and_is_kept():
    space = build_space("colours_suits", max_hypotheses=40, cache=False)
    model = HypothesisModel(space, "uniform", 1.0, "dealer", fallback=0.0)
    opening = model.opening(-math.inf)
    assert model.opening(-math.inf) is opening
    weights = opening.post.weights[opening.post.weights > 0]
    assert len(weights) == 40 and np.allclose(weights, weights[0])  # uniform: all alike
    assert model.opening(0.0) is not opening  # another fallback weight


def test_the_root_counts_are_shared_zeros():
    space = build_space("colours_suits", max_hypotheses=40, cache=False)
    root = HypothesisModel(space).root_counts()
    assert root is HypothesisModel(space).root_counts()
    assert not root.mismatches.any() and not root.mismatches.flags.writeable


def test_a_cache_lives_as_long_as_its_space():
    from eleusis_agents.hypothesis_model import _CACHES

    space = build_space("colours_suits", max_hypotheses=40, cache=False)
    model = HypothesisModel(space)
    assert ModelCache.for_model(space, model.key) is model.cache
    assert space in _CACHES
    alive = weakref.ref(model.cache)
    # counted by the cache itself: other tests' spaces may die during the collection
    del space, model
    gc.collect()
    assert alive() is None


@pytest.mark.parametrize(
    "params, message",
    [
        ({"noise": 0.5}, "noise must be in (0, 0.5), got 0.5"),
        ({"prior": "flat"}, "prior must be one of bits, shortest, uniform, spread"),
        ({"one_card": 1}, "one_card must be 'auto' or in [0, 1), got 1"),
        ({"declaring": "never"}, "declaring must be one of expected_score, threshold"),
    ],
)
def test_the_shared_parameters_are_checked_once_for_both_agents(params, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        ModelParams(**params).check()
    for cls in (BayesAgent, ContextBayesAgent):
        with pytest.raises(ValueError, match=re.escape(message)):
            cls(**params).check_params()
