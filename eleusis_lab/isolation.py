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
sees it), the same generator and copies of the same observations, the same run folder
(`eleusis_lab.run_context.run_folder`, sent with each call), its answers and the
exceptions it raises (by name and text) come back, and the record describes the agent
as it would in-process, so an isolated game's record is the in-process one. No code of
the agent runs in the engine's process, not even its module's import: the module is
imported, the class checked, the agent made and its parameters checked and read in
its process, which describes the class back as plain data (its name, methods,
parameters, capabilities, whether it sees the rule); the stand-in is a class of the
registry's base built from that description (`_stand_in_class`), whose ``get_params``
is the toolkit's; and its answers are read within the limit and decoded from plain
values only (`eleusis_lab.wire`). The process ends when the engine's does, whatever
the agent is doing. A process serves one stand-in at a time and is kept for the next
stand-in of the same agent once `release` gives it back (a run does, at the end of each
game) or the stand-in is collected, so a run pays the start of a process once per seat
and worker, not once per game.

The limits: only the calls go through the pipe, so the agent's class must be
importable by ``module:Class`` in the new process; what the agent does there (fill
the memory, use the files and the network it can reach) is for the operating system
to bound (see the guide's trust page, docs/guide/trust.md).

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
import inspect
import multiprocessing
import multiprocessing.spawn
import os
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

from eleusis_lab.agent import Parameters, _init_parameters, agent_capabilities
from eleusis_lab.engines import MOST_SECONDS, is_seconds
from eleusis_lab.record_basics import class_attribute
from eleusis_lab.registry import AGENTS, AgentRegistry, AgentSpecError
from eleusis_lab.run_context import in_run_folder, run_folder
from eleusis_lab.wire import TooLate, UnsafeMessage, decode, receive

__all__ = ["DEFAULT_LIMIT", "AgentStopped", "isolated", "release"]

#: Seconds an isolated agent may take to answer one call before its process is stopped.
DEFAULT_LIMIT = 60.0

_CONTEXT = multiprocessing.get_context("spawn")
_IDLE: dict[tuple, list[_Server]] = {}  # processes free for the next stand-in of an agent
_CHECKED: dict[tuple, dict[str, Any]] = {}  # (agent, parameters asked, limit) -> as made


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
    if limit is not None and not (isinstance(limit, int | float) and is_seconds(limit)):
        raise ValueError(
            f"limit must be None or a number of seconds > 0 and at most {MOST_SECONDS:g},"
            f" got {limit!r}"
        )
    name, target, params = registry.target(spec, **(params or {}))  # nothing imported
    asked = (target, repr(sorted(params.items())), limit)
    if asked not in _CHECKED:  # the agent is made, and checked, in its own process
        server = _Server(target, params, limit, registry)
        try:
            _CHECKED[asked] = server.start()
        except _Refused as refusal:
            server.stop()
            raise AgentSpecError(f"{registry.noun} {name!r}: {refusal}") from None
        stand_in = _stand_in(registry, asked)
        _IDLE.setdefault(_key(stand_in), []).append(server)  # it serves the first game
        return stand_in
    return _stand_in(registry, asked)


def _stand_in(registry: AgentRegistry, asked: tuple) -> Any:
    """A new stand-in of the agent ``asked`` (its target, parameters and limit)."""
    made = _CHECKED[asked]
    target, _, limit = asked
    return _stand_in_class(registry, target, made["class"], limit)(**made["params"])


#: What an agent's process says of its class (`_describe`), each entry's type.
_DESCRIPTION = {
    "name": str,
    "module": str,
    "qualname": str,
    "doc": str,
    "methods": tuple,
    "params": tuple,
    "capabilities": tuple,
    "sees_rule": bool,
    "interactive": bool,
}


def _describe(cls: type) -> tuple:
    """In the agent's process: its class as plain data, for `_stand_in_class`."""
    methods = {
        name
        for base in cls.__mro__
        if base is not object
        for name, value in vars(base).items()
        if inspect.isfunction(value) and not name.startswith("_")
    }
    methods -= {"get_params", "set_params", "check_params"}  # the toolkit's, over the params
    described = {
        "name": cls.__name__,
        "module": cls.__module__,
        "qualname": cls.__qualname__,
        "doc": cls.__doc__ or "",
        "methods": tuple(sorted(methods)),
        "params": tuple(_init_parameters(cls)),
        "capabilities": tuple(sorted(agent_capabilities(cls))),
        "sees_rule": class_attribute(cls, "sees_rule", False) is True,
        "interactive": class_attribute(cls, "interactive", False) is True,
    }
    return tuple(described.items())


def _checked_description(described: Any) -> tuple:
    """What the agent's process said of its class, as `_describe` makes it; else
    `_Refused` (a process that lies about its class must not give the stand-in code)."""
    items = dict(described) if isinstance(described, tuple) else None
    if items is None or set(items) != set(_DESCRIPTION):
        raise _Refused("its description of its class is not the toolkit's")
    for key, kind in _DESCRIPTION.items():
        value = items[key]
        if type(value) is not kind or (
            kind is tuple and not all(type(v) is str and v.isidentifier() for v in value)
        ):
            raise _Refused(f"its description of its class has a bad {key!r}")
    names = [items["name"], *items["module"].split("."), *items["qualname"].split(".")]
    if not all(part.isidentifier() for part in names):
        raise _Refused("its description of its class has a bad name")
    return tuple(items.items())


@functools.cache
def _stand_in_class(
    registry: AgentRegistry, target: str, described: tuple, limit: float | None
) -> type:
    """A class of the registry's base, under the agent's name, whose every public
    method is a call to the agent in its process: built from what that process said of
    the agent's class (`_describe`), so that it has the agent's name, parameters,
    capabilities and description, and nothing of the agent's code."""
    items = dict(described)
    params = items["params"]
    namespace: dict[str, Any] = {name: _forward(name) for name in items["methods"]}
    namespace.update(
        __init__=_store_params,
        _param_names=classmethod(lambda _: params),
        get_params=Parameters.get_params,
        set_params=Parameters.set_params,
        check_params=Parameters.check_params,
        capabilities=items["capabilities"],
        sees_rule=items["sees_rule"],
        interactive=items["interactive"],
        __module__=items["module"],
        __qualname__=items["qualname"],
        __doc__=items["doc"],
        _isolation=(target, limit, registry),
    )
    return type(items["name"], (registry.base,), namespace)


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
    target, limit, registry = stand_in._isolation
    key = _key(stand_in)
    idle = _IDLE.setdefault(key, [])
    server = idle.pop() if idle else _Server(target, stand_in.get_params(), limit, registry)
    stand_in._server = server
    stand_in._release = weakref.finalize(stand_in, _release, key, server)
    return server


def release(agent: Any) -> None:
    """Give the process of an isolated ``agent`` (a stand-in made by `isolated`) back for
    the next stand-in of the same agent, now that its game is over, rather than when the
    stand-in is collected; nothing for any other agent.

    >>> from eleusis_lab.games.classic import play_classic
    >>> seats = [isolated("random"), isolated("random")]
    >>> _ = play_classic("red(card)", seats, seed=1)
    >>> used = {agent._server.process.pid for agent in seats}
    >>> for agent in seats:
    ...     release(agent)
    >>> again = [isolated("random"), isolated("random")]
    >>> _ = play_classic("red(card)", again, seed=2)
    >>> {agent._server.process.pid for agent in again} == used  # the same two processes
    True
    """
    finalizer = getattr(agent, "__dict__", {}).pop("_release", None)
    if finalizer is not None:
        agent.__dict__.pop("_server", None)
        finalizer()


def _key(stand_in: Any) -> tuple:
    """The processes that can serve ``stand_in``: those of the same agent and limit."""
    target, limit, _ = stand_in._isolation
    return target, repr(sorted(stand_in.get_params().items())), limit


def _release(key: tuple, server: _Server) -> None:
    if server.alive:
        _IDLE.setdefault(key, []).append(server)


class _Refused(Exception):
    """The agent's process could not make the agent: its class or parameters refused."""


class _Server:
    """One process holding one agent, and the pipe to it."""

    def __init__(
        self, target: str, params: dict[str, Any], limit: float | None, registry: AgentRegistry
    ):
        self.limit = limit
        self.pipe, child = _CONTEXT.Pipe()
        self.process = _CONTEXT.Process(
            target=_serve, args=(child, target, params, os.getpid(), registry), daemon=True
        )
        _start(self.process)
        child.close()
        self.alive = True
        self.ready = False  # the process imports and makes the agent before its first call

    def start(self) -> dict[str, Any]:
        """Wait for the agent to be made (no limit: importing is not a decision); its
        parameters and its class's description as it reports them, or `_Refused`."""
        try:
            made = self._answer(decode(receive(self.pipe, None)))
        except (EOFError, OSError, UnsafeMessage):
            self.stop()
            raise _Refused("its process ended before the agent was made") from None
        except Exception as error:  # raised by the agent's constructor or check
            raise _Refused(str(error)) from None
        self.ready = True
        if not (isinstance(made, tuple) and len(made) == 2):
            raise _Refused("its first answer is not a message of the protocol")
        params, described = made
        if not (isinstance(params, dict) and all(isinstance(k, str) for k in params)):
            raise _Refused("its parameters are not a table of names")
        return {"params": params, "class": _checked_description(described)}

    def call(self, name: str, args: tuple, kwargs: dict) -> Any:
        if not self.alive:
            raise AgentStopped("its process was stopped earlier in this game")
        try:
            if not self.ready:
                try:
                    self.start()
                except _Refused as refusal:
                    self.stop()
                    raise AgentStopped(str(refusal)) from None
            # the agent is told the run it plays for, as it would be in the engine's process
            folder = run_folder()
            self.pipe.send((name, args, kwargs, None if folder is None else str(folder)))
            answer = decode(receive(self.pipe, self.limit))
        except TooLate:
            self.stop()
            raise AgentStopped(f"no answer to {name} within {self.limit:g} s") from None
        except UnsafeMessage as refused:
            self.stop()
            raise AgentStopped(f"its answer to {name} was refused: {refused}") from None
        except (EOFError, OSError, BrokenPipeError):
            self.stop()
            raise AgentStopped(f"its process ended during {name}") from None
        except AgentStopped:
            raise
        except BaseException:  # stopped from outside (Ctrl-C, a time limit): do not keep it
            self.stop()
            raise
        return self._answer(answer)

    @staticmethod
    def _answer(answer: Any) -> Any:
        """What the agent returned, or the exception it raised (by name and text)."""
        if isinstance(answer, tuple) and len(answer) == 2 and answer[0] == "ok":
            return answer[1]
        if isinstance(answer, tuple) and len(answer) == 3 and answer[0] == "raised":
            kind, message = str(answer[1]), str(answer[2])
            if kind.isidentifier():
                raise type(kind, (Exception,), {"__module__": "builtins"})(message)
        raise AgentStopped("its answer is not a message of the protocol")

    def stop(self) -> None:
        self.alive = False
        self.process.kill()
        self.process.join()
        self.pipe.close()


_STARTING = threading.Lock()


def _start(process: Any) -> None:
    """Start a spawned ``process`` from any process.

    A spawned process is told its parent's start method; in a worker of a pool with a
    method of its own (joblib's ``loky``, under ``--jobs`` and Dask) that is one plain
    multiprocessing does not know, and the new process died before the agent was made
    ("cannot find context for 'loky'"): it is told ``spawn``, which it is.

    A Dask worker's process is daemonic, and multiprocessing refuses children to a
    daemonic process lest they outlive it when it is killed; the agent's process ends
    with its parent whatever happens (`_die_with`), so the flag is lifted while it
    starts.
    """
    prepare = multiprocessing.spawn.get_preparation_data

    def prepared(name: str) -> dict[str, Any]:
        data = prepare(name)
        if data.get("start_method") not in multiprocessing.get_all_start_methods():
            data["start_method"] = "spawn"
        return data

    config = multiprocessing.current_process()._config  # where the daemon flag is kept
    with _STARTING:
        daemon = config.pop("daemon", None)
        multiprocessing.spawn.get_preparation_data = prepared
        try:
            process.start()
        finally:
            multiprocessing.spawn.get_preparation_data = prepare
            if daemon is not None:
                config["daemon"] = daemon


def _die_with(parent: int) -> None:
    """In the agent's process: end it when its parent is gone (killed, even with -9),
    whatever the agent is doing, so that no agent outlives its run."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def _serve(
    pipe: Any, target: str, params: dict[str, Any], parent: int, registry: AgentRegistry
) -> None:
    """The agent's process: import the class and make the agent, checked as the
    registry checks it, then answer calls until the pipe closes."""
    _die_with(parent)
    try:
        _, cls, params = registry.resolve(target, **params)
        agent = registry.check(cls(**params), target)
        pipe.send(("ok", (dict(agent.get_params()), _describe(cls))))
    except Exception as error:  # the engine's process names the agent as it was asked
        message = str(error).removeprefix(f"{registry.noun} {target!r}").lstrip(": ")
        pipe.send(("raised", type(error).__name__, message))
        return
    while True:
        try:
            name, args, kwargs, folder = pipe.recv()
        except (EOFError, OSError):
            return
        try:
            with in_run_folder(folder):
                answer: tuple = ("ok", getattr(agent, name)(*args, **kwargs))
            pipe.send(answer)
        except Exception as error:
            pipe.send(("raised", type(error).__name__, str(error)))
