"""Learnability: plays to identify a rule, checked on scripted games worked out by hand,
its order on a few rules, its cache, and where the measure shows."""

from __future__ import annotations

import json

import numpy as np
import pytest

from eleusis_lab.cards import parse_cards
from eleusis_lab.cli import main
from eleusis_lab.dealers import make_dealer, rule_pool
from eleusis_lab.rules import learnability as module
from eleusis_lab.rules import parse
from eleusis_lab.rules.complexity import get_measure, measure_values
from eleusis_lab.rules.enumerate import build_space
from eleusis_lab.rules.learnability import (
    REFERENCE,
    Learner,
    entry_path,
    learnability,
    plays_needed,
    plays_to_identify,
)
from eleusis_lab.rules.space_cache import CacheWarning
from eleusis_lab.runner import run_experiment

#: A learner small enough to build and play in a moment: the 60 simplest hypotheses of
#: colours and suits (true, false, red(card), red(last), black(card), black(last) ...).
SMALL = Learner(grammar="colours_suits", max_hypotheses=60, games=8, plays=40)


def game(space, rule, cards):
    starter, *played = parse_cards(cards)
    return plays_to_identify(space, parse(rule), starter, played)


@pytest.fixture(scope="module")
def six():
    space = build_space("colours_suits", max_hypotheses=6, cache=False)
    assert [space.text(h) for h in range(6)] == [
        "true",
        "false",
        "red(card)",
        "red(last)",
        "black(card)",
        "black(last)",
    ]
    return space


def test_the_guess_is_the_rule_once_every_simpler_hypothesis_is_refuted(six):
    # black(card) after 2C: 3C right refutes false, red(card) and red(last) (2C is
    # black); 5S right refutes nothing; 6D wrong refutes true, the last simpler one
    assert game(six, "black(card)", "2C 3C 5S 6D") == 3
    assert game(six, "black(card)", "2C 3C 5S") is None  # true is still the guess
    assert game(six, "black(card)", "2C 3H 4S") == 2  # 3H wrong: true, red(card) out
    assert game(six, "true", "2C") == 0  # the first guess


def test_a_guess_that_differs_only_where_the_game_cannot_go_is_the_rule():
    space = build_space("colours_suits", max_hypotheses=30, cache=False)
    rule = "red(card) and red(last)"  # hypothesis 22: every card after a red one is red
    # after 2H, 3H right refutes false, black(card), black(last); 4C wrong refutes true
    # and red(last): the guess, red(card), differs from the rule only after a black card
    assert game(space, rule, "2H 3H 4C") == 2
    # after a black starter nothing is ever right: once 3H wrong refutes true, the
    # guess false is the rule for the rest of the game
    assert game(space, rule, "2C 3H") == 1


def test_a_rule_the_space_does_not_hold_is_never_identified(six):
    assert game(six, "suit(card) == suit(last)", "2C 3C 4H 5H") is None
    beyond = parse("suit(card) == (suit(last) + 1) mod 4")  # not among the 60 simplest
    assert SMALL.space().index_of(beyond) is None
    assert learnability(beyond, SMALL) == SMALL.plays
    assert learnability(parse("color(card) != color(prev)"), SMALL) == SMALL.plays
    assert learnability(parse("true"), SMALL) == 0


def test_rules_of_one_card_are_learnt_sooner_than_rules_of_two():
    one_card = ["red(card)", "odd(card)", "high(card)", "number(card)"]
    two_cards = [
        "suit(card) == suit(last)",
        "rank(card) > rank(last)",
        "suit(card) == (suit(last) + 1) mod 4",
        "abs(rank(card) - rank(last)) <= 3",
    ]
    first, second = (
        [learnability(parse(text)) for text in texts] for texts in (one_card, two_cards)
    )
    assert 0 < np.mean(first) < np.mean(second) < REFERENCE.plays
    assert max(first) < 15 < np.mean(second)


def test_the_same_rule_gets_the_same_plays_whatever_the_run(monkeypatch):
    rule = parse("suit(card) != suit(last)")
    first = plays_needed(rule, SMALL)
    assert first.shape == (SMALL.games,) and ((first >= 0) & (first <= SMALL.plays)).all()
    monkeypatch.setenv("ELEUSIS_LAB_CACHE", "off")
    module._cached_plays.cache_clear()
    np.random.seed(7)  # the global generator plays no part
    assert (plays_needed(rule, SMALL) == first).all()
    other = Learner(grammar="colours_suits", max_hypotheses=60, games=8, plays=40, seed=1)
    assert not (plays_needed(rule, other) == first).all()  # the seed draws the games


def test_the_plays_are_kept_on_disk_and_a_damaged_entry_is_computed_again(tmp_path, monkeypatch):
    monkeypatch.setenv("ELEUSIS_LAB_CACHE", str(tmp_path))
    module._cached_plays.cache_clear()
    rule = parse("color(card) == color(last)")
    computed = plays_needed(rule, SMALL)
    path = entry_path(rule.text, SMALL)
    entry = json.loads(path.read_text())
    assert entry == {"rule": rule.text, "learner": vars(SMALL), "plays": computed.tolist()}

    def refuse(rule, learner):
        raise AssertionError("read from the disk, not computed")

    module._cached_plays.cache_clear()
    with monkeypatch.context() as patched:
        patched.setattr(module, "_compute", refuse)
        assert (plays_needed(rule, SMALL) == computed).all()

    for damage in ("{not json", json.dumps({**entry, "plays": entry["plays"][:-1]})):
        path.write_text(damage)
        module._cached_plays.cache_clear()
        with pytest.warns(CacheWarning, match="learnability cache: .* computing it again"):
            assert (plays_needed(rule, SMALL) == computed).all()
        assert json.loads(path.read_text()) == entry  # whole again
    path.write_text(json.dumps({**entry, "rule": "red(card)"}))
    module._cached_plays.cache_clear()
    with pytest.warns(CacheWarning, match="another rule or learner"):
        plays_needed(rule, SMALL)


def test_bad_settings_are_one_line():
    with pytest.raises(ValueError, match="^Learner.games must be a whole number >= 1, got 0$"):
        Learner(games=0)
    with pytest.raises(ValueError, match="grammar 'verdict' reads last, outcome$"):
        Learner(grammar="verdict")


# -- where the measure shows ------------------------------------------------------------


def test_learnability_is_a_registered_measure_computed_on_demand():
    measure = get_measure("learnability")
    assert measure.column == "rule_learnability" and measure.on_demand
    rule = parse("suit(card) == (suit(last) + 1) mod 4")
    assert measure_values(rule)["learnability"] == learnability(rule)
    assert measure.describe(learnability(rule)) == f"learnt in {learnability(rule):.1f} plays"
    assert measure.describe(500.0) == "not learnt in 500 plays"


def test_rules_show_gives_learnability(capsys):
    assert main(["rules", "show", "suit_cycle"]) == 0
    value = learnability(parse("suit(card) == (suit(last) + 1) mod 4"))
    assert f"5 context classes, learnt in {value:.1f} plays\n" in capsys.readouterr().out


def test_every_row_has_the_learnability_of_its_rule(tmp_path):
    rules = ["suit_cycle", "red_only", "suit_by_position"]
    study = {
        "games": 6,
        "dealer": {"kind": "catalog", "rules": rules},
        "agents": ["random", "oracle"],
    }
    table = run_experiment(study, out=tmp_path, progress=False)
    for text, value in table.groupby("rule")["rule_learnability"].unique().items():
        assert value.tolist() == [learnability(parse(text))]
    assert table["rule_learnability"].max() == 500.0  # suit_by_position reads the length


def test_a_pool_gets_learnability_only_when_asked_or_dealt_by():
    assert "learnability" not in rule_pool(size=100)
    pool = rule_pool(size=100, measures=["bits", "learnability"])
    assert list(pool.columns) == [
        "hypothesis",
        "rule",
        "bits",
        "learnability",
        "fewest_legal",
        "acceptable",
    ]
    assert pool["learnability"].tolist() == [learnability(parse(text)) for text in pool["rule"]]
    dealer = make_dealer(
        {"kind": "band", "measure": "learnability", "low": 5, "high": 10, "size": 100}
    )
    chosen = dealer.choose_rule(np.random.default_rng(0))
    assert chosen.arm == "learnability [5, 10)" and 5 <= learnability(chosen.rule) < 10
    spread = make_dealer({"kind": "spread", "measure": "learnability", "bins": 3, "size": 100})
    assert spread.choose_rule(np.random.default_rng(0)).rule.text in set(pool["rule"])
