"""The experiment specs of experiments/: each one loads and runs end to end at a tiny size.

A spec whose game is not (yet) in `eleusis_lab.games.table.GAMES` is skipped, with the
reason. The tiny run plays `TINY` games (or matches) per cell; a spec that needs more
gets its own size in `TINY_GAMES`.
"""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path

import pytest

from eleusis_lab import load_events, run_experiment
from eleusis_lab.games.table import GAMES
from eleusis_lab.spec import load_spec

EXPERIMENTS = Path(__file__).resolve().parent.parent / "experiments"
SPECS = sorted(EXPERIMENTS.glob("*.toml"))
#: Games (or matches) per cell of a spec's tiny run, and the specs that need another size.
TINY = 2
TINY_GAMES = {"adaptive_dealer": 6}  # the bandit tries each of its five bands once


def games_of(data: dict) -> list[str]:
    """The games a spec plays: its ``game`` or its grid's."""
    return list(data.get("grid", {}).get("game", [data.get("game", "classic")]))


@pytest.fixture(params=SPECS, ids=[path.stem for path in SPECS])
def spec_path(request) -> Path:
    path = request.param
    missing = [g for g in games_of(tomllib.loads(path.read_text())) if g not in GAMES]
    if missing:
        pytest.skip(f"{path.name}: the game {', '.join(missing)} is not in GAMES yet")
    return path


def test_there_are_specs():
    assert {"agent_leaderboard", "delphi_accuracy", "adaptive_dealer"} <= {p.stem for p in SPECS}


def test_the_spec_loads_and_is_named_after_its_file(spec_path):
    spec = load_spec(spec_path)
    assert spec.name == spec_path.stem
    assert spec.out in (None, f"results/{spec_path.stem}")


def test_the_spec_runs_at_a_tiny_size(spec_path, tmp_path):
    games = TINY_GAMES.get(spec_path.stem, TINY)
    spec = load_spec(spec_path, games=games)
    table = run_experiment(spec, out=tmp_path, progress=False)
    per_unit = {cell.key: cell.games_per_unit * cell.seats for cell in spec.cells}
    expected = sum(games * per_unit[cell.key] for cell in spec.cells)
    assert len(table) == expected
    assert table["score"].notna().all() and (table["faults"] == 0).all()
    if any(cell.events for cell in spec.cells):
        assert len(load_events(tmp_path))
    if any(cell.predictions for cell in spec.cells):
        assert load_events(tmp_path)["p_right"].notna().any()


def test_the_adaptive_dealer_logs_its_choices_game_by_game(tmp_path):
    table = run_experiment(
        EXPERIMENTS / "adaptive_dealer.toml", out=tmp_path, games=6, progress=False
    )
    games = table.drop_duplicates(["cell", "game"])
    assert (games["shard"] == 0).all()  # one shard: the dealer learns over every game
    assert games["arm"].notna().all() and games["dealer_score"].notna().all()
    assert games["arm"].nunique() == 5  # UCB1 plays each of its five bands first


def test_delphi_accuracy_records_every_players_prediction_of_every_card(tmp_path):
    table = run_experiment(
        EXPERIMENTS / "delphi_accuracy.toml", out=tmp_path, games=1, progress=False
    )
    events = load_events(tmp_path)
    assert len(events) == 51 * len(table)  # one row per card and player
    assert events["p_right"].between(0, 1).all()
    assert table["prediction_accuracy"].between(0, 1).all()


def test_the_study_script_runs_a_spec_and_prints_its_leaderboard(tmp_path, capsys):
    loaded = importlib.util.spec_from_file_location("run_study", EXPERIMENTS / "run_study.py")
    script = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(script)
    table = script.main(["agent_leaderboard", "--games", "1", "--out", str(tmp_path)])
    printed = capsys.readouterr().out
    assert len(table) == 6
    for agent in ("random", "oracle", "tree", "bayes", "bayes-context", "sklearn"):
        assert agent in printed
