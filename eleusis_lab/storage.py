"""Where an experiment's results live: one Parquet file per shard, and the run metadata.

Layout of an output directory::

    OUT/metadata.json          the spec, the shards, and one entry per run
    OUT/rows/SHARD.parquet     one row per game and seat (eleusis_lab.shards.ROW_SCHEMA)
    OUT/events/SHARD.parquet   one row per play, when the spec asks for events

Every file is written to a hidden temporary name in its folder, then renamed over its
final name (`os.replace`, atomic), so a reader, or a run resuming after a crash, sees
a shard whole or not at all. A shard is done when its rows file exists (its events are
written first). Readers such as ``pyarrow.parquet.read_table(OUT / "rows")`` skip the
hidden temporary files.

Examples
--------
>>> import tempfile, pyarrow as pa
>>> out = Path(tempfile.mkdtemp())
>>> write_table(pa.table({"x": [1, 2]}), out / "rows" / "a.parquet")
>>> done_shards(out)
{'a'}
>>> write_metadata(out, {"experiment": "demo", "shards": ["a", "b"]})
>>> load_results(out)["x"].tolist()
[1, 2]
"""

from __future__ import annotations

import functools
import json
import os
import socket
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from eleusis_lab.errors import ConfigError

__all__ = [
    "METADATA",
    "clean_temporary",
    "done_shards",
    "events_path",
    "load_events",
    "load_results",
    "read_metadata",
    "read_tables",
    "rows_path",
    "write_metadata",
    "write_table",
]

METADATA = "metadata.json"
_TEMP = ".tmp-"


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
    """The names of the shards whose rows are stored in ``out``."""
    folder = Path(out) / "rows"
    if not folder.is_dir():
        return set()
    return {path.stem for path in folder.glob("*.parquet") if not path.name.startswith(".")}


def read_tables(paths: Iterable[Path], schema: pa.Schema | None = None) -> pd.DataFrame:
    """The Parquet files ``paths``, in that order, as one DataFrame.

    Integer columns become pandas' nullable ``Int64``, so a missing value (e.g. a
    ``plays_to_identify`` never reached) is ``<NA>``, not a float NaN.
    """
    tables = [pq.read_table(path) for path in paths]
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


def _stored(out: str | Path, path_of) -> list[Path]:
    metadata = read_metadata(out)
    if metadata is None:
        raise ConfigError(f"{out}: no experiment results here ({METADATA} is missing)")
    paths = [path_of(out, name) for name in metadata["shards"]]
    return [path for path in paths if path.is_file()]


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
    """
    from eleusis_lab.shards import ROW_SCHEMA

    return read_tables(_stored(out, rows_path), ROW_SCHEMA)


def load_events(out: str | Path) -> pd.DataFrame:
    """The event table (one row per play) of the experiment last run into ``out``."""
    from eleusis_lab.shards import EVENT_SCHEMA

    return read_tables(_stored(out, events_path), EVENT_SCHEMA)
