"""The experiment runner: rows, seeds, reruns, storage, resume, parallel determinism, CLI."""

from __future__ import annotations

import json
import os
import re
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from eleusis_lab import atomic_files, load_events, load_results, rerun_game, run_experiment, storage
from eleusis_lab.cli import build_parser
from eleusis_lab.dealers import DealerPlan
from eleusis_lab.errors import ConfigError
from eleusis_lab.record import replay
from eleusis_lab.results_schema import SETUP_COLUMNS
from eleusis_lab.runner import RunInterrupted, plan_shards, run_command
from eleusis_lab.shards import EVENT_SCHEMA, ROW_SCHEMA, TIMING_COLUMNS, game_seed
from eleusis_lab.spec import load_spec
from eleusis_lab.storage import done_shards, read_manifest, rows_path, verify_shards, write_table

TESTS = Path(__file__).resolve().parent
KEYS = ["cell", "game", "seat"]


def small(**changes):
    spec = {
        "name": "small",
        "games": 6,
        "shard_size": 4,
        "dealer": {"kind": "catalog", "rules": ["suit_cycle", "color_alternation"]},
        "lineups": [
            {"name": "mixed", "agents": ["random", "oracle"]},
            {"name": "randoms", "agents": ["random"]},
        ],
        "players": 3,
        "grid": {"config.retry_in_turn": [False, True]},
    }
    spec.update(changes)
    return {key: value for key, value in spec.items() if value is not None}


def stable(table: pd.DataFrame) -> pd.DataFrame:
    """The reproducible part of a table, sorted by its keys."""
    return table.drop(columns=list(TIMING_COLUMNS)).sort_values(KEYS).reset_index(drop=True)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("small")
    return run_experiment(small(events=True), out=out, progress=False), out


# -- rows ------------------------------------------------------------------------------------


def test_one_row_per_game_and_seat_with_the_expected_columns(run):
    table, _ = run
    assert list(table.columns) == ROW_SCHEMA.names
    assert len(table) == 4 * 6 * 3  # cells x games x seats
    assert not table.duplicated(KEYS).any()
    per_game = table.groupby(["cell", "game"])
    assert (per_game.size() == 3).all()
    assert (per_game["seat"].apply(sorted).map(tuple) == (0, 1, 2)).all()
    assert set(table["lineup"]) == {"mixed", "randoms"}
    assert set(table["cell"]) == {
        json.dumps({"config.retry_in_turn": retry, "lineup": lineup}, sort_keys=True)
        for retry in (False, True)
        for lineup in ("mixed", "randoms")
    }
    assert set(table["rule_name"]) <= {"suit_cycle", "color_alternation"}
    assert (table["dealer"] == "catalog").all()
    assert table["match"].isna().all()
    # the oracle names the rule from the first play on; random agents never do
    oracle = table["agent"].str.contains("oracle", case=False)
    assert (table.loc[oracle, "plays_to_identify"] == 1).all()
    assert table.loc[~oracle, "plays_to_identify"].isna().all()
    assert (table["shard"] == table["game"] // 3).all()  # 6 games: shards of half, not 4
    assert (table["faults"] == 0).all()
    assert (table["wall_time"] > 0).all()
    # in a mixed line-up, the agents take turns at the seats
    mixed = table[table["lineup"] == "mixed"]
    assert (mixed["slot"] == (mixed["seat"] + mixed["game"]) % 2).all()
    assert (mixed["agent"] == mixed["slot"].map({0: "random", 1: "oracle"})).all()


def test_the_rows_agree_with_the_games_records(run):
    table, _ = run
    for _, game in table.groupby(["cell", "game"]):
        first = game.iloc[0]
        record = rerun_game(first)
        assert replay(record) == []
        assert record.rule == first["rule"]
        assert list(game["score"]) == list(record.player_scores)
        assert (game["dealer_score"] == record.dealer_score).all()
        assert list(game["wrong_cards"]) == [len(pile) for pile in record.wrong_after_phase1]
        assert list(game["cards_left"]) == list(record.cards_left)
        assert game["plays"].sum() == len(record.events) == first["game_plays"]
        assert json.loads(first["config"]) == record.config


def test_rule_complexity_columns_are_the_rules_figures(run):
    from eleusis_lab.rules import parse
    from eleusis_lab.rules.complexity import complexity

    table, _ = run
    for text, rows in table.groupby("rule"):
        figures = complexity(parse(text))
        assert (rows["rule_nodes"] == figures.nodes).all()
        assert np.allclose(rows["rule_bits"], figures.bits)
        assert np.allclose(rows["rule_acceptance"], figures.acceptance)
        assert (rows["rule_classes"] == figures.classes).all()


def test_the_event_table_has_one_row_per_play(run):
    table, out = run
    events = load_events(out)
    assert list(events.columns) == EVENT_SCHEMA.names
    plays = table.drop_duplicates(["cell", "game"]).set_index(["cell", "game"])["game_plays"]
    counts = events.groupby(["cell", "game"]).size()
    assert counts.sort_index().tolist() == plays.sort_index().tolist()
    assert (events.groupby(["cell", "game"])["index"].min() == 0).all()
    assert events["p_right"].isna().all()  # predictions were not asked for


def test_predictions_are_the_playing_agents_probabilities(tmp_path):
    spec = small(predictions=True, games=2, lineups=None, agents=["oracle", "random"], grid=None)
    spec["players"] = 2
    run_experiment(spec, out=tmp_path, progress=False)
    events = load_events(tmp_path)
    table = load_results(tmp_path)
    agent_of = table.set_index(["game", "seat"])["agent"]
    who = [agent_of[(g, s)] for g, s in zip(events["game"], events["seat"], strict=True)]
    oracle = events[[name == "oracle" for name in who]]
    assert ((oracle["p_right"] == 1.0) == oracle["right"]).all()  # the oracle knows
    randoms = events[[name == "random" for name in who]]
    assert (randoms["p_right"] == 0.5).all()


def test_a_rule_is_identified_when_a_confident_proposal_is_equivalent(tmp_path):
    sys.path.insert(0, str(TESTS))
    try:
        spec = small(
            lineups=None,
            grid=None,
            games=3,
            agents=[
                {"name": "runner_agents:Proposer", "after": 4},
                {"name": "runner_agents:Proposer", "wrong": True},
                "random",
            ],
        )
        table = run_experiment(spec, out=tmp_path, progress=False)
    finally:
        sys.path.remove(str(TESTS))
    params = table["agent_params"].map(json.loads)
    right = table[params.map(lambda p: p.get("after") == 4)]
    assert (right["plays_to_identify"] == 4).all()
    wrong = table[params.map(lambda p: p.get("wrong") is True)]
    assert wrong["plays_to_identify"].isna().all()
    assert table[table["agent"] == "random"]["plays_to_identify"].isna().all()


def test_matches_give_a_row_per_game_and_active_seat(tmp_path):
    spec = small(games=None, matches=2, deals_per_player=1, players=None, grid=None, lineups=None)
    spec["agents"] = ["random", "oracle", "random"]
    table = run_experiment(spec, out=tmp_path, progress=False)
    assert len(table) == 2 * 3 * 2  # matches x games per match x active seats
    assert list(table.drop_duplicates("game")["match"]) == [0, 0, 0, 1, 1, 1]
    for _, game in table.groupby("game"):
        dealer = game["dealer_participant"].iloc[0]
        assert list(game["participant"]) == [(dealer + 1) % 3, (dealer + 2) % 3]
        assert (game["players"] == 2).all()
        # participant p of match m plays the line-up's agent (p + m) mod 3
        slots = (game["participant"] + game["match"]) % 3
        assert (game["slot"] == slots).all()
        assert list(rerun_game(game.iloc[0]).player_scores) == list(game["score"])


# -- seeds -------------------------------------------------------------------------------------


def test_game_seeds_derive_from_the_root_seed_and_the_game_number(run):
    table, _ = run
    sequence = np.random.SeedSequence(0).spawn(1)[0].spawn(3)[2]  # spawn key (0, 2)
    assert game_seed(0, 2) == int(sequence.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))
    assert (table["seed"] == table["game"].map(lambda g: game_seed(0, g))).all()
    assert table["seed"].min() >= 0 and table["seed"].max() < 2**63
    # every cell plays the same deals and the same rules: common random numbers
    per_cell = table[table["seat"] == 0].pivot(index="game", columns="cell", values="rule")
    assert (per_cell.nunique(axis=1) == 1).all()


def test_duplicate_deals_play_each_deal_once_per_rotation(tmp_path):
    # three agents on three seats: the deal's three games; 9 games in shards of 4, so a
    # deal spans two shards
    spec = small(
        games=9,
        seed=5,
        lineups=None,
        grid=None,
        agents=["random", "oracle", {"name": "oracle", "choice": "first"}],
        duplicate=True,
    )
    table = run_experiment(spec, out=tmp_path / "one", progress=False)
    games = table[table["seat"] == 0].set_index("game")
    deals = games.index // 3
    assert (games["seed"] == [game_seed(5, deal) for deal in deals]).all()
    assert games.groupby(deals)["seed"].nunique().eq(1).all() and games["seed"].nunique() == 3
    for _, deal in games.groupby(deals):
        hands = [rerun_game(row).deal for _, row in deal.iterrows()]
        assert hands[0] == hands[1] == hands[2]  # the same cards dealt to each seat
    seating = table.groupby([table["game"] // 3, "seat"])["slot"]
    assert all(sorted(slots) == [0, 1, 2] for _, slots in seating)  # each agent at each seat once
    parallel = run_experiment(spec, out=tmp_path / "two", jobs=2, progress=False)
    pd.testing.assert_frame_equal(stable(parallel), stable(table))
    plain = run_experiment({**spec, "duplicate": False}, out=tmp_path / "plain", progress=False)
    assert list(plain[plain["seat"] == 0]["seed"]) == [game_seed(5, g) for g in range(9)]


def test_the_root_seed_changes_every_game(tmp_path):
    one = run_experiment(small(grid={"seed": [1, 2]}), out=tmp_path, progress=False)
    seeds = one[one["seat"] == 0].groupby("cell")["seed"].apply(list)
    assert set(seeds.iloc[0]).isdisjoint(seeds.iloc[-1])


# -- storage ------------------------------------------------------------------------------------


def test_parquet_round_trip(run):
    table, out = run
    assert pq.read_table(out / "rows").schema.equals(ROW_SCHEMA, check_metadata=False)
    pd.testing.assert_frame_equal(load_results(out), table, check_like=False)
    assert table["plays_to_identify"].dtype == "Int64"
    shards = sorted(done_shards(out))
    assert len(shards) == 4 * 2
    metadata = json.loads((out / "metadata.json").read_text())
    assert metadata["experiment"] == "small" and metadata["spec"]["shard_size"] == 4
    run_info = metadata["runs"][-1]
    assert run_info["status"] == "complete" and run_info["shards_run"] == 8
    assert {"python", "numpy", "pandas", "pyarrow"} <= set(run_info["versions"])
    assert {"host", "started", "finished", "seconds", "git"} <= set(run_info)


def test_setup_columns_load_as_one_copy_of_each_text(run):
    """The set-up JSON, the same on every row of a cell, loads as categoricals: their
    texts are those written, and a loaded row still replays its game."""
    table, out = run
    stored = pq.read_table(out / "rows").to_pandas()
    for column in SETUP_COLUMNS:
        assert isinstance(table[column].dtype, pd.CategoricalDtype)
        assert sorted(table[column].astype(str)) == sorted(stored[column])  # shards in any order
        assert len(table[column].cat.categories) == stored[column].nunique()
    row = table.iloc[0]
    assert json.loads(row["table"])[row["seat"]]["agent"] == row["agent"]
    assert rerun_game(row).player_scores[row["seat"]] == row["score"]


def test_a_failed_write_leaves_no_file(tmp_path, monkeypatch):
    import pyarrow as pa

    def broken(table, where):
        Path(where).write_bytes(b"half a file")
        raise OSError("disk full")

    monkeypatch.setattr(pq, "write_table", broken)
    with pytest.raises(OSError):
        write_table(pa.table({"x": [1]}), tmp_path / "rows" / "s.parquet")
    assert list((tmp_path / "rows").iterdir()) == []


def test_resume_runs_only_the_missing_shards(tmp_path):
    first = run_experiment(small(), out=tmp_path, progress=False, games=8)
    assert first.attrs["shards_run"] == 8  # 4 cells of 2 shards of 4 games
    # a temporary file of a killed writer is ignored and cleaned up
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True
    )
    (tmp_path / "rows" / f".tmp-{int(dead.stdout)}-x.parquet.y").write_bytes(b"junk")
    (tmp_path / "rows" / f".tmp-{os.getpid()}-x.parquet.y").write_bytes(b"a live writer's")
    rows_path(tmp_path, "stale").write_bytes(b"")  # no manifest names it: refused
    with pytest.raises(storage.DamagedResults, match="stale.parquet: not in manifest.json"):
        run_experiment(small(), out=tmp_path, progress=False, games=12)
    rows_path(tmp_path, "stale").unlink()
    second = run_experiment(small(), out=tmp_path, progress=False, games=12)
    # the shards [0, 4) and [4, 8) of each cell are the same with 8 or 12 games: kept
    assert (second.attrs["shards_run"], second.attrs["shards_skipped"]) == (4, 8)
    third = run_experiment(small(), out=tmp_path, progress=False, games=12)
    assert (third.attrs["shards_run"], third.attrs["shards_skipped"]) == (0, 12)
    assert [p.name for p in (tmp_path / "rows").glob(".tmp-*")] == [
        f".tmp-{os.getpid()}-x.parquet.y"
    ]
    pd.testing.assert_frame_equal(stable(second), stable(third))
    assert len(json.loads((tmp_path / "metadata.json").read_text())["runs"]) == 3


def _script(out: Path, spec: Path) -> list[str]:
    code = (
        "import sys\n"
        "from eleusis_lab.cli import build_parser\n"
        "args = build_parser().parse_args(['run', *sys.argv[1:]])\n"
        "sys.exit(args.run(args))\n"
    )
    return [sys.executable, "-c", code, str(spec), "--out", str(out), "--quiet"]


def _slow_spec(tmp_path: Path) -> Path:
    path = tmp_path / "slow.toml"
    path.write_text(
        'name = "slow"\ngames = 24\nshard_size = 2\nseed = 5\ndealer = "suit_cycle"\n'
        'agents = [{name = "runner_agents:Sleeper", seconds = 0.002}, "random"]\n'
        "config = {hand_size = 6}\n"
    )
    return path


def _start(tmp_path: Path, out: Path) -> subprocess.Popen:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.Popen(
        _script(out, _slow_spec(tmp_path)),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C must reach the run even when the suite runs as a background job, which
        # a shell starts with SIGINT ignored
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _wait_for_shards(out: Path, count: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while len(done_shards(out)) < count:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.01)


def test_a_run_killed_and_started_again_gives_the_rows_of_an_uninterrupted_run(tmp_path):
    out = tmp_path / "killed"
    process = _start(tmp_path, out)
    _wait_for_shards(out, 3, process)
    process.kill()  # kill -9: no clean-up at all
    process.communicate()
    kept = done_shards(out)
    assert 3 <= len(kept) < 12
    for name in kept:  # every visible shard is whole
        assert pq.read_table(rows_path(out, name)).num_rows == 2 * 2
    # and each is the file its manifest entry records (never a name without its file)
    assert verify_shards(out, kept, read_manifest(out)) == (read_manifest(out)["shards"], [])
    sys.path.insert(0, str(TESTS))
    try:
        resumed = run_experiment(_slow_spec(tmp_path), out=out, progress=False)
        assert resumed.attrs["shards_skipped"] == len(kept)
        whole = run_experiment(_slow_spec(tmp_path), out=tmp_path / "whole", progress=False)
    finally:
        sys.path.remove(str(TESTS))
    assert len(resumed) == 24 * 2
    pd.testing.assert_frame_equal(stable(resumed), stable(whole))


def test_ctrl_c_keeps_the_finished_shards_and_says_so(tmp_path):
    out = tmp_path / "out"
    process = _start(tmp_path, out)
    _wait_for_shards(out, 2, process)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130
    kept = len(done_shards(out))
    assert stderr.strip() == (
        f"eleusis-lab: interrupted: {kept} of 12 shards kept in {out}; run again to resume"
    )
    metadata = json.loads((out / "metadata.json").read_text())
    assert metadata["runs"][-1]["status"] == "interrupted"


# -- parallel determinism -------------------------------------------------------------------------


def test_two_jobs_give_the_table_of_one(run, tmp_path):
    table, _ = run
    parallel = run_experiment(small(events=True), out=tmp_path, jobs=2, progress=False)
    pd.testing.assert_frame_equal(
        parallel.drop(columns=list(TIMING_COLUMNS)), table.drop(columns=list(TIMING_COLUMNS))
    )
    pd.testing.assert_frame_equal(load_events(tmp_path), load_events(run[1]))


def test_dask_gives_the_table_of_one_job(run, tmp_path):
    distributed = pytest.importorskip("distributed")
    table, _ = run
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        address = cluster.scheduler_address  # joined as a remote scheduler would be
        on_dask = run_experiment(
            small(events=True), out=tmp_path, scheduler=address, progress=False
        )
        again = run_experiment(small(), out=tmp_path / "b", scheduler=client, progress=False)
    assert len(again) == len(table)
    pd.testing.assert_frame_equal(
        on_dask.drop(columns=list(TIMING_COLUMNS)), table.drop(columns=list(TIMING_COLUMNS))
    )
    ran = json.loads((tmp_path / "metadata.json").read_text())["runs"][-1]
    assert (ran["backend"], ran["dask_workers"], ran["dask_threads"]) == ("dask", 2, 2)


def test_results_are_readable_by_the_group(tmp_path):
    previous = os.umask(0o022)
    atomic_files._file_mode.cache_clear()  # the mode is read from the umask once
    try:
        run_experiment(small(), out=tmp_path, progress=False)
    finally:
        os.umask(previous)
        atomic_files._file_mode.cache_clear()
    written = [tmp_path / "metadata.json", *(tmp_path / "rows").glob("*.parquet")]
    assert {stat.S_IMODE(path.stat().st_mode) for path in written} == {0o644}


def test_the_dask_backend_without_dask_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    with pytest.raises(ConfigError, match=r"pip install 'eleusis-lab\[dask\]'"):
        run_experiment(small(), out=tmp_path, backend="dask", progress=False)


# -- options and errors ---------------------------------------------------------------------------


def test_bad_run_settings_are_config_errors(tmp_path):
    with pytest.raises(
        ConfigError, match="backend must be one of local, threads, dask, got 'spark'"
    ):
        run_experiment(small(), out=tmp_path, backend="spark")
    with pytest.raises(ConfigError, match="jobs must be a whole number >= 1"):
        run_experiment(small(), out=tmp_path, jobs=0)
    with pytest.raises(ConfigError, match="no such spec file"):
        run_experiment(tmp_path / "missing.toml", out=tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(ConfigError, match="cannot write results there"):
        run_experiment(small(), out=blocker / "out")


def test_the_games_override_and_a_loaded_spec(tmp_path):
    spec = load_spec(small())
    table = run_experiment(spec, out=tmp_path, games=2, progress=False)
    # 2 games: 4 cells of 2 shards of 1 (half the games), not of the spec's 4
    assert table["game"].max() == 1 and len(plan_shards(spec.with_units(2))) == 8


def test_the_progress_bar_is_on_by_default_and_off_when_asked(tmp_path, capsys):
    run_experiment(small(games=2), out=tmp_path / "a")
    assert "game" in capsys.readouterr().err
    run_experiment(small(games=2), out=tmp_path / "b", progress=False)
    assert capsys.readouterr().err == ""


def test_the_output_directory_defaults_to_the_specs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    table = run_experiment(small(games=1, out="here"), progress=False)
    assert table.attrs["out"] == "here" and (tmp_path / "here" / "metadata.json").is_file()
    table = run_experiment(small(games=1), progress=False)
    assert table.attrs["out"] == str(Path("results") / "small")


def test_the_run_command(tmp_path, capsys):
    spec = tmp_path / "spec.toml"
    spec.write_text(
        'games = 3\nshard_size = 2\ndealer = "red(card)"\nagents = ["random", "oracle"]\n'
    )
    parser = build_parser()
    args = parser.parse_args(
        ["run", str(spec), "--out", str(tmp_path / "out"), "--quiet", "--jobs", "1"]
    )
    assert run_command(args) == 0
    line = capsys.readouterr().out.strip()
    where = re.escape(str(tmp_path / "out"))
    assert re.fullmatch(rf"3 games, 6 rows in {where} \(2 shards; \d+\.\d s\)", line), line
    args = parser.parse_args(["run", str(tmp_path / "nope.toml")])
    with pytest.raises(ConfigError, match="nope.toml: no such spec file"):
        run_command(args)
    spec.write_text("games = [\n")
    with pytest.raises(ConfigError, match="spec.toml: invalid TOML"):
        run_command(parser.parse_args(["run", str(spec), "--out", str(tmp_path / "out")]))


def test_run_interrupted_is_a_keyboard_interrupt():
    assert issubclass(RunInterrupted, KeyboardInterrupt)


def test_a_band_dealers_arm_and_figures_reach_the_rows(tmp_path):
    from eleusis_lab.rules import parse
    from eleusis_lab.rules.complexity import complexity

    dealer = {"kind": "band", "measure": "bits", "low": 20, "high": 25, "size": 1000}
    spec = small(games=4, dealer=dealer, grid=None, lineups=None, agents=["random", "random"])
    table = run_experiment(spec, out=tmp_path, progress=False)
    assert (table["arm"] == "bits [20, 25)").all()
    assert table["rule_bits"].between(20, 25, inclusive="left").all()
    assert json.loads(table["dealer_params"].iloc[0])["kind"] == "band"
    for text, rows in table.groupby("rule"):  # figures taken from the pool are exact
        assert rows["rule_bits"].iloc[0] == complexity(parse(text)).bits


def test_a_grid_over_the_game(tmp_path):
    spec = small(games=2, grid={"game": ["classic", "four-to-eight"]}, lineups=None)
    spec["agents"] = ["random", "oracle"]
    table = run_experiment(spec, out=tmp_path, progress=False)
    assert sorted(set(table["game_type"])) == ["classic", "four-to-eight"]
    for _, game in table.groupby(["game_type", "game"]):
        record = rerun_game(game.iloc[0])
        assert record.game == game["game_type"].iloc[0]
        assert list(game["score"]) == list(record.player_scores)


# -- Delphi, New Eleusis and solo ----------------------------------------------------------------

TWO_RULES = {"kind": "catalog", "rules": ["suit_cycle", "color_alternation"]}


def other_game(game: str, **changes):
    spec = {"name": game, "game": game, "games": 3, "shard_size": 2, "dealer": TWO_RULES}
    spec.update(changes)
    return spec


@pytest.fixture(scope="module")
def delphi_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("delphi")
    spec = other_game("delphi", agents=["oracle", "random", "random"], predictions=True)
    return run_experiment(spec, out=out, progress=False), out


def test_delphi_rows_keep_the_scores_the_oracles_score_and_the_accuracy(delphi_run):
    table, _ = delphi_run
    assert len(table) == 3 * 3 and set(table["game_type"]) == {"delphi"}
    for _, game in table.groupby("game"):
        record = rerun_game(game.iloc[0])
        assert record.game == "delphi" and record.rule == game["rule"].iloc[0]
        assert list(game["score"]) == list(record.player_scores)
        assert (game["dealer_score"] == record.oracle_score).all()
        assert np.allclose(game["prediction_accuracy"], record.hits.mean(axis=0))
        assert (game["plays"] == 0).all() and (game["game_plays"] == len(record.events)).all()
        assert game["wrong_cards"].isna().all() and game["success"].isna().all()
    oracle = table[table["agent"] == "oracle"]
    assert (oracle["prediction_accuracy"] == 1.0).all() and (oracle["plays_to_identify"] == 1).all()


def test_delphi_predictions_reach_the_event_table_per_card_and_player(delphi_run):
    table, out = delphi_run
    events = load_events(out)
    assert list(events.columns) == EVENT_SCHEMA.names
    assert len(events) == 3 * 51 * 3  # games x cards x players
    for number, game in events.groupby("game"):
        record = rerun_game(table[table["game"] == number].iloc[0])
        probabilities = np.array(record.probabilities)
        assert np.array_equal(game["p_right"].to_numpy(), probabilities.ravel())
        assert (game["seat"].to_numpy() == np.tile(np.arange(3), 51)).all()
        assert (game["index"].to_numpy() == np.repeat(np.arange(51), 3)).all()
        assert (game["right"].to_numpy() == np.repeat(record.verdicts, 3)).all()


def test_delphi_with_two_jobs_gives_the_tables_of_one(delphi_run, tmp_path):
    table, out = delphi_run
    spec = other_game("delphi", agents=["oracle", "random", "random"], predictions=True)
    parallel = run_experiment(spec, out=tmp_path, jobs=2, progress=False)
    pd.testing.assert_frame_equal(
        parallel.drop(columns=list(TIMING_COLUMNS)), table.drop(columns=list(TIMING_COLUMNS))
    )
    pd.testing.assert_frame_equal(load_events(tmp_path), load_events(out))


def test_solo_gives_one_row_per_game_with_the_benchmarks_figures(tmp_path):
    spec = other_game("solo", games=4, agents=["oracle", "random"])  # players: 1
    table = run_experiment(spec, out=tmp_path, progress=False)
    assert len(table) == 4 and (table["seat"] == 0).all() and (table["players"] == 1).all()
    assert list(table["agent"]) == ["oracle", "random", "oracle", "random"]  # turns at the seat
    assert table["dealer_score"].isna().all()
    for _, row in table.iterrows():
        record = rerun_game(row)
        assert record.game == "solo" and row["score"] == record.score
        assert row["success"] == record.success and row["end"] == record.end
        found = row["found_turn"]
        assert (None if pd.isna(found) else found) == record.found_turn
        assert row["wrong_declarations"] == record.wrong_declarations
        assert row["wrong_cards"] == len(record.side_line) and row["plays"] == record.turns
    oracle = table[table["agent"] == "oracle"]
    assert oracle["success"].all() and (oracle["found_turn"] == 1).all()
    assert (oracle["score"] == 30).all()
    assert not table.loc[table["agent"] == "random", "success"].any()


def test_new_eleusis_rows_agree_with_the_rounds(tmp_path):
    spec = other_game("new-eleusis", agents=["oracle", "random", "random"], events=True)
    table = run_experiment(spec, out=tmp_path, progress=False)
    assert len(table) == 3 * 3 and set(table["game_type"]) == {"new-eleusis"}
    events = load_events(tmp_path)
    for number, game in table.groupby("game"):
        record = rerun_game(game.iloc[0])
        assert list(game["score"]) == list(record.player_scores)
        assert (game["dealer_score"] == record.dealer_score).all()
        assert list(game["cards_left"]) == list(record.cards_left)
        assert (game["end"] == record.end).all()
        own = [e for e in record.events if e.kind in ("play", "string")]
        assert list(game["plays"]) == [sum(e.seat == s for e in own) for s in range(3)]
        wrong = [sum(e.seat == s and not e.right for e in own) for s in range(3)]
        assert list(game["wrong_cards"]) == wrong
        logged = events[events["game"] == number]
        assert list(logged["kind"]) == [e.kind for e in record.events]
        assert len(logged) == game["game_plays"].iloc[0]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"game": "new-eleusis", "dealer": {"kind": "catalog"}},
            r"dealer: new-eleusis rules read only the main line.*'right_red_wrong_black'",
        ),
        (
            {"game": "new-eleusis", "dealer": "if last_play_right then red(card) else black(card)"},
            "dealer: new-eleusis rules read only the main line",
        ),
        (
            {
                "game": "new-eleusis",
                "dealer": {"kind": "band", "low": 5, "high": 30, "grammar": "verdict", "size": 500},
            },
            "the grammar 'verdict' of this dealer reads it",
        ),
        ({"game": "new-eleusis", "agents": ["random"] * 2}, "new-eleusis needs at least 3 players"),
        ({"game": "new-eleusis", "agents": ["random"] * 8}, "new-eleusis takes at most 7 players"),
        ({"game": "solo", "players": 2}, "players: solo takes at most 1 player, got 2"),
        ({"game": "solo", "games": None, "matches": 2}, "matches: solo has no dealer to rotate"),
        (
            {"game": "solo", "dealer": {"kind": "adaptive", "bins": 2, "size": 500}},
            "dealer: solo has no dealer score, so a learning dealer",
        ),
        ({"game": "classic", "players": 1}, "players: must be >= 2, got 1"),
    ],
)
def test_specs_that_do_not_suit_the_game_are_config_errors(changes, message):
    spec = other_game("classic", agents=["random", "random", "random"])
    spec.update(changes)
    with pytest.raises(ConfigError, match=message):
        load_spec({key: value for key, value in spec.items() if value is not None})


def test_a_grid_over_the_game_checks_the_dealer_for_each_game():
    spec = other_game("classic", agents=["random"] * 3, dealer={"kind": "catalog"})
    assert len(load_spec(spec).cells) == 1
    spec["grid"] = {"game": ["classic", "new-eleusis"]}
    with pytest.raises(ConfigError, match="new-eleusis rules read only the main line"):
        load_spec(spec)


def test_a_finished_run_resumed_from_the_command_line_reads_no_shard(tmp_path, monkeypatch, capsys):
    from eleusis_lab import runner

    spec = tmp_path / "small.toml"
    spec.write_text(
        'games = 6\nshard_size = 2\ndealer = "red(card)"\nagents = ["random", "oracle"]\n'
    )
    args = ["run", str(spec), "--out", str(tmp_path / "out"), "--quiet"]
    assert build_parser().parse_args(args).run(build_parser().parse_args(args)) == 0
    first = capsys.readouterr().out
    assert first.startswith("6 games, 12 rows in ")

    def no_reading(*args, **kwargs):
        raise AssertionError("a finished run read its rows back")

    monkeypatch.setattr(runner, "read_tables", no_reading)
    monkeypatch.setattr(DealerPlan, "make", no_reading)  # and deals no rule
    parsed = build_parser().parse_args(args)
    assert parsed.run(parsed) == 0
    again = capsys.readouterr().out  # the counts come from the manifest
    assert again.startswith("6 games, 12 rows in ") and "3 already stored" in again
