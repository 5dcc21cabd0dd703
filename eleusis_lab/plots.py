"""Figures of an experiment's results, drawn with matplotlib (any backend, Agg included).

Each function takes the data, usually a table of `eleusis_lab.analysis`, and an
optional ``ax`` to draw into (a new figure otherwise), and returns the Axes (or the
Figure, for several panels). Nothing is shown or saved: in Jupyter the figure shows
itself; a script calls ``ax.figure.savefig(...)``. ``eleusis-lab report``
(`eleusis_lab.report`) draws the same figures into its page.

- `plot_dealer_score`, `plot_dealer_score_panels`: the dealer's mean score against
  the complexity of the rule, with confidence bands, one line per line-up;
- `plot_leaderboard`: a bar per agent (and line-up) with its confidence interval;
- `plot_score_distributions`: box plots of the dealer's and the seats' scores per
  line-up;
- `plot_learning_curve`: wrong-play rate against the verdicts seen, per agent;
- `plot_delphi_accuracy`: prediction accuracy against the verdicts seen, per agent;
- `plot_adaptive_choices`: the cumulative share of each arm of an adaptive dealer;
- `plot_beliefs`: a solo player's confidence in its best guess, turn by turn, and its
  declarations;
- `draw_layout`: a game's table as cards: the main line, wrong cards under the card
  they were played on.

Examples
--------
>>> import pandas as pd
>>> from eleusis_lab.analysis import leaderboard
>>> results = pd.DataFrame({"game": [0, 0, 1, 1], "agent": ["a", "b"] * 2,
...                         "score": [3.0, 1.0, 2.0, 2.0]})
>>> ax = plot_leaderboard(leaderboard(results))
>>> len(ax.patches), [label.get_text() for label in ax.get_yticklabels()]
(2, ['a', 'b'])
>>> plt.close("all")
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from eleusis_lab.analysis import dealer_score_by_complexity, games_table
from eleusis_lab.errors import ConfigError
from eleusis_lab.rules.complexity import complexity_columns, get_measure

__all__ = [
    "LEADERBOARD_METRICS",
    "draw_layout",
    "layout_figsize",
    "measure_label",
    "plot_adaptive_choices",
    "plot_beliefs",
    "plot_calibration",
    "plot_dealer_score",
    "plot_dealer_score_panels",
    "plot_delphi_accuracy",
    "plot_leaderboard",
    "plot_learning_curve",
    "plot_score_distributions",
]

#: What `plot_leaderboard` can show: metric -> (its interval's columns, axis label).
LEADERBOARD_METRICS = {
    "mean_score": (("score_ci_low", "score_ci_high"), "mean score"),
    "mean_wrong_cards": (("wrong_ci_low", "wrong_ci_high"), "mean wrong cards"),
    "win_rate": (("win_ci_low", "win_ci_high"), "win rate (ties shared)"),
    "identification_rate": (
        ("identification_ci_low", "identification_ci_high"),
        "share of games the rule was identified",
    ),
    "median_plays_to_identify": (
        ("plays_ci_low", "plays_ci_high"),
        "median plays to identify the rule",
    ),
}
#: Columns of the analysis tables that are data, not the groups of the lines.
_DATA_COLUMNS = {
    "bin",
    "low",
    "high",
    "x",
    "games",
    "mean",
    "sd",
    "ci_low",
    "ci_high",
    "cards_seen",
    "plays",
    "wrong_rate",
    "predictions",
    "accuracy",
    "brier",
}
_RED, _BLACK = "#c0141b", "#111111"


def measure_label(column: str) -> str:
    """The axis label of a complexity column (its measure's label), else the column.

    >>> measure_label("rule_bits"), measure_label("score")
    ('rule description length (bits)', 'score')
    """
    try:
        measure = get_measure(column)
    except ConfigError:
        return column
    return measure.label or measure.name


def __getattr__(name: str) -> Any:
    if name == "MEASURE_LABELS":  # axis labels of the complexity columns, when named
        return {column: measure_label(column) for column in complexity_columns()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _axes(ax: Axes | None, size: tuple[float, float] = (6.4, 4.0)) -> Axes:
    if ax is not None:
        return ax
    _, ax = plt.subplots(figsize=size, layout="constrained")
    return ax


def _group_columns(table: pd.DataFrame) -> list[str]:
    return [column for column in table.columns if column not in _DATA_COLUMNS]


def _label(key: Any) -> str:
    values = key if isinstance(key, tuple) else (key,)
    return " / ".join(str(value) for value in values)


def _lines(
    table: pd.DataFrame,
    y: str,
    ax: Axes,
    band: bool = True,
    legend_title: str | None = None,
    band_games: int = 1,
    show_games: bool = False,
) -> Axes:
    """One line per group of ``table`` (its non-data columns): ``y`` against ``x``.

    The band is drawn only over points of at least ``band_games`` games (column
    ``games``, where the table has it); ``show_games`` writes each point's games along
    the foot of the axes (`_write_games`).
    """
    groups = _group_columns(table)
    parts = table.groupby(groups, sort=True, dropna=False) if groups else [((), table)]
    counts: list[tuple[list[float], list[int], Any]] = []
    for key, part in parts:
        part = part.sort_values("x")
        (line,) = ax.plot(part["x"], part[y], marker="o", markersize=3.5, label=_label(key))
        games = part["games"].to_numpy(int) if "games" in part.columns else None
        if band and {"ci_low", "ci_high"} <= set(part.columns):
            enough = games >= band_games if games is not None else np.ones(len(part), bool)
            ax.fill_between(
                part["x"].to_numpy(float),
                part["ci_low"].to_numpy(float),
                part["ci_high"].to_numpy(float),
                where=enough,
                color=line.get_color(),
                alpha=0.18,
                linewidth=0,
            )
        if show_games and games is not None:
            counts.append((part["x"].tolist(), games.tolist(), line.get_color()))
    if counts:
        _write_games(ax, counts)
    if groups:
        ax.legend(title=legend_title or ", ".join(groups), fontsize="small", frameon=False)
    ax.grid(alpha=0.3)
    return ax


#: What the numbers along the foot of a figure are, written over them.
GAMES_LABEL = "games per point"
#: The height of a line of games written along the foot of the axes (axes fraction), and
#: the least distance between two numbers on one line (a closer one goes a line up).
_GAMES_LINE, _GAMES_GAP = 0.045, 0.06


def _lines_of(positions: list[float]) -> list[int]:
    """For numbers at these x positions (axes fraction, in order), the line each goes
    on: 0, or 1 when it would crowd the number before it on line 0."""
    lines: list[int] = []
    for i, x in enumerate(positions):
        crowded = i > 0 and x - positions[i - 1] < _GAMES_GAP
        lines.append(1 - lines[-1] if crowded else 0)
    return lines


def _write_games(ax: Axes, rows: list[tuple[list[float], list[int], Any]]) -> None:
    """Each point's games, written under it along the foot of the axes: a row per line
    in its colour, the first on top, or one grey row when every line has the same points
    of the same games (line-ups dealt the same rules); numbers that would crowd each
    other take turns on two lines. The axes grow downwards to make room, so no number
    sits on a line."""
    if len(rows) > 1 and all(row[:2] == rows[0][:2] for row in rows):
        rows = [(rows[0][0], rows[0][1], "0.35")]
    left, right = ax.get_xlim()
    placed = []  # per row: (x, games, line within the row), and its colour
    for xs, games, colour in rows:
        lines = _lines_of([(x - left) / (right - left) for x in xs])
        placed.append((list(zip(xs, games, lines, strict=True)), colour, max(lines) + 1))
    low, high = ax.get_ylim()
    # the rows, and a line over them saying what the numbers are
    room = _GAMES_LINE * (1 + sum(height for *_, height in placed)) + 0.02
    ax.set_ylim(low - room * (high - low) / (1 - room), high)
    foot = ax.get_xaxis_transform()  # x in data, y in axes fraction
    bottom = 0.015
    for numbers, colour, height in reversed(placed):  # the first row on top
        for x, n, line in numbers:
            y = bottom + _GAMES_LINE * line
            ax.text(
                x,
                y,
                f"{n:,}",
                transform=foot,
                ha="center",
                va="bottom",
                fontsize="x-small",
                color=colour,
            )
        bottom += _GAMES_LINE * height
    ax.text(
        0.995,
        bottom,
        GAMES_LABEL,
        transform=ax.transAxes,
        ha="right",
        va="bottom",
        fontsize="x-small",
        color="0.35",
        style="italic",
    )


def _confidence(table: pd.DataFrame) -> str:
    confidence = table.attrs.get("confidence", 0.95)
    return f"{confidence:.0%} CI"


#: Bins of fewer games get no confidence band: a t band over 1 to 4 games says little.
BAND_GAMES = 5


def plot_dealer_score(table: pd.DataFrame, ax: Axes | None = None, band: bool = True) -> Axes:
    """The dealer's mean score against a complexity measure, one line per line-up; bins
    of fewer than `BAND_GAMES` games have no band, and each point's games are written
    under it along the foot of the axes, a row per line-up in its colour (one grey row
    when the line-ups' points hold the same games).

    Parameters
    ----------
    table : DataFrame
        `eleusis_lab.analysis.dealer_score_by_complexity`: each bin's games at ``x``
        (the mean measure of its games), the band from ``ci_low`` to ``ci_high``.
    ax : Axes, optional
        Where to draw; a new figure otherwise.
    band : bool
        Draw the confidence band.

    Returns
    -------
    Axes

    Examples
    --------
    >>> games = pd.DataFrame({"lineup": ["x", "x", "y", "y"], "game": range(4),
    ...                       "rule_bits": [10, 20, 10, 20], "dealer_score": [1, 2, 3, 4]})
    >>> from eleusis_lab.analysis import dealer_score_by_complexity
    >>> ax = plot_dealer_score(dealer_score_by_complexity(games))
    >>> len(ax.lines), ax.get_xlabel()
    (2, 'rule description length (bits)')
    >>> plt.close("all")
    """
    ax = _axes(ax)
    _lines(table, "mean", ax, band, "line-up", band_games=BAND_GAMES, show_games=True)
    measure = table.attrs.get("measure", "")
    ax.set_xlabel(measure_label(measure))
    ax.set_ylabel(f"dealer score (mean, {_confidence(table)})")
    return ax


def plot_dealer_score_panels(
    results: pd.DataFrame,
    measures: Sequence[str] | None = None,
    bins: int | Sequence[float] | None = 5,
    by: str | Sequence[str] | None = "lineup",
    fig: Figure | None = None,
) -> Figure:
    """The dealer's score against each complexity measure, a panel per measure.

    Parameters
    ----------
    results : DataFrame
        A results table.
    measures : list of str, optional
        The complexity columns, one panel each; default: every measure's
        (`eleusis_lab.rules.complexity.complexity_columns`).
    bins, by
        As for `eleusis_lab.analysis.dealer_score_by_complexity`.
    fig : Figure, optional
        Where to draw; a new figure otherwise.

    Returns
    -------
    Figure

    Examples
    --------
    >>> games = pd.DataFrame({"lineup": "x", "game": range(4), "rule_bits": [10, 20, 10, 20],
    ...                       "rule_nodes": [2, 3, 3, 4], "dealer_score": [1, 2, 3, 4]})
    >>> fig = plot_dealer_score_panels(games, measures=["rule_bits", "rule_nodes"])
    >>> len(fig.axes)
    2
    >>> plt.close("all")
    """
    measures = complexity_columns() if measures is None else measures
    n = len(measures)
    cols = min(n, 2)
    rows = -(-n // cols)
    if fig is None:
        fig = plt.figure(figsize=(5.2 * cols, 3.6 * rows), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False)
    for ax, measure in zip(axes.flat, measures, strict=False):
        plot_dealer_score(dealer_score_by_complexity(results, measure, bins, by), ax=ax)
    for ax in axes.flat[n:]:
        ax.remove()
    return fig


def plot_leaderboard(
    board: pd.DataFrame, ax: Axes | None = None, metric: str = "mean_score"
) -> Axes:
    """A horizontal bar per agent (and line-up), the first row on top, with its interval.

    Parameters
    ----------
    board : DataFrame
        `eleusis_lab.analysis.leaderboard`.
    ax : Axes, optional
        Where to draw; a new figure otherwise.
    metric : str
        A key of `LEADERBOARD_METRICS`: ``mean_score``, ``mean_wrong_cards``,
        ``win_rate``, ``identification_rate`` or ``median_plays_to_identify``.

    Returns
    -------
    Axes
        One bar (patch) per row of ``board``; bars of one line-up share a colour.

    Examples
    --------
    >>> board = pd.DataFrame({"agent": ["a", "b"], "win_rate": [0.75, 0.25],
    ...                       "win_ci_low": [0.3, 0.05], "win_ci_high": [0.95, 0.7]})
    >>> ax = plot_leaderboard(board, metric="win_rate")
    >>> len(ax.patches), ax.get_xlabel()
    (2, 'win rate (ties shared) (95% CI)')
    >>> plt.close("all")
    """
    if metric not in LEADERBOARD_METRICS:
        raise ValueError(f"metric must be one of {', '.join(LEADERBOARD_METRICS)}, got {metric!r}")
    (low_column, high_column), label = LEADERBOARD_METRICS[metric]
    ax = _axes(ax, (6.4, 0.8 + 0.42 * max(len(board), 1)))
    value = board[metric].to_numpy(float)
    low = board[low_column].to_numpy(float) if low_column in board else np.full_like(value, np.nan)
    high = (
        board[high_column].to_numpy(float) if high_column in board else np.full_like(value, np.nan)
    )
    error = np.vstack([np.nan_to_num(value - low), np.nan_to_num(high - value)])
    lineups = board["lineup"].astype(str) if "lineup" in board else pd.Series([""] * len(board))
    several = lineups.nunique() > 1
    cycle = plt.rcParams["axes.prop_cycle"].by_key().get("color", ["C0"])
    colour_of = {name: cycle[i % len(cycle)] for i, name in enumerate(sorted(set(lineups)))}
    labels = [
        f"{agent} ({lineup})" if several else str(agent)
        for agent, lineup in zip(board["agent"], lineups, strict=True)
    ]
    y = np.arange(len(board))
    ax.barh(
        y,
        np.nan_to_num(value),
        xerr=error,
        color=[colour_of[name] for name in lineups],
        alpha=0.85,
        error_kw={"elinewidth": 1, "capsize": 3},
    )
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.set_xlabel(f"{label} ({_confidence(board)})")
    ax.grid(axis="x", alpha=0.3)
    return ax


def _by_lineup(table: pd.DataFrame, column: str) -> list[tuple[str, np.ndarray]]:
    """(line-up, its values of ``column`` but the missing ones), per line-up."""
    table = table[table[column].notna()]
    if "lineup" not in table.columns or table["lineup"].nunique() < 2:
        return [("all games", table[column].to_numpy(float))]
    return [
        (str(name), part[column].to_numpy(float))
        for name, part in table.groupby("lineup", sort=False)
    ]


def plot_score_distributions(results: pd.DataFrame, fig: Figure | None = None) -> Figure:
    """How the scores spread, per line-up: box plots of the dealer's score (one value
    per game) and of the seats' scores (one per seat and game), side by side.

    Boxes span the quartiles, whiskers reach the last value within 1.5 interquartile
    ranges, the line is the median and the triangle the mean; each line-up's label
    gives its games (or seat-games). Games without a dealer score (solo) have no dealer
    panel.

    Parameters
    ----------
    results : DataFrame
        A results table (one row per game and seat).
    fig : Figure, optional
        Where to draw; a new figure otherwise.

    Returns
    -------
    Figure
        One Axes per panel.

    Examples
    --------
    >>> results = pd.DataFrame({"lineup": ["p", "p", "q", "q"] * 2,
    ...                         "game": [0, 0, 1, 1, 2, 2, 3, 3],
    ...                         "score": [1.0, 3.0, 2.0, 2.0, 0.0, 5.0, 4.0, 1.0],
    ...                         "dealer_score": [2.0, 2.0, 0.0, 0.0, 5.0, 5.0, 3.0, 3.0]})
    >>> fig = plot_score_distributions(results)
    >>> [ax.get_ylabel() for ax in fig.axes]
    ['dealer score (per game)', 'seat score (per seat and game)']
    >>> [label.get_text().split() for label in fig.axes[0].get_xticklabels()]
    [['p', '(2)'], ['q', '(2)']]
    >>> plt.close("all")
    """
    panels = [("seat score (per seat and game)", _by_lineup(results, "score"))]
    if "dealer_score" in results.columns and results["dealer_score"].notna().any():
        dealer = _by_lineup(games_table(results), "dealer_score")
        panels.insert(0, ("dealer score (per game)", dealer))
    if fig is None:
        width = max(3.0, 1.1 * len(panels[0][1]) + 1.2)
        fig = plt.figure(figsize=(width * len(panels), 3.8), layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False).flat
    for ax, (label, groups) in zip(axes, panels, strict=True):
        positions = np.arange(1, len(groups) + 1)
        ax.boxplot(
            [values for _, values in groups],
            positions=positions,
            showmeans=True,
            widths=0.6,
            flierprops={"markersize": 2, "alpha": 0.4},
        )
        ax.set_xticks(positions, [f"{name}\n({len(values):,})" for name, values in groups])
        ax.set_ylabel(label)
        ax.grid(axis="y", alpha=0.3)
    return fig


def plot_learning_curve(curve: pd.DataFrame, ax: Axes | None = None, band: bool = True) -> Axes:
    """The wrong-play rate against the verdicts seen, one line per agent.

    Parameters
    ----------
    curve : DataFrame
        `eleusis_lab.analysis.learning_curve`.
    ax : Axes, optional
        Where to draw; a new figure otherwise.
    band : bool
        Draw the confidence band (Wilson).

    Returns
    -------
    Axes

    Examples
    --------
    >>> from eleusis_lab.analysis import learning_curve
    >>> events = pd.DataFrame({"agent": ["a", "a", "b", "b"], "index": [0, 5, 1, 6],
    ...                        "right": [False, True, False, False]})
    >>> ax = plot_learning_curve(learning_curve(events))
    >>> len(ax.lines)
    2
    >>> plt.close("all")
    """
    ax = _axes(ax)
    _lines(curve, "wrong_rate", ax, band)
    ax.set_xlabel("cards seen (verdicts before the play)")
    ax.set_ylabel(f"wrong plays (rate, {_confidence(curve)})")
    ax.set_ylim(-0.02, 1.02)
    return ax


def plot_beliefs(beliefs: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """A solo player's confidence in its best guess, turn by turn, and its declarations.

    The line is the probability the agent gives its most probable rule after each turn;
    a filled dot marks a turn where that rule is the secret one. A declaration is a
    star when correct, a cross when wrong.

    Parameters
    ----------
    beliefs : DataFrame
        `eleusis_lab.games.solo.beliefs.solo_beliefs`.
    ax : Axes, optional
        Where to draw; a new figure otherwise.

    Returns
    -------
    Axes

    Examples
    --------
    >>> beliefs = pd.DataFrame({"turn": [1, 2, 3], "probability": [0.2, 0.5, 0.8],
    ...                         "belief_correct": [False, True, True],
    ...                         "declared": [None, None, "red(card)"],
    ...                         "correct": [None, None, True]})
    >>> ax = plot_beliefs(beliefs)
    >>> [len(line.get_xdata()) for line in ax.lines]  # the line, the dots, the star
    [3, 2, 1]
    >>> plt.close("all")
    """
    ax = _axes(ax)
    turns, probability = beliefs["turn"], beliefs["probability"]
    ax.plot(turns, probability, color="0.5", marker="o", markerfacecolor="white", zorder=1)
    secret = beliefs["belief_correct"].fillna(False).astype(bool)
    if secret.any():
        ax.plot(
            turns[secret],
            probability[secret],
            "o",
            color="tab:green",
            zorder=2,
            label="best guess is the secret rule",
        )
    declared = beliefs["declared"].notna()
    for correct, style, label in (
        (True, "*", "correct declaration"),
        (False, "x", "wrong declaration"),
    ):
        rows = declared & (beliefs["correct"] == correct)
        if rows.any():
            ax.plot(
                turns[rows],
                probability[rows],
                style,
                color="tab:red",
                markersize=12,
                zorder=3,
                label=label,
            )
    ax.set_xlabel("turn")
    ax.set_ylabel("probability of the best guess")
    ax.set_ylim(-0.02, 1.02)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="lower right")
    return ax


def plot_delphi_accuracy(table: pd.DataFrame, ax: Axes | None = None, band: bool = True) -> Axes:
    """The accuracy of predictions against the verdicts seen, one line per agent.

    Parameters
    ----------
    table : DataFrame
        `eleusis_lab.analysis.delphi_accuracy`.
    ax : Axes, optional
        Where to draw; a new figure otherwise.
    band : bool
        Draw the confidence band (Wilson).

    Returns
    -------
    Axes

    Examples
    --------
    >>> from eleusis_lab.analysis import delphi_accuracy
    >>> events = pd.DataFrame({"agent": "a", "index": [0, 1, 7],
    ...                        "right": [True, False, True], "p_right": [0.9, 0.8, 0.7]})
    >>> ax = plot_delphi_accuracy(delphi_accuracy(events))
    >>> len(ax.lines), ax.get_ylabel()
    (1, 'predictions matching the verdict (95% CI)')
    >>> plt.close("all")
    """
    ax = _axes(ax)
    _lines(table, "accuracy", ax, band)
    ax.set_xlabel("cards seen (verdicts before the prediction)")
    ax.set_ylabel(f"predictions matching the verdict ({_confidence(table)})")
    ax.set_ylim(-0.02, 1.02)
    return ax


def plot_adaptive_choices(choices: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """The cumulative share of each arm an adaptive dealer chose, game after game.

    Parameters
    ----------
    choices : DataFrame
        `eleusis_lab.analysis.adaptive_choices`. With several cells, each game's share
        is the mean over the cells (their games are numbered alike).
    ax : Axes, optional
        Where to draw; a new figure otherwise.

    Returns
    -------
    Axes
        One line per arm.

    Examples
    --------
    >>> from eleusis_lab.analysis import adaptive_choices
    >>> results = pd.DataFrame({"dealer": "adaptive", "shard": 0, "game": [0, 1, 2],
    ...                         "arm": ["b [5, 9)", "b [1, 5)", "b [1, 5)"]})
    >>> ax = plot_adaptive_choices(adaptive_choices(results))
    >>> [line.get_label() for line in ax.lines]
    ['b [1, 5)', 'b [5, 9)']
    >>> plt.close("all")
    """
    ax = _axes(ax)
    arms = list(dict.fromkeys(choices["arm"]))
    cells = choices["cell"].nunique() if "cell" in choices else 1
    share = choices.groupby(["game", "arm"], sort=True)["share"].mean().unstack("arm")
    for arm in arms:
        ax.plot(share.index, share[arm], label=str(arm), drawstyle="steps-post")
    ax.set_xlabel("game (in the order played)")
    ax.set_ylabel("cumulative share of games" + (f" (mean of {cells} cells)" if cells > 1 else ""))
    ax.set_ylim(-0.02, 1.02)
    if arms:
        ax.legend(title="arm", fontsize="small", frameon=False)
    ax.grid(alpha=0.3)
    return ax


# -- a game's layout ------------------------------------------------------------------------

_CARD_W, _CARD_H, _PITCH_X, _PITCH_Y, _GAP = 0.84, 1.12, 1.0, 1.28, 0.9


def _wrong_under(record: Any) -> list[list[tuple[Any, int]]]:
    """Per main-line position, the wrong cards played on it and their phases."""
    main = record.main_line
    under: list[list[tuple[Any, int]]] = [[] for _ in main]
    for event in getattr(record, "events", ()):
        if not event.right and 0 <= event.position < len(main):
            under[event.position].append((event.card, event.phase))
    return under


def _layout_geometry(record: Any, columns: int, max_rows: int | None):
    """The blocks of the main line, the wrong cards shown and hidden per position, the
    depth of each block and the layout's size in card units."""
    if columns < 1:
        raise ValueError(f"columns must be at least 1, got {columns!r}")
    main = record.main_line
    full = _wrong_under(record)
    under = full
    if max_rows is not None:
        under = [
            column[: max(max_rows - 1, 0)] if len(column) > max_rows else column for column in full
        ]
    hidden = [len(a) - len(b) for a, b in zip(full, under, strict=True)]
    blocks = [range(s, min(s + columns, len(main))) for s in range(0, len(main), columns)]
    depths = [max((len(under[i]) + (hidden[i] > 0) for i in block), default=0) for block in blocks]
    height = sum((1 + d) * _PITCH_Y + _GAP for d in depths) or _PITCH_Y
    width = min(columns, max(len(main), 1)) * _PITCH_X
    return blocks, under, hidden, depths, (width, height)


def _layout_figsize(width: float, height: float, title: bool) -> tuple[float, float]:
    return (0.55 * width + 0.6, 0.55 * height + (0.7 if title else 0.3))


def layout_figsize(
    record: Any, columns: int = 13, max_rows: int | None = None, title: bool = True
) -> tuple[float, float]:
    """The figure size (inches) `draw_layout` gives a record's layout on its own figure.

    >>> from eleusis_lab.games.classic import play_classic
    >>> from eleusis_lab.registry import parse_agent_list
    >>> record = play_classic("red(card)", parse_agent_list("random,random"), seed=0)
    >>> width, height = layout_figsize(record)
    >>> width > 1 and height > 1
    True
    """
    *_, (width, height) = _layout_geometry(record, columns, max_rows)
    return _layout_figsize(width, height, title)


def _card(ax: Axes, x: float, y: float, card: Any, fontsize: float, wrong: bool, phase: int):
    red = bool(getattr(card, "is_red", False))
    face = "#f1f1f1" if wrong else "white"
    ax.add_patch(
        Rectangle(
            (x - _CARD_W / 2, y - _CARD_H / 2),
            _CARD_W,
            _CARD_H,
            facecolor=face,
            edgecolor="#555555",
            linewidth=0.8,
            linestyle="--" if wrong and phase == 2 else "-",
        )
    )
    text = getattr(card, "symbol", str(card))
    ax.text(x, y, text, ha="center", va="center", fontsize=fontsize, color=_RED if red else _BLACK)


def draw_layout(
    record: Any,
    ax: Axes | None = None,
    columns: int = 13,
    max_rows: int | None = None,
    fontsize: float = 8.0,
    title: bool = True,
) -> Axes:
    """A game's table as the players lay it out: the main line and the wrong cards.

    The main line runs left to right in blocks of ``columns`` cards, each card a small
    rectangle with its rank and suit symbol (red or black), its position above it; under
    each card, in its column, the wrong cards played on it (grey; dashed: phase 2, which
    went back to the player). As `eleusis_lab.record.format_layout`, as a picture.

    Parameters
    ----------
    record : GameRecord
        A game record with ``main_line`` and ``events`` (classic, four-to-eight,
        Delphi, solo, New Eleusis).
    ax : Axes, optional
        Where to draw; a new figure sized to the layout otherwise.
    columns : int
        Main-line cards per block.
    max_rows : int, optional
        Show at most this many wrong cards per column, the last row saying how many
        more; None: all.
    fontsize : float
        The size of the cards' text.
    title : bool
        Put the game, seed and rule above.

    Returns
    -------
    Axes
        One `matplotlib.patches.Rectangle` per card drawn (``ax.patches``).

    Examples
    --------
    >>> from eleusis_lab.games.classic import play_classic
    >>> from eleusis_lab.registry import parse_agent_list
    >>> record = play_classic("red(card)", parse_agent_list("random,random"), seed=0)
    >>> ax = draw_layout(record)
    >>> wrong = sum(1 for e in record.events if not e.right)
    >>> len(ax.patches) == len(record.main_line) + wrong
    True
    >>> plt.close("all")
    """
    blocks, under, hidden, depths, (width, height) = _layout_geometry(record, columns, max_rows)
    if ax is None:
        _, ax = plt.subplots(figsize=_layout_figsize(width, height, title), layout="constrained")
    main = record.main_line
    top = 0.0
    for block, depth in zip(blocks, depths, strict=True):
        y = top - _GAP / 2 - _PITCH_Y / 2
        for column, i in enumerate(block):
            x = column * _PITCH_X + _PITCH_X / 2
            ax.text(
                x,
                y + _CARD_H / 2 + 0.08,
                str(i),
                ha="center",
                va="bottom",
                fontsize=5.5,
                color="#888888",
            )
            _card(ax, x, y, main[i], fontsize, wrong=False, phase=1)
            for row, (card, phase) in enumerate(under[i], start=1):
                _card(ax, x, y - row * _PITCH_Y, card, fontsize, wrong=True, phase=phase)
            if hidden[i]:
                ax.text(
                    x,
                    y - (len(under[i]) + 1) * _PITCH_Y,
                    f"+{hidden[i]}",
                    ha="center",
                    va="center",
                    fontsize=fontsize,
                    color="#555555",
                )
        top -= (1 + depth) * _PITCH_Y + _GAP
    ax.set_xlim(0, width)
    ax.set_ylim(min(top, -_PITCH_Y), 0.25)
    ax.set_aspect("equal")
    ax.set_axis_off()
    if title:
        name = f" ({record.rule_name})" if getattr(record, "rule_name", None) else ""
        ax.set_title(
            f"{record.game}, seed {record.seed}: {record.rule}{name}\n"
            "wrong cards under the card they were played on (dashed: phase 2)",
            fontsize=8,
            loc="left",
        )
    return ax


_DIAGONAL = "perfectly calibrated"


def plot_calibration(table: pd.DataFrame, ax: Axes | None = None, label: str | None = None) -> Axes:
    """A reliability diagram: the fraction correct against the stated confidence.

    One point per non-empty bin, at the bin's mean confidence and its fraction correct,
    annotated with its count; the dashed diagonal is perfect calibration (drawn once
    when several tables share the Axes). Points under the diagonal are overconfident.

    Parameters
    ----------
    table : DataFrame
        `eleusis_lab.calibration.reliability_table`.
    ax : Axes, optional
        Where to draw; a new figure otherwise.
    label : str, optional
        The curve's name in the legend (say, the agent), to compare several on one Axes.

    Returns
    -------
    Axes

    Examples
    --------
    >>> from eleusis_lab.calibration import reliability_table
    >>> table = reliability_table([0.9, 0.9, 0.2, 0.2], [1, 0, 0, 0])
    >>> ax = plot_calibration(table, label="agent")
    >>> diagonal, curve = ax.lines
    >>> curve.get_xdata().tolist(), curve.get_ydata().tolist()
    ([0.2, 0.9], [0.0, 0.5])
    >>> [text.get_text() for text in ax.texts]  # the counts
    ['2', '2']
    >>> plt.close("all")
    """
    ax = _axes(ax, (4.8, 4.4))
    if not any(line.get_label() == _DIAGONAL for line in ax.lines):
        ax.plot([0, 1], [0, 1], "--", color="0.6", linewidth=1, zorder=1, label=_DIAGONAL)
    filled = table[table["count"] > 0]
    x = filled["mean_confidence"].to_numpy(float)
    y = filled["accuracy"].to_numpy(float)
    # unclipped, so that points at 0 and 1 show whole on the 0..1 axes
    (curve,) = ax.plot(x, y, marker="o", markersize=4, clip_on=False, zorder=2, label=label)
    for xi, yi, count in zip(x, y, filled["count"], strict=True):
        ax.annotate(
            str(int(count)),
            (xi, yi),
            xytext=(4, 4),
            textcoords="offset points",
            fontsize=7,
            color=curve.get_color(),
        )
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.set_xlabel("stated confidence (mean of the bin)")
    ax.set_ylabel("fraction correct")
    ax.grid(alpha=0.3)
    if label is not None:
        ax.legend(fontsize="small", frameon=False, loc="upper left")
    return ax
