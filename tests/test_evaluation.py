"""Delphi-style prediction accuracy: what it feeds the agent and what it scores."""

import numpy as np
import pytest

from eleusis_agents.simple import OracleAgent, RandomAgent
from eleusis_lab.agent import Agent, LearningAgent
from eleusis_lab.cards import N_FACES, standard_deck
from eleusis_lab.evaluation import accuracy_table, prediction_accuracy, seconds_per_decision
from eleusis_lab.rules import parse

SUIT_CYCLE = parse("suit(card) == (suit(last) + 1) mod 4")


class Recorder(LearningAgent):
    """Remembers what it learns and the contexts it is asked about; answers a constant."""

    def __init__(self, answer: float = 0.5):
        self.answer = answer

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.learned_ = []
        self.asked_ = []

    def learn(self, context, card, right):
        self.learned_.append((context, card, right))

    def predict_faces(self, context):
        self.asked_.append(context)
        return np.full(N_FACES, self.answer)


def delphi_stream(seed):
    """The deal, re-derived: the deck shuffled by a generator on SeedSequence(seed)."""
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    deck = standard_deck()
    return [deck[i] for i in rng.permutation(52)]


def test_the_agent_learns_exactly_the_first_plays_of_the_deal():
    agent = Recorder()
    prediction_accuracy(agent, SUIT_CYCLE, seed=3, train_plays=10, test_plays=5)
    deck = delphi_stream(3)
    assert agent.info_.starter == deck[0] and agent.info_.rule is None
    assert [card for _, card, _ in agent.learned_] == deck[1:11]
    # every verdict is the rule's in the context the agent followed itself
    for context, card, right in agent.learned_:
        assert right == SUIT_CYCLE.accepts(card, context)
    # then it is asked once per test play, in the contexts of the next five cards
    assert len(agent.asked_) == 5
    assert agent.asked_[0].main_line[0] == deck[0]


def test_constant_answers_score_the_share_of_each_verdict():
    # "right" means a probability above 0.5: 0.5 says "wrong" to every card.
    unsure = prediction_accuracy(Recorder(0.5), SUIT_CYCLE, seed=0)
    sure = prediction_accuracy(Recorder(0.9), SUIT_CYCLE, seed=0)
    assert unsure == pytest.approx(0.75) and sure == pytest.approx(0.25)
    # on all 52 faces of each context: a quarter of the faces follow the suit cycle
    assert unsure + sure == pytest.approx(1.0)


def test_next_card_scoring_counts_the_cards_played():
    deck = delphi_stream(4)
    rule = parse("red(card)")
    expected = np.mean([not card.is_red for card in deck[41:52]])
    assert prediction_accuracy(Recorder(0.5), rule, seed=4, score="next") == expected


def test_the_oracle_is_perfect_and_the_agent_need_not_learn():
    rule = parse("if last_play_right then red(card) else black(card)")
    assert prediction_accuracy(OracleAgent(), rule, seed=1) == 1.0
    for score in ("faces", "next"):
        accuracy = prediction_accuracy(RandomAgent(), rule, seed=1, score=score)
        assert 0 <= accuracy <= 1


def test_same_seed_same_score_and_the_agent_is_restarted():
    from eleusis_agents.learners import DecisionTreeAgent

    agent = DecisionTreeAgent()
    first = prediction_accuracy(agent, SUIT_CYCLE, seed=2, train_plays=20)
    prediction_accuracy(agent, parse("red(card)"), seed=9)
    assert prediction_accuracy(agent, SUIT_CYCLE, seed=2, train_plays=20) == first


@pytest.mark.parametrize(
    "options",
    [{"train_plays": 45, "test_plays": 7}, {"test_plays": 0}, {"train_plays": -1}],
)
def test_bad_lengths(options):
    with pytest.raises(ValueError, match="at most 51 plays"):
        prediction_accuracy(Recorder(), SUIT_CYCLE, seed=0, **options)


def test_bad_score():
    with pytest.raises(ValueError, match="score must be one of"):
        prediction_accuracy(Recorder(), SUIT_CYCLE, seed=0, score="cards")


def test_accuracy_table_and_timing():
    table = accuracy_table({"unsure": Recorder(), "oracle": OracleAgent()}, [SUIT_CYCLE], [0, 1])
    assert list(table.columns) == ["agent", "rule", "seed", "accuracy"]
    assert len(table) == 4
    assert table[table.agent == "oracle"].accuracy.tolist() == [1.0, 1.0]
    assert seconds_per_decision(RandomAgent(), [SUIT_CYCLE], [0, 1]) > 0


def test_a_plain_agent_can_be_scored():
    class FirstCard(Agent):
        def choose_play(self, obs):
            return obs.hand[0]

    # The base class answers 0.5 to everything, i.e. "wrong": right for the black half.
    assert prediction_accuracy(FirstCard(), parse("red(card)"), seed=0) == 0.5
