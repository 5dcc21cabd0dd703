"""Where the games being played belong: the output folder of the run whose shard this
thread plays, for agents that keep something beside the results (a language model's
transcripts and cache of replies, `eleusis_agents.llm`).

`eleusis_lab.shards.play_shard` sets it under every backend, and an isolated agent's
process is told it with each call (`eleusis_lab.isolation`).

>>> run_folder() is None
True
>>> with in_run_folder("results/trial"):
...     print(run_folder())
results/trial
>>> run_folder() is None
True
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from pathlib import Path

__all__ = ["in_run_folder", "run_folder"]

_RUN_FOLDER: contextvars.ContextVar[Path | None] = contextvars.ContextVar(
    "run_folder", default=None
)


def run_folder() -> Path | None:
    """The output folder of the run whose shard is being played here, or None outside
    a run."""
    return _RUN_FOLDER.get()


@contextlib.contextmanager
def in_run_folder(out: str | Path | None) -> Iterator[None]:
    """Play, within the block, the games of the run whose output folder is ``out``
    (None: of no run)."""
    token = _RUN_FOLDER.set(None if out is None else Path(out))
    try:
        yield
    finally:
        _RUN_FOLDER.reset(token)
