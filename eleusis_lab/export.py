"""A run's tables as CSV, for tools that do not read Parquet: `export_csv`
(``eleusis-lab export DIR``, or ``eleusis-lab run SPEC --csv``).

The tables are read as `eleusis_lab.storage.load_results` and
`eleusis_lab.storage.load_events` read them, every stored file checked first, so a
damaged folder is refused rather than exported in part.
"""

from __future__ import annotations

from pathlib import Path

from eleusis_lab.atomic_files import write_atomically
from eleusis_lab.storage import load_events, load_results

__all__ = ["csv_folder", "export_csv"]


def csv_folder(out: str | Path) -> Path:
    """Where `export_csv` writes by default: beside the results folder, ``OUT-csv``
    (a results folder holds only what a run writes).

    >>> csv_folder("results/rule_complexity").as_posix()
    'results/rule_complexity-csv'
    """
    out = Path(out)
    return out.with_name(f"{out.name}-csv")


def export_csv(out: str | Path, to: str | Path | None = None) -> list[Path]:
    """Write the results (``results.csv``, a row per game and seat) and the events
    (``events.csv``, a row per play) of the run in ``out`` to the folder ``to``
    (`csv_folder` by default); the paths written.

    Examples
    --------
    >>> import tempfile
    >>> from eleusis_lab import run_experiment
    >>> folder = tempfile.mkdtemp()
    >>> spec = {"games": 2, "dealer": "red(card)", "agents": ["random", "oracle"]}
    >>> _ = run_experiment(spec, out=f"{folder}/run", progress=False)
    >>> [path.name for path in export_csv(f"{folder}/run")]
    ['results.csv', 'events.csv']
    """
    target = csv_folder(out) if to is None else Path(to)
    written = []
    for name, table in (("results", load_results(out)), ("events", load_events(out))):
        path = target / f"{name}.csv"
        write_atomically(path, lambda temporary, table=table: table.to_csv(temporary, index=False))
        written.append(path)
    return written
