"""Held out: a solo learner's confidence calibrated, and its prior fitted, on rules it has
not seen.

A Bayesian agent's posterior probability is not the probability that its best guess is
the secret rule: the rule may lie outside its language, or the prior may be off. Fitted
on games, a `eleusis_lab.calibration.CalibrationMap` turns the one into the other; but a
map measured on the rules it was fitted to measures nothing. `calibrate_solo` therefore
plays every rule once with the agent as it is (its declarations, made at the raw
posterior, are the data), then, fold by fold (k-fold by rule, stratified by family:
`eleusis_lab.rules.rule_file.rule_folds`), fits a map on the other folds' rules only and
plays the held-out rules with it. The calibrated agent declares when the raw one does
(the map changes only what it states), so the map is fitted on the very selection of
statements it is judged on. The held-out games give the figures; the map fitted on
every rule is the one to ship (``eleusis-lab bench calibrate ... --write``).

Example
-------
>>> from eleusis_lab.rules.rule_file import RuleEntry
>>> rules = [RuleEntry(f"r{i}", text, family) for i, (text, family) in enumerate([
...     ("red(card)", "one card"), ("black(card)", "one card"), ("odd(card)", "one card"),
...     ("suit(card) == suit(last)", "last card"), ("color(card) != color(last)", "last card"),
...     ("rank(card) >= rank(last)", "last card")])]
>>> agent = "bayes(grammar=colours_suits, max_hypotheses=2000)"
>>> result = calibrate_solo(agent, rules, seeds=[0], k=3)
>>> len(result.raw), len(result.heldout), len(result.maps)
(6, 6, 3)
>>> sorted(result.heldout["fold"].unique().tolist())
[0, 1, 2]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from eleusis_lab.bench import solo_declarations, solo_games
from eleusis_lab.calibration import CalibrationMap, fit_calibration
from eleusis_lab.registry import make_agent
from eleusis_lab.rules.catalog import catalog
from eleusis_lab.rules.prior import UNIFORM, ProductionPrior, fit_prior
from eleusis_lab.rules.rule_file import RuleEntry, family_folds, rule_folds

__all__ = [
    "HeldOutCalibration",
    "HeldOutPrior",
    "calibrate_solo",
    "crossfit_calibration",
    "fit_on_games",
    "fit_people_prior",
    "heldout_prior",
]


@dataclass
class HeldOutCalibration:
    """What `calibrate_solo` measured.

    ``raw``: the `eleusis_lab.bench.solo_games` table of the agent uncalibrated, every
    rule; ``heldout``: every rule played with the map fitted without its fold (column
    ``fold``); ``maps``: the map of each fold; ``final``: the map to ship, fitted on
    every rule.
    """

    raw: pd.DataFrame
    heldout: pd.DataFrame
    maps: list[CalibrationMap]
    final: CalibrationMap


def fit_on_games(games: pd.DataFrame) -> CalibrationMap:
    """Fit a map on the declarations of `solo_games` rows that stated a confidence."""
    stated = solo_declarations(games).dropna(subset=["confidence"])
    if not len(stated):
        raise ValueError("these games declared no confidence to fit a calibration map to")
    return fit_calibration(stated["confidence"], stated["correct"])


def calibrate_solo(
    agent: str,
    rules: Sequence[RuleEntry],
    seeds: Sequence[int] = (0, 1),
    k: int = 5,
    fold_seed: int = 0,
    progress: bool = False,
    config=None,
) -> HeldOutCalibration:
    """Fit the calibration of ``agent`` on folds of ``rules`` and play each held-out fold.

    Parameters
    ----------
    agent : str
        An agent spec (``bayes``, ``bayes-context(max_hypotheses=20000)`` ...) whose
        agent has a ``calibration`` parameter; it is set to None for the raw games and
        to each fold's map for the held-out ones.
    rules : sequence of RuleEntry
        The rules (`eleusis_lab.rules.rule_file.load_rule_file`), with their families.
    seeds : sequence of int
        The game seeds of every rule.
    k, fold_seed : int
        The folds (`eleusis_lab.rules.rule_file.rule_folds`).
    progress : bool
        Progress bars over the games.
    config : SoloConfig, optional
        The game's options (the published protocol by default).
    """
    base = make_agent(agent)
    if "calibration" not in base.get_params():
        raise ValueError(f"{agent} has no calibration parameter to fit")
    raw = solo_games([base.set_params(calibration=None)], rules, seeds, progress, config)
    raw["agent"] = agent
    maps, played = [], []
    for fold, (train, test) in enumerate(rule_folds(rules, k, fold_seed)):
        fitted = fit_on_games(raw[raw["rule"].isin({entry.name for entry in train})])
        player = make_agent(agent).set_params(calibration=fitted)
        games = solo_games([player], test, seeds, progress, config)
        maps.append(fitted)
        played.append(games.assign(agent=f"{agent}, held out", fold=fold))
    heldout = pd.concat(played, ignore_index=True)
    return HeldOutCalibration(raw, heldout, maps, fit_on_games(raw))


# -- a production prior fitted on folds ----------------------------------------------------


@dataclass
class HeldOutPrior:
    """What `heldout_prior` measured.

    ``handset``: the `eleusis_lab.bench.solo_games` table of the agent with the hand-set
    prior (``productions=UNIFORM``), every rule; ``heldout``: every rule played with the
    prior fitted without it (column ``fold``: the fold, or the family left out);
    ``priors``: the prior of each fold; ``final``: the prior to ship, fitted on the
    catalog and every rule.
    """

    handset: pd.DataFrame
    heldout: pd.DataFrame
    priors: list[ProductionPrior]
    final: ProductionPrior


def fit_people_prior(
    rules: Sequence[RuleEntry],
    smoothing: float = 1.0,
    name: str = "people",
    leave_out: Sequence[RuleEntry] = (),
) -> ProductionPrior:
    """The production prior of ``rules`` and the catalog's rules, but for those written as
    one of ``rules`` (counted once) or of ``leave_out`` (a held-out rule is never fitted
    through the catalog).

    >>> from eleusis_lab.rules.rule_file import people_rules
    >>> prior = fit_people_prior(people_rules())
    >>> prior.bits("card", "card") < prior.bits("card", "last") < prior.bits("card", "prev")
    True
    """
    return fit_prior(_with_catalog(rules, leave_out), smoothing, name)


def _with_catalog(rules: Sequence[RuleEntry], leave_out: Sequence[RuleEntry] = ()) -> list:
    kept = [entry.rule for entry in rules]
    unseen = {entry.rule.text for entry in (*rules, *leave_out)}
    return kept + [entry.rule for entry in catalog() if entry.rule.text not in unseen]


def heldout_prior(
    agent: str,
    rules: Sequence[RuleEntry],
    seeds: Sequence[int] = (0, 1),
    k: int = 5,
    split: str = "rules",
    fold_seed: int = 0,
    smoothing: float = 1.0,
    progress: bool = False,
    config=None,
) -> HeldOutPrior:
    """Fit a production prior on folds of ``rules`` and play each held-out fold with it.

    Every fold's prior is fitted on the catalog and the other folds' rules, never on a
    rule of its test fold (`fit_people_prior`). ``split``: ``"rules"`` for k-fold by
    rule stratified by family (`eleusis_lab.rules.rule_file.rule_folds`), ``"families"``
    to leave one family out (`eleusis_lab.rules.rule_file.family_folds`). The agent
    (a spec with a ``productions`` parameter) plays every rule with the hand-set prior
    too, on the same seeds, for the comparison.

    >>> from eleusis_lab.rules.rule_file import RuleEntry
    >>> rules = [RuleEntry(f"r{i}", text, family) for i, (text, family) in enumerate([
    ...     ("red(card)", "one card"), ("black(card)", "one card"),
    ...     ("suit(card) == suit(last)", "last card"),
    ...     ("color(card) != color(last)", "last card")])]
    >>> agent = "bayes(grammar=colours_suits, max_hypotheses=1000)"
    >>> result = heldout_prior(agent, rules, seeds=[0], k=2)
    >>> len(result.handset), len(result.heldout), len(result.priors)
    (4, 4, 2)
    """
    if "productions" not in make_agent(agent).get_params():
        raise ValueError(f"{agent} has no productions parameter to fit")
    if split not in ("rules", "families"):
        raise ValueError(f"split must be 'rules' or 'families', got {split!r}")
    handset_player = make_agent(agent).set_params(productions=UNIFORM)
    handset = solo_games([handset_player], rules, seeds, progress, config).assign(agent=agent)
    if split == "rules":
        folds = list(enumerate(rule_folds(rules, k, fold_seed)))
    else:
        folds = [(family, (train, test)) for family, train, test in family_folds(rules)]
    priors, played = [], []
    for fold, (train, test) in folds:
        prior = fit_people_prior(train, smoothing, f"fold {fold}", leave_out=test)
        player = make_agent(agent).set_params(productions=prior)
        games = solo_games([player], test, seeds, progress, config)
        priors.append(prior)
        played.append(games.assign(agent=f"{agent}, fitted prior", fold=fold))
    heldout = pd.concat(played, ignore_index=True)
    return HeldOutPrior(handset, heldout, priors, fit_people_prior(rules, smoothing))


def crossfit_calibration(
    games: pd.DataFrame, rules: Sequence[RuleEntry], k: int = 5, fold_seed: int = 0
) -> tuple[CalibrationMap, pd.DataFrame]:
    """A calibration map for games whose confidences were stated raw, and its figures
    on rules it was not fitted to.

    The map changes only what an agent states, never what it plays, so it can be
    fitted after the games: for each fold of ``rules`` (`rule_folds`), on the other
    folds' declarations, then applied to the fold's. Returns the map fitted on every
    declaration (the one to ship) and the held-out declarations (`solo_declarations`
    columns, with ``calibrated``: the confidence the fold's map states).

    >>> import pandas as pd
    >>> from eleusis_lab.rules.rule_file import RuleEntry
    >>> rules = [RuleEntry(f"r{i}", "red(card)", "one card") for i in range(4)]
    >>> games = pd.DataFrame({"agent": "a", "rule": [f"r{i}" for i in range(4)],
    ...     "family": "one card", "seed": 0,
    ...     "declarations": [[(0.9, True)], [(0.9, False)], [(0.5, True)], [(0.9, True)]]})
    >>> final, heldout = crossfit_calibration(games, rules, k=2)
    >>> len(heldout), round(final(0.9), 3)  # non-decreasing: 0.5 and 0.9 pool, 3 of 4
    (4, 0.75)
    """
    parts = []
    for train, test in rule_folds(rules, k, fold_seed):
        names = {entry.name for entry in train}
        fitted = fit_on_games(games[games["rule"].isin(names)])
        held = solo_declarations(games[games["rule"].isin({entry.name for entry in test})])
        held = held.dropna(subset=["confidence"])
        parts.append(held.assign(calibrated=fitted(held["confidence"].to_numpy())))
    return fit_on_games(games), pd.concat(parts, ignore_index=True)
