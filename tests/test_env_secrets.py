"""Secrets as a PettingZoo AEC environment: the index of every action, the API checks,
seeding as the engine, the Secrets agents acting through it as in the engine, duels'
answers, the turn cap, and whole games played by a random masked policy."""

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from eleusis_lab.cards import standard_deck
from eleusis_lab.envs.secrets import (
    BEATS,
    N_ACTIONS,
    NO_BEAT,
    SKIP,
    SecretsEnv,
    action_index,
    answer_index,
    index_action,
    index_answer,
    play_agents,
)
from eleusis_lab.secrets.agent import make_secrets_agent, parse_secrets_agent_list
from eleusis_lab.secrets.game import SecretsConfig, play_secrets, secrets_deal
from eleusis_lab.secrets.moves import (
    DUEL,
    KILL,
    LEAVE,
    MOVE,
    SUIT_SEATS,
    TAKE,
    SecretsAction,
    parse_action,
)


def test_every_action_and_answer_has_one_index():
    actions = [index_action(i) for i in range(BEATS)]
    assert len(set(actions)) == BEATS and [action_index(a) for a in actions] == list(range(BEATS))
    kinds = [action.kind for action in actions]
    # 32 moves, 32 squares x 52 cards sent, leave, 32 kills, 32 x 4 aces spent,
    # 32 x 4 queens, skip; then 52 beating cards and "no beat".
    assert [kinds.count(kind) for kind in (MOVE, DUEL, LEAVE, KILL, TAKE)] == [
        32,
        1664,
        1,
        160,
        128,
    ]
    assert index_action(SKIP).kind == "skip" and N_ACTIONS == BEATS + 53 == 2039
    deck = standard_deck()
    assert [index_answer(answer_index(card)) for card in deck] == deck
    assert index_answer(NO_BEAT) is None and answer_index(None) == NO_BEAT
    for text in ("a3", "d8/QS", "out", "kill b2", "kill b2 AS", "take c7 QC"):
        assert index_action(action_index(parse_action(text))) == parse_action(text)
    with pytest.raises(ValueError):
        action_index(SecretsAction(MOVE, 40))
    with pytest.raises(ValueError):
        index_action(BEATS)
    with pytest.raises(ValueError):
        index_answer(0)


def test_pettingzoo_api_and_seed_tests_pass():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # advice on observation kinds, not failures
        api_test(SecretsEnv(), num_cycles=300)
        seed_test(SecretsEnv, num_cycles=300)


def test_reset_lays_out_the_engines_board():
    env = SecretsEnv()
    for seed in (0, 7):
        env.reset(seed=seed)
        dealt = secrets_deal(seed)
        assert env.state.board == dealt.board and env.state.hands == dealt.hands
        assert env.state.secrets == dealt.secrets
        obs = env.observe("player_2")
        assert obs["hand"].nonzero()[0].tolist() == sorted(c.face for c in dealt.hands[2])
        assert obs["hidden"].sum() == 8 and obs["known_hands"][0].sum() == 0
        assert env.agent_selection == "player_0" and obs["action_mask"].sum() == 0


def _random_game(env, seed, policy_seed):
    """Play ``env`` from ``seed`` with masked random actions; the agents and masks seen."""
    env.reset(seed=seed)
    for agent in env.possible_agents:
        env.action_space(agent).seed(policy_seed)
    seen = []
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        seen.append((agent, np.flatnonzero(obs["action_mask"]).tolist()))
        env.step(env.action_space(agent).sample(obs["action_mask"]))
    return seen


def test_the_same_seed_gives_the_same_game():
    env = SecretsEnv()
    first = _random_game(env, 4, 0)
    steps = list(env.steps)
    assert _random_game(env, 4, 0) == first and env.steps == steps


@pytest.mark.parametrize(
    "config",
    [SecretsConfig(), SecretsConfig(spend_special=True, queen_takes_own=False)],
)
def test_a_random_masked_policy_plays_to_the_end(config):
    env = SecretsEnv(config)
    space = env.observation_space("player_0")
    for seed in range(3):
        env.reset(seed=seed)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            assert space.contains(obs)
            totals[agent] += reward
            if terminated or truncated:
                env.step(None)
                continue
            mask = obs["action_mask"]
            state = env.state
            if env.duel is None:  # a turn: the mask is the legal actions, nothing else
                assert env.seat_of(agent) == state.seat
                legal = [action_index(action) for action in state.legal_actions()]
                assert np.flatnonzero(mask).tolist() == sorted(legal)
            else:  # an answer: the defender beats with a card of the options or not
                assert env.seat_of(agent) == SUIT_SEATS[env.duel.attacked.suit] != state.seat
                options = [answer_index(card) for card in env.duel.options]
                assert np.flatnonzero(mask).tolist() == sorted([*options, NO_BEAT])
            env.step(env.action_space(agent).sample(mask))
        assert env.agents == [] and env.end in ("no_pieces", "blocked")
        assert tuple(totals.values()) == env.final_rewards == env.state.scores()
        assert sum(env.state.cards().values()) == 52  # every card in exactly one place


def test_a_duel_is_answered_by_its_defender():
    env = SecretsEnv()
    for seed in range(20):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            if env.duel is not None:
                duel, mover = env.duel, env.state.seat
                defender = env.seat_of(agent)
                assert defender != mover and duel.mover == mover
                assert obs["duel"].tolist() == [duel.square, duel.attacked.face, duel.sent.face]
                assert env.observe(f"player_{mover}")["action_mask"].sum() == 0
                hand = list(env.state.hands[defender])
                env.step(answer_index(duel.options[0]))  # beat: both cards to the mover
                step = env.steps[-1]
                assert step.action.kind == DUEL and step.beat == duel.options[0]
                assert duel.options[0] in hand and duel.options[0] not in env.state.hands[defender]
                assert {duel.sent, duel.options[0]} <= set(env.state.hands[mover])
                return
            mask = obs["action_mask"]
            duels = [i for i in np.flatnonzero(mask) if index_action(i).kind == DUEL]
            env.step(duels[0] if duels else int(np.flatnonzero(mask)[0]))
    pytest.fail("no duel was answered in 20 games")


@pytest.mark.parametrize(
    "line_up, seed, config",
    [
        ("secrets-heuristic,secrets-random,secrets-heuristic,secrets-random", 7, SecretsConfig()),
        # forced skips and a take
        ("secrets-random,secrets-heuristic,secrets-random,secrets-random", 2, SecretsConfig()),
        (
            "secrets-heuristic,secrets-heuristic,secrets-random,secrets-heuristic",
            3,  # an ace spent to kill, duels beaten
            SecretsConfig(spend_special=True, queen_takes_own=False),
        ),
    ],
)
def test_secrets_agents_through_the_env_make_the_engines_record(line_up, seed, config):
    record = play_secrets(parse_secrets_agent_list(line_up), seed, config)
    env = SecretsEnv(config)
    state = play_agents(env, parse_secrets_agent_list(line_up), seed)
    assert tuple(env.steps) == record.steps and env.end == record.end
    assert env.final_rewards == record.scores
    assert tuple(map(tuple, state.hands)) == record.hands and tuple(state.out) == record.out


def test_a_search_agent_through_the_env_makes_the_engines_record():
    def line_up():
        return [make_secrets_agent("secrets-search", budget=2, horizon=4)] + [
            make_secrets_agent("secrets-heuristic") for _ in range(3)
        ]

    record = play_secrets(line_up(), 3)
    env = SecretsEnv()
    play_agents(env, line_up(), 3)
    assert tuple(env.steps) == record.steps and env.final_rewards == record.scores


def test_the_turn_cap_truncates_with_the_scores():
    config = SecretsConfig(max_turns=6)
    record = play_secrets(parse_secrets_agent_list(",".join(["secrets-random"] * 4)), 1, config)
    env = SecretsEnv(config)
    play_agents(env, parse_secrets_agent_list(",".join(["secrets-random"] * 4)), 1)
    assert record.end == env.end == "turn_cap" and len(env.steps) == 6
    assert tuple(env.steps) == record.steps and env.final_rewards == record.scores


def test_an_action_not_allowed_is_refused():
    env = SecretsEnv()
    env.reset(seed=7)
    mask = env.observe("player_0")["action_mask"]
    for bad in (int(np.flatnonzero(mask == 0)[0]), N_ACTIONS, -1, NO_BEAT):
        with pytest.raises(ValueError, match="not allowed now"):
            env.step(bad)
    assert env.state.turn == 0 and env.steps == []
