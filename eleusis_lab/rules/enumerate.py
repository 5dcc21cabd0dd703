"""Build a space of hypotheses from a grammar: one formula per behaviour, most probable first.

`build_space` is the entry point: it enumerates the rules of a `Grammar` (a preset of
`GRAMMARS`, or one of your own) bottom-up in order of description length and keeps one
*hypothesis* per behaviour, until it holds ``max_hypotheses`` of them, as a
`HypothesisSpace`: their verdicts on every probe (a context the grammar can tell apart,
times the 52 faces), priors and shortest formulas. Spaces are cached in the process and
on disk (`cache_dir`), so a large space is built once per machine.

The work is split by job, one module each, and this module names what they offer:

- `eleusis_lab.rules.grammar`: `Grammar`, the `GRAMMARS` presets, `get_grammar`;
- `eleusis_lab.rules.prior`: what each production costs (`ProductionPrior.costs`);
- `eleusis_lab.rules.enumerator`: the enumeration itself (how it works, its limits, its
  speed);
- `eleusis_lab.rules.formula_graph`: how the formulas it keeps are stored and written;
- `eleusis_lab.rules.row_hash`: the hashes that tell behaviours apart (`HashCollision`);
- `eleusis_lab.rules.space`: `HypothesisSpace` and the reads of its packed verdict table;
- `eleusis_lab.rules.space_cache`: the disk cache (`cache_dir`, `CacheWarning`).

Examples
--------
>>> from eleusis_lab.rules import parse
>>> space = build_space("colours_suits", max_hypotheses=2000, cache=False)
>>> len(space), space.text(0)
(2000, 'true')
>>> i = space.index_of(parse("if red(last) then black(card) else red(card)"))
>>> space.text(i)
'color(card) != color(last)'
>>> space.index_of(parse("rank(card) > rank(last)")) is None  # beyond this grammar
True
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

from eleusis_lab.rules.enumerator import enumerate_space
from eleusis_lab.rules.grammar import DEFAULT_GRAMMAR, GRAMMARS, Grammar, get_grammar
from eleusis_lab.rules.row_hash import HashCollision
from eleusis_lab.rules.space import HypothesisSpace
from eleusis_lab.rules.space_cache import CacheWarning, cache_dir, cached_space

__all__ = [
    "DEFAULT_GRAMMAR",
    "DEFAULT_MAX_BITS",
    "GRAMMARS",
    "Grammar",
    "HashCollision",
    "HypothesisSpace",
    "build_space",
    "MAX_HYPOTHESES_LIMIT",
    "CacheWarning",
    "cache_dir",
    "check_max_hypotheses",
    "get_grammar",
]

#: Behaviours whose shortest formula has this many bits or more are left out by default.
DEFAULT_MAX_BITS = 64.0

#: The most hypotheses a space may hold: 10**7 takes minutes and gigabytes to build
#: with the larger grammars, more would take hours.
MAX_HYPOTHESES_LIMIT = 10**7


def check_max_hypotheses(value: Any) -> int:
    """``value`` if it is a whole number from 1 to `MAX_HYPOTHESES_LIMIT`, else ValueError.

    A boolean is refused (``True`` is not 1 hypothesis).

    >>> check_max_hypotheses(True)
    Traceback (most recent call last):
    ...
    ValueError: max_hypotheses must be a whole number from 1 to 10**7, got True
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"max_hypotheses must be a whole number from 1 to 10**7, got {value!r}")
    if not 1 <= value <= MAX_HYPOTHESES_LIMIT:
        raise ValueError(
            f"max_hypotheses must be a whole number from 1 to 10**7 (the build's time and"
            f" memory grow with it), got {value!r}"
        )
    return int(value)


def build_space(
    grammar: str | Grammar | None = None,
    max_hypotheses: int = 100_000,
    max_bits: float | None = DEFAULT_MAX_BITS,
    *,
    cache: bool = True,
    progress: Callable[[str], None] | None = None,
) -> HypothesisSpace:
    """The ``max_hypotheses`` most probable behaviours of a grammar (see the module doc).

    Parameters
    ----------
    grammar : str or Grammar, optional
        A preset name of `GRAMMARS` or a `Grammar`; the default is ``"standard"``.
    max_hypotheses : int
        How many distinct behaviours to keep, simplest first.
    max_bits : float or None
        Keep only behaviours whose shortest formula has fewer bits. The default, 64,
        stops small grammars from searching for ever longer formulas: a game of about
        100 plays, each telling about one bit at most, cannot single out a rule much
        longer than that. None: no limit.
    cache : bool
        Reuse a space built before, in this process or on disk (see `cache_dir`; an
        entry that does not check out is rebuilt, with a `CacheWarning`).
    progress : callable, optional
        Called with one line of text per band of the enumeration.

    Examples
    --------
    >>> space = build_space("colours_suits", max_hypotheses=100, cache=False)
    >>> [space.text(i) for i in range(4)]
    ['true', 'false', 'red(card)', 'red(last)']
    """
    grammar = get_grammar(grammar)
    check_max_hypotheses(max_hypotheses)
    max_bits = math.inf if max_bits is None else float(max_bits)
    if not cache:
        return enumerate_space(grammar, max_hypotheses, max_bits, progress)
    return cached_space(grammar, max_hypotheses, max_bits, progress)
