"""Where an experiment's results live: one Parquet file per shard, a manifest, the metadata.

Layout of an output directory::

    OUT/metadata.json          the spec, the shards, and one entry per run
    OUT/manifest.json          the shards stored: each file's name, sha256 and row count
    OUT/rows/SHARD.parquet     one row per game and seat (eleusis_lab.shards.ROW_SCHEMA)
    OUT/events/SHARD.parquet   one row per play, when the spec asks for events
    OUT/damaged/               files a run with ``repair`` set aside (see below)

Every file is written to a hidden temporary name in its folder, then renamed over its
final name (`os.replace`, atomic), so a reader, or a run resuming after a crash, sees
a file whole or not at all. A shard's files are written first, then the manifest names
them: a shard is stored when the manifest records it and its files are there, whatever
moment a run was killed at. Each Parquet file also carries its shard's name in its
schema metadata (``eleusis_lab.shard``). Readers such as
``pyarrow.parquet.read_table(OUT / "rows")`` skip the hidden temporary files.

Integrity: `load_results`, `load_events` and a resuming run check every stored file
against its sha256 in the manifest and refuse (`DamagedResults`, one line naming the
file and what to do) a file that changed since it was written: truncated, damaged, or
copied from another shard or another run. A run with ``repair=True`` (``eleusis-lab run
--repair``) moves the refused shards' files to ``OUT/damaged/`` and plays those shards
again; play is deterministic, so their rows are the same as before (but ``wall_time``).
A folder of an older version, without a manifest, is read with a warning; a run into
it checks that each shard reads whole and records it in a new manifest.

Examples
--------
>>> import tempfile, pyarrow as pa
>>> out = Path(tempfile.mkdtemp())
>>> write_manifest(out, {"format": 1, "shards": {}})
>>> write_shard(out, "a", pa.table({"x": [1, 2]}))
>>> done_shards(out)
{'a'}
>>> write_metadata(out, {"experiment": "demo", "shards": ["a", "b"]})
>>> load_results(out)["x"].tolist()
[1, 2]
>>> _ = rows_path(out, "a").write_bytes(b"no longer Parquet")
>>> load_results(out)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
eleusis_lab.storage.DamagedResults: .../rows/a.parquet: damaged: not a whole Parquet file ...
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shlex
import socket
import tempfile
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from eleusis_lab.errors import ConfigError

__all__ = [
    "DAMAGED",
    "MANIFEST",
    "METADATA",
    "SHARD_KEY",
    "UNCHECKED",
    "DamagedResults",
    "Refused",
    "UncheckedWarning",
    "clean_temporary",
    "done_shards",
    "events_path",
    "load_events",
    "load_results",
    "read_manifest",
    "read_metadata",
    "read_tables",
    "rows_path",
    "set_aside",
    "verify_shards",
    "write_manifest",
    "write_metadata",
    "write_shard",
    "write_table",
]

METADATA = "metadata.json"
MANIFEST = "manifest.json"
DAMAGED = "damaged"  # where a repair moves the files it refuses
SHARD_KEY = b"eleusis_lab.shard"  # the schema metadata that names a file's shard
_TEMP = ".tmp-"
UNCHECKED = (
    "{out}: no " + MANIFEST + " (results of an older version): its shards are read without"
    " checksums; run the experiment again into it to check and record them"
)


def rows_path(out: str | Path, shard: str) -> Path:
    """The rows file of shard ``shard`` in ``out``."""
    return Path(out) / "rows" / f"{shard}.parquet"


def events_path(out: str | Path, shard: str) -> Path:
    """The events file of shard ``shard`` in ``out``."""
    return Path(out) / "events" / f"{shard}.parquet"


@functools.cache
def _file_mode() -> int:
    """The mode of a new file under this process's umask (``0o644`` under ``022``)."""
    umask = os.umask(0o022)  # reading the umask means setting it: put it straight back
    os.umask(umask)
    return 0o666 & ~umask


def write_atomically(path: str | Path, write) -> None:
    """Call ``write(temporary)`` on a file beside ``path``, then give it ``path``'s name:
    a reader (or a run resuming after a kill) sees all of the file or none of it.

    >>> import tempfile
    >>> target = Path(tempfile.mkdtemp()) / "note.txt"
    >>> write_atomically(target, lambda temporary: Path(temporary).write_text("done"))
    >>> target.read_text()
    'done'
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    prefix = f"{_TEMP}{os.getpid()}-{path.name}."
    handle, temporary = tempfile.mkstemp(prefix=prefix, dir=path.parent)
    os.close(handle)
    try:
        # mkstemp makes the file private (0600); results are for the group to read too.
        os.chmod(temporary, _file_mode())
        write(temporary)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_table(table: pa.Table, path: str | Path) -> None:
    """Write ``table`` as Parquet to ``path`` atomically (all of it, or nothing)."""
    write_atomically(path, lambda temporary: pq.write_table(table, temporary))


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. another user's process
        return True
    return True


def settled_status(run: dict[str, Any]) -> str:
    """A run's status, ``"killed"`` for one still "running" whose process is gone.

    A killed run cannot write its own end; its process id and host say it is over.

    >>> import socket
    >>> settled_status({"status": "running", "host": socket.gethostname(), "pid": 2**22 + 7})
    'killed'
    >>> settled_status({"status": "complete"})
    'complete'
    """
    status = run.get("status", "?")
    here = run.get("host") == socket.gethostname() and isinstance(run.get("pid"), int)
    if status == "running" and here and not _running(run["pid"]):
        return "killed"
    return status


def clean_temporary(out: str | Path) -> int:
    """Remove the temporary files that killed runs left in ``out``; returns how many.

    The files of a writer that is still running (another run into the same directory)
    are left alone.
    """
    removed = 0
    for folder in (Path(out), Path(out) / "rows", Path(out) / "events"):
        if not folder.is_dir():
            continue
        for path in folder.glob(f"{_TEMP}*"):
            pid = path.name[len(_TEMP) :].split("-", 1)[0]
            if pid.isdigit() and _running(int(pid)):
                continue
            path.unlink(missing_ok=True)
            removed += 1
    return removed


def done_shards(out: str | Path) -> set[str]:
    """The names of the shards stored in ``out``: recorded in its manifest, files present.

    Without a manifest (a folder of an older version): the shards with a rows file.
    """
    manifest = read_manifest(out)
    if manifest is None:
        folder = Path(out) / "rows"
        if not folder.is_dir():
            return set()
        return {path.stem for path in folder.glob("*.parquet") if not path.name.startswith(".")}
    return {name for name, files in manifest["shards"].items() if _present(out, name, files)}


# -- the manifest -------------------------------------------------------------------------

_PATHS = {"rows": rows_path, "events": events_path}


def read_manifest(out: str | Path) -> dict[str, Any] | None:
    """The manifest of ``out`` (``{"format": 1, "shards": {NAME: {KIND: FILE}}}``, a FILE
    being ``{"file", "sha256", "rows"}``), or None if it has none."""
    path = Path(out) / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        if not _well_formed(manifest):
            raise ValueError("not a table of shards, their files and checksums")
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        raise ConfigError(
            f"{path}: unreadable manifest ({error}); delete it and run the experiment again:"
            " the shards that read whole are then recorded anew, without their old checksums"
        ) from None
    return manifest


def _well_formed(manifest: Any) -> bool:
    shards = manifest.get("shards") if isinstance(manifest, dict) else None
    return isinstance(shards, dict) and all(
        isinstance(files, dict)
        and all(
            kind in _PATHS and isinstance(file, dict) and isinstance(file.get("sha256"), str)
            for kind, file in files.items()
        )
        for files in shards.values()
    )


def write_manifest(out: str | Path, manifest: dict[str, Any]) -> None:
    """Write the manifest of ``out`` atomically."""
    text = json.dumps(manifest, indent=1, sort_keys=True)
    write_atomically(Path(out) / MANIFEST, lambda temporary: Path(temporary).write_text(text))


def write_shard(
    out: str | Path,
    name: str,
    rows: pa.Table,
    events: pa.Table | None = None,
    manifest: dict[str, Any] | None = None,
) -> None:
    """Store shard ``name``: its files, each named after it inside, then its manifest entry.

    ``manifest`` is the manifest of ``out`` as this process keeps it (read from ``out``
    if not given); it is updated and written. A run killed before the manifest is written
    leaves files the manifest does not name: not stored, played again on resume.
    """
    manifest = read_manifest(out) if manifest is None else manifest
    if manifest is None:
        raise ConfigError(f"{out}: no {MANIFEST} to record shard {name} in")
    files = {}
    for kind, table in (("events", events), ("rows", rows)):  # the rows last, as before
        if table is None:
            continue
        path = _PATHS[kind](out, name)
        table = table.replace_schema_metadata(
            {**(table.schema.metadata or {}), SHARD_KEY: name.encode()}
        )
        digest = {}

        def write(temporary, table=table, digest=digest):
            pq.write_table(table, temporary)
            with open(temporary, "rb") as written:
                digest["sha256"] = hashlib.file_digest(written, "sha256").hexdigest()

        write_atomically(path, write)
        files[kind] = {"file": path.relative_to(out).as_posix(), "rows": table.num_rows, **digest}
    manifest["shards"][name] = files
    write_manifest(out, manifest)


def _present(out: str | Path, name: str, files: dict[str, Any]) -> bool:
    return all(_PATHS[kind](out, name).is_file() for kind in files)


# -- checking what is stored ------------------------------------------------------------------


@dataclass(frozen=True)
class Refused:
    """A stored file that is not what its shard's run wrote, and why."""

    shard: str
    path: Path
    why: str

    def __str__(self) -> str:
        return f"{self.path}: {self.why}"


class UncheckedWarning(UserWarning):
    """Results of an older version, without a manifest: read without checksums."""


class DamagedResults(ConfigError):
    """Stored files that fail their check: the message names the first and what to do.

    ``refused`` lists them all (`Refused`).
    """

    def __init__(self, out: str | Path, refused: Sequence[Refused], spec: str | None = None):
        self.refused = list(refused)
        more = len(self.refused) - 1
        others = f" (and {more} more file{'s' if more > 1 else ''})" if more else ""
        it, its = ("them", "their shards") if more else ("it", "its shard")
        source = spec if spec and Path(spec).is_file() else "SPEC"
        command = shlex.join(["eleusis-lab", "run", source, "--out", str(out), "--repair"])
        super().__init__(
            f"{self.refused[0]}{others}; to move {it} to {Path(out) / DAMAGED}/ and play"
            f" {its} again, run: {command} (in Python: repair=True)"
        )


def _schema(kind: str) -> pa.Schema:
    from eleusis_lab.shards import EVENT_SCHEMA, row_schema

    return row_schema() if kind == "rows" else EVENT_SCHEMA


def _inspect(data: bytes, name: str, kind: str) -> tuple[pa.Table | None, str | None]:
    """The table in ``data``, if it reads as shard ``name``'s ``kind`` file; else why not."""
    try:
        table = pq.read_table(pa.BufferReader(data))
    except Exception:  # whatever pyarrow makes of a damaged file, it is damaged
        return None, "damaged: not a whole Parquet file (truncated or overwritten)"
    held = (table.schema.metadata or {}).get(SHARD_KEY)
    if held is not None and held != name.encode():
        return None, (
            f"foreign: it holds shard {held.decode(errors='replace')!r}, not this one"
            " (a copy of another shard's file, or of another run's)"
        )
    if table.schema.names != _schema(kind).names:
        return None, f"foreign: not a {kind} file of experiment results (other columns)"
    return table, None


class _Refusal(Exception):
    def __init__(self, refused: Refused):
        super().__init__(str(refused))
        self.refused = refused


def _check(
    out: str | Path, name: str, kind: str, recorded: dict[str, Any] | None, read: bool
) -> tuple[pa.Table | None, dict[str, Any]]:
    """Check the ``kind`` file of shard ``name`` against its manifest entry ``recorded``
    (None: a folder without a manifest, where a file that reads whole is accepted).

    Returns its table (if ``read``, else None) and its entry; raises `_Refusal`.
    """
    path = _PATHS[kind](out, name)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise _Refusal(Refused(name, path, f"cannot be read ({error.strerror})")) from None
    digest = hashlib.sha256(data).hexdigest()
    if recorded is not None and digest == recorded.get("sha256"):
        return (pq.read_table(pa.BufferReader(data)) if read else None), recorded
    table, why = _inspect(data, name, kind)
    if why is None and recorded is not None:
        why = f"damaged: changed since it was written (its sha256 is not the one in {MANIFEST})"
    if why is not None:
        raise _Refusal(Refused(name, path, why))
    entry = {"file": path.relative_to(out).as_posix(), "rows": table.num_rows, "sha256": digest}
    return table, entry


def _stored_files(
    out: str | Path, name: str, manifest: dict[str, Any] | None
) -> dict[str, dict[str, Any] | None] | None:
    """The files of shard ``name`` to check (kind -> manifest entry), or None if the shard
    is not stored (not recorded, or a file missing: a resume plays it again)."""
    if manifest is None:  # a folder of an older version: a rows file means a shard
        kinds = [kind for kind, path_of in _PATHS.items() if path_of(out, name).is_file()]
        return dict.fromkeys(kinds) if "rows" in kinds else None
    files = manifest["shards"].get(name)
    if not files or not _present(out, name, files):
        return None
    return files


def verify_shards(
    out: str | Path, names: Iterable[str], manifest: dict[str, Any] | None
) -> tuple[dict[str, dict[str, Any]], list[Refused]]:
    """Check the stored shards among ``names``: their manifest entries, and the refused.

    Each file of a shard the manifest records is hashed and compared with its entry;
    without a manifest (``manifest=None``), each file must read whole as its shard's,
    and its entry is made from it. A shard not stored is in neither.
    """
    done: dict[str, dict[str, Any]] = {}
    refused: list[Refused] = []
    for name in names:
        files = _stored_files(out, name, manifest)
        if files is None:
            continue
        try:
            done[name] = {
                kind: _check(out, name, kind, recorded, read=False)[1]
                for kind, recorded in files.items()
            }
        except _Refusal as refusal:
            refused.append(refusal.refused)
    return done, refused


def set_aside(out: str | Path, name: str) -> list[Path]:
    """Move the files of shard ``name`` to ``out/damaged/`` (a number added to a name
    already there); returns where they went. Nothing is deleted."""
    moved = []
    for path_of in _PATHS.values():
        path = path_of(out, name)
        if not path.is_file():
            continue
        target = Path(out) / DAMAGED / path.parent.name / path.name
        copies = 0
        while target.exists():
            copies += 1
            target = target.with_name(f"{path.stem}.{copies}{path.suffix}")
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(path, target)
        moved.append(target)
    return moved


def read_tables(paths: Iterable[Path], schema: pa.Schema | None = None) -> pd.DataFrame:
    """The Parquet files ``paths``, in that order, as one DataFrame.

    Integer columns become pandas' nullable ``Int64``, so a missing value (e.g. a
    ``plays_to_identify`` never reached) is ``<NA>``, not a float NaN.
    """
    return _frame([pq.read_table(path) for path in paths], schema)


def _frame(tables: list[pa.Table], schema: pa.Schema | None) -> pd.DataFrame:
    if tables:
        table = pa.concat_tables(tables)
    elif schema is not None:
        table = schema.empty_table()
    else:
        return pd.DataFrame()
    return table.to_pandas(types_mapper={pa.int64(): pd.Int64Dtype()}.get)


def write_metadata(out: str | Path, metadata: dict[str, Any]) -> None:
    """Write the run metadata of ``out`` atomically."""
    text = json.dumps(metadata, indent=2, default=str)
    write_atomically(Path(out) / METADATA, lambda temporary: Path(temporary).write_text(text))


def read_metadata(out: str | Path) -> dict[str, Any] | None:
    """The run metadata of ``out``, or None if no run wrote any."""
    path = Path(out) / METADATA
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise ConfigError(f"{path}: unreadable run metadata: {error}") from None


def _load(out: str | Path, kind: str) -> pd.DataFrame:
    """The ``kind`` tables of the stored shards of the experiment last run into ``out``,
    each file checked (see `verify_shards`)."""
    metadata = read_metadata(out)
    if metadata is None:
        raise ConfigError(f"{out}: no experiment results here ({METADATA} is missing)")
    manifest = read_manifest(out)
    if manifest is None:
        warnings.warn(UNCHECKED.format(out=out), UncheckedWarning, stacklevel=3)
    tables, refused = [], []
    for name in metadata["shards"]:
        files = _stored_files(out, name, manifest)
        if files is None or kind not in files:
            continue
        try:
            tables.append(_check(out, name, kind, files[kind], read=True)[0])
        except _Refusal as refusal:
            refused.append(refusal.refused)
    if refused:
        raise DamagedResults(out, refused, metadata.get("source"))
    return _frame(tables, _schema(kind))


def load_results(out: str | Path) -> pd.DataFrame:
    """The results table of the experiment last run into ``out`` (the shards stored so far).

    Parameters
    ----------
    out : str or Path
        An output directory of `eleusis_lab.run_experiment`.

    Returns
    -------
    pandas.DataFrame
        One row per game and seat, in the order of cells, games and seats.

    Raises
    ------
    DamagedResults
        For a stored file that changed since it was written (truncated, damaged, or
        another shard's); the message names it and how to play its shard again.
    """
    return _load(out, "rows")


def load_events(out: str | Path) -> pd.DataFrame:
    """The event table (one row per play) of the experiment last run into ``out``;
    checked as `load_results` is."""
    return _load(out, "events")
