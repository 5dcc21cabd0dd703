"""The analysis tables (eleusis_lab.analysis) against small tables computed by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from eleusis_lab.analysis import (
    adaptive_choices,
    agent_labels,
    attach_agents,
    dealer_score_by_complexity,
    delphi_accuracy,
    games_table,
    leaderboard,
    learning_curve,
    learning_window,
    mean_ci,
    median_ci,
    wilson_ci,
)

T_975_2DF = 4.302652729749464  # Student t, 97.5% quantile, 2 degrees of freedom
Z_975 = 1.959963984540054  # standard normal, 97.5% quantile


def wilson_by_hand(k: float, n: int, z: float = Z_975) -> tuple[float, float]:
    p = k / n
    center = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return center - half, center + half


def seat_rows(games: pd.DataFrame, seats: int = 2) -> pd.DataFrame:
    """A results table: each game's row once per seat, with per-seat columns."""
    rows = games.loc[games.index.repeat(seats)].reset_index(drop=True)
    rows["seat"] = np.tile(np.arange(seats), len(games))
    rows["agent"] = np.where(rows["seat"] == 0, "a", "b")
    rows["score"] = rows["seat"].astype(float)
    return rows


@pytest.fixture
def six_games() -> pd.DataFrame:
    """Six games: three with a 2-node rule, three with a 5-node rule."""
    return pd.DataFrame(
        {
            "experiment": "x",
            "cell": "c",
            "lineup": "duo",
            "game": range(6),
            "rule_nodes": [2, 2, 2, 5, 5, 5],
            "rule_bits": [10.0, 12.0, 14.0, 20.0, 22.0, 30.0],
            "dealer_score": [1.0, 2.0, 3.0, 4.0, 4.0, 7.0],
        }
    )


# -- confidence intervals ----------------------------------------------------------------------


def test_mean_ci_t_by_hand():
    mean, low, high = mean_ci([1.0, 2.0, 3.0])
    half = T_975_2DF * 1.0 / math.sqrt(3)
    assert mean == 2.0
    assert low == pytest.approx(2 - half) and high == pytest.approx(2 + half)


def test_mean_ci_ignores_missing_values_and_needs_two():
    assert mean_ci([1.0, None, 3.0, float("nan"), 2.0])[1] == pytest.approx(2 - T_975_2DF / 3**0.5)
    assert mean_ci(pd.array([5, pd.NA], dtype="Int64"))[0] == 5.0
    assert all(math.isnan(v) for v in mean_ci([]))
    mean, low, high = mean_ci([7.0])
    assert mean == 7.0 and math.isnan(low) and math.isnan(high)


def test_mean_ci_bootstrap_is_reproducible_and_brackets_the_mean():
    values = np.arange(20, dtype=float)
    first = mean_ci(values, method="bootstrap", n_boot=500, seed=3)
    assert first == mean_ci(values, method="bootstrap", n_boot=500, seed=3)
    mean, low, high = first
    assert low < mean == 9.5 < high
    # for 20 evenly spread values the two intervals are about as wide
    t_low, t_high = mean_ci(values)[1:]
    assert abs((high - low) - (t_high - t_low)) < 0.5 * (t_high - t_low)
    with pytest.raises(ValueError, match="method"):
        mean_ci(values, method="jackknife")
    with pytest.raises(ValueError, match="confidence"):
        mean_ci(values, confidence=95)


def test_wilson_ci_by_hand_and_at_the_edges():
    assert wilson_ci(3, 10) == pytest.approx(wilson_by_hand(3, 10))
    assert wilson_ci(0, 10)[0] == 0.0 and wilson_ci(10, 10)[1] == 1.0
    assert all(math.isnan(v) for v in wilson_ci(0, 0))
    low, high = wilson_ci(np.array([1, 2]), np.array([4, 4]))
    assert low[1] == pytest.approx(wilson_by_hand(2, 4)[0])


def test_median_ci_from_order_statistics():
    # n = 10: P(Binomial(10, 1/2) <= 1) = 11/1024 <= 0.025 < P(<= 2): the 2nd and 9th values
    assert median_ci([10, 1, 9, 2, 8, 3, 7, 4, 6, 5]) == (5.5, 2.0, 9.0)
    median, low, high = median_ci([4, 1, 3])
    assert median == 3.0 and math.isnan(low) and math.isnan(high)


# -- one row per game --------------------------------------------------------------------------


def test_games_table_keeps_one_row_per_game_without_seat_columns(six_games):
    rows = seat_rows(six_games)
    assert len(rows) == 12
    games = games_table(rows)
    assert len(games) == 6
    assert not {"seat", "agent", "score"} & set(games.columns)
    assert games["dealer_score"].tolist() == six_games["dealer_score"].tolist()


def test_games_of_two_cells_with_the_same_number_stay_apart():
    rows = pd.DataFrame({"cell": ["p", "p", "q", "q"], "game": 0, "seat": [0, 1, 0, 1]})
    assert len(games_table(rows)) == 2


# -- dealer score by complexity ----------------------------------------------------------------


def test_dealer_score_by_complexity_by_hand(six_games):
    table = dealer_score_by_complexity(seat_rows(six_games), measure="rule_nodes")
    assert table["bin"].tolist() == ["2", "5"]
    assert table["games"].tolist() == [3, 3]  # seats counted once
    assert table["mean"].tolist() == [2.0, 5.0]
    assert table["sd"].tolist() == pytest.approx([1.0, math.sqrt(3)])
    half = T_975_2DF / math.sqrt(3) * np.array([1.0, math.sqrt(3)])
    assert table["ci_low"].to_numpy() == pytest.approx(np.array([2.0, 5.0]) - half)
    assert table["ci_high"].to_numpy() == pytest.approx(np.array([2.0, 5.0]) + half)
    assert table["x"].tolist() == [2.0, 5.0]
    assert table["lineup"].tolist() == ["duo", "duo"]
    assert table.attrs["measure"] == "rule_nodes"


def test_dealer_score_bins_from_edges_and_quantiles(six_games):
    table = dealer_score_by_complexity(six_games, measure="bits", bins=[10, 20, 30])
    assert table["bin"].tolist() == ["[10, 20)", "[20, 30]"]  # the last bin closed
    assert table["games"].tolist() == [3, 3]
    assert table["x"].tolist() == [12.0, 24.0]
    quantiles = dealer_score_by_complexity(six_games, measure="rule_bits", bins=2)
    assert quantiles["games"].tolist() == [3, 3]  # the median, 17, splits them
    assert quantiles["low"].tolist() == [10.0, 17.0]
    outside = dealer_score_by_complexity(six_games, measure="bits", bins=[11, 21])
    assert outside["games"].sum() == 3  # 12, 14 and 20
    every = dealer_score_by_complexity(six_games, measure="bits", bins=None)
    assert len(every) == 6 and every["games"].eq(1).all() and every["ci_low"].isna().all()


def test_dealer_score_per_lineup_and_without_scores(six_games):
    games = six_games.assign(lineup=["p", "q"] * 3)
    games.loc[5, "dealer_score"] = None
    table = dealer_score_by_complexity(games, measure="nodes")
    assert table[["lineup", "bin", "games"]].values.tolist() == [
        ["p", "2", 2],
        ["p", "5", 1],
        ["q", "2", 1],
        ["q", "5", 1],
    ]
    pooled = dealer_score_by_complexity(games, measure="nodes", by=None)
    assert "lineup" not in pooled.columns and pooled["games"].tolist() == [3, 2]
    with pytest.raises(ValueError, match="unknown complexity measure 'depth'"):
        dealer_score_by_complexity(games, measure="depth")


# -- leaderboard -------------------------------------------------------------------------------


@pytest.fixture
def three_seats() -> pd.DataFrame:
    # game 0: a and b tie on top (half a win each); game 1: b wins alone
    return pd.DataFrame(
        {
            "cell": "c",
            "lineup": "trio",
            "game": [0, 0, 0, 1, 1, 1],
            "seat": [0, 1, 2] * 2,
            "agent": ["a", "b", "c"] * 2,
            "score": [5.0, 5.0, 1.0, 0.0, 2.0, 1.0],
            "wrong_cards": pd.array([1, 3, 4, 2, 5, pd.NA], dtype="Int64"),
            "plays_to_identify": pd.array([6, pd.NA, pd.NA, 10, 3, pd.NA], dtype="Int64"),
        }
    )


def test_leaderboard_win_rate_with_a_tie(three_seats):
    board = leaderboard(three_seats).set_index("agent")
    assert board.index.tolist() == ["b", "a", "c"]  # best mean score first
    assert board["win_rate"].to_dict() == {"b": 0.75, "a": 0.25, "c": 0.0}
    assert board["games"].tolist() == [2, 2, 2]
    low, high = wilson_by_hand(1.5, 2)
    assert board.loc["b", ["win_ci_low", "win_ci_high"]].tolist() == pytest.approx([low, high])
    assert board.loc["c", "win_ci_low"] == 0.0


def test_leaderboard_scores_wrong_cards_and_identification(three_seats):
    board = leaderboard(three_seats).set_index("agent")
    assert board["mean_score"].to_dict() == {"b": 3.5, "a": 2.5, "c": 1.0}
    half = 12.706204736174703 * math.sqrt(4.5) / math.sqrt(2)  # t(0.975, 1) x sd / sqrt(2)
    assert board.loc["b", "score_ci_low"] == pytest.approx(3.5 - half)
    assert board.loc["c", "mean_wrong_cards"] == 4.0  # the missing count is left out
    assert math.isnan(board.loc["c", "wrong_ci_low"])
    assert board["identification_rate"].to_dict() == {"b": 0.5, "a": 1.0, "c": 0.0}
    assert board.loc["a", "median_plays_to_identify"] == 8.0
    assert board.loc["b", "median_plays_to_identify"] == 3.0
    assert math.isnan(board.loc["c", "median_plays_to_identify"])


def test_leaderboard_per_lineup_and_agents_told_apart_by_parameters(three_seats):
    rows = pd.concat(
        [three_seats, three_seats.assign(lineup="other", cell="d", score=0.0)], ignore_index=True
    )
    board = leaderboard(rows)
    assert len(board) == 6 and set(board["lineup"]) == {"trio", "other"}
    # every game of "other" is a three-way tie: a third of a win each
    assert board[board["lineup"] == "other"]["win_rate"].tolist() == pytest.approx([1 / 3] * 3)
    params = rows.assign(agent="bayes", agent_params=['{"k": 1}', '{"k": 2}', "{}"] * 4)
    assert sorted(leaderboard(params, by="agent")["agent"]) == ["bayes", "bayes(k=1)", "bayes(k=2)"]
    assert agent_labels(three_seats).tolist() == ["a", "b", "c"] * 2


# -- learning curves and predictions -----------------------------------------------------------


@pytest.fixture
def plays() -> tuple[pd.DataFrame, pd.DataFrame]:
    events = pd.DataFrame(
        {
            "cell": "c",
            "game": 0,
            "index": range(8),
            "seat": [0, 1] * 4,
            "phase": [1, 1, 1, 1, 1, 1, 2, 2],
            "right": [False, False, True, False, True, True, False, True],
            "p_right": [0.9, 0.2, 0.6, 0.7, None, 0.8, 0.1, 0.4],
        }
    )
    results = pd.DataFrame({"cell": "c", "game": 0, "seat": [0, 1], "agent": ["a", "b"]})
    return events, results


def test_learning_curve_by_hand(plays):
    events, results = plays
    curve = learning_curve(events, results, bin_width=4)
    # a plays at 0, 2 | 4, 6 (wrong, right | right, wrong); b at 1, 3 | 5, 7
    assert curve[["agent", "cards_seen", "plays", "wrong_rate"]].values.tolist() == [
        ["a", 0, 2, 0.5],
        ["a", 4, 2, 0.5],
        ["b", 0, 2, 1.0],
        ["b", 4, 2, 0.0],
    ]
    assert curve["x"].tolist() == [1.0, 5.0, 2.0, 6.0]
    assert curve.loc[2, "ci_high"] == 1.0
    assert curve.loc[0, ["ci_low", "ci_high"]].tolist() == pytest.approx(wilson_by_hand(1, 2))
    first = learning_curve(events, results, bin_width=4, phase=1)
    assert first["plays"].tolist() == [2, 1, 2, 1]
    pooled = learning_curve(events, by=None, bin_width=8)
    assert pooled[["plays", "wrong_rate"]].values.tolist() == [[8, 0.5]]


def test_learning_curve_leaves_out_sparse_bins(plays):
    events, results = plays
    first = learning_curve(events, results, bin_width=4, phase=1)  # plays 2, 1, 2, 1
    dense = learning_curve(events, results, bin_width=4, phase=1, min_plays=2)
    assert dense[["agent", "cards_seen"]].values.tolist() == [["a", 0], ["b", 0]]
    assert dense.equals(first[first["plays"] >= 2].reset_index(drop=True))
    assert dense.attrs["min_plays"] == 2 and dense.attrs["bin_width"] == 4
    assert learning_curve(events, results, min_plays=100).empty
    with pytest.raises(ValueError, match="min_plays"):
        learning_curve(events, results, min_plays=0)


def test_learning_curve_within_the_window_where_players_still_choose(plays):
    events, results = plays
    # phase 1 holds plays 0-5 of the one game: the first half is plays 0, 1, 2
    assert learning_window(events, phase=1) == 3
    assert learning_window(events, phase=3) is None and learning_window(events) is None
    early = learning_curve(events, results, bin_width=4, phase=1, max_seen=3)
    # a: 0 (wrong), 2 (right); b: 1 (wrong)
    assert early[["agent", "plays", "wrong_rate"]].values.tolist() == [["a", 2, 0.5], ["b", 1, 1.0]]
    assert early.attrs["max_seen"] == 3


def test_learning_curve_needs_the_agents(plays):
    events, results = plays
    with pytest.raises(ValueError, match="pass the results"):
        learning_curve(events)
    joined = attach_agents(events.assign(seat=[0, 1, 0, 1, 0, 1, 0, -1]), results)
    assert joined["agent"].iloc[-2] == "a" and pd.isna(joined["agent"].iloc[-1])
    assert learning_curve(joined, bin_width=8)["plays"].tolist() == [4, 3]  # seat -1 left out


def test_delphi_accuracy_from_events_by_hand(plays):
    events, results = plays
    table = delphi_accuracy(events, results, bin_width=8)
    # a: 0.9 vs wrong (miss), 0.6 right (hit), None (left out), 0.1 vs wrong (hit)
    # b: 0.2 wrong (hit), 0.7 wrong (miss), 0.8 right (hit), 0.4 right (miss)
    assert table[["agent", "predictions", "accuracy"]].values.tolist() == [
        ["a", 3, 2 / 3],
        ["b", 4, 0.5],
    ]
    assert table.loc[0, "brier"] == pytest.approx((0.81 + 0.16 + 0.01) / 3)
    none = delphi_accuracy(events.assign(p_right=None), results)
    assert none.empty and "accuracy" in none.columns


def test_delphi_accuracy_of_a_delphi_game():
    from eleusis_lab.games.delphi import play_delphi
    from eleusis_lab.registry import parse_agent_list

    record = play_delphi("red(card)", parse_agent_list("oracle,random"), seed=1)
    table = delphi_accuracy(record.prediction_table(), bin_width=100)
    assert table["agent"].tolist() == ["OracleAgent", "RandomAgent"]
    assert table["predictions"].tolist() == [51, 51]
    assert table.loc[0, "accuracy"] == 1.0
    hits = record.hits[:, 1].mean()
    assert table.loc[1, "accuracy"] == pytest.approx(hits)


# -- the adaptive dealer -----------------------------------------------------------------------


def test_adaptive_choices_by_hand():
    games = pd.DataFrame(
        {
            "cell": "c",
            "lineup": "duo",
            "dealer": "adaptive",
            "shard": [0, 0, 1, 1],
            "game": [0, 1, 2, 3],
            "arm": ["bits [20, 25)", "bits [5, 20)", "bits [5, 20)", "bits [5, 20)"],
            "dealer_score": [1.0, 2.0, 3.0, 4.0],
        }
    )
    table = adaptive_choices(seat_rows(games))
    assert table["arm"].tolist()[:2] == ["bits [5, 20)", "bits [20, 25)"]  # by lower edge
    chosen = table[table["chosen"]]
    assert chosen["arm"].tolist() == games["arm"].tolist()
    assert chosen["step"].tolist() == [0, 1, 0, 1]  # the dealer is fresh for each shard
    low = table[table["arm"] == "bits [5, 20)"]
    assert low["count"].tolist() == [0, 1, 2, 3]
    assert low["share"].tolist() == [0.0, 0.5, 2 / 3, 0.75]
    shares = table.groupby("game")["share"].sum()
    assert shares.tolist() == pytest.approx([1.0] * 4)


def test_adaptive_choices_keeps_only_that_dealer():
    games = pd.DataFrame(
        {"cell": "c", "dealer": ["spread", "adaptive"], "game": [0, 1], "arm": ["b [1, 2)"] * 2}
    )
    assert len(adaptive_choices(games)) == 1
    assert len(adaptive_choices(games, dealer=None)) == 2
    fixed = games.assign(dealer="fixed", arm=None)
    assert adaptive_choices(fixed, dealer=None).empty


def test_learning_curve_counts_only_the_seats_own_plays(plays):
    events, results = plays
    kinds = events.assign(kind=["play", "string", "set_aside", "dealer", "play", "play", "x", None])
    curve = learning_curve(kinds, results, bin_width=8)
    assert curve["plays"].tolist() == [2, 3]  # a: 0, 4; b: 1 (a string), 5, 7 (no kind)
    assert learning_curve(kinds.assign(kind=None), results, bin_width=8)["plays"].sum() == 8
    # A game where nobody plays a card (Delphi: the oracle places them; every seat's
    # plays is 0) has no learning curve, whatever its name.
    silent = results.assign(game_type="any", plays=0)
    assert learning_curve(events, silent).empty
    other = pd.concat([events, events.assign(game=1)])
    mixed = pd.concat([silent, results.assign(game=1, game_type="any", plays=4)])
    assert learning_curve(other, mixed, bin_width=8)["plays"].sum() == 8


def test_leaderboard_game_specific_columns():
    rows = pd.DataFrame(
        {
            "game": [0, 0, 1, 1],
            "agent": ["a", "b"] * 2,
            "score": [1.0, 0.0, 1.0, 0.0],
            "prediction_accuracy": [1.0, 0.5, 0.8, None],
            "success": pd.array([True, None, False, None], dtype="boolean"),
        }
    )
    board = leaderboard(rows).set_index("agent")
    assert board["prediction_accuracy"].to_dict() == {"a": 0.9, "b": 0.5}
    assert board.loc["a", "success_rate"] == 0.5 and math.isnan(board.loc["b", "success_rate"])
    assert board.loc["a", ["success_ci_low", "success_ci_high"]].tolist() == pytest.approx(
        wilson_by_hand(1, 2)
    )
    plain = leaderboard(rows.drop(columns=["prediction_accuracy", "success"]))
    assert plain["prediction_accuracy"].isna().all() and plain["success_rate"].isna().all()


def test_the_leaderboard_ranks_agents_within_their_line_up():
    """random (at a table of randoms) outscores bayes (against oracles) but is not above it
    in bayes's line-up: each line-up is ranked on its own."""
    rows = pd.DataFrame(
        {
            "lineup": ["weak"] * 4 + ["strong"] * 4,
            "game": [0, 0, 1, 1, 2, 2, 3, 3],
            "seat": [0, 1] * 4,
            "agent": ["random", "tree"] * 2 + ["bayes", "oracle"] * 2,
            "score": [9.0, 1.0, 9.0, 1.0, 2.0, 6.0, 2.0, 6.0],
        }
    )
    board = leaderboard(rows)
    assert board[["lineup", "agent"]].values.tolist() == [
        ["strong", "oracle"],
        ["strong", "bayes"],
        ["weak", "random"],
        ["weak", "tree"],
    ]
