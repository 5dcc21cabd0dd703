"""Calibration of stated confidences: does a player right 80% of the time when it says 0.8?

Each answer comes with a confidence in [0, 1] and a verdict (correct or not). The
confidences are put in equal-width bins over [0, 1]; in each bin the mean confidence
is compared with the fraction correct (`reliability_table`, drawn by
`eleusis_lab.plots.plot_calibration`), and the gaps, weighted by how many answers
each bin holds, add up to the expected calibration error
(`expected_calibration_error`).

>>> from eleusis_lab.calibration import expected_calibration_error, reliability_table
>>> confidence, correct = [0.9, 0.9, 0.2, 0.2], [1, 0, 0, 0]
>>> round(expected_calibration_error(confidence, correct), 10)  # 0.5*0.4 + 0.5*0.2
0.3
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = [
    "COLUMNS",
    "CalibrationMap",
    "expected_calibration_error",
    "fit_calibration",
    "reliability_table",
]

#: The columns of `reliability_table`, in order.
COLUMNS = ("bin_low", "bin_high", "count", "mean_confidence", "accuracy", "gap")

ArrayLike = Sequence[float] | np.ndarray | pd.Series


def _check(confidence: ArrayLike, correct: ArrayLike, bins: int) -> tuple[np.ndarray, np.ndarray]:
    """The inputs as float arrays, or a ValueError saying what is wrong with them."""
    if isinstance(bins, bool) or not isinstance(bins, int | np.integer) or bins < 1:
        raise ValueError(f"bins must be a positive integer, got {bins!r}")
    try:
        stated = np.asarray(confidence, dtype=float)
        verdicts = np.asarray(correct, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError(f"confidence and correct must be numbers: {error}") from error
    if stated.ndim != 1 or verdicts.ndim != 1:
        raise ValueError("confidence and correct must be one-dimensional")
    if len(stated) != len(verdicts):
        raise ValueError(
            f"confidence and correct differ in length: {len(stated)} and {len(verdicts)}"
        )
    bad = ~np.isfinite(stated) | (stated < 0) | (stated > 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"confidences must be finite and in [0, 1]: {bad.sum()} of {len(stated)} "
            f"are not, the first at index {i} ({float(stated[i])!r})"
        )
    bad = ~np.isin(verdicts, (0.0, 1.0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"correct must be true/false or 1/0: {bad.sum()} of {len(verdicts)} "
            f"are not, the first at index {i} ({float(verdicts[i])!r})"
        )
    return stated, verdicts


def _bin_of(stated: np.ndarray, bins: int) -> np.ndarray:
    # edges as i / bins, not i * (1 / bins): 0.3 is then the low edge of [0.3, 0.4)
    edges = np.arange(bins + 1) / bins
    # the top edge belongs to the last bin, so a confidence of 1 is counted
    return np.minimum(np.searchsorted(edges, stated, side="right") - 1, bins - 1)


def reliability_table(confidence: ArrayLike, correct: ArrayLike, bins: int = 10) -> pd.DataFrame:
    """The mean confidence and the fraction correct in equal-width bins of confidence.

    Bin i holds the confidences in ``[i / bins, (i + 1) / bins)``; the last bin also
    holds 1.0.

    Parameters
    ----------
    confidence : array-like of float
        The stated confidence of each answer, in [0, 1].
    correct : array-like of bool or 0/1
        Whether each answer was correct.
    bins : int
        The number of bins.

    Returns
    -------
    DataFrame
        One row per bin, empty bins included, with the columns ``bin_low``,
        ``bin_high``, ``count``, ``mean_confidence``, ``accuracy`` (the fraction
        correct) and ``gap`` (``accuracy - mean_confidence``: positive when the
        answers are more often right than stated); the means and the gap are NaN in
        an empty bin.

    Raises
    ------
    ValueError
        If the inputs differ in length or are not one-dimensional, a confidence is not
        a finite number in [0, 1], a verdict is not true/false, or bins is not positive.

    Examples
    --------
    >>> table = reliability_table([0.9, 0.95, 0.2, 1.0], [True, False, False, True], bins=5)
    >>> table[["bin_low", "bin_high", "count", "accuracy"]]
       bin_low  bin_high  count  accuracy
    0      0.0       0.2      0       NaN
    1      0.2       0.4      1  0.000000
    2      0.4       0.6      0       NaN
    3      0.6       0.8      0       NaN
    4      0.8       1.0      3  0.666667
    >>> table.loc[4, ["mean_confidence", "gap"]].round(4).tolist()
    [0.95, -0.2833]
    """
    stated, verdicts = _check(confidence, correct, bins)
    which = _bin_of(stated, bins)
    count = np.bincount(which, minlength=bins)
    with np.errstate(invalid="ignore", divide="ignore"):  # 0 / 0 is NaN in empty bins
        mean_confidence = np.bincount(which, weights=stated, minlength=bins) / count
        accuracy = np.bincount(which, weights=verdicts, minlength=bins) / count
    edges = np.arange(bins + 1) / bins
    return pd.DataFrame(
        {
            "bin_low": edges[:-1],
            "bin_high": edges[1:],
            "count": count,
            "mean_confidence": mean_confidence,
            "accuracy": accuracy,
            "gap": accuracy - mean_confidence,
        }
    )


def expected_calibration_error(confidence: ArrayLike, correct: ArrayLike, bins: int = 10) -> float:
    """The gap between confidence and accuracy, bin by bin, weighted by the bins' counts.

    ``sum over bins of count / n * |accuracy - mean_confidence|``, with the bins of
    `reliability_table`: 0 for perfect calibration, at most 1.

    Parameters
    ----------
    confidence : array-like of float
        The stated confidence of each answer, in [0, 1].
    correct : array-like of bool or 0/1
        Whether each answer was correct.
    bins : int
        The number of bins.

    Returns
    -------
    float
        The expected calibration error; NaN when there are no answers.

    Raises
    ------
    ValueError
        As `reliability_table`.

    Examples
    --------
    >>> expected_calibration_error([1.0, 1.0, 0.0], [True, True, False])
    0.0
    >>> expected_calibration_error([0.75, 0.75], [True, True], bins=4)
    0.25
    >>> expected_calibration_error([], [])
    nan
    """
    table = reliability_table(confidence, correct, bins)
    total = int(table["count"].sum())
    if total == 0:
        return float("nan")
    filled = table[table["count"] > 0]
    return float((filled["count"] / total * filled["gap"].abs()).sum())


@dataclass(frozen=True)
class CalibrationMap:
    """A non-decreasing map from a stated confidence to the probability of being right.

    ``x`` and ``y`` are its knots (linear between them, flat outside them), as
    `fit_calibration` finds them; the map goes to JSON and back (`save`, `load`).

    >>> calibrate = CalibrationMap((0.2, 0.9), (0.0, 0.5))
    >>> calibrate(0.9), round(calibrate(0.55), 6), calibrate(1.0)
    (0.5, 0.25, 0.5)
    """

    x: tuple[float, ...]
    y: tuple[float, ...]

    def __post_init__(self) -> None:
        x, y = np.asarray(self.x, float), np.asarray(self.y, float)
        if x.ndim != 1 or len(x) == 0 or x.shape != y.shape:
            raise ValueError("a calibration map needs as many y as x knots, at least one")
        if (np.diff(x) < 0).any() or (np.diff(y) < 0).any():
            raise ValueError("a calibration map's knots must be non-decreasing")
        if ((y < 0) | (y > 1) | ~np.isfinite(x) | ~np.isfinite(y)).any():
            raise ValueError("a calibration map's values must be finite, y in [0, 1]")

    def __call__(self, confidence):
        """The calibrated probability (a float for a float, an array for an array)."""
        value = np.interp(confidence, self.x, self.y)
        return float(value) if np.ndim(value) == 0 else value

    def to_dict(self) -> dict[str, list[float]]:
        return {"x": [float(v) for v in self.x], "y": [float(v) for v in self.y]}

    def save(self, path: str | Path, **about: object) -> None:
        """Write the map as JSON, with any notes on how it was fitted (``about``)."""
        Path(path).write_text(json.dumps({**about, **self.to_dict()}, indent=1) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> CalibrationMap:
        """Read a map `save` wrote; ValueError naming the file when it is not one."""
        try:
            data = json.loads(Path(path).read_text())
            return cls(tuple(data["x"]), tuple(data["y"]))
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise ValueError(f"{path}: not a calibration map ({error})") from error


def fit_calibration(confidence: ArrayLike, correct: ArrayLike) -> CalibrationMap:
    """Fit the map from stated confidence to the fraction correct, keeping its resolution.

    Isotonic regression (scikit-learn's) pools the confidences into blocks of equal
    fraction correct, so a higher confidence never maps lower; used as it is, it maps a
    whole block, a range of confidences, to one value. Here each block's value is put at
    the block's mean confidence and the map is linear between those knots (centred
    isotonic regression, Oron and Flournoy 2017); the first and last blocks keep their
    value out to the lowest and highest confidence seen, and beyond the data the map
    runs to 0 at 0 and 1 at 1. It is strictly increasing wherever the data do not force
    it flat, so two different beliefs are stated differently.

    >>> calibrate = fit_calibration([0.9, 0.9, 0.9, 0.9, 0.3, 0.3], [1, 1, 0, 0, 0, 1])
    >>> [round(v, 6) for v in calibrate.x], calibrate.y  # one block, half right, at 0.7
    ([0.0, 0.3, 0.7, 0.9, 1.0], (0.0, 0.5, 0.5, 0.5, 1.0))
    >>> round(fit_calibration([0.2, 0.8], [0, 1])(0.5), 6)
    0.5
    >>> calibrate = fit_calibration([0.4, 0.5, 0.6, 0.7], [0, 1, 0, 1])
    >>> bool(calibrate(0.45) < calibrate(0.65))  # no range pooled to one value
    True
    """
    from sklearn.isotonic import IsotonicRegression

    stated, verdicts = _check(confidence, correct, 1)
    if not len(stated):
        raise ValueError("no confidences to fit a calibration map to")
    fitted = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip")
    values = fitted.fit_transform(stated, verdicts)
    order = np.argsort(stated, kind="stable")
    stated, values = stated[order], values[order]
    starts = np.flatnonzero(np.r_[True, np.diff(values) != 0])
    centres = np.add.reduceat(stated, starts) / np.diff(np.r_[starts, len(stated)])
    x, y = centres.tolist(), values[starts].tolist()
    # the end blocks hold their value out to the data's edges, then run to (0, 0), (1, 1)
    low, high = float(stated[0]), float(stated[-1])
    if low < x[0]:
        x, y = [low, *x], [y[0], *y]
    if high > x[-1]:
        x, y = [*x, high], [*y, y[-1]]
    if x[0] > 0 and y[0] > 0:
        x, y = [0.0, *x], [0.0, *y]
    if x[-1] < 1 and y[-1] < 1:
        x, y = [*x, 1.0], [*y, 1.0]
    return CalibrationMap(tuple(x), tuple(y))
