"""The agent conformance suite: it passes good agents and names what is wrong with bad ones.

Each broken agent below breaks exactly one part of the contract; the agents live at the
top level of the module so that pickle can find their classes.
"""

import dataclasses
import random
import threading

import numpy as np
import pytest

from eleusis_agents.simple import OracleAgent, RandomAgent
from eleusis_lab.agent import Agent
from eleusis_lab.cards import standard_deck
from eleusis_lab.games.table import GAMES, register_game, unregister_game
from eleusis_lab.registry import available_agents, make_agent
from eleusis_lab.testing import (
    CHECKS,
    AgentReport,
    CheckNotes,
    check_agent,
    check_no_attributes_set_in_init,
    check_observation_not_mutated,
    check_only_legal_actions,
    check_params_round_trip,
    check_pickle,
    check_playable_games,
    check_predict,
    check_propose_rule,
    check_same_seed_same_plays,
    parametrize_with_checks,
)

DECK = tuple(standard_deck())


class First(Agent):
    """A correct agent to derive the broken ones from: plays its first card."""

    def choose_play(self, obs):
        return obs.hand[0]


# -- good agents ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "agent", [RandomAgent(), OracleAgent(), OracleAgent(choice="first"), First()], ids=repr
)
def test_check_agent_passes_good_agents(agent):
    before = agent.get_params()
    report = check_agent(agent)
    assert isinstance(report, AgentReport)
    assert report.passed == tuple(check.__name__ for check in CHECKS)
    assert report.not_checked == ()
    assert report.agent == repr(agent)
    assert report.decisions > 0 and 0 < report.mean_ms <= report.max_ms
    assert agent.get_params() == before and not [a for a in vars(agent) if a.endswith("_")]
    assert "checks passed" in str(report) and "decisions timed" in str(report)


@parametrize_with_checks([RandomAgent(), OracleAgent(choice="first")])
def test_parametrize_with_checks(agent, check):
    check(agent)


def test_parametrize_with_checks_ids():
    marker = parametrize_with_checks([RandomAgent(), First()])
    ids = marker.kwargs["ids"]
    assert len(ids) == 2 * len(CHECKS)
    assert ids[0] == "RandomAgent()-check_params_round_trip"
    assert ids[-1] == "First()-check_playable_games"


@pytest.mark.parametrize("name", sorted(available_agents()))
def test_every_registered_agent_passes(name):
    """Agents registered later (entry points) are checked here without a new test."""
    if name == "llm":
        pytest.skip("needs a chat endpoint: checked against one in test_llm_agent.py")
    report = check_agent(make_agent(name))
    assert len(report.passed) == len(CHECKS)


def test_check_agent_wants_an_instance():
    with pytest.raises(TypeError, match=r"pass an agent, not the class RandomAgent"):
        check_agent(RandomAgent)
    with pytest.raises(TypeError, match="is not an Agent"):
        check_agent("random")
    with pytest.raises(TypeError, match="not the class"):
        parametrize_with_checks([RandomAgent])


# -- parameters ----------------------------------------------------------------------------


class MissingParam(First):
    def __init__(self, depth=2, width=3):
        self.depth = depth
        self.width = width

    def get_params(self, deep=True):
        return {"depth": self.depth}


class TakesKwargs(First):
    def __init__(self, **options):
        self.options = options


class AcceptsAnything(First):
    def __init__(self, depth=2):
        self.depth = depth

    def set_params(self, **params):
        vars(self).update(params)
        return self


class SetParamsReturnsNone(First):
    def __init__(self, depth=2):
        self.depth = depth

    def set_params(self, **params):
        super().set_params(**params)


@pytest.mark.parametrize(
    ("agent", "message"),
    [
        (MissingParam(), r"get_params\(\) lacks the constructor parameter\(s\) width"),
        (TakesKwargs(), r"the constructor takes \*options"),
        (AcceptsAnything(), r"set_params\(not_a_parameter=1\) accepted an unknown name"),
        (SetParamsReturnsNone(), r"set_params returned None, not the agent itself"),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, Agent) else "",
)
def test_params_round_trip_fails(agent, message):
    with pytest.raises(AssertionError, match=r"check_params_round_trip failed for .*: " + message):
        check_params_round_trip(agent)
    with pytest.raises(AssertionError, match=message):
        check_agent(agent)


# -- no work in __init__ -------------------------------------------------------------------


class StateInInit(First):
    def __init__(self, depth=2):
        self.depth = depth
        self.memory_ = []


class ExtraAttribute(First):
    def __init__(self, depth=2):
        self.depth = depth
        self.table = {}


class ConvertsParam(First):
    def __init__(self, choices=("a", "b")):
        self.choices = list(choices)


def test_state_in_init_fails():
    with pytest.raises(
        AssertionError,
        match=r"check_no_attributes_set_in_init failed for StateInInit\(depth=2\): the"
        r" constructor sets memory_; state learned in a game ends in '_'",
    ):
        check_no_attributes_set_in_init(StateInInit())
    with pytest.raises(AssertionError, match="check_no_attributes_set_in_init"):
        check_agent(StateInInit())


def test_other_attribute_or_changed_parameter_in_init_fails():
    with pytest.raises(AssertionError, match="the constructor sets table, which is not a param"):
        check_no_attributes_set_in_init(ExtraAttribute())
    with pytest.raises(AssertionError, match=r"changes the parameter\(s\) choices"):
        check_no_attributes_set_in_init(ConvertsParam())


# -- only legal actions --------------------------------------------------------------------


class Cheat(First):
    def choose_play(self, obs):
        return next(card for card in DECK if card not in obs.hand)


class Words(First):
    def choose_play(self, obs):
        return str(obs.hand[0])


class Crashes(RandomAgent):
    def choose_play(self, obs):
        if len(obs.main_line) > 3:
            raise ZeroDivisionError("division by zero")
        return super().choose_play(obs)


class BadObserver(First):
    def observe(self, event):
        raise KeyError("missing")


@pytest.mark.parametrize(
    ("agent", "message"),
    [
        (Cheat(), r"seat \d \(Cheat\(\)\) played Card\('..'\), which is not among the cards"),
        (Words(), r"seat \d \(Words\(\)\) played '.+' \(a str\)"),
        (Crashes(), r"raised ZeroDivisionError: division by zero in a classic game, seed \d+"),
        (BadObserver(), r"raised KeyError: 'missing' in a classic game"),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, Agent) else "",
)
def test_only_legal_actions_fails(agent, message):
    name = type(agent).__name__
    with pytest.raises(AssertionError, match=rf"check_only_legal_actions failed for {name}\(\)"):
        check_only_legal_actions(agent)
    with pytest.raises(AssertionError, match=message):
        check_agent(agent)


def test_only_legal_actions_times_the_decisions():
    notes = CheckNotes()
    check_only_legal_actions(RandomAgent(), notes)
    assert len(notes.decision_seconds) > 20 and min(notes.decision_seconds) >= 0


# -- same seed, same plays -----------------------------------------------------------------


class GlobalRandom(First):
    def choose_play(self, obs):
        return random.choice(obs.hand)


class GlobalNumpy(First):
    def choose_play(self, obs):
        return obs.hand[np.random.randint(len(obs.hand))]


class Remembers(First):
    """Counts games across start_game instead of resetting: a game depends on the past."""

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.games_ = getattr(self, "games_", 0) + 1

    def choose_play(self, obs):
        return obs.hand[self.games_ % len(obs.hand)]


@pytest.mark.parametrize("agent", [GlobalRandom(), GlobalNumpy()], ids=repr)
def test_global_randomness_fails(agent):
    with pytest.raises(
        AssertionError,
        match=r"check_same_seed_same_plays failed for Global\w+\(\): two clones played a"
        r" classic game, seed \d+, seat \d of \d differently \(event \d+: .+\); draw random"
        r" numbers only from the generator given to start_game",
    ):
        check_same_seed_same_plays(agent)
    with pytest.raises(AssertionError, match="check_same_seed_same_plays"):
        check_agent(agent)


def test_state_kept_across_games_fails():
    with pytest.raises(
        AssertionError,
        match=r"after another game it played a classic game, .* differently .* start_game must"
        r" reset everything learned",
    ):
        check_same_seed_same_plays(Remembers())


# -- observations are not mutated ----------------------------------------------------------


class SortsCards(First):
    def predict(self, obs, cards):
        cards.sort(reverse=True)
        return np.full(len(cards), 0.5)


class TampersObservation(First):
    def choose_play(self, obs):
        card = obs.hand[0]
        object.__setattr__(obs, "main_line", obs.main_line[:-1])  # through the frozen door
        return card


class TampersEvent(First):
    def observe(self, event):
        object.__setattr__(event, "right", not event.right)


@pytest.mark.parametrize(
    ("agent", "message"),
    [
        (SortsCards(), "predict changed the list of cards it was given"),
        (TampersObservation(), "choose_play changed the observation it was given"),
        (TampersEvent(), "observe changed the event it was given"),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, Agent) else "",
)
def test_mutation_fails(agent, message):
    name = type(agent).__name__
    pattern = rf"check_observation_not_mutated failed for {name}\(\): {message}, in a classic game"
    with pytest.raises(AssertionError, match=pattern + r".* was .*, is "):
        check_observation_not_mutated(agent)
    with pytest.raises(AssertionError, match=message):
        check_agent(agent)


def test_mutation_message_names_the_changed_field():
    with pytest.raises(AssertionError, match=r"seat \d of \d: right was True, is False$"):
        check_observation_not_mutated(TampersEvent())


# -- pickling ------------------------------------------------------------------------------


class HoldsLock(First):
    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.lock_ = threading.Lock()


class HoldsLambda(First):
    def __init__(self, key=lambda card: card.rank):
        self.key = key

    def choose_play(self, obs):
        return min(obs.hand, key=self.key)


def test_unpicklable_state_after_a_game_fails():
    with pytest.raises(
        AssertionError,
        match=r"check_pickle failed for HoldsLock\(\): after a game, it does not pickle:"
        r" TypeError: cannot pickle '_thread.lock' object",
    ):
        check_pickle(HoldsLock())
    with pytest.raises(AssertionError, match="check_pickle"):
        check_agent(HoldsLock())


def test_unpicklable_parameter_fails_before_a_game():
    with pytest.raises(
        AssertionError, match=r"check_pickle failed for HoldsLambda\(.*\): before a game"
    ):
        check_pickle(HoldsLambda())


def test_a_local_class_cannot_be_pickled():
    class Local(First):
        pass

    with pytest.raises(AssertionError, match=r"pickle cannot find its class .*<locals>\.Local"):
        check_pickle(Local())


# -- the games an agent can play ----------------------------------------------------------


class CapabilitiesAsText(First):
    capabilities = "plays"


@pytest.fixture
def played_games():
    """The names of the sample games played, in order: each registered game with a
    sample game is replaced by a twin whose play says it was played."""
    played, spied = [], []
    for name, game in list(GAMES.items()):
        if game.sample is not None:

            def spy(*args, name=name, play=game.play):
                played.append(name)
                return play(*args)

            register_game(dataclasses.replace(game, play=spy), replace=True)
            spied.append(name)
    yield played
    for name in spied:
        unregister_game(name)


def test_check_playable_games_plays_exactly_the_games_the_agent_can_play(played_games):
    check_playable_games(First())  # the core decisions only: no solo, no New Eleusis
    assert played_games == ["classic", "delphi", "four-to-eight"]
    played_games.clear()
    check_playable_games(RandomAgent())  # with both mixins; secrets is for its own agents
    assert played_games == ["classic", "delphi", "four-to-eight", "new-eleusis", "solo"]


def test_a_playable_game_without_a_sample_game_is_reported_not_failed():
    assert GAMES["secrets"].sample is None  # and not for an Eleusis agent: not listed
    register_game(dataclasses.replace(GAMES["classic"], name="twin", sample=None))
    try:
        notes = CheckNotes()
        check_playable_games(First(), notes)
        assert notes.not_checked == ["twin"]
        report = check_agent(First())
        assert report.not_checked == ("twin",)
        assert "games not checkable yet: twin" in str(report)
    finally:
        unregister_game("twin")


def test_capabilities_must_be_a_tuple_of_names():
    with pytest.raises(
        AssertionError, match=r"CapabilitiesAsText.capabilities is 'plays'; it should be a tuple"
    ):
        check_playable_games(CapabilitiesAsText())


# -- predict and propose_rule --------------------------------------------------------------


class OneNumber(First):
    def predict(self, obs, cards):
        return 0.5


class Overconfident(First):
    def predict(self, obs, cards):
        return np.full(len(cards), 1.5)


class NotANumber(First):
    def predict(self, obs, cards):
        return np.full(len(cards), np.nan)


@pytest.mark.parametrize(
    ("agent", "message"),
    [
        (OneNumber(), r"returned shape \(\); one probability per card is \(8,\)"),
        (Overconfident(), r"returned 1.5, not a probability in \[0, 1\]"),
        (NotANumber(), r"returned nan, not a probability in \[0, 1\]"),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, Agent) else "",
)
def test_predict_fails(agent, message):
    pattern = rf"check_predict failed for {type(agent).__name__}\(\): predict\(obs, 8 cards\) "
    with pytest.raises(AssertionError, match=pattern + message):
        check_predict(agent)
    with pytest.raises(AssertionError, match=message):
        check_agent(agent)


class Unparseable(First):
    def propose_rule(self):
        return ("card is red", 0.8)


class TooSure(First):
    def propose_rule(self):
        return ("red(card)", 1.5)


class BareText(First):
    def propose_rule(self):
        return "red(card)"


@pytest.mark.parametrize(
    ("agent", "message"),
    [
        (Unparseable(), r"proposed 'card is red', which does not parse: "),
        (TooSure(), r"gave the confidence 1.5, not a number in \[0, 1\]"),
        (BareText(), r"returned 'red\(card\)'; expected None or \(rule text, confidence\)"),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, Agent) else "",
)
def test_propose_rule_fails(agent, message):
    pattern = rf"check_propose_rule failed for {type(agent).__name__}\(\): propose_rule\(\) "
    with pytest.raises(AssertionError, match=pattern + r"during a game " + message):
        check_propose_rule(agent)
    with pytest.raises(AssertionError, match=message):
        check_agent(agent)


class GoodProposer(RandomAgent):
    def propose_rule(self):
        return ("color(card) != color(last)", 0.25)


def test_a_good_proposal_passes():
    check_propose_rule(GoodProposer())
