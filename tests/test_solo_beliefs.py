"""A solo player's beliefs, turn by turn: the table matches the game, and asking does
not change the game."""

import math
import re

import pandas as pd
import pytest
from test_solo import Scripted

from eleusis_agents.bayes_context import ContextBayesAgent
from eleusis_agents.simple import RandomAgent
from eleusis_lab.errors import AgentError
from eleusis_lab.games.solo import play_solo
from eleusis_lab.games.solo.beliefs import BELIEF_COLUMNS, format_beliefs, solo_beliefs


class Believer(Scripted):
    """`Scripted`, and after each turn it believes ``beliefs[turn]``."""

    def __init__(self, script=None, beliefs=None):
        super().__init__(script)
        self.beliefs = beliefs

    def propose_rule(self):
        return self.beliefs.get(self.turn_)


def test_each_row_is_a_turn_of_the_game_with_what_the_agent_believed():
    beliefs = {1: ("black(card)", 0.5), 2: ("red(card)", 0.25), 3: ("red(card)", 0.75)}
    script = {2: "black(card)", 3: "if true then red(card) else black(card)"}
    record, table = solo_beliefs("red(card)", Believer(script, beliefs), seed=3)

    assert tuple(table.columns) == BELIEF_COLUMNS
    assert table["turn"].tolist() == [1, 2, 3]  # the game ended on the correct declaration
    assert table["card"].tolist() == [str(event.card) for event in record.events]
    assert table["right"].tolist() == [event.right for event in record.events]
    assert table["belief"].tolist() == ["black(card)", "red(card)", "red(card)"]
    assert table["probability"].tolist() == [0.5, 0.25, 0.75]
    assert table["belief_correct"].tolist() == [False, True, True]  # judged: same behaviour
    assert pd.isna(table["declared"][0])
    assert table["declared"][1:].tolist() == [script[2], script[3]]
    assert table["correct"].tolist() == [None, False, True]
    assert record.found_turn == 3 and record.wrong_declarations == 1


def test_an_agent_that_proposes_nothing_has_missing_beliefs():
    record, table = solo_beliefs("red(card)", RandomAgent(), seed=0)
    assert len(table) == record.turns == 30
    assert table["belief"].isna().all() and table["probability"].isna().all()
    assert set(format_beliefs(table).splitlines()[1].split()[-2:]) == {"(no", "proposal)"}


@pytest.mark.parametrize(
    ("proposal", "message"),
    [
        (("red(card)",), "returned ('red(card)',), not (rule text, probability) or None"),
        ((1, 0.5), "returned (1, 0.5), not (rule text, probability)"),
        (ZeroDivisionError("boom"), "raised in propose_rule: ZeroDivisionError: boom"),
    ],
)
def test_a_proposal_that_is_not_one_is_a_clear_error(proposal, message):
    class Bad(Scripted):
        def propose_rule(self):
            if isinstance(proposal, Exception):
                raise proposal
            return proposal

    with pytest.raises(AgentError, match=re.escape(message)):
        solo_beliefs("red(card)", Bad(), seed=0)


def test_asking_does_not_change_the_game():
    agent = ContextBayesAgent(grammar="colours_suits", max_hypotheses=2000)
    rule = "if odd(length) then red(card) else black(card)"
    record, table = solo_beliefs(rule, agent, seed=1)
    alone = play_solo(rule, ContextBayesAgent(grammar="colours_suits", max_hypotheses=2000), 1)
    assert record.to_dict() == alone.to_dict()
    assert record.success and len(table) == record.found_turn
    assert table["probability"].between(0, 1).all()
    last = table.iloc[-1]
    assert last["belief"] == last["declared"] and last["belief_correct"] and last["correct"]
    assert not math.isnan(table["probability"].iloc[0])


def test_the_plot_marks_the_turns_the_secret_rule_led_and_the_declarations():
    import matplotlib.pyplot as plt

    from eleusis_lab.plots import plot_beliefs

    beliefs = {1: ("black(card)", 0.5), 2: ("red(card)", 0.25), 3: ("red(card)", 0.75)}
    script = {2: "black(card)", 3: "red(card)"}
    _, table = solo_beliefs("red(card)", Believer(script, beliefs), seed=3)
    ax = plot_beliefs(table)
    line, led, correct, wrong = ax.lines
    assert list(line.get_ydata()) == [0.5, 0.25, 0.75]
    assert list(led.get_xdata()) == [2, 3]  # red(card) led after turns 2 and 3
    assert (list(correct.get_xdata()), list(wrong.get_xdata())) == ([3], [2])
    plt.close("all")


def test_the_benchmark_tells_when_the_secret_rule_first_led():
    from eleusis_lab.bench import solo_games, summarize_solo

    beliefs = {1: ("black(card)", 0.5), 2: ("red(card)", 0.25), 3: ("red(card)", 0.75)}
    believer = Believer({3: "red(card)"}, beliefs)
    games = solo_games([believer, "oracle", "random"], ["red(card)"], seeds=[3], beliefs=True)
    assert games["led_turn"].tolist()[:2] == [2.0, 1.0]  # turn 2's guess; the oracle's
    assert math.isnan(games["led_turn"].iloc[2])  # random proposes nothing
    table = summarize_solo(games).reset_index()
    assert table["led"].tolist() == [1.0, 1.0, 0.0]
    assert table["mean_led_turn"].tolist()[:2] == [2.0, 1.0]
    assert "led_turn" not in solo_games(["oracle"], ["red(card)"], seeds=[3])


def test_a_lower_declare_confidence_declares_from_it():
    """The module docstring's game with the hand-set prior: the secret rule leads at 0.60
    after turn 6 and, at 0.74 after turn 7, is declared with turn 8's card; from 0.4,
    with turn 7's."""
    from eleusis_agents.bayes import BayesAgent

    rule = "suit(card) == suit(last)"
    small = {
        "grammar": "colours_suits",
        "max_hypotheses": 2000,
        "productions": "hand-set",
        "declaring": "threshold",
    }
    record, table = solo_beliefs(rule, BayesAgent(**small), seed=1)
    assert table["probability"][5] == pytest.approx(0.60, abs=0.005)
    assert record.found_turn == 8
    eager, _ = solo_beliefs(rule, BayesAgent(**small, declare_confidence=0.4), seed=1)
    assert eager.found_turn == 7
