"""How many threads BLAS and OpenMP get inside the agents' numerical work.

The agents multiply matrices of a few thousand to a few million entries per decision,
and the runner already gives each core a worker process. On such products BLAS threads
only contend: on a two-core machine with the other core busy, a decision of
``bayes-context`` took 194-502 ms on two OpenBLAS threads against 40 ms on one. So the
agents' heavy methods run under `limited_threads` (`blas_threads`, one thread unless
the environment variable ``ELEUSIS_LAB_BLAS_THREADS`` asks for more); outside them
numpy keeps the threads it was given.

Examples
--------
>>> import numpy as np
>>> @limited_threads
... def product(a, b):
...     return a @ b
>>> product(np.eye(2), np.ones(2)).tolist()
[1.0, 1.0]
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Callable
from typing import TypeVar

from threadpoolctl import ThreadpoolController

__all__ = ["ENVIRONMENT_VARIABLE", "blas_threads", "limited_threads", "thread_limit"]

ENVIRONMENT_VARIABLE = "ELEUSIS_LAB_BLAS_THREADS"

F = TypeVar("F", bound=Callable)


def thread_limit() -> int:
    """The threads BLAS may use in the agents: ``$ELEUSIS_LAB_BLAS_THREADS``, else 1.

    >>> thread_limit() >= 1
    True
    """
    value = os.environ.get(ENVIRONMENT_VARIABLE, "1")
    try:
        threads = int(value)
    except ValueError:
        threads = 0
    if threads < 1:
        raise ValueError(f"{ENVIRONMENT_VARIABLE} must be a whole number >= 1, got {value!r}")
    return threads


_found: tuple[int, ThreadpoolController | None] = (-1, None)


def _controller() -> ThreadpoolController:
    """The BLAS and OpenMP libraries loaded, found again only after new imports.

    Finding them takes milliseconds, and only an import can load another one
    (scikit-learn brings SciPy's OpenBLAS beside numpy's).
    """
    global _found
    modules, controller = _found
    if controller is None or modules != len(sys.modules):
        controller = ThreadpoolController()
        _found = (len(sys.modules), controller)
    return controller


def blas_threads():
    """A context in which BLAS and OpenMP run on `thread_limit` threads: 13 us to enter,
    1 us where they already do, as in the runner's worker processes (joblib's give
    each one thread)."""
    controller, limit = _controller(), thread_limit()
    if all(library.num_threads == limit for library in controller.lib_controllers):
        return contextlib.nullcontext()
    return controller.limit(limits=limit)


def limited_threads(method: F) -> F:
    """Decorate a function so that it runs inside `blas_threads`."""

    @functools.wraps(method)
    def limited(*args, **kwargs):
        with blas_threads():
            return method(*args, **kwargs)

    return limited  # type: ignore[return-value]
