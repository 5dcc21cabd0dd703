"""The study's answer (eleusis_lab.analysis): rank correlations, the regression and merged
bins, against hand computations, an independent bootstrap and synthetic data whose true
coefficients are known."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from eleusis_lab.analysis import (
    POOLED,
    complexity_correlations,
    complexity_regression,
    dealer_score_by_complexity,
)


def games_of(lineup: str, bits, score, **columns) -> pd.DataFrame:
    return pd.DataFrame(
        {"lineup": lineup, "rule_bits": bits, "dealer_score": score, **columns}
    ).assign(game=lambda table: range(len(table)), cell=lineup)


def test_rank_correlations_by_hand_per_lineup_and_pooled():
    # x 1..5 against 2 1 4 3 5: d = -1 1 -1 1 0, rho = 1 - 6 * 4 / (5 * 24) = 0.8.
    # With ties, 1 1 2 3 against 1 2 3 4: ranks 1.5 1.5 3 4, r of the ranks 4.5 / sqrt(22.5).
    games = pd.concat(
        [
            games_of("p", [1.0, 2.0, 3.0, 4.0, 5.0], [2.0, 1.0, 4.0, 3.0, 5.0]),
            games_of("q", [1.0, 1.0, 2.0, 3.0], [1.0, 2.0, 3.0, 4.0]),
        ]
    )
    table = complexity_correlations(games, measures=["bits"], n_resamples=200)
    assert table["lineup"].tolist() == ["p", "q", POOLED]
    assert table["games"].tolist() == [5, 4, 9]
    assert table["rho"].iloc[0] == pytest.approx(0.8)
    assert table["rho"].iloc[1] == pytest.approx(4.5 / math.sqrt(22.5))
    pooled = stats.spearmanr(games["rule_bits"], games["dealer_score"]).statistic
    assert table["rho"].iloc[2] == pytest.approx(pooled)
    assert (table["ci_low"] <= table["rho"]).all() and (table["rho"] <= table["ci_high"]).all()


def test_each_game_counts_once_whatever_its_seats():
    games = games_of("p", [1.0, 2.0, 3.0, 4.0, 5.0], [2.0, 1.0, 4.0, 3.0, 5.0])
    seats = games.loc[games.index.repeat(4)].assign(seat=np.tile(range(4), 5))
    by_game = complexity_correlations(games, measures=["bits"])
    by_seat = complexity_correlations(seats, measures=["bits"])
    pd.testing.assert_frame_equal(by_game, by_seat)
    assert by_seat["games"].tolist() == [5]  # one line-up: no pooled row


def test_the_bootstrap_interval_agrees_with_scipys():
    rng = np.random.default_rng(1)
    bits = rng.normal(size=80)
    score = 0.4 * bits + rng.normal(size=80)
    table = complexity_correlations(games_of("p", bits, score), measures=["bits"])
    reference = stats.bootstrap(
        (bits, score),
        lambda x, y: stats.spearmanr(x, y).statistic,
        paired=True,
        vectorized=False,
        n_resamples=2000,
        method="percentile",
        random_state=7,
    ).confidence_interval
    assert table["ci_low"].iloc[0] == pytest.approx(reference.low, abs=0.04)
    assert table["ci_high"].iloc[0] == pytest.approx(reference.high, abs=0.04)
    again = complexity_correlations(games_of("p", bits, score), measures=["bits"])
    pd.testing.assert_frame_equal(table, again)  # seeded
    other = complexity_correlations(games_of("p", bits, score), measures=["bits"], seed=1)
    assert other["ci_low"].iloc[0] != table["ci_low"].iloc[0]


def test_whole_deals_are_resampled_as_a_plain_bootstrap_of_deals_would():
    # Two line-ups on the same 60 deals (a deal's games share its seed, its rule and much
    # of their score), one deal's second game missing: the pooled interval against deals
    # drawn one by one. Resampling the games instead narrows it by 0.04-0.05 a side.
    rng = np.random.default_rng(4)
    bits = rng.integers(5, 25, size=60).astype(float)
    shared = rng.normal(size=60) * 2
    games = pd.concat(
        [
            games_of(
                lineup, bits, np.round(0.2 * bits + shared + rng.normal(size=60) * 0.5)
            ).assign(seed=range(60))
            for lineup in ("p", "q")
        ]
    ).iloc[:-1]
    table = complexity_correlations(games, measures=["bits"]).set_index("lineup")
    deals = [games[games["seed"] == deal] for deal in range(60)]
    draws = np.random.default_rng(9).integers(0, 60, size=(2000, 60))
    rhos = [
        stats.spearmanr(
            *pd.concat([deals[d] for d in drawn])[["rule_bits", "dealer_score"]].T.values
        ).statistic
        for drawn in draws
    ]
    low, high = np.quantile(rhos, [0.025, 0.975])
    assert table.loc[POOLED, "ci_low"] == pytest.approx(low, abs=0.02)
    assert table.loc[POOLED, "ci_high"] == pytest.approx(high, abs=0.02)


def test_a_monotone_relation_has_a_point_interval():
    table = complexity_correlations(games_of("p", range(10), np.arange(10) ** 2))
    assert table[["rho", "ci_low", "ci_high"]].iloc[0].tolist() == pytest.approx([1, 1, 1])


def test_degenerate_correlations_are_notes_not_errors():
    games = pd.concat(
        [
            games_of("fixed", [5.0] * 4, [1.0, 2.0, 3.0, 4.0]),
            games_of("flat", [1.0, 2.0, 3.0, 4.0], [2.0] * 4),
            games_of("tiny", [1.0, 2.0], [1.0, 2.0]),
        ]
    )
    table = complexity_correlations(games, measures=["bits"]).set_index("lineup")
    assert table.loc["fixed", "note"] == "the same for every rule dealt"
    assert table.loc["flat", "note"] == "the dealer's score is the same in every game"
    assert table.loc["tiny", "note"] == "too few games (2)"
    assert table.loc[["fixed", "flat", "tiny"], ["rho", "ci_low"]].isna().all().all()
    assert table.loc[POOLED, "note"] == "" and table.loc[POOLED, "games"] == 10
    no_dealer = games.assign(dealer_score=np.nan)
    assert complexity_correlations(no_dealer).empty


def synthetic_games(n: int = 3000, seed: int = 0) -> tuple[pd.DataFrame, dict[str, float]]:
    """Games whose dealer score is a known linear function of the standardised
    measures, the line-up and the players, plus noise of standard deviation 1."""
    rng = np.random.default_rng(seed)
    games = pd.DataFrame(
        {
            "game": range(n),
            "lineup": rng.choice(["base", "mixed", "trees"], size=n),
            "players": rng.choice([3, 4, 5], size=n),
            "rule_bits": rng.uniform(5, 30, size=n),
            "rule_acceptance": rng.beta(2, 2, size=n),
        }
    )
    games.loc[0, "lineup"] = "base"  # the reference: the first line-up of the table
    truth = {"bits": 1.5, "acceptance": -0.8, "players": 0.7, "mixed": 2.0, "trees": -1.0}

    def standard(column: str) -> pd.Series:
        return (games[column] - games[column].mean()) / games[column].std(ddof=1)

    games["dealer_score"] = (
        5.0
        + truth["bits"] * standard("rule_bits")
        + truth["acceptance"] * standard("rule_acceptance")
        + truth["players"] * games["players"]
        + truth["mixed"] * (games["lineup"] == "mixed")
        + truth["trees"] * (games["lineup"] == "trees")
        + rng.normal(size=n)
    )
    return games, truth


def test_the_regression_recovers_known_coefficients():
    games, truth = synthetic_games()
    table = complexity_regression(games, measures=["bits", "acceptance"]).set_index("term")
    assert table.index.tolist() == ["bits", "acceptance", "players", "mixed", "trees", "intercept"]
    assert table["kind"].tolist() == ["measure"] * 2 + ["players"] + ["line-up"] * 2 + ["intercept"]
    for term, value in truth.items():
        assert table.loc[term, "ci_low"] < value < table.loc[term, "ci_high"], term
        assert table.loc[term, "coef"] == pytest.approx(value, abs=0.1), term
    assert table.loc["bits", "unit"] == pytest.approx(games["rule_bits"].std())
    assert table.attrs["reference"] == "base" and table.attrs["games"] == len(games)
    assert 0.5 < table.attrs["r_squared"] < 1 and table.attrs["notes"] == []


def test_the_regression_is_ordinary_least_squares_by_hand():
    games, _ = synthetic_games(n=200, seed=3)
    table = complexity_regression(games, measures=["bits", "acceptance"]).set_index("term")
    z = {m: (games[m] - games[m].mean()) / games[m].std(ddof=1) for m in games if "rule_" in m}
    x = np.column_stack(
        [
            np.ones(len(games)),
            games["lineup"] == "mixed",
            games["lineup"] == "trees",
            games["players"] - games["players"].mean(),
            z["rule_bits"],
            z["rule_acceptance"],
        ]
    ).astype(float)
    y = games["dealer_score"].to_numpy()
    beta = np.linalg.solve(x.T @ x, x.T @ y)
    residuals = y - x @ beta
    sigma2 = residuals @ residuals / (len(y) - x.shape[1])
    se = np.sqrt(np.diag(sigma2 * np.linalg.inv(x.T @ x)))
    t = stats.t.ppf(0.975, len(y) - x.shape[1])
    order = ["intercept", "mixed", "trees", "players", "bits", "acceptance"]
    assert table.loc[order, "coef"].to_numpy() == pytest.approx(beta)
    assert table.loc[order, "se"].to_numpy() == pytest.approx(se)
    assert table.loc[order, "ci_high"].to_numpy() == pytest.approx(beta + t * se)


def test_a_lineup_named_as_a_measure_stays_apart_from_it():
    games, truth = synthetic_games(n=500)
    named = games.assign(lineup=games["lineup"].replace({"mixed": "bits"}))
    table = complexity_regression(named, measures=["bits", "acceptance"])
    assert table["term"].tolist()[:2] == ["bits", "acceptance"]
    assert table["kind"].tolist()[:2] == ["measure", "measure"]
    lineup = table[(table["term"] == "bits") & (table["kind"] == "line-up")]
    assert lineup["ci_low"].iloc[0] < truth["mixed"] < lineup["ci_high"].iloc[0]


def test_degenerate_regressions_are_notes_not_errors():
    games, _ = synthetic_games(n=100)
    one_lineup = games.assign(lineup="only", players=4, rule_nodes=3)
    table = complexity_regression(one_lineup)
    assert table["term"].tolist() == ["bits", "acceptance", "intercept"]
    assert table.attrs["reference"] is None
    assert table.attrs["notes"] == ["nodes: the same for every rule dealt, left out"]

    twin = one_lineup.assign(rule_classes=2 * one_lineup["rule_bits"] + 1)
    table = complexity_regression(twin, measures=["bits", "classes"])
    assert table["term"].tolist() == ["bits", "intercept"]
    assert table.attrs["notes"] == [
        "classes: a linear combination of the terms before it, left out"
    ]

    few = complexity_regression(games.head(4), measures=["bits", "acceptance"])
    assert few.empty and few.attrs["notes"][0].startswith("too few games (4) for ")

    fixed = complexity_regression(one_lineup, measures=["nodes"])
    assert (
        fixed.empty
        and fixed.attrs["notes"][-1] == "no measure varies over these games: no regression"
    )

    delphi = complexity_regression(games.assign(dealer_score=np.nan))
    assert delphi.empty and delphi.attrs["notes"] == ["no dealer score in these games"]

    secrets = games.assign(rule_bits=np.nan, rule_acceptance=np.nan)
    table = complexity_regression(secrets)
    assert (
        table.empty and table.attrs["notes"][0] == "100 games without a complexity figure left out"
    )


def test_bins_merge_until_each_holds_enough_games():
    # values 1..5 held by 10, 25, 40, 5 and 3 games: 1 + 2 make 35; 3 makes 40; 4 + 5
    # make only 8, so they join the bin before: [1, 2] (35 games) and [3, 5] (48).
    counts = [10, 25, 40, 5, 3]
    values = np.repeat([1, 2, 3, 4, 5], counts)
    games = pd.DataFrame(
        {"game": range(len(values)), "rule_nodes": values, "dealer_score": values * 2.0}
    )
    table = dealer_score_by_complexity(games, "nodes", bins=None, by=None, min_games=30)
    assert table["bin"].tolist() == ["[1, 2]", "[3, 5]"]
    assert table["games"].tolist() == [35, 48]
    assert table[["low", "high"]].values.tolist() == [[1, 2], [3, 5]]
    assert table["mean"].tolist() == pytest.approx(
        [(10 * 2 + 25 * 4) / 35, (40 * 6 + 5 * 8 + 3 * 10) / 48]
    )
    assert table["x"].tolist() == pytest.approx([(10 + 50) / 35, (120 + 20 + 15) / 48])
    whole = dealer_score_by_complexity(games, "nodes", bins=None, by=None, min_games=1000)
    assert whole["games"].tolist() == [83] and whole["bin"].tolist() == ["[1, 5]"]
    unmerged = dealer_score_by_complexity(games, "nodes", bins=None, by=None)
    assert unmerged["games"].tolist() == counts


def test_bins_merge_within_each_lineup_and_keep_half_open_edges():
    games = pd.DataFrame(
        {
            "lineup": ["p"] * 6 + ["q"] * 6,
            "game": range(12),
            "rule_bits": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0] * 2,
            "dealer_score": 1.0,
        }
    )
    games = games.drop(index=[6, 7])  # q lacks the two lowest values
    table = dealer_score_by_complexity(games, bins=[0, 2, 4, 8], min_games=3)
    assert table[["lineup", "bin", "games"]].values.tolist() == [
        ["p", "[0, 4)", 3],
        ["p", "[4, 8]", 3],
        ["q", "[2, 8]", 4],
    ]
    with pytest.raises(ValueError, match="min_games"):
        dealer_score_by_complexity(games, min_games=0)


def test_games_that_share_a_deal_are_resampled_and_clustered_together():
    # Four line-ups dealt the same 20 deals and scoring alike: four copies of one sample.
    # Resampling whole deals makes the pooled interval that of one line-up (each copy of
    # a deal moves with it), where resampling games would narrow it as if n were 80.
    rng = np.random.default_rng(3)
    bits = rng.normal(size=20)
    one = pd.DataFrame(
        {
            "game": range(20),
            "seed": range(20),
            "rule_bits": bits,
            "dealer_score": bits + rng.normal(size=20),
        }
    )
    four = pd.concat([one.assign(lineup=name, cell=name) for name in "abcd"], ignore_index=True)
    table = complexity_correlations(four, measures=["bits"])
    alone = table.set_index("lineup").loc["a"]
    pooled = table.set_index("lineup").loc[POOLED]
    assert pooled["games"] == 80
    assert pooled[["rho", "ci_low", "ci_high"]].tolist() == pytest.approx(
        alone[["rho", "ci_low", "ci_high"]].tolist()
    )
    regression = complexity_regression(four.assign(lineup="same"), measures=["bits"])
    independent = complexity_regression(
        four.assign(lineup="same", seed=range(80)), measures=["bits"]
    )
    assert "standard errors clustered by deal (20 deals)" in " ".join(regression.attrs["notes"])
    assert regression.attrs["clustered"] and not independent.attrs["clustered"]
    assert regression.loc[0, "coef"] == pytest.approx(independent.loc[0, "coef"])
    assert regression.loc[0, "se"] > 1.5 * independent.loc[0, "se"]  # about twice
