"""Finding agent classes by name: entry points and ``module:Class`` specs.

The engine never imports the ``agents`` package by module name. An agent is named
either by a registered name (an entry point of the group ``eleusis_lab.agents``, which
is how the built-in agents and third-party packages plug in) or by a ``module:Class``
string pointing at any importable `Agent` subclass.

Examples
--------
>>> agent = make_agent("oracle", choice="first")
>>> agent
OracleAgent(choice='first')
>>> "random" in available_agents()
True
>>> [type(a).__name__ for a in parse_agent_list("random, oracle")]
['RandomAgent', 'OracleAgent']
"""

from __future__ import annotations

import functools
import importlib
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from eleusis_lab.agent import Agent

__all__ = [
    "GROUP",
    "AgentSpecError",
    "UnknownAgentError",
    "agent_class",
    "available_agents",
    "make_agent",
    "parse_agent_list",
]

#: The entry-point group where agent packages register their classes.
GROUP = "eleusis_lab.agents"


class AgentSpecError(ValueError):
    """An agent spec that cannot be made into an agent (bad import, not an Agent, ...)."""


class UnknownAgentError(AgentSpecError):
    """A name that is neither a registered agent nor a ``module:Class`` spec."""


@functools.cache
def _registered() -> dict[str, EntryPoint]:
    # Reading the installed distributions' metadata takes milliseconds: do it once.
    return {entry.name: entry for entry in entry_points(group=GROUP)}


def available_agents() -> dict[str, str]:
    """The registered agent names and the ``module:Class`` each one points to.

    >>> available_agents()["random"]
    'agents.simple:RandomAgent'
    """
    return {name: entry.value for name, entry in sorted(_registered().items())}


def agent_class(spec: str) -> type[Agent]:
    """The `Agent` subclass named by ``spec`` (a registered name or ``module:Class``).

    Raises
    ------
    UnknownAgentError
        For a name that is not registered; the message lists the known names.
    AgentSpecError
        When the module does not import, has no such class, or the class is not an Agent.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(f"an agent spec is a name or 'module:Class', got {spec!r}")
    spec = spec.strip()
    if ":" in spec:
        return _import_class(spec)
    entry = _registered().get(spec)
    if entry is None:
        known = ", ".join(available_agents()) or "none registered"
        raise UnknownAgentError(
            f"unknown agent {spec!r}; known agents: {known} (or give 'module:Class')"
        )
    return _import_class(entry.value, name=spec)


def _import_class(spec: str, name: str | None = None) -> type[Agent]:
    label = f"agent {name!r} ({spec})" if name else f"agent {spec!r}"
    module_name, _, qualname = spec.partition(":")
    if not module_name or not qualname:
        raise AgentSpecError(f"{label}: expected 'module:Class', e.g. 'agents.simple:RandomAgent'")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as error:
        raise AgentSpecError(f"{label}: cannot import module {module_name!r}: {error}") from None
    try:
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except AttributeError:
        raise AgentSpecError(f"{label}: module {module_name!r} has no {qualname!r}") from None
    if not (isinstance(obj, type) and issubclass(obj, Agent)):
        raise AgentSpecError(f"{label}: {qualname!r} is not an Agent subclass (eleusis_lab.agent)")
    return obj


def make_agent(spec: str, **params: Any) -> Agent:
    """A new agent from a registered name or ``module:Class``, with constructor parameters.

    Parameters
    ----------
    spec : str
        A name from `available_agents` or ``"package.module:Class"``.
    **params
        Passed to the class's constructor.

    Returns
    -------
    Agent
        A fresh, unplayed agent.

    Raises
    ------
    UnknownAgentError, AgentSpecError
        See `agent_class`; also `AgentSpecError` for a parameter the class does not take.

    Examples
    --------
    >>> make_agent("agents.simple:RandomAgent")
    RandomAgent()
    >>> try:
    ...     make_agent("oracle", colour="red")
    ... except AgentSpecError as error:
    ...     print(error)
    agent 'oracle' takes no parameter 'colour' (its parameters: choice)
    """
    cls = agent_class(spec)
    valid = cls._param_names()
    unknown = [name for name in params if name not in valid]
    if unknown:
        takes = ", ".join(valid) or "none"
        raise AgentSpecError(
            f"agent {spec!r} takes no parameter {unknown[0]!r} (its parameters: {takes})"
        )
    return cls(**params)


def parse_agent_list(text: str) -> list[Agent]:
    """One new agent per comma-separated spec: ``"random,oracle,random"``.

    >>> parse_agent_list("random,random")
    [RandomAgent(), RandomAgent()]
    """
    specs = [spec.strip() for spec in text.split(",")]
    if not text.strip() or not all(specs):
        raise AgentSpecError(f"expected comma-separated agent names, got {text!r}")
    return [make_agent(spec) for spec in specs]
