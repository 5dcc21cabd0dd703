"""The Bayesian agent: exact posterior, noise, every public play, policies, pickling."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from eleusis_agents.bayes import POLICIES, BayesAgent
from eleusis_agents.hypothesis_model import base_log_prior
from eleusis_agents.simple import RandomAgent
from eleusis_lab.agent import Event, GameInfo, Observation, clone
from eleusis_lab.cards import parse_card, parse_cards, standard_deck
from eleusis_lab.games.classic import play_classic
from eleusis_lab.games.table import GAMES
from eleusis_lab.rules import Context, parse
from eleusis_lab.rules.analysis import equivalent
from eleusis_lab.rules.enumerate import build_space
from eleusis_lab.rules.grammar import Grammar
from eleusis_lab.testing import check_agent

# Six hypotheses: true, false, red(card), face(card), not red(card), not face(card).
TINY = Grammar(
    name="tiny",
    cards=("card",),
    features=(),
    predicates=("red", "face"),
    int_predicates=(),
    numbers=(),
    constants=(),
    comparisons=(),
    arithmetic=(),
    moduli=(),
    functions=(),
    logic=("not",),
    bool_equality=False,
    conditionals=False,
)
SMALL = {"grammar": "colours_suits", "max_hypotheses": 2000}
STARTER = parse_card("7S")


def started(agent: BayesAgent, seat: int = 0, starter=STARTER) -> BayesAgent:
    agent.start_game(GameInfo("classic", seat, 3, (), starter), np.random.default_rng(seat))
    return agent


def play(agent: BayesAgent, card: str, right: bool, seat: int = 1) -> None:
    agent.observe(Event(seat, parse_card(card), 1, right, len(agent.line_) - 1))


def test_the_tiny_space_holds_six_behaviours():
    space = build_space(TINY, 100, cache=False)
    assert sorted(space.text(i) for i in range(len(space))) == sorted(
        ["true", "false", "red(card)", "face(card)", "not red(card)", "not face(card)"]
    )


@pytest.mark.parametrize("prior", ["bits", "shortest", "uniform"])
def test_posterior_equals_a_hand_computed_one(prior):
    noise, fallback = 0.1, 0.2
    agent = started(BayesAgent(TINY, 6, noise=noise, fallback=fallback, prior=prior, one_card=0))
    plays = [("QH", True), ("2C", False), ("KS", True), ("9D", True)]
    for card, right in plays:
        play(agent, card, right)
    space = agent.space_
    if prior == "bits":
        weights = np.exp(space.log_prior)
    elif prior == "shortest":
        weights = 2.0**-space.bits
    else:
        weights = np.ones(len(space))
    # A dealer may not pick false or face(card) (under 13 faces right), and true (it
    # rejects nothing) leaves nothing to find: prior x 1e-3.
    weights[[space.index_of(parse(text)) for text in ("false", "face(card)", "true")]] *= 1e-3
    weights = (1 - fallback) * weights / weights.sum()
    fallback_weight, n_right = fallback, 0
    line = [STARTER]
    for n, (card, right) in enumerate(plays):
        context = Context(tuple(line))
        for i in range(len(space)):  # hypothesis by hypothesis, from the rules themselves
            says = space.rule(i).accepts(parse_card(card), context)
            weights[i] *= 1 - noise if says == right else noise
        rate = (n_right + 1) / (n + 2)
        fallback_weight *= rate if right else 1 - rate
        n_right += right
        if right:
            line.append(parse_card(card))
    total = weights.sum() + fallback_weight
    probabilities, none_of_the_above = agent.posterior()
    assert probabilities == pytest.approx(weights / total, rel=1e-5)
    assert none_of_the_above == pytest.approx(fallback_weight / total, rel=1e-5)
    # predictions mix the hypotheses' verdicts with the noise and the fallback's rate
    says = np.array(
        [space.rule(i).accepts(parse_card("AH"), Context(tuple(line))) for i in range(len(space))]
    )
    expected = (weights @ np.where(says, 1 - noise, noise) + fallback_weight * 4 / 6) / total
    assert agent.predict_faces(Context(tuple(line)))[parse_card("AH").face] == pytest.approx(
        expected, rel=1e-5
    )


def test_noise_keeps_the_posterior_after_a_surprise():
    agent = started(BayesAgent(TINY, 6, noise=0.02))
    for card in ("QH", "3D", "10H", "AD", "5H"):
        play(agent, card, True)
    for card in ("2C", "JS", "8C"):
        play(agent, card, False)
    assert agent.propose_rule()[0] == "red(card)"
    play(agent, "4S", True)  # no hypothesis but `true` and the fallback expected that
    probabilities, fallback = agent.posterior()
    assert probabilities.sum() + fallback == pytest.approx(1.0)
    assert agent.identified_mass(parse("red(card)")) > 0.05
    assert agent.propose_rule() is not None


def test_learns_from_every_public_play():
    agent = started(BayesAgent(**SMALL, one_card=0), seat=0)
    before = agent.identified_mass(parse("red(card)"))
    play(agent, "QH", True, seat=2)  # another player's play
    play(agent, "3C", False, seat=1)
    assert len(agent.history_) == 2
    assert before < 0.5 < 0.95 < agent.identified_mass(parse("red(card)"))
    record = play_classic("red(card)", [agent, RandomAgent(), RandomAgent()], seed=4)
    assert len(agent.history_) == len(record.events)  # every seat's plays


@pytest.mark.parametrize("policy", POLICIES)
def test_policies_play_cards_from_the_hand_and_repeat_with_the_seed(policy):
    def game():
        agents = [BayesAgent(**SMALL, policy=policy), BayesAgent(**SMALL, policy=policy)]
        return play_classic("suit(card) != suit(last)", [*agents, RandomAgent()], seed=11)

    first, second = game(), game()  # play_classic raises if a card is not in the hand
    assert first.events == second.events
    agent = started(BayesAgent(**SMALL, policy=policy))
    hand = tuple(parse_cards("2C 5D 9H JS QC KD 3H 4S 6C 7D 8H 10S AC 2D"))
    obs = Observation("classic", 0, 1, hand, (STARTER,), ((), (), ()), None)
    assert agent.choose_play(obs) in hand


def test_information_gain_plays_the_most_uncertain_card():
    agent = started(BayesAgent(TINY, 6, policy="info_gain"))
    for card, right in (("QH", True), ("2C", False), ("KD", True), ("JS", False)):
        play(agent, card, right)
    hand = tuple(parse_cards("3H 4C"))  # red(card) is sure of both; face(card) is ruled out
    obs = Observation("classic", 0, 1, hand, (STARTER,), ((), (), ()), True)
    probabilities = agent.predict(obs, list(hand))
    entropy = -(
        probabilities * np.log(probabilities) + (1 - probabilities) * np.log1p(-probabilities)
    )
    assert agent.choose_play(obs) == hand[int(np.argmax(entropy))]


def test_pickles_small_and_plays_on_identically():
    record = play_classic("color(card) != color(last)", [RandomAgent(), RandomAgent()], seed=2)
    agent = started(BayesAgent(**SMALL, policy="thompson"), starter=record.starter)
    for event in record.events[:12]:
        agent.observe(event)
    data = pickle.dumps(agent)
    assert len(data) < 20_000  # parameters and the plays seen, never the table
    twin = pickle.loads(data)
    rng = np.random.default_rng(0)
    deck = standard_deck()
    for event in record.events[12:30]:
        for copy in (agent, twin):
            copy.observe(event)
        hand = tuple(deck[i] for i in rng.choice(52, 14, replace=False))
        obs = Observation("classic", 0, 1, hand, tuple(agent.line_), ((), ()), event.right)
        assert agent.choose_play(obs) == twin.choose_play(obs)
        assert (agent.predict(obs, list(hand)) == twin.predict(obs, list(hand))).all()
    assert agent.propose_rule() == twin.propose_rule()


def test_predictions_agree_with_the_posterior_once_few_hypotheses_remain():
    rule = "suit(card) == (suit(last) + 1) mod 4"
    record = play_classic(rule, [RandomAgent(), RandomAgent()], seed=3)
    agent = started(BayesAgent(**SMALL), starter=record.starter)
    for event in record.events:
        agent.observe(event)
    context = Context(tuple(agent.line_), agent.last_right_)
    faces = agent.predict_faces(context)
    assert agent._posterior().active is not None  # the sparse path is the one tested
    probabilities, fallback = agent.posterior()
    verdicts = np.array(
        [
            agent.space_.verdicts(i)[agent.space_.context_index(context)]
            for i in range(len(agent.space_))
        ]
    )
    eps = agent.noise
    n_right = sum(right for _, right in agent.history_)
    rate = (n_right + 1) / (len(agent.history_) + 2)
    expected = probabilities @ np.where(verdicts, 1 - eps, eps) + fallback * rate
    assert faces == pytest.approx(expected, abs=1e-6)
    assert ((faces >= 0) & (faces <= 1)).all()


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_identifies_colour_alternation_in_a_real_game(seed):
    """Three Bayes agents (relational grammar, 100,000 hypotheses) at a classic game."""

    class Watched(BayesAgent):
        def observe(self, event):
            super().observe(event)
            self.masses_.append(self.identified_mass(rule))

    rule = parse("color(card) != color(last)")
    watched = Watched(policy="mix")
    watched.masses_ = []
    agents = [watched, BayesAgent(policy="mix"), BayesAgent(policy="mix")]
    play_classic(rule, agents, seed=seed)
    assert max(watched.masses_[:30]) >= 0.9
    assert equivalent(parse(watched.propose_rule()[0]), rule)


def test_rules_outside_the_grammar_and_games_without_a_starter():
    agent = started(BayesAgent(**SMALL), starter=None)
    assert agent.identified_mass(parse("rank(card) > rank(last)")) is None
    assert agent.identified_mass("red(prev)") is None
    # An empty main line is no context of this grammar: only the fallback learns from it.
    agent.observe(Event(1, parse_card("QH"), 1, True, -1))
    assert agent.history_ == [(-1, True)]
    assert agent.predict_faces(Context(())) == pytest.approx(np.full(52, 2 / 3))


@pytest.mark.parametrize("policy", POLICIES)
def test_a_rule_outside_the_grammar_leaves_the_fallback(policy):
    # None of the six hypotheses of TINY alternates colours: after a game, "none of the
    # above" outweighs them all by far, and the agent still plays and predicts.
    agent = BayesAgent(TINY, 6, policy=policy)
    play_classic("color(card) != color(last)", [agent, RandomAgent(), RandomAgent()], seed=5)
    probabilities, fallback = agent.posterior()
    assert fallback > 0.99
    assert agent.propose_rule() is None
    assert agent.identified_mass(parse("red(card)")) < 0.01
    hand = tuple(parse_cards("2C 5D 9H"))
    obs = Observation("classic", 0, 2, hand, (STARTER,), ((), (), ()), True)
    assert agent.choose_play(obs) in hand
    assert np.isfinite(agent.predict(obs, list(hand))).all()


@pytest.mark.parametrize("policy", POLICIES)
def test_passes_the_agent_conformance_suite(policy):
    report = check_agent(BayesAgent(**SMALL, policy=policy))
    assert "check_propose_rule" in report.passed


def test_parameters_follow_the_estimator_contract():
    agent = BayesAgent(grammar="colours_suits", noise=0.1, policy="mix", mix=0.3)
    assert agent.get_params() == {
        "grammar": "colours_suits",
        "max_hypotheses": 100_000,
        "noise": 0.1,
        "fallback": 0.01,
        "policy": "mix",
        "mix": 0.3,
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
    assert clone(agent).get_params() == agent.get_params()
    assert agent.propose_rule() is None  # no game yet
    for bad in (
        {"noise": 0.5},
        {"fallback": 1.0},
        {"policy": "best"},
        {"mix": 2},
        {"prior": "flat"},
        {"productions": "people_who_never_wrote"},
        {"unacceptable": -0.1},
        {"calibration": 0.5},
        {"calibration": "no/such/map.json"},
        {"acceptability": "table"},
        {"one_card": 1.0},
        {"one_card": "solo"},
        {"declare_confidence": 0},
        {"declare_confidence": 1.5},
        {"declaring": "eagerly"},
        {"grammar": "colors"},
    ):
        with pytest.raises(ValueError):
            started(BayesAgent(**{**SMALL, **bad}))


def test_fallback_zero_and_uniform_prior_still_work():
    agent = started(BayesAgent(**SMALL, fallback=0.0, prior="uniform"))
    play(agent, "QH", True)
    probabilities, fallback = agent.posterior()
    assert fallback == 0.0 and probabilities.sum() == pytest.approx(1.0)
    assert math.isfinite(agent.predict_faces(Context((STARTER,))).sum())


def test_game_equivalents_cannot_tell_rules_apart_on_the_cards_already_on_the_line():
    from eleusis_agents.bayes_bench import game_equivalents
    from eleusis_lab.cards import parse_card
    from eleusis_lab.rules.grammar import Grammar

    grammar = Grammar(
        name="ranks_suits_equal",
        features=("rank", "suit"),
        predicates=(),
        int_predicates=(),
        numbers=(),
        constants=(),
        comparisons=("==", "!="),
        arithmetic=(),
        moduli=(),
        functions=(),
        logic=("or",),
    )
    space = build_space(grammar, 5000, cache=False)
    rule = parse("suit(card) == suit(last) or rank(card) == rank(last)")
    # They differ only when the card is the last card itself, which no hand holds.
    twin = space.index_of(parse("(rank(card) == rank(last)) == (suit(card) != suit(last))"))
    same_suit = space.index_of(parse("suit(card) == suit(last)"))
    assert None not in (twin, same_suit) and twin != space.index_of(rule)
    equivalents = game_equivalents(space, rule, parse_card("7H"))
    assert equivalents[space.index_of(rule)] and equivalents[twin]
    assert not equivalents[same_suit]


def test_the_spread_prior_gives_every_band_of_one_bit_the_same_mass():
    space = build_space(TINY, 6, cache=False)
    prior = np.exp(base_log_prior(space, "spread", 1.0))
    bands = np.floor(space.bits).astype(int)
    masses = [prior[bands == band].sum() for band in np.unique(bands)]
    assert masses == pytest.approx([1 / len(masses)] * len(masses))
    within = bands == bands[np.argmax(prior)]  # inside a band, as the summed mass
    bits = np.exp(space.log_prior[within])
    assert prior[within] / prior[within].sum() == pytest.approx(bits / bits.sum())


def test_a_calibration_map_changes_what_is_stated_not_how_it_plays(tmp_path):
    """Halving every probability: the same game, every confidence stated halved."""
    from eleusis_lab.calibration import CalibrationMap
    from eleusis_lab.games.solo import play_solo

    raw = play_solo("red(card)", BayesAgent(**SMALL), seed=0)
    path = tmp_path / "half.json"
    CalibrationMap((0.0, 1.0), (0.0, 0.5)).save(path)
    halved = play_solo("red(card)", BayesAgent(**SMALL, calibration=str(path)), seed=0)
    assert raw.found and (halved.events, halved.found_turn) == (raw.events, raw.found_turn)
    pairs = zip(raw.tentative, halved.tentative, strict=True)
    assert all(h.confidence == pytest.approx(r.confidence / 2) for r, h in pairs)
    assert halved.declarations[-1].confidence == pytest.approx(raw.declarations[-1].confidence / 2)


def game_info(game: str) -> GameInfo:
    """What the engine of ``game`` tells a lone player at the start, its traits included."""
    return GameInfo(game, 0, 1, (), STARTER, traits=GAMES[game].traits)


def test_solo_has_no_quarter_of_the_deck_test_but_true_and_false_stay_unlikely():
    def prior_of(acceptability, game, text):
        agent = BayesAgent(
            grammar="standard",
            max_hypotheses=2000,
            acceptability=acceptability,
            one_card=0,
            productions="hand-set",  # the same space in every game
        )
        agent.start_game(game_info(game), np.random.default_rng(0))
        probabilities, _ = agent.posterior()
        return probabilities[agent.space.index_of(parse(text))]

    def odds(acceptability, game):  # a single rank against a rule a dealer may choose
        return prior_of(acceptability, game, "rank(card) == king") / prior_of(
            acceptability, game, "red(card)"
        )

    assert odds("auto", "solo") == pytest.approx(1000 * odds("auto", "classic"))
    assert odds("dealer", "solo") == pytest.approx(odds("auto", "classic"))
    assert odds("solo", "classic") == pytest.approx(odds("auto", "solo"))
    for trivial in ("true", "false"):  # nothing to find, in every game
        assert prior_of("auto", "solo", trivial) < prior_of("auto", "solo", "red(card)") / 100


def test_the_one_card_language_joins_in_solo_only_by_default():
    sizes = {}
    for game in ("solo", "classic"):
        agent = BayesAgent(grammar="colours_suits", max_hypotheses=2000)
        agent.start_game(game_info(game), np.random.default_rng(0))
        sizes[game] = len(agent.space_)
    assert sizes["classic"] == 2000 and sizes["solo"] > 2000


def test_the_shipped_calibration_holds_for_the_default_model_in_solo_only():
    from eleusis_lab.calibration import CalibrationMap

    def stated(agent, game):
        agent.start_game(game_info(game), np.random.default_rng(0))
        return agent.calibration_

    assert isinstance(stated(BayesAgent(), "solo"), CalibrationMap)
    assert isinstance(
        stated(BayesAgent(policy="greedy", declare_confidence=0.8), "solo"), CalibrationMap
    )  # how it plays is not the model
    assert stated(BayesAgent(), "classic") is None
    assert stated(BayesAgent(**SMALL), "solo") is None  # another model: the posterior


def test_the_base_prior_is_computed_once_per_model_and_normalised():
    from eleusis_agents.hypothesis_model import HypothesisModel

    space = build_space("colours_suits", max_hypotheses=500, cache=False)
    first = HypothesisModel(space, "bits", 1e-3).log_prior()
    assert HypothesisModel(space, "bits", 1e-3).log_prior() is first  # the next games reuse it
    assert not first.flags.writeable
    assert np.logaddexp.reduce(first) == pytest.approx(0.0, abs=1e-12)
    assert np.array_equal(first, base_log_prior(space, "bits", 1e-3))
    other = HypothesisModel(space, "bits", 1e-3, acceptability="solo").log_prior()
    assert other is not first and not np.array_equal(other, first)
