"""Where an experiment's results live: one Parquet file per shard, a manifest, the metadata.

Layout of an output directory::

    OUT/metadata.json          the spec, the shards, and one entry per run
    OUT/manifest.json          the shards stored: each file's name, sha256 and row count
    OUT/rows/SHARD.parquet     one row per game and seat (eleusis_lab.results_schema.row_schema)
    OUT/events/SHARD.parquet   one row per play, when the spec asks for events
    OUT/damaged/               files a run with ``repair`` set aside (see below)
    OUT/.lock                  locked (``flock``) by the run writing the folder, if any

Every file is written to a hidden temporary name in its folder, then renamed over its
final name (`os.replace`, atomic), so a reader, or a run resuming after a crash, sees
a file whole or not at all. A shard's files are written first, then the manifest names
them: a shard is stored when the manifest records it and its files are there, whatever
moment a run was killed at. Each Parquet file also carries its shard's name in its
schema metadata (``eleusis_lab.shard``). Readers such as
``pyarrow.parquet.read_table(OUT / "rows")`` skip the hidden temporary files.

Integrity: `load_results`, `load_events` and a resuming run check the folder whole and
refuse (`DamagedResults`, one line naming the file and what to do):

- a manifest that is not one (`read_manifest`: at most `MAX_JSON_BYTES`, the format this
  version writes, each shard's files at ``KIND/SHARD.parquet`` inside the folder, each
  named by its shard alone, checksums, sizes and row counts of the right types);
- a stored file that changed since it was written: its size and sha256 are compared
  with the manifest's before any Parquet reader sees it (a damaged file can abort the
  reader natively), then its row count with the manifest's;
- a file in ``rows/`` or ``events/`` that the manifest does not name (a reader such as
  ``pyarrow.parquet.read_table(OUT / "rows")`` would read it); while a run holds the
  folder's lock, a file of a shard it is still writing is skipped;
- shard files without a manifest (deleted, or a folder of an older version).

A run with ``repair=True`` (``eleusis-lab run --repair``) moves the refused files to
``OUT/damaged/`` and plays their shards again; play is deterministic, so their rows are
the same as before (but ``wall_time``). Without a usable manifest, it sets the manifest
aside, plays every shard again and records the stored files whose contents are what
the replay gives (read in a separate process, as nothing vouches for them); the others
go to ``OUT/damaged/``.

A run holds an exclusive lock on ``OUT/.lock`` while it writes the folder
(`lock_results`): a second run into it stops with one line. The lock is
``fcntl.flock``'s, which the system releases when the run's process ends however it
ends (``kill -9`` too), and which, unlike ``lockf``/``fcntl`` record locks, belongs to
the open file, so a reader in the same process neither takes it over nor releases it.

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

import contextlib
import errno
import hashlib
import json
import os
import re
import shlex
import socket
import stat
import struct
import subprocess
import sys
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from eleusis_lab.atomic_files import TEMPORARY_PREFIX, write_atomically
from eleusis_lab.errors import ConfigError
from eleusis_lab.results_schema import EVENT_SCHEMA, SETUP_COLUMNS, TIMING_COLUMNS, row_schema

__all__ = [
    "DAMAGED",
    "FORMAT",
    "LOCK",
    "MANIFEST",
    "MAX_JSON_BYTES",
    "METADATA",
    "SHARD_KEY",
    "BadManifest",
    "BadMetadata",
    "DamagedResults",
    "FolderLocked",
    "Refused",
    "Unrecorded",
    "being_written",
    "clean_temporary",
    "disk_full",
    "done_shards",
    "events_path",
    "load_events",
    "load_results",
    "lock_results",
    "read_manifest",
    "read_metadata",
    "read_tables",
    "read_untrusted",
    "release_space",
    "replayed_entries",
    "reserve_space",
    "rows_path",
    "set_aside",
    "set_aside_file",
    "stored_files",
    "stray_files",
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
FORMAT = 1  # the manifest's format, the only one this version reads
LOCK = ".lock"  # hidden: Parquet readers of rows/ and events/ never see it
MAX_JSON_BYTES = 64 * 2**20  # the manifest and metadata.json: read no larger file
_KINDS = ("rows", "events")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+=-]{0,199}")  # a shard's name: a file's stem
_SHA256 = re.compile(r"[0-9a-f]{64}")
_RESERVE = ".reserve"  # space kept free for a run's last word on a full disk


def rows_path(out: str | Path, shard: str) -> Path:
    """The rows file of shard ``shard`` in ``out``."""
    return Path(out) / "rows" / f"{shard}.parquet"


def events_path(out: str | Path, shard: str) -> Path:
    """The events file of shard ``shard`` in ``out``."""
    return Path(out) / "events" / f"{shard}.parquet"


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

    A killed run cannot write its own end; its process id and host say it is over (and
    the next run into the folder, holding its lock, records it so). The other statuses:
    ``"complete"``, ``"interrupted"`` (Ctrl-C, SIGTERM), ``"disk full"``, ``"failed"``
    (any other error, named in ``"error"``).

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
        for path in folder.glob(f"{TEMPORARY_PREFIX}*"):
            pid = path.name[len(TEMPORARY_PREFIX) :].split("-", 1)[0]
            if pid.isdigit() and _running(int(pid)):
                continue
            path.unlink(missing_ok=True)
            removed += 1
    return removed


# -- the lock of a run writing a folder, and its last word on a full disk ----------------------


class FolderLocked(ConfigError):
    """Another run is writing the results folder (it holds `LOCK`)."""


def _lock(handle: Any, shared: bool = False) -> bool:
    """Lock the open file ``handle`` without waiting; False if another holds the lock.

    POSIX: ``flock``, tied to the open file (a second open of the same file, even in
    this process, is another holder) and released by the system when the process ends.
    Elsewhere (Windows): ``msvcrt.locking`` of its first byte, always exclusive.
    """
    try:
        import fcntl
    except ImportError:  # not POSIX
        try:
            import msvcrt
        except ImportError:  # neither: no lock to take
            return True
        try:
            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    try:
        fcntl.flock(handle.fileno(), (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
    except OSError as error:
        if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return False
        if error.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS):
            return True  # a file system without locks (some network mounts): unguarded
        raise
    return True


def lock_results(out: str | Path, wait: float = 2.0) -> Any:
    """Lock the results folder ``out`` for a run that writes it; returns the open lock
    file, to close (``with``) when the run ends (the system releases it if the process
    dies first).

    Raises `FolderLocked` (one line) if another run holds it after ``wait`` seconds (a
    reader checking `being_written` holds it for a moment only).

    >>> import tempfile
    >>> out = tempfile.mkdtemp()
    >>> with lock_results(out):
    ...     being_written(out), lock_results(out, wait=0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    eleusis_lab.storage.FolderLocked: ...: another run is writing these results (...
    >>> being_written(out)
    False
    """
    path = Path(out) / LOCK
    handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 -- the caller closes it
    try:
        deadline = time.monotonic() + wait
        while not _lock(handle):
            if time.monotonic() >= deadline:
                handle.seek(0)
                holder = handle.read(200).strip() or "a process"
                raise FolderLocked(
                    f"{out}: another run is writing these results ({holder}); wait for it"
                    " to end, or run into another folder"
                )
            time.sleep(0.05)
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()} on {socket.gethostname()}\n")
        handle.flush()
    except BaseException:
        handle.close()
        raise
    return handle


def being_written(out: str | Path) -> bool:
    """Whether a run holds the lock of the results folder ``out`` (is writing it now)."""
    try:
        handle = open(Path(out) / LOCK, encoding="utf-8")  # noqa: SIM115
    except OSError:  # no lock file: no run ever wrote here, or one of an older version
        return False
    with handle:
        return not _lock(handle, shared=True)  # closing the file releases it


def disk_full(error: BaseException) -> bool:
    """Whether ``error`` says the disk (or the user's quota) is full."""
    return isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT)


def reserve_space(out: str | Path, size: int) -> None:
    """Keep ``size`` bytes in a hidden file of ``out``, for `release_space` to free when
    the disk is full: room for the run to record that it stopped, and why."""
    data = os.urandom(size)  # not zeros: a compressing file system would store nothing
    write_atomically(Path(out) / _RESERVE, lambda temporary: Path(temporary).write_bytes(data))


def release_space(out: str | Path) -> None:
    """Free the space `reserve_space` kept, if any."""
    with contextlib.suppress(OSError):
        (Path(out) / _RESERVE).unlink(missing_ok=True)


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


class BadManifest(ConfigError):
    """A manifest that is not one: unreadable, too large, of another format, or whose
    entries do not fit its schema (see `read_manifest`)."""


def _repair_command(out: str | Path, spec: str | None) -> str:
    source = spec if spec and Path(spec).is_file() else "SPEC"
    return shlex.join(["eleusis-lab", "run", source, "--out", str(out), "--repair"])


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise ValueError(f"the key {twice!r} twice")
    return found


def _read_json(path: Path) -> Any:
    """The JSON value of the file ``path``, read only if it is a regular file of at most
    `MAX_JSON_BYTES`; `FileNotFoundError` if there is none, `ValueError` saying why not."""
    info = path.stat()
    if not stat.S_ISREG(info.st_mode):  # a FIFO or a device would block or never end
        raise ValueError("not a regular file")
    if info.st_size > MAX_JSON_BYTES:
        raise ValueError(f"{info.st_size} bytes, over the limit of {MAX_JSON_BYTES} bytes")
    with open(path, "rb") as handle:
        data = handle.read(MAX_JSON_BYTES + 1)
    if len(data) > MAX_JSON_BYTES:  # it grew since
        raise ValueError(f"over the limit of {MAX_JSON_BYTES} bytes")
    try:
        return json.loads(data.decode("utf-8"), object_pairs_hook=_unique_keys)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _manifest_problem(manifest: Any) -> str | None:
    """What makes ``manifest`` not a manifest of this version, or None: its schema."""
    if not isinstance(manifest, dict):
        return "not a JSON object"
    if set(manifest) != {"format", "shards"}:
        keys = sorted(set(manifest) ^ {"format", "shards"})
        return f"keys {', '.join(map(repr, keys))} missing or unknown"
    form = manifest["format"]
    if not _count(form) or form != FORMAT:
        return f"format {form!r}, not {FORMAT}, the one this version reads"
    shards = manifest["shards"]
    if not isinstance(shards, dict):
        return "'shards' is not an object of shards"
    for name, files in shards.items():
        if not _NAME.fullmatch(name):
            return f"{name!r} is not a shard's name"
        if not isinstance(files, dict) or "rows" not in files or not set(files) <= set(_KINDS):
            return f"shard {name!r}: not an object of its rows (and events) file"
        for kind, entry in files.items():
            where = f"shard {name!r}, {kind}"
            if not isinstance(entry, dict) or not {"file", "sha256", "rows"} <= set(entry):
                return f"{where}: not an object with file, sha256 and rows"
            if not set(entry) <= {"file", "sha256", "rows", "bytes"}:
                return f"{where}: unknown keys"
            if entry["file"] != f"{kind}/{name}.parquet":  # inside the folder, its own
                return f"{where}: file {entry['file']!r}, not {kind}/{name}.parquet"
            if not isinstance(entry["sha256"], str) or not _SHA256.fullmatch(entry["sha256"]):
                return f"{where}: sha256 {entry['sha256']!r} is not a sha256 in hex"
            for key in ("rows", "bytes"):
                if key in entry and not _count(entry[key]):
                    return f"{where}: {key} {entry[key]!r} is not a count"
    return None


def read_manifest(out: str | Path, spec: str | None = None) -> dict[str, Any] | None:
    """The manifest of ``out``, or None if it has none.

    A manifest is ``{"format": 1, "shards": {NAME: {KIND: FILE}}}``: KIND ``rows``
    (always) or ``events``, a FILE ``{"file": "KIND/NAME.parquet", "sha256": HEX,
    "rows": COUNT, "bytes": COUNT}`` (``bytes`` missing in those of older versions).

    Raises
    ------
    BadManifest
        One line, for a file that is not one: larger than `MAX_JSON_BYTES`, not JSON, a
        key twice, another format, an entry that does not fit (a path elsewhere than its
        shard's file, a count that is not one). The message says how to rebuild it
        (``spec``: the spec file to name there).

    >>> import tempfile
    >>> out = Path(tempfile.mkdtemp())
    >>> _ = (out / MANIFEST).write_text('{"format": 2, "shards": {}}')
    >>> read_manifest(out)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    eleusis_lab.storage.BadManifest: .../manifest.json: unreadable manifest (format 2, not 1, ...
    """
    path = Path(out) / MANIFEST
    try:
        return _read_checked(path, _manifest_problem)
    except (OSError, ValueError) as error:  # raised below, without the reader's traceback
        why = _why(error)
    raise BadManifest(
        f"{path}: unreadable manifest ({why}); to set it aside and play the shards again,"
        f" keeping the stored files whose contents replay, run: {_repair_command(out, spec)}"
    )


def _read_checked(path: Path, problem_of: Callable[[Any], str | None]) -> Any:
    """The JSON of ``path``, or None without the file; `ValueError` naming the problem
    ``problem_of`` finds in it (`OSError` as reading raises it)."""
    try:
        data = _read_json(path)
    except FileNotFoundError:
        return None
    problem = problem_of(data)
    if problem is not None:
        raise ValueError(problem)
    return data


def _why(error: OSError | ValueError) -> Any:
    """What a file's reading error says, for its one line."""
    return error.strerror if isinstance(error, OSError) and error.strerror else error


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
    leaves files the manifest does not name: not stored, played again on resume (until
    then, readers refuse them, see `stray_files`).
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
                digest["bytes"] = os.fstat(written.fileno()).st_size

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
    stray: bool = False  # a file the manifest does not name: set aside, nothing to replay

    def __str__(self) -> str:
        return f"{self.path}: {self.why}"


class DamagedResults(ConfigError):
    """Stored files that fail their check: the message names the first and what to do.

    ``refused`` lists them all (`Refused`).
    """

    def __init__(self, out: str | Path, refused: Sequence[Refused], spec: str | None = None):
        self.refused = list(refused)
        more = len(self.refused) - 1
        others = f" (and {more} more file{'s' if more > 1 else ''})" if more else ""
        it, its = ("them", "their shards") if more else ("it", "its shard")
        replay = "" if all(r.stray for r in self.refused) else f" and play {its} again"
        super().__init__(
            f"{self.refused[0]}{others}; to move {it} to {Path(out) / DAMAGED}/{replay},"
            f" run: {_repair_command(out, spec)} (in Python: repair=True)"
        )


class Unrecorded(ConfigError):
    """Shard files without a manifest (deleted, or a folder of an older version): nothing
    vouches for them, so they are refused until a repair checks them by replaying."""

    def __init__(self, out: str | Path, files: Sequence[Path], spec: str | None = None):
        self.files = list(files)
        count = f"{len(self.files)} file{'s' if len(self.files) > 1 else ''}"
        super().__init__(
            f"{out}: no {MANIFEST}, yet {count} in rows/ and events/ (its manifest deleted,"
            " or results of an older version): nothing vouches for their contents; to play"
            " their shards again and record the files whose contents replay, run:"
            f" {_repair_command(out, spec)} (in Python: repair=True)"
        )


def _schema(kind: str) -> pa.Schema:
    return row_schema() if kind == "rows" else EVENT_SCHEMA


_READER = """\
import io, struct, sys
import pyarrow as pa
import pyarrow.parquet as pq
source, sink = sys.stdin.buffer, sys.stdout.buffer
for _ in range(struct.unpack("<Q", source.read(8))[0]):
    data = source.read(struct.unpack("<Q", source.read(8))[0])
    stream = io.BytesIO()
    try:
        table = pq.read_table(pa.BufferReader(data))
        with pa.ipc.new_stream(stream, table.schema) as writer:
            writer.write_table(table)
    except Exception:
        stream = io.BytesIO()
    sink.write(struct.pack("<Q", len(stream.getvalue())) + stream.getvalue())
    sink.flush()
"""


def read_untrusted(files: Sequence[bytes], timeout: float = 300.0) -> list[pa.Table | None]:
    """The tables of the Parquet files ``files`` (their bytes) that nothing vouches for
    (no checksum), read in one separate process; None for a file that does not read, and
    for it and the files after it if the reader aborts or hangs.

    The Parquet reader can abort its process natively on a damaged file ("terminate
    called without an active exception"): here only the separate process ends. What
    comes back is Arrow's stream format, which that process wrote.

    >>> import io
    >>> buffer = io.BytesIO()
    >>> pq.write_table(pa.table({"x": [1, 2]}), buffer)
    >>> whole, damaged = read_untrusted([buffer.getvalue(), b"PAR1 no"])
    >>> whole["x"].to_pylist(), damaged
    ([1, 2], None)
    """
    message = struct.pack("<Q", len(files)) + b"".join(
        struct.pack("<Q", len(data)) + data for data in files
    )
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-c", _READER],
            input=message,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
        answer = done.stdout
    except (OSError, subprocess.SubprocessError):
        answer = b""
    tables: list[pa.Table | None] = []
    at = 0
    while len(tables) < len(files) and at + 8 <= len(answer):
        (size,) = struct.unpack_from("<Q", answer, at)
        stream, at = answer[at + 8 : at + 8 + size], at + 8 + size
        try:
            tables.append(pa.ipc.open_stream(stream).read_all() if size else None)
        except (pa.ArrowException, OSError, ValueError):
            tables.append(None)
    return tables + [None] * (len(files) - len(tables))


def _inspect(table: pa.Table | None, name: str, kind: str) -> str | None:
    """Why ``table``, read from a file nothing vouches for (None: it did not read), is not
    shard ``name``'s ``kind`` file; None if it is."""
    if table is None:
        return "damaged: not a whole Parquet file (truncated or overwritten)"
    held = (table.schema.metadata or {}).get(SHARD_KEY)  # none in an older version's
    if held is not None and held != name.encode():
        return _foreign(held.decode(errors="replace"))
    if table.schema.names != _schema(kind).names:
        return f"foreign: not a {kind} file of experiment results (other columns)"
    return None


def _foreign(held: str) -> str:
    return (
        f"foreign: it holds shard {held!r}, not this one"
        " (a copy of another shard's file, or of another run's)"
    )


def _held_shard(data: bytes) -> str | None:
    """The shard a Parquet file's footer names (`SHARD_KEY`), found in its bytes without
    a Parquet reader; None if not found. The footer is Thrift's compact encoding: the
    key and the value are each a field header (0x18), a length (varint) and the bytes."""
    size = int.from_bytes(data[-8:-4], "little") if len(data) >= 12 else 0
    footer = data[max(0, len(data) - 8 - size) : -8]
    key = b"\x18" + bytes([len(SHARD_KEY)]) + SHARD_KEY + b"\x18"
    at = footer.find(key)
    if at < 0:
        return None
    at += len(key)
    length = shift = 0
    while at < len(footer) and shift < 21:
        byte = footer[at]
        at += 1
        length |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            break
    value = footer[at : at + length]
    return value.decode(errors="replace") if len(value) == length else None


def _why_changed(data: bytes, name: str, recorded: dict[str, Any], others: dict[str, str]) -> str:
    """Why a file whose sha256 is not the one recorded was refused, said from its bytes
    alone (a Parquet reader can abort on a damaged file: it never sees them)."""
    digest = hashlib.sha256(data).hexdigest()
    if others.get(digest, name) != name:
        return _foreign(others[digest])
    if len(data) < 12 or data[:4] != b"PAR1" or data[-4:] != b"PAR1":
        return "damaged: not a whole Parquet file (truncated or overwritten)"
    held = _held_shard(data)
    if held is not None and held != name:
        return _foreign(held)
    size = recorded.get("bytes")
    if size is not None and size != len(data):
        return f"damaged: changed since it was written ({len(data)} bytes, not {size})"
    return f"damaged: changed since it was written (its sha256 is not the one in {MANIFEST})"


def _digests(manifest: dict[str, Any]) -> dict[str, str]:
    """The shard of each sha256 the manifest records."""
    return {
        entry["sha256"]: name
        for name, files in manifest["shards"].items()
        for entry in files.values()
    }


class _Refusal(Exception):
    def __init__(self, refused: Refused):
        super().__init__(str(refused))
        self.refused = refused


def _check(
    out: str | Path,
    name: str,
    kind: str,
    recorded: dict[str, Any],
    read: bool,
    others: dict[str, str],
) -> pa.Table | None:
    """Check the ``kind`` file of shard ``name`` against its manifest entry ``recorded``:
    its size and sha256, then (its bytes being the ones written, which the Parquet reader
    may see) its row count. ``others``: the shard of each sha256 of the manifest.

    Returns its table if ``read`` (else None); raises `_Refusal`.
    """
    path = _PATHS[kind](out, name)

    def refuse(why: str) -> _Refusal:
        return _Refusal(Refused(name, path, why))

    try:
        size = path.stat().st_size
        written = recorded.get("bytes")
        if written is not None and size > 2 * written + 2**20:  # not worth reading
            raise refuse(f"damaged: changed since it was written ({size} bytes, not {written})")
        data = path.read_bytes()
    except OSError as error:
        raise refuse(f"cannot be read ({error.strerror or error})") from None
    if hashlib.sha256(data).hexdigest() != recorded["sha256"]:
        raise refuse(_why_changed(data, name, recorded, others))
    if recorded.get("bytes", len(data)) != len(data):
        raise refuse(f"{len(data)} bytes, but {MANIFEST} records {recorded['bytes']}")
    if read:
        table = _read_table(pa.BufferReader(data))
        rows = table.num_rows
    else:
        table, rows = None, pq.read_metadata(pa.BufferReader(data)).num_rows
    if rows != recorded["rows"]:
        raise refuse(f"{rows} rows, but {MANIFEST} records {recorded['rows']}")
    return table


def _stored_files(
    out: str | Path, name: str, manifest: dict[str, Any]
) -> dict[str, dict[str, Any]] | None:
    """The files of shard ``name`` to check (kind -> manifest entry), or None if the shard
    is not stored (not recorded, or a file missing: a resume plays it again)."""
    files = manifest["shards"].get(name)
    if not files or not _present(out, name, files):
        return None
    return files


def verify_shards(
    out: str | Path, names: Iterable[str], manifest: dict[str, Any]
) -> tuple[dict[str, dict[str, Any]], list[Refused]]:
    """Check the stored shards among ``names``: their manifest entries, and the refused.

    Each file of a shard the manifest records is checked against its entry (size,
    sha256, row count). A shard not stored is in neither.
    """
    done: dict[str, dict[str, Any]] = {}
    refused: list[Refused] = []
    others = _digests(manifest)
    for name in names:
        files = _stored_files(out, name, manifest)
        if files is None:
            continue
        try:
            for kind, recorded in files.items():
                _check(out, name, kind, recorded, False, others)
        except _Refusal as refusal:
            refused.append(refusal.refused)
        else:
            done[name] = files
    return done, refused


def stored_files(out: str | Path) -> list[Path]:
    """Everything in ``rows/`` and ``events/`` of ``out`` but hidden names (temporary
    files being written, which Parquet readers skip too); ``rows`` or ``events`` itself
    if it is not a folder."""
    found = []
    for kind in _KINDS:
        folder = Path(out) / kind
        try:
            with os.scandir(folder) as entries:
                found += sorted(Path(e.path) for e in entries if not e.name.startswith("."))
        except FileNotFoundError:
            continue
        except NotADirectoryError:
            found.append(folder)
    return found


def stray_files(
    out: str | Path, manifest: dict[str, Any] | None, pending: Collection[str] = ()
) -> list[Refused]:
    """The files of ``rows/`` and ``events/`` (`stored_files`) that the manifest does not
    name: put there by hand, or left by a run stopped between writing a shard's files and
    recording them. A file of a shard in ``pending`` (one a run is about to play again,
    or is writing now) is not counted.

    >>> import tempfile
    >>> out = Path(tempfile.mkdtemp())
    >>> write_manifest(out, {"format": 1, "shards": {}})
    >>> write_shard(out, "a", pa.table({"x": [1]}))
    >>> pq.write_table(pa.table({"x": [5]}), out / "rows" / "extra.parquet")
    >>> [str(refused) for refused in stray_files(out, read_manifest(out))]  # doctest: +ELLIPSIS
    ['.../rows/extra.parquet: not in manifest.json: put there by hand, or left by a run ...']
    """
    shards = {} if manifest is None else manifest["shards"]
    refused = []
    for path in stored_files(out):
        kind, named = path.parent.name, path.suffix == ".parquet"
        if named and kind in _KINDS and kind in shards.get(path.stem, {}):
            continue
        if named and path.stem in pending and path.is_file():
            continue
        why = f"not in {MANIFEST}: put there by hand, or left by a run stopped while writing it"
        refused.append(Refused(path.stem, path, why, stray=True))
    return refused


def set_aside_file(out: str | Path, path: Path) -> Path:
    """Move ``path`` (in ``out/rows``, ``out/events`` or ``out``) to ``out/damaged/``,
    beside the same folder's, a number added to a name already there; returns where to."""
    where = Path(path).parent.name if Path(path).parent != Path(out) else ""
    target = Path(out) / DAMAGED / where / Path(path).name
    copies = 0
    while target.exists():
        copies += 1
        target = target.with_name(f"{Path(path).stem}.{copies}{Path(path).suffix}")
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(path, target)
    return target


def set_aside(out: str | Path, name: str) -> list[Path]:
    """Move the files of shard ``name`` to ``out/damaged/`` (a number added to a name
    already there); returns where they went. Nothing is deleted."""
    moved = []
    for path_of in _PATHS.values():
        path = path_of(out, name)
        if path.is_file():
            moved.append(set_aside_file(out, path))
    return moved


def replayed_entries(
    out: str | Path, name: str, tables: dict[str, pa.Table]
) -> dict[str, dict[str, Any]] | None:
    """The manifest entries of shard ``name``'s stored files, if they hold what its replay
    gives, ``tables`` (kind -> table; the timing columns aside); else None.

    For a folder without a manifest (`Unrecorded`): nothing vouches for the files, so
    they are read in a separate process (`read_untrusted`).
    """
    if {kind for kind in _KINDS if _PATHS[kind](out, name).exists()} != set(tables):
        return None
    try:
        files = {kind: _PATHS[kind](out, name).read_bytes() for kind in tables}
    except OSError:
        return None
    entries = {}
    read = read_untrusted(list(files.values()))
    for (kind, data), stored in zip(files.items(), read, strict=True):
        table = tables[kind]
        if _inspect(stored, name, kind) is not None or stored.schema != table.schema:
            return None
        columns = [column for column in table.column_names if column not in TIMING_COLUMNS]
        if not stored.select(columns).to_pandas().equals(table.select(columns).to_pandas()):
            return None
        entries[kind] = {
            "file": f"{kind}/{name}.parquet",
            "rows": stored.num_rows,
            "sha256": hashlib.sha256(data).hexdigest(),
            "bytes": len(data),
        }
    return entries


def read_tables(paths: Iterable[Path], schema: pa.Schema | None = None) -> pd.DataFrame:
    """The Parquet files ``paths``, in that order, as one DataFrame.

    Integer columns become pandas' nullable ``Int64``, so a missing value (e.g. a
    ``plays_to_identify`` never reached) is ``<NA>``, not a float NaN; the set-up
    columns (`eleusis_lab.results_schema.SETUP_COLUMNS`) are categoricals.
    """
    return _frame([_read_table(path) for path in paths], schema)


def _read_table(source) -> pa.Table:
    """A stored table, its `SETUP_COLUMNS` dictionary-encoded (categorical in pandas)."""
    return pq.read_table(source, read_dictionary=SETUP_COLUMNS)


def _frame(tables: list[pa.Table], schema: pa.Schema | None) -> pd.DataFrame:
    if tables:
        table = pa.concat_tables(tables)
    elif schema is not None:  # the set-up columns as `_read_table` reads them
        setup = pa.dictionary(pa.int32(), pa.string())
        fields = [f.with_type(setup) if f.name in SETUP_COLUMNS else f for f in schema]
        table = pa.schema(fields).empty_table()
    else:
        return pd.DataFrame()
    return table.to_pandas(types_mapper={pa.int64(): pd.Int64Dtype()}.get)


def write_metadata(out: str | Path, metadata: dict[str, Any]) -> None:
    """Write the run metadata of ``out`` atomically."""
    text = json.dumps(metadata, indent=2, default=str)
    write_atomically(Path(out) / METADATA, lambda temporary: Path(temporary).write_text(text))


class BadMetadata(ConfigError):
    """A metadata.json that is not one (see `read_metadata`)."""


#: The keys of metadata.json a reader relies on, and what each must be.
_METADATA_TYPES: dict[str, tuple[type, ...]] = {
    "experiment": (str,),
    "source": (str, type(None)),
    "spec": (dict,),
    "unit": (str,),
    "units": (int,),
    "cells": (list,),
    "shards": (list,),
    "runs": (list,),
}


def _metadata_problem(metadata: Any) -> str | None:
    """What makes ``metadata`` not a metadata.json of experiment results, or None."""
    if not isinstance(metadata, dict):
        return "not a JSON object"
    if "shards" not in metadata:
        return "no list of shards"
    for key, types in _METADATA_TYPES.items():
        value = metadata.get(key)
        if key in metadata and (not isinstance(value, types) or isinstance(value, bool)):
            return f"{key} {value!r:.40} is not {'a list' if types == (list,) else 'one'}"
    names = metadata["shards"]
    bad = next((n for n in names if not (isinstance(n, str) and _NAME.fullmatch(n))), None)
    if bad is not None:
        return f"{bad!r:.60} is not a shard's name"
    if len(set(names)) != len(names):
        return "a shard named twice"
    for key in ("cells", "runs"):
        if not all(isinstance(item, dict) for item in metadata.get(key, [])):
            return f"{key}: not a list of objects"
    if not all(isinstance(run.get("status", ""), str) for run in metadata.get("runs", [])):
        return "runs: a status that is not text"
    return None


def read_metadata(out: str | Path) -> dict[str, Any] | None:
    """The run metadata of ``out``, or None if no run wrote any.

    Raises `BadMetadata` (one line) for a file that is not one: larger than
    `MAX_JSON_BYTES`, not JSON, or keys of the wrong types (``"runs": "x"``, a shard
    name that is not a file name of ``rows/``).
    """
    path = Path(out) / METADATA
    try:
        return _read_checked(path, _metadata_problem)
    except (OSError, ValueError) as error:  # raised below, without the reader's traceback
        why = _why(error)
    raise BadMetadata(
        f"{path}: unreadable run metadata ({why}); to set it aside and record the runs"
        f" anew, run: {_repair_command(out, None)}"
    )


def _load(out: str | Path, kind: str) -> pd.DataFrame:
    """The ``kind`` tables of the stored shards of the experiment last run into ``out``,
    the folder checked whole (see `verify_shards` and `stray_files`)."""
    metadata = read_metadata(out)
    if metadata is None:
        raise ConfigError(f"{out}: no experiment results here ({METADATA} is missing)")
    source = metadata.get("source")
    manifest = read_manifest(out, source)
    if manifest is None:
        found = stored_files(out)
        if found:
            raise Unrecorded(out, found, source)
        return _frame([], _schema(kind))
    tables, refused, others = [], [], _digests(manifest)
    names = metadata["shards"]
    for name in names:
        files = _stored_files(out, name, manifest)
        if files is None or kind not in files:
            continue
        try:
            tables.append(_check(out, name, kind, files[kind], True, others))
        except _Refusal as refusal:
            refused.append(refusal.refused)
    strays = stray_files(out, manifest)
    if strays and being_written(out):  # a run writes the shards it has not recorded yet
        pending = {name for name in names if _stored_files(out, name, manifest) is None}
        strays = stray_files(out, manifest, pending)
    refused += strays
    if refused:
        raise DamagedResults(out, refused, source)
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
        One row per game and seat, in the order of cells, games and seats (the columns
        of `eleusis_lab.results_schema.row_schema`; as `read_tables` gives them).

    Raises
    ------
    DamagedResults
        For a stored file that changed since it was written (truncated, damaged, or
        another shard's), or whose row count is not the manifest's, or a file of
        ``rows/`` or ``events/`` the manifest does not name; the message names it and
        how to set it aside and play its shard again.
    BadManifest, BadMetadata
        For a manifest.json or metadata.json that is not one (see `read_manifest`).
    Unrecorded
        For shard files without a manifest.
    """
    return _load(out, "rows")


def load_events(out: str | Path) -> pd.DataFrame:
    """The event table (one row per play) of the experiment last run into ``out``;
    checked as `load_results` is."""
    return _load(out, "events")
