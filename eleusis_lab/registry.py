"""Finding agent classes by name: entry points and ``module:Class`` specs.

The engine never imports the ``agents`` package by module name. An agent is named
either by a registered name (an entry point of the group ``eleusis_lab.agents``, which
is how the built-in agents and third-party packages plug in) or by a ``module:Class``
string pointing at any importable `Agent` subclass. Either may carry parameters, as
in a call: ``bayes(grammar=standard, noise=0.01)`` (values are Python literals; a bare
word is a string). They are parsed, never evaluated.

Examples
--------
>>> agent = make_agent("oracle", choice="first")
>>> agent
OracleAgent(choice='first')
>>> "random" in available_agents()
True
>>> [type(a).__name__ for a in parse_agent_list("random, oracle")]
['RandomAgent', 'OracleAgent']
>>> parse_agent_list("random, oracle(choice=first)")[1]
OracleAgent(choice='first')
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import tomllib
from collections.abc import Mapping
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from eleusis_lab.agent import Agent, _init_parameters

__all__ = [
    "AGENTS",
    "GROUP",
    "AgentRegistry",
    "AgentSpecError",
    "UnknownAgentError",
    "agent_class",
    "available_agents",
    "class_spec_problem",
    "make_agent",
    "parse_agent_list",
    "split_params",
    "split_specs",
]

#: The entry-point group where agent packages register their classes.
GROUP = "eleusis_lab.agents"


class AgentSpecError(ValueError):
    """An agent spec that cannot be made into an agent (bad import, not an Agent, ...)."""


class UnknownAgentError(AgentSpecError):
    """A name that is neither a registered agent nor a ``module:Class`` spec."""


class AgentRegistry:
    """Agent classes found by name in one entry-point group, or as ``module:Class``.

    One registry per kind of agent: `AGENTS` (Eleusis, `Agent` subclasses) and, in
    `eleusis_lab.secrets.agent`, the Secrets players; the dealer kinds of
    `eleusis_lab.dealers` are found the same way (`eleusis_lab.dealers.DEALERS`).
    ``noun`` names the kind in messages, ``example`` is a ``module:Class`` to show,
    ``known`` introduces the list of names in the error for an unknown one. ``builtins``
    maps names to classes the registry knows without entry points (an entry point of
    the same name does not replace one); they are listed first, in their order.

    >>> AGENTS.make("oracle")
    OracleAgent(choice='random')
    """

    def __init__(
        self,
        group: str,
        base: type,
        noun: str,
        example: str,
        known: str,
        builtins: Mapping[str, type] | None = None,
    ):
        self.group, self.base, self.noun, self.example, self.known = (
            group,
            base,
            noun,
            example,
            known,
        )
        self.builtins = dict(builtins or {})

    @functools.cached_property
    def _entries(self) -> dict[str, EntryPoint]:
        # Reading the installed distributions' metadata takes milliseconds: do it once.
        return {entry.name: entry for entry in entry_points(group=self.group)}

    def available(self) -> dict[str, str]:
        """The registered names and the ``module:Class`` each one points to: the
        built-in ones first, then the entry points by name."""
        names = {
            name: f"{cls.__module__}:{cls.__qualname__}" for name, cls in self.builtins.items()
        }
        for name, entry in sorted(self._entries.items()):
            names.setdefault(name, entry.value)
        return names

    def agent_class(self, spec: str) -> type:
        """The class named by ``spec`` (a registered name or ``module:Class``).

        Raises `UnknownAgentError` for a name that is not registered (the message lists
        the known names), `AgentSpecError` when the module does not import, has no such
        class, or the class is not of the registry's kind.
        """
        article = "an" if self.noun[0] in "aeiou" else "a"
        if not isinstance(spec, str) or not spec.strip():
            raise AgentSpecError(
                f"{article} {self.noun} spec is a name or 'module:Class', got {spec!r}"
            )
        spec = spec.strip()
        if ":" in spec:
            return self._import_class(spec, f"{self.noun} {spec!r}")
        if spec in self.builtins:
            return self.builtins[spec]
        entry = self._entries.get(spec)
        if entry is None:
            known = ", ".join(self.available()) or "none registered"
            raise UnknownAgentError(
                f"unknown {self.noun} {spec!r}; {self.known}: {known} (or give 'module:Class')"
            )
        return self._import_class(entry.value, f"{self.noun} {spec!r} ({entry.value})")

    #: The same, by a name that suits every kind of class the registry finds.
    class_of = agent_class

    def _import_class(self, spec: str, label: str) -> type:
        module_name, _, qualname = spec.partition(":")
        if not module_name or not qualname:
            raise AgentSpecError(f"{label}: expected 'module:Class', e.g. {self.example!r}")
        problem = class_spec_problem(spec)
        if problem is not None:
            raise AgentSpecError(f"{label}: {problem}")
        try:
            obj: Any = importlib.import_module(module_name)
        except Exception as error:  # ImportError, or whatever the module raises: one line
            reason = _one_line(error)
            if not isinstance(error, ImportError):
                reason = f"{type(error).__name__}: {reason}"
            raise AgentSpecError(
                f"{label}: cannot import module {module_name!r}: {reason}"
            ) from None
        try:
            for part in qualname.split("."):
                obj = getattr(obj, part)
        except AttributeError:
            raise AgentSpecError(f"{label}: module {module_name!r} has no {qualname!r}") from None
        if not (isinstance(obj, type) and issubclass(obj, self.base)):
            article = "an" if self.base.__name__[0] in "AEIOU" else "a"
            raise AgentSpecError(
                f"{label}: {qualname!r} is not {article} {self.base.__name__} subclass"
                f" ({self.base.__module__})"
            )
        return obj

    def make(self, spec: str, **params: Any) -> Any:
        """A new agent from a registered name or ``module:Class``, with its parameters
        (given here or in the spec: ``name(key=value, ...)``); `AgentSpecError` also for
        a parameter the class does not take."""
        spec, cls, params = self.resolve(spec, **params)
        try:
            agent = cls(**params)
        except (TypeError, ValueError) as error:
            raise AgentSpecError(f"{self.noun} {spec!r}: {_one_line(error)}") from None
        return self.check(agent, spec)

    def target(self, spec: str, **params: Any) -> tuple[str, str, dict[str, Any]]:
        """The name, ``module:Class`` text and parameters of ``spec`` (with ``params``),
        without importing anything: what `eleusis_lab.isolation` hands to the agent's
        own process, which imports the class and checks the parameters (`resolve`).

        >>> AGENTS.target("bayes(noise=0.1)")
        ('bayes', 'eleusis_agents.bayes:BayesAgent', {'noise': 0.1})
        """
        spec, written = split_params(spec, self.noun)
        params = {**written, **params}
        spec = spec.strip()
        if ":" in spec:
            problem = class_spec_problem(spec)
            if problem is not None:
                raise AgentSpecError(f"{self.noun} {spec!r}: {problem}")
            return spec, spec, params
        known = self.available()
        if spec not in known:
            names = ", ".join(known) or "none registered"
            raise UnknownAgentError(
                f"unknown {self.noun} {spec!r}; {self.known}: {names} (or give 'module:Class')"
            )
        return spec, known[spec], params

    def __getstate__(self) -> dict[str, Any]:
        # sent to an isolated agent's process: the entry points are read again there
        return {key: value for key, value in self.__dict__.items() if key != "_entries"}

    def resolve(self, spec: str, **params: Any) -> tuple[str, type, dict[str, Any]]:
        """The name, class and parameters of ``spec`` (with ``params``), the parameters
        checked against the class's constructor; nothing of the class runs but its
        import (`eleusis_lab.isolation` makes the agent in a process of its own).

        >>> name, cls, params = AGENTS.resolve("bayes(noise=0.1)", policy="greedy")
        >>> name, cls.__name__, params
        ('bayes', 'BayesAgent', {'noise': 0.1, 'policy': 'greedy'})
        """
        spec, written = split_params(spec, self.noun)
        params = {**written, **params}
        cls = self.agent_class(spec)
        valid = _init_parameters(cls)  # the constructor's, whatever the class says
        unknown = [name for name in params if name not in valid]
        if unknown:
            takes = ", ".join(valid) or "none"
            raise AgentSpecError(
                f"{self.noun} {spec!r} takes no parameter {unknown[0]!r} (its parameters: {takes})"
            )
        return spec, cls, params

    def check(self, agent: Any, spec: str | None = None) -> Any:
        """``agent`` itself once its ``check_params`` accepts its parameters; else
        `AgentSpecError` in one line naming the agent (``spec``, or its class) and the
        reason. `make` calls it, so that a bad value stops a run before its first game.

        >>> AGENTS.check(make_agent("oracle").set_params(choice="worst"))
        Traceback (most recent call last):
        ...
        eleusis_lab.registry.AgentSpecError: agent 'OracleAgent': OracleAgent choice must be \
'random' or 'first', got 'worst'
        """
        label = spec if spec is not None else type(agent).__name__
        check = getattr(agent, "check_params", None)
        try:
            if check is not None:
                check()
        except TypeError as error:  # e.g. a comparison of a number with a string
            given = ", ".join(f"{k}={v!r}" for k, v in _changed_params(agent).items())
            raise AgentSpecError(
                f"{self.noun} {label!r}: a parameter has a value of the wrong type"
                f" ({given or 'the defaults'}): {_one_line(error)}"
            ) from None
        except (ValueError, LookupError) as error:
            raise AgentSpecError(f"{self.noun} {label!r}: {_one_line(error)}") from None
        return agent

    def parse_list(self, text: str) -> list:
        """One new agent per comma-separated spec (commas inside parentheses belong to
        the parameters)."""
        specs = split_specs(text) if isinstance(text, str) else []
        if not specs or not all(specs):
            raise AgentSpecError(f"expected comma-separated {self.noun} names, got {text!r}")
        return [self.make(spec) for spec in specs]


def class_spec_problem(spec: str) -> str | None:
    """What makes ``spec`` no ``module:Class`` text, or None; nothing is imported.

    The module is dotted Python names, as ``import`` takes them (no leading dot: a
    relative import has no package to start from; no path), and so is the class (a
    nested class's ``<locals>`` allowed, as records write it).

    >>> class_spec_problem("eleusis_agents.simple:RandomAgent") is None
    True
    >>> print(class_spec_problem("../etc:passwd"))
    the module '../etc' is not a module name: dotted Python names, e.g. 'eleusis_agents.simple'
    """
    module, colon, qualname = spec.partition(":") if isinstance(spec, str) else ("", "", "")
    if not colon:
        return f"expected 'module:Class', got {spec!r}"
    if not all(part.isidentifier() for part in module.split(".")):
        return (
            f"the module {module!r} is not a module name: dotted Python names,"
            " e.g. 'eleusis_agents.simple'"
        )
    if not all(part.isidentifier() or part == "<locals>" for part in qualname.split(".")):
        return f"the class {qualname!r} is not a class name: dotted Python names"
    return None


def split_specs(text: str) -> list[str]:
    """The comma-separated specs of ``text`` (a comma inside parentheses, braces or
    brackets belongs to the parameters).

    >>> split_specs("random, bayes(grammar=standard, noise=0.01)")
    ['random', 'bayes(grammar=standard, noise=0.01)']
    """
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1, "{": 1, "}": -1, "[": 1, "]": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return [part.strip() for part in (*parts, text[start:])]


def split_params(spec: Any, noun: str = "agent") -> tuple[Any, dict[str, Any]]:
    """A spec's name and its parameters, in either of the two spellings.

    A call, ``name(key=value, ...)``: values are Python literals (numbers, strings,
    tuples, True, None ...) or bare words, read as strings; the text is parsed (`ast`),
    never evaluated. Or a TOML inline table, as experiment specs write agents:
    ``{name = "bayes", noise = 0.01}`` (a mapping with a ``name`` is taken as it is).

    >>> split_params("bayes(grammar=standard, noise=0.01)")
    ('bayes', {'grammar': 'standard', 'noise': 0.01})
    >>> split_params('{name = "oracle", choice = "first"}')
    ('oracle', {'choice': 'first'})
    >>> split_params("random")
    ('random', {})
    """
    if isinstance(spec, Mapping) or (isinstance(spec, str) and spec.strip().startswith("{")):
        return _split_table(spec, noun)
    if not isinstance(spec, str) or not ("(" in spec or ")" in spec):
        return spec, {}
    name, _, rest = spec.strip().partition("(")
    problem = f"{noun} spec {spec!r}: parameters are written name(key=value, ...)"
    if not name or not rest.endswith(")"):
        raise AgentSpecError(problem)
    try:
        call = ast.parse(f"f({rest}", mode="eval").body
    except SyntaxError:
        raise AgentSpecError(problem) from None
    if not isinstance(call, ast.Call) or call.args or any(k.arg is None for k in call.keywords):
        raise AgentSpecError(problem)
    given = [keyword.arg for keyword in call.keywords]
    twice = next((name for name in given if given.count(name) > 1), None)
    if twice is not None:
        raise AgentSpecError(f"{noun} spec {spec!r}: the parameter {twice!r} is given twice")
    params = {}
    for keyword in call.keywords:
        value = keyword.value
        if isinstance(value, ast.Name):  # a bare word: grammar=standard
            params[keyword.arg] = value.id
            continue
        try:
            params[keyword.arg] = ast.literal_eval(value)
        except ValueError:
            raise AgentSpecError(
                f"{noun} spec {spec!r}: the value of {keyword.arg!r} is not a literal"
                f" ({ast.unparse(value)!r})"
            ) from None
    return name.strip(), params


def _split_table(spec: Any, noun: str) -> tuple[Any, dict[str, Any]]:
    """The name and parameters of a table spelling: a mapping, or TOML inline-table text."""
    table = spec
    if isinstance(spec, str):
        try:
            table = tomllib.loads(f"agent = {spec.strip()}")["agent"]
        except tomllib.TOMLDecodeError as error:
            raise AgentSpecError(
                f"{noun} spec {spec!r}: not a TOML table {{name = ..., key = value}}: {error}"
            ) from None
    if not isinstance(table, Mapping) or not isinstance(table.get("name"), str):
        raise AgentSpecError(f"{noun} spec {spec!r}: a table needs a name, e.g. name = 'bayes'")
    params = {key: value for key, value in table.items() if key != "name"}
    name, written = split_params(table["name"], noun)
    return name, {**written, **params}


def _changed_params(agent: Any) -> dict[str, Any]:
    """The parameters of ``agent`` whose value is not the constructor's default."""
    signature = inspect.signature(type(agent).__init__).parameters
    params = agent.get_params() if hasattr(agent, "get_params") else {}
    return {
        name: value
        for name, value in params.items()
        if name not in signature
        or signature[name].default is inspect.Parameter.empty
        or type(value) is not type(signature[name].default)
        or value != signature[name].default
    }


def _one_line(error: BaseException) -> str:
    """An exception's message in one line (its first), or its type's name."""
    text = str(error.args[0]) if isinstance(error, KeyError) and error.args else str(error)
    return text.strip().splitlines()[0] if text.strip() else type(error).__name__


#: The Eleusis agents.
AGENTS = AgentRegistry(GROUP, Agent, "agent", "eleusis_agents.simple:RandomAgent", "known agents")


def available_agents() -> dict[str, str]:
    """The registered agent names and the ``module:Class`` each one points to.

    >>> available_agents()["random"]
    'eleusis_agents.simple:RandomAgent'
    """
    return AGENTS.available()


def agent_class(spec: str) -> type[Agent]:
    """The `Agent` subclass named by ``spec`` (a registered name or ``module:Class``).

    Raises
    ------
    UnknownAgentError
        For a name that is not registered; the message lists the known names.
    AgentSpecError
        When the module does not import, has no such class, or the class is not an Agent.
    """
    return AGENTS.agent_class(spec)


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
    >>> make_agent("eleusis_agents.simple:RandomAgent")
    RandomAgent()
    >>> try:
    ...     make_agent("oracle", colour="red")
    ... except AgentSpecError as error:
    ...     print(error)
    agent 'oracle' takes no parameter 'colour' (its parameters: choice)
    """
    return AGENTS.make(spec, **params)


def parse_agent_list(text: str) -> list[Agent]:
    """One new agent per comma-separated spec: ``"random,oracle,random"``.

    >>> parse_agent_list("random,random")
    [RandomAgent(), RandomAgent()]
    """
    return AGENTS.parse_list(text)
