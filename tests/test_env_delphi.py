"""Delphi as a PettingZoo AEC environment: the API checks, seeding as the engine, the
toolkit's agents acting through it as in the engine, and a whole game played."""

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from eleusis_agents.simple import RandomAgent
from eleusis_lab.envs.delphi import DelphiEnv, play_agents
from eleusis_lab.games.delphi import play_delphi
from eleusis_lab.games.delphi.state import delphi_deal
from eleusis_lab.registry import make_agent

RULE = "if last_play_right then red(card) else black(card)"


def test_pettingzoo_api_and_seed_tests_pass():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # advice on observation kinds, not failures
        api_test(DelphiEnv(RULE, players=3), num_cycles=200)
        seed_test(lambda: DelphiEnv(RULE, players=3), num_cycles=200)


def test_reset_deals_as_the_engine_and_the_same_seed_gives_the_same_game():
    env = DelphiEnv(RULE, players=2)
    for seed in (0, 7):
        env.reset(seed=seed)
        starter, cards = delphi_deal(seed)
        obs = env.observe("player_0")
        assert obs["card"] == cards[0].face and obs["main_line"][-1] == starter.face
        assert (obs["main_line"][:-1] == -1).all() and obs["hand"].sum() == 0
    games = []
    for _ in range(2):
        env.reset(seed=3)
        rng = np.random.default_rng(0)
        seen = []
        for agent in env.agent_iter():
            obs, _, terminated, _, _ = env.last()
            seen.append((agent, int(obs["card"]), obs["main_line"].tolist()))
            env.step(None if terminated else rng.random(1))
        games.append(seen)
    assert games[0] == games[1]


@pytest.mark.parametrize(
    "names, rule, seed",
    [
        (["oracle", "random"], "red(card)", 4),
        (["bayes", "tree", "random"], RULE, 1),
        (["tree", "bayes"], "color(card) != color(last)", 6),
    ],
)
def test_toolkit_agents_through_the_env_make_the_engines_record(names, rule, seed):
    record = play_delphi(rule, [make_agent(name) for name in names], seed)
    env = DelphiEnv(rule, players=len(names))
    state = play_agents(env, [make_agent(name) for name in names], seed)
    assert tuple(state.probabilities) == record.probabilities
    assert tuple(state.events) == record.events
    assert (state.main_line, state.side_column) == (record.main_line, record.side_column)
    assert tuple(state.chips()) == record.chips
    assert env.final_rewards == tuple(float(score) for score in record.player_scores)
    assert state.settlement()[1] == record.oracle_score


def test_a_random_policy_plays_to_the_end():
    env = DelphiEnv("red(card)", players=3)
    env.reset(seed=2)
    for agent in env.possible_agents:
        env.action_space(agent).seed(1)
    space = env.observation_space("player_0")
    totals = dict.fromkeys(env.possible_agents, 0.0)
    order = []
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        assert space.contains(obs) and obs["seat"] == env.seat_of(agent)
        totals[agent] += reward
        if terminated or truncated:
            assert not truncated and obs["card"] == -1
            env.step(None)
            continue
        order.append(env.seat_of(agent))
        env.step(env.action_space(agent).sample())
    # Each card: seats 0, 1, 2 in turn; 51 cards; then every agent is done.
    assert order == [0, 1, 2] * 51 and env.agents == []
    assert tuple(totals.values()) == env.final_rewards == env.state.scores()
    assert sum(totals.values()) == 0
    chips = env.state.chips()
    assert max(chips) <= 51 and len(env.state.side_column) + len(env.state.main_line) == 52


def test_no_seat_sees_another_seats_prediction_of_the_card():
    seen = []
    for first in (0.0, 1.0):
        env = DelphiEnv("red(card)", players=2)
        env.reset(seed=5)
        env.step(np.array([first]))
        seen.append(env.observe("player_1"))
    assert all(np.array_equal(seen[0][key], seen[1][key]) for key in seen[0])


def test_an_action_that_is_not_a_probability_is_refused():
    env = DelphiEnv("red(card)", players=2)
    env.reset(seed=0)
    for bad in (np.array([1.5]), np.array([np.nan]), np.array([0.2, 0.3]), "x"):
        with pytest.raises(ValueError, match="one probability in"):
            env.step(bad)
    assert env.agent_selection == "player_0" and env.state.to_move() == 0
    env.step(0.0)
    assert env.agent_selection == "player_1"
    assert env.observe("player_0")["chips"].tolist() == [0, 0]


def test_chips_are_observed_as_the_tokens_win_them():
    env = DelphiEnv("red(card)", players=2)
    env.reset(seed=0)
    card = env.state.card
    right = card.is_red
    env.step(np.array([1.0 if right else 0.0]))  # player_0 is correct
    env.step(np.array([0.0 if right else 1.0]))  # player_1 is not
    assert env.observe("player_1")["chips"].tolist() == [1, 0]
    assert env.events[0].right is right and env.events[0].card == card


class Listening(RandomAgent):
    """A random agent that keeps every event it is told."""

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.heard = []

    def observe(self, event):
        super().observe(event)
        self.heard.append(event)


def test_the_agents_are_told_each_verdict_once():
    agents = [Listening(), Listening()]
    state = play_agents(DelphiEnv("red(card)", players=2), agents, seed=3)
    assert len(state.events) == 51
    assert all(agent.heard == state.events for agent in agents)
