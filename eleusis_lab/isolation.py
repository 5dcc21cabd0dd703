"""Agents in processes of their own: untrusted code plays without reaching the engine.

An agent plays in the process of the game it sits at: it could read the secret rule off
the engine's frames (``sys._getframe``) or objects (``gc.get_objects``), and a decision
that never returns would hang the run. `isolated` makes an agent that plays the same
game from another process: a stand-in of the agent's class sits at the table and sends
every call (``start_game``, each decision, ``observe``) with its arguments, pickled, to
a process started afresh (``spawn``: it holds nothing of the parent's memory), where
the real agent answers. Introspection there finds the agent's own objects only. A call
unanswered after ``limit`` seconds stops that process: the call fails, and so does
every later call of the game (each a fault the engine records and replaces by its
rule), until the next game starts another process.

The game is the same: the agent gets the same `GameInfo` (the rule only if its class
sees it), the same generator and copies of the same observations, its answers and the
exceptions it raises (by name and text) come back, and the record describes the agent
as it would in-process, so an isolated game's record is the in-process one. A process
serves one stand-in at a time and is kept for the next stand-in of the same agent, so a
run pays the start of a process once per seat, not once per game.

The limits: only the calls go through the pipe, so the agent's class must be
importable by ``module:Class`` in the new process; its module is imported in both (the
parent imports it to find the class): isolation guards against what an agent does
while it plays, not against the code of a module one chose to import (see the README's
trust model).

Examples
--------
>>> from eleusis_lab.games.classic import play_classic
>>> from eleusis_lab.registry import make_agent
>>> seats = [isolated("random"), make_agent("random")]
>>> record = play_classic("red(card)", seats, seed=1)
>>> record == play_classic("red(card)", [make_agent("random"), make_agent("random")], seed=1)
True
"""

from __future__ import annotations

import functools
import importlib
import inspect
import multiprocessing
import weakref
from collections.abc import Callable
from typing import Any

from eleusis_lab.agent import Parameters
from eleusis_lab.registry import AGENTS, AgentRegistry

__all__ = ["DEFAULT_LIMIT", "AgentStopped", "isolated"]

#: Seconds an isolated agent may take to answer one call before its process is stopped.
DEFAULT_LIMIT = 60.0

_CONTEXT = multiprocessing.get_context("spawn")
_IDLE: dict[tuple, list[_Server]] = {}  # processes free for the next stand-in of an agent


class AgentStopped(Exception):
    """An isolated agent that did not answer in time; its process was stopped."""


def isolated(
    spec: str,
    params: dict[str, Any] | None = None,
    *,
    registry: AgentRegistry = AGENTS,
    limit: float | None = DEFAULT_LIMIT,
) -> Parameters:
    """An agent, named as `eleusis_lab.registry.make_agent` names one, that plays from a
    process of its own (see the module docstring).

    Parameters
    ----------
    spec : str
        A registered name or ``module:Class``, with parameters or without.
    params : dict, optional
        The agent's parameters (besides those the spec writes).
    registry : AgentRegistry
        Where the name is found: the Eleusis agents, or a game's own (Secrets').
    limit : float or None
        Seconds one call may take before the process is stopped; None: no limit.

    Returns
    -------
    A stand-in of the agent's class: the same name, parameters and capabilities.

    Raises
    ------
    AgentSpecError
        As `make_agent` does, for an unknown agent or a bad parameter (checked here).
    """
    if limit is not None and not (isinstance(limit, int | float) and limit > 0):
        raise ValueError(f"limit must be None or a number of seconds > 0, got {limit!r}")
    agent = registry.make(spec, **(params or {}))  # checks the name and parameters here
    return _stand_in_class(type(agent), limit)(**agent.get_params())


@functools.cache
def _stand_in_class(cls: type, limit: float | None) -> type:
    """A subclass of ``cls`` under the same name whose every public method is a call to
    the agent in its process (nothing of ``cls`` runs in the parent but its checks), so
    that it has the agent's capabilities, parameters and description."""
    kept = {"get_params", "set_params", "check_params"}
    names = {
        name
        for base in cls.__mro__
        if base is not object
        for name, value in vars(base).items()
        if inspect.isfunction(value) and not name.startswith("_") and name not in kept
    }
    namespace: dict[str, Any] = {name: _forward(name) for name in names}
    namespace.update(
        __init__=_store_params,
        _param_names=classmethod(lambda _: cls._param_names()),
        __module__=cls.__module__,
        __qualname__=cls.__qualname__,
        __doc__=cls.__doc__,
        _isolation=(f"{cls.__module__}:{cls.__qualname__}", limit),
    )
    return type(cls.__name__, (cls,), namespace)


def _store_params(self, **params: Any) -> None:
    for name, value in params.items():
        setattr(self, name, value)


def _forward(name: str) -> Callable[..., Any]:
    def call(self, *args: Any, **kwargs: Any) -> Any:
        return _server_of(self, starting=name == "start_game").call(name, args, kwargs)

    call.__name__ = name
    return call


def _server_of(stand_in: Any, starting: bool) -> _Server:
    """The process serving ``stand_in``: at the start of a game, an idle one of the same
    agent or a new one; later, the one it started with (even stopped)."""
    server = stand_in.__dict__.get("_server")
    if server is not None and not (starting and not server.alive):
        return server
    target, limit = stand_in._isolation
    key = (target, repr(sorted(stand_in.get_params().items())), limit)
    idle = _IDLE.setdefault(key, [])
    server = idle.pop() if idle else _Server(target, stand_in.get_params(), limit)
    stand_in._server = server
    weakref.finalize(stand_in, _release, key, server)
    return server


def _release(key: tuple, server: _Server) -> None:
    if server.alive:
        _IDLE.setdefault(key, []).append(server)


class _Server:
    """One process holding one agent, and the pipe to it."""

    def __init__(self, target: str, params: dict[str, Any], limit: float | None):
        self.limit = limit
        self.pipe, child = _CONTEXT.Pipe()
        self.process = _CONTEXT.Process(target=_serve, args=(child, target, params), daemon=True)
        self.process.start()
        child.close()
        self.alive = True
        self.ready = False  # the process imports and makes the agent before its first call

    def call(self, name: str, args: tuple, kwargs: dict) -> Any:
        if not self.alive:
            raise AgentStopped("its process was stopped earlier in this game")
        try:
            if not self.ready:  # starting a process is not the agent's decision: no limit
                self._answer(self.pipe.recv())
                self.ready = True
            self.pipe.send((name, args, kwargs))
            if not self.pipe.poll(self.limit):
                self.stop()
                raise AgentStopped(f"no answer to {name} within {self.limit:g} s")
            answer = self.pipe.recv()
        except (EOFError, OSError, BrokenPipeError):
            self.stop()
            raise AgentStopped(f"its process ended during {name}") from None
        except BaseException:  # stopped from outside (Ctrl-C, a time limit): do not keep it
            self.stop()
            raise
        return self._answer(answer)

    @staticmethod
    def _answer(answer: tuple) -> Any:
        """What the agent returned, or the exception it raised (by name and text)."""
        if answer[0] == "ok":
            return answer[1]
        _, kind, message = answer
        raise type(kind, (Exception,), {"__module__": "builtins"})(message)

    def stop(self) -> None:
        self.alive = False
        self.process.kill()
        self.process.join()
        self.pipe.close()


def _serve(pipe: Any, target: str, params: dict[str, Any]) -> None:
    """The agent's process: make the agent, then answer calls until the pipe closes."""
    try:
        module, _, qualname = target.partition(":")
        cls: Any = importlib.import_module(module)
        for part in qualname.split("."):
            cls = getattr(cls, part)
        agent = cls(**params)
    except Exception as error:
        pipe.send(("raised", type(error).__name__, str(error)))
        return
    pipe.send(("ok", None))
    while True:
        try:
            name, args, kwargs = pipe.recv()
        except (EOFError, OSError):
            return
        try:
            answer: tuple = ("ok", getattr(agent, name)(*args, **kwargs))
            pipe.send(answer)
        except Exception as error:
            pipe.send(("raised", type(error).__name__, str(error)))
