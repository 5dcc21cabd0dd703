"""How complex a rule is: five built-in measures, and a registry for more.

- ``nodes``: the number of nodes of its syntax tree.
- ``bits``: its description length under the grammar prior below, ``-log2 P(rule)``.
- ``acceptance``: the mean fraction of the 52 faces that are right over the contexts a
  game reaches, each weighted by how often it is reached: exactly, over a game of 52
  uniformly random plays from a random starter (`random_play_acceptance`).
- ``classes``: the number of different sets of right faces over all reachable
  contexts: how many situations the rule tells apart.
- ``learnability``: the mean number of plays a reference learner, the simplest
  hypothesis of the Bayesian agents' space consistent with the verdicts, needs to
  identify the rule in games of random plays (`eleusis_lab.rules.learnability`). It
  is computed on demand (`Measure.on_demand`) and kept on disk.

The first four are exact functions of the rule (`complexity` gives them at once).

The grammar prior
-----------------
A rule is written top-down; each node is one choice among the productions allowed
for its type, every choice equally likely, so a node costs ``log2`` of the number of
alternatives, and the rule's bits are the sum over its nodes:

- a ``bool`` node is one of 9 kinds: ``and``, ``or``, ``not``, ``if``, an integer
  comparison (then one of 6 operators), an equality of two bools (``==`` or ``!=``),
  a set membership (``in`` or ``not in``, then the set's size in Elias-gamma code),
  a predicate (one of 9; ``odd``, ``even`` and ``prime`` then say in 1 bit whether
  their argument is a card or a number), or an atom (one of ``true``, ``false``,
  ``empty``, ``last_play_right``);
- an ``int`` node is one of 7 kinds: ``+ - *`` (one of 3), ``mod`` (its modulus in
  Elias-gamma code), negation, ``if``, a card feature (one of 4), ``abs``/``min``/
  ``max`` (one of 3), or an atom: a literal (Elias gamma of value + 1), a named
  constant (one of 10), ``length``, or ``run(feature)`` (one of 7 features);
- a ``card`` node is one of ``card``, ``last``, ``prev``.

The same prior serves as the Bayesian agents' prior over hypotheses.
`eleusis_lab.rules.prior` writes these choices out; a `ProductionPrior` there can give
each alternative its own probability (fitted on rules people write) instead.

Copies (``copies=True``, as in grammars with ``Grammar.copies``): people compare a
feature of the card with *the same* feature of another card far more often than with a
different one. With copies, a comparison, ``+``, ``-`` or true/false equality whose two
operands read one feature or predicate of two different cards (``rank(card) -
rank(last)``, ``red(card) != red(last)``) may write its right operand as a copy of the
left one: 1 bit, then the card. A rule's bits are those of its cheapest writing.

Measures
--------
Each measure is declared once, as a `Measure`: its name, a label, its type and the
function of a rule that computes it. Everything that handles complexity reads them
from `measures`: the results' columns (``rule_nodes``, ``rule_bits`` ...,
`eleusis_lab.shards.row_schema`), the dealers' pool and their ``measure`` setting, the
analysis, the plots, the report, ``eleusis-lab rules list`` and ``rules show``. The
five above are built in; a package adds its own through the entry-point group
`MEASURE_GROUP` (``eleusis_lab.measures``), a script or notebook with
`register_measure`:

>>> from eleusis_lab.rules import parse
>>> from eleusis_lab.shards import row_schema
>>> length = register_measure(Measure("text_length", lambda rule: len(rule.text), "int64"))
>>> row_schema().names[row_schema().names.index("rule_learnability") + 1]
'rule_text_length'
>>> describe_measures(parse("red(card)"))
'2 nodes, 7.9 bits, 50% of faces right on average, 1 context class, learnt in 3.0 plays, \
text_length 9'
>>> unregister_measure("text_length")

A measure changes the results' columns: a run refuses to resume into a folder written
with other measures (`eleusis_lab.runner.run_experiment`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from eleusis_lab.errors import ConfigError, did_you_mean
from eleusis_lab.plugins import Plugins
from eleusis_lab.rules.ast import Node
from eleusis_lab.rules.learnability import REFERENCE, learnability
from eleusis_lab.rules.prior import (
    COPY_BITS,
    UNIFORM,
    ProductionPrior,
    elias_gamma_bits,
    is_copy,
    productions,
)
from eleusis_lab.rules.reach import (
    DEFAULT_BUDGET,
    DEFAULT_MAX_LENGTH,
    Budget,
    random_play_acceptance,
    reachable,
)
from eleusis_lab.rules.rule import Rule
from eleusis_lab.text import plural

__all__ = [
    "BUILT_IN",
    "COPY_BITS",
    "DEFAULT_MEASURE",
    "DTYPES",
    "MEASURES",
    "MEASURE_GROUP",
    "Complexity",
    "Measure",
    "complexity",
    "complexity_columns",
    "describe_measures",
    "description_bits",
    "elias_gamma_bits",
    "get_measure",
    "is_copy",
    "measure_names",
    "measure_phrases",
    "measure_values",
    "measures",
    "register_measure",
    "rule_acceptance",
    "rule_bits",
    "rule_classes",
    "rule_nodes",
    "unregister_measure",
]


def description_bits(node: Node, copies: bool = False, prior: ProductionPrior = UNIFORM) -> float:
    """``-log2`` of the rule's probability under the grammar prior (module docstring).

    ``copies``: whether operands may be copied (see the module docstring). ``prior``:
    the probabilities of the productions (`eleusis_lab.rules.prior`); by default the
    hand-set one, every alternative equally likely.

    Examples
    --------
    >>> from eleusis_lab.rules import parse
    >>> # a bool of 9 kinds, a predicate of 9, a card of 3: log2(9 * 9 * 3)
    >>> round(description_bits(parse("red(card)").expr), 2)
    7.92
    >>> alternation = parse("color(card) != color(last)").expr
    >>> round(description_bits(alternation) - description_bits(alternation, copies=True), 2)
    3.81
    """
    return sum(
        prior.bits(*choice) if isinstance(choice, tuple) else choice
        for choice in productions(node, copies)
    )


# -- the four figures -------------------------------------------------------------------


def rule_nodes(rule: Rule) -> int:
    """The number of nodes of the rule's syntax tree.

    >>> from eleusis_lab.rules import parse
    >>> rule_nodes(parse("red(card)"))
    2
    """
    return sum(1 for _ in rule.expr.walk())


def rule_bits(rule: Rule) -> float:
    """The rule's description length under the uniform grammar prior, without copies."""
    return description_bits(rule.expr)


def rule_acceptance(
    rule: Rule, max_length: int = DEFAULT_MAX_LENGTH, budget: Budget = DEFAULT_BUDGET
) -> float:
    """The mean fraction of the faces that are right over a game of random plays
    (`random_play_acceptance`)."""
    return random_play_acceptance(rule, max_length=max_length, budget=budget)


def rule_classes(
    rule: Rule, max_length: int = DEFAULT_MAX_LENGTH, budget: Budget = DEFAULT_BUDGET
) -> int:
    """The number of different sets of right faces over the reachable contexts.

    >>> from eleusis_lab.rules import parse
    >>> rule_classes(parse("color(card) != color(last)"))  # after red, after black, none
    3
    """
    verdicts = reachable(rule, max_length, budget).verdicts[0]
    return len({row.tobytes() for row in verdicts})


# -- the registry of measures -----------------------------------------------------------


@dataclass(frozen=True)
class Measure:
    """A complexity measure: a function of a rule, declared once for the whole toolkit.

    A registered measure (`register_measure`, or an entry point of `MEASURE_GROUP`) is
    a column of every results table (``rule_NAME``, `eleusis_lab.shards.ROW_SCHEMA`),
    of the dealers' pool of generated rules (`eleusis_lab.dealers.rule_pool`; for a
    measure computed `on_demand`, once a dealer deals by it), so that band, spread and
    adaptive dealers can deal by it (``measure = "NAME"``), a measure of the analysis,
    the plots and the report, and a column of ``eleusis-lab rules list``.

    Parameters
    ----------
    name : str
        Lower-case letters, digits and ``_``; the results column is ``rule_NAME``.
    function : callable
        ``function(rule) -> number``, for a parsed `Rule`; deterministic, so that a
        run resumed or repeated gives the same rows.
    dtype : {"int64", "float64"}
        The column's type (Arrow and pandas).
    label : str, optional
        What the measure is, for axes and reports; default: the name.
    heading : str, optional
        The column's heading in ``eleusis-lab rules list``; default: the name.
    format : str, optional
        A format spec for one value (``"5d"``, ``"6.1f"``, ``".0%"``); default ``"d"``
        for whole numbers, ``".4g"`` otherwise.
    phrase : callable, optional
        ``phrase(value) -> str``, the value in words, as ``eleusis-lab rules show``
        lists it; default: ``"NAME VALUE"``.
    on_demand : bool, optional
        For a measure too slow to compute for the thousands of rules of a dealer's
        pool (``learnability``: 13 ms a rule, 15 s a pool): every results row and
        the command line still get it, but a pool gets its column only when a dealer
        deals by it (`eleusis_lab.dealers.rule_pool`). Default False: the pool is
        built with it.

    Examples
    --------
    >>> from eleusis_lab.rules import parse
    >>> length = Measure("text_length", lambda rule: len(rule.text), dtype="int64",
    ...                  label="length of the rule's text (characters)")
    >>> length.column, length(parse("red(card)")), length.describe(9)
    ('rule_text_length', 9, 'text_length 9')
    """

    name: str
    function: Callable[[Rule], Any]
    dtype: str = "float64"
    label: str | None = None
    heading: str | None = None
    format: str | None = None
    phrase: Callable[[Any], str] | None = None
    on_demand: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.fullmatch(self.name):
            raise ValueError(
                f"a measure's name is lower-case letters, digits and _, got {self.name!r}"
            )
        if self.name in _RESERVED:
            raise ValueError(
                f"{self.name!r} cannot name a measure: it is a column of the results or"
                f" of the rule pool already ({', '.join(_RESERVED)})"
            )
        if self.dtype not in DTYPES:
            raise ValueError(
                f"measure {self.name!r}: dtype must be one of {', '.join(DTYPES)},"
                f" got {self.dtype!r}"
            )
        if not callable(self.function):
            raise ValueError(f"measure {self.name!r}: function must be callable(rule)")

    @property
    def column(self) -> str:
        """The measure's column in a results table: ``rule_NAME``."""
        return f"rule_{self.name}"

    def __call__(self, rule: Rule) -> int | float:
        """The measure of ``rule``, as a Python int or float (by `dtype`)."""
        return self.cast(self.function(rule))

    def cast(self, value: Any) -> int | float:
        """``value`` as the Python type of `dtype` (from a NumPy scalar, say)."""
        return DTYPES[self.dtype](value)

    def cell(self, value: Any) -> str:
        """``value`` written with `format`."""
        spec = self.format if self.format is not None else _FORMATS[self.dtype]
        return format(value, spec)

    def describe(self, value: Any) -> str:
        """``value`` in words (`phrase`)."""
        if self.phrase is not None:
            return self.phrase(value)
        return f"{self.name} {self.cell(value)}"


_NAME = re.compile(r"[a-z][a-z0-9_]*")
#: Columns named like a measure's that are something else: ``rule_name`` in the results
#: (the catalog name), the other columns of the rule pool.
_RESERVED = ("name", "hypothesis", "rule", "fewest_legal", "acceptable")
#: The types a measure can have, and the Python type of its values.
DTYPES: dict[str, type] = {"int64": int, "float64": float}
_FORMATS = {"int64": "d", "float64": ".4g"}

#: The five measures of the module docstring, in the order of the results' columns.
BUILT_IN: tuple[Measure, ...] = (
    Measure(
        "nodes",
        rule_nodes,
        "int64",
        label="rule size (nodes)",
        format="5d",
        phrase=lambda value: f"{value} nodes",
    ),
    Measure(
        "bits",
        rule_bits,
        "float64",
        label="rule description length (bits)",
        format="6.1f",
        phrase=lambda value: f"{value:.1f} bits",
    ),
    Measure(
        "acceptance",
        rule_acceptance,
        "float64",
        label="share of faces the rule accepts",
        heading="accept",
        format="6.0%",
        phrase=lambda value: f"{value:.0%} of faces right on average",
    ),
    Measure(
        "classes",
        rule_classes,
        "int64",
        label="context classes of the rule",
        format="7d",
        phrase=lambda value: plural(value, "context class", "context classes"),
    ),
    Measure(
        "learnability",
        learnability,
        "float64",
        label="plays a reference learner needs to identify the rule",
        heading="learn",
        format="6.1f",
        phrase=lambda value: (
            f"learnt in {value:.1f} plays"
            if value < REFERENCE.plays
            else f"not learnt in {REFERENCE.plays} plays"
        ),
        on_demand=True,
    ),
)
#: The measure dealers and the analysis use when none is named; the first in tables.
DEFAULT_MEASURE = "bits"
#: The entry-point group where installed packages register measures: each entry names
#: a `Measure` (``text_length = "mypackage.measures:TEXT_LENGTH"``).
MEASURE_GROUP = "eleusis_lab.measures"

#: The measures by name: the built-in ones, those of installed packages (by name), then
#: those of `register_measure`, in the order of the calls.
MEASURES: Plugins[Measure] = Plugins(MEASURE_GROUP, Measure, "measure", BUILT_IN)


def measures(on_demand: bool = True) -> tuple[Measure, ...]:
    """Every measure, in the order of the results' columns: the five built-in ones, then
    those of installed packages (`MEASURE_GROUP`, by name), then those registered with
    `register_measure`, in the order of the calls. ``on_demand=False`` leaves out those
    computed on demand (`Measure.on_demand`).

    >>> [measure.name for measure in measures()]
    ['nodes', 'bits', 'acceptance', 'classes', 'learnability']
    >>> len(measures(on_demand=False))
    4
    """
    return tuple(m for m in MEASURES.values() if on_demand or not m.on_demand)


def measure_names() -> tuple[str, ...]:
    """The names of `measures`, in order."""
    return tuple(measure.name for measure in measures())


def complexity_columns() -> tuple[str, ...]:
    """The results' complexity columns, `DEFAULT_MEASURE`'s first, as tables list them.

    >>> complexity_columns()
    ('rule_bits', 'rule_nodes', 'rule_acceptance', 'rule_classes', 'rule_learnability')
    """
    columns = [measure.column for measure in measures()]
    first = f"rule_{DEFAULT_MEASURE}"
    return (first, *(column for column in columns if column != first))


def get_measure(name: str) -> Measure:
    """The measure named ``name`` (or by its column, ``rule_NAME``).

    Raises `ConfigError` for an unknown name, with the names there are.

    >>> get_measure("rule_bits").label
    'rule description length (bits)'
    >>> get_measure("bitz")
    Traceback (most recent call last):
    ...
    eleusis_lab.errors.ConfigError: unknown complexity measure 'bitz' (did you mean \
'bits'?); the measures: nodes, bits, acceptance, classes, learnability
    """
    found = MEASURES
    if isinstance(name, str):
        key = name.removeprefix("rule_") if name not in found else name
        if key in found:
            return found[key]
    raise ConfigError(
        f"unknown complexity measure {name!r}{did_you_mean(name, found)};"
        f" the measures: {', '.join(found)}"
    )


def register_measure(measure: Measure) -> Measure:
    """Add ``measure`` to `measures` in this process, and return it.

    Registering the same measure again does nothing; another one of a name taken is a
    `ValueError` (`unregister_measure` first). The measure exists in this process only:
    a run's rows get its column whatever the number of workers (the main process fills
    the complexity columns), but worker processes (``jobs > 1``, Dask) do not know it,
    so a dealer can deal by it only in a run with ``jobs = 1``. A package that ships a
    measure declares it as an entry point of `MEASURE_GROUP` instead, which every
    process reads.

    Examples
    --------
    >>> from eleusis_lab.rules import parse
    >>> length = register_measure(Measure("text_length", lambda rule: len(rule.text), "int64"))
    >>> measure_names()[-1], measure_values(parse("red(card)"))["text_length"]
    ('text_length', 9)
    >>> unregister_measure("text_length")
    >>> "text_length" in measure_names()
    False
    """
    if not isinstance(measure, Measure):
        raise TypeError(f"register_measure takes a Measure, got {measure!r}")
    existing = MEASURES.get(measure.name)
    if existing == measure:
        return existing
    if existing is not None:
        raise ValueError(
            f"a measure named {measure.name!r} is registered already; unregister_measure"
            f" ({measure.name!r}) first to replace it"
        )
    return MEASURES.add(measure)


def unregister_measure(name: str) -> None:
    """Remove a measure `register_measure` added (the built-in ones stay)."""
    if name not in MEASURES.added():
        raise ValueError(f"no measure {name!r} was registered with register_measure")
    MEASURES.remove(name)


def measure_values(rule: Rule) -> dict[str, int | float]:
    """Every measure of ``rule``, by name, in the order of `measures`.

    Raises `TooManyContexts` for a rule over the analysis budget.

    >>> from eleusis_lab.rules import parse
    >>> measure_values(parse("red(card)"))  # doctest: +ELLIPSIS
    {'nodes': 2, 'bits': 7.92..., 'acceptance': 0.5, 'classes': 1, 'learnability': 3.02}
    """
    return {measure.name: measure(rule) for measure in measures()}


def describe_measures(rule: Rule) -> str:
    """Every measure of ``rule`` in words, as ``eleusis-lab rules show`` prints them.

    >>> from eleusis_lab.rules import parse
    >>> describe_measures(parse("color(card) != color(last)"))
    '5 nodes, 18.5 bits, 50% of faces right on average, 3 context classes, learnt in 5.8 plays'
    """
    return ", ".join(measure_phrases(rule))


def measure_phrases(rule: Rule) -> list[str]:
    """Every measure of ``rule`` in words, one phrase each (`Measure.describe`).

    >>> from eleusis_lab.rules import parse
    >>> measure_phrases(parse("red(card)"))[:2]
    ['2 nodes', '7.9 bits']
    """
    return [measure.describe(measure(rule)) for measure in measures()]


# -- the four exact figures at once -----------------------------------------------------


@dataclass(frozen=True)
class Complexity:
    """The four exact complexity figures of a rule (see the module docstring)."""

    nodes: int
    bits: float
    acceptance: float
    classes: int

    def __str__(self) -> str:
        return ", ".join(MEASURES[f.name].describe(getattr(self, f.name)) for f in fields(self))


def complexity(
    rule: Rule, max_length: int = DEFAULT_MAX_LENGTH, budget: Budget = DEFAULT_BUDGET
) -> Complexity:
    """The four exact complexity figures of ``rule``; raises `TooManyContexts` for a
    rule over ``budget`` (see `eleusis_lab.rules.reach`). `measure_values` gives every
    registered measure, learnability too.

    Examples
    --------
    >>> from eleusis_lab.rules import parse
    >>> c = complexity(parse("color(card) != color(last)"))
    >>> c.nodes, c.classes   # after a red card, after a black one, on an empty line
    (5, 3)
    """
    classes = rule_classes(rule, max_length, budget)  # explores first, as a budget check
    return Complexity(
        nodes=rule_nodes(rule),
        bits=rule_bits(rule),
        acceptance=rule_acceptance(rule, max_length, budget),
        classes=classes,
    )
