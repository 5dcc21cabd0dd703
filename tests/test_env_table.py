"""The PettingZoo environments of classic Eleusis and its 4-8 player variant: the API and
seed tests of PettingZoo, the deal of the play functions, toolkit agents acting through
the environment as in the engine, and masked random policies to the end."""

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from eleusis_lab.agent import Agent
from eleusis_lab.envs.table import (
    AgentSeats,
    ClassicEnv,
    FourToEightEnv,
    MainLineEnv,
    env,
    play_agents,
    raw_env,
)
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.classic import ClassicConfig, classic_deal, play_classic
from eleusis_lab.games.four_to_eight import four_to_eight_deal
from eleusis_lab.registry import make_agent

RULE = "color(card) != color(last)"


class LowestFace(Agent):
    def choose_play(self, obs):
        return min(obs.hand, key=lambda card: card.face)


GAMES = [("classic", 3), ("classic", 2), ("four-to-eight", 5), ("four-to-eight", 3)]


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_pettingzoo_api_and_seed_tests_pass(game, players):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # advice about Dict spaces, not failures
        api_test(raw_env(RULE, players, game), num_cycles=60)
        api_test(env(RULE, players, game, render_mode="ansi"), num_cycles=20)
        seed_test(lambda: raw_env(RULE, players, game), num_cycles=60)


def _actions_to_the_end(table: MainLineEnv, seed: int) -> list[int]:
    """A random masked policy to the end; the actions taken."""
    rng = np.random.default_rng(seed)
    taken = []
    for agent in table.agent_iter():
        obs, _, terminated, truncated, _ = table.last()
        if terminated or truncated:
            table.step(None)
            continue
        assert table.observation_space(agent).contains(obs)
        faces = np.flatnonzero(obs["action_mask"])
        held = {card.face for card in table.game_state.legal_actions()}
        assert set(faces.tolist()) == held
        taken.append(int(rng.choice(faces)))
        table.step(taken[-1])
    return taken


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_a_random_masked_policy_plays_to_the_end(game, players):
    table = raw_env(RULE, players, game)
    table.reset(seed=4)
    _actions_to_the_end(table, 0)
    state = table.game_state
    assert table.agents == [] and state.is_terminal()
    # The last step scored every agent the game's scores.
    assert state.end in ("player_out", "no_playable_card", "turn_cap")


def test_rewards_are_the_scores_at_the_end_only():
    table = ClassicEnv(RULE, players=3)
    table.reset(seed=2)
    rewards = {agent: [] for agent in table.possible_agents}
    rng = np.random.default_rng(0)
    while table.agents:
        agent = table.agent_selection
        obs, reward, terminated, truncated, _ = table.last()
        rewards[agent].append(reward)
        if terminated or truncated:
            table.step(None)
        else:
            table.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    final = table.game_state.scores()
    for seat, agent in enumerate(table.possible_agents):
        assert rewards[agent][-1] == final[seat] and not any(rewards[agent][:-1])


def test_once_over_every_agent_is_stepped_out_in_seat_order():
    table = ClassicEnv(RULE, players=3, config=ClassicConfig(max_turns=4))
    table.reset(seed=1)
    done = []
    for agent in table.agent_iter():
        obs, reward, terminated, truncated, _ = table.last()
        if terminated or truncated:
            done.append((agent, reward, terminated, truncated))
            table.step(None)
        else:
            table.step(int(np.flatnonzero(obs["action_mask"])[0]))
    scores = table.game_state.scores()
    # the turn cap truncates every agent, each rewarded its score
    assert done == [
        (agent, score, False, True)
        for agent, score in zip(table.possible_agents, scores, strict=True)
    ]
    assert table.final_rewards == scores and table.game_state.end == "turn_cap"


def test_same_seed_same_game_and_the_play_functions_deal():
    one, two = ClassicEnv(RULE, players=4), ClassicEnv(RULE, players=4)
    one.reset(seed=9)
    two.reset(seed=9)
    assert _actions_to_the_end(one, 1) == _actions_to_the_end(two, 1)
    assert one.events == two.events
    starter, hands, unused = classic_deal(9, 4)
    state = ClassicEnv(RULE, players=4)
    state.reset(seed=9)
    assert state.game_state.deal_hands == tuple(map(tuple, hands))
    assert (state.game_state.starter, state.game_state.unused) == (starter, unused)
    variant = FourToEightEnv(RULE, players=6)
    variant.reset(seed=9)
    starter, hands, _ = four_to_eight_deal(9, 6)
    assert variant.game_state.deal_hands == tuple(map(tuple, hands))
    assert variant.game_state.starter == starter


def test_a_face_not_offered_plays_the_first_card_offered():
    table = ClassicEnv(RULE, players=2)
    table.reset(seed=0)
    offered = table.game_state.legal_actions()
    missing = next(face for face in range(52) if face not in {c.face for c in offered})
    table.step(missing)
    assert table.events[0].card == offered[0] and table.events[0].seat == 0


@pytest.mark.parametrize("names", [["random", "random", "random"], ["tree", "bayes", "random"]])
@pytest.mark.parametrize("retry", [False, True])
def test_toolkit_agents_through_the_env_play_the_engines_game(names, retry):
    config = ClassicConfig(hand_size=6, retry_in_turn=retry)
    for seed in (0, 1):
        table = ClassicEnv(RULE, players=3, config=config)
        state = play_agents(table, [make_agent(name) for name in names], seed)
        record = play_classic(RULE, [make_agent(name) for name in names], seed, config)
        assert tuple(table.events) == record.events and record.faults == ()
        assert state.scores() == record.player_scores
        assert (state.end, state.turns, state.main) == (
            record.phase2_end,
            record.phase2_turns,
            record.main_line,
        )


def test_a_toolkit_agent_at_one_seat_beside_another_policy():
    table = ClassicEnv("red(card)", players=2)
    table.reset(seed=3)
    seats = AgentSeats(table, {"player_1": make_agent("oracle")})
    seats.start()
    for agent in table.agent_iter():
        obs, _, terminated, truncated, _ = table.last()
        if terminated or truncated:
            action = None
        elif agent == "player_1":
            action = seats.action(agent)
        else:
            action = int(np.flatnonzero(obs["action_mask"])[0])
        table.step(action)
    # The engine's game, with an agent that plays the lowest face at seat 0 as the policy.
    record = play_classic("red(card)", [LowestFace(), make_agent("oracle")], seed=3)
    assert tuple(table.events) == record.events


def test_bad_settings_are_refused():
    with pytest.raises(ConfigError):
        ClassicEnv(RULE, players=1)
    with pytest.raises(ConfigError):
        FourToEightEnv(RULE, players=4)
    with pytest.raises(ConfigError):
        raw_env(RULE, 3, "delphi")
    with pytest.raises(ValueError, match="2 agents for 3 seats"):
        table = ClassicEnv(RULE, players=3)
        table.reset(seed=0)
        AgentSeats(table, [make_agent("random"), make_agent("random")])
