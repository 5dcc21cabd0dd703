"""Tables that take seconds to compute and never change, kept on disk between processes.

The dealer's rule pool (`eleusis_lab.dealers.rule_pool`) judges thousands of generated
rules; every process of a run (the main one and each worker) built it again, 2-7 s
each. `cached_table` keeps such a table as Parquet beside the hypothesis spaces
(`eleusis_lab.rules.space_cache.cache_dir`; ``ELEUSIS_LAB_CACHE=off`` keeps it in memory
only). Its file name is a hash of what the table depends on: the caller's key and the
source code of the modules that compute it, so a change to either builds a new table
instead of reading a stale one. A file that cannot be read back as the table it should
be is built again, with a warning naming it.

Examples
--------
>>> import pandas as pd
>>> import eleusis_lab.cards as cards
>>> built = []
>>> def build():
...     built.append(1)
...     return pd.DataFrame({"face": range(52)})
>>> table = cached_table("faces", {"n": 52}, build, [cards], directory=None)
>>> len(table), len(built)
(52, 1)
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import json
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType

import pandas as pd

from eleusis_lab.atomic_files import write_atomically
from eleusis_lab.rules.space_cache import cache_dir

__all__ = ["cached_table", "table_path"]

_DEFAULT = object()


def table_path(name: str, key: dict, sources: Iterable[ModuleType], directory=_DEFAULT):
    """Where the table of ``name`` and ``key`` is kept, or None when nothing is cached."""
    root = cache_dir() if directory is _DEFAULT else directory
    if root is None:
        return None
    digest = hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode())
    for module in sources:
        digest.update(inspect.getsource(module).encode())
    return Path(root) / "tables" / f"{name}-{digest.hexdigest()[:20]}.parquet"


def cached_table(
    name: str,
    key: dict,
    build: Callable[[], pd.DataFrame],
    sources: Iterable[ModuleType],
    directory=_DEFAULT,
) -> pd.DataFrame:
    """The table ``build()`` returns, read from disk when a process already built it.

    ``key``: what the table depends on besides the code (JSON-able); ``sources``: the
    modules whose code computes it; ``directory``: where to keep it (by default the
    cache directory; None: nowhere).
    """
    path = table_path(name, key, sources, directory)
    if path is not None and path.exists():
        try:
            return pd.read_parquet(path)
        except Exception as error:  # damaged or foreign: build it again
            warnings.warn(f"rebuilding {path}: it cannot be read ({error})", stacklevel=2)
    table = build()
    if path is not None:
        _write(table, path)
    return table


def _write(table: pd.DataFrame, path: Path) -> None:
    """Write atomically: a reader never sees half a file; a full disk loses only time."""
    with contextlib.suppress(OSError):
        write_atomically(path, lambda temporary: table.to_parquet(temporary, index=False))
