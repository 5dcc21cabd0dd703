"""The enumerator: a grammar's rules bottom-up, one formula per behaviour, most probable first.

`enumerate_space` enumerates the rules of a `Grammar` bottom-up in order of description
length (``eleusis_lab.rules.complexity.description_bits``, the grammar prior) and keeps
one *hypothesis* per behaviour, until it holds ``max_hypotheses`` of them, as a
`HypothesisSpace`. `eleusis_lab.rules.enumerate.build_space` is the entry point: it
checks its arguments and caches spaces (`eleusis_lab.rules.space_cache`).

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
tracked per probe with the language's left-to-right ``and``/``or``/``if``. What each
production costs comes from the grammar's prior (`ProductionPrior.costs`); the
formulas kept are the columns of a formula graph (`eleusis_lab.rules.formula_graph`).

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
vectors are told apart by a 64-bit hash, checked against a second one
(`eleusis_lab.rules.row_hash`): a collision (about one chance in a million for a
million-hypothesis build) raises `HashCollision` rather than merge two behaviours. The
``standard`` grammar gives 10**4 hypotheses (up to 30.7 bits) in about 1 s, 10**5
(38.6 bits) in 8 s and 10**6 (44.4 bits) in about a minute with 2.3 GB at the peak;
the verdict table of 10**6 takes 322 MB.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict

import numpy as np

from eleusis_lab.cards import FEATURES, N_FACES
from eleusis_lab.rules.ast import CONSTANTS, INT_FEATURES, PREDICATES
from eleusis_lab.rules.context import NO_CARD, OUTCOME_NONE, OUTCOME_RIGHT, OUTCOME_WRONG
from eleusis_lab.rules.evaluate import PREDICATES_ON_FACE, PREDICATES_ON_INT
from eleusis_lab.rules.formula_graph import (
    B_AND,
    B_BEQ,
    B_CMP,
    B_FALSE,
    B_IF,
    B_IN,
    B_LPR,
    B_NOT,
    B_OR,
    B_PRED_CARD,
    B_PRED_INT,
    B_TRUE,
    BEQ_OPS,
    CMP_OPS,
    I_ABS,
    I_ADD,
    I_CONST,
    I_FEAT,
    I_LIT,
    I_MAX,
    I_MIN,
    I_MOD,
    I_MUL,
    I_NEG,
    I_SUB,
    literal_sets,
)
from eleusis_lab.rules.grammar import INT_CONSTANT_NAMES, Grammar
from eleusis_lab.rules.prior import CARDS, COPY_BITS
from eleusis_lab.rules.row_hash import HashCollision, RowHasher
from eleusis_lab.rules.space import HypothesisSpace, packed_table

__all__ = ["enumerate_space"]

_PACK_BLOCK = 8192  # hypotheses packed into the table at once

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


# -- the enumerator -------------------------------------------------------------------

UNDEF = np.int16(np.iinfo(np.int16).min)  # an int that reads a card that is not there
_INT_LIMIT = int(np.iinfo(np.int16).max)
_EPS = 1e-9
_CHUNK = 1 << 15  # candidates evaluated at once
_INT_CHUNK = 1 << 11

_INT_BINARY = {"+": I_ADD, "-": I_SUB, "*": I_MUL, "min": I_MIN, "max": I_MAX}
_INT_UFUNC = {
    I_ADD: np.add,
    I_SUB: np.subtract,
    I_MUL: np.multiply,
    I_MIN: np.minimum,
    I_MAX: np.maximum,
}
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
        self.cards = tuple(c for c in CARDS if c in g.cards)
        # Where a rule can read a card that is not there, values can be undefined.
        self.int_undef = any((v == NO_CARD).any() for v in self.card_values.values())
        self.bool_undef = self.int_undef or g.last_play_right
        self.valid = self._pack(np.ones((1, self.n_probes), bool))[0]
        self.hash_bool = RowHasher(2 * self.width)
        self.hash_int = RowHasher(self.n_int_probes // 4)
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
                for ci, card in enumerate(CARDS):
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
                for ci, card in enumerate(CARDS):
                    if card in g.cards:
                        ops.append(B_PRED_CARD), args.append(pi), a.append(ci)
                        bits.append(costs.predicate(name, card))
        self.bool_leaves = (np.array(ops), np.array(args), np.array(a), np.array(bits))

    def _setup_sets(self) -> None:
        self.sets, self.set_bits, _ = literal_sets(self.grammar)
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
        faces = np.stack([self.card_values[c] for c in CARDS if c in self.card_values])
        names = [c for c in CARDS if c in self.card_values]
        row = np.array([names.index(CARDS[i]) for i in card_index], dtype=np.int64)
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
        for ci, name in enumerate(CMP_OPS):
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
            for arg, name in enumerate(BEQ_OPS):
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
        for ci, name in enumerate(CMP_OPS):
            mirror = {"<": ">", "<=": ">="}.get(name)
            if name in g.comparisons or mirror in g.comparisons:
                both = mirror is None or (name in g.comparisons and mirror in g.comparisons)
                productions.append(
                    ("bool", ints, B_CMP, ci, costs.compare(name), mirror is None, 1.0 + both)
                )
        if g.bool_equality:
            productions += [
                ("bool", bools, B_BEQ, arg, costs.bool_equality(name), True, 2.0)
                for arg, name in enumerate(BEQ_OPS)
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
        own += [costs.compare(op) for op in CMP_OPS] + [costs.bool_equality(op) for op in BEQ_OPS]
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


# -- the space ----------------------------------------------------------------------


def enumerate_space(
    grammar: Grammar,
    max_hypotheses: int,
    max_bits: float,
    progress: Callable[[str], None] | None = None,
) -> HypothesisSpace:
    """The ``max_hypotheses`` most probable behaviours of ``grammar`` whose shortest
    formula has fewer than ``max_bits`` bits, enumerated (see the module docstring);
    `eleusis_lab.rules.enumerate.build_space` checks its arguments and caches the space.

    >>> from eleusis_lab.rules.grammar import GRAMMARS
    >>> space = enumerate_space(GRAMMARS["colours_suits"], 100, 64.0)
    >>> len(space), space.text(2)
    (100, 'red(card)')
    """
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

    def verdicts():  # (probes, hypotheses) blocks: right = true or undefined
        for s in range(0, n, _PACK_BLOCK):
            value, undefined = enum._split(bools.rows(rep[s : s + _PACK_BLOCK]))
            right = value if undefined is None else value | undefined
            bits = np.unpackbits(right.view(np.uint8), axis=1, bitorder="little")
            yield bits[:, : enum.n_probes].T

    table = packed_table(enum.n_probes, n, verdicts())
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
