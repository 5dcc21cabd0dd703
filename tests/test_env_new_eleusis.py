"""The PettingZoo environment of New Eleusis (`eleusis_lab.envs.new_eleusis`): the API
and seeding checks, the deal of `play_new_eleusis`, toolkit agents acting through it, and
a random masked policy playing rounds to the end."""

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from eleusis_lab.cards import N_FACES, Card
from eleusis_lab.envs.new_eleusis import (
    N_ACTIONS,
    NO,
    NO_PLAY,
    PLAY,
    YES,
    NewEleusisEnv,
    action_card,
    card_action,
    play_agents,
)
from eleusis_lab.games.new_eleusis import (
    NewEleusisConfig,
    new_eleusis_deal,
    play_new_eleusis,
)
from eleusis_lab.games.new_eleusis.state import NewEleusisState
from eleusis_lab.registry import make_agent
from tests.test_new_eleusis_state import Chaotic


@pytest.mark.filterwarnings("ignore")  # api_test's advice on dict observations
@pytest.mark.parametrize("players", [3, 6])
def test_api_test_passes(players):
    api_test(NewEleusisEnv("color(card) != color(last)", players=players), num_cycles=300)


def test_seed_test_passes():
    seed_test(lambda: NewEleusisEnv("red(card)", players=4), num_cycles=300)


def test_reset_deals_as_play_new_eleusis():
    env = NewEleusisEnv("red(card)", players=5)
    env.reset(seed=17)
    starter, hands, _ = new_eleusis_deal(17, n_players=5)
    assert env.round.starter == starter and [list(h) for h in env.round.dealt] == hands
    obs = env.observe(env.agent_selection)
    assert obs["hand"].sum() == 14 and obs["main_line"][-1] == starter.face
    assert env.agent_selection == f"player_{env.round.first}"


def random_policy(env, rng):
    """Random masked actions to the end; checks each observation on the way."""
    steps = 0
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        assert env.observation_space(agent).contains(obs)
        if terminated or truncated:
            env.step(None)
            continue
        assert reward == 0
        mask = obs["action_mask"]
        assert mask.any() and (mask == env.action_mask()).all()
        env.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    return steps


def test_the_same_seed_plays_the_same_round():
    rounds = []
    for _ in range(2):
        env = NewEleusisEnv("rank(card) > rank(last)", players=4)
        env.reset(seed=5)
        random_policy(env, np.random.default_rng(0))
        rounds.append(env.round.record_fields())
    assert rounds[0] == rounds[1]
    env.reset(seed=6)
    assert env.round.dealt != rounds[0]["deal"]


def test_a_random_masked_policy_plays_to_the_end():
    config = NewEleusisConfig(max_turns=400)
    turns = []
    for seed in range(6):
        env = NewEleusisEnv("color(card) != color(last)", players=3 + seed % 3, config=config)
        env.reset(seed=seed)
        assert random_policy(env, np.random.default_rng(seed)) > 0
        state = env.round
        assert state.is_terminal() and env.agents == []
        assert env.final_rewards == state.scores()
        turns += state.turns
    # strings, "no play", the Prophet's calls and overthrows all come up
    assert any(len(turn.cards) > 1 for turn in turns) and any(turn.no_play for turn in turns)
    assert any(turn.prophet_call is not None for turn in turns)
    assert any(turn.overthrown for turn in turns)


def test_rewards_and_terminations_at_the_end():
    env = NewEleusisEnv("red(card)", players=3, config=NewEleusisConfig(max_turns=3))
    env.reset(seed=2)
    rng = np.random.default_rng(1)
    while not env.round.is_terminal():
        env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
    # the turn cap truncates; every agent's reward is its score
    assert all(env.truncations.values()) and not any(env.terminations.values())
    scores = dict(zip(env.possible_agents, env.round.scores(), strict=True))
    assert env.rewards == scores and env.last()[1] == scores[env.agent_selection]


def test_a_string_is_built_one_card_at_a_time():
    env = NewEleusisEnv("red(card)", players=3, config=NewEleusisConfig(hand_size=4))
    env.reset(seed=3)  # seat 0 holds JD 5C JS 10S (see tests/test_new_eleusis_state.py)
    hand = list(env.round.hands[0])
    mask = env.action_mask()
    assert sorted(np.flatnonzero(mask)) == sorted([*(c.face for c in hand), NO_PLAY])
    env.step(hand[0].face)  # JD
    obs = env.observe("player_0")
    assert obs["string"].tolist() == [hand[0].face, -1, -1, -1] and obs["hand"].sum() == 3
    assert env.action_mask()[PLAY] and not env.action_mask()[NO_PLAY]
    assert not env.action_mask()[hand[0].face] and env.round.turns == []
    env.step(hand[1].face)  # 5C
    env.step(PLAY)
    turn = env.round.turns[0]
    assert turn.cards == (hand[0], hand[1]) and not turn.right  # 5C is black
    assert [event.card for event in env.events] == [hand[0], hand[1]]
    # seat 0 may now declare himself Prophet: YES or NO
    assert np.flatnonzero(env.action_mask()).tolist() == [NO, YES]
    env.step(YES)
    assert env.round.prophet == 0 and env.observe("player_1")["prophet"] == 1
    env.step(NO_PLAY)  # seat 1: the Prophet sees the declared hand
    obs = env.observe("player_0")
    assert obs["decision"] == 1 and obs["shown"].sum() == 4 and obs["string"][0] == -1


def test_card_actions_pick_one_copy_among_several():
    hand = [Card(5, 2), Card(2, 0), Card(5, 2, copy=1)]
    assert [card_action(card, hand) for card in hand] == [30, 1, N_FACES + 30]
    assert [action_card(a, hand) for a in (30, N_FACES + 30, 2 * N_FACES + 30)] == [
        hand[0],
        hand[2],
        None,
    ]
    with pytest.raises(ValueError):
        card_action(Card(5, 3), hand)
    assert N_ACTIONS == 4 * N_FACES + 4


LINEUPS = {
    "random": lambda n: [make_agent("random") for _ in range(n)],
    "mixed": lambda n: (
        [make_agent("bayes"), make_agent("oracle")] + [make_agent("random") for _ in range(n - 2)]
    ),
    "chaotic": lambda n: [Chaotic() for _ in range(n)],
}


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("lineup", sorted(LINEUPS))
def test_toolkit_agents_through_the_env_play_the_engines_round(seed, lineup):
    n, rule = 3 + seed % 3, ("red(card)", "color(card) != color(last)")[seed % 2]
    config = NewEleusisConfig(max_turns=300)
    record = play_new_eleusis(rule, LINEUPS[lineup](n), seed, config)
    env = NewEleusisEnv(rule, players=n, config=config)
    state = play_agents(env, LINEUPS[lineup](n), seed)
    assert isinstance(state, NewEleusisState)
    for name, value in state.record_fields().items():
        assert getattr(record, name) == value, name
    assert env.final_rewards == record.player_scores
