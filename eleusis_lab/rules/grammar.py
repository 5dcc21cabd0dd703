"""Grammars: which parts of the rule language a space of hypotheses is built from.

A `Grammar` says which parts of the rule language a learner knows: which card
variables (``card``, ``last``, optionally ``prev``), whether it reads the previous
verdict (``last_play_right``), which features, predicates, numbers and operators, and
what each production costs (its `ProductionPrior`, `eleusis_lab.rules.prior`).
`GRAMMARS` holds the named presets; `eleusis_lab.rules.enumerate.build_space` enumerates
the rules of a grammar.

Examples
--------
>>> get_grammar("standard").constants
('ace', 'jack', 'queen', 'king')
>>> sorted(GRAMMARS)
['arithmetic', 'colours_suits', 'relational', 'standard', 'verdict']
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, fields

from eleusis_lab.rules.ast import COMPARISONS, CONSTANTS, INT_FEATURES, PREDICATES
from eleusis_lab.rules.prior import CARDS, UNIFORM, ProductionPrior

__all__ = [
    "DEFAULT_GRAMMAR",
    "GRAMMARS",
    "INT_CONSTANT_NAMES",
    "LEARNER_GRAMMAR",
    "Grammar",
    "get_grammar",
]

#: The named number constants (``red``, ``hearts``, ``king`` ...), in `CONSTANTS` order.
INT_CONSTANT_NAMES = tuple(name for name, (kind, _) in CONSTANTS.items() if kind == "int")


@dataclass(frozen=True)
class Grammar:
    """Which parts of the rule language a space of hypotheses is built from.

    Parameters
    ----------
    name : str
        A label (used in cache file names).
    cards : tuple of str
        Card variables: ``"card"`` and any of ``"last"``, ``"prev"``.
    last_play_right : bool
        Whether rules may read the previous verdict.
    empty_line : bool
        Whether to tell rules apart on an empty main line (games without a starter).
    features : tuple of str
        Integer features of cards: ``rank``, ``suit``, ``color``, ``parity``.
    predicates : tuple of str
        Predicates on cards (``red(card)``, ``odd(last)`` ...).
    int_predicates : tuple of str
        Predicates on numbers: any of ``odd``, ``even``, ``prime``.
    numbers : tuple of int
        Number literals.
    constants : tuple of str
        Named number constants (``red``, ``hearts``, ``king`` ...).
    comparisons : tuple of str
        Of ``== != < <= > >=`` (``>`` and ``>=`` are ``<`` and ``<=`` mirrored; giving
        either of a pair gives both).
    arithmetic : tuple of str
        Of ``+ - *``.
    moduli : tuple of int
        The ``N`` of ``x mod N``.
    functions : tuple of str
        Of ``abs``, ``min``, ``max``.
    negation : bool
        Unary minus.
    logic : tuple of str
        Of ``and``, ``or``, ``not``.
    bool_equality : bool
        ``==`` and ``!=`` between two true/false values, e.g. ``high(card) != high(last)``.
    conditionals : bool
        ``if c then a else b`` on true/false values.
    set_sizes : tuple of int
        Sizes of the literal sets of ``x in {...}`` and ``x not in {...}``; empty: none.
    copies : bool
        Whether a comparison, ``+``, ``-`` or true/false equality of one feature or
        predicate of two cards (``suit(card) == suit(last)``) may copy its left operand
        into its right one, which then costs `eleusis_lab.rules.prior.COPY_BITS` (see
        `eleusis_lab.rules.complexity`): such rules get much more probable.

    Examples
    --------
    >>> grammar = get_grammar("colours_suits")
    >>> grammar.features, grammar.predicates
    (('suit', 'color'), ('red', 'black'))
    >>> Grammar(name="mine", cards=("card",)).reads
    ()
    """

    name: str = "custom"
    cards: tuple[str, ...] = ("card", "last")
    last_play_right: bool = False
    empty_line: bool = False
    features: tuple[str, ...] = INT_FEATURES
    predicates: tuple[str, ...] = tuple(PREDICATES)
    int_predicates: tuple[str, ...] = ("odd", "even", "prime")
    numbers: tuple[int, ...] = tuple(range(14))
    constants: tuple[str, ...] = INT_CONSTANT_NAMES
    comparisons: tuple[str, ...] = COMPARISONS
    arithmetic: tuple[str, ...] = ("+", "-")
    moduli: tuple[int, ...] = (2, 3, 4, 13)
    functions: tuple[str, ...] = ("abs",)
    negation: bool = False
    logic: tuple[str, ...] = ("and", "or", "not")
    bool_equality: bool = True
    conditionals: bool = True
    set_sizes: tuple[int, ...] = ()
    copies: bool = False
    prior: ProductionPrior = UNIFORM

    def __post_init__(self) -> None:
        for f in fields(self):  # lists would make the grammar unhashable
            value = getattr(self, f.name)
            if isinstance(value, list):
                object.__setattr__(self, f.name, tuple(value))
        _check_subset("cards", self.cards, CARDS)
        if "card" not in self.cards:
            raise ValueError("a grammar needs the card variable 'card'")
        _check_subset("features", self.features, INT_FEATURES)
        _check_subset("predicates", self.predicates, PREDICATES)
        _check_subset("int_predicates", self.int_predicates, ("odd", "even", "prime"))
        _check_subset("constants", self.constants, INT_CONSTANT_NAMES)
        _check_subset("comparisons", self.comparisons, COMPARISONS)
        _check_subset("arithmetic", self.arithmetic, ("+", "-", "*"))
        _check_subset("functions", self.functions, ("abs", "min", "max"))
        _check_subset("logic", self.logic, ("and", "or", "not"))
        if any(not isinstance(n, int) or n < 0 for n in self.numbers):
            raise ValueError(f"numbers must be whole numbers >= 0, got {self.numbers!r}")
        if any(not isinstance(m, int) or m < 1 for m in self.moduli):
            raise ValueError(f"moduli must be whole numbers >= 1, got {self.moduli!r}")
        if any(not isinstance(s, int) or s < 1 for s in self.set_sizes):
            raise ValueError(f"set sizes must be whole numbers >= 1, got {self.set_sizes!r}")

    @property
    def reads(self) -> tuple[str, ...]:
        """The context slots rules of this grammar can read, in `slots_read` order."""
        slots = [card for card in ("last", "prev") if card in self.cards]
        return (*slots, *(("outcome",) if self.last_play_right else ()))

    def digest(self) -> str:
        """A short hash of the grammar's content (not its name), for cache keys."""
        content = {k: v for k, v in asdict(self).items() if k != "name"}
        if self.prior.is_uniform:  # the hand-set prior keeps the keys it always had
            del content["prior"]
        return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()[:16]


def _check_subset(what: str, values: tuple, allowed) -> None:
    unknown = [v for v in values if v not in allowed]
    if unknown:
        raise ValueError(f"unknown {what}: {unknown!r} (known: {', '.join(map(str, allowed))})")


# Named constants cost fewer bits than the literals 3, 11, 12, 13; outside colours and
# suits, keep only the rank names, so that a rank difference never reads "<= spades".
_RANK_NAMES = ("ace", "jack", "queen", "king")

#: Named grammars. ``colours_suits`` knows only colours and suits; ``standard`` the card
#: features, predicates, + - mod abs and the comparisons; ``arithmetic`` adds * min max,
#: unary minus and small sets; ``verdict`` is ``standard`` reading ``last_play_right``;
#: ``relational`` is ``standard`` with copies (`Grammar.copies`).
GRAMMARS: dict[str, Grammar] = {
    "colours_suits": Grammar(
        name="colours_suits",
        features=("suit", "color"),
        predicates=("red", "black"),
        int_predicates=(),
        numbers=(0, 1, 2, 3),
        constants=("black", "red", "clubs", "diamonds", "hearts", "spades"),
        comparisons=("==", "!="),
        arithmetic=("+",),
        moduli=(2, 4),
        functions=(),
    ),
    "standard": Grammar(name="standard", constants=_RANK_NAMES),
    "arithmetic": Grammar(
        name="arithmetic",
        constants=_RANK_NAMES,
        arithmetic=("+", "-", "*"),
        moduli=(2, 3, 4, 5, 13),
        functions=("abs", "min", "max"),
        negation=True,
        set_sizes=(2, 3),
    ),
    "verdict": Grammar(name="verdict", constants=_RANK_NAMES, last_play_right=True),
    "relational": Grammar(name="relational", constants=_RANK_NAMES, copies=True),
}
#: The grammar of the rule tools (the catalog's measures, ``rules`` commands).
DEFAULT_GRAMMAR = "standard"
#: The grammar the Bayesian learners think in by default: the standard one in which
#: comparing one feature of two cards is cheap.
LEARNER_GRAMMAR = "relational"


def get_grammar(grammar: str | Grammar | None = None) -> Grammar:
    """A grammar by preset name (see `GRAMMARS`), or the grammar itself.

    >>> get_grammar().name
    'standard'
    """
    if grammar is None:
        return GRAMMARS[DEFAULT_GRAMMAR]
    if isinstance(grammar, Grammar):
        return grammar
    if grammar not in GRAMMARS:
        raise ValueError(f"unknown grammar {grammar!r}; presets: {', '.join(GRAMMARS)}")
    return GRAMMARS[grammar]
