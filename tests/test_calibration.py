"""Calibration of stated confidences (eleusis_lab.calibration), checked against hand sums."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from eleusis_lab.calibration import (
    COLUMNS,
    expected_calibration_error,
    fit_calibration,
    reliability_table,
)


def test_the_worked_example():
    # two answers at 0.9, one right; two at 0.2, none right
    confidence, correct = [0.9, 0.9, 0.2, 0.2], [1, 0, 0, 0]
    table = reliability_table(confidence, correct)
    assert list(table.columns) == list(COLUMNS)
    assert len(table) == 10
    assert table["count"].tolist() == [0, 0, 2, 0, 0, 0, 0, 0, 0, 2]
    low, high = table.loc[2], table.loc[9]
    assert (low["mean_confidence"], low["accuracy"]) == pytest.approx((0.2, 0.0))
    assert (high["mean_confidence"], high["accuracy"]) == pytest.approx((0.9, 0.5))
    assert high["gap"] == pytest.approx(-0.4)
    ece = 0.5 * abs(0.5 - 0.9) + 0.5 * abs(0 - 0.2)
    assert expected_calibration_error(confidence, correct) == pytest.approx(ece)
    assert ece == pytest.approx(0.3)


def test_empty_bins_are_kept_with_nan_means():
    table = reliability_table([0.05], [True], bins=4)
    assert table["count"].tolist() == [1, 0, 0, 0]
    assert table[["mean_confidence", "accuracy", "gap"]].iloc[1:].isna().all().all()
    assert table["count"].dtype.kind == "i"


def test_bin_edges():
    table = reliability_table([], [], bins=4)
    assert table["bin_low"].tolist() == [0.0, 0.25, 0.5, 0.75]
    assert table["bin_high"].tolist() == [0.25, 0.5, 0.75, 1.0]
    assert table["count"].tolist() == [0, 0, 0, 0]


@pytest.mark.parametrize(
    ("confidence", "bins", "expected_bin"),
    [
        (0.0, 10, 0),
        (0.0999, 10, 0),
        (0.1, 10, 1),  # a low edge belongs to its bin
        (0.3, 10, 3),  # 3 * 0.1 is above 0.3 in floating point; the edge is 3 / 10
        (0.7, 10, 7),
        (0.29, 100, 29),
        (0.5, 2, 1),
        (0.999, 10, 9),
        (1.0, 10, 9),  # the top edge goes in the last bin
        (1.0, 1, 0),
    ],
)
def test_which_bin(confidence, bins, expected_bin):
    table = reliability_table([confidence], [1], bins=bins)
    assert table["count"].tolist() == [int(i == expected_bin) for i in range(bins)]


def test_a_perfectly_calibrated_set_has_no_error():
    # in each bin, a fraction correct equal to the confidence stated
    confidence, correct = [], []
    for stated in (0.05, 0.25, 0.5, 0.75, 0.95):
        right = round(stated * 20)
        confidence += [stated] * 20
        correct += [1] * right + [0] * (20 - right)
    assert expected_calibration_error(confidence, correct) == pytest.approx(0.0, abs=1e-12)
    table = reliability_table(confidence, correct)
    filled = table[table["count"] > 0]
    assert np.allclose(filled["gap"], 0)


def test_a_large_calibrated_sample_has_small_error():
    rng = np.random.default_rng(0)
    confidence = rng.uniform(0, 1, 100_000)
    correct = rng.uniform(0, 1, 100_000) < confidence
    assert expected_calibration_error(confidence, correct) < 0.01


def test_always_sure_and_always_wrong_is_the_worst():
    assert expected_calibration_error([1.0, 1.0, 0.0], [0, 0, 1]) == pytest.approx(1.0)


def test_more_bins_and_unequal_weights():
    # 3 answers at 0.6 (2 right), 1 at 0.1 (right): 3/4 * |2/3 - 0.6| + 1/4 * |1 - 0.1|
    confidence, correct = [0.6, 0.6, 0.6, 0.1], [1, 1, 0, 1]
    expected = 0.75 * abs(2 / 3 - 0.6) + 0.25 * 0.9
    assert expected_calibration_error(confidence, correct, bins=5) == pytest.approx(expected)
    # with one bin, only the overall mean gap is left: |3/4 - 0.475|
    assert expected_calibration_error(confidence, correct, bins=1) == pytest.approx(0.275)


def test_array_likes():
    confidence = [0.9, 0.9, 0.2, 0.2]
    correct = [True, False, False, False]
    expected = reliability_table(confidence, correct)
    pd.testing.assert_frame_equal(
        reliability_table(np.array(confidence), np.array(correct)), expected
    )
    pd.testing.assert_frame_equal(
        reliability_table(pd.Series(confidence, index=[5, 6, 7, 8]), pd.Series(correct)), expected
    )


def test_no_data():
    assert math.isnan(expected_calibration_error([], []))
    assert reliability_table([], [])["count"].sum() == 0


@pytest.mark.parametrize(
    ("confidence", "correct", "bins", "message"),
    [
        ([0.5, 0.5], [1], 10, "differ in length: 2 and 1"),
        ([1.5], [1], 10, r"finite and in \[0, 1\]: 1 of 1 are not, the first at index 0 \(1.5\)"),
        ([0.2, -0.1, 3.0], [1, 0, 1], 10, r"2 of 3 are not, the first at index 1 \(-0.1\)"),
        ([0.2, float("nan")], [1, 0], 10, r"finite and in \[0, 1\].*\(nan\)"),
        ([float("inf")], [1], 10, "finite"),
        ([0.5], [2], 10, r"correct must be true/false or 1/0.*index 0 \(2.0\)"),
        ([0.5], [float("nan")], 10, "correct must be true/false"),
        ([[0.5]], [[1]], 10, "one-dimensional"),
        (["high"], [1], 10, "must be numbers"),
        ([0.5], [1], 0, "bins must be a positive integer, got 0"),
        ([0.5], [1], 2.5, "bins must be a positive integer"),
        ([0.5], [1], True, "bins must be a positive integer"),
    ],
)
def test_bad_input(confidence, correct, bins, message):
    with pytest.raises(ValueError, match=message):
        reliability_table(confidence, correct, bins=bins)
    with pytest.raises(ValueError, match=message):
        expected_calibration_error(confidence, correct, bins=bins)


# -- the fitted map ---------------------------------------------------------------------


def test_a_fitted_map_is_monotone_and_calibrates_what_it_was_fitted_on():
    from eleusis_lab.calibration import fit_calibration

    rng = np.random.default_rng(0)
    stated = rng.uniform(0, 1, 4000)
    right = rng.uniform(0, 1, 4000) < stated**2  # overconfident: right with p ** 2
    calibrate = fit_calibration(stated, right)
    grid = np.linspace(0, 1, 101)
    assert (np.diff(calibrate(grid)) >= 0).all()
    assert abs(calibrate(0.8) - 0.64) < 0.1 and abs(calibrate(0.5) - 0.25) < 0.1
    before = expected_calibration_error(stated, right)
    after = expected_calibration_error(calibrate(stated), right)
    assert before > 0.1 and after < 0.03


def test_a_map_goes_to_json_and_back_and_bad_files_are_named(tmp_path):
    from eleusis_lab.calibration import CalibrationMap

    calibrate = CalibrationMap((0.1, 0.5, 0.9), (0.0, 0.3, 0.8))
    calibrate.save(tmp_path / "map.json", agent="bayes", games=12)
    assert CalibrationMap.load(tmp_path / "map.json") == calibrate
    (tmp_path / "bad.json").write_text('{"x": [0.5, 0.1], "y": [0, 1]}')
    with pytest.raises(ValueError, match="bad.json: not a calibration map"):
        CalibrationMap.load(tmp_path / "bad.json")
    with pytest.raises(ValueError, match="none.json"):
        CalibrationMap.load(tmp_path / "none.json")


def test_a_fitted_map_keeps_the_resolution_of_what_it_maps():
    """Isotonic blocks are not flat steps: distinct confidences stay distinct."""
    rng = np.random.default_rng(3)
    stated = rng.random(2000)
    correct = rng.random(2000) < stated
    calibrate = fit_calibration(stated, correct)
    grid = np.linspace(0.02, 0.98, 200)
    assert (np.diff(calibrate(grid)) > 0).all()
    assert np.abs(calibrate(grid) - grid).max() < 0.12
