"""Enumerate rules from a grammar: one formula per behaviour, most probable first.

A `Grammar` says which parts of the rule language a learner knows: which card
variables (``card``, ``last``, optionally ``prev``), whether it reads the previous
verdict (``last_play_right``), which features, predicates, numbers and operators.
`build_space` enumerates the rules of a grammar bottom-up in order of description
length (``eleusis_lab.rules.complexity.description_bits``, the grammar prior) and keeps
one *hypothesis* per behaviour, until it holds ``max_hypotheses`` of them.

Behaviours are compared exactly. Every expression is represented by its values on a
finite set of *probes*: every context the grammar can tell apart that a game can
reach, times the 52 faces of the candidate card. For a grammar reading ``card`` and
``last`` the probes are (52 last cards) x (52 faces); reading ``last_play_right``
multiplies the contexts by 3 (before any play, after a right play, after a wrong
one); reading ``prev`` multiplies them by 53, so keep ``prev`` for small spaces. Two
rules with the same verdicts on every probe are the same rule in every game, so they
are one hypothesis. Games deal a starter, so by default the main line is never empty
and contexts without a last card are left out (``Grammar(empty_line=True)`` keeps
them): rules that differ only on an empty line are then one hypothesis.

How the enumeration works (bottom-up search with observational equivalence, as in
program synthesis): expressions are built band by band, band ``k`` holding the
formulas whose description length is in ``[k, k + 1)`` bits. Every production costs
more than one bit, so the children of a formula of band ``k`` all lie in earlier,
finished bands. Each new formula is evaluated on the probes with numpy, a whole batch
of candidates at once; its value vector is hashed, and a formula whose vector is
already known is only counted, not kept, so the next bands are built from one formula
per value vector. Numbers and true/false/undefined values are deduplicated the same
way. The enumeration is exact about behaviours and about the shortest formula of each
(the first formula found for a behaviour is its shortest, and its text is the one
shown). Undefined values ("reading a card that is not there counts as right") are
tracked per probe with the language's left-to-right ``and``/``or``/``if``.

The prior of a hypothesis is the sum of ``2 ** -bits`` over the formulas of that
behaviour that the enumeration sees. Because subexpressions are deduplicated by value,
a formula is seen through the shortest formula of each of its subexpressions' values,
with the mass of all the formulas of those values summed (an inside sum); masses added
to a subexpression after it was used in a bigger formula are not carried up. The sum
is therefore a slight undercount of the full sum over all formulas, exact for the
formulas that matter most (the shortest ones). In a grammar with copies
(`Grammar.copies`, the ``relational`` preset) the copied formulas are among them.
Symmetric operators (``==``, ``!=``, ``+``, ``*``, ``min``, ``max``; ``<`` and ``>``)
are built in one operand order and their formulas counted twice.

Limits: rules reading ``length``, ``empty`` or ``run(...)`` are outside every grammar
(their contexts are unbounded), and number-valued ``if`` is not enumerated. Value
vectors are told apart by a 64-bit hash, checked against a second one: a collision
(about one chance in a million for a million-hypothesis build) raises `HashCollision`
rather than merge two behaviours. The ``standard`` grammar gives 10**4 hypotheses
(up to 30.7 bits) in about 1 s, 10**5 (38.6 bits) in 8 s and 10**6 (44.4 bits) in
about a minute with 2.3 GB at the peak; the verdict table of 10**6 takes 322 MB.

Spaces are cached in the process and on disk (``$ELEUSIS_LAB_CACHE``, else
``~/.cache/eleusis-lab``), so a large space is built once per machine; worker
processes memory-map the same verdict table. Each entry records the shape, dtype and
SHA-256 of its arrays; one that does not match on loading (a truncated or altered file,
metadata that does not fit) is rebuilt, with a `CacheWarning` naming the file.

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

import contextlib
import functools
import hashlib
import itertools
import json
import math
import numbers
import os
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from eleusis_lab.cards import FEATURES, N_FACES
from eleusis_lab.rules.ast import (
    COMPARISONS,
    CONSTANTS,
    INT_FEATURES,
    PREDICATES,
    BinOp,
    Call,
    Const,
    If,
    In,
    Neg,
    Node,
    Not,
    Num,
    Var,
)
from eleusis_lab.rules.context import (
    NO_CARD,
    OUTCOME_NONE,
    OUTCOME_RIGHT,
    OUTCOME_WRONG,
    Context,
)
from eleusis_lab.rules.evaluate import PREDICATES_ON_FACE, PREDICATES_ON_INT
from eleusis_lab.rules.prior import CARDS, COPY_BITS, UNIFORM, ProductionPrior
from eleusis_lab.rules.rule import Rule

__all__ = [
    "DEFAULT_GRAMMAR",
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

INT_CONSTANT_NAMES = tuple(name for name, (kind, _) in CONSTANTS.items() if kind == "int")
CARD_VARIABLES = CARDS


# -- grammars -------------------------------------------------------------------------


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
        into its right one, which then costs `COPY_BITS` (see
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
        _check_subset("cards", self.cards, CARD_VARIABLES)
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
DEFAULT_GRAMMAR = "standard"
DEFAULT_MAX_BITS = 64.0


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


# -- probes: every context the grammar can tell apart, times the 52 faces ---------------


def _contexts(grammar: Grammar) -> tuple[tuple[str, ...], np.ndarray]:
    """The reachable values of the slots the grammar reads, one row per context."""
    slots = grammar.reads
    lasts = [*range(N_FACES), *([NO_CARD] if grammar.empty_line else [])]
    if "last" not in slots:
        lasts = [None]
    rows = []
    for last in lasts:
        prevs = [None]
        if "prev" in slots:
            prevs = [NO_CARD] if last == NO_CARD else [NO_CARD, *range(N_FACES)]
        outcomes = [OUTCOME_NONE, OUTCOME_RIGHT, OUTCOME_WRONG] if "outcome" in slots else [None]
        for prev, outcome in itertools.product(prevs, outcomes):
            if not _reachable(grammar, last, prev, outcome):
                continue
            values = {"last": last, "prev": prev, "outcome": outcome}
            rows.append([values[slot] for slot in slots])
    return slots, np.array(rows, dtype=np.int64).reshape(len(rows), len(slots))


def _reachable(grammar: Grammar, last: int, prev: int | None, outcome: int | None) -> bool:
    if outcome is None or last is None:
        return True
    if last == NO_CARD:  # an empty line: before any play, or after wrong plays only
        return outcome != OUTCOME_RIGHT
    if prev is None:
        return True
    if prev == NO_CARD:  # a one-card line: the starter, or a first right card
        return outcome != OUTCOME_RIGHT or grammar.empty_line
    return outcome != OUTCOME_NONE  # two cards or more: somebody has played


# -- row hashing ----------------------------------------------------------------------

_MASK64 = (1 << 64) - 1


def _salts(seed: int, n: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 2**63, size=n, dtype=np.uint64) * 2 + 1


def _mix(z: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, elementwise on uint64 (wraps modulo 2**64)."""
    z = z ^ (z >> np.uint64(30))
    z *= np.uint64(0xBF58476D1CE4E5B9)
    z ^= z >> np.uint64(27)
    z *= np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    return z


class _Hasher:
    """Two independent 64-bit hashes of rows of uint64 words."""

    def __init__(self, width: int):
        self.salts = [_salts(seed, width) for seed in (1, 2)]

    def __call__(self, words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        w = words.shape[1]
        with np.errstate(over="ignore"):
            return tuple(_mix(words ^ s[:w]).sum(axis=1, dtype=np.uint64) for s in self.salts)


class HashCollision(RuntimeError):
    """Two different value vectors got the same 64-bit hash (about 1 in 10**6 builds)."""


# -- the enumerator -------------------------------------------------------------------

UNDEF = np.int16(np.iinfo(np.int16).min)  # an int that reads a card that is not there
_INT_LIMIT = int(np.iinfo(np.int16).max)
_EPS = 1e-9
_CHUNK = 1 << 15  # candidates evaluated at once
_INT_CHUNK = 1 << 11

# Operation codes of the formula graph (int and bool stores have their own codes).
I_LIT, I_CONST, I_FEAT, I_ADD, I_SUB, I_MUL, I_MIN, I_MAX, I_MOD, I_NEG, I_ABS = range(11)
B_TRUE, B_FALSE, B_LPR, B_PRED_CARD, B_PRED_INT, B_CMP, B_IN = range(7)
B_NOT, B_AND, B_OR, B_BEQ, B_IF = range(7, 12)
_INT_BINARY = {"+": I_ADD, "-": I_SUB, "*": I_MUL, "min": I_MIN, "max": I_MAX}
_INT_UFUNC = {
    I_ADD: np.add,
    I_SUB: np.subtract,
    I_MUL: np.multiply,
    I_MIN: np.minimum,
    I_MAX: np.maximum,
}
_BEQ_OPS = ("==", "!=")  # the arg of B_BEQ
_CMP_OPS = ("==", "!=", "<", "<=")  # > and >= are < and <= with the operands swapped
_CMP_UFUNC = (np.equal, np.not_equal, np.less, np.less_equal)


class _Batch:
    """Candidate formulas of one production: children, argument, bits and prior mass."""

    __slots__ = ("kind", "op", "a", "b", "c", "arg", "bits", "mass")

    def __init__(self, kind, op, a, b, c, arg, bits, mass):
        n = len(bits)
        self.kind, self.op = kind, _full(op, n)
        self.a, self.b, self.c = (_full(x, n) for x in (a, b, c))
        self.arg = _full(arg, n)
        self.bits, self.mass = bits, mass

    def take(self, index: np.ndarray) -> _Batch:
        return _Batch(
            self.kind,
            self.op[index],
            self.a[index],
            self.b[index],
            self.c[index],
            self.arg[index],
            self.bits[index],
            self.mass[index],
        )


def _full(x, n: int) -> np.ndarray:
    if np.ndim(x) == 0:
        return np.full(n, x, dtype=np.int32)
    return np.asarray(x, dtype=np.int32)


def _concat(batches: list[_Batch], kind: str) -> _Batch:
    if not batches:
        empty = np.zeros(0, dtype=np.int32)
        return _Batch(kind, empty, empty, empty, empty, empty, np.zeros(0), np.zeros(0))
    cat = np.concatenate
    return _Batch(
        kind,
        cat([b.op for b in batches]),
        cat([b.a for b in batches]),
        cat([b.b for b in batches]),
        cat([b.c for b in batches]),
        cat([b.arg for b in batches]),
        cat([b.bits for b in batches]),
        cat([b.mass for b in batches]),
    )


class _Store:
    """Expressions of one type, one per value vector, in order of description length."""

    def __init__(self, kind: str):
        self.kind = kind
        self.blocks: list[np.ndarray] = []  # value rows, one block per band
        self.offsets = [0]
        self.op = np.zeros(0, np.int32)
        self.a = np.zeros(0, np.int32)
        self.b = np.zeros(0, np.int32)
        self.c = np.zeros(0, np.int32)
        self.arg = np.zeros(0, np.int32)
        self.bits = np.zeros(0)
        self.mass = np.zeros(0)
        self.key2 = np.zeros(0, np.uint64)
        self.sorted_keys = np.zeros(0, np.uint64)
        self.sorted_index = np.zeros(0, np.int64)
        self.verdict_keys = np.zeros(0, np.uint64)  # bools: the hash of value | undefined
        self.verdict_keys2 = np.zeros(0, np.uint64)

    def __len__(self) -> int:
        return len(self.bits)

    def rows(self, index: np.ndarray) -> np.ndarray:
        """The value rows of the expressions ``index``, gathered across blocks."""
        if len(self.blocks) == 1:
            return self.blocks[0][index]
        band = np.searchsorted(self.offsets, index, side="right") - 1
        out = np.empty((len(index), self.blocks[0].shape[1]), dtype=self.blocks[0].dtype)
        for b in np.unique(band):
            where = band == b
            out[where] = self.blocks[b][index[where] - self.offsets[b]]
        return out

    def find(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each key: whether a stored expression has it, and which."""
        if not len(self.sorted_keys):
            return np.zeros(len(keys), bool), np.zeros(len(keys), np.int64)
        pos = np.minimum(np.searchsorted(self.sorted_keys, keys), len(self.sorted_keys) - 1)
        found = self.sorted_keys[pos] == keys
        return found, self.sorted_index[pos]

    def append(self, batch: _Batch, keys: np.ndarray, keys2: np.ndarray, rows: np.ndarray):
        start = len(self)
        self.op = np.concatenate([self.op, batch.op])
        self.a = np.concatenate([self.a, batch.a])
        self.b = np.concatenate([self.b, batch.b])
        self.c = np.concatenate([self.c, batch.c])
        self.arg = np.concatenate([self.arg, batch.arg])
        self.bits = np.concatenate([self.bits, batch.bits])
        self.mass = np.concatenate([self.mass, batch.mass])
        self.key2 = np.concatenate([self.key2, keys2])
        if len(rows):
            self.blocks.append(rows)
            self.offsets.append(start + len(rows))
        merged = np.concatenate([self.sorted_keys, keys])
        order = np.argsort(merged, kind="stable")
        self.sorted_keys = merged[order]
        self.sorted_index = np.concatenate([self.sorted_index, np.arange(start, len(self))])[order]


@functools.cache
def _set_table(grammar: Grammar) -> tuple[list, np.ndarray, dict[int, Node]]:
    """The literal sets of ``x in {...}`` (values, negated), their bits, and value nodes."""
    costs = grammar.prior.costs
    best = {v: (costs.literal(v), Num(v)) for v in grammar.numbers}
    for name in grammar.constants:  # a named constant can be cheaper than the literal
        value = CONSTANTS[name][1]
        if value not in best or best[value][0] > costs.constant(name):
            best[value] = (costs.constant(name), Const(name))
    sets, bits = [], []
    for size in grammar.set_sizes:
        for values in itertools.combinations(sorted(v for v in best if v < 63), size):
            items = sum(best[v][0] for v in values)
            for negated in (False, True):
                sets.append((values, negated))
                bits.append(costs.set_head(size, negated) + items)
    order = np.argsort(bits, kind="stable")
    set_bits = np.array(bits, dtype=float)[order] if sets else np.zeros(0)
    return [sets[i] for i in order], set_bits, {v: node for v, (_, node) in best.items()}


class _Enumerator:
    """Builds the stores band by band; see the module docstring."""

    def __init__(self, grammar: Grammar, progress: Callable[[str], None] | None = None):
        self.grammar = g = grammar
        self.costs = grammar.prior.costs
        self.progress = progress
        self.slots, self.contexts = _contexts(g)
        n_ctx = len(self.contexts)
        self.n_probes = n_ctx * N_FACES
        self.width = -(-self.n_probes // 64)  # uint64 words of one packed bool row
        # Numbers never read the previous verdict: they live on the card contexts only.
        card_cols = [i for i, s in enumerate(self.slots) if s in ("last", "prev")]
        card_ctx, self.int_of_context = np.unique(
            self.contexts[:, card_cols], axis=0, return_inverse=True
        )
        self.int_of_context = self.int_of_context.ravel()
        self.n_int_probes = len(card_ctx) * N_FACES
        probe = np.arange(self.n_probes)
        self.int_of_probe = self.int_of_context[probe // N_FACES] * N_FACES + probe % N_FACES
        self.expand = self.n_int_probes != self.n_probes
        int_probe = np.arange(self.n_int_probes)
        card_slots = [self.slots[i] for i in card_cols]
        self.card_values = {"card": int_probe % N_FACES}
        for j, slot in enumerate(card_slots):
            self.card_values[slot] = card_ctx[int_probe // N_FACES, j]
        self.cards = tuple(c for c in CARD_VARIABLES if c in g.cards)
        # Where a rule can read a card that is not there, values can be undefined.
        self.int_undef = any((v == NO_CARD).any() for v in self.card_values.values())
        self.bool_undef = self.int_undef or g.last_play_right
        self.valid = self._pack(np.ones((1, self.n_probes), bool))[0]
        self.hash_bool = _Hasher(2 * self.width)
        self.hash_int = _Hasher(self.n_int_probes // 4)
        self.ints, self.bools = _Store("int"), _Store("bool")
        self.hyp_keys = np.zeros(0, np.uint64)  # sorted distinct verdict keys
        self._setup_leaves()
        self._setup_sets()
        self.max_behaviours = self._count_behaviours()

    # -- leaves ---------------------------------------------------------------------

    def _setup_leaves(self) -> None:
        g, costs = self.grammar, self.costs
        ops, args, a, bits = [], [], [], []
        for value in g.numbers:
            ops.append(I_LIT), args.append(value), a.append(-1), bits.append(costs.literal(value))
        for i, name in enumerate(INT_CONSTANT_NAMES):
            if name in g.constants:
                ops.append(I_CONST), args.append(i), a.append(-1)
                bits.append(costs.constant(name))
        for fi, feature in enumerate(INT_FEATURES):
            if feature in g.features:
                for ci, card in enumerate(CARD_VARIABLES):
                    if card in g.cards:
                        ops.append(I_FEAT), args.append(fi), a.append(ci)
                        bits.append(costs.feature(feature, card))
        self.int_leaves = (np.array(ops), np.array(args), np.array(a), np.array(bits))
        ops, args, a = [B_TRUE, B_FALSE], [0, 0], [-1, -1]
        bits = [costs.bool_atom("true"), costs.bool_atom("false")]
        if g.last_play_right:
            ops.append(B_LPR), args.append(0), a.append(-1)
            bits.append(costs.bool_atom("last_play_right"))
        for pi, name in enumerate(PREDICATES):
            if name in g.predicates:
                for ci, card in enumerate(CARD_VARIABLES):
                    if card in g.cards:
                        ops.append(B_PRED_CARD), args.append(pi), a.append(ci)
                        bits.append(costs.predicate(name, card))
        self.bool_leaves = (np.array(ops), np.array(args), np.array(a), np.array(bits))

    def _setup_sets(self) -> None:
        self.sets, self.set_bits, _ = _set_table(self.grammar)
        masks = np.zeros(len(self.sets), np.int64)
        for i, (values, _) in enumerate(self.sets):
            for v in values:
                masks[i] |= 1 << v
        self.set_masks = masks
        self.set_negated = np.array([neg for _, neg in self.sets], bool)

    def _count_behaviours(self) -> float:
        """How many behaviours the grammar can have at most: 2 ** (probe classes).

        Every expression is computed probe by probe from the leaves, so two probes where
        all leaves agree get the same verdict from every rule. A grammar reading only the
        suits of ``card`` and ``last`` has 16 such classes, hence 65,536 behaviours.
        """
        columns = []
        for kind, leaves in (("int", self.int_leaves), ("bool", self.bool_leaves)):
            for op in np.unique(leaves[0]):  # the row functions take one operation at a time
                ops, args, a, bits = (x[leaves[0] == op] for x in leaves)
                batch = _Batch(kind, ops, a, -1, -1, args, bits, bits)
                if kind == "int":
                    rows = self.int_rows(batch)[0].astype(np.int32)
                    columns.append(rows[:, self.int_of_probe] if self.expand else rows)
                else:
                    rows = self.bool_rows(batch)
                    flags = np.unpackbits(rows.view(np.uint8), axis=1, bitorder="little")
                    columns.append(flags.reshape(-1, self.width * 64)[:, : self.n_probes])
        leaves = np.concatenate(columns)
        classes = len(np.unique(leaves.T, axis=0))
        return 2.0**classes if classes < 1000 else math.inf

    # -- rows -----------------------------------------------------------------------

    def _pack(self, values: np.ndarray) -> np.ndarray:
        """Booleans (n, probes) to packed rows of uint64 words (bit p of the row = probe p)."""
        packed = np.packbits(values, axis=1, bitorder="little")
        pad = self.width * 8 - packed.shape[1]
        if pad:
            packed = np.concatenate([packed, np.zeros((len(packed), pad), np.uint8)], axis=1)
        return packed.view(np.uint64)

    def _bool_from_int(self, value: np.ndarray, undefined: np.ndarray | None) -> np.ndarray:
        """Unpacked (n, int probes) value/undefined to packed rows (value, undefined)."""
        if undefined is not None:
            value = value & ~undefined
        if self.expand:
            value = value[:, self.int_of_probe]
            undefined = None if undefined is None else undefined[:, self.int_of_probe]
        return self._planes(self._pack(value), None if undefined is None else self._pack(undefined))

    def _planes(self, value: np.ndarray, undefined: np.ndarray | None) -> np.ndarray:
        if not self.bool_undef:
            return value
        if undefined is None:
            undefined = np.zeros_like(value)
        return np.concatenate([value & ~undefined, undefined], axis=1)

    def _split(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        if not self.bool_undef:
            return rows, None
        return rows[:, : self.width], rows[:, self.width :]

    def _card_leaf(self, card_index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Face values (n, int probes) of the card variables, and where they are missing."""
        faces = np.stack([self.card_values[c] for c in CARD_VARIABLES if c in self.card_values])
        names = [c for c in CARD_VARIABLES if c in self.card_values]
        row = np.array([names.index(CARD_VARIABLES[i]) for i in card_index], dtype=np.int64)
        values = faces[row]
        return values, values == NO_CARD

    def int_rows(self, batch: _Batch) -> tuple[np.ndarray, np.ndarray]:
        """Value rows (n, int probes) int16 of a batch, and which candidates are valid."""
        op, n = int(batch.op[0]), len(batch.bits)
        valid = np.ones(n, bool)
        if op == I_LIT:
            return np.repeat(batch.arg[:, None], self.n_int_probes, 1).astype(np.int16), valid
        if op == I_CONST:
            values = np.array([CONSTANTS[INT_CONSTANT_NAMES[i]][1] for i in batch.arg])
            return np.repeat(values[:, None], self.n_int_probes, 1).astype(np.int16), valid
        if op == I_FEAT:
            faces, missing = self._card_leaf(batch.a)
            tables = np.stack([FEATURES[f] for f in INT_FEATURES])
            rows = tables[batch.arg[:, None], np.where(missing, 0, faces)].astype(np.int16)
            rows[missing] = UNDEF
            return rows, valid
        left = self.ints.rows(batch.a).astype(np.int32)
        undefined = (left == UNDEF) if self.int_undef else None
        if op in _INT_UFUNC:
            right = self.ints.rows(batch.b).astype(np.int32)
            out = _INT_UFUNC[op](left, right)
            if undefined is not None:
                undefined |= right == UNDEF
        elif op == I_MOD:
            out = np.mod(left, batch.arg[:, None])
        elif op == I_NEG:
            out = -left
        else:  # I_ABS
            out = np.abs(left)
        if undefined is not None:
            out[undefined] = 0
        valid = (np.abs(out) <= _INT_LIMIT).all(axis=1)  # numbers too big are dropped
        out = out.astype(np.int16)
        if undefined is not None:
            out[undefined] = UNDEF
        return out, valid

    def bool_rows(self, batch: _Batch) -> np.ndarray:
        """Packed rows (n, width or 2 * width) of a batch of bool candidates."""
        op, n = int(batch.op[0]), len(batch.bits)
        if op in (B_TRUE, B_FALSE):
            value = np.repeat(self.valid[None] * (op == B_TRUE), n, 0)
            return self._planes(value, None)
        if op == B_LPR:
            outcome = self.contexts[:, self.slots.index("outcome")]
            outcome = np.repeat(outcome, N_FACES)[None]
            value, undefined = self._pack(outcome == OUTCOME_RIGHT), self._pack(outcome == 0)
            return self._planes(np.repeat(value, n, 0), np.repeat(undefined, n, 0))
        if op == B_PRED_CARD:
            faces, missing = self._card_leaf(batch.a)
            tables = np.stack([PREDICATES_ON_FACE[p] for p in PREDICATES])
            value = tables[batch.arg[:, None], np.where(missing, 0, faces)]
            return self._bool_from_int(value, missing if self.int_undef else None)
        if op in (B_PRED_INT, B_CMP, B_IN):
            return self._bool_of_ints(op, batch)
        return self._bool_of_bools(op, batch)

    def _bool_of_ints(self, op: int, batch: _Batch) -> np.ndarray:
        x = self.ints.rows(batch.a)
        undefined = (x == UNDEF) if self.int_undef else None
        if op == B_PRED_INT:
            name = list(PREDICATES)[int(batch.arg[0])]
            value = PREDICATES_ON_INT[name](x.astype(np.int64))
        elif op == B_CMP:
            y = self.ints.rows(batch.b)
            value = _CMP_UFUNC[int(batch.arg[0])](x, y)
            if undefined is not None:
                undefined |= y == UNDEF
        else:  # B_IN: the set's bit mask has bit v set for each value v
            masks = self.set_masks[batch.arg][:, None]
            inside = (x >= 0) & (x < 63)
            value = inside & ((masks >> np.where(inside, x, 0)) & 1).astype(bool)
            value ^= self.set_negated[batch.arg][:, None]
        return self._bool_from_int(value, undefined)

    def _bool_of_bools(self, op: int, batch: _Batch) -> np.ndarray:
        va, ua = self._split(self.bools.rows(batch.a))
        if op == B_NOT:
            u = ua
            v = ~va & self.valid if u is None else ~va & ~u & self.valid
            return self._planes(v, u)
        vb, ub = self._split(self.bools.rows(batch.b))
        if op == B_IF:
            vc, uc = self._split(self.bools.rows(batch.c))
            # cond a, then b, else c: only the branch taken can be undefined
            v = (va & vb) | (~va & vc)
            u = None if ua is None else ua | (va & ub) | (~va & ~ua & uc)
        elif op == B_AND:
            v = va & vb
            u = None if ua is None else ua | (va & ub)  # a defined false settles it
        elif op == B_OR:
            v = va | vb
            u = None if ua is None else ua | (~va & ub)  # a defined true settles it
        else:  # B_BEQ: arg 0 is ==, 1 is !=
            v = va ^ vb
            if int(batch.arg[0]) == 0:
                v = ~v & self.valid
            u = None if ua is None else ua | ub
        if u is not None:
            v &= ~u
        return self._planes(v, u)

    def keys(self, kind: str, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if kind == "int":
            return self.hash_int(np.ascontiguousarray(rows).view(np.uint64))
        return self.hash_bool(rows)

    def verdict_keys(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Hashes of the verdicts (right = true or undefined) of packed bool rows."""
        value, undefined = self._split(rows)
        return self.hash_bool(value if undefined is None else value | undefined)

    # -- candidates of one band -----------------------------------------------------

    def candidates(self, band: int) -> Iterator[_Batch]:
        lo, hi = band, band + 1
        g, costs = self.grammar, self.costs
        ints, bools = self.ints, self.bools
        yield from self._leaves("int", self.int_leaves, lo, hi)
        yield from self._leaves("bool", self.bool_leaves, lo, hi)
        # numbers from numbers
        for name in g.arithmetic + g.functions:
            op = _INT_BINARY.get(name)
            if name == "abs":
                yield from self._unary("int", I_ABS, ints, costs.number_op(name), 0, lo, hi)
                continue
            mode = {"+": "le", "*": "le", "-": "ne"}.get(name, "lt")
            mirrored = 2.0 if mode != "ne" else 1.0
            cost = costs.number_op(name)
            yield from self._binary("int", op, ints, ints, cost, 0, mode, mirrored, lo, hi)
        for m in g.moduli:
            yield from self._unary("int", I_MOD, ints, costs.mod(m), m, lo, hi)
        if g.negation:
            yield from self._unary("int", I_NEG, ints, costs.negation, 0, lo, hi)
        # true/false from numbers
        for name in g.int_predicates:
            pi = list(PREDICATES).index(name)
            cost = costs.predicate(name, "int")
            yield from self._unary("bool", B_PRED_INT, ints, cost, pi, lo, hi)
        wanted = set(g.comparisons)
        for ci, name in enumerate(_CMP_OPS):
            mirror = {"<": ">", "<=": ">="}.get(name)
            if name not in wanted and mirror not in wanted:
                continue
            mode = "lt" if name in ("==", "!=") else "ne"
            # a > b is b < a: the same behaviour and bits, counted twice when both exist
            both = name in ("==", "!=") or (name in wanted and mirror in wanted)
            twice = 2.0 if both else 1.0
            cost = costs.compare(name)
            yield from self._binary("bool", B_CMP, ints, ints, cost, ci, mode, twice, lo, hi)
        if g.copies:
            yield from self._copies(lo, hi)
        if len(self.sets):
            yield from self._sets(lo, hi)
        # true/false from true/false
        if "not" in g.logic:
            yield from self._unary("bool", B_NOT, bools, costs.logic("not"), 0, lo, hi)
        # and/or read left to right: without undefined values they commute
        logic_mode, logic_twice = ("ne", 1.0) if self.bool_undef else ("lt", 2.0)
        for name, op in (("and", B_AND), ("or", B_OR)):
            if name in g.logic:
                cost = costs.logic(name)
                yield from self._binary(
                    "bool", op, bools, bools, cost, 0, logic_mode, logic_twice, lo, hi
                )
        if g.bool_equality:
            for arg, name in enumerate(_BEQ_OPS):
                cost = costs.bool_equality(name)
                yield from self._binary("bool", B_BEQ, bools, bools, cost, arg, "lt", 2.0, lo, hi)
        if g.conditionals:
            yield from self._conditionals(lo, hi)

    def _leaves(self, kind, leaves, lo, hi) -> Iterator[_Batch]:
        ops, args, a, bits = leaves
        for op in np.unique(ops):
            sel = (ops == op) & (np.floor(bits + _EPS) == lo)
            if sel.any():
                yield _Batch(
                    kind, ops[sel], a[sel], -1, -1, args[sel], bits[sel], 2.0 ** -bits[sel]
                )

    def _unary(self, kind, op, store, cost, arg, lo, hi) -> Iterator[_Batch]:
        start, stop = np.searchsorted(store.bits, [lo - cost - _EPS, hi - cost - _EPS])
        if stop > start:
            index = np.arange(start, stop)
            bits = cost + store.bits[index]
            keep = np.floor(bits + _EPS) == lo
            index, bits = index[keep], bits[keep]
            mass = 2.0**-cost * store.mass[index]
            for s in range(0, len(index), _CHUNK):
                part = slice(s, s + _CHUNK)
                yield _Batch(kind, op, index[part], -1, -1, arg, bits[part], mass[part])

    def _copies(self, lo, hi) -> Iterator[_Batch]:
        """Operations on one feature (or predicate) of two cards, the right one copied.

        As `_binary` on the feature reads (predicate reads), but the right operand costs
        `COPY_BITS`: these formulas come earlier, and their mass adds to the behaviour's.
        """
        g, costs = self.grammar, self.costs
        ints, bools = self.ints, self.bools
        # (kind, operands, op, arg, cost, symmetric, mass factor), as in `candidates`
        productions = [
            (
                "int",
                ints,
                _INT_BINARY[name],
                0,
                costs.number_op(name),
                name == "+",
                1.0 + (name == "+"),
            )
            for name in ("+", "-")
            if name in g.arithmetic
        ]
        for ci, name in enumerate(_CMP_OPS):
            mirror = {"<": ">", "<=": ">="}.get(name)
            if name in g.comparisons or mirror in g.comparisons:
                both = mirror is None or (name in g.comparisons and mirror in g.comparisons)
                productions.append(
                    ("bool", ints, B_CMP, ci, costs.compare(name), mirror is None, 1.0 + both)
                )
        if g.bool_equality:
            productions += [
                ("bool", bools, B_BEQ, arg, costs.bool_equality(name), True, 2.0)
                for arg, name in enumerate(_BEQ_OPS)
            ]
        pairs = {ints: _copy_pairs(ints, I_FEAT), bools: _copy_pairs(bools, B_PRED_CARD)}
        for kind, store, op, arg, cost, symmetric, factor in productions:
            left, right = pairs[store]
            if not symmetric:  # both orders are different formulas
                left, right = np.concatenate([left, right]), np.concatenate([right, left])
            bits = cost + store.bits[left] + COPY_BITS
            keep = np.floor(bits + _EPS) == lo
            if keep.any():
                left, right, bits = left[keep], right[keep], bits[keep]
                mass = 2.0 ** -(cost + COPY_BITS) * store.mass[left] * factor
                yield _Batch(kind, op, left, right, -1, arg, bits, mass)

    def _sets(self, lo, hi) -> Iterator[_Batch]:
        ints = self.ints
        for i, j in _pairs(ints.bits, self.set_bits, lo, hi, "all"):
            bits = ints.bits[i] + self.set_bits[j]
            keep = np.floor(bits + _EPS) == lo
            i, j, bits = i[keep], j[keep], bits[keep]
            if len(i):
                mass = 2.0 ** -self.set_bits[j] * ints.mass[i]
                yield _Batch("bool", B_IN, i, -1, -1, j, bits, mass)

    def _binary(self, kind, op, left, right, cost, arg, mode, twice, lo, hi) -> Iterator[_Batch]:
        for i, j in _pairs(left.bits, right.bits, lo - cost, hi - cost, mode):
            bits = cost + left.bits[i] + right.bits[j]
            keep = np.floor(bits + _EPS) == lo
            i, j, bits = i[keep], j[keep], bits[keep]
            if not len(i):
                continue
            mass = 2.0**-cost * left.mass[i] * right.mass[j]
            if twice != 1.0:
                mass = np.where(i != j, mass * twice, mass)
            yield _Batch(kind, op, i, j, -1, arg, bits, mass)

    def _conditionals(self, lo, hi) -> Iterator[_Batch]:
        bools = self.bools
        bits = bools.bits
        if not len(bits):
            return
        cost = self.costs.conditional
        # One band of conditions at a time: then+else must fall in a window two bits wide.
        top = int(np.floor(bits[-1] + _EPS))
        for cond_band in range(int(np.floor(bits[0] + _EPS)), top + 1):
            c0, c1 = np.searchsorted(bits, [cond_band - _EPS, cond_band + 1 - _EPS])
            if c1 == c0:
                continue
            conds = np.arange(c0, c1)
            window = (lo - cost - cond_band - 1, hi - cost - cond_band)
            for j, k in _pairs(bits, bits, *window, "ne"):
                s = bits[j] + bits[k]
                step = max(1, _CHUNK // max(1, len(j)))
                for cs in range(0, len(conds), step):
                    cpart = conds[cs : cs + step]
                    total = cost + bits[cpart][:, None] + s[None, :]
                    ci, pi = np.nonzero(np.floor(total + _EPS) == lo)
                    if not len(ci):
                        continue
                    c, t, e = cpart[ci], j[pi], k[pi]
                    mass = 2.0**-cost * bools.mass[c] * bools.mass[t] * bools.mass[e]
                    yield _Batch("bool", B_IF, c, t, e, 0, total[ci, pi], mass)

    # -- the band loop ----------------------------------------------------------------

    def run(self, max_hypotheses: int, max_bits: float) -> None:
        start = time.perf_counter()
        band = int(min(self.int_leaves[3].min(initial=99), self.bool_leaves[3].min()))
        while band < max_bits:
            pending = {"int": [], "bool": []}
            generated = 0
            for batch in self.candidates(band):
                generated += len(batch.bits)
                fresh = self._sift(batch)
                if fresh is not None:
                    pending[batch.kind].append(fresh)
            new_ints = self._settle("int", pending["int"])
            new_bools = self._settle("bool", pending["bool"])
            if self.progress:
                self.progress(
                    f"band {band:3d} bits: {generated:>11,} candidates, "
                    f"+{new_ints:,} numbers, +{new_bools:,} true/false, "
                    f"{len(self.hyp_keys):,} hypotheses, {time.perf_counter() - start:.1f} s"
                )
            if len(self.hyp_keys) >= min(max_hypotheses, self.max_behaviours):
                break
            if band > self._exhausted_after():
                break
            band += 1

    def _exhausted_after(self) -> float:
        """A band past which nothing new can appear: every one-step composite of the
        stored expressions (at most three children) costs less, and all were tried."""
        g, costs = self.grammar, self.costs
        own = [costs.number_op(name) for name in g.arithmetic + g.functions]
        own += [costs.compare(op) for op in _CMP_OPS] + [costs.bool_equality(op) for op in _BEQ_OPS]
        own += [costs.logic(op) for op in ("and", "or", "not")] + [costs.conditional]
        own += [costs.predicate(name, "int") for name in g.int_predicates] + [costs.negation]
        own += [costs.mod(m) for m in g.moduli]
        own += list(self.set_bits[-1:])
        widest = max(self.ints.bits[-1:].max(initial=0), self.bools.bits[-1:].max(initial=0))
        return max(own) + 3 * widest + 1

    def _rows(self, batch: _Batch) -> tuple[np.ndarray, np.ndarray]:
        if batch.kind == "int":
            return self.int_rows(batch)
        return self.bool_rows(batch), np.ones(len(batch.bits), bool)

    def _keys_of(self, batch: _Batch) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Which candidates are valid, and the hashes of their rows (rows not kept)."""
        n = len(batch.bits)
        step = _CHUNK if batch.kind == "bool" else _INT_CHUNK  # int rows are 16x wider
        valid, keys, keys2 = np.ones(n, bool), np.zeros(n, np.uint64), np.zeros(n, np.uint64)
        for s in range(0, n, step):
            part = slice(s, s + step)
            rows, valid[part] = self._rows(batch.take(np.arange(s, min(n, s + step))))
            keys[part], keys2[part] = self.keys(batch.kind, rows)
        return valid, keys, keys2

    def _sift(self, batch: _Batch) -> tuple | None:
        """Evaluate candidates; count those already known; return the new ones' summary."""
        valid, keys, keys2 = self._keys_of(batch)
        if not valid.all():
            batch, keys, keys2 = batch.take(valid), keys[valid], keys2[valid]
        if not len(keys):
            return None
        batch, keys, keys2 = _collapse(keys, keys2, batch)
        store = self.ints if batch.kind == "int" else self.bools
        found, index = store.find(keys)
        if found.any():
            if (store.key2[index[found]] != keys2[found]).any():
                raise HashCollision("two value vectors share a hash; change the salts")
            np.add.at(store.mass, index[found], batch.mass[found])
        new = ~found
        return batch.take(new), keys[new], keys2[new]

    def _settle(self, kind: str, pending: list) -> int:
        """Merge a band's new expressions, compute their rows and append them."""
        if not pending:
            return 0
        batch = _concat([p[0] for p in pending], kind)
        keys = np.concatenate([p[1] for p in pending])
        keys2 = np.concatenate([p[2] for p in pending])
        batch, keys, keys2 = _collapse(keys, keys2, batch)
        if not len(keys):
            return 0
        order = np.argsort(batch.bits, kind="stable")
        batch, keys, keys2 = batch.take(order), keys[order], keys2[order]
        store = self.ints if kind == "int" else self.bools
        rows = None
        # Recompute the rows of the winners, grouped by operation (and argument).
        group_key = batch.op.astype(np.int64) * 1_000_003 + np.where(
            np.isin(batch.op, (B_PRED_INT, B_CMP, B_BEQ)) if kind == "bool" else False,
            batch.arg,
            0,
        )
        step = _CHUNK if kind == "bool" else _INT_CHUNK
        for gk in np.unique(group_key):
            where = np.flatnonzero(group_key == gk)
            for s in range(0, len(where), step):
                part = where[s : s + step]
                part_rows, _ = self._rows(batch.take(part))
                if rows is None:
                    rows = np.empty((len(batch.bits), part_rows.shape[1]), part_rows.dtype)
                rows[part] = part_rows
        if kind == "bool":
            vk, vk2 = self.verdict_keys(rows)
            store.verdict_keys = np.concatenate([store.verdict_keys, vk])
            store.verdict_keys2 = np.concatenate([store.verdict_keys2, vk2])
            self.hyp_keys = np.union1d(self.hyp_keys, vk)
        store.append(batch, keys, keys2, rows)
        return len(batch.bits)


def _copy_pairs(store: _Store, leaf_op: int) -> tuple[np.ndarray, np.ndarray]:
    """Stored leaves reading one feature (or predicate) of two different cards: (i, j)."""
    leaves = np.flatnonzero(store.op == leaf_op)
    i, j = np.triu_indices(len(leaves), 1)
    i, j = leaves[i], leaves[j]
    same = (store.arg[i] == store.arg[j]) & (store.a[i] != store.a[j])
    return i[same], j[same]


def _collapse(keys, keys2, batch: _Batch):
    """Group equal keys: keep the fewest-bits formula of each, sum the masses.

    Groups come out in the order of their representatives in ``batch``, so that
    formulas of equal bits keep the order in which the productions list them.
    """
    order = np.lexsort((batch.bits, keys))
    sorted_keys = keys[order]
    first = np.ones(len(order), bool)
    first[1:] = sorted_keys[1:] != sorted_keys[:-1]
    group = np.cumsum(first) - 1
    rep = order[first]
    if (keys2[order] != keys2[rep][group]).any():
        raise HashCollision("two value vectors share a hash; change the salts")
    mass = np.bincount(group, weights=batch.mass[order])
    by_position = np.argsort(rep)
    rep = rep[by_position]
    collapsed = batch.take(rep)
    collapsed.mass = mass[by_position]
    return collapsed, keys[rep], keys2[rep]


def _pairs(bits_a, bits_b, lo, hi, mode) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Index pairs (i, j) with ``lo <= bits_a[i] + bits_b[j] < hi`` (loosely), in chunks.

    ``mode``: "all" pairs, "ne" (i != j), "lt" (i < j) or "le" (i <= j); the last three
    are for a store paired with itself. Both bit arrays are sorted.
    """
    if not len(bits_a) or not len(bits_b):
        return
    stop = np.searchsorted(bits_a, hi - bits_b[0] + _EPS)
    i = np.arange(stop)
    j_lo = np.searchsorted(bits_b, lo - bits_a[:stop] - 2 * _EPS)
    j_hi = np.searchsorted(bits_b, hi - bits_a[:stop] + 2 * _EPS)
    if mode == "lt":
        j_lo = np.maximum(j_lo, i + 1)
    elif mode == "le":
        j_lo = np.maximum(j_lo, i)
    counts = np.maximum(j_hi - j_lo, 0)
    keep = counts > 0
    i, j_lo, counts = i[keep], j_lo[keep], counts[keep]
    ends = np.cumsum(counts)
    s = 0
    while s < len(i):
        e = max(s + 1, np.searchsorted(ends, (ends[s - 1] if s else 0) + _CHUNK, side="right"))
        e = min(e, len(i))
        n = counts[s:e]
        ii = np.repeat(i[s:e], n)
        starts = np.repeat(np.cumsum(n) - n, n)
        jj = np.repeat(j_lo[s:e], n) + (np.arange(len(ii)) - starts)
        if mode == "ne":
            keep = ii != jj
            ii, jj = ii[keep], jj[keep]
        yield ii, jj
        s = e


# -- the hypothesis space -------------------------------------------------------------

_FORMAT = 3  # bump when the stored layout or the enumeration changes (3: checksums)
_PACK_BLOCK = 8192


class HypothesisSpace:
    """Distinct behaviours of a grammar's rules: their verdicts, priors and formulas.

    Hypotheses are numbered by description length, simplest first. ``table[p]`` holds
    the verdicts of all hypotheses on probe ``p`` packed 8 to a byte (hypothesis ``h``
    is bit ``h % 8`` of byte ``h // 8``), so that reading one probe for every hypothesis
    is one contiguous read. Probe ``p`` is card face ``p % 52`` in context ``p // 52``,
    whose slot values are ``contexts[p // 52]``.

    Attributes
    ----------
    grammar : Grammar
    slots : tuple of str
        The context slots the probes vary (``last``, ``prev``, ``outcome``).
    contexts : ndarray, shape (n_contexts, len(slots))
    table : ndarray of uint8, shape (n_contexts * 52, ceil(n / 8))
    log_prior : ndarray of float64, shape (n,)
        Natural log of each hypothesis's prior, normalised over the space.
    bits : ndarray of float64, shape (n,)
        Description length of each hypothesis's shortest formula.

    Examples
    --------
    >>> from eleusis_lab.rules import Context, parse
    >>> from eleusis_lab.cards import parse_cards
    >>> space = build_space("colours_suits", max_hypotheses=500, cache=False)
    >>> i = space.index_of(parse("color(card) != color(last)"))
    >>> after_7s = Context(tuple(parse_cards("7S")))
    >>> verdicts = space.verdicts(i)[space.context_index(after_7s)]
    >>> int(verdicts.sum()), bool(verdicts[parse_cards("QH")[0].face])
    (26, True)
    """

    def __init__(self, grammar, slots, contexts, table, log_prior, bits, keys, keys2, graph, info):
        self.grammar: Grammar = grammar
        self.slots: tuple[str, ...] = tuple(slots)
        self.contexts: np.ndarray = contexts
        # a plain view of a memory-mapped table: a row read costs 0.09 us, not 0.9
        self.table: np.ndarray = np.asarray(table)
        self.log_prior: np.ndarray = log_prior
        self.bits: np.ndarray = bits
        self.keys, self.keys2 = keys, keys2
        self._graph = graph  # int_graph, bool_graph (5, n) int32, hypothesis -> bool expr
        self.info: dict = info
        self._order = np.argsort(keys)
        self._context_ids = {tuple(int(v) for v in row): i for i, row in enumerate(contexts)}
        self._hasher = _Hasher(2 * (-(-self.n_probes // 64)))

    def __len__(self) -> int:
        return len(self.bits)

    def __repr__(self) -> str:
        return (
            f"<HypothesisSpace {self.grammar.name!r}: {len(self):,} hypotheses, "
            f"{self.n_probes:,} probes, up to {self.bits.max():.1f} bits>"
        )

    @property
    def n_probes(self) -> int:
        return len(self.contexts) * N_FACES

    # -- contexts and probes --------------------------------------------------------

    def context_index(self, context: Context) -> int | None:
        """The row of ``contexts`` for a game context, or None if the space has none."""
        return self._context_ids.get(tuple(context.slot(slot) for slot in self.slots))

    def verdicts(self, hypothesis: int) -> np.ndarray:
        """A hypothesis's verdicts, shape (n_contexts, 52): True where the card is right."""
        column = (self.table[:, hypothesis >> 3] >> (hypothesis & 7)) & 1
        return column.astype(bool).reshape(len(self.contexts), N_FACES)

    def index_of(self, rule: Rule) -> int | None:
        """The hypothesis with the same behaviour as ``rule``, or None if there is none.

        The rule is judged on every probe of the space; a rule reading a slot the space
        does not vary (``prev``, ``length``, runs ...) is outside it.
        """
        if not set(rule.slots) <= set(self.slots):
            return None
        return self.index_of_verdicts(rule.evaluate_keys(self.slots, self.contexts))

    def index_of_verdicts(self, right: np.ndarray) -> int | None:
        """The hypothesis with these verdicts (shape (n_contexts, 52)), or None."""
        right = np.asarray(right, dtype=bool).reshape(1, -1)
        packed = np.packbits(right, axis=1, bitorder="little")
        width = -(-self.n_probes // 64)
        packed = np.concatenate([packed, np.zeros((1, width * 8 - packed.shape[1]), np.uint8)], 1)
        words = np.concatenate([packed.view(np.uint64), np.zeros((1, width), np.uint64)], 1)
        key, key2 = self._hasher(words[:, :width])
        pos = np.searchsorted(self.keys, key[0], sorter=self._order)
        if pos == len(self.keys):
            return None
        index = int(self._order[pos])
        if self.keys[index] != key[0] or self.keys2[index] != key2[0]:
            return None
        return index

    @functools.cached_property
    def fewest_right(self) -> np.ndarray:
        """For each hypothesis, the fewest faces it calls right in any context of the space.

        Below 13 the hypothesis fails the quarter-of-the-deck test a dealer's rule must
        pass (RULES.md section 1, item 8), in a context the space holds; the space does
        not ask whether a game under the rule can reach that context.

        >>> from eleusis_lab.rules import parse
        >>> space = build_space("colours_suits", max_hypotheses=50, cache=False)
        >>> fewest = space.fewest_right
        >>> [int(fewest[space.index_of(parse(text))]) for text in ("false", "red(card)")]
        [0, 26]
        """
        fewest = np.full(len(self), N_FACES, dtype=np.uint8)
        for start in range(0, self.n_probes, N_FACES):
            rows = np.unpackbits(self.table[start : start + N_FACES], axis=1, bitorder="little")
            np.minimum(fewest, rows[:, : len(self)].sum(axis=0, dtype=np.uint8), out=fewest)
        return fewest

    # -- formulas -------------------------------------------------------------------

    def node(self, hypothesis: int) -> Node:
        """The syntax tree of a hypothesis's shortest formula."""
        int_graph, bool_graph, expr = self._graph
        return _build_node(self.grammar, (int_graph, bool_graph), "bool", int(expr[hypothesis]))

    def text(self, hypothesis: int) -> str:
        """The rule text of a hypothesis's shortest formula."""
        return str(self.node(hypothesis))

    def rule(self, hypothesis: int) -> Rule:
        """The `Rule` of a hypothesis's shortest formula."""
        return Rule(self.node(hypothesis))


def _reads_card(node: Node) -> bool:
    return any(isinstance(n, Var) and n.name == "card" for n in node.walk())


def _is_constant(node: Node) -> bool:
    return not any(isinstance(n, Var) for n in node.walk())


def _oriented(left: Node, right: Node) -> bool:
    """Whether to swap the operands of a symmetric operator: `card` first, numbers last."""

    def score(node):
        return (_reads_card(node), not _is_constant(node))

    return score(right) > score(left)


def _build_node(grammar: Grammar, graphs, kind: str, index: int) -> Node:
    graph = graphs[0] if kind == "int" else graphs[1]
    op, a, b, c, arg = (int(x) for x in graph[:, index])

    def sub(kind_, i):
        return _build_node(grammar, graphs, kind_, i)

    if kind == "int":
        if op == I_LIT:
            return Num(arg)
        if op == I_CONST:
            return Const(INT_CONSTANT_NAMES[arg])
        if op == I_FEAT:
            return Call(INT_FEATURES[arg], (Var(CARD_VARIABLES[a]),))
        if op == I_MOD:
            return BinOp("mod", sub("int", a), Num(arg))
        if op == I_NEG:
            return Neg(sub("int", a))
        if op == I_ABS:
            return Call("abs", (sub("int", a),))
        left, right = sub("int", a), sub("int", b)
        if op in (I_ADD, I_MUL, I_MIN, I_MAX) and _oriented(left, right):
            left, right = right, left
        if op in (I_MIN, I_MAX):
            return Call("min" if op == I_MIN else "max", (left, right))
        return BinOp({I_ADD: "+", I_SUB: "-", I_MUL: "*"}[op], left, right)
    if op == B_TRUE:
        return Const("true")
    if op == B_FALSE:
        return Const("false")
    if op == B_LPR:
        return Var("last_play_right")
    if op == B_PRED_CARD:
        return Call(list(PREDICATES)[arg], (Var(CARD_VARIABLES[a]),))
    if op == B_PRED_INT:
        return Call(list(PREDICATES)[arg], (sub("int", a),))
    if op == B_CMP:
        name, left, right = _CMP_OPS[arg], sub("int", a), sub("int", b)
        if _oriented(left, right):
            left, right = right, left
            name = {"<": ">", "<=": ">="}.get(name, name)
        return BinOp(name, left, right)
    if op == B_IN:
        return _set_node(grammar, sub("int", a), arg)
    if op == B_NOT:
        return Not(sub("bool", a))
    if op in (B_AND, B_OR):
        return BinOp("and" if op == B_AND else "or", sub("bool", a), sub("bool", b))
    if op == B_BEQ:
        left, right = sub("bool", a), sub("bool", b)
        if _oriented(left, right):
            left, right = right, left
        return BinOp("==" if arg == 0 else "!=", left, right)
    return If(sub("bool", a), sub("bool", b), sub("bool", c))  # B_IF


def _set_node(grammar: Grammar, item: Node, index: int) -> Node:
    sets, _, nodes = _set_table(grammar)
    values, negated = sets[index]
    return In(item, tuple(nodes[v] for v in values), negated)


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
        Reuse a space built before, in this process or on disk (see `cache_dir`).
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
        return _build(grammar, max_hypotheses, max_bits, progress)
    return _cached_space(grammar, max_hypotheses, max_bits, progress)


class CacheWarning(UserWarning):
    """A cached space did not check out on loading (see `build_space`): it is rebuilt."""


@functools.lru_cache(maxsize=8)
def _cached_space(grammar, max_hypotheses, max_bits, progress) -> HypothesisSpace:
    folder = cache_dir()
    if folder is None:
        return _build(grammar, max_hypotheses, max_bits, progress)
    name = f"{grammar.name}-{grammar.digest()}-{max_hypotheses}-{max_bits}-v{_FORMAT}"
    path = folder / "spaces" / name
    if path.exists():
        try:
            return _load(path, grammar)
        except Exception as error:  # whatever is wrong with the entry, it is rebuilt
            reason = str(error).splitlines()[0] if str(error) else type(error).__name__
            warnings.warn(
                f"hypothesis-space cache: {path}: {reason}; rebuilding it",
                CacheWarning,
                stacklevel=4,
            )
            shutil.rmtree(path, ignore_errors=True)
    space = _build(grammar, max_hypotheses, max_bits, progress)
    _save(space, path)
    return space


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


def cache_dir() -> Path | None:
    """Where spaces are cached on disk: ``$ELEUSIS_LAB_CACHE`` or ``~/.cache/eleusis-lab``.

    Setting ``ELEUSIS_LAB_CACHE`` to ``off`` (or ``0``, or empty) keeps spaces in memory only.
    """
    value = os.environ.get("ELEUSIS_LAB_CACHE")
    if value is not None:
        return None if value.strip().lower() in ("", "0", "off", "none") else Path(value)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "eleusis-lab"


def _build(grammar, max_hypotheses, max_bits, progress) -> HypothesisSpace:
    start = time.perf_counter()
    enum = _Enumerator(grammar, progress)
    enum.run(max_hypotheses, max_bits)
    bools = enum.bools
    keys, first, inverse = np.unique(bools.verdict_keys, return_index=True, return_inverse=True)
    if (bools.verdict_keys2 != bools.verdict_keys2[first][inverse]).any():
        raise HashCollision("two verdict vectors share a hash")
    mass = np.bincount(inverse.ravel(), weights=bools.mass)
    order = np.argsort(first, kind="stable")  # by bits: the stores are sorted
    order = order[bools.bits[first[order]] < max_bits][:max_hypotheses]
    rep = first[order]
    n = len(rep)
    table = np.zeros((enum.n_probes, -(-n // 8)), np.uint8)
    for s in range(0, n, _PACK_BLOCK):
        value, undefined = enum._split(bools.rows(rep[s : s + _PACK_BLOCK]))
        right = value if undefined is None else value | undefined
        bits = np.unpackbits(right.view(np.uint8), axis=1, bitorder="little")
        table[:, s // 8 : s // 8 + -(-len(right) // 8)] = np.packbits(
            bits[:, : enum.n_probes].T, axis=1, bitorder="little"
        )
    log_prior = np.log(mass[order])
    log_total = float(np.logaddexp.reduce(log_prior))
    log_prior -= log_total
    graph = (
        np.stack([enum.ints.op, enum.ints.a, enum.ints.b, enum.ints.c, enum.ints.arg]),
        np.stack([bools.op, bools.a, bools.b, bools.c, bools.arg]),
        rep.astype(np.int32),
    )
    info = {
        "grammar": asdict(grammar),
        "numbers": len(enum.ints),
        "expressions": len(bools),
        "build_seconds": round(time.perf_counter() - start, 2),
        "log_total_mass": log_total,  # natural log of the summed prior mass of the space
    }
    return HypothesisSpace(
        grammar,
        enum.slots,
        enum.contexts,
        table,
        log_prior,
        bools.bits[rep],
        keys[order],
        bools.verdict_keys2[rep],
        graph,
        info,
    )


#: The arrays of a cached space, one ``.npy`` file each; the table is memory-mapped.
_ARRAYS = (
    "contexts",
    "table",
    "log_prior",
    "bits",
    "keys",
    "keys2",
    "int_graph",
    "bool_graph",
    "expr",
)
#: The keys of a cached space's ``meta.json``.
_META_KEYS = frozenset(
    {"format", "slots", "arrays", "grammar", "numbers", "expressions", "build_seconds"}
    | {"log_total_mass"}
)


def _digest(array: np.ndarray) -> str:
    """The SHA-256 of an array's bytes (in memory order)."""
    return hashlib.sha256(np.ascontiguousarray(array).data).hexdigest()


def _arrays(space: HypothesisSpace) -> dict[str, np.ndarray]:
    int_graph, bool_graph, expr = space._graph
    return {
        "contexts": space.contexts,
        "table": space.table,
        "log_prior": space.log_prior,
        "bits": space.bits,
        "keys": space.keys,
        "keys2": space.keys2,
        "int_graph": int_graph,
        "bool_graph": bool_graph,
        "expr": expr,
    }


def _save(space: HypothesisSpace, path: Path) -> None:
    """Write a space as .npy files (memory-mappable) into ``path``, atomically, with the
    shape, dtype and SHA-256 of each array in ``meta.json``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".building-", dir=path.parent))
    try:
        checks = {}
        for name, array in _arrays(space).items():
            np.save(tmp / f"{name}.npy", array)
            shape, dtype = list(array.shape), array.dtype.str
            checks[name] = {"shape": shape, "dtype": dtype, "sha256": _digest(array)}
        meta = {"format": _FORMAT, "slots": list(space.slots), "arrays": checks, **space.info}
        (tmp / "meta.json").write_text(json.dumps(meta, indent=1))
        with contextlib.suppress(OSError):  # another process won the race: keep its copy
            os.replace(tmp, path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _load(path: Path, grammar: Grammar | None = None) -> HypothesisSpace:
    """The space cached in ``path``, checked: ``ValueError`` naming the file when its
    metadata, an array's shape, dtype or checksum, or the arrays' sizes do not fit (or
    when it holds another grammar than ``grammar``)."""
    try:
        meta = json.loads((path / "meta.json").read_text())
    except ValueError as error:
        raise ValueError(f"meta.json: not JSON ({error})") from None
    if not isinstance(meta, dict) or meta.get("format") != _FORMAT:
        raise ValueError("meta.json: not a cache entry of this version")
    if set(meta) != _META_KEYS:
        raise ValueError(f"meta.json: keys {sorted(set(meta) ^ _META_KEYS)} do not belong")
    if not isinstance(meta["arrays"], dict) or set(meta["arrays"]) != set(_ARRAYS):
        raise ValueError("meta.json: the arrays listed are not the space's")
    if grammar is None:
        try:
            grammar = Grammar(**meta["grammar"])
        except (TypeError, ValueError) as error:
            raise ValueError(f"meta.json: not a grammar ({error})") from None
    elif json.loads(json.dumps(asdict(grammar))) != meta["grammar"]:
        raise ValueError("meta.json: the entry holds another grammar")
    arrays = {}
    for name in _ARRAYS:
        expected = meta["arrays"][name]
        file = path / f"{name}.npy"
        try:
            array = np.load(file, mmap_mode="r" if name == "table" else None, allow_pickle=False)
        except (OSError, ValueError, EOFError) as error:
            raise ValueError(f"{file.name}: cannot be read ({error})") from None
        if list(array.shape) != expected["shape"] or array.dtype.str != expected["dtype"]:
            raise ValueError(
                f"{file.name}: shape {list(array.shape)} {array.dtype.str}, the metadata says"
                f" {expected['shape']} {expected['dtype']}"
            )
        if _digest(array) != expected["sha256"]:
            raise ValueError(f"{file.name}: the checksum does not match")
        arrays[name] = array
    _check_sizes(arrays)
    return HypothesisSpace(
        grammar,
        meta["slots"],
        arrays["contexts"],
        arrays["table"],  # memory-mapped: shared by every process that loads it
        arrays["log_prior"],
        arrays["bits"],
        arrays["keys"],
        arrays["keys2"],
        (arrays["int_graph"], arrays["bool_graph"], arrays["expr"]),
        {k: v for k, v in meta.items() if k not in ("format", "slots", "arrays")},
    )


def _check_sizes(arrays: dict[str, np.ndarray]) -> None:
    """The arrays of one space agree on its size, and its priors are finite."""
    n = len(arrays["log_prior"])
    if arrays["table"].shape != (len(arrays["contexts"]) * N_FACES, -(-n // 8)):
        raise ValueError(f"table.npy: shape {arrays['table'].shape} does not fit {n} hypotheses")
    for name in ("bits", "keys", "keys2", "expr"):
        if len(arrays[name]) != n:
            raise ValueError(f"{name}.npy: {len(arrays[name])} rows for {n} hypotheses")
    if not np.isfinite(arrays["log_prior"]).all():
        raise ValueError("log_prior.npy: a prior is not finite")
