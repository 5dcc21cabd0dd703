"""Capabilities: who may sit at which table, and what each game shows its players.

An agent's capabilities are the names its classes declare; a game needs those of its
kind of agent and of the mixins of its own decisions. An agent that lacks one is
refused in one line, by the spec, the engine and the command line alike; a game
registered by another package can add a capability of its own. New Eleusis alone hands
its agents more than the core observation.
"""

import dataclasses
import re

import pytest
from test_traits import Spy

from eleusis_agents.bayes import BayesAgent
from eleusis_agents.bayes_context import ContextBayesAgent
from eleusis_agents.human import HumanAgent
from eleusis_agents.learners import DecisionTreeAgent, SklearnAgent
from eleusis_agents.simple import OracleAgent, RandomAgent
from eleusis_lab.agent import Agent, Observation, agent_capabilities
from eleusis_lab.cli import main
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.new_eleusis import (
    NewEleusisConfig,
    NewEleusisDecisions,
    NewEleusisObservation,
    play_new_eleusis,
    replay_new_eleusis,
)
from eleusis_lab.games.solo import SoloConfig, SoloDecisions, play_solo, replay_solo
from eleusis_lab.games.table import GAMES, register_game, unregister_game
from eleusis_lab.spec import load_spec
from eleusis_lab.testing import check_playable_games

BUILT_IN = (
    RandomAgent,
    OracleAgent,
    BayesAgent,
    ContextBayesAgent,
    SklearnAgent,
    DecisionTreeAgent,
    HumanAgent,
)
SOLO_REFUSAL = (
    "cannot play solo: it lacks the capability 'declares'"
    " (mix in eleusis_lab.games.solo.decisions.SoloDecisions)"
)
NEW_ELEUSIS_REFUSAL = (
    "cannot play new-eleusis: it lacks the capability 'plays_strings'"
    " (mix in eleusis_lab.games.new_eleusis.decisions.NewEleusisDecisions)"
)


class Lowest(Agent):
    """The core decisions only."""

    def choose_play(self, obs):
        return min(obs.hand)


class DeclaringLowest(SoloDecisions, Lowest):
    def propose_rule(self):
        return ("red(card)", 0.9)


class StringLowest(NewEleusisDecisions, Lowest):
    pass


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def spec(game, agents, **keys):
    return {"game": game, "games": 1, "dealer": "red(card)", "agents": agents, **keys}


def refusal(spec_data) -> str:
    with pytest.raises(ConfigError) as caught:
        load_spec(spec_data)
    return str(caught.value)


# -- what an agent has, what a game needs ---------------------------------------------------


def test_capabilities_are_what_each_class_of_the_agent_declares():
    assert agent_capabilities(Lowest) == {"plays"}
    assert agent_capabilities(DeclaringLowest()) == {"plays", "declares"}
    assert agent_capabilities(StringLowest()) == {"plays", "plays_strings"}
    for cls in BUILT_IN:  # every built-in agent mixes in both families of decisions
        assert agent_capabilities(cls) == {"plays", "declares", "plays_strings"}, cls


class Text(Lowest):
    capabilities = "plays"  # a string, not a tuple of names


def test_a_capability_declaration_is_a_tuple_of_names():
    with pytest.raises(ConfigError) as caught:
        agent_capabilities(Text())
    assert str(caught.value) == (
        "Text.capabilities is 'plays'; it should be a tuple of names, e.g. ('plays',)"
    )


def test_each_game_needs_the_capabilities_of_its_decisions():
    assert {name: game.needs for name, game in GAMES.items()} == {
        "classic": {"plays"},
        "delphi": {"plays"},
        "four-to-eight": {"plays"},
        "new-eleusis": {"plays", "plays_strings"},
        "secrets": set(),  # its own kind of agent, with no capabilities
        "solo": {"plays", "declares"},
    }
    assert all(
        game.refusal(cls) is None
        for game in GAMES.values()
        for cls in BUILT_IN
        if game.name != "secrets"
    )
    assert GAMES["secrets"].refusal(RandomAgent, "agent 'random'") == (
        "agent 'random' cannot play secrets: it is not a eleusis_lab.secrets.agent.SecretsAgent"
    )


# -- refused in one line, or played ----------------------------------------------------------


def test_an_agent_without_the_solo_decisions_is_refused_everywhere(capsys):
    with pytest.raises(ConfigError) as caught:
        play_solo("red(card)", Lowest(), seed=0)
    assert str(caught.value) == f"seat 0 (Lowest()) {SOLO_REFUSAL}"
    with pytest.raises(ConfigError, match=re.escape(SOLO_REFUSAL)):
        GAMES["solo"].play("red(card)", [Lowest()], 0, SoloConfig())
    lowest = f"{__name__}:Lowest"
    assert refusal(spec("solo", [lowest])) == f"spec: agents[0]: agent '{lowest}' {SOLO_REFUSAL}"
    code, out, err = run(capsys, "play", "--game", "solo", "--agents", lowest, "--seed", "0")
    assert (code, out, err) == (2, "", f"eleusis-lab: agent '{lowest}' {SOLO_REFUSAL}\n")


def test_with_the_solo_decisions_the_same_agent_plays_and_declares(capsys):
    record = play_solo("red(card)", DeclaringLowest(), seed=0)
    assert [(d.turn, d.text, d.correct) for d in record.declarations] == [(1, "red(card)", True)]
    assert record.score == 30 and replay_solo(record) == []
    load_spec(spec("solo", [f"{__name__}:DeclaringLowest"]))
    code, out, _ = run(
        capsys, "play", "--game", "solo", "--agents", f"{__name__}:DeclaringLowest", "--seed", "0"
    )
    assert code == 0 and "solo" in out


def test_an_agent_without_the_new_eleusis_decisions_is_refused_everywhere(capsys):
    with pytest.raises(ConfigError) as caught:
        play_new_eleusis("red(card)", [RandomAgent(), Lowest(), RandomAgent()], seed=0)
    assert str(caught.value) == f"seat 1 (Lowest()) {NEW_ELEUSIS_REFUSAL}"
    lowest = f"{__name__}:Lowest"
    lineup = ["random", lowest, "random"]
    assert refusal(spec("new-eleusis", lineup)) == (
        f"spec: agents[1]: agent '{lowest}' {NEW_ELEUSIS_REFUSAL}"
    )
    agents = ",".join(lineup)
    code, out, err = run(capsys, "play", "--game", "new-eleusis", "--agents", agents)
    assert (code, out, err) == (2, "", f"eleusis-lab: agent '{lowest}' {NEW_ELEUSIS_REFUSAL}\n")
    record = play_new_eleusis("red(card)", [StringLowest() for _ in range(3)], seed=0)
    assert all(len(turn.cards) == 1 for turn in record.turns)  # the default: one card
    assert replay_new_eleusis(record) == []


# -- a capability of a game registered elsewhere -------------------------------------------


class Juggling:
    """A third-party game's decision of its own, with the capability it gives."""

    capabilities = ("juggles",)

    def juggle(self) -> int:
        return 3


class Juggler(RandomAgent):
    """Makes that decision itself, without the mixin, and declares the capability."""

    capabilities = ("juggles",)

    def juggle(self) -> int:
        return 5


@pytest.fixture
def circus():
    """Classic Eleusis under another name, with the decision of `Juggling` to make; the
    agent of each of its games played (a sample game's at seat ``seed % players``) is
    listed."""
    played = []

    def play(rule, agents, seed, config):
        played.append(type(agents[seed % len(agents)]).__name__)  # the sample's agent
        return GAMES["classic"].play(rule, agents, seed, config)

    game = dataclasses.replace(GAMES["classic"], name="circus", mixins=(Juggling,), play=play)
    register_game(game)
    yield GAMES["circus"], played
    unregister_game("circus")


def test_a_game_registered_elsewhere_adds_a_capability(circus, capsys):
    game, played = circus
    assert game.needs == {"plays", "juggles"} and GAMES["classic"].needs == {"plays"}
    expected = f"cannot play circus: it lacks the capability 'juggles' (mix in {__name__}.Juggling)"
    assert game.refusal(RandomAgent(), "agent 'random'") == f"agent 'random' {expected}"
    assert game.refusal(Juggler) is None and game.refusal(type("J", (Juggling, Lowest), {})) is None
    juggler = f"{__name__}:Juggler"
    assert refusal(spec("circus", ["random", juggler])) == (
        f"spec: agents[0]: agent 'random' {expected}"
    )
    load_spec(spec("circus", [juggler, juggler]))
    code, _, err = run(capsys, "play", "--game", "circus", "--agents", "random", "--seed", "1")
    assert (code, err) == (2, f"eleusis-lab: agent 'random' {expected}\n")
    code, out, _ = run(capsys, "play", "--game", "circus", "--agents", juggler, "--seed", "1")
    assert code == 0 and "Juggler" in out
    played.clear()  # that game was played by `play`, not as a sample
    check_playable_games(RandomAgent())
    assert played == []
    check_playable_games(Juggler())
    assert played == ["Juggler"]


# -- what the engines show the agents -------------------------------------------------------


@pytest.mark.parametrize("name", ["classic", "four-to-eight", "delphi", "new-eleusis", "solo"])
def test_new_eleusis_alone_shows_more_than_the_core_observation(name):
    game = GAMES[name]
    config = game.make_config({"max_turns": 20} if "max_turns" in game.options else {})
    agents = [Spy() for _ in range(game.players)]
    game.play("red(card)", agents, 0, config)
    seen = [obs for agent in agents for obs in agent.seen_]
    kind = NewEleusisObservation if name == "new-eleusis" else Observation
    assert seen and all(type(obs) is kind for obs in seen)


def test_new_eleusis_observations_show_the_round():
    agents = [Spy() for _ in range(3)]
    play_new_eleusis("red(card)", agents, seed=0, config=NewEleusisConfig(max_turns=30))
    for obs in (obs for agent in agents for obs in agent.seen_):
        assert len(obs.hand_sizes) == 3 and obs.hand_sizes[obs.seat] == len(obs.hand)
        assert len(obs.side_line) == len(obs.main_line)  # the wrong cards under each card
        played = len(obs.main_line) - 1 + sum(map(len, obs.side_line))  # not the starter
        assert obs.cards_played == played and obs.expelled == ()
        assert obs.prophet is None and obs.marker is None  # nobody proposes a rule
    assert not hasattr(Observation("classic", 0, 1, (), (), (), None), "side_line")
