"""The random and oracle agents: legal plays, determinism, the oracle's advantage."""

import numpy as np
import pytest
from watching import Watch

from eleusis_agents.simple import OracleAgent, RandomAgent
from eleusis_lab.agent import GameInfo, Observation, clone
from eleusis_lab.cards import parse_cards
from eleusis_lab.games.classic import ClassicConfig, play_classic
from eleusis_lab.rules import Context, parse

RULES = [
    parse(text)
    for text in (
        "color(card) != color(last)",
        "suit(card) == (suit(last) + 1) mod 4",
        "if last_play_right then red(card) else black(card)",
        "rank(card) != rank(last) and suit(card) != suit(prev)",
    )
]


class WatchedRandom(Watch, RandomAgent):
    pass


class WatchedOracle(Watch, OracleAgent):
    pass


def test_sklearn_contract():
    assert vars(RandomAgent()) == {}
    assert vars(OracleAgent()) == {"choice": "random"}
    assert clone(OracleAgent(choice="first")).get_params() == {"choice": "first"}
    agent = OracleAgent()
    play_classic(RULES[0], [agent, RandomAgent()], 0)
    learned = set(vars(agent)) - {"choice"}
    assert learned and all(name.endswith("_") for name in learned)


def test_random_plays_only_cards_it_holds():
    for seed in range(20):
        agents = [WatchedRandom() for _ in range(3)]
        play_classic(RULES[seed % 4], agents, seed, ClassicConfig(retry_in_turn=seed % 2 == 0))
        for agent in agents:
            assert agent.choices_ and all(card in obs.hand for obs, card in agent.choices_)


def test_random_is_uniform_over_its_cards():
    hand = tuple(parse_cards("AC 2D 3H 4S"))
    agent = RandomAgent()
    agent.start_game(GameInfo("classic", 0, 2, hand, hand[0]), np.random.default_rng(0))
    obs = Observation("classic", 0, 1, hand, (hand[0],), ((), ()), None)
    counts = {card: 0 for card in hand}
    for _ in range(4000):
        counts[agent.choose_play(obs)] += 1
    assert all(900 < count < 1100 for count in counts.values())


def test_same_seed_same_plays():
    def plays(seed):
        agents = [WatchedRandom(), WatchedOracle(), WatchedRandom()]
        play_classic(RULES[1], agents, seed)
        return [[card for _, card in agent.choices_] for agent in agents]

    assert plays(4) == plays(4)
    assert plays(4) != plays(5)


@pytest.mark.parametrize("choice", ["random", "first"])
def test_oracle_plays_a_right_card_whenever_it_holds_one(choice):
    for seed in range(30):
        rule = RULES[seed % 4]
        oracle = WatchedOracle(choice=choice)
        agents = [RandomAgent(), oracle, RandomAgent()]
        config = ClassicConfig(retry_in_turn=seed % 3 == 0)
        record = play_classic(rule, agents, seed, config)
        assert len(oracle.choices_) == sum(e.seat == 1 for e in record.events)
        for obs, card in oracle.choices_:
            context = Context(obs.main_line, obs.last_play_right)
            if any(rule.accepts(c, context) for c in obs.hand):
                assert rule.accepts(card, context)


def test_oracle_first_choice_is_the_first_right_card():
    hand = tuple(parse_cards("3H 7S KD 2C"))
    agent = OracleAgent(choice="first")
    info = GameInfo("classic", 0, 2, hand, hand[0], rule=parse("black(card)"))
    agent.start_game(info, np.random.default_rng(0))
    obs = Observation("classic", 0, 1, hand, (hand[0],), ((), ()), None)
    assert str(agent.choose_play(obs)) == "7S"
    assert agent.predict(obs, list(hand)).tolist() == [0.0, 1.0, 0.0, 1.0]


def test_oracle_on_every_seat_makes_fewer_wrong_cards_than_random():
    oracle_wrong, random_wrong = [], []
    for seed in range(40):
        rule = RULES[seed % 4]
        oracle = play_classic(rule, [OracleAgent() for _ in range(4)], seed)
        lucky = play_classic(rule, [RandomAgent() for _ in range(4)], seed)
        oracle_wrong.append(sum(map(len, oracle.wrong_after_phase1)))
        random_wrong.append(sum(map(len, lucky.wrong_after_phase1)))
    assert np.mean(oracle_wrong) <= np.mean(random_wrong)
    assert max(oracle_wrong) <= np.mean(random_wrong)


def test_oracle_needs_the_rule_and_a_valid_choice():
    hand = tuple(parse_cards("3H 7S"))
    with pytest.raises(ValueError, match="not told the rule"):
        OracleAgent().start_game(GameInfo("classic", 0, 2, hand, hand[0]), np.random.default_rng())
    info = GameInfo("classic", 0, 2, hand, hand[0], rule=RULES[0])
    with pytest.raises(ValueError, match="'random' or 'first'"):
        OracleAgent(choice="best").start_game(info, np.random.default_rng())
