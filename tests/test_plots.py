"""The figures (eleusis_lab.plots) on the Agg backend: lines, bars, labels, card rectangles."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import PolyCollection  # noqa: E402
from matplotlib.container import BarContainer  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from eleusis_lab.analysis import (  # noqa: E402
    adaptive_choices,
    dealer_score_by_complexity,
    delphi_accuracy,
    leaderboard,
    learning_curve,
)
from eleusis_lab.games.classic import play_classic  # noqa: E402
from eleusis_lab.games.delphi import play_delphi  # noqa: E402
from eleusis_lab.plots import (  # noqa: E402
    GAMES_LABEL,
    draw_layout,
    layout_figsize,
    plot_adaptive_choices,
    plot_dealer_score,
    plot_dealer_score_panels,
    plot_delphi_accuracy,
    plot_leaderboard,
    plot_learning_curve,
)
from eleusis_lab.registry import parse_agent_list  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture
def games() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "cell": "c",
            "lineup": ["p", "q"] * 6,
            "game": range(12),
            "rule_bits": [10.0, 10.0, 12.0, 12.0, 20.0, 20.0, 22.0, 22.0, 30.0, 30.0, 31.0, 31.0],
            "rule_nodes": [2, 2, 3, 3, 4, 4, 4, 4, 5, 5, 6, 6],
            "dealer_score": [1.0, 2.0, 2.0, 3.0, 4.0, 4.0, 3.0, 7.0, 5.0, 1.0, 6.0, 2.0],
        }
    )


@pytest.fixture
def record():
    return play_classic("color(card) != color(last)", parse_agent_list("random,random"), seed=3)


def fresh_axes():
    return Figure().add_subplot()


def test_dealer_score_one_line_and_band_per_lineup(games):
    table = dealer_score_by_complexity(games, bins=3)
    ax = plot_dealer_score(table, ax=fresh_axes())
    assert len(ax.lines) == 2
    assert sum(isinstance(c, PolyCollection) for c in ax.collections) == 2
    assert [text.get_text() for text in ax.get_legend().get_texts()] == ["p", "q"]
    assert ax.get_xlabel() == "rule description length (bits)"
    assert ax.get_ylabel() == "dealer score (mean, 95% CI)"
    # the points sit at each bin's mean complexity, at its mean score
    p = table[table["lineup"] == "p"]
    assert list(ax.lines[0].get_xdata()) == p["x"].tolist()
    assert list(ax.lines[0].get_ydata()) == p["mean"].tolist()
    no_band = plot_dealer_score(table, ax=fresh_axes(), band=False)
    assert not no_band.collections


def test_dealer_score_panels_one_per_measure(games):
    fig = plot_dealer_score_panels(games, measures=["rule_bits", "rule_nodes"], bins=3)
    assert len(fig.axes) == 2
    assert [ax.get_xlabel() for ax in fig.axes] == [
        "rule description length (bits)",
        "rule size (nodes)",
    ]
    three = plot_dealer_score_panels(
        games, measures=["rule_bits", "rule_nodes", "bits"], fig=Figure()
    )
    assert len(three.axes) == 3  # the fourth cell of the 2 x 2 grid is removed


def test_leaderboard_bars_with_error_bars():
    rows = pd.DataFrame(
        {
            "lineup": ["p"] * 4 + ["q"] * 4,
            "game": [0, 0, 1, 1, 2, 2, 3, 3],
            "agent": ["a", "b"] * 4,
            "score": [3.0, 1.0, 2.0, 2.0, 0.0, 4.0, 1.0, 5.0],
        }
    )
    board = leaderboard(rows)
    ax = plot_leaderboard(board, ax=fresh_axes())
    bars = [patch for patch in ax.patches if isinstance(patch, Rectangle)]
    assert len(bars) == 4
    assert [bar.get_width() for bar in bars] == board["mean_score"].tolist()
    labels = [label.get_text() for label in ax.get_yticklabels()]
    assert labels == [f"{a} ({lu})" for a, lu in zip(board["agent"], board["lineup"], strict=True)]
    (container,) = [c for c in ax.containers if isinstance(c, BarContainer)]
    segments = container.errorbar.lines[2][0].get_segments()  # one error bar per bar
    ends = np.array([segment[:, 0] for segment in segments])
    assert ends == pytest.approx(board[["score_ci_low", "score_ci_high"]].to_numpy())
    assert len({bar.get_facecolor() for bar in bars}) == 2  # a colour per line-up
    rates = plot_leaderboard(board, ax=fresh_axes(), metric="win_rate")
    assert rates.get_xlabel() == "win rate (ties shared) (95% CI)"
    with pytest.raises(ValueError, match="metric"):
        plot_leaderboard(board, metric="elo")


def test_learning_and_accuracy_curves_one_line_per_agent():
    events = pd.DataFrame(
        {
            "agent": ["a", "b", "c"] * 4,
            "index": range(12),
            "right": [True, False, False] * 4,
            "p_right": [0.8, 0.3, 0.6] * 4,
        }
    )
    ax = plot_learning_curve(learning_curve(events, bin_width=6), ax=fresh_axes())
    assert len(ax.lines) == 3
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a", "b", "c"]
    assert ax.get_xlabel().startswith("cards seen")
    ax = plot_delphi_accuracy(delphi_accuracy(events, bin_width=6), ax=fresh_axes())
    assert len(ax.lines) == 3
    assert [list(line.get_ydata()) for line in ax.lines] == [[1.0, 1.0], [1.0, 1.0], [0.0, 0.0]]


def test_adaptive_choices_one_line_per_arm():
    rows = pd.DataFrame(
        {
            "cell": "c",
            "dealer": "adaptive",
            "shard": 0,
            "game": range(6),
            "arm": ["x [1, 2)", "x [2, 3)", "x [3, 4]", "x [1, 2)", "x [1, 2)", "x [2, 3)"],
        }
    )
    ax = plot_adaptive_choices(adaptive_choices(rows), ax=fresh_axes())
    assert [line.get_label() for line in ax.lines] == ["x [1, 2)", "x [2, 3)", "x [3, 4]"]
    assert list(ax.lines[0].get_ydata()) == pytest.approx([1, 1 / 2, 1 / 3, 2 / 4, 3 / 5, 3 / 6])
    two = pd.concat([rows, rows.assign(cell="d", arm="x [1, 2)")])
    ax = plot_adaptive_choices(adaptive_choices(two), ax=fresh_axes())
    assert ax.lines[0].get_ydata()[-1] == pytest.approx((3 / 6 + 1) / 2)  # mean of the cells
    assert "mean of 2 cells" in ax.get_ylabel()


def test_draw_layout_one_rectangle_per_card(record):
    wrong = [event for event in record.events if not event.right]
    ax = draw_layout(record, ax=fresh_axes())
    rectangles = [patch for patch in ax.patches if isinstance(patch, Rectangle)]
    assert len(rectangles) == len(record.main_line) + len(wrong)
    texts = [text.get_text() for text in ax.texts]
    for card in record.main_line:
        assert card.symbol in texts
    red = [t for t in ax.texts if t.get_text() == record.main_line[0].symbol][0]
    assert (red.get_color() == "#c0141b") == record.main_line[0].is_red
    dashed = [r for r in rectangles if r.get_linestyle() == "--"]
    assert len(dashed) == sum(event.phase == 2 for event in wrong)
    assert record.rule in ax.get_title(loc="left")


def test_draw_layout_blocks_and_truncated_columns(record):
    ax = draw_layout(record, ax=fresh_axes(), columns=5, title=False)
    assert ax.get_xlim() == (0.0, 5.0)
    positions = [t.get_text() for t in ax.texts if t.get_text().isdigit()]
    assert positions == [str(i) for i in range(len(record.main_line))]
    deepest = max(
        sum(1 for e in record.events if not e.right and e.position == i)
        for i in range(len(record.main_line))
    )
    assert deepest > 2
    short = draw_layout(record, ax=fresh_axes(), max_rows=2)
    assert len(short.patches) < len(record.main_line) + sum(not e.right for e in record.events)
    assert any(t.get_text().startswith("+") for t in short.texts)


def test_draw_layout_of_a_delphi_game_and_its_own_figure():
    delphi = play_delphi("red(card)", parse_agent_list("oracle"), seed=0)
    ax = draw_layout(delphi)
    assert len(ax.patches) == 52  # every card of the deck: the main line or under it
    width, height = ax.figure.get_size_inches()
    assert (width, height) == pytest.approx(layout_figsize(delphi))


def test_game_record_shows_as_html(record):
    page = record._repr_html_()
    assert page.count("<table") >= 2
    for card in record.main_line:
        assert card.symbol in page
    assert "color(card) != color(last)" in page and "dealer score" in page


def test_dealer_score_bands_skip_bins_of_few_games_and_one_line_shows_its_counts():
    from eleusis_lab.plots import BAND_GAMES, plot_dealer_score

    table = pd.DataFrame(
        {
            "x": [10.0, 20.0, 30.0],
            "games": [2, BAND_GAMES, 12],
            "mean": [5.0, 6.0, 7.0],
            "ci_low": [-7.0, 4.0, 6.0],
            "ci_high": [15.0, 8.0, 8.0],
        }
    )
    ax = plot_dealer_score(table)
    (band,) = ax.collections
    xs = np.concatenate([path.vertices[:, 0] for path in band.get_paths()])
    assert xs.min() == 20.0 and xs.max() == 30.0  # not over the bin of 2 games
    assert [text.get_text() for text in ax.texts] == ["2", str(BAND_GAMES), "12", GAMES_LABEL]
    plt.close("all")


def test_each_points_games_are_written_at_the_foot_a_row_per_lineup(games):
    from matplotlib.colors import same_color

    table = dealer_score_by_complexity(games.iloc[:-1], bins=3)  # q's last bin is short
    ax = plot_dealer_score(table, ax=fresh_axes())
    for line, lineup in zip(ax.lines, ["p", "q"], strict=True):
        part = table[table["lineup"] == lineup]
        texts = [t for t in ax.texts if same_color(t.get_color(), line.get_color())]
        assert [t.get_text() for t in texts] == [str(n) for n in part["games"]]
        assert [t.get_position()[0] for t in texts] == part["x"].tolist()
    # the numbers sit below every line: the axes grew downwards
    low, high = ax.get_ylim()
    numbers = [t for t in ax.texts if t.get_text() != GAMES_LABEL]
    top_row = max(t.get_position()[1] for t in numbers)  # in axes fraction
    assert low + (top_row + 0.05) * (high - low) < table["mean"].min()
    (label,) = [t for t in ax.texts if t.get_text() == GAMES_LABEL]  # says what they are
    assert label.get_position()[1] > top_row


def test_lineups_of_the_same_points_share_one_row_of_games():
    games = pd.DataFrame(
        {
            "lineup": ["p", "q"] * 4,
            "game": range(8),
            "rule_bits": [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0],
            "dealer_score": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
        }
    )
    ax = plot_dealer_score(dealer_score_by_complexity(games), ax=fresh_axes())
    assert [text.get_text() for text in ax.texts] == ["2", "2", GAMES_LABEL]


def test_score_distributions_a_box_per_lineup_and_no_dealer_panel_without_one():
    from eleusis_lab.plots import plot_score_distributions

    results = pd.DataFrame(
        {
            "lineup": ["p"] * 6 + ["q"] * 4,
            "game": [0, 0, 1, 1, 2, 2, 3, 3, 4, 4],
            "score": np.arange(10.0),
            "dealer_score": [1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0, 5.0, 5.0],
        }
    )
    fig = plot_score_distributions(results, fig=Figure())
    dealer, seats = fig.axes
    assert [t.get_text() for t in dealer.get_xticklabels()] == ["p\n(3)", "q\n(2)"]
    assert [t.get_text() for t in seats.get_xticklabels()] == ["p\n(6)", "q\n(4)"]
    assert dealer.get_ylabel() == "dealer score (per game)"
    solo = plot_score_distributions(results.assign(dealer_score=np.nan, lineup="p"), fig=Figure())
    (only,) = solo.axes
    assert [t.get_text() for t in only.get_xticklabels()] == ["all games\n(10)"]


def test_numbers_of_close_points_take_turns_on_two_lines():
    table = pd.DataFrame(
        {
            "x": [10.0, 10.3, 10.6, 30.0],
            "games": [1200, 40, 50, 60],
            "mean": [5.0, 6.0, 6.5, 7.0],
            "ci_low": [4.0, 5.0, 5.5, 6.0],
            "ci_high": [6.0, 7.0, 7.5, 8.0],
        }
    )
    ax = plot_dealer_score(table, ax=fresh_axes())
    numbers = ax.texts[:-1]  # the last says what they are
    assert [text.get_text() for text in numbers] == ["1,200", "40", "50", "60"]
    heights = [text.get_position()[1] for text in numbers]
    assert heights[0] == heights[2] == heights[3] < heights[1]
