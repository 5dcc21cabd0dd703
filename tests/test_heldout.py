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


def test_each_fold_is_played_with_a_map_fitted_without_it(monkeypatch):
    fitted_on = []
    fit = heldout.fit_on_games

    def spy(games):
        fitted_on.append(set(games["rule"]))
        return fit(games)

    monkeypatch.setattr(heldout, "fit_on_games", spy)
    result = heldout.calibrate_solo(AGENT, RULES, seeds=[0], k=3)
    folds = rule_folds(RULES, 3)
    tests = [{entry.name for entry in test} for _, test in folds]
    for seen, test in zip(fitted_on[:3], tests, strict=True):  # one fit per fold
        assert seen and not seen & test
    assert fitted_on[3] == {entry.name for entry in RULES}  # the map to ship
    assert sorted(result.heldout["rule"]) == sorted(entry.name for entry in RULES)
    for fold, test in enumerate(tests):
        assert set(result.heldout[result.heldout["fold"] == fold]["rule"]) == test
    # calibrated, the agent plays and declares as it did raw; only what it states differs
    raw = result.raw.set_index(["rule", "seed"]).sort_index()
    held = result.heldout.set_index(["rule", "seed"]).sort_index()
    assert raw["score"].tolist() == held["score"].tolist()
    assert raw["declarations"].map(len).tolist() == held["declarations"].map(len).tolist()


def test_an_agent_without_calibration_is_refused():
    with pytest.raises(ValueError, match="no calibration parameter"):
        heldout.calibrate_solo("random", RULES, seeds=[0], k=3)


def test_each_fold_is_played_with_a_prior_fitted_without_its_rules(monkeypatch):
    fitted_on = []
    fit = heldout.fit_prior

    def spy(rules, smoothing, name):
        fitted_on.append({rule.text for rule in rules})
        return fit(rules, smoothing, name)

    monkeypatch.setattr(heldout, "fit_prior", spy)
    result = heldout.heldout_prior(AGENT, RULES, seeds=[0], k=3)
    tests = [{entry.rule.text for entry in test} for _, test in rule_folds(RULES, 3)]
    for seen, test in zip(fitted_on[:3], tests, strict=True):
        assert seen and not seen & test  # neither the corpus nor the catalog leaks them
    assert {entry.rule.text for entry in RULES} <= fitted_on[3]  # the prior to ship
    assert sorted(result.heldout["rule"]) == sorted(result.handset["rule"])
    played = result.heldout.groupby("fold")["rule"].apply(set).tolist()
    assert played == [{entry.name for entry in test} for _, test in rule_folds(RULES, 3)]


def test_leaving_one_family_out_fits_on_the_other_families():
    result = heldout.heldout_prior(AGENT, RULES, seeds=[0], split="families")
    assert set(result.heldout["fold"]) == {"one card", "last card"}
    one_card = result.priors[sorted({e.family for e in RULES}).index("one card")]
    # fitted without red(card), black(card), odd(card): no predicate was seen but the
    # catalog's, so red is no cheaper than in the prior fitted with them
    assert one_card.bits("predicate", "red") >= result.final.bits("predicate", "red")
    with pytest.raises(ValueError, match="split"):
        heldout.heldout_prior(AGENT, RULES, seeds=[0], split="seeds")
