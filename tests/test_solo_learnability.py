"""Learnability under the solo protocol (``solo_turns``): the turn on which the reference
learner finds a rule, its order on two rules, that it is what the solo games record, and
that it is computed only when asked."""

from __future__ import annotations

import pytest

from eleusis_agents.bayes_context import ContextBayesAgent
from eleusis_lab.cli import main
from eleusis_lab.games.solo import MAX_TURNS, SoloConfig, play_solo
from eleusis_lab.rules import parse
from eleusis_lab.rules import solo_learnability as module
from eleusis_lab.rules.complexity import (
    get_measure,
    measure_names,
    measures,
    register_measure,
    unregister_measure,
)
from eleusis_lab.rules.solo_learnability import NOT_FOUND, SOLO_TURNS, found_turns, solo_turns

EASY = "red(card)"
HARD = "if length mod 3 == 0 then rank(card) > rank(last) else suit(card) == suit(last)"


def recorded_turns(text, seeds):
    """The found turns of the solo games played directly, 31 where not found."""
    turns = []
    for seed in range(seeds):
        record = play_solo(text, ContextBayesAgent(), seed, SoloConfig())
        turns.append(MAX_TURNS + 1 if record.found_turn is None else record.found_turn)
    return turns


def test_a_game_never_won_counts_one_past_the_last_turn():
    assert NOT_FOUND == MAX_TURNS + 1 == SoloConfig().max_turns + 1
    assert found_turns(parse("false"), seeds=2) == (NOT_FOUND, NOT_FOUND)  # no starter


def test_a_rule_of_one_card_is_found_sooner_than_a_hard_rule():
    easy, hard = solo_turns(parse(EASY), seeds=1), solo_turns(parse(HARD), seeds=1)
    assert 1 <= easy < hard <= NOT_FOUND


@pytest.mark.parametrize(("text", "seeds"), [(EASY, 2), (HARD, 1)], ids=["easy", "hard"])
def test_the_value_is_the_mean_of_the_solo_records(text, seeds):
    recorded = recorded_turns(text, seeds)
    assert list(found_turns(parse(text), seeds)) == recorded
    assert solo_turns(parse(text), seeds) == pytest.approx(sum(recorded) / seeds)


def test_the_same_rule_gets_the_same_value():
    first = solo_turns(parse(EASY), seeds=1)
    module._found_turn.cache_clear()  # played again, not read from the cache
    assert solo_turns(parse(" red( card ) "), seeds=1) == first
    assert SOLO_TURNS(parse(EASY)) == solo_turns(parse(EASY))  # seeds 0, 1, 2


def test_bad_seeds_are_refused():
    for seeds in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="seeds must be"):
            solo_turns(parse(EASY), seeds=seeds)


def test_it_is_computed_only_when_asked():
    assert SOLO_TURNS.on_demand and SOLO_TURNS.dtype == "float64"
    assert "solo_turns" not in measure_names()  # not built in: no run computes it
    assert SOLO_TURNS not in measures(on_demand=False)


@pytest.fixture
def registered():
    measure = register_measure(SOLO_TURNS)
    yield measure
    unregister_measure("solo_turns")


def test_once_registered_it_is_a_measure_on_the_command_line(registered, capsys):
    assert get_measure("rule_solo_turns") is SOLO_TURNS
    assert main(["list", "measures"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.split(None, 1) == [
        "solo_turns",
        "turn the reference learner finds the rule in solo games (turns), a number"
        " (column rule_solo_turns), computed on demand",
    ]
    assert SOLO_TURNS.describe(NOT_FOUND) == "not found by bayes-context in 30 solo turns"
    assert SOLO_TURNS.describe(6.0) == "found by bayes-context on solo turn 6.0"
