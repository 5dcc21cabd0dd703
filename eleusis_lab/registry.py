"""Plug-ins by name (`Registry`), and agent classes by name or ``module:Class``.

Every kind of plug-in, agents, dealer kinds, games and complexity measures, is kept by
one `Registry`: the built-in ones, the entry points of its group, and those added in a
process.

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
from collections.abc import Iterable, Iterator, Mapping
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Generic, TypeVar

from eleusis_lab.agent import Agent, _init_parameters
from eleusis_lab.errors import ConfigError, did_you_mean

__all__ = [
    "AGENTS",
    "GROUP",
    "AgentRegistry",
    "AgentSpecError",
    "Registry",
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


T = TypeVar("T")


class AgentSpecError(ValueError):
    """An agent spec that cannot be made into an agent (bad import, not an Agent, ...)."""


class UnknownAgentError(AgentSpecError):
    """A name that is neither a registered agent nor a ``module:Class`` spec."""


class Registry(Mapping[str, T], Generic[T]):
    """The plug-ins of one kind by name: built in, installed, or added in this process.

    Every kind of plug-in is found this way: the Eleusis agents (`AGENTS`), the Secrets
    players (`eleusis_lab.secrets.agent.SECRETS_AGENTS`), the dealer kinds
    (`eleusis_lab.dealers.DEALERS`), the games (`eleusis_lab.games.table.GAMES`) and the
    complexity measures (`eleusis_lab.rules.complexity.measures`). The names are those
    of ``built_in`` (first, in their order), then the entry points of ``group`` (read
    once per process, by name), then those `add` put in this process (which may take an
    installed name's place, until `remove`).

    A registry holds classes or objects:

    - with an ``example`` (a ``module:Class`` to show in messages), subclasses of
      ``kind``: an entry point is imported only when its name is asked for, any
      importable subclass is found by ``module:Class`` too, and `make` builds one from
      a spec with parameters, ``name(key=value, ...)``; a name unknown or a class that
      does not do raises `UnknownAgentError` or `AgentSpecError`. An entry point of a
      built-in name does not replace it.
    - without, objects of type ``kind``, each with a ``name``: every entry point is
      loaded the first time the registry is read, and one that fails to load, is not a
      ``kind`` of its name, or takes a built-in name, is a `ConfigError`.

    ``noun`` names the kind in messages; ``known`` introduces the list of names in the
    error for an unknown one.

    Examples
    --------
    >>> AGENTS.make("oracle")
    OracleAgent(choice='random')
    >>> from collections import namedtuple
    >>> Toy = namedtuple("Toy", "name")
    >>> toys = Registry("eleusis_lab.toys", Toy, "toy", built_in=[Toy("a")])
    >>> toys.add(Toy("b")).name, list(toys)
    ('b', ['a', 'b'])
    >>> toys.remove("b"); list(toys)
    ['a']
    """

    def __init__(
        self,
        group: str,
        kind: type,
        noun: str,
        *,
        built_in: Iterable[T] | Mapping[str, T] = (),
        example: str | None = None,
        known: str | None = None,
    ):
        self.group, self.kind, self.noun = group, kind, noun
        self.example, self.known = example, known or f"known {noun}s"
        self.builtins: dict[str, T] = (
            dict(built_in) if isinstance(built_in, Mapping) else {o.name: o for o in built_in}
        )
        self._installed: dict[str, T] | None = None
        self._added: dict[str, T] = {}
        self._all: dict[str, T] | None = None

    @property
    def of_classes(self) -> bool:
        """Whether the registry holds classes (found by ``module:Class`` too)."""
        return self.example is not None

    #: The kind's base class, as the registries of classes call it.
    base = property(lambda self: self.kind)

    @functools.cached_property
    def _entries(self) -> dict[str, EntryPoint]:
        # Reading the installed distributions' metadata takes milliseconds: do it once.
        return {entry.name: entry for entry in entry_points(group=self.group)}

    # -- what is there --------------------------------------------------------------------

    def available(self) -> dict[str, str]:
        """The names and where each one is found (``module:Class``, or an entry point's
        value), without importing anything: the built-in ones first, then the entry
        points by name, then those added."""
        names = {name: _where(obj) for name, obj in self.builtins.items()}
        for name, entry in sorted(self._entries.items()):
            names.setdefault(name, entry.value)
        names.update((name, _where(obj)) for name, obj in self._added.items())
        return names

    def installed(self) -> dict[str, T]:
        """The built-in plug-ins and those of installed packages (a registry of objects
        loads them once)."""
        if self._installed is None:
            if self.of_classes:
                return {name: self.class_of(name) for name in self.available()}
            found = dict(self.builtins)
            for name, entry in sorted(self._entries.items()):
                where = f"{self.noun} entry point {name!r} ({entry.value})"
                try:
                    obj = entry.load()
                except Exception as error:  # a broken package: say which, in one line
                    raise ConfigError(f"{where}: cannot load it: {error}") from None
                if not isinstance(obj, self.kind) or obj.name != name:
                    kind = self.kind.__name__
                    raise ConfigError(f"{where}: expected a {kind} named {name!r}, got {obj!r}")
                if name in found:
                    raise ConfigError(f"{where}: a {self.noun} of that name exists already")
                found[name] = obj
            self._installed = found
        return self._installed

    def reload(self) -> None:
        """Read the entry points again (after packages were installed in this process)."""
        self.__dict__.pop("_entries", None)
        self._installed = self._all = None

    def added(self) -> dict[str, T]:
        """Those `add` put in, in order."""
        return dict(self._added)

    def add(self, obj: T) -> T:
        """Put ``obj`` in under its name, in this process; return it."""
        self._added[obj.name] = obj
        self._all = None
        return obj

    def remove(self, name: str) -> None:
        """Take back what `add` put in under ``name`` (KeyError for any other name)."""
        del self._added[name]
        self._all = None

    def _everything(self) -> dict[str, T]:
        if self._all is None:
            if self.of_classes:  # names only: a class is imported when asked for
                return dict.fromkeys(self.available())  # type: ignore[arg-type]
            self._all = {**self.installed(), **self._added}
        return self._all

    def __getitem__(self, name: str) -> T:
        if self.of_classes:
            if name not in self.available():
                raise KeyError(name)
            return self.class_of(name)  # type: ignore[return-value]
        return self._everything()[name]

    def __contains__(self, name: object) -> bool:  # without importing a class
        return name in self._everything()

    def __iter__(self) -> Iterator[str]:
        return iter(self._everything())

    def __len__(self) -> int:
        return len(self._everything())

    def __repr__(self) -> str:
        return f"{self.noun}s({', '.join(self)})"

    # A registry is one place, not a value: equal to itself only (and hashable, as a
    # default value of a dataclass field).
    def __eq__(self, other: object) -> bool:
        return self is other

    __hash__ = object.__hash__

    def __getstate__(self) -> dict[str, Any]:
        # sent to an isolated agent's process: the entry points are read again there
        state = {key: value for key, value in self.__dict__.items() if key != "_entries"}
        return {**state, "_installed": None, "_all": None}

    # -- classes by name --------------------------------------------------------------------

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
        if spec in self._added:
            return self._added[spec]  # type: ignore[return-value]
        if spec in self.builtins:
            return self.builtins[spec]  # type: ignore[return-value]
        entry = self._entries.get(spec)
        if entry is None:
            known = ", ".join(self.available()) or "none registered"
            raise UnknownAgentError(
                f"unknown {self.noun} {spec!r}{did_you_mean(spec, self.available())};"
                f" {self.known}: {known} (or give 'module:Class')"
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
            elif isinstance(error, ModuleNotFoundError) and error.name == module_name.split(".")[0]:
                # the module's own folder is not on the path (its imports' are another matter)
                reason += (
                    f"; if it is a file of yours ({module_name.split('.')[0]}.py), run from its"
                    " folder with that folder on the path: PYTHONPATH=. eleusis-lab ..."
                )
            raise AgentSpecError(
                f"{label}: cannot import module {module_name!r}: {reason}"
            ) from None
        try:
            for part in qualname.split("."):
                obj = getattr(obj, part)
        except AttributeError:
            raise AgentSpecError(f"{label}: module {module_name!r} has no {qualname!r}") from None
        if not (isinstance(obj, type) and issubclass(obj, self.kind)):
            article = "an" if self.kind.__name__[0] in "AEIOU" else "a"
            raise AgentSpecError(
                f"{label}: {qualname!r} is not {article} {self.kind.__name__} subclass"
                f" ({self.kind.__module__})"
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
                f"{self.noun} {spec!r} takes no parameter {unknown[0]!r}"
                f"{did_you_mean(unknown[0], valid)} (its parameters: {takes})"
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


class AgentRegistry(Registry):
    """A `Registry` of classes, made with the arguments in the order of old: ``group``,
    ``base`` (the kind), ``noun``, ``example``, ``known`` and ``builtins``.

    >>> AGENTS.agent_class("oracle").__name__
    'OracleAgent'
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
        super().__init__(group, base, noun, built_in=builtins or {}, example=example, known=known)


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


def _where(obj: Any) -> str:
    """The ``module:Class`` of a class, or of an object's class."""
    cls = obj if isinstance(obj, type) else type(obj)
    return f"{cls.__module__}:{cls.__qualname__}"


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
