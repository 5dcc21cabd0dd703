"""The tables a researcher asks of an experiment's results, as pandas DataFrames.

Every function takes the tables of `eleusis_lab.run_experiment` (or
`eleusis_lab.load_results` / `eleusis_lab.load_events`) and returns a tidy DataFrame,
one row per group and bin, with a confidence interval beside every estimate. The same
functions feed the figures of `eleusis_lab.plots` and the ``eleusis-lab report`` page.

- `games_table`: one row per game (the results have one per game and seat);
- `dealer_score_by_complexity`: the dealer's mean score per complexity bin and line-up:
  the flagship question, how the complexity of the rule affects the dealer's score;
- `complexity_correlations`: its answer per measure, Spearman's rank correlation with
  the dealer's score per line-up and over all games, with bootstrap intervals;
- `complexity_regression`: the dealer's score on every measure at once (standardised),
  the line-up and the number of players, a least-squares fit with intervals;
- `complexity_effect`, `dealer_score_by_rule`: the least-squares slope on one measure
  per line-up; the dealer's mean score for each rule dealt;
- `leaderboard`: per agent (and line-up), games, mean score, wrong cards, win rate,
  identification rate and median plays to identify;
- `learning_curve`: the wrong-play rate against the verdicts seen so far, per agent;
- `delphi_accuracy`: how often an agent's prediction (``p_right >= 0.5``) matches the
  verdict, against the verdicts seen so far;
- `adaptive_choices`: the arms an adaptive dealer chose, game by game, and the
  cumulative share of each arm.

Confidence intervals: `mean_ci` (Student t, or a percentile bootstrap) for means,
`wilson_ci` for rates, `median_ci` (order statistics) for medians.

Examples
--------
>>> import pandas as pd
>>> results = pd.DataFrame({
...     "lineup": "duo", "game": [0, 0, 1, 1], "agent": ["a", "b", "a", "b"],
...     "score": [3.0, 1.0, 2.0, 2.0], "dealer_score": [2.0, 2.0, 0.0, 0.0],
...     "rule_bits": [10.0, 10.0, 20.0, 20.0], "wrong_cards": [1, 3, 2, 2],
...     "plays_to_identify": [5, None, None, None]})
>>> leaderboard(results)[["agent", "games", "mean_score", "win_rate"]]
  agent  games  mean_score  win_rate
0     a      2         2.5      0.75
1     b      2         1.5      0.25
>>> dealer_score_by_complexity(results, bins=None)[["bin", "games", "mean"]]
  bin  games  mean
0  10      1   2.0
1  20      1   0.0
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from eleusis_lab.games.table import ResultColumn, game_columns
from eleusis_lab.rules.complexity import DEFAULT_MEASURE, complexity_columns
from eleusis_lab.text import plural

__all__ = [
    "GAME_KEYS",
    "MIN_CORRELATION_GAMES",
    "PLAY_KINDS",
    "POOLED",
    "PREDICTION_THRESHOLD",
    "SEES_RULE_MARK",
    "adaptive_choices",
    "agent_labels",
    "attach_agents",
    "complexity_correlations",
    "complexity_effect",
    "complexity_regression",
    "dealer_score_by_rule",
    "dealer_score_by_complexity",
    "delphi_accuracy",
    "games_table",
    "leaderboard",
    "learning_curve",
    "learning_window",
    "mean_ci",
    "median_ci",
    "model_usage",
    "wilson_ci",
]


def __getattr__(name: str) -> Any:
    if name == "COMPLEXITY_COLUMNS":  # the rule complexity columns of a results table,
        return complexity_columns()  # one per measure registered when it is named
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: The columns that identify one game of a results table (those present are used).
GAME_KEYS = ("experiment", "cell", "game")
#: What the label of an agent told the secret rule ends with (`agent_labels`).
SEES_RULE_MARK = " (sees the rule)"
#: A prediction says "right" when its probability is at least this (as Delphi's token).
PREDICTION_THRESHOLD = 0.5
#: Event kinds that are a seat's own play (`eleusis_lab.agent.Event.kind`): one card, or
#: a card of a string (New Eleusis); not a hand set aside, nor the dealer's card.
PLAY_KINDS = ("play", "string")

#: Per-seat columns of a results table: meaningless in a one-row-per-game table.
_SEAT_COLUMNS = (
    "seat",
    "participant",
    "slot",
    "agent",
    "agent_params",
    "score",
    "wrong_cards",
    "cards_left",
    "plays",
    "plays_to_identify",
    "faults",
)
_BOOTSTRAP_CHUNK = 2_000_000  # resampled values held in memory at once


# -- confidence intervals -------------------------------------------------------------------


def _check_confidence(confidence: float) -> float:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence!r}")
    return float(confidence)


def _floats(values: Any) -> np.ndarray:
    """The values as a float array, without the missing ones (None, NaN, pandas NA)."""
    series = pd.Series(values, dtype="object") if not isinstance(values, pd.Series) else values
    x = pd.to_numeric(series.astype("object"), errors="coerce").astype(float).to_numpy()
    return x[~np.isnan(x)]


def mean_ci(
    values: Any,
    confidence: float = 0.95,
    method: str = "t",
    n_boot: int = 2000,
    seed: int = 0,
) -> tuple[float, float, float]:
    """The mean of ``values`` and its confidence interval (missing values ignored).

    Parameters
    ----------
    values : array-like of float
        The sample; NaN and None are dropped.
    confidence : float
        The interval's coverage, e.g. 0.95.
    method : {"t", "bootstrap"}
        ``"t"``: mean +- t quantile (n - 1 degrees of freedom) x standard error;
        ``"bootstrap"``: the percentile interval of ``n_boot`` resampled means, drawn
        with a generator seeded by ``seed`` (so the same data give the same interval).
    n_boot, seed : int
        The bootstrap's resamples and seed.

    Returns
    -------
    tuple of float
        ``(mean, low, high)``; the bounds are NaN with fewer than two values, all
        three with none.

    Examples
    --------
    >>> mean, low, high = mean_ci([1.0, 2.0, 3.0])
    >>> mean, round(low, 4), round(high, 4)  # 2 -+ t(0.975, 2) * 1 / sqrt(3)
    (2.0, -0.4841, 4.4841)
    >>> mean_ci([4.0])
    (4.0, nan, nan)
    """
    confidence = _check_confidence(confidence)
    x = _floats(values)
    n = len(x)
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = float(x.mean())
    if n == 1:
        return mean, math.nan, math.nan
    if method == "t":
        from scipy import stats

        half = float(stats.t.ppf((1 + confidence) / 2, n - 1)) * float(x.std(ddof=1)) / math.sqrt(n)
        return mean, mean - half, mean + half
    if method != "bootstrap":
        raise ValueError(f"method must be 't' or 'bootstrap', got {method!r}")
    rng = np.random.default_rng(seed)
    means = np.empty(n_boot)
    step = max(1, _BOOTSTRAP_CHUNK // n)
    for start in range(0, n_boot, step):
        stop = min(start + step, n_boot)
        means[start:stop] = x[rng.integers(0, n, size=(stop - start, n))].mean(axis=1)
    low, high = np.quantile(means, [(1 - confidence) / 2, (1 + confidence) / 2])
    return mean, float(low), float(high)


def wilson_ci(successes: Any, n: Any, confidence: float = 0.95) -> tuple[Any, Any]:
    """The Wilson score interval of a rate: ``successes`` out of ``n`` (vectorised).

    Unlike mean +- z x standard error, it stays inside [0, 1] and has a width at a
    rate of 0 or 1. ``successes`` may be fractional (e.g. shared wins).

    Returns
    -------
    tuple
        ``(low, high)``, floats or arrays like the input; NaN where ``n`` is 0.

    Examples
    --------
    >>> low, high = wilson_ci(0, 10)
    >>> round(low, 4), round(high, 4)
    (0.0, 0.2775)
    >>> [round(v, 4) for v in wilson_ci(5, 10)]
    [0.2366, 0.7634]
    """
    from scipy import stats

    confidence = _check_confidence(confidence)
    z = float(stats.norm.ppf((1 + confidence) / 2))
    s = np.asarray(successes, dtype=float)
    m = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = s / m
        denominator = 1 + z**2 / m
        center = (p + z**2 / (2 * m)) / denominator
        half = z * np.sqrt(p * (1 - p) / m + z**2 / (4 * m**2)) / denominator
        low = np.where(s <= 0, 0.0, np.clip(center - half, 0, 1))
        high = np.where(s >= m, 1.0, np.clip(center + half, 0, 1))
        low, high = np.where(m > 0, low, np.nan), np.where(m > 0, high, np.nan)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def median_ci(values: Any, confidence: float = 0.95) -> tuple[float, float, float]:
    """The median of ``values`` and a distribution-free interval from order statistics.

    The interval is ``[x_(j), x_(n+1-j)]`` (sorted values, from 1), with ``j`` the
    largest count such that a Binomial(n, 1/2) falls below ``j`` with probability at
    most ``(1 - confidence) / 2``: it covers the median with at least ``confidence``
    whatever the distribution. Too few values for that (n < 6 at 95%) give NaN bounds.

    Returns
    -------
    tuple of float
        ``(median, low, high)``.

    Examples
    --------
    >>> median_ci(range(1, 11))  # j = 2: the 2nd and the 9th values
    (5.5, 2.0, 9.0)
    >>> median_ci([3, 1, 2])
    (2.0, nan, nan)
    """
    from scipy import stats

    confidence = _check_confidence(confidence)
    x = np.sort(_floats(values))
    n = len(x)
    if n == 0:
        return math.nan, math.nan, math.nan
    median = float(np.median(x))
    j = int(stats.binom.ppf((1 - confidence) / 2, n, 0.5))
    if j < 1:
        return median, math.nan, math.nan
    return median, float(x[j - 1]), float(x[n - j])


# -- tables ---------------------------------------------------------------------------------


def _game_keys(table: pd.DataFrame) -> list[str]:
    keys = [key for key in GAME_KEYS if key in table.columns]
    if "game" not in keys:
        raise ValueError("the table has no 'game' column: is it a results table?")
    return keys


def _by(by: str | Sequence[str] | None, table: pd.DataFrame) -> list[str]:
    """The grouping columns asked for that the table has."""
    if by is None:
        return []
    columns = [by] if isinstance(by, str) else list(by)
    return [column for column in columns if column in table.columns]


def _groups(table: pd.DataFrame, by: list[str]):
    """(key tuple, sub-table) per group, or one group ``()`` for no grouping columns."""
    if not by:
        yield (), table
        return
    for key, group in table.groupby(by, sort=True, dropna=False, observed=True):
        yield (key if isinstance(key, tuple) else (key,)), group


def games_table(results: pd.DataFrame) -> pd.DataFrame:
    """One row per game: the results' first row of each game, without its seat columns.

    The results have one row per game and seat; the dealer's score, the rule and its
    complexity, the dealer's arm, the line-up are the same on every seat's row. A game
    is identified by its ``experiment``, ``cell`` and ``game`` (those present).

    Examples
    --------
    >>> results = pd.DataFrame({"cell": "c", "game": [0, 0, 1], "seat": [0, 1, 0],
    ...                         "score": [1.0, 2.0, 3.0], "dealer_score": [4.0, 4.0, 5.0]})
    >>> games_table(results)
      cell  game  dealer_score
    0    c     0           4.0
    1    c     1           5.0
    """
    keys = _game_keys(results)
    games = results.drop_duplicates(keys)
    return games.drop(columns=[c for c in _SEAT_COLUMNS if c in games.columns]).reset_index(
        drop=True
    )


def _measure_column(table: pd.DataFrame, measure: str) -> str:
    for column in (measure, f"rule_{measure}"):
        if column in table.columns:
            return column
    raise ValueError(
        f"unknown complexity measure {measure!r}; the table has"
        f" {', '.join(c for c in complexity_columns() if c in table.columns) or 'none'}"
    )


def _bin_label(low: float, high: float, closed: bool) -> str:
    return f"[{low:.4g}, {high:.4g}{']' if closed else ')'}"


def _bins(values: np.ndarray, bins: int | Sequence[float] | None):
    """Per value, the bin's index (-1: outside), and per bin (label, low, high)."""
    finite = values[np.isfinite(values)]
    if not len(finite):
        return np.full(len(values), -1), []
    distinct = np.unique(finite)
    if bins is None or (isinstance(bins, int | np.integer) and len(distinct) <= bins):
        index = np.searchsorted(distinct, values)
        index = np.where(np.isfinite(values), index, -1)
        return index, [(f"{v:g}", float(v), float(v)) for v in distinct]
    if isinstance(bins, int | np.integer):
        if bins < 1:
            raise ValueError(f"bins must be at least 1, got {bins!r}")
        edges = np.unique(np.quantile(finite, np.linspace(0, 1, int(bins) + 1)))
    else:
        edges = np.asarray(bins, dtype=float)
        if edges.ndim != 1 or len(edges) < 2 or np.any(np.diff(edges) <= 0):
            raise ValueError(f"bins must be an int or increasing edges, got {bins!r}")
    k = len(edges) - 1
    index = np.searchsorted(edges, values, side="right") - 1
    index[values == edges[-1]] = k - 1  # the last bin is closed
    index[~np.isfinite(values) | (index >= k)] = -1
    spec = [
        (_bin_label(edges[i], edges[i + 1], i == k - 1), float(edges[i]), float(edges[i + 1]))
        for i in range(k)
    ]
    return index, spec


def _merged_bins(counts: np.ndarray, min_games: int) -> list[list[int]]:
    """Runs of consecutive bins (positions in ``counts``) of at least ``min_games`` games
    each: a short bin takes in the next ones; a short last run joins the one before."""
    runs: list[list[int]] = []
    current: list[int] = []
    held = 0
    for position, count in enumerate(counts):
        current.append(position)
        held += int(count)
        if held >= min_games:
            runs.append(current)
            current, held = [], 0
    if current:
        if runs:
            runs[-1].extend(current)
        else:
            runs.append(current)
    return runs


def _merged_label(parts: list[tuple[str, float, float]]) -> tuple[str, float, float]:
    """The (label, low, high) of consecutive bins taken as one."""
    if len(parts) == 1:
        return parts[0]
    (_, low, _), (last, _, high) = parts[0], parts[-1]
    return _bin_label(low, high, closed=not last.endswith(")")), low, high


def dealer_score_by_complexity(
    results: pd.DataFrame,
    measure: str = DEFAULT_MEASURE,
    bins: int | Sequence[float] | None = 5,
    by: str | Sequence[str] | None = "lineup",
    confidence: float = 0.95,
    method: str = "t",
    min_games: int = 1,
) -> pd.DataFrame:
    """The dealer's mean score per bin of the rule's complexity, per line-up.

    Each game counts once (`games_table`); games without a dealer score are left out.

    Parameters
    ----------
    results : DataFrame
        A results table (one row per game and seat) or a `games_table`.
    measure : str
        A complexity column: ``rule_bits`` (the default), ``rule_nodes``,
        ``rule_acceptance``, ``rule_classes``, or that of any registered measure
        (`eleusis_lab.rules.complexity.complexity_columns`); the ``rule_`` may be left
        out.
    bins : int, sequence of float or None
        An int: that many quantile bins of the measure over all games (shared by every
        group, so the lines are comparable), or one bin per value when the measure
        takes no more values than that; increasing edges: the bins ``[e0, e1)``, ...,
        the last closed; None: one bin per value.
    by : str, list of str or None
        The grouping columns (those present are used): by default the line-up, the
        population of agents the dealer faces. None: all games together.
    confidence : float
        The coverage of the intervals.
    method : {"t", "bootstrap"}
        How the interval of each mean is computed (`mean_ci`).
    min_games : int
        The fewest games a bin may hold: within each group, walking up from the lowest
        bin, a bin of fewer games takes in the next ones until it holds enough, and a
        last bin still short joins the one before it (a group of fewer games in all
        keeps them in one bin). 1: every non-empty bin as it is.

    Returns
    -------
    DataFrame
        One row per group and non-empty bin, in order: the ``by`` columns, ``bin`` (a
        label: merged bins span their first bin's low edge to their last one's high
        edge), ``low`` and ``high`` (its edges), ``x`` (the mean measure of its games,
        where to plot it), ``games``, ``mean``, ``sd``, ``ci_low``, ``ci_high``.
        ``attrs["measure"]`` is the measure's column.

    Examples
    --------
    >>> games = pd.DataFrame({"lineup": "all", "game": range(6),
    ...                       "rule_nodes": [2, 2, 2, 5, 5, 5],
    ...                       "dealer_score": [1.0, 2.0, 3.0, 4.0, 4.0, 7.0]})
    >>> table = dealer_score_by_complexity(games, measure="nodes")
    >>> table[["bin", "games", "mean", "sd"]].round(3)
      bin  games  mean     sd
    0   2      3   2.0  1.000
    1   5      3   5.0  1.732
    >>> table[["ci_low", "ci_high"]].round(3).values.tolist()
    [[-0.484, 4.484], [0.697, 9.303]]
    >>> dealer_score_by_complexity(games, measure="nodes", min_games=4)[["bin", "games"]]
          bin  games
    0  [2, 5]      6
    """
    if min_games < 1:
        raise ValueError(f"min_games must be at least 1, got {min_games!r}")
    games = games_table(results) if "game" in results.columns else results
    column = _measure_column(games, measure)
    games = games[games["dealer_score"].notna()]
    values = pd.to_numeric(games[column], errors="coerce").to_numpy(float)
    index, spec = _bins(values, bins)
    games = games.assign(_bin=index, _x=values)
    games = games[games["_bin"] >= 0]
    group_columns = _by(by, games)
    rows = []
    for key, group in _groups(games, group_columns):
        counts = group["_bin"].value_counts().sort_index()
        for run in _merged_bins(counts.to_numpy(), min_games):
            merged = counts.index[run].tolist()
            label, low, high = _merged_label([spec[int(b)] for b in merged])
            part = group[group["_bin"].isin(merged)]
            scores = part["dealer_score"].astype(float)
            mean, ci_low, ci_high = mean_ci(scores, confidence, method)
            rows.append(
                {
                    **dict(zip(group_columns, key, strict=True)),
                    "bin": label,
                    "low": low,
                    "high": high,
                    "x": float(part["_x"].mean()),
                    "games": len(part),
                    "mean": mean,
                    "sd": float(scores.std(ddof=1)) if len(part) > 1 else math.nan,
                    "ci_low": ci_low,
                    "ci_high": ci_high,
                }
            )
    columns = [*group_columns, "bin", "low", "high", "x", "games", "mean", "sd"]
    table = pd.DataFrame(rows, columns=[*columns, "ci_low", "ci_high"])
    table.attrs.update(measure=column, confidence=confidence)
    return table


def complexity_effect(
    results: pd.DataFrame,
    measure: str = "bits",
    by: str | Sequence[str] | None = "lineup",
    confidence: float = 0.95,
) -> pd.DataFrame:
    """How the dealer's score moves with the rule's complexity: the least-squares line
    of the dealer's score on ``measure`` over the games of each group (the study's
    answer, as one number per line-up).

    Columns: the grouping columns, ``games``, ``slope`` (dealer points per unit of the
    measure: per bit of description for ``bits``) with ``slope_low`` and
    ``slope_high`` (its t interval), ``intercept``, ``r`` (Pearson's), ``p_value`` (of
    no slope), and ``measure_low``, ``measure_high`` (the range of the measure dealt).
    A group with fewer than 3 games, or one value of the measure, has NaN figures.

    Examples
    --------
    >>> results = pd.DataFrame({"game": range(6), "rule_bits": [1, 2, 3, 4, 5, 6],
    ...                         "dealer_score": [2.0, 4.1, 5.9, 8.0, 10.1, 11.9]})
    >>> effect = complexity_effect(results, by=None)
    >>> row = effect.iloc[0]
    >>> round(float(row["slope"]), 2), int(row["games"]), bool(row["r"] > 0.99)
    (1.99, 6, True)
    >>> bool(row["slope_low"] < 1.99 < row["slope_high"])
    True
    """
    from scipy import stats

    level = _check_confidence(confidence)
    games = games_table(results)
    games = games[games["dealer_score"].notna()]
    column = _measure_column(games, measure)
    keys = _by(by, games)
    rows = []
    for key, group in _groups(games, keys):
        x, y = _floats(group[column]), _floats(group["dealer_score"])
        row = dict(zip(keys, key, strict=True))
        row.update(games=len(group), measure_low=np.nan, measure_high=np.nan)
        row.update(dict.fromkeys(("slope", "slope_low", "slope_high", "intercept", "r"), np.nan))
        row["p_value"] = np.nan
        if len(group):
            row.update(measure_low=float(x.min()), measure_high=float(x.max()))
        if len(group) >= 3 and np.unique(x).size > 1:
            fit = stats.linregress(x, y)
            half = float(stats.t.ppf((1 + level) / 2, len(x) - 2)) * fit.stderr
            row.update(
                slope=fit.slope,
                slope_low=fit.slope - half,
                slope_high=fit.slope + half,
                intercept=fit.intercept,
                r=fit.rvalue,
                p_value=fit.pvalue,
            )
        rows.append(row)
    columns = [*keys, "games", "slope", "slope_low", "slope_high", "intercept", "r", "p_value"]
    return pd.DataFrame(rows, columns=[*columns, "measure_low", "measure_high"])


#: The ``lineup`` of `complexity_correlations`' rows over the games of every line-up.
POOLED = "all line-ups"
#: Fewer games than this give no rank correlation (with 2, any two values are ranked
#: perfectly).
MIN_CORRELATION_GAMES = 3
_CONSTANT_MEASURE = "the same for every rule dealt"
_CONSTANT_SCORE = "the dealer's score is the same in every game"


def _measure_columns(games: pd.DataFrame, measures: Sequence[str] | None) -> list[str]:
    """The complexity columns asked for (names or columns), default every registered
    measure's that the table has, `DEFAULT_MEASURE`'s first."""
    if measures is None:
        return [column for column in complexity_columns() if column in games.columns]
    return [_measure_column(games, measure) for measure in measures]


def _measure_name(column: str) -> str:
    return column.removeprefix("rule_")


def _scored_games(results: pd.DataFrame) -> pd.DataFrame:
    """One row per game that has a dealer score."""
    games = games_table(results) if "game" in results.columns else results
    if "dealer_score" not in games.columns:
        return games.iloc[:0]
    return games[games["dealer_score"].notna()]


def _unit_kinds(units: np.ndarray, pair: np.ndarray, n_pairs: int) -> tuple[np.ndarray, Any]:
    """Units holding the same pairs, grouped into kinds: each kind's number of units,
    and how many of each distinct pair a unit of each kind holds (a sparse kinds x
    pairs matrix). ``units`` and ``pair`` give each observation's unit and pair.
    """
    from scipy import sparse

    order = np.lexsort((pair, units))
    units, pair = units[order], pair[order]
    starts = np.flatnonzero(np.r_[True, units[1:] != units[:-1]])
    sizes = np.diff(np.r_[starts, len(units)])
    kind_of_unit = np.empty(len(starts), np.int64)
    kinds = 0
    for size in np.unique(sizes):  # units of one size: their sorted pairs as rows
        these = np.flatnonzero(sizes == size)
        rows = pair[starts[these, np.newaxis] + np.arange(size)]
        distinct, which = np.unique(rows, axis=0, return_inverse=True)
        kind_of_unit[these] = kinds + which.ravel()
        kinds += len(distinct)
    frequency = np.bincount(kind_of_unit, minlength=kinds)
    kind_of_pair = np.repeat(kind_of_unit, sizes)
    held = sparse.csr_matrix((np.ones(len(pair)), (kind_of_pair, pair)), shape=(kinds, n_pairs))
    held.sum_duplicates()  # the pairs of all the units of a kind, counted: divided exactly
    held.data /= np.repeat(frequency, np.diff(held.indptr))
    return frequency, held


def _spearman_interval(
    x: np.ndarray,
    y: np.ndarray,
    confidence: float,
    n_resamples: int,
    seed: int,
    deals: np.ndarray | None = None,
) -> tuple[float, float]:
    """The percentile bootstrap interval of Spearman's rho, resampling the pairs, or with
    ``deals`` (a deal's label per pair) whole deals: the games that share a deal.

    Units (pairs, or deals) that hold the same pairs are interchangeable, so a resample
    draws how many units of each kind it holds, multinomially, which is the same as
    drawing units: a million games of a few thousand distinct pairs cost what those
    pairs cost. Each resample's rho is Pearson's r of the ranks of the distinct pairs,
    each weighted by the times it was drawn, ties sharing their mean rank. Resamples
    in which either variable is constant (no rank correlation) are left out.
    """
    xi = np.unique(x, return_inverse=True)[1]
    ys, yi = np.unique(y, return_inverse=True)
    codes, pair = np.unique(xi * len(ys) + yi, return_inverse=True)  # sorted by x, then y
    pair_x, pair_y = codes // len(ys), codes % len(ys)
    units = np.arange(len(x)) if deals is None else np.unique(deals, return_inverse=True)[1]
    frequency, holds = _unit_kinds(units.ravel(), pair.ravel(), len(codes))
    n_units = int(frequency.sum())
    x_starts = np.flatnonzero(np.r_[True, pair_x[1:] != pair_x[:-1]])
    by_y = np.argsort(pair_y, kind="stable")
    y_starts = np.flatnonzero(np.r_[True, np.diff(pair_y[by_y]) != 0])
    rng = np.random.default_rng(seed)
    rhos = np.empty(n_resamples)
    step = max(1, _BOOTSTRAP_CHUNK // max(len(frequency), len(codes)))
    for start in range(0, n_resamples, step):
        stop = min(start + step, n_resamples)
        drawn = rng.multinomial(n_units, frequency / n_units, size=stop - start)
        weights = np.asarray((holds.T @ drawn.T).T)  # draws of each distinct pair
        middle = (weights.sum(axis=1, keepdims=True) + 1) / 2  # the mean rank
        rx = _midranks(weights, x_starts)[:, pair_x] - middle
        ry = _midranks(weights[:, by_y], y_starts)[:, pair_y] - middle
        products = [(weights * a * b).sum(axis=1) for a, b in ((rx, ry), (rx, rx), (ry, ry))]
        with np.errstate(invalid="ignore", divide="ignore"):
            rhos[start:stop] = products[0] / np.sqrt(products[1] * products[2])
    rhos = rhos[np.isfinite(rhos)]
    if not len(rhos):
        return math.nan, math.nan
    low, high = np.quantile(rhos, [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(low), float(high)


def _midranks(weights: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The mean rank of each value, for columns (pairs) sorted by value, a value's
    columns starting at ``starts``: the draws of smaller values plus the mean of 1 to
    its own draws."""
    per_value = np.add.reduceat(weights, starts, axis=1)
    return np.cumsum(per_value, axis=1) - (per_value - 1) / 2


def _deals(games: pd.DataFrame) -> np.ndarray | None:
    """Each game's deal (its ``seed``) where some games share one, as line-ups dealt the
    same deals do; None where every game has its own."""
    if "seed" not in games.columns or not games["seed"].duplicated().any():
        return None
    return games["seed"].to_numpy()


def _correlation_row(
    games: pd.DataFrame, column: str, confidence: float, n_resamples: int, seed: int
) -> dict[str, Any]:
    """Spearman's rho of ``column`` with the dealer's score over ``games``, its interval
    and, when there is none, why."""
    from scipy import stats

    pairs = games[[column, "dealer_score"]].apply(pd.to_numeric, errors="coerce").dropna()
    x, y = pairs[column].to_numpy(float), pairs["dealer_score"].to_numpy(float)
    deals = _deals(games.loc[pairs.index])
    row = {"measure": _measure_name(column), "games": len(x), "rho": math.nan}
    row.update(ci_low=math.nan, ci_high=math.nan, note="")
    if len(x) > 1 and np.unique(x).size < 2:  # said first: a fixed dealer is why
        row["note"] = _CONSTANT_MEASURE
    elif len(x) < MIN_CORRELATION_GAMES:
        row["note"] = f"too few games ({len(x)})"
    elif np.unique(y).size < 2:
        row["note"] = _CONSTANT_SCORE
    else:
        row["rho"] = float(stats.spearmanr(x, y).statistic)
        interval = _spearman_interval(x, y, confidence, n_resamples, seed, deals)
        row["ci_low"], row["ci_high"] = interval
    return row


def complexity_correlations(
    results: pd.DataFrame,
    measures: Sequence[str] | None = None,
    by: str | None = "lineup",
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int = 0,
) -> pd.DataFrame:
    """Spearman's rank correlation of each complexity measure with the dealer's score,
    per line-up and over all games, with percentile bootstrap intervals.

    Each game counts once (`games_table`: the dealer's score is the game's, not a
    seat's); games without a dealer score are left out. A rank correlation asks whether
    the dealer scores more (or less) the more complex the rule, in any monotone way,
    and a few extreme games do not sway it. Its interval is the percentile interval of
    ``n_resamples`` resamples of the group's games, drawn with a generator seeded by
    ``seed`` for every group, so the same games give the same interval. Where games
    share a deal (their ``seed``: line-ups dealt the same deals, as in the flagship, or
    duplicate deals), whole deals are resampled, since a deal's games are not
    independent of one another.

    Parameters
    ----------
    results : DataFrame
        A results table (one row per game and seat) or a `games_table`.
    measures : list of str, optional
        The complexity measures (names or ``rule_`` columns); default: every registered
        measure's column the table has (`eleusis_lab.rules.complexity.measures`).
    by : str or None
        The grouping column (when the table has it): by default the line-up. With more
        than one group, rows over all their games follow, ``by`` = `POOLED`.
    confidence : float
        The intervals' coverage.
    n_resamples, seed : int
        The bootstrap's resamples and seed.

    Returns
    -------
    DataFrame
        One row per group and measure: the ``by`` column, ``measure`` (its name),
        ``games``, ``rho``, ``ci_low``, ``ci_high``, and ``note``: empty, or why ``rho``
        is NaN (fewer than `MIN_CORRELATION_GAMES` games; the measure the same for every
        rule dealt, as with a fixed dealer; the dealer's score the same in every game).

    Examples
    --------
    >>> games = pd.DataFrame({"lineup": "duo", "game": range(5),
    ...                       "rule_bits": [1.0, 2.0, 3.0, 4.0, 5.0],
    ...                       "rule_nodes": 3,
    ...                       "dealer_score": [2.0, 1.0, 4.0, 3.0, 5.0]})
    >>> table = complexity_correlations(games, measures=["bits", "nodes"])
    >>> table[["lineup", "measure", "games", "rho"]]  # 1 - 6 * 4 / (5 * 24) = 0.8
      lineup measure  games  rho
    0    duo    bits      5  0.8
    1    duo   nodes      5  NaN
    >>> table["note"].tolist()
    ['', 'the same for every rule dealt']
    >>> bool(table.loc[0, "ci_low"] < 0.8 <= table.loc[0, "ci_high"])
    True
    """
    level = _check_confidence(confidence)
    games = _scored_games(results)
    columns = _measure_columns(games, measures)
    keys = _by(by, games)
    groups = list(_groups(games, keys))
    if len(groups) > 1:
        groups.append(((POOLED,), games))
    rows = [
        {
            **dict(zip(keys, key, strict=True)),
            **_correlation_row(group, c, level, n_resamples, seed),
        }
        for key, group in groups
        for c in columns
    ]
    columns_out = [*keys, "measure", "games", "rho", "ci_low", "ci_high", "note"]
    table = pd.DataFrame(rows, columns=columns_out)
    table.attrs.update(confidence=level, n_resamples=n_resamples, seed=seed)
    return table


_REGRESSION_COLUMNS = ["term", "kind", "unit", "coef", "se", "ci_low", "ci_high", "p_value"]


def _design(
    games: pd.DataFrame, columns: list[str], notes: list[str]
) -> tuple[pd.DataFrame, dict[str, tuple[str, str, float]], str | None]:
    """The regression's columns: the intercept, a dummy per line-up but the first, the
    number of players where it varies (centred), each varying measure standardised; per
    column its (term, kind, unit); the reference line-up. Constant measures are noted
    and left out."""
    design = pd.DataFrame({"intercept": 1.0}, index=games.index)
    terms = {"intercept": ("intercept", "intercept", math.nan)}
    reference = None
    if "lineup" in games.columns and games["lineup"].nunique() > 1:
        reference, *others = pd.unique(games["lineup"].astype(str))
        for lineup in others:  # named apart: a line-up may be called as a measure
            design[f"lineup {lineup}"] = (games["lineup"].astype(str) == lineup).astype(float)
            terms[f"lineup {lineup}"] = (lineup, "line-up", math.nan)
    if "players" in games.columns and games["players"].nunique() > 1:
        players = games["players"].astype(float)
        design["players"] = players - players.mean()  # centred
        terms["players"] = ("players", "players", 1.0)
    for column in columns:
        values = games[column].astype(float)
        name = _measure_name(column)
        sd = float(values.std(ddof=1)) if len(values) > 1 else math.nan
        if not sd > 0:
            notes.append(f"{name}: {_CONSTANT_MEASURE}, left out")
            continue
        design[column] = (values - values.mean()) / sd
        terms[column] = (name, "measure", sd)
    return design, terms, reference


def _independent_columns(
    design: pd.DataFrame, terms: dict[str, tuple[str, str, float]], notes: list[str]
) -> pd.DataFrame:
    """``design`` without the columns that are linear combinations of those before them
    (a measure equal to another over the rules dealt, or fixed by the line-up)."""
    kept: list[str] = []
    for column in design.columns:
        if np.linalg.matrix_rank(design[[*kept, column]].to_numpy(float)) > len(kept):
            kept.append(column)
        else:
            term = terms[column][0]
            notes.append(f"{term}: a linear combination of the terms before it, left out")
    return design[kept]


def complexity_regression(
    results: pd.DataFrame, measures: Sequence[str] | None = None, confidence: float = 0.95
) -> pd.DataFrame:
    """The dealer's score regressed on the complexity measures, the line-up and the
    number of players: each measure's effect with the others held fixed.

    An ordinary least-squares fit (`statsmodels`) over the games (one row each,
    `games_table`; those without a dealer score or a complexity figure left out) of

    ``dealer_score ~ intercept + line-up dummies + players + standardised measures``

    Each measure is standardised over these games (minus its mean, over its standard
    deviation), so its coefficient is the dealer's points per standard deviation of the
    measure and the measures compare. The line-up enters as a dummy per line-up but the
    first one (the reference, in the order of the table), the number of players (per
    player, centred) only where it varies: the intercept is the reference line-up's
    score at the mean measures and players. A measure the same for every rule dealt, or
    a linear combination of the terms before it (another measure over these rules, the
    line-up), is left out with a note; with as many terms as games or more there is no
    fit.

    Parameters
    ----------
    results : DataFrame
        A results table or a `games_table`.
    measures : list of str, optional
        As for `complexity_correlations`: default every registered measure the table has.
    confidence : float
        The intervals' coverage.

    Returns
    -------
    DataFrame
        One row per term: ``term`` (a measure's name, a line-up's name, ``players``,
        ``intercept``), ``kind`` (``measure``, ``line-up``, ``players``,
        ``intercept``), ``unit`` (a measure's standard deviation in its own units: what
        one point of its coefficient is per; 1 for players), ``coef``, ``se`` (its
        standard error, classical or clustered by deal), ``ci_low``, ``ci_high``
        (its interval), ``p_value`` (of a zero coefficient); measures first.
        ``attrs``: ``games``, ``r_squared``, ``reference`` (the line-up the others are
        compared with, or None), ``clustered`` (whether the standard errors are
        clustered by deal, below), ``confidence`` and ``notes`` (what was left out and
        why). Empty, with notes, when nothing can be fitted.

    Where games share a deal (their ``seed``: line-ups dealt the same deals, as in the
    flagship), the standard errors are clustered by deal (statsmodels' cluster-robust
    covariance), since a deal's games are not independent of one another, and the
    intervals are normal ones (statsmodels' default for a robust covariance); a note
    says so. Otherwise they are the classical ones, with t intervals.

    Examples
    --------
    >>> games = pd.DataFrame({"lineup": ["a", "b"] * 4, "game": range(8),
    ...                       "rule_bits": [1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0],
    ...                       "rule_nodes": 3})
    >>> games["dealer_score"] = 10 + 2 * games["rule_bits"] + (games["lineup"] == "b")
    >>> table = complexity_regression(games)
    >>> table[["term", "kind", "coef"]].round(3)  # line-up a at the mean bits: 10 + 2 * 2.5
            term       kind   coef
    0       bits    measure   2.39
    1          b    line-up   1.00
    2  intercept  intercept  15.00
    >>> round(2 * float(table.loc[0, "unit"]), 3)  # 2 points a bit, per SD of the bits
    2.39
    >>> table.attrs["reference"], table.attrs["notes"]
    ('a', ['nodes: the same for every rule dealt, left out'])
    """
    import statsmodels.api as sm

    level = _check_confidence(confidence)
    notes: list[str] = []
    empty = pd.DataFrame(columns=_REGRESSION_COLUMNS)
    empty.attrs.update(games=0, r_squared=math.nan, reference=None, confidence=level)
    empty.attrs["clustered"] = False
    empty.attrs["notes"] = notes
    games = _scored_games(results)
    if games.empty:
        notes.append("no dealer score in these games")
        return empty
    columns = _measure_columns(games, measures)
    measured = games[columns].notna().all(axis=1)
    if not measured.all():
        notes.append(
            f"{plural(int((~measured).sum()), 'game')} without a complexity figure left out"
        )
    games = games[measured]
    design, terms, reference = _design(games, columns, notes)
    if len(design) <= design.shape[1]:
        count = plural(design.shape[1], "term")
        notes.append(f"too few games ({len(design)}) for {count}: no regression")
        return empty
    design = _independent_columns(design, terms, notes)
    if not any(terms[column][1] == "measure" for column in design.columns):
        notes.append("no measure varies over these games: no regression")
        return empty
    model = sm.OLS(games["dealer_score"].astype(float), design)
    deals = _deals(games)
    if deals is None:
        fit = model.fit()
    else:
        groups = pd.factorize(deals)[0]
        fit = model.fit(cov_type="cluster", cov_kwds={"groups": groups})
        deal_count = plural(int(groups.max()) + 1, "deal")
        notes.append(f"standard errors clustered by deal ({deal_count}): line-ups share deals")
    bounds = fit.conf_int(alpha=1 - level)
    table = pd.DataFrame(
        {
            "term": [terms[column][0] for column in design.columns],
            "kind": [terms[column][1] for column in design.columns],
            "unit": [terms[column][2] for column in design.columns],
            "coef": fit.params.to_numpy(),
            "se": fit.bse.to_numpy(),
            "ci_low": bounds[0].to_numpy(),
            "ci_high": bounds[1].to_numpy(),
            "p_value": fit.pvalues.to_numpy(),
        }
    )
    order = {"measure": 0, "players": 1, "line-up": 2, "intercept": 3}
    table = table.sort_values("kind", key=lambda kind: kind.map(order), kind="stable")
    table = table.reset_index(drop=True)
    table.attrs.update(games=len(design), r_squared=float(fit.rsquared), reference=reference)
    table.attrs.update(confidence=level, notes=notes, clustered=deals is not None)
    return table


def dealer_score_by_rule(
    results: pd.DataFrame, measure: str = "bits", confidence: float = 0.95
) -> pd.DataFrame:
    """One row per rule dealt: its name (or text), ``measure``, its games, and the
    dealer's mean score with its t interval, simplest rule first.

    Examples
    --------
    >>> results = pd.DataFrame({"game": range(4), "rule": ["a", "a", "b", "b"],
    ...     "rule_name": ["red", "red", None, None], "rule_bits": [8.0, 8.0, 20.0, 20.0],
    ...     "dealer_score": [2.0, 4.0, 9.0, 11.0]})
    >>> dealer_score_by_rule(results)[["rule", "games", "mean"]].values.tolist()
    [['red', 2, 3.0], ['b', 2, 10.0]]
    """
    level = _check_confidence(confidence)
    games = games_table(results)
    games = games[games["dealer_score"].notna()]
    column = _measure_column(games, measure)
    names = games["rule_name"] if "rule_name" in games else pd.Series(None, index=games.index)
    label = names.where(names.notna(), games["rule"])
    rows = []
    for rule, group in games.groupby(label, sort=False):
        mean, low, high = mean_ci(group["dealer_score"], level)
        rows.append(
            {
                "rule": rule,
                column: float(group[column].iloc[0]),
                "games": len(group),
                "mean": mean,
                "ci_low": low,
                "ci_high": high,
            }
        )
    table = pd.DataFrame(rows, columns=["rule", column, "games", "mean", "ci_low", "ci_high"])
    return table.sort_values([column, "rule"], kind="stable").reset_index(drop=True)


def agent_labels(results: pd.DataFrame) -> pd.Series:
    """Per row, the agent's name, with its parameters where one name has several.

    A line-up of ``bayes`` and ``{name = "bayes", grammar = "colours_suits"}`` has two
    agents called ``bayes``; their labels tell them apart. An agent told the secret rule
    (``sees_rule``, the oracle) is marked `SEES_RULE_MARK`, so that no table or figure
    passes its score off as a learner's.

    Examples
    --------
    >>> results = pd.DataFrame({"agent": ["bayes", "bayes", "tree"],
    ...                         "agent_params": ["{}", '{"grammar": "x"}', "{}"]})
    >>> agent_labels(results).tolist()
    ['bayes', 'bayes(grammar=x)', 'tree']
    >>> agent_labels(results.assign(sees_rule=[False, False, True])).tolist()
    ['bayes', 'bayes(grammar=x)', 'tree (sees the rule)']
    """
    names = results["agent"].astype(str)
    if "agent_params" in results.columns:
        params = results["agent_params"].fillna("{}").astype(str)
        several = params.groupby(names).transform("nunique") > 1

        def label(name: str, text: str) -> str:
            try:
                values = json.loads(text)
            except json.JSONDecodeError:
                return f"{name}({text})"
            inside = ", ".join(f"{k}={v}" for k, v in sorted(values.items()))
            return f"{name}({inside})" if inside else name

        names = pd.Series(
            [
                label(name, text) if many else name
                for name, text, many in zip(names, params, several, strict=True)
            ],
            index=results.index,
        )
    if "sees_rule" in results.columns:  # told the rule: its figures are no learner's
        told = results["sees_rule"].fillna(False).astype(bool)
        names = names.where(~told, names + SEES_RULE_MARK)
    return names.rename("agent")


def model_usage(results: pd.DataFrame, by: Sequence[str] = ("lineup", "agent")) -> pd.DataFrame:
    """What the seats that report their usage cost (language models,
    `eleusis_lab.agent.Agent.usage`): per agent (and line-up), the seat-games
    (``games``), the totals of ``calls``, ``tokens_in``, ``tokens_out``,
    ``reasoning_tokens`` and ``model_seconds``, and per game ``calls_per_game``,
    ``tokens_per_game`` (in and out) and ``model_s_per_game``. Empty when no seat
    reports any.

    >>> results = pd.DataFrame({"agent": ["llm", "llm", "random"], "calls": [30, 10, None],
    ...     "tokens_in": [9000, 3000, None], "tokens_out": [600, 200, None],
    ...     "reasoning_tokens": [0, 0, None], "model_seconds": [40.0, 20.0, None]})
    >>> model_usage(results, by=["agent"]).loc["llm", ["games", "calls", "tokens_per_game"]]
    games                 2.0
    calls                40.0
    tokens_per_game    6400.0
    Name: llm, dtype: float64
    """
    used = results[results["calls"].notna()] if "calls" in results else results.iloc[:0]
    keys = [key for key in by if key in results.columns]
    if used.empty:
        return pd.DataFrame(columns=[*keys, "games"]).set_index(keys)
    named = used.assign(agent=agent_labels(used)) if "agent" in keys else used
    fields = ["calls", "tokens_in", "tokens_out", "reasoning_tokens", "model_seconds"]
    table = named.groupby(keys, sort=False)[fields].sum()
    table.insert(0, "games", named.groupby(keys, sort=False).size())
    table = table.astype({field: "int64" for field in fields[:-1]})
    table["calls_per_game"] = table["calls"] / table["games"]
    table["tokens_per_game"] = (table["tokens_in"] + table["tokens_out"]) / table["games"]
    table["model_s_per_game"] = table["model_seconds"] / table["games"]
    return table


def leaderboard(
    results: pd.DataFrame,
    by: str | Sequence[str] | None = ("lineup", "agent"),
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Per agent (and line-up): how it scored, erred, won and identified the rule.

    Parameters
    ----------
    results : DataFrame
        A results table: one row per game and seat.
    by : str or list of str
        The grouping columns (those present): by default the line-up and the agent
        (`agent_labels`: the name, with parameters where one name has several).
    confidence : float
        The coverage of the intervals.

    Returns
    -------
    DataFrame
        One row per group, the best mean score first (within each line-up when the
        line-up is a grouping column: a score depends on the table): the ``by``
        columns; ``games`` (seat-games played); ``mean_score``, ``score_ci_low``, ``score_ci_high``
        (`mean_ci`, t); ``mean_wrong_cards`` and its ``wrong_ci_*``; ``win_rate`` and
        its ``win_ci_*`` (`wilson_ci`): a game is won by the seat with the highest score,
        and a tie of k seats gives each a win of 1/k, so the win rates of a game's
        seats add up to 1; ``identification_rate`` and ``identification_ci_*``: the share
        of games in which the agent identified the rule (``plays_to_identify`` not
        null); ``median_plays_to_identify`` and ``plays_ci_*`` (`median_ci`) over those;
        then, for each column a registered game declares with a summary
        (`eleusis_lab.games.table.game_columns`), its summary and interval
        (`eleusis_lab.games.table.ResultColumn.summary_columns`; NaN where no row has
        it): a ``"mean"`` with its t interval (Delphi: ``prediction_accuracy``, the mean
        share of correct tokens, and ``accuracy_ci_*``), a ``"rate"`` of true values with
        its Wilson interval (solo: ``success_rate``, the share of games in which the rule
        was found, and ``success_ci_*``).

    Examples
    --------
    >>> results = pd.DataFrame({"game": [0, 0, 0, 1, 1, 1],
    ...                         "agent": ["a", "b", "c"] * 2,
    ...                         "score": [5.0, 5.0, 1.0, 0.0, 2.0, 1.0]})
    >>> leaderboard(results)[["agent", "mean_score", "win_rate"]]
      agent  mean_score  win_rate
    0     b         3.5      0.75
    1     a         2.5      0.25
    2     c         1.0      0.00
    """
    confidence = _check_confidence(confidence)
    keys = _game_keys(results)
    table = results.copy()
    if "agent" in table.columns:
        table["agent"] = agent_labels(table)
    game = [table[k] for k in keys]
    top = table.groupby(game, dropna=False)["score"].transform("max")
    tied = table["score"].eq(top).astype(float)
    table["_win"] = tied / tied.groupby(game, dropna=False).transform("sum")
    identify = table["plays_to_identify"] if "plays_to_identify" in table.columns else None
    if "rule" in table.columns and table["rule"].isna().all():  # no rule to identify (Secrets)
        identify = None
    group_columns = _by(by, table)
    summarised = [column for column in game_columns() if column.summary is not None]
    rows = []
    for key, group in _groups(table, group_columns):
        n = len(group)
        score, score_low, score_high = mean_ci(group["score"], confidence)
        row: dict[str, Any] = {
            **dict(zip(group_columns, key, strict=True)),
            "games": n,
            "mean_score": score,
            "score_ci_low": score_low,
            "score_ci_high": score_high,
        }
        wrong = group.get("wrong_cards", [])
        row["mean_wrong_cards"], row["wrong_ci_low"], row["wrong_ci_high"] = mean_ci(
            wrong, confidence
        )
        wins = float(group["_win"].sum())
        row["win_rate"] = wins / n
        row["win_ci_low"], row["win_ci_high"] = wilson_ci(wins, n, confidence)
        if identify is None:
            identified = pd.Series([], dtype=float)
            row["identification_rate"] = math.nan
            row["identification_ci_low"] = row["identification_ci_high"] = math.nan
        else:
            identified = identify.loc[group.index].dropna()
            row["identification_rate"] = len(identified) / n
            low, high = wilson_ci(len(identified), n, confidence)
            row["identification_ci_low"], row["identification_ci_high"] = low, high
        median, low, high = median_ci(identified, confidence)
        row["median_plays_to_identify"], row["plays_ci_low"], row["plays_ci_high"] = (
            median,
            low,
            high,
        )
        for column in summarised:
            row.update(_column_summary(group, column, confidence))
        rows.append(row)
    columns = [
        *group_columns,
        "games",
        "mean_score",
        "score_ci_low",
        "score_ci_high",
        "mean_wrong_cards",
        "wrong_ci_low",
        "wrong_ci_high",
        "win_rate",
        "win_ci_low",
        "win_ci_high",
        "identification_rate",
        "identification_ci_low",
        "identification_ci_high",
        "median_plays_to_identify",
        "plays_ci_low",
        "plays_ci_high",
        *(name for column in summarised for name in column.summary_columns),
    ]
    board = pd.DataFrame(rows, columns=columns)
    # A score depends on who else sits at the table: agents rank within their line-up.
    within = [column for column in group_columns if column == "lineup"]
    order = [*within, "mean_score"]
    board = board.sort_values(order, ascending=[True] * len(within) + [False], kind="stable")
    board.attrs.update(confidence=confidence)
    return board.reset_index(drop=True)


def _column_summary(
    group: pd.DataFrame, column: ResultColumn, confidence: float
) -> dict[str, float]:
    """A game's column summarised over ``group`` as it declares (`ResultColumn.summary`),
    by the names of its `ResultColumn.summary_columns`; NaN where no row has a value."""
    values = group[column.name].dropna() if column.name in group else pd.Series([], dtype=float)
    if column.summary == "mean":
        estimate = mean_ci(values, confidence)
    else:  # "rate": the share of true values
        hits = float(values.astype(bool).sum())
        low, high = wilson_ci(hits, len(values), confidence)
        estimate = (hits / len(values) if len(values) else math.nan, low, high)
    return dict(zip(column.summary_columns, estimate, strict=True))


def attach_agents(events: pd.DataFrame, results: pd.DataFrame) -> pd.DataFrame:
    """The events with the ``agent`` (`agent_labels`) and ``lineup`` of the seat that played.

    Events are joined to the results' rows on their game (``experiment``, ``cell``,
    ``game``) and ``seat``; events of no seat (a Delphi oracle's cards, seat -1) get
    none.

    Examples
    --------
    >>> events = pd.DataFrame({"game": [0, 0, 0], "index": [0, 1, 2], "seat": [0, 1, 0],
    ...                        "right": [True, False, True]})
    >>> results = pd.DataFrame({"game": [0, 0], "seat": [0, 1], "agent": ["a", "b"],
    ...                         "lineup": "duo"})
    >>> attach_agents(events, results)["agent"].tolist()
    ['a', 'b', 'a']
    """
    keys = [k for k in _game_keys(events) if k in results.columns] + ["seat"]
    seats = results[keys].copy()
    seats["agent"] = agent_labels(results)
    if "lineup" in results.columns:
        seats["lineup"] = results["lineup"]
    seats = seats.drop_duplicates(keys)
    events = events.drop(columns=[c for c in ("agent", "lineup") if c in events.columns])
    return events.merge(seats, on=keys, how="left", validate="many_to_one")


def _seen_bins(table: pd.DataFrame, seen: str, bin_width: int) -> pd.Series:
    if bin_width < 1:
        raise ValueError(f"bin_width must be at least 1, got {bin_width!r}")
    return (table[seen].astype("int64") // bin_width) * bin_width


def _rate_curve(
    table: pd.DataFrame,
    seen: str,
    success: pd.Series,
    by: list[str],
    bin_width: int,
    confidence: float,
    names: tuple[str, str],
    extra: pd.Series | None = None,
) -> pd.DataFrame:
    """Per group and bin of ``seen``: count, rate of ``success`` and its Wilson interval."""
    count_name, rate_name = names
    table = table.assign(
        _bin=_seen_bins(table, seen, bin_width),
        _x=table[seen].astype(float),
        _ok=success.astype(float),
    )
    if extra is not None:
        table = table.assign(_extra=extra.astype(float))
    rows = []
    for key, group in _groups(table, by):
        for start, part in group.groupby("_bin", sort=True):
            n, k = len(part), float(part["_ok"].sum())
            low, high = wilson_ci(k, n, confidence)
            row = {
                **dict(zip(by, key, strict=True)),
                "cards_seen": int(start),
                "x": float(part["_x"].mean()),
                count_name: n,
                rate_name: k / n,
                "ci_low": low,
                "ci_high": high,
            }
            if extra is not None:
                row["brier"] = float(part["_extra"].mean())
            rows.append(row)
    columns = [*by, "cards_seen", "x", count_name, rate_name, "ci_low", "ci_high"]
    if extra is not None:
        columns.append("brier")
    curve = pd.DataFrame(rows, columns=columns)
    curve.attrs.update(bin_width=bin_width, confidence=confidence)
    return curve


def _with_agents(
    events: pd.DataFrame, results: pd.DataFrame | None, by: list[str] | str | None
) -> tuple[pd.DataFrame, list[str]]:
    wanted = [] if by is None else ([by] if isinstance(by, str) else list(by))
    missing = [column for column in wanted if column not in events.columns]
    if missing and results is not None:
        events = attach_agents(events, results)
        missing = [column for column in wanted if column not in events.columns]
    if missing:
        raise ValueError(
            f"the events have no {', '.join(map(repr, missing))} column: pass the results"
            " table too (results=...) to join the agents to their plays"
        )
    return events, wanted


def learning_curve(
    events: pd.DataFrame,
    results: pd.DataFrame | None = None,
    by: str | Sequence[str] | None = "agent",
    bin_width: int = 5,
    phase: int | None = None,
    confidence: float = 0.95,
    min_plays: int = 1,
    max_seen: int | None = None,
) -> pd.DataFrame:
    """The rate of wrong plays against the verdicts seen so far, per agent.

    A play's ``cards_seen`` is its ``index`` in the game: the number of plays, of every
    seat, judged before it, whose verdicts every player has seen. Plays are pooled in
    bins of ``bin_width``. Only a seat's own plays count (`PLAY_KINDS`, where the events
    have a ``kind``), and with ``results`` the games where nobody plays a card (every
    seat's ``plays`` is 0: in Delphi the oracle places the cards) are left out.

    Parameters
    ----------
    events : DataFrame
        An event table (one row per play, `eleusis_lab.shards.EVENT_SCHEMA`), or one
        that already has the ``by`` columns.
    results : DataFrame, optional
        The results table of the same run, to tell whose play each event was
        (`attach_agents`); needed unless the events have the ``by`` columns.
    by : str, list of str or None
        The grouping columns, e.g. ``["lineup", "agent"]``; None: all plays together.
    bin_width : int
        Plays seen per bin.
    phase : int, optional
        Only the plays of this phase (classic: 1, the phase where players choose from
        their hands; in phase 2 they play their wrong cards back); None: every play.
    confidence : float
        The coverage of the Wilson intervals.
    min_plays : int
        The fewest plays a bin may hold: bins of fewer are left out, so that a curve
        stops where its data thins out (late in long games, or a bin that the end of a
        phase cuts short) instead of ending in rates of 0 or 1 over a few plays.
    max_seen : int, optional
        Only the plays made with fewer than this many verdicts seen. Where a phase makes
        every card of the hand be played (classic's phase 1), its late plays are forced
        (the hand runs out of right cards) and every player's wrong rate climbs there:
        `learning_window` gives the plays where a choice is left.

    Returns
    -------
    DataFrame
        One row per group and bin: the ``by`` columns, ``cards_seen`` (the bin's
        start), ``x`` (the mean cards seen of its plays), ``plays``, ``wrong_rate``,
        ``ci_low``, ``ci_high``.

    Examples
    --------
    >>> events = pd.DataFrame({"agent": "a", "index": [0, 1, 2, 3],
    ...                        "right": [False, False, True, False]})
    >>> learning_curve(events, bin_width=2)[["cards_seen", "plays", "wrong_rate"]]
       cards_seen  plays  wrong_rate
    0           0      2         1.0
    1           2      2         0.5
    >>> learning_curve(events, bin_width=3, min_plays=2)[["cards_seen", "plays"]]
       cards_seen  plays
    0           0      3
    """
    if min_plays < 1:
        raise ValueError(f"min_plays must be at least 1, got {min_plays!r}")
    if "seat" in events.columns:
        events = events[events["seat"] >= 0]
    if "kind" in events.columns:
        events = events[events["kind"].isna() | events["kind"].isin(PLAY_KINDS)]
    if phase is not None and "phase" in events.columns:
        events = events[events["phase"] == phase]
    if results is not None and "plays" in results.columns:
        keys = [k for k in _game_keys(events) if k in results.columns]
        played = results.groupby(keys)["plays"].sum()
        silent = played[played == 0].reset_index()[keys]
        if len(silent):
            marked = events.merge(silent.assign(_silent=True), on=keys, how="left")
            events = events[marked["_silent"].isna().to_numpy()]
    if max_seen is not None:
        events = events[events["index"] < max_seen]
    events, group_columns = _with_agents(events, results, by)
    events = events[events["right"].notna()]
    wrong = ~events["right"].astype(bool)
    curve = _rate_curve(
        events, "index", wrong, group_columns, bin_width, confidence, ("plays", "wrong_rate")
    )
    dense = curve[curve["plays"] >= min_plays].reset_index(drop=True)
    dense.attrs.update(curve.attrs, min_plays=min_plays, max_seen=max_seen)
    return dense


def learning_window(events: pd.DataFrame, phase: int | None = None) -> int | None:
    """The plays of ``phase`` in which players still choose: the first half of the
    phase's plays in a median game (while each player still holds about half of the
    hand dealt). Later, in a phase that makes every card be played, the hands run out
    of right cards, and a curve of wrong plays rises for every player, the random one
    too: that is not forgetting. None without a phase or its plays.

    >>> events = pd.DataFrame({"experiment": "e", "cell": "c", "game": [0] * 50 + [1] * 40,
    ...                        "phase": 1, "index": [*range(50), *range(40)]})
    >>> learning_window(events, phase=1)
    22
    """
    if phase is None or "phase" not in events.columns:
        return None
    plays = events[events["phase"] == phase]
    if plays.empty:
        return None
    per_game = plays.groupby(_game_keys(plays))["index"].max() + 1
    return max(1, int(per_game.median() // 2))


def delphi_accuracy(
    events: pd.DataFrame,
    results: pd.DataFrame | None = None,
    by: str | Sequence[str] | None = "agent",
    bin_width: int = 5,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """How often predictions match the verdicts, against the verdicts seen so far.

    A prediction is "right" when its probability is at least `PREDICTION_THRESHOLD`,
    as a Delphi token; it is a hit when that matches the verdict.

    Parameters
    ----------
    events : DataFrame
        An event table with ``p_right``: of a run with ``predictions = true`` (the
        playing seat's probability that the card it played is right, taken just before
        the verdict), or of Delphi games (a row per card and player: each player's
        probability for each card); rows without one are left out. Or Delphi
        predictions of `eleusis_lab.games.delphi.DelphiRecord.prediction_table`,
        possibly of several games concatenated (``card_index``, ``probability``,
        ``right``).
    results : DataFrame, optional
        The results table, to join the agents to an event table (`attach_agents`).
    by, bin_width, confidence
        As for `learning_curve`.

    Returns
    -------
    DataFrame
        One row per group and bin: the ``by`` columns, ``cards_seen`` (the bin's
        start), ``x``, ``predictions``, ``accuracy``, ``ci_low``, ``ci_high`` (Wilson)
        and ``brier`` (the mean squared difference between the probability and the
        verdict). Empty when there are no predictions.

    Notes
    -----
    In the event table of a game where the seats play (classic, ...) each prediction
    is of the card the agent chose to play, not of a card dealt at random as in Delphi:
    an agent that plays the cards it is surest of looks more accurate than it would be
    in Delphi.

    Examples
    --------
    >>> events = pd.DataFrame({"agent": "a", "index": [0, 1, 2, 3],
    ...                        "right": [True, False, True, True],
    ...                        "p_right": [0.5, 0.9, 0.8, None]})
    >>> delphi_accuracy(events, bin_width=2)[["cards_seen", "predictions", "accuracy"]]
       cards_seen  predictions  accuracy
    0           0            2       0.5
    1           2            1       1.0
    """
    if "probability" in events.columns and "card_index" in events.columns:
        table, seen, probability = events, "card_index", "probability"
    else:
        if "p_right" not in events.columns:
            raise ValueError("the table has neither p_right (events) nor probability (Delphi)")
        table, seen, probability = events, "index", "p_right"
        if "seat" in table.columns:
            table = table[table["seat"] >= 0]
    table = table[table[probability].notna() & table["right"].notna()]
    table, group_columns = _with_agents(table, results, by) if len(table) else (table, [])
    if not len(table):
        columns = [*_by(by, events), "cards_seen", "x", "predictions", "accuracy"]
        return pd.DataFrame(columns=[*columns, "ci_low", "ci_high", "brier"])
    p = table[probability].astype(float)
    right = table["right"].astype(bool)
    hit = (p >= PREDICTION_THRESHOLD) == right
    brier = (p - right.astype(float)) ** 2
    return _rate_curve(
        table,
        seen,
        hit,
        group_columns,
        bin_width,
        confidence,
        ("predictions", "accuracy"),
        extra=brier,
    )


_ARM_LOW = re.compile(r"[\[(]\s*([-+0-9.eE]+)\s*,")


def _arm_order(arms: Sequence[str]) -> list[str]:
    """Arm labels such as ``'bits [5, 20)'`` in the order of their lower edges."""

    def key(arm: str) -> tuple[str, float, str]:
        match = _ARM_LOW.search(arm)
        low = float(match.group(1)) if match else math.inf
        return (arm[: match.start()] if match else arm, low, arm)

    return sorted(set(arms), key=key)


def adaptive_choices(results: pd.DataFrame, dealer: str | None = "adaptive") -> pd.DataFrame:
    """The arm a learning dealer chose in each game, and each arm's cumulative share.

    Parameters
    ----------
    results : DataFrame
        A results table (or a `games_table`) with ``dealer`` and ``arm`` columns.
    dealer : str or None
        The dealers to keep (the ``dealer`` column); None: every game with an arm.

    Returns
    -------
    DataFrame
        Long form, one row per game and arm of its cell, in the order of cells, games
        and arms (arms by their lower edge): ``cell`` and ``lineup`` (when present),
        ``game``, ``shard``, ``step`` (the game's place in its shard: a dealer is made
        fresh for each shard and learns over it), ``arm``, ``chosen`` (the arm of the
        game), ``count`` (games of the cell so far that chose the arm, this one
        included) and ``share`` (``count`` over the games so far). The arm of each game
        is ``table[table["chosen"]]``. Empty when no game matches.

    Examples
    --------
    >>> results = pd.DataFrame({"cell": "c", "dealer": "adaptive", "shard": 0,
    ...                         "game": [0, 1, 2], "arm": ["b [5, 9)", "b [1, 5)", "b [1, 5)"]})
    >>> table = adaptive_choices(results)
    >>> table[["game", "arm", "chosen", "share"]].round(3)
       game       arm  chosen  share
    0     0  b [1, 5)   False  0.000
    1     0  b [5, 9)    True  1.000
    2     1  b [1, 5)    True  0.500
    3     1  b [5, 9)   False  0.500
    4     2  b [1, 5)    True  0.667
    5     2  b [5, 9)   False  0.333
    """
    games = games_table(results) if "game" in results.columns else results
    keep = games["arm"].notna() if "arm" in games.columns else pd.Series(False, games.index)
    if dealer is not None and "dealer" in games.columns:
        keep &= games["dealer"] == dealer
    games = games[keep]
    cell_columns = [c for c in ("experiment", "cell") if c in games.columns]
    context = [*cell_columns, *[c for c in ("lineup",) if c in games.columns]]
    columns = [*context, "game", "shard", "step", "arm", "chosen", "count", "share"]
    if not len(games):
        return pd.DataFrame(columns=columns)
    games = games.sort_values([*cell_columns, "game"], kind="stable")
    if "shard" not in games.columns:
        games = games.assign(shard=0)
    parts = []
    for _, group in _groups(games, cell_columns):
        arms = _arm_order(group["arm"].astype(str).tolist())
        chosen = pd.DataFrame(
            {arm: (group["arm"].astype(str) == arm).to_numpy() for arm in arms},
            index=group.index,
        )
        counts = chosen.cumsum()
        played = np.arange(1, len(group) + 1)[:, np.newaxis]
        share = counts / played
        step = group.groupby("shard").cumcount()
        for i, arm in enumerate(arms):
            part = group[[*context, "game", "shard"]].copy()
            part["step"] = step
            part["arm"] = arm
            part["chosen"] = chosen[arm].to_numpy()
            part["count"] = counts[arm].to_numpy()
            part["share"] = share[arm].to_numpy()
            part["_order"] = i
            parts.append(part)
    table = pd.concat(parts)
    table = table.sort_values([*cell_columns, "game", "_order"], kind="stable")
    return table.drop(columns="_order").reset_index(drop=True)[columns]
