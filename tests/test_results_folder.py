"""A results folder checked whole (issue 26, item 4): the manifest against its schema,
files it does not name, no Parquet reader on a damaged file, the folder's lock, and
statuses that say how a run ended."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from eleusis_lab import load_events, load_results, run_experiment, storage
from eleusis_lab import runner as runner_module
from eleusis_lab.cli import main
from eleusis_lab.errors import ConfigError
from eleusis_lab.shards import TIMING_COLUMNS
from eleusis_lab.storage import (
    LOCK,
    MANIFEST,
    METADATA,
    DamagedResults,
    events_path,
    lock_results,
    read_manifest,
    read_untrusted,
    rows_path,
)

SPEC = """\
name = "folder"
games = 8
shard_size = 2
seed = 11
dealer = "suit_cycle"
agents = ["random", "oracle"]
events = true
"""


def stable(table: pd.DataFrame) -> pd.DataFrame:
    keys = ["cell", "game", "seat"]
    return table.drop(columns=list(TIMING_COLUMNS)).sort_values(keys).reset_index(drop=True)


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    folder = tmp_path_factory.mktemp("folder")
    spec = folder / "folder.toml"
    spec.write_text(SPEC)
    out = folder / "out"
    return spec, out, run_experiment(spec, out=out, progress=False)


@pytest.fixture
def copy(pristine, tmp_path):
    spec, out, _ = pristine
    target = tmp_path / "out"
    shutil.copytree(out, target)
    return spec, target, json.loads((target / METADATA).read_text())["shards"]


def resume(spec, out, *more) -> int:
    return main(["run", str(spec), "--out", str(out), "--quiet", *more])


def one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("eleusis-lab: "), err
    return err.strip()


def runs(out) -> list[dict]:
    return json.loads((out / METADATA).read_text())["runs"]


# -- the manifest against its schema -------------------------------------------------------


def _edit(key):
    """An edit of the manifest (a dict), given the shard names: one of the issue's."""

    def rows_plus_one(manifest, names):
        manifest["shards"][names[0]]["rows"]["rows"] += 1

    def unknown_format(manifest, names):
        manifest["format"] = 7

    def rows_many(manifest, names):
        manifest["shards"][names[0]]["rows"]["rows"] = "many"

    def outside(manifest, names):
        manifest["shards"][names[0]]["rows"]["file"] = "../../elsewhere.parquet"

    def another_shards_file(manifest, names):
        manifest["shards"][names[0]]["rows"]["file"] = f"rows/{names[1]}.parquet"

    def a_name_outside(manifest, names):
        manifest["shards"]["../escape"] = manifest["shards"].pop(names[0])

    def bytes_edited(manifest, names):
        manifest["shards"][names[2]]["rows"]["bytes"] += 1

    def unknown_key(manifest, names):
        manifest["written_by"] = "me"

    return {
        "rows_plus_one": (rows_plus_one, "4 rows, but manifest.json records 5"),
        "unknown_format": (unknown_format, "format 7, not 1"),
        "rows_many": (rows_many, "rows 'many' is not a count"),
        "outside": (outside, "file '../../elsewhere.parquet', not rows/"),
        "another_shards_file": (another_shards_file, "not rows/"),
        "a_name_outside": (a_name_outside, "'../escape' is not a shard's name"),
        "bytes_edited": (bytes_edited, "bytes, but manifest.json records"),
        "unknown_key": (unknown_key, "'written_by' missing or unknown"),
    }[key]


@pytest.mark.parametrize(
    "key",
    [
        "rows_plus_one",
        "unknown_format",
        "rows_many",
        "outside",
        "another_shards_file",
        "a_name_outside",
        "bytes_edited",
        "unknown_key",
    ],
)
def test_an_edited_manifest_is_refused_in_one_line_then_repaired(copy, pristine, capsys, key):
    spec, out, names = copy
    edit, why = _edit(key)
    manifest = json.loads((out / MANIFEST).read_text())
    edit(manifest, names)
    (out / MANIFEST).write_text(json.dumps(manifest))

    with pytest.raises(ConfigError, match=re.escape(why)):
        load_results(out)
    before = len(runs(out))
    assert resume(spec, out) == 2
    line = one_line(capsys)
    assert why in line and f"--out {out} --repair" in line
    assert len(runs(out)) == before  # refused before anything is played or recorded

    assert resume(spec, out, "--repair") == 0
    pd.testing.assert_frame_equal(stable(load_results(out)), stable(pristine[2]))


@pytest.mark.parametrize(
    "text, why",
    [
        ("[" * 100_000, "nested too deeply"),  # a RecursionError before
        ('{"format": 1, "shards": {}, "shards": {}}', "the key 'shards' twice"),
        ("\xff not text", "unreadable manifest"),
    ],
)
def test_a_manifest_that_is_not_json_is_one_line(copy, capsys, text, why):
    spec, out, _ = copy
    (out / MANIFEST).write_bytes(text.encode("latin-1"))
    assert resume(spec, out) == 2
    assert why in one_line(capsys)
    assert main(["report", str(out), "--no-example"]) == 2
    assert why in one_line(capsys)


def test_the_manifest_is_bounded_before_it_is_read(copy, capsys, monkeypatch):
    spec, out, _ = copy
    monkeypatch.setattr(storage, "MAX_JSON_BYTES", 1000)
    assert resume(spec, out) == 2
    assert "bytes, over the limit of 1000 bytes" in one_line(capsys)
    monkeypatch.undo()
    (out / MANIFEST).unlink()
    os.mkfifo(out / MANIFEST)  # reading it would wait for a writer forever
    assert resume(spec, out) == 2
    assert "not a regular file" in one_line(capsys)


@pytest.mark.parametrize(
    "key, value, why",
    [
        ("runs", "x", "runs 'x' is not a list"),  # a TypeError traceback before
        ("shards", ["../../escape"], "is not a shard's name"),
        ("runs", [["running"]], "runs: not a list of objects"),
        ("units", "many", "units 'many' is not one"),
    ],
)
def test_bad_run_metadata_is_one_line_and_repair_sets_it_aside(copy, capsys, key, value, why):
    spec, out, _ = copy
    metadata = json.loads((out / METADATA).read_text())
    metadata[key] = value
    (out / METADATA).write_text(json.dumps(metadata))
    with pytest.raises(ConfigError, match="unreadable run metadata"):
        load_results(out)
    assert resume(spec, out) == 2
    assert why in one_line(capsys)
    assert main(["report", str(out), "--no-example"]) == 2
    assert why in one_line(capsys)
    assert resume(spec, out, "--repair") == 0
    assert json.loads((out / "damaged" / METADATA).read_text())[key] == value
    assert [run["status"] for run in runs(out)] == ["complete"]


# -- files the manifest does not name ------------------------------------------------------


def test_files_the_manifest_does_not_name_are_refused_and_set_aside(copy, capsys):
    spec, out, names = copy
    stray = out / "rows" / "extra.parquet"
    shutil.copyfile(rows_path(out, names[0]), stray)
    assert len(pq.read_table(out / "rows")) == 16 + 4  # the guide's reader reads it
    (out / "events" / "notes.txt").write_text("mine")
    (out / "rows" / "part=1").mkdir()

    with pytest.raises(DamagedResults, match=r"extra.parquet: not in manifest.json.*2 more"):
        load_results(out)
    with pytest.raises(DamagedResults, match="not in manifest.json"):
        load_events(out)
    assert resume(spec, out) == 2
    line = one_line(capsys)
    assert "not in manifest.json" in line and "play" not in line  # nothing to play again

    assert resume(spec, out, "--repair") == 0
    assert capsys.readouterr().out.startswith("8 games, 16 rows")
    assert runs(out)[-1]["shards_run"] == 0
    aside = out / "damaged"
    assert (aside / "rows" / "extra.parquet").is_file()
    assert (aside / "events" / "notes.txt").read_text() == "mine"
    assert (aside / "rows" / "part=1").is_dir()
    assert len(pq.read_table(out / "rows")) == len(load_results(out)) == 16


def test_a_shard_being_written_is_skipped_while_its_run_holds_the_lock(copy):
    _, out, names = copy
    manifest = json.loads((out / MANIFEST).read_text())
    del manifest["shards"][names[3]]  # its files written, not yet recorded
    (out / MANIFEST).write_text(json.dumps(manifest))
    with lock_results(out):  # as the run writing it does (flock: this open file's)
        assert len(load_results(out)) == 12
    with pytest.raises(DamagedResults, match="left by a run stopped while writing it"):
        load_results(out)


# -- no Parquet reader on a damaged file ------------------------------------------------------


def test_a_damaged_file_never_reaches_the_parquet_reader(copy, monkeypatch):
    """The reader can abort natively on damaged bytes ("terminate called without an
    active exception"): only bytes with their recorded sha256 are handed to it."""
    spec, out, names = copy
    recorded = {
        entry["sha256"]
        for files in read_manifest(out)["shards"].values()
        for entry in files.values()
    }
    seen = []

    def guarded(real):
        def read(source, *args, **kwargs):
            if not isinstance(source, pa.BufferReader):
                source = pa.BufferReader(Path(source).read_bytes())
            data = source.read()
            digest = hashlib.sha256(data).hexdigest()
            seen.append(digest)
            assert digest in recorded, "damaged bytes handed to the Parquet reader"
            return real(pa.BufferReader(data), *args, **kwargs)

        return read

    monkeypatch.setattr(pq, "read_table", guarded(pq.read_table))
    monkeypatch.setattr(pq, "read_metadata", guarded(pq.read_metadata))
    monkeypatch.setattr(pq, "read_schema", guarded(pq.read_schema))
    kinds = ((rows_path(out, names[1]), load_results), (events_path(out, names[2]), load_events))
    for path, load in kinds:
        original = path.read_bytes()
        size = len(original)
        for offset in (0, 7, size // 3, size // 2, size - 200, size - 9, size - 1):
            flipped = bytearray(original)
            flipped[offset] ^= 0x41
            path.write_bytes(bytes(flipped))
            for attempt in (
                lambda load=load: load(out),
                lambda: run_experiment(spec, out=out, progress=False),
            ):
                with pytest.raises(DamagedResults, match=path.name):
                    attempt()
        path.write_bytes(original)
    assert seen  # the whole files were read


def test_a_file_nothing_vouches_for_is_read_in_another_process(monkeypatch):
    buffer = pa.BufferOutputStream()
    pq.write_table(pa.table({"x": [1, 2, 3]}), buffer)
    whole = buffer.getvalue().to_pybytes()
    tables = read_untrusted([whole, whole[:-5], b"", whole])
    assert [None if t is None else t["x"].to_pylist() for t in tables] == [
        [1, 2, 3],
        None,
        None,
        [1, 2, 3],
    ]
    # a reader that aborts natively ends its own process only
    monkeypatch.setattr(storage, "_READER", "import os; os.abort()")
    assert read_untrusted([whole, whole]) == [None, None]


# -- the lock ---------------------------------------------------------------------------------


def test_a_second_run_into_a_folder_being_written_is_one_line(copy, capsys):
    spec, out, _ = copy
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import sys, time
                from eleusis_lab.storage import lock_results
                lock = lock_results({str(out)!r})
                print("locked", flush=True)
                time.sleep(120)
                """
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        before = (out / METADATA).read_text()
        assert resume(spec, out) == 2
        line = one_line(capsys)
        assert f"{out}: another run is writing these results (pid {holder.pid} on " in line
        assert (out / METADATA).read_text() == before  # the first run's record untouched
    finally:
        holder.send_signal(signal.SIGKILL)  # kill -9: the system releases its lock
        holder.wait()
    assert resume(spec, out) == 0
    assert (out / LOCK).is_file()


def test_a_run_left_running_is_recorded_killed_by_the_next(copy):
    spec, out, _ = copy
    metadata = json.loads((out / METADATA).read_text())
    metadata["runs"][-1].update(status="running", host="another-host", pid=1)
    (out / METADATA).write_text(json.dumps(metadata))
    run_experiment(spec, out=out, progress=False)  # it holds the lock: that run is over
    assert [run["status"] for run in runs(out)] == ["killed", "complete"]


# -- statuses ---------------------------------------------------------------------------------


def test_a_run_stopped_by_a_full_disk_says_so(pristine, tmp_path, monkeypatch, capsys):
    spec, _, _ = pristine
    out = tmp_path / "full"

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    real_metadata = runner_module.write_metadata
    reserved = []

    def no_room_but_the_reserve(folder, metadata):
        """The disk is full: only the space the run kept aside can be written into."""
        if metadata["runs"][-1]["status"] != "running" and (folder / ".reserve").exists():
            reserved.append(True)
            full()
        real_metadata(folder, metadata)

    monkeypatch.setattr(runner_module, "write_shard", full)
    monkeypatch.setattr(runner_module, "write_metadata", no_room_but_the_reserve)
    assert resume(spec, out) == 2
    assert "No space left on device" in one_line(capsys)
    (run,) = runs(out)
    assert run["status"] == "disk full" and "Errno 28" in run["error"]
    assert reserved and not (out / ".reserve").exists()

    monkeypatch.undo()
    assert resume(spec, out) == 0  # room again: the run resumes
    assert [run["status"] for run in runs(out)] == ["disk full", "complete"]
