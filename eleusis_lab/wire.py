"""What crosses the pipe from an isolated agent's process: read within a time limit and
a size bound, and decoded without running any of the agent's code.

An isolated agent (`eleusis_lab.isolation`) answers each call with a pickled message.
Unpickling runs code named by the message itself (``__reduce__``: any importable
function with any arguments), so a message from the agent's process is untrusted input:
`decode` rebuilds only plain values (numbers, strings, tuples, lists, dicts, sets),
numpy arrays and scalars, and instances of the toolkit's own classes (``eleusis_lab``),
and refuses every other name a message asks for (`UnsafeMessage`): a `Card` subclass
of the agent's, a function of ``os``, an object whose ``__reduce__`` would run in the
engine's process.

`receive` reads one whole message or gives up: a process that writes half a message,
or nothing, within the limit is as late as one that never answers, and a message
longer than `MAX_MESSAGE` bytes is refused before it is read.

>>> import pickle
>>> from eleusis_lab.cards import Card
>>> decode(pickle.dumps(("ok", Card(12, 2))))
('ok', Card('QH'))
>>> decode(pickle.dumps(print))
Traceback (most recent call last):
...
eleusis_lab.wire.UnsafeMessage: the message names builtins.print, which an agent may not send
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import io
import pickle
import threading
from typing import Any

__all__ = ["MAX_MESSAGE", "TooLate", "UnsafeMessage", "decode", "receive"]

#: The longest message an agent's process may send, in bytes: a decision's answer is a
#: card, a few probabilities or a rule's text, far below this.
MAX_MESSAGE = 16 * 2**20

# The globals a message may name beyond the toolkit's own classes: what numpy's arrays
# and scalars and Python's plain containers pickle to.
_ALLOWED = frozenset(
    {
        ("numpy", "ndarray"),
        ("numpy", "dtype"),
        ("numpy._core.multiarray", "_reconstruct"),
        ("numpy._core.multiarray", "scalar"),
        ("numpy.core.multiarray", "_reconstruct"),
        ("numpy.core.multiarray", "scalar"),
        ("builtins", "set"),
        ("builtins", "frozenset"),
        ("builtins", "complex"),
        ("builtins", "slice"),
        ("builtins", "range"),
        ("collections", "Counter"),
        ("collections", "OrderedDict"),
    }
)


class UnsafeMessage(pickle.UnpicklingError):
    """A message that names something an agent may not send."""


class TooLate(Exception):
    """No whole message arrived within the limit."""


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _ALLOWED:
            return super().find_class(module, name)
        if module.partition(".")[0] == "eleusis_lab" and "." not in name:
            found = getattr(importlib.import_module(module), name, None)
            if _plain_class(found):
                return found
        raise UnsafeMessage(f"the message names {module}.{name}, which an agent may not send")


def _plain_class(obj: Any) -> bool:
    """A toolkit class that only holds values: a named tuple (`Card`), a dataclass
    (`SoloMove`) or an enumeration; building one runs no code of consequence."""
    if not isinstance(obj, type):
        return False
    return issubclass(obj, tuple | enum.Enum) or dataclasses.is_dataclass(obj)


def decode(data: bytes) -> Any:
    """The value a message holds, rebuilt from plain values, numpy arrays and the
    toolkit's own classes only (`UnsafeMessage` for anything else)."""
    try:
        return _Unpickler(io.BytesIO(data)).load()
    except UnsafeMessage:
        raise
    except RecursionError:
        raise UnsafeMessage("the message is nested too deeply") from None
    except Exception as error:  # a truncated or malformed message
        raise UnsafeMessage(f"the message does not decode ({type(error).__name__})") from None


def receive(connection: Any, limit: float | None) -> bytes:
    """One whole message from ``connection`` (a `multiprocessing` connection), waiting
    at most ``limit`` seconds (None: without end).

    Raises `TooLate` when the message is not whole in time (the caller then stops the
    process, which ends the read); ``EOFError`` or ``OSError`` as the connection does
    when it closes or the message is longer than `MAX_MESSAGE`.
    """
    if limit is None:
        return connection.recv_bytes(MAX_MESSAGE)
    got: dict[str, Any] = {}

    def read() -> None:
        try:
            got["data"] = connection.recv_bytes(MAX_MESSAGE)
        except BaseException as error:  # handed to the caller's thread
            got["error"] = error

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(limit)
    if reader.is_alive():
        raise TooLate(f"no whole answer within {limit:g} s")
    if "error" in got:
        raise got["error"]
    return got["data"]
