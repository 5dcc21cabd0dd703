"""The reliability diagram (eleusis_lab.plots.plot_calibration) on the Agg backend."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from eleusis_lab.calibration import reliability_table  # noqa: E402
from eleusis_lab.plots import plot_calibration  # noqa: E402


def test_plot_calibration_draws_the_table_and_the_diagonal():
    table = reliability_table([0.9, 0.9, 0.2, 0.2, 0.2, 0.55], [1, 0, 0, 0, 1, 1])
    fig, ax = plt.subplots()
    try:
        assert plot_calibration(table, ax=ax, label="first") is ax
        plot_calibration(table, ax=ax, label="second")  # the diagonal is not drawn twice
        diagonal, curve, again = ax.lines
        assert diagonal.get_xdata().tolist() == [0, 1] == diagonal.get_ydata().tolist()
        filled = table[table["count"] > 0]
        for line in (curve, again):
            np.testing.assert_array_equal(line.get_xdata(), filled["mean_confidence"])
            np.testing.assert_array_equal(line.get_ydata(), filled["accuracy"])
        assert [text.get_text() for text in ax.texts] == ["3", "1", "2"] * 2
        assert ax.get_xlim() == (0.0, 1.0) and ax.get_ylim() == (0.0, 1.0)
        assert ax.get_xlabel() and ax.get_ylabel()
        labels = [text.get_text() for text in ax.get_legend().get_texts()]
        assert labels == ["perfectly calibrated", "first", "second"]
    finally:
        plt.close(fig)
