"""eleusis-lab: a research toolkit for rule induction built on the card game Eleusis.

The experiment API is imported on first use, so ``import eleusis_lab`` stays fast:

- `run_experiment` (`eleusis_lab.runner`): run an experiment spec, get a DataFrame;
- `load_spec` (`eleusis_lab.spec`): read and check a spec;
- `load_results`, `load_events` (`eleusis_lab.storage`): the tables of an output directory;
- `rerun_game` (`eleusis_lab.shards`): replay one game of a results table.

``__version__`` is the installed distribution's version (pyproject.toml's, the one source),
or the version written in pyproject.toml next to the package when it is not installed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = [
    "__version__",
    "load_events",
    "load_results",
    "load_spec",
    "rerun_game",
    "run_experiment",
]

_LAZY = {
    "run_experiment": "eleusis_lab.runner",
    "load_spec": "eleusis_lab.spec",
    "load_results": "eleusis_lab.storage",
    "load_events": "eleusis_lab.storage",
    "rerun_game": "eleusis_lab.shards",
}

if TYPE_CHECKING:
    from eleusis_lab.runner import run_experiment
    from eleusis_lab.shards import rerun_game
    from eleusis_lab.spec import load_spec
    from eleusis_lab.storage import load_events, load_results


def _version() -> str:
    """The installed version, else pyproject.toml's in a source tree, else ``0+unknown``."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("eleusis-lab")
    except PackageNotFoundError:
        pass
    import tomllib
    from pathlib import Path

    pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
    try:
        return tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"]
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "0+unknown"


def __getattr__(name: str) -> Any:
    if name == "__version__":  # read once, on first use
        globals()[name] = value = _version()
        return value
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'eleusis_lab' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY, "__version__"})
