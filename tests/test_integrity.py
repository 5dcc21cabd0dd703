"""Result integrity: the manifest's checksums, refusing damaged or foreign shards, repair."""

from __future__ import annotations

import json
import shutil
import warnings

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from eleusis_lab import load_events, load_results, run_experiment
from eleusis_lab.cli import main
from eleusis_lab.shards import TIMING_COLUMNS
from eleusis_lab.storage import (
    MANIFEST,
    SHARD_KEY,
    BadManifest,
    DamagedResults,
    Unrecorded,
    done_shards,
    events_path,
    read_manifest,
    rows_path,
)

KEYS = ["cell", "game", "seat"]
SPEC = """\
name = "integrity"
games = 8
shard_size = 2
seed = 3
dealer = "suit_cycle"
agents = ["random", "oracle"]
events = true
"""


def stable(table: pd.DataFrame) -> pd.DataFrame:
    return table.drop(columns=list(TIMING_COLUMNS)).sort_values(KEYS).reset_index(drop=True)


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """A spec file and a whole, untouched run of it (4 shards, with events)."""
    folder = tmp_path_factory.mktemp("integrity")
    spec = folder / "integrity.toml"
    spec.write_text(SPEC)
    out = folder / "out"
    table = run_experiment(spec, out=out, progress=False)
    return spec, out, table


@pytest.fixture
def copy(pristine, tmp_path):
    """A copy of the pristine run to damage: (spec, out, shard names in order)."""
    spec, out, _ = pristine
    target = tmp_path / "out"
    shutil.copytree(out, target)
    names = json.loads((target / "metadata.json").read_text())["shards"]
    return spec, target, names


def resume(spec, out, *more):
    return main(["run", str(spec), "--out", str(out), "--quiet", *more])


def refusal(capsys, path) -> str:
    """The one line on stderr, checked to name ``path`` and to say how to replay it."""
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    line = err.strip()
    assert line.startswith(f"eleusis-lab: {path}: "), line
    assert "--repair" in line and "damaged/" in line and "play its shard again" in line
    return line


def test_every_shard_is_in_the_manifest_with_its_checksum_and_named_inside(pristine):
    import hashlib

    _, out, table = pristine
    manifest = read_manifest(out)
    names = json.loads((out / "metadata.json").read_text())["shards"]
    assert sorted(manifest["shards"]) == sorted(names) == sorted(done_shards(out))
    for name in names:
        files = manifest["shards"][name]
        assert set(files) == {"rows", "events"}
        for kind, path in (("rows", rows_path(out, name)), ("events", events_path(out, name))):
            assert files[kind]["file"] == f"{kind}/{name}.parquet"
            assert files[kind]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
            assert files[kind]["rows"] == pq.read_metadata(path).num_rows
            assert pq.read_schema(path).metadata[SHARD_KEY] == name.encode()
    assert sum(files["rows"]["rows"] for files in manifest["shards"].values()) == len(table)


def test_a_shard_swapped_with_another_is_refused_by_resume_and_report(copy, capsys):
    spec, out, names = copy
    victim, other = rows_path(out, names[0]), rows_path(out, names[1])
    shutil.copyfile(other, victim)  # a valid shard, under the wrong name
    runs = len(json.loads((out / "metadata.json").read_text())["runs"])

    assert resume(spec, out) == 2
    line = refusal(capsys, victim)
    assert f"foreign: it holds shard '{names[1]}', not this one" in line
    assert f"eleusis-lab run {spec} --out {out} --repair" in line
    # refused before anything is played or recorded
    assert len(json.loads((out / "metadata.json").read_text())["runs"]) == runs
    assert victim.read_bytes() == other.read_bytes()

    assert main(["report", str(out), "--no-example"]) == 2
    assert refusal(capsys, victim) == line
    assert not (out / "report").exists()
    with pytest.raises(DamagedResults, match="foreign"):
        load_results(out)
    load_events(out)  # the events of that shard are its own: they read


def _offsets(size: int, count: int) -> list[int]:
    """``count`` offsets of a file of ``size`` bytes: both ends, the rest drawn (seeded)."""
    drawn = np.random.default_rng(15).choice(np.arange(1, size - 1), count - 2, replace=False)
    return sorted({0, size - 1, *map(int, drawn)})


@pytest.mark.parametrize("kind", ["rows", "events"])
def test_no_single_byte_flip_is_accepted(copy, kind):
    spec, out, names = copy
    path = (rows_path if kind == "rows" else events_path)(out, names[2])
    original = path.read_bytes()
    load = load_results if kind == "rows" else load_events
    reasons = set()
    for offset in _offsets(len(original), 64):
        flipped = bytearray(original)
        flipped[offset] ^= 0x10
        path.write_bytes(bytes(flipped))
        for attempt in (lambda: load(out), lambda: run_experiment(spec, out=out, progress=False)):
            with pytest.raises(DamagedResults) as refused:
                attempt()
            message = str(refused.value)
            assert message.startswith(f"{path}: ") and "--repair" in message, message
            reasons.add(message[len(f"{path}: ") :].split(" (", 1)[0].split(":", 1)[0])
    path.write_bytes(original)
    assert stable(load_results(out)).equals(stable(run_experiment(spec, out=out, progress=False)))
    assert reasons <= {"damaged", "foreign"}


def test_a_truncated_events_shard_is_noticed_on_resume(copy, capsys):
    spec, out, names = copy
    path = events_path(out, names[1])
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    assert resume(spec, out) == 2
    line = refusal(capsys, path)
    assert "damaged: not a whole Parquet file (truncated or overwritten)" in line
    with pytest.raises(DamagedResults, match="truncated"):
        load_events(out)
    load_results(out)  # the rows of every shard are whole


def test_a_file_changed_but_still_readable_is_refused(copy, capsys):
    spec, out, names = copy
    path = rows_path(out, names[3])
    table = pq.read_table(path)
    scores = table.column("score").to_pylist()
    pq.write_table(
        table.set_column(
            table.schema.get_field_index("score"), "score", [[score + 1 for score in scores]]
        ),
        path,
    )
    assert resume(spec, out) == 2
    assert "damaged: changed since it was written" in refusal(capsys, path)


def test_repair_sets_the_files_aside_and_replays_the_same_rows(copy, pristine, capsys):
    spec, out, names = copy
    _, _, table = pristine
    shutil.copyfile(rows_path(out, names[1]), rows_path(out, names[0]))
    events = events_path(out, names[2])
    events.write_bytes(events.read_bytes()[:-9])
    damaged = {
        "rows": rows_path(out, names[0]).read_bytes(),
        "events": events.read_bytes(),
    }
    with pytest.raises(DamagedResults, match=r"\(and 1 more file\); to move them .* their"):
        run_experiment(spec, out=out, progress=False)

    assert resume(spec, out, "--repair") == 0
    summary = capsys.readouterr().out
    assert f"2 damaged played again (old files in {out / 'damaged'})" in summary
    aside = out / "damaged"
    assert (aside / "rows" / f"{names[0]}.parquet").read_bytes() == damaged["rows"]
    assert (aside / "events" / f"{names[2]}.parquet").read_bytes() == damaged["events"]
    assert sorted(p.name for p in (aside / "rows").iterdir()) == sorted(
        f"{name}.parquet" for name in names[0:3:2]
    )
    (last,) = json.loads((out / "metadata.json").read_text())["runs"][-1:]
    assert (last["shards_repaired"], last["shards_run"], last["shards_skipped"]) == (2, 2, 2)

    pd.testing.assert_frame_equal(stable(load_results(out)), stable(table))
    pd.testing.assert_frame_equal(load_events(out), load_events(pristine[1]))
    again = run_experiment(spec, out=out, progress=False, repair=True)
    assert (again.attrs["shards_run"], again.attrs["shards_repaired"]) == (0, 0)

    # a second repair of the same shard keeps the first one's files too
    shutil.copyfile(rows_path(out, names[1]), rows_path(out, names[0]))
    run_experiment(spec, out=out, progress=False, repair=True)
    assert (aside / "rows" / f"{names[0]}.1.parquet").is_file()
    pd.testing.assert_frame_equal(stable(load_results(out)), stable(table))


def test_a_deleted_file_is_played_again_without_repair(copy, pristine):
    spec, out, names = copy
    events_path(out, names[1]).unlink()
    assert done_shards(out) == set(names) - {names[1]}
    assert len(load_results(out)) == len(pristine[2]) - 4  # that shard is not stored
    resumed = run_experiment(spec, out=out, progress=False)
    assert (resumed.attrs["shards_run"], resumed.attrs["shards_skipped"]) == (1, 3)
    pd.testing.assert_frame_equal(stable(resumed), stable(pristine[2]))


def test_a_file_the_manifest_does_not_name_is_refused_until_a_run_replays_it(copy, pristine):
    """As after a kill between writing a shard's files and recording them."""
    spec, out, names = copy
    manifest = json.loads((out / MANIFEST).read_text())
    del manifest["shards"][names[3]]
    (out / MANIFEST).write_text(json.dumps(manifest))
    assert names[3] not in done_shards(out)
    with pytest.raises(DamagedResults, match=r"not in manifest.json: .* \(and 1 more file\)"):
        load_results(out)  # pyarrow.parquet.read_table(out / "rows") would read it
    resumed = run_experiment(spec, out=out, progress=False)  # no repair needed: replayed
    assert resumed.attrs["shards_run"] == 1
    pd.testing.assert_frame_equal(stable(resumed), stable(pristine[2]))
    assert not (out / "damaged").exists()
    pd.testing.assert_frame_equal(stable(load_results(out)), stable(pristine[2]))


def test_results_without_a_manifest_are_refused_until_repair_rebuilds_it(copy, pristine, capsys):
    spec, out, names = copy
    (out / MANIFEST).unlink()
    with pytest.raises(Unrecorded, match="no manifest.json, yet 8 files in rows/ and events/"):
        load_results(out)
    assert resume(spec, out) == 2
    line = capsys.readouterr().err
    assert line.count("\n") == 1 and f"eleusis-lab run {spec} --out {out} --repair" in line
    assert not (out / MANIFEST).exists()

    before = {path: path.read_bytes() for path in out.glob("*/*.parquet")}
    assert resume(spec, out, "--repair") == 0
    assert "manifest.json rebuilt: 4 stored replayed the same" in capsys.readouterr().out
    assert sorted(read_manifest(out)["shards"]) == sorted(names)
    assert {path: path.read_bytes() for path in out.glob("*/*.parquet")} == before  # kept
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pd.testing.assert_frame_equal(load_results(out), load_results(pristine[1]))
    path = rows_path(out, names[0])
    path.write_bytes(path.read_bytes()[:-1])
    with pytest.raises(DamagedResults):
        load_results(out)


def test_a_score_edited_then_the_manifest_deleted_is_not_recorded(copy, pristine, capsys):
    """The issue's reproduction: the edited table must not go into a new manifest."""
    spec, out, names = copy
    path = rows_path(out, names[1])
    table = pq.read_table(path)
    at = table.schema.get_field_index("score")
    pq.write_table(
        table.set_column(at, "score", [[s + 1 for s in table["score"].to_pylist()]]), path
    )
    edited = path.read_bytes()
    (out / MANIFEST).unlink()
    assert resume(spec, out) == 2
    assert "nothing vouches for their contents" in capsys.readouterr().err

    assert resume(spec, out, "--repair") == 0
    summary = capsys.readouterr().out
    assert "rebuilt: 3 stored replayed the same, 1 damaged played again" in summary
    assert (out / "damaged" / "rows" / path.name).read_bytes() == edited
    pd.testing.assert_frame_equal(stable(load_results(out)), stable(pristine[2]))


def test_a_broken_shard_without_a_manifest_is_refused(copy, capsys):
    spec, out, names = copy
    (out / MANIFEST).unlink()
    path = rows_path(out, names[2])
    path.write_bytes(path.read_bytes()[:100])
    assert resume(spec, out) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"eleusis-lab: {out}: no manifest.json") and err.count("\n") == 1
    assert not (out / MANIFEST).exists()
    assert resume(spec, out, "--repair") == 0
    assert sorted(read_manifest(out)["shards"]) == sorted(names)
    assert (out / "damaged" / "rows" / path.name).stat().st_size == 100
    assert len(load_results(out)) == 16


def test_an_unreadable_manifest_is_one_line_saying_what_to_do(copy, capsys):
    spec, out, _ = copy
    (out / MANIFEST).write_text('{"shards": {"x": 1}}')
    assert resume(spec, out) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"eleusis-lab: {out / MANIFEST}: unreadable manifest")
    assert f"eleusis-lab run {spec} --out {out} --repair" in err and err.count("\n") == 1
    with pytest.raises(BadManifest, match="unreadable manifest"):
        load_results(out)
    assert resume(spec, out, "--repair") == 0
    assert (out / "damaged" / MANIFEST).read_text() == '{"shards": {"x": 1}}'
    assert len(load_results(out)) == 16
