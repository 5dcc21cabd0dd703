"""Results a game declares: the core row is what every game shares, and a game's own
columns (`GameType.columns`) reach the rows, the line-up table and the report from the
registry alone (the toy game of `toy_game`, which no file of ``eleusis_lab`` names)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import eleusis_lab
from eleusis_lab.analysis import leaderboard
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.classic.state import MainLineState
from eleusis_lab.games.conformance import check_game
from eleusis_lab.games.delphi.state import DelphiState
from eleusis_lab.games.new_eleusis.state import NewEleusisState
from eleusis_lab.games.solo.state import SoloState
from eleusis_lab.games.table import (
    GAMES,
    ResultColumn,
    game_columns,
    register_game,
    unregister_game,
)
from eleusis_lab.report import write_report
from eleusis_lab.results_schema import core_columns, row_schema
from eleusis_lab.runner import run_experiment
from eleusis_lab.secrets.state import SecretsState
from tests import toy_game

STREAK = toy_game.STREAK.name


@pytest.fixture
def toy():
    register_game(toy_game.GAME_TYPE)
    yield GAMES[toy_game.NAME]
    unregister_game(toy_game.NAME)


def toy_spec(**changes):
    data = {
        "name": "streaks",
        "game": toy_game.NAME,
        "players": 2,
        "games": 6,
        "shard_size": 3,
        "seed": 4,
        "dealer": {"kind": "catalog", "rules": ["red_only", "suit_cycle"]},
        "agents": ["random", "oracle"],
    }
    return {**data, **changes}


# -- the built-in games keep their columns ---------------------------------------------


def test_the_built_in_games_columns_stand_where_they_stood_with_their_types():
    schema = row_schema()
    at = schema.names.index("model_seconds") + 1
    assert [(f.name, f.type) for f in list(schema)[at : at + 5]] == [
        ("prediction_accuracy", pa.float64()),
        ("success", pa.bool_()),
        ("found_turn", pa.int64()),
        ("wrong_declarations", pa.int64()),
        ("end", pa.string()),
    ]
    assert [c.name for c in GAMES["delphi"].columns] == ["prediction_accuracy"]
    assert [c.name for c in GAMES["solo"].columns] == [
        "success",
        "found_turn",
        "wrong_declarations",
    ]
    assert not set(core_columns()) & {c.name for c in game_columns()}


def test_the_line_up_table_keeps_its_columns_for_the_built_in_games():
    board = leaderboard(
        pd_frame(
            {"game": [0, 1], "agent": ["a", "a"], "score": [1.0, 2.0], "success": [True, False]}
        )
    )
    tail = list(board.columns)[-6:]
    assert tail == [
        "prediction_accuracy",
        "accuracy_ci_low",
        "accuracy_ci_high",
        "success_rate",
        "success_ci_low",
        "success_ci_high",
    ]
    assert board.loc[0, "success_rate"] == 0.5


def pd_frame(data):
    import pandas as pd

    return pd.DataFrame(data)


def test_each_game_names_the_class_of_its_positions():
    states = {name: GAMES[name].state_type for name in GAMES}
    assert states == {
        "classic": MainLineState,
        "delphi": DelphiState,
        "four-to-eight": MainLineState,
        "new-eleusis": NewEleusisState,
        "secrets": SecretsState,
        "solo": SoloState,
    }


# -- a game's own column ----------------------------------------------------------------


def test_no_file_of_the_toolkit_names_the_toy_column():
    package = Path(eleusis_lab.__file__).parent
    assert not [p for p in package.rglob("*.py") if STREAK in p.read_text()]


def test_a_registered_game_adds_its_column_and_takes_it_back(toy):
    names = row_schema().names
    assert names[names.index("wrong_declarations") + 1 : names.index("end")] == [STREAK]
    assert row_schema().field(STREAK).type == pa.int64()
    unregister_game(toy.name)
    assert STREAK not in row_schema().names
    register_game(toy_game.GAME_TYPE)


def test_a_registered_games_column_reaches_the_rows_the_line_up_table_and_the_report(toy, tmp_path):
    table = run_experiment(toy_spec(events=True), out=tmp_path / "run", progress=False)
    assert list(table.columns) == row_schema().names
    stored = pq.read_table(tmp_path / "run" / "rows")
    assert stored.schema.field(STREAK).type == pa.int64()
    # each seat's longest run of right plays, counted again from the event table
    events = pq.read_table(tmp_path / "run" / "events").to_pandas()
    runs = {}
    for (cell, game, seat), plays in events.sort_values("index").groupby(["cell", "game", "seat"]):
        best = run = 0
        for right in plays["right"]:
            run = run + 1 if right else 0
            best = max(best, run)
        runs[cell, game, seat] = best
    assert {(row.cell, row.game, row.seat): row[STREAK] for _, row in table.iterrows()} == runs
    rand = table[table["agent"] == "random"]
    assert table[STREAK].max() > table[STREAK].min()  # the column tells the games apart
    assert table["success"].isna().all() and table["prediction_accuracy"].isna().all()

    board = leaderboard(table).set_index("agent")
    mean, low, high = (f"{STREAK}", f"{STREAK}_ci_low", f"{STREAK}_ci_high")
    assert list(board.columns)[-3:] == [mean, low, high]
    assert board.loc["oracle", mean] == pytest.approx(
        table.loc[table["agent"] == "oracle", STREAK].mean()
    )
    assert board.loc["random", mean] == pytest.approx(rand[STREAK].mean())
    assert board.loc["random", low] <= board.loc["random", mean] <= board.loc["random", high]

    write_report(tmp_path / "run", tmp_path / "report", example_game=False)
    page = (tmp_path / "report" / "report.html").read_text()
    assert "<th>longest streak</th>" in page and "<th>rule found</th>" not in page
    shown = f"{board.loc['oracle', mean]:.1f}"
    assert f'<td class="num">{shown} [' in page


def test_the_toy_game_fills_only_the_column_it_declares(toy):
    check_game(toy, games=3)
    stray = dataclasses.replace(
        toy,
        outcome=lambda record: dataclasses.replace(
            toy_game.ten_cards_outcome(record), extra={"streak": (1, 2)}
        ),
    )
    with pytest.raises(AssertionError, match="Outcome.extra has 'streak', a column not declared"):
        check_game(stray, games=1)


def test_a_state_type_that_is_no_game_state_fails_the_contract(toy):
    with pytest.raises(AssertionError, match="ten-cards: its state_type .* is not a subclass"):
        check_game(dataclasses.replace(toy, state_type=dict), games=1)


# -- names that clash --------------------------------------------------------------------


def test_a_column_named_as_a_core_column_is_refused():
    clash = dataclasses.replace(
        toy_game.GAME_TYPE, columns=(ResultColumn("score", "float64", "a second score"),)
    )
    register_game(clash)  # the results' columns are the results' to check, when read
    try:
        with pytest.raises(ConfigError, match="game 'ten-cards' declares the column 'score', a"):
            row_schema()
    finally:
        unregister_game(toy_game.NAME)


def test_a_column_another_game_declares_otherwise_is_refused_naming_both():
    clash = dataclasses.replace(
        toy_game.GAME_TYPE, columns=(ResultColumn("success", "float64", "points won"),)
    )
    with pytest.raises(
        ConfigError,
        match="game 'ten-cards' declares the column 'success', which game 'solo' declares",
    ):
        register_game(clash)
    assert toy_game.NAME not in GAMES


def test_a_variant_declaring_a_column_alike_shares_it():
    twin = dataclasses.replace(GAMES["solo"], name="solo-twin")
    register_game(twin)
    try:
        assert [c.name for c in game_columns()] == [
            "prediction_accuracy",
            "success",
            "found_turn",
            "wrong_declarations",
        ]
    finally:
        unregister_game("solo-twin")


def test_a_summary_must_be_one_the_tables_know():
    with pytest.raises(ConfigError, match="summary 'median' is not one of mean, rate"):
        ResultColumn("turns", "int64", "turns played", summary="median")
