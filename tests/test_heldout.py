"""Calibration fitted on folds of rules: no rule ever informs the map it is played with."""

import pytest

from eleusis_lab import heldout
from eleusis_lab.rules.rule_file import RuleEntry, rule_folds

RULES = [
    RuleEntry(f"r{i}", text, family)
    for i, (text, family) in enumerate(
        [
            ("red(card)", "one card"),
            ("black(card)", "one card"),
            ("odd(card)", "one card"),
            ("suit(card) == suit(last)", "last card"),
            ("color(card) != color(last)", "last card"),
            ("rank(card) >= rank(last)", "last card"),
        ]
    )
]
AGENT = "bayes(grammar=colours_suits, max_hypotheses=2000)"


@pytest.mark.parametrize("rounds", [1, 2])
def test_each_fold_is_played_with_a_map_fitted_without_it(monkeypatch, rounds):
    fitted_on = []
    fit = heldout.fit_on_games

    def spy(games, column="tentative"):
        fitted_on.append(set(games["rule"]))
        return fit(games, column)

    monkeypatch.setattr(heldout, "fit_on_games", spy)
    result = heldout.calibrate_solo(AGENT, RULES, seeds=[0], k=3, rounds=rounds)
    folds = rule_folds(RULES, 3)
    tests = [{entry.name for entry in test} for _, test in folds]
    # per round: one fit per fold, then the final map on every rule
    per_fold = [fitted_on[i] for i in range(3)]
    if rounds == 2:
        per_fold += [fitted_on[4 + i] for i in range(3)]
    for i, seen in enumerate(per_fold):
        assert seen and not seen & tests[i % 3]
    assert fitted_on[3] == {entry.name for entry in RULES}
    assert sorted(result.heldout["rule"]) == sorted(entry.name for entry in RULES)
    for fold, test in enumerate(tests):
        assert set(result.heldout[result.heldout["fold"] == fold]["rule"]) == test


def test_an_agent_without_calibration_is_refused():
    with pytest.raises(ValueError, match="no calibration parameter"):
        heldout.calibrate_solo("random", RULES, seeds=[0], k=3)
    with pytest.raises(ValueError, match="rounds"):
        heldout.calibrate_solo(AGENT, RULES, seeds=[0], k=3, rounds=3)
