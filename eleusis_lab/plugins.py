"""Named objects that packages add through an entry-point group, and scripts in-process.

The games (`eleusis_lab.games.table.GAMES`) and the complexity measures
(`eleusis_lab.rules.complexity.measures`) are found the same way: the built-in ones,
then the entry points of their group (read once per process, by name), then those added
in this process, in order. What may be added, and under which name, each registry
decides in its own ``register_...`` function; `Plugins` keeps them.

>>> from collections import namedtuple
>>> Toy = namedtuple("Toy", "name")
>>> toys = Plugins("eleusis_lab.toys", Toy, "toy", built_in=[Toy("a")])
>>> toys.add(Toy("b")).name, list(toys)
('b', ['a', 'b'])
>>> toys.remove("b"); list(toys)
['a']
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from importlib.metadata import entry_points
from typing import Generic, TypeVar

from eleusis_lab.errors import ConfigError

__all__ = ["Plugins"]

T = TypeVar("T")


class Plugins(Mapping[str, T], Generic[T]):
    """The objects of one kind by name (each has a ``name``): ``built_in``, then the
    entry points of ``group``, then those `add` put in (which may take an installed
    name's place, until `remove`)."""

    def __init__(self, group: str, kind: type, noun: str, built_in: Iterable[T] = ()):
        self.group, self.kind, self.noun = group, kind, noun
        self._built_in = tuple(built_in)
        self._installed: dict[str, T] | None = None
        self._added: dict[str, T] = {}
        self._all: dict[str, T] | None = None

    def installed(self) -> dict[str, T]:
        """The built-in objects and those of installed packages (read once)."""
        if self._installed is None:
            found = {obj.name: obj for obj in self._built_in}
            for entry in sorted(entry_points(group=self.group), key=lambda entry: entry.name):
                where = f"{self.noun} entry point {entry.name!r} ({entry.value})"
                try:
                    obj = entry.load()
                except Exception as error:  # a broken package: say which, in one line
                    raise ConfigError(f"{where}: cannot load it: {error}") from None
                if not isinstance(obj, self.kind) or obj.name != entry.name:
                    kind = self.kind.__name__
                    raise ConfigError(
                        f"{where}: expected a {kind} named {entry.name!r}, got {obj!r}"
                    )
                if entry.name in found:
                    raise ConfigError(f"{where}: a {self.noun} of that name exists already")
                found[entry.name] = obj
            self._installed = found
        return self._installed

    def reload(self) -> None:
        """Read the entry points again (after packages were installed in this process)."""
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
            self._all = {**self.installed(), **self._added}
        return self._all

    def __getitem__(self, name: str) -> T:
        return self._everything()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._everything())

    def __len__(self) -> int:
        return len(self._everything())

    def __repr__(self) -> str:
        return f"{self.noun}s({', '.join(self)})"
