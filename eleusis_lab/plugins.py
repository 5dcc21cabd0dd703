"""Named objects that packages add through an entry-point group, and scripts in-process.

The games (`eleusis_lab.games.table.GAMES`) and the complexity measures
(`eleusis_lab.rules.complexity.measures`) are kept by `eleusis_lab.registry.Registry`,
as the agents and the dealer kinds are: the built-in ones, then the entry points of
their group (read once per process, by name), then those added in this process, in
order. What may be added, and under which name, each registry decides in its own
``register_...`` function. `Plugins` makes such a registry of objects.

>>> from collections import namedtuple
>>> Toy = namedtuple("Toy", "name")
>>> toys = Plugins("eleusis_lab.toys", Toy, "toy", built_in=[Toy("a")])
>>> toys.add(Toy("b")).name, list(toys)
('b', ['a', 'b'])
>>> toys.remove("b"); list(toys)
['a']
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from eleusis_lab.registry import Registry

__all__ = ["Plugins", "Registry"]

T = TypeVar("T")


class Plugins(Registry[T]):
    """A `Registry` of objects (each has a ``name``), made with the arguments in the
    order of old: ``group``, ``kind``, ``noun`` and ``built_in``."""

    def __init__(self, group: str, kind: type, noun: str, built_in: Iterable[T] = ()):
        super().__init__(group, kind, noun, built_in=built_in)
