"""eleusis-lab: a research toolkit for rule induction built on the card game Eleusis.

The experiment API is imported on first use, so ``import eleusis_lab`` stays fast:

- `run_experiment` (`eleusis_lab.runner`): run an experiment spec, get a DataFrame;
- `load_spec` (`eleusis_lab.spec`): read and check a spec;
- `load_results`, `load_events` (`eleusis_lab.storage`): the tables of an output directory;
- `rerun_game` (`eleusis_lab.shards`): replay one game of a results table.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = ["load_events", "load_results", "load_spec", "rerun_game", "run_experiment"]

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


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'eleusis_lab' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
