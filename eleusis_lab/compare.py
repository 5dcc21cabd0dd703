"""Two runs of one study side by side: does the second give the first one's answer?

The study's answer (`eleusis_lab.report`) is a rank correlation of each complexity
measure with the dealer's score, per line-up and over all games, and a regression of
the score on the measures and the line-up. After a change to the agents, the same spec
run again should answer within the first run's 95% intervals: `answer_shift` puts each
estimate of the two runs side by side and says whether the new one lies inside the old
interval, and `eleusis-lab compare OLD NEW` prints it.

Examples
--------
Two small runs of two line-ups, the second's scores shifted by one point everywhere:
the correlations do not move, and only the intercept of the regression leaves its
interval.

>>> rng = np.random.default_rng(0)
>>> bits = rng.uniform(5, 30, 200)
>>> old = pd.DataFrame({"lineup": np.repeat(["a", "b"], 100), "game": np.arange(200),
...                     "rule_bits": bits, "dealer_score": bits / 5 + rng.normal(0, 2, 200)})
>>> new = old.assign(dealer_score=old["dealer_score"] + 1)
>>> table = answer_shift(old, new)
>>> table[["statistic", "group", "term", "inside"]]
     statistic         group                   term  inside
0  correlation             a                   bits    True
1  correlation             b                   bits    True
2  correlation  all line-ups                   bits    True
3   regression                                 bits    True
4   regression                line-up b (against a)    True
5   regression                            intercept   False
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from eleusis_lab.analysis import (
    POOLED,
    complexity_correlations,
    complexity_regression,
    games_table,
)

__all__ = ["answer_shift", "compare_command", "format_answer_shift"]


def _scored(results: pd.DataFrame) -> pd.DataFrame:
    games = games_table(results)
    return games[games["dealer_score"].notna()]


def _correlations(games: pd.DataFrame) -> pd.DataFrame:
    table = complexity_correlations(games)
    group = table.get("lineup", POOLED)
    return pd.DataFrame(
        {
            "statistic": "correlation",
            "group": group,
            "term": table["measure"],
            "estimate": table["rho"],
            "ci_low": table["ci_low"],
            "ci_high": table["ci_high"],
        }
    )


def _regression(games: pd.DataFrame) -> pd.DataFrame:
    table = complexity_regression(games)
    reference = table.attrs.get("reference")
    lineup = table["kind"] == "line-up"
    terms = table["term"].where(~lineup, "line-up " + table["term"] + f" (against {reference})")
    return pd.DataFrame(
        {
            "statistic": "regression",
            "group": "",
            "term": terms,
            "estimate": table["coef"],
            "ci_low": table["ci_low"],
            "ci_high": table["ci_high"],
        }
    )


def _answer(results: pd.DataFrame) -> pd.DataFrame:
    games = _scored(results)
    return pd.concat([_correlations(games), _regression(games)], ignore_index=True)


def answer_shift(old: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
    """Each estimate of the study's answer in two runs, and whether the new one lies
    inside the old 95% interval.

    Parameters
    ----------
    old, new : DataFrame
        Results tables (`eleusis_lab.load_results`) or game tables of the same study.

    Returns
    -------
    DataFrame
        One row per estimate of either run: ``statistic`` (``correlation``: Spearman's
        rank correlation with the dealer's score, or ``regression``: a coefficient),
        ``group`` (the line-up of a correlation, or `POOLED`), ``term`` (the measure or
        the regression's term), ``old``, ``old_low``, ``old_high``, ``new``,
        ``new_low``, ``new_high``, and ``inside``: the new estimate lies in the old
        interval (False where either run lacks the estimate).
    """
    keys = ["statistic", "group", "term"]
    before = _answer(old).set_index(keys)
    after = _answer(new).set_index(keys)
    order = before.index.append(after.index.difference(before.index, sort=False))
    table = pd.concat(
        [
            before.reindex(order).set_axis(["old", "old_low", "old_high"], axis=1),
            after.reindex(order).set_axis(["new", "new_low", "new_high"], axis=1),
        ],
        axis=1,
    ).reset_index()
    table["inside"] = (table["new"] >= table["old_low"]) & (table["new"] <= table["old_high"])
    return table


def _interval(value: float, low: float, high: float) -> str:
    return "-" if np.isnan(value) else f"{value:+.2f} [{low:+.2f}, {high:+.2f}]"


def format_answer_shift(table: pd.DataFrame, old: str = "old", new: str = "new") -> str:
    """`answer_shift`'s table as Markdown, a line per estimate, then how many moved."""
    lines = [
        f"| statistic | line-up | term | {old} [95% CI] | {new} [95% CI] | inside {old}'s"
        " interval |",
        "|---|---|---|---|---|---|",
    ]
    for row in table.itertuples(index=False):
        lines.append(
            f"| {row.statistic} | {row.group} | {row.term} "
            f"| {_interval(row.old, row.old_low, row.old_high)} "
            f"| {_interval(row.new, row.new_low, row.new_high)} "
            f"| {'yes' if row.inside else 'NO'} |"
        )
    inside = int(table["inside"].sum())
    lines += ["", f"{inside} of {len(table)} estimates of {new} lie inside {old}'s 95% intervals."]
    return "\n".join(lines)


def compare_command(old_dir: str | Path, new_dir: str | Path) -> int:
    """``eleusis-lab compare OLD NEW``: print the side-by-side table; exit 1 when an
    estimate of NEW lies outside OLD's interval."""
    from eleusis_lab.storage import load_results

    table = answer_shift(load_results(old_dir), load_results(new_dir))
    print(format_answer_shift(table, str(old_dir), str(new_dir)))
    return 0 if table["inside"].all() else 1
