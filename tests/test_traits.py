"""Traits: what a game tells its players of itself, so that no agent reads its name.

Each game declares its `GameTraits` (who chose the rule, what a player is scored on) and
its engine hands them to every agent in ``GameInfo.traits``; the Bayesian agents'
``"auto"`` settings follow them.
"""

import numpy as np
import pytest

from eleusis_agents.bayes import BayesAgent
from eleusis_lab.agent import Agent, GameInfo, GameTraits
from eleusis_lab.cards import parse_card
from eleusis_lab.games.new_eleusis import NewEleusisDecisions
from eleusis_lab.games.solo import SoloDecisions
from eleusis_lab.games.table import GAMES


class Spy(SoloDecisions, NewEleusisDecisions, Agent):
    """Keeps the GameInfo and the observations it is given."""

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.seen_ = []

    def choose_play(self, obs):
        self.seen_.append(obs)
        return obs.hand[0]

    def predict(self, obs, cards):
        self.seen_.append(obs)
        return np.full(len(cards), 0.5)


#: Who chose the rule and what a player is scored on, game by game (RULES.md).
TRAITS = {
    "classic": ("dealer", "plays"),
    "four-to-eight": ("dealer", "plays"),
    "delphi": ("dealer", "predictions"),
    "new-eleusis": ("dealer", "plays"),
    "solo": ("benchmark", "finding", "continuations"),
}


@pytest.mark.parametrize("name", TRAITS)
def test_every_engine_tells_its_agents_the_traits_the_game_declares(name):
    game = GAMES[name]
    config = game.make_config({"max_turns": 20} if "max_turns" in game.options else {})
    agents = [Spy() for _ in range(game.players)]
    game.play("red(card)", agents, 0, config)
    expected = GameTraits(*TRAITS[name])
    assert game.traits == expected
    assert all(agent.info_.traits == expected and agent.info_.game == name for agent in agents)


def test_solo_tells_its_agents_how_declarations_are_judged():
    game = GAMES["solo"]
    spy = Spy()
    game.play("red(card)", [spy], 0, game.make_config({"judge": "reachable", "max_turns": 5}))
    assert spy.info_.traits.judge == "reachable"


def test_traits_have_known_values():
    assert GameTraits() == GameTraits("dealer", "plays", None)
    with pytest.raises(ValueError, match="GameTraits.rule_from is 'oracle'; it is one of"):
        GameTraits(rule_from="oracle")


def test_traits_and_not_the_game_name_decide_what_auto_means():
    def started(traits, game="classic"):
        agent = BayesAgent(grammar="colours_suits", max_hypotheses=2000)
        info = GameInfo(game, 0, 1, (), parse_card("7S"), traits=traits)
        agent.start_game(info, np.random.default_rng(0))
        return agent

    benchmark = started(GameTraits(rule_from="benchmark", scored_on="finding"))
    dealer = started(GameTraits(), game="solo")  # the name says solo: not what counts
    assert len(benchmark.space_) > 2000 and len(dealer.space_) == 2000  # the one-card language
    assert benchmark._acceptability() == "solo" and dealer._acceptability() == "dealer"
