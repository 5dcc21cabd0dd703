"""The disk cache of hypothesis spaces: a large space is built once per machine.

`cached_space` keeps spaces in the process and on disk (`cache_dir`:
``$ELEUSIS_LAB_CACHE``, else ``~/.cache/eleusis-lab``), one folder per grammar (by its
content, `Grammar.digest`), size, bit limit and `FORMAT`; worker processes memory-map
the same verdict table. Each entry records the shape, dtype and SHA-256 of its arrays
(``.npy`` files) in its ``meta.json``; one that does not match on loading (a truncated
or altered file, metadata that does not fit) is rebuilt, with a `CacheWarning` naming
the file. Entries are written to a temporary folder and renamed, so a reader never sees
half an entry.

Examples
--------
>>> from eleusis_lab.rules.grammar import GRAMMARS
>>> entry_name(GRAMMARS["standard"], 100_000, 64.0)
'standard-6ae0cf84ea96f30c-100000-64.0-v3'
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import numpy as np

from eleusis_lab.cards import N_FACES
from eleusis_lab.rules.enumerator import enumerate_space
from eleusis_lab.rules.grammar import Grammar
from eleusis_lab.rules.space import HypothesisSpace, packed_width

__all__ = ["FORMAT", "CacheWarning", "array_digest", "cache_dir", "cached_space", "entry_name"]

#: The version of the stored layout: bump it when the layout or the enumeration
#: changes, so that entries of another version are never read (3: checksums).
FORMAT = 3


def cache_dir() -> Path | None:
    """Where spaces are cached on disk: ``$ELEUSIS_LAB_CACHE`` or ``~/.cache/eleusis-lab``.

    Setting ``ELEUSIS_LAB_CACHE`` to ``off`` (or ``0``, or empty) keeps spaces in memory only.
    """
    value = os.environ.get("ELEUSIS_LAB_CACHE")
    if value is not None:
        return None if value.strip().lower() in ("", "0", "off", "none") else Path(value)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "eleusis-lab"


class CacheWarning(UserWarning):
    """A cached space did not check out on loading (see `cached_space`): it is rebuilt."""


def entry_name(grammar: Grammar, max_hypotheses: int, max_bits: float) -> str:
    """The folder of a space's entry, in ``spaces/`` of `cache_dir`."""
    return f"{grammar.name}-{grammar.digest()}-{max_hypotheses}-{max_bits}-v{FORMAT}"


@functools.lru_cache(maxsize=8)
def cached_space(
    grammar: Grammar,
    max_hypotheses: int,
    max_bits: float,
    progress: Callable[[str], None] | None = None,
) -> HypothesisSpace:
    """`enumerate_space`, kept in the process (the last 8 spaces asked for) and on disk
    (`cache_dir`): an entry that does not check out is rebuilt, with a `CacheWarning`.
    Its arguments are those of `eleusis_lab.rules.enumerate.build_space`, checked there."""
    folder = cache_dir()
    if folder is None:
        return enumerate_space(grammar, max_hypotheses, max_bits, progress)
    path = folder / "spaces" / entry_name(grammar, max_hypotheses, max_bits)
    if path.exists():
        try:
            return _load(path, grammar)
        except Exception as error:  # whatever is wrong with the entry, it is rebuilt
            reason = str(error).splitlines()[0] if str(error) else type(error).__name__
            warnings.warn(
                f"hypothesis-space cache: {path}: {reason}; rebuilding it",
                CacheWarning,
                stacklevel=4,
            )
            shutil.rmtree(path, ignore_errors=True)
    started = time.perf_counter()
    _tell(
        f"eleusis-lab: building the hypothesis space of grammar {grammar.name!r},"
        f" {max_hypotheses:,} hypotheses, once on this machine; later runs read it from"
        f" {path.parent}"
    )
    space = enumerate_space(grammar, max_hypotheses, max_bits, progress)
    _save(space, path)
    _tell(f"eleusis-lab: built in {time.perf_counter() - started:.0f} s")
    return space


def _tell(line: str) -> None:
    """Say ``line`` to a person watching the terminal (a first run stalls otherwise while
    a space is built); nothing when stderr is not a terminal (a log, a test, a pipe)."""
    stream = sys.stderr
    if stream is not None and stream.isatty():
        print(line, file=stream, flush=True)


#: The arrays of a cached space, one ``.npy`` file each; the table is memory-mapped.
_ARRAYS = (
    "contexts",
    "table",
    "log_prior",
    "bits",
    "keys",
    "keys2",
    "int_graph",
    "bool_graph",
    "expr",
)
#: The keys of a cached space's ``meta.json``.
_META_KEYS = frozenset(
    {"format", "slots", "arrays", "grammar", "numbers", "expressions", "build_seconds"}
    | {"log_total_mass"}
)


def array_digest(array: np.ndarray) -> str:
    """The SHA-256 of an array's bytes (in memory order), as a cache entry records it.

    >>> array_digest(np.zeros(2, np.uint8))[:16]
    '96a296d224f285c6'
    """
    return hashlib.sha256(np.ascontiguousarray(array).data).hexdigest()


def _arrays(space: HypothesisSpace) -> dict[str, np.ndarray]:
    int_graph, bool_graph, expr = space.graph
    return {
        "contexts": space.contexts,
        "table": space.table,
        "log_prior": space.log_prior,
        "bits": space.bits,
        "keys": space.keys,
        "keys2": space.keys2,
        "int_graph": int_graph,
        "bool_graph": bool_graph,
        "expr": expr,
    }


def _save(space: HypothesisSpace, path: Path) -> None:
    """Write a space as .npy files (memory-mappable) into ``path``, atomically, with the
    shape, dtype and SHA-256 of each array in ``meta.json``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".building-", dir=path.parent))
    try:
        checks = {}
        for name, array in _arrays(space).items():
            np.save(tmp / f"{name}.npy", array)
            shape, dtype = list(array.shape), array.dtype.str
            checks[name] = {"shape": shape, "dtype": dtype, "sha256": array_digest(array)}
        meta = {"format": FORMAT, "slots": list(space.slots), "arrays": checks, **space.info}
        (tmp / "meta.json").write_text(json.dumps(meta, indent=1))
        with contextlib.suppress(OSError):  # another process won the race: keep its copy
            os.replace(tmp, path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _load(path: Path, grammar: Grammar | None = None) -> HypothesisSpace:
    """The space cached in ``path``, checked: ``ValueError`` naming the file when its
    metadata, an array's shape, dtype or checksum, or the arrays' sizes do not fit (or
    when it holds another grammar than ``grammar``)."""
    try:
        meta = json.loads((path / "meta.json").read_text())
    except ValueError as error:
        raise ValueError(f"meta.json: not JSON ({error})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError("meta.json: not a cache entry of this version")
    if set(meta) != _META_KEYS:
        raise ValueError(f"meta.json: keys {sorted(set(meta) ^ _META_KEYS)} do not belong")
    if not isinstance(meta["arrays"], dict) or set(meta["arrays"]) != set(_ARRAYS):
        raise ValueError("meta.json: the arrays listed are not the space's")
    if grammar is None:
        try:
            grammar = Grammar(**meta["grammar"])
        except (TypeError, ValueError) as error:
            raise ValueError(f"meta.json: not a grammar ({error})") from None
    elif json.loads(json.dumps(asdict(grammar))) != meta["grammar"]:
        raise ValueError("meta.json: the entry holds another grammar")
    arrays = {}
    for name in _ARRAYS:
        expected = meta["arrays"][name]
        file = path / f"{name}.npy"
        try:
            array = np.load(file, mmap_mode="r" if name == "table" else None, allow_pickle=False)
        except (OSError, ValueError, EOFError) as error:
            raise ValueError(f"{file.name}: cannot be read ({error})") from None
        if list(array.shape) != expected["shape"] or array.dtype.str != expected["dtype"]:
            raise ValueError(
                f"{file.name}: shape {list(array.shape)} {array.dtype.str}, the metadata says"
                f" {expected['shape']} {expected['dtype']}"
            )
        if array_digest(array) != expected["sha256"]:
            raise ValueError(f"{file.name}: the checksum does not match")
        arrays[name] = array
    _check_sizes(arrays)
    return HypothesisSpace(
        grammar,
        meta["slots"],
        arrays["contexts"],
        arrays["table"],  # memory-mapped: shared by every process that loads it
        arrays["log_prior"],
        arrays["bits"],
        arrays["keys"],
        arrays["keys2"],
        (arrays["int_graph"], arrays["bool_graph"], arrays["expr"]),
        {k: v for k, v in meta.items() if k not in ("format", "slots", "arrays")},
    )


def _check_sizes(arrays: dict[str, np.ndarray]) -> None:
    """The arrays of one space agree on its size, and its priors are finite."""
    n = len(arrays["log_prior"])
    if arrays["table"].shape != (len(arrays["contexts"]) * N_FACES, packed_width(n)):
        raise ValueError(f"table.npy: shape {arrays['table'].shape} does not fit {n} hypotheses")
    for name in ("bits", "keys", "keys2", "expr"):
        if len(arrays[name]) != n:
            raise ValueError(f"{name}.npy: {len(arrays[name])} rows for {n} hypotheses")
    if not np.isfinite(arrays["log_prior"]).all():
        raise ValueError("log_prior.npy: a prior is not finite")
