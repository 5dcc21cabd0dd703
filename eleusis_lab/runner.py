"""Run an experiment spec: shards of games in parallel, stored as they finish, resumable.

`run_experiment` expands a spec (`eleusis_lab.spec`) into shards
(`eleusis_lab.shards`), skips those already stored in the output directory, plays the
rest in this process, in joblib worker processes (``jobs=N``) or on Dask (``backend=
"dask"``: a local cluster; ``scheduler=ADDRESS``: an existing one), writes each
shard's rows as it arrives (`eleusis_lab.storage`), and returns the whole table.

- Same spec, same table (but the ``wall_time`` column, see
  `eleusis_lab.results_schema.TIMING_COLUMNS`), whatever the backend and the number of jobs:
  every random choice derives from the spec's seed and the game's number.
- A run stopped by Ctrl-C, ``kill -9`` or a crash is finished by running it again with
  the same spec and output directory; the stored shards are kept, a shard half-written
  is never seen, and the table is the one of an uninterrupted run.
- A resuming run checks the folder whole against the manifest (`eleusis_lab.storage`)
  and refuses a file that changed since it was written, one the manifest does not
  name, a manifest that is not one, or shard files without a manifest; ``repair=True``
  moves the refused files aside and plays their shards again (without a manifest: all
  of them, recording the stored files that replay the same).
- One run at a time writes a folder (it holds the folder's lock); the metadata records
  how each run ended: "complete", "interrupted", "disk full", "failed" or, for one
  whose process vanished (``kill -9``), "killed".
- Workers send rows back and this process writes them, so a cluster needs no shared disk.

The ``eleusis-lab run`` command is `run_command` (its arguments: `eleusis_lab.cli`); `bench_run`
times a spec with 1 and 2 jobs.

Scripts that use ``backend="dask"`` without a ``scheduler`` start worker processes:
guard their top level with ``if __name__ == "__main__":``, as for `multiprocessing`.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import functools
import json
import math
import os
import platform
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.compute as pc
import pyarrow.parquet as pq

from eleusis_lab.errors import ConfigError
from eleusis_lab.export import export_csv
from eleusis_lab.llm_cache_mode import CACHE_MODE_ENV
from eleusis_lab.progress import GameTicks, tick
from eleusis_lab.results_schema import row_schema
from eleusis_lab.shards import (
    Shard,
    ShardResult,
    add_rule_figures,
    play_shard,
)
from eleusis_lab.spec import Cell, ExperimentSpec, check_jobs, check_output_folder, load_spec
from eleusis_lab.storage import (
    DAMAGED,
    FORMAT,
    MANIFEST,
    METADATA,
    BadManifest,
    BadMetadata,
    DamagedResults,
    Unrecorded,
    clean_temporary,
    disk_full,
    done_shards,
    lock_results,
    read_manifest,
    read_metadata,
    read_tables,
    release_space,
    replayed_entries,
    reserve_space,
    rows_path,
    set_aside,
    set_aside_file,
    stored_files,
    stray_files,
    verify_shards,
    write_manifest,
    write_metadata,
    write_shard,
)
from eleusis_lab.text import plural

__all__ = [
    "BACKENDS",
    "BudgetSpent",
    "RunInterrupted",
    "bench_run",
    "plan_shards",
    "run_command",
    "run_experiment",
    "shard_size",
]

BACKENDS = ("local", "threads", "dask")
_PACKAGES = ("eleusis-lab", "numpy", "pandas", "pyarrow", "scikit-learn", "joblib", "distributed")


class BudgetSpent(Exception):
    """A run stopped by its budget of language-model requests or tokens (the spec's
    ``budget``), every shard it finished kept; run again with a larger one to go on."""


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run; the message says how many shards are kept for resuming."""


def plan_shards(spec: ExperimentSpec) -> list[Shard]:
    """The shards of a spec: each cell's units cut into runs of `shard_size`.

    >>> spec = load_spec({"games": 5, "shard_size": 2, "dealer": "red(card)",
    ...                   "agents": ["random", "random"]})
    >>> [(shard.index, shard.start, shard.stop) for shard in plan_shards(spec)]
    [(0, 0, 2), (1, 2, 4), (2, 4, 5)]
    """
    shards = []
    for cell in spec.cells:
        size = shard_size(cell, spec.units)
        for index, start in enumerate(range(0, spec.units, size)):
            shards.append(Shard(cell, index, start, min(start + size, spec.units), size))
    return shards


def shard_size(cell: Cell, units: int) -> int:
    """Units per shard of ``cell`` in a run of ``units``: the spec's ``shard_size``, but
    at most half the units (in whole duplicate deals), so that two workers share even a
    trial; a dealer that learns over the games of a shard (`eleusis_lab.dealers.learns`)
    keeps the spec's.

    The rules a dealer picks follow its shard (each shard has a generator of its own),
    so this depends on the spec and the count alone, never on the workers; a shard cut
    smaller carries its size in its name (`eleusis_lab.shards.Shard.name`).

    >>> spec = load_spec({"games": 20, "shard_size": 50, "dealer": "red(card)",
    ...                   "agents": ["random", "random"]})
    >>> shard_size(spec.cells[0], 20), shard_size(spec.cells[0], 1000)
    (10, 50)
    """
    if cell.dealer_plan is not None and cell.dealer_plan.learns:
        return cell.shard_size
    per_deal = cell.lineup.games_per_deal
    half = -(-units // 2)
    return min(cell.shard_size, -(-half // per_deal) * per_deal)


# -- backends: each yields the ShardResults of the shards as they finish -------------------


def _in_process(shards: Sequence[Shard], ticks: GameTicks, out: Path) -> Iterator[ShardResult]:
    for shard in shards:
        on_game = functools.partial(ticks.count, shard.name)
        yield play_shard(shard, on_game=on_game, out=out)


class _Stopped(Exception):
    """Raised after a game in a thread of a run that is over: its shard is not kept."""


def _threads(
    shards: Sequence[Shard], jobs: int, ticks: GameTicks, stop: threading.Event, out: Path
) -> Iterator[ShardResult]:
    """Shards played by ``jobs`` threads of this process, for agents that wait rather
    than compute (language models: their games' requests overlap). The decision limit
    is not enforced in a thread (`eleusis_lab.engines.can_interrupt`): an endpoint's
    time-out bounds its requests. Once ``stop`` is set (the budget spent), no shard
    starts, and one under way stops after the game it is playing (kept if that was its
    last); the shards that finish meanwhile are still yielded, so that what their
    requests bought is kept.
    """
    from concurrent.futures import ThreadPoolExecutor, as_completed

    over = threading.Event()  # the run is over: closed, or stopped by an error

    def play(shard: Shard) -> ShardResult:
        played = 0

        def on_game() -> None:
            nonlocal played
            played += 1
            ticks.count(shard.name)
            if (over.is_set() or stop.is_set()) and played < shard.games:
                raise _Stopped  # the shard is not whole: not kept

        return play_shard(shard, on_game=on_game, out=out)

    pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="eleusis-lab shard")
    try:
        futures = [pool.submit(play, shard) for shard in shards]
        for future in as_completed(futures):
            if stop.is_set():
                for waiting in futures:
                    waiting.cancel()
            if future.cancelled() or isinstance(future.exception(), _Stopped):
                continue
            yield future.result()
    finally:
        over.set()
        pool.shutdown(wait=True, cancel_futures=True)


def _in_worker(shard: Shard, address: Any, authkey: bytes, out: Path) -> ShardResult:
    """Play a shard in a worker process that ends when the run's process does, telling
    the run after each game (`eleusis_lab.progress`)."""
    _watch_parent()
    on_game = functools.partial(tick, address, authkey, shard.name)
    return play_shard(shard, on_game=on_game, out=out)


@functools.cache  # once per worker process
def _watch_parent(interval: float = 1.0) -> None:
    """End this worker when its parent is gone (killed with -9, say): an orphan is
    adopted by another process, so its parent's id changes. A daemon thread checks every
    ``interval`` seconds; the shard it was playing is not written and a resume plays it.
    """
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os._exit(1)

    threading.Thread(target=watch, name="eleusis-lab parent watch", daemon=True).start()


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """While a run lasts, SIGTERM stops it as Ctrl-C does: the workers are stopped, the
    finished shards kept, and the status says "interrupted" (not "running" forever)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _joblib(
    shards: Sequence[Shard], jobs: int, ticks: GameTicks, out: Path
) -> Iterator[ShardResult]:
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=jobs, return_as="generator_unordered")
    with warnings.catch_warnings():
        # loky retires a worker whose memory grew by 300 MB between two shards and warns
        # of a leak; the Bayesian agents' memory-mapped hypothesis tables grow it by
        # design, and the shards not yet played go to the other workers: nothing is lost.
        warnings.filterwarnings("ignore", message="A worker stopped while some jobs")
        yield from parallel(
            delayed(_in_worker)(shard, ticks.address, ticks.authkey, out) for shard in shards
        )


def _dask(
    shards: Sequence[Shard],
    jobs: int,
    scheduler: Any,
    on_client: Callable[[Any], None],
    out: Path,
) -> Iterator[ShardResult]:
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError as error:
        raise ConfigError(
            f"the dask backend needs dask.distributed: pip install 'eleusis-lab[dask]' ({error})"
        ) from None
    owned: list[Any] = []
    if scheduler is None:
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, dashboard_address=":0")
        owned = [cluster]
        client = Client(cluster)
        owned.insert(0, client)
    elif isinstance(scheduler, str):
        try:
            client = Client(scheduler, timeout="10s")
        except (OSError, TimeoutError) as error:
            raise ConfigError(f"cannot reach the Dask scheduler at {scheduler}: {error}") from None
        owned = [client]
    else:
        client = scheduler  # a distributed.Client the caller keeps
    on_client(client)
    futures = client.map(play_shard, list(shards), out=str(out), pure=False)
    pending = set(futures)
    try:
        for future in as_completed(futures):
            pending.discard(future)
            yield future.result()
    finally:
        if pending:
            client.cancel(list(pending))
        for thing in owned:
            thing.close()


def _spend(run: dict[str, Any], rows: Any, budget: Mapping[str, int]) -> str:
    """Add a stored shard's requests and tokens to the run's; what ran over ``budget``,
    or "" while it holds."""
    for key, columns in (("calls", ("calls",)), ("tokens", ("tokens_in", "tokens_out"))):
        used = sum(pc.sum(rows.column(column)).as_py() or 0 for column in columns)
        if used:  # recorded in the run's entry once a seat reports any
            run[key] = run.get(key, 0) + used
    over = [
        f"{run[key]:,} {key} of {budget[key]:,}" for key in budget if run.get(key, 0) >= budget[key]
    ]
    return ", ".join(over)


def _results(
    shards: Sequence[Shard],
    jobs: int,
    backend: str,
    scheduler: Any,
    ticks: GameTicks,
    out: Path,
    on_client: Callable[[Any], None] = lambda client: None,
    stop: threading.Event | None = None,
) -> Iterator[ShardResult]:
    """The results of ``shards`` as they finish, the games played counted by ``ticks``
    (but on Dask), their agents told the run's folder ``out``
    (`eleusis_lab.run_context.run_folder`); ``on_client`` is called with the Dask client,
    once connected; the threads backend stops starting shards once ``stop`` is set
    (`_threads`)."""
    if backend == "dask":
        return _dask(shards, jobs, scheduler, on_client, out)
    if backend == "threads":
        return _threads(shards, jobs, ticks, stop or threading.Event(), out)
    if jobs == 1 or len(shards) <= 1:
        return _in_process(shards, ticks, out)
    return _joblib(shards, jobs, ticks, out)


def _in_our_columns(result: ShardResult) -> Any:
    """A shard's rows in the columns this run writes. Workers fill in the rules'
    figures; only a measure registered in this process alone (a script's, which the
    workers do not know) leaves a column to fill here, by the cell's dealer plan."""
    rows = result.rows
    if rows.schema.equals(row_schema()):
        return rows
    plan = result.shard.cell.dealer_plan
    return add_rule_figures(rows, None if plan is None else plan.figures)


def _check_columns(out: Path, stored: Iterable[str]) -> None:
    """`ConfigError` if a stored shard's rows have other columns than this run writes:
    a folder written with other complexity measures registered, where a resumed run
    would mix two tables."""
    expected = row_schema().names
    for name in stored:
        path = rows_path(out, name)
        have = pq.read_schema(path).names
        if have == expected:
            continue
        missing = [c for c in expected if c not in have]
        extra = [c for c in have if c not in expected]
        differ = "; ".join(
            f"{what} {', '.join(columns)}"
            for what, columns in (("without", missing), ("with", extra))
            if columns
        )
        raise ConfigError(
            f"{path}: written with other columns ({differ or 'in another order'}) than this"
            " run writes: the complexity measures registered differ"
            " (eleusis_lab.rules.complexity.measures); resume with the measures it was"
            " written with, or run into another folder"
        )


# -- metadata -------------------------------------------------------------------------------


def _versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in _PACKAGES:
        with contextlib.suppress(importlib_metadata.PackageNotFoundError):
            versions[name] = importlib_metadata.version(name)
    return versions


def _git() -> dict[str, Any] | None:
    here = Path(__file__).resolve().parent
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5
        )
        if commit.returncode != 0:
            return None
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=here,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return {"commit": commit.stdout.strip(), "dirty": bool(status.stdout.strip())}


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


# -- the run --------------------------------------------------------------------------------


def _check_jobs(jobs: Any) -> int:
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not (jobs >= 1 or jobs == -1):
        raise ConfigError(f"jobs must be a whole number >= 1 (or -1: every core), got {jobs!r}")
    return (os.cpu_count() or 1) if jobs == -1 else check_jobs(jobs)


def run_experiment(
    spec_or_path: str | Path | Mapping[str, Any] | ExperimentSpec,
    jobs: int = 1,
    out: str | Path | None = None,
    backend: str = "local",
    scheduler: Any = None,
    games: int | None = None,
    progress: bool = True,
    repair: bool = False,
) -> pd.DataFrame:
    """Run an experiment, or finish one that was interrupted, and return its table.

    Parameters
    ----------
    spec_or_path : str, Path, mapping or ExperimentSpec
        A spec file (TOML), its contents, or a loaded spec (`eleusis_lab.spec`).
    jobs : int
        Worker processes (local) or workers of the local Dask cluster; -1: every core.
    out : str or Path, optional
        The output directory; default: the spec's ``out``, else ``results/NAME``.
    backend : {"local", "threads", "dask"}
        ``"local"``: this process (``jobs=1``) or joblib processes. ``"threads"``:
        ``jobs`` threads of this process, for agents that wait (language models: their
        requests overlap; the decision limit is not enforced there). ``"dask"``: a
        ``distributed.LocalCluster`` of ``jobs`` workers, or the cluster ``scheduler``
        names; needs ``pip install 'eleusis-lab[dask]'``.
    scheduler : str or distributed.Client, optional
        The address of a running Dask scheduler (implies ``backend="dask"``), or a client.
    games : int, optional
        Games (or matches) per cell instead of the spec's count.
    progress : bool
        Show a progress bar with the time left (on stderr).
    repair : bool
        Move the files of stored shards that fail their check (see Raises) to
        ``out/damaged/`` and play those shards again, instead of refusing to resume;
        without a usable manifest, set it aside, play every shard again and record the
        stored files that hold what the replay gives (the others to ``out/damaged/``).

    Returns
    -------
    pandas.DataFrame
        One row per game and seat (columns: `eleusis_lab.results_schema.row_schema`), in the
        order of cells, games and seats. ``attrs`` holds ``out``, ``shards``,
        ``shards_run``, ``shards_skipped``, ``shards_repaired`` and ``seconds``.

    Raises
    ------
    ConfigError
        For a bad spec or setting, an output directory that cannot be written, or one
        whose stored rows have other columns than this run writes (written with other
        complexity measures registered, `eleusis_lab.rules.complexity.measures`).
    eleusis_lab.storage.DamagedResults
        A `ConfigError`, before anything is played, for a stored shard file that changed
        since it was written (truncated, damaged, or another shard's or run's), or a
        file the manifest does not name: the message names it and says to run again
        with ``repair``. Also `eleusis_lab.storage.BadManifest`, ``BadMetadata`` and
        ``Unrecorded`` (shard files without a manifest), said the same way.
    eleusis_lab.storage.FolderLocked
        A `ConfigError` when another run is writing ``out``.
    RunInterrupted
        On Ctrl-C, after keeping every finished shard; run again to resume.
    BudgetSpent
        Once the seats' language-model requests or tokens reach the spec's ``budget``
        (checked as each shard is stored), after keeping every finished shard.

    Examples
    --------
    >>> import tempfile
    >>> spec = {"name": "demo", "games": 6, "shard_size": 4, "dealer": "suit_cycle",
    ...         "agents": ["random", "oracle"]}
    >>> out = tempfile.mkdtemp()
    >>> table = run_experiment(spec, out=out, progress=False)
    >>> len(table), table.attrs["shards_run"]  # 6 games x 2 seats, in 2 shards
    (12, 2)
    >>> table.groupby("agent")["score"].mean().round(1).to_dict()
    {'oracle': 19.7, 'random': 0.0}
    >>> again = run_experiment(spec, out=out, progress=False)  # all stored: nothing to play
    >>> again.attrs["shards_run"], again.drop(columns="wall_time").equals(
    ...     table.drop(columns="wall_time"))
    (0, True)
    """
    done = _run(spec_or_path, jobs, out, backend, scheduler, games, progress, repair)
    table = read_tables([rows_path(done.out, name) for name in done.shards], row_schema())
    table.attrs.update(
        out=str(done.out),
        shards=len(done.shards),
        shards_run=done.run["shards_run"],
        shards_skipped=done.run["shards_skipped"],
        shards_repaired=done.run["shards_repaired"],
        seconds=done.run["seconds"],
    )
    return table


@dataclass(frozen=True)
class _Finished:
    """What a run did: its folder, its shards' names, its metadata entry, the rows its
    shards hold (from the manifest) and the faults in the games it played."""

    out: Path
    shards: list[str]
    run: dict[str, Any]
    games: int
    rows: int
    faults: int


def _run(
    spec_or_path: str | Path | Mapping[str, Any] | ExperimentSpec,
    jobs: int,
    out: str | Path | None,
    backend: str,
    scheduler: Any,
    games: int | None,
    progress: bool,
    repair: bool,
) -> _Finished:
    """`run_experiment` without reading the table back (a finished run reads no shard)."""
    if isinstance(spec_or_path, ExperimentSpec):
        spec = spec_or_path if games is None else spec_or_path.with_units(games)
    else:
        spec = load_spec(spec_or_path, games=games)
    jobs = _check_jobs(jobs)
    if backend not in BACKENDS:
        raise ConfigError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if scheduler is not None:
        backend = "dask"
    out = Path(out if out is not None else spec.out or Path("results") / spec.name)
    check_output_folder(out)  # not / nor a project's folder: only new, empty or results
    try:
        out.mkdir(parents=True, exist_ok=True)
        lock = lock_results(out)  # one run at a time: FolderLocked, one line, for another
    except OSError as error:
        raise ConfigError(f"{out}: cannot write results there: {error}") from None
    with lock:  # released when the run ends; by the system if its process dies first
        return _run_locked(spec, jobs, out, backend, scheduler, progress, repair)


def _ended(run: dict[str, Any]) -> dict[str, Any]:
    """A past run's entry as the run holding the folder's lock sees it: one still
    "running" is over, its process gone without a word (killed)."""
    return {**run, "status": "killed" if run.get("status") == "running" else run.get("status")}


def _run_locked(
    spec: ExperimentSpec,
    jobs: int,
    out: Path,
    backend: str,
    scheduler: Any,
    progress: bool,
    repair: bool,
) -> _Finished:
    """`_run` once it holds the folder's lock: check what is stored, play the rest."""
    try:
        clean_temporary(out)
    except OSError as error:
        raise ConfigError(f"{out}: cannot write results there: {error}") from None

    shards = plan_shards(spec)
    names = [shard.name for shard in shards]
    try:  # the whole folder is checked before anything is changed
        previous = read_metadata(out) or {}
    except BadMetadata:
        if not repair:
            raise
        set_aside_file(out, out / METADATA)
        previous = {}
    try:
        manifest = read_manifest(out, spec.source)
    except BadManifest:
        if not repair:
            raise
        set_aside_file(out, out / MANIFEST)  # rebuilt below from the files that replay
        manifest = None
    rebuild: set[str] = set()  # stored shards no manifest vouches for: replayed, compared
    if manifest is None:  # a new folder; or its manifest lost, or of an older version
        found = stored_files(out)
        if found and not repair:
            raise Unrecorded(out, found, spec.source)
        rebuild = {name for name in names if rows_path(out, name).is_file()}
        stored: dict[str, Any] = {}
        refused = stray_files(out, None, pending=rebuild)
        manifest = {"format": FORMAT, "shards": {}}
    else:
        stored, refused = verify_shards(out, names, manifest)
        refused += stray_files(out, manifest, pending=set(names) - set(stored))
        if refused and not repair:
            raise DamagedResults(out, refused, spec.source)
    _check_columns(out, stored)
    for bad in refused:  # the files first: a kill in between leaves the shard unstored
        if bad.stray:
            set_aside_file(out, bad.path)
            continue
        set_aside(out, bad.shard)
        manifest["shards"].pop(bad.shard, None)
    write_manifest(out, manifest)
    todo = [shard for shard in shards if shard.name not in stored]
    run = {
        "started": _now(),
        "status": "running",
        "backend": backend,
        "jobs": jobs,
        "scheduler": None if scheduler is None else str(scheduler),
        "shards": len(shards),
        "shards_skipped": len(shards) - len(todo),
        "shards_repaired": sum(not bad.stray for bad in refused),
        **({"shards_rebuilt": 0} if rebuild else {}),  # stored files that replayed the same
        "shards_run": 0,
        "games_run": 0,
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "platform": platform.platform(),
        "versions": _versions(),
        "git": _git(),
    }
    if os.environ.get(CACHE_MODE_ENV):  # --llm-cache: how the run's models were answered
        run["llm_cache"] = os.environ[CACHE_MODE_ENV]
    metadata = {
        "experiment": spec.name,
        "source": spec.source,
        "spec": spec.data,
        "unit": spec.unit,
        "units": spec.units,
        "cells": [{"cell": cell.label, "key": cell.key} for cell in spec.cells],
        "shards": [shard.name for shard in shards],
        "runs": [*(_ended(past) for past in previous.get("runs", [])), run],
    }
    # Room for the run's last word (its status) should the disk fill up while it runs.
    reserve_space(out, 2 * len(json.dumps(metadata, default=str)) + 2**16)
    write_metadata(out, metadata)

    from tqdm.auto import tqdm

    total = sum(shard.games for shard in shards)
    bar = tqdm(
        total=total,
        initial=total - sum(shard.games for shard in todo),
        unit="game",
        desc=spec.name,
        disable=not progress,
        dynamic_ncols=True,
    )
    started = time.perf_counter()
    faults = 0
    spent = ""  # what ran over the budget, once something did
    stop = threading.Event()  # set then: the threads backend starts no more shards

    def dask_cluster(client: Any) -> None:
        """Record the cluster a Dask run starts on: its workers and their threads."""
        workers = client.scheduler_info().get("workers", {})
        run["dask_workers"] = len(workers)
        run["dask_threads"] = sum(worker.get("nthreads", 0) for worker in workers.values())
        write_metadata(out, metadata)

    def finish(status: str, error: BaseException | None = None) -> None:
        run.update(status=status, finished=_now(), seconds=round(time.perf_counter() - started, 3))
        if run["seconds"] > 0:
            run["games_per_second"] = round(run["games_run"] / run["seconds"], 2)
        if error is not None:
            run["error"] = f"{type(error).__name__}: {error}"[:500]
        try:
            write_metadata(out, metadata)
        except OSError as failed:
            if not disk_full(failed):
                raise
            release_space(out)  # the room kept for this last word
            write_metadata(out, metadata)
        release_space(out)

    def store(name: str, rows: Any, events: Any) -> None:
        """Write a shard's files and record them; or, rebuilding a manifest, record the
        stored ones if they hold what was just played (else set them aside first)."""
        if name in rebuild:
            tables = {"rows": rows, **({} if events is None else {"events": events})}
            kept = replayed_entries(out, name, tables)
            if kept is not None:
                manifest["shards"][name] = kept
                write_manifest(out, manifest)
                run["shards_rebuilt"] += 1
                return
            set_aside(out, name)
            run["shards_repaired"] += 1
        write_shard(out, name, rows, events, manifest)

    try:
        # Closing the results stops the workers at once, whatever stopped the loop.
        with (
            _terminate_as_interrupt(),
            bar,
            GameTicks(bar) as ticks,
            contextlib.closing(
                _results(todo, jobs, backend, scheduler, ticks, out, dask_cluster, stop)
            ) as results,
        ):
            for result in results:
                rows = _in_our_columns(result)
                store(result.shard.name, rows, result.events)
                run["shards_run"] += 1
                run["games_run"] += result.games
                faults += pc.sum(rows.column("faults")).as_py() or 0
                ticks.finished(result.shard.name, result.games)
                spent = _spend(run, rows, spec.budget) or spent
                if spent:
                    stop.set()  # threads: the shards they finish meanwhile are kept
                    if backend != "threads":
                        break
    except KeyboardInterrupt:
        finish("interrupted")
        kept = len(done_shards(out) & {shard.name for shard in shards})
        raise RunInterrupted(
            f"interrupted: {kept} of {plural(len(shards), 'shard')} kept in {out}; run again"
            " to resume"
        ) from None
    except BaseException as error:
        finish("disk full" if disk_full(error) else "failed", error)
        raise
    kept = len(done_shards(out) & {shard.name for shard in shards})
    if spent and kept < len(shards):  # spent with every shard played is complete
        finish("budget spent")
        raise BudgetSpent(
            f"budget spent: {spent}; {kept} of {plural(len(shards), 'shard')} kept in {out};"
            " run again with a larger budget to go on"
        )
    finish("complete")
    names = [shard.name for shard in shards]
    rows = sum(manifest["shards"][name]["rows"]["rows"] for name in names)
    games = sum(shard.games for shard in shards)
    return _Finished(out, names, run, games, rows, faults)


# -- the command line -----------------------------------------------------------------------


def run_command(args: argparse.Namespace) -> int:
    """``eleusis-lab run``: run the spec, print one line of summary; 130 on Ctrl-C.

    Bad input raises `ConfigError` (the command line prints it as one line, exit 2);
    warnings are printed as one line each.
    """
    try:
        with warnings.catch_warnings(record=True) as caught:
            try:
                # the decision limit is every game's, as if the spec's [config] said it
                limit = getattr(args, "decision_limit", None)
                spec = load_spec(args.spec, games=args.games, decision_limit=limit)
                if not args.quiet:
                    print(f"{spec.name}: {spec.plan}", file=sys.stderr)
                done = _run(
                    spec,
                    jobs=args.jobs,
                    out=args.out,
                    backend=args.backend,
                    scheduler=args.scheduler,
                    games=None,  # in the spec already
                    progress=not args.quiet,
                    repair=args.repair,
                )
            finally:
                for warning in caught:
                    print(f"warning: {warning.message}", file=sys.stderr)
    except RunInterrupted as interrupted:
        print(f"eleusis-lab: {interrupted}", file=sys.stderr)
        return 130
    except BudgetSpent as spent:
        print(f"eleusis-lab: {spent}", file=sys.stderr)
        return 3
    run = done.run
    resumed = f", {run['shards_skipped']} already stored" if run["shards_skipped"] else ""
    if "shards_rebuilt" in run:
        resumed += f", {MANIFEST} rebuilt: {run['shards_rebuilt']} stored replayed the same"
    if run["shards_repaired"]:
        aside = done.out / DAMAGED
        resumed += f", {run['shards_repaired']} damaged played again (old files in {aside})"
    print(
        f"{plural(done.games, 'game')}, {plural(done.rows, 'row')} in {done.out}"
        f" ({plural(len(done.shards), 'shard')}"
        f"{resumed}; {run['seconds']:.1f} s)"
    )
    if getattr(args, "csv", False):
        for path in export_csv(done.out):
            print(f"written to {path}")
    if done.faults:
        print(
            f"warning: agents faulted {plural(done.faults, 'time')} in the"
            f" {plural(run['games_run'], 'game')} played (see the faults column)",
            file=sys.stderr,
        )
    return 0


# -- benchmark ------------------------------------------------------------------------------


def bench_run(
    spec_or_path: str | Path | Mapping[str, Any] | ExperimentSpec,
    jobs: Sequence[int] = (1, 2),
    games: int | None = None,
    verbose: bool = True,
) -> dict[str, float]:
    """Time a spec with each number of jobs: games per second, speed-up and overhead.

    For each number of jobs, a short warm-up run (a few shards per cell) starts the
    workers and fills their caches, and is timed as ``startup_N``; then the whole spec
    is timed as ``seconds_N``. The figures:

    - ``speedup_N``: ``seconds_1 / seconds_N`` (against the first of ``jobs``);
    - ``overhead_share``, ``overhead_per_shard_ms``: the run's time beyond the games'
      own (their ``wall_time``) with the first of ``jobs`` (normally 1): agents made
      per game, rows, Parquet files, the progress of the run;
    - ``slowdown_N``: how much longer a game took, on average, than with the first of
      ``jobs``; about 1 when every worker has a core of its own, about N when the
      workers share one (a machine whose other cores are busy), which caps the speed-up.

    Timing figures belong here, never in the tests' asserts.

    Examples
    --------
    >>> spec = {"games": 8, "shard_size": 4, "dealer": "red(card)", "agents": ["random"] * 2}
    >>> figures = bench_run(spec, jobs=(1,), verbose=False)
    >>> sorted(figures)  # doctest: +NORMALIZE_WHITESPACE
    ['game_seconds_1', 'games', 'games_per_second_1', 'overhead_per_shard_ms',
     'overhead_share', 'seconds_1', 'shards', 'startup_1']
    """
    spec = (
        spec_or_path
        if isinstance(spec_or_path, ExperimentSpec)
        else load_spec(spec_or_path, games=games)
    )
    if games is not None and isinstance(spec_or_path, ExperimentSpec):
        spec = spec.with_units(games)
    largest = max(cell.shard_size for cell in spec.cells)
    per_deal = math.lcm(*(cell.lineup.games_per_deal for cell in spec.cells))
    figures: dict[str, float] = {}
    for n in jobs:
        whole_deals = -(-n * largest // per_deal) * per_deal  # duplicate deals stay whole
        warm = spec.with_units(min(spec.units, whole_deals))
        with tempfile.TemporaryDirectory() as out:
            started = time.perf_counter()
            run_experiment(warm, jobs=n, out=out, progress=False)
            figures[f"startup_{n}"] = time.perf_counter() - started
        with tempfile.TemporaryDirectory() as out:
            started = time.perf_counter()
            table = run_experiment(spec, jobs=n, out=out, progress=False)
            seconds = figures[f"seconds_{n}"] = time.perf_counter() - started
        played = table.drop_duplicates(["cell", "game"])
        game_seconds = float(played["wall_time"].sum())
        figures["games"] = len(played)
        figures["shards"] = table.attrs["shards"]
        figures[f"games_per_second_{n}"] = len(played) / seconds
        figures[f"game_seconds_{n}"] = game_seconds
        if n == jobs[0]:
            figures["overhead_share"] = (seconds - game_seconds) / seconds
            figures["overhead_per_shard_ms"] = 1000 * (seconds - game_seconds) / figures["shards"]
    for n in jobs[1:]:
        figures[f"speedup_{n}"] = figures[f"seconds_{jobs[0]}"] / figures[f"seconds_{n}"]
        figures[f"slowdown_{n}"] = figures[f"game_seconds_{n}"] / figures[f"game_seconds_{jobs[0]}"]
    if verbose:
        print(format_bench(figures, jobs))
    return figures


def format_bench(figures: dict[str, float], jobs: Sequence[int]) -> str:
    """The figures of `bench_run` as a few lines of text."""
    lines = [f"{plural(figures['games'], 'game')} in {plural(figures['shards'], 'shard')}"]
    for n in jobs:
        speedup = ""
        if f"speedup_{n}" in figures:
            speedup = (
                f", speed-up {figures[f'speedup_{n}']:.2f}x (each game"
                f" {figures[f'slowdown_{n}']:.2f}x as long)"
            )
        lines.append(
            f"  jobs={n}: {figures[f'seconds_{n}']:.2f} s, "
            f"{figures[f'games_per_second_{n}']:.0f} games/s{speedup};"
            f" warm-up {figures[f'startup_{n}']:.2f} s"
        )
    lines.append(
        f"  overhead (jobs={jobs[0]}): {figures['overhead_share']:.0%} of the run,"
        f" {figures['overhead_per_shard_ms']:.1f} ms per shard"
    )
    return "\n".join(lines)
