"""A hypothesis space: distinct behaviours of a grammar's rules, and their verdict table.

`eleusis_lab.rules.enumerate.build_space` builds a `HypothesisSpace`: one hypothesis per
behaviour, numbered by description length, with its prior, its shortest formula and
its verdict on every *probe* (a context the grammar can tell apart, times the 52 faces
of the candidate card).

The verdict table is packed: ``table[p]`` holds the verdicts of all hypotheses on probe
``p``, 8 to a byte, hypothesis ``h`` being bit ``h % 8`` of byte ``h // 8``, so that
reading one probe for every hypothesis is one contiguous read. This module is the one
place that layout is written out: the agents read the table through `PackedVerdicts`
(`verdict_bits` for some hypotheses, `verdict_rows` for all of them; `agreeing` gives
those consistent with the verdicts heard, for `eleusis_lab.rules.learnability`), and
whatever builds or scans a table whole through `pack_verdicts`, `unpack_verdicts` and
`packed_width`.

Examples
--------
>>> from eleusis_lab.rules import parse
>>> from eleusis_lab.rules.enumerate import build_space
>>> space = build_space("colours_suits", max_hypotheses=500, cache=False)
>>> rules = [space.index_of(parse(t)) for t in ("black(card)", "color(card) != color(last)")]
>>> probes = np.array([0, 13])  # the ace of clubs, of diamonds, after the first last card
>>> str(space.contexts[0]), space.verdict_bits(probes[:, None], rules).tolist()
('[0]', [[True, False], [False, True]])
>>> space.verdict_rows(probes).shape  # every hypothesis
(2, 500)
"""

from __future__ import annotations

import abc
import functools
from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

from eleusis_lab.cards import N_FACES
from eleusis_lab.rules.ast import Node
from eleusis_lab.rules.context import Context
from eleusis_lab.rules.formula_graph import formula_node
from eleusis_lab.rules.grammar import Grammar
from eleusis_lab.rules.row_hash import RowHasher
from eleusis_lab.rules.rule import Rule

__all__ = [
    "BitPosition",
    "HypothesisSpace",
    "PackedVerdicts",
    "pack_verdicts",
    "packed_table",
    "packed_width",
    "unpack_verdicts",
]


# -- the packed layout ----------------------------------------------------------------


class BitPosition(NamedTuple):
    """Where hypotheses sit in a row of a packed verdict table: hypothesis ``h`` is bit
    ``shift`` (``h % 8``, uint8) of byte ``byte`` (``h // 8``); ``mask`` is that bit,
    ``1 << shift`` (uint8)."""

    byte: np.ndarray
    shift: np.ndarray
    mask: np.ndarray


def packed_width(n: int) -> int:
    """The bytes of one row of a packed table of ``n`` hypotheses: ``ceil(n / 8)``.

    >>> packed_width(8), packed_width(9)
    (1, 2)
    """
    return -(-n // 8)


def pack_verdicts(right: np.ndarray) -> np.ndarray:
    """Verdicts of ``n`` hypotheses, shape (..., n), as packed rows (..., ceil(n / 8)) uint8;
    the bits past the last hypothesis are 0.

    >>> pack_verdicts(np.array([True, False, False, True, False, False, False, False, True]))
    array([9, 1], dtype=uint8)
    """
    return np.packbits(right, axis=-1, bitorder="little")


def unpack_verdicts(packed: np.ndarray, n: int) -> np.ndarray:
    """Packed rows (..., width) back to the verdicts of their first ``n`` hypotheses,
    (..., n) bool; ``n`` may reach ``8 * width`` (the padding's bits are False).

    >>> unpack_verdicts(np.array([9, 1], dtype=np.uint8), 9).nonzero()[0].tolist()
    [0, 3, 8]
    """
    return np.unpackbits(packed, axis=-1, bitorder="little")[..., :n].view(bool)


def packed_table(n_probes: int, n: int, blocks: Iterable[np.ndarray]) -> np.ndarray:
    """The packed table of ``n`` hypotheses from their verdicts, given as blocks of
    consecutive hypotheses (n_probes, k) in order, every block but the last one a
    multiple of 8 wide; each block is packed as it comes.

    >>> blocks = [np.eye(3, 8, dtype=bool), np.ones((3, 2), dtype=bool)]
    >>> packed_table(3, 10, blocks)
    array([[1, 3],
           [2, 3],
           [4, 3]], dtype=uint8)
    """
    table = np.zeros((n_probes, packed_width(n)), np.uint8)
    start = 0
    for block in blocks:
        if start % 8:
            raise ValueError("only the last block may be narrower than a multiple of 8")
        width = block.shape[1]
        table[:, start // 8 : start // 8 + packed_width(width)] = pack_verdicts(block)
        start += width
    if start != n:
        raise ValueError(f"the blocks hold {start} hypotheses, not {n}")
    return table


#: The eight float32 verdicts (1.0 right, 0.0 wrong) of each packed byte, as one 32-byte
#: item, so that a row of bytes becomes its floats in one `np.take`.
_BYTE_FLOATS = (
    np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little")
    .astype(np.float32)
    .view(np.dtype((np.void, 32)))
    .reshape(256)
)


class PackedVerdicts(abc.ABC):
    """Reads of a packed verdict table (see the module docstring), for a space with a
    ``table`` (uint8, one row per probe), ``contexts`` and a length (its hypotheses).

    `HypothesisSpace` and the agents' `eleusis_agents.one_card_space.OneCardSpace` both read
    their tables this way. The reads broadcast like numpy indexing: a loop over probes
    computes the `bit_position` of its hypotheses once and passes it to `verdict_bits`.

    Examples
    --------
    >>> from eleusis_lab.rules import parse
    >>> from eleusis_lab.rules.enumerate import build_space
    >>> space = build_space("colours_suits", max_hypotheses=500, cache=False)
    >>> at = space.bit_position(np.arange(10))
    >>> int(at.byte[9]), int(at.shift[9])
    (1, 1)
    >>> said = space.verdict_bits(np.arange(52)[:, None], at)  # 52 probes x 10 hypotheses
    >>> said.shape, said.dtype.name
    ((52, 10), 'bool')
    >>> bool((said == space.verdict_rows(np.arange(52), stop=10)).all())
    True
    """

    table: np.ndarray
    contexts: np.ndarray

    @abc.abstractmethod
    def __len__(self) -> int:
        """The number of hypotheses (the table's rows have room for `padded_size`)."""

    @staticmethod
    def bit_position(hypotheses) -> BitPosition:
        """The byte and the bit of each of ``hypotheses`` in a table row (`BitPosition`)."""
        hypotheses = np.asarray(hypotheses)
        shift = (hypotheses & 7).astype(np.uint8)
        return BitPosition(hypotheses >> 3, shift, np.left_shift(np.uint8(1), shift))

    @property
    def padded_size(self) -> int:
        """The hypotheses a table row has room for: ``len(self)`` rounded up to a whole
        byte. Arrays over the hypotheses of this length line up with `verdict_rows`
        read to ``stop=padded_size``; the padding's verdicts are False."""
        return 8 * self.table.shape[1]

    def verdict_bits(self, probes, hypotheses) -> np.ndarray:
        """The verdicts of ``hypotheses`` on ``probes``, bool: True where the card is right.

        ``probes`` (probe numbers, or a slice) and ``hypotheses`` (hypothesis numbers, or
        their `bit_position`) broadcast together as numpy indices do: probes ``(p, 1)``
        and hypotheses ``(h,)`` give ``(p, h)``.
        """
        if not isinstance(hypotheses, BitPosition):
            hypotheses = self.bit_position(hypotheses)
        byte = hypotheses.byte
        if np.ndim(byte) == 1 and self._one_per_row(probes, len(byte)):
            # the probes' rows read whole, then their bytes: 3-4 times a 2-D gather's speed
            rows = self.table[probes if np.ndim(probes) == 0 else np.asarray(probes)[..., 0]]
            packed = np.take(rows, byte, axis=-1)
        else:
            packed = self.table[probes, byte]
        return np.asarray((packed >> hypotheses.shift) & 1).view(bool)

    def _one_per_row(self, probes, n_hypotheses: int) -> bool:
        """Whether ``probes`` names one probe per row of the result (a probe, or an
        array of shape (..., 1)) and reading rows whole costs less than a gather: a
        row's bytes are not many more than the hypotheses read from it."""
        if isinstance(probes, slice) or (np.ndim(probes) and np.shape(probes)[-1] != 1):
            return False
        return np.ndim(probes) == 0 or self.table.shape[1] <= 16 * n_hypotheses

    def verdict_floats_at(self, probes, hypotheses) -> np.ndarray:
        """The verdicts of ``hypotheses`` (numbers, or their `bit_position`) on each of
        ``probes`` (a probe or a 1-D array), float32 ones and zeros, shape
        ``(*probes.shape, len(hypotheses))``: the operand of a product with their weights.

        The same values as ``verdict_bits(probes[..., None], hypotheses)`` cast, with a
        pass fewer: each bit is masked (`BitPosition.mask`) rather than shifted down.

        >>> from eleusis_lab.rules.enumerate import build_space
        >>> space = build_space("colours_suits", max_hypotheses=500, cache=False)
        >>> some = np.array([3, 9, 200])
        >>> floats = space.verdict_floats_at(np.array([0, 13]), some)
        >>> floats.dtype.name, bool((floats == space.verdict_bits([[0], [13]], some)).all())
        ('float32', True)
        """
        if not isinstance(hypotheses, BitPosition):
            hypotheses = self.bit_position(hypotheses)
        probes = np.asarray(probes)
        if self._one_per_row(probes[..., None], len(hypotheses.byte)):
            packed = np.take(self.table[probes], hypotheses.byte, axis=-1)
        else:  # few hypotheses: their bytes alone
            packed = self.table[probes[..., None], hypotheses.byte]
        np.bitwise_and(packed, hypotheses.mask, out=packed)
        return packed.astype(bool).astype(np.float32)

    def verdict_rows(self, probes, start: int = 0, stop: int | None = None) -> np.ndarray:
        """The verdicts of the hypotheses ``start`` to ``stop - 1`` (by default all of them)
        on ``probes`` (a probe number, an array of them, or a slice), bool, shape
        ``(*probes, stop - start)``. ``stop`` may reach `padded_size`."""
        stop = len(self) if stop is None else stop
        skip = start & 7  # the bits of the first byte before ``start``
        packed = self.table[probes, start >> 3 : packed_width(stop)]
        return unpack_verdicts(packed, skip + stop - start)[..., skip:]

    def verdict_floats(self, probes, stop: int | None = None) -> np.ndarray:
        """`verdict_rows` from hypothesis 0, as float32 ones and zeros, C-contiguous: the
        operand of a product with the hypotheses' weights.

        Each packed byte becomes its eight floats in one gather (`_BYTE_FLOATS`),
        without the bool row and the cast of `verdict_rows(...).astype(np.float32)`,
        whose values it holds to the bit.

        >>> from eleusis_lab.rules.enumerate import build_space
        >>> space = build_space("colours_suits", max_hypotheses=500, cache=False)
        >>> floats = space.verdict_floats([0, 13], stop=20)
        >>> floats.dtype.name, floats.shape
        ('float32', (2, 20))
        >>> bool((floats == space.verdict_rows([0, 13], stop=20)).all())
        True
        """
        stop = len(self) if stop is None else stop
        packed = self.table[probes, : packed_width(stop)]
        floats = np.take(_BYTE_FLOATS, packed).view(np.float32)[..., :stop]
        return np.ascontiguousarray(floats)

    def verdicts(self, hypothesis: int) -> np.ndarray:
        """A hypothesis's verdicts, shape (n_contexts, 52): True where the card is right."""
        return self.verdict_bits(slice(None), hypothesis).reshape(len(self.contexts), N_FACES)

    def agreeing(self, probes, right, stop: int | None = None) -> np.ndarray:
        """Which of the hypotheses ``0 .. stop - 1`` (by default all of them) give every
        verdict heard: ``right[i]`` on ``probes[i]``. Bool, shape ``(stop,)``; with no
        probes, all True.

        One AND over the packed rows of the probes, each flipped where the verdict was
        wrong: the version space of a learner who heard these verdicts.

        >>> from eleusis_lab.rules.enumerate import build_space
        >>> space = build_space("colours_suits", max_hypotheses=3, cache=False)
        >>> [space.text(h) for h in range(3)]
        ['true', 'false', 'red(card)']
        >>> space.agreeing([0, 13], [False, True]).tolist()  # AC wrong, AD right
        [False, False, True]
        """
        stop = len(self) if stop is None else stop
        rows = self.table[np.asarray(probes, dtype=np.intp), : packed_width(stop)]
        flips = np.where(np.asarray(right, dtype=bool), 0, 0xFF).astype(np.uint8)
        agree = np.bitwise_and.reduce(rows ^ flips[:, None], axis=0, initial=0xFF)
        return unpack_verdicts(agree, stop)


# -- the hypothesis space -------------------------------------------------------------


class HypothesisSpace(PackedVerdicts):
    """Distinct behaviours of a grammar's rules: their verdicts, priors and formulas.

    Hypotheses are numbered by description length, simplest first. ``table[p]`` holds
    the verdicts of all hypotheses on probe ``p``, packed (see the module docstring and
    `PackedVerdicts`, which reads it). Probe ``p`` is card face ``p % 52`` in context
    ``p // 52``, whose slot values are ``contexts[p // 52]``.

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
    keys, keys2 : ndarray of uint64, shape (n,)
        The two hashes of each hypothesis's verdicts (`eleusis_lab.rules.row_hash`).
    graph : tuple
        The formulas: the int and the bool graphs of the enumeration, (5, m) int32 each
        (`eleusis_lab.rules.formula_graph`), and each hypothesis's bool column, (n,).
    info : dict
        How the space was built: its grammar, the expressions it kept, seconds.

    Examples
    --------
    >>> from eleusis_lab.rules import Context, parse
    >>> from eleusis_lab.rules.enumerate import build_space
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
        self.graph = graph  # int_graph, bool_graph (5, m) int32, hypothesis -> bool column
        self.info: dict = info
        self._order = np.argsort(keys)
        self._context_ids = {tuple(int(v) for v in row): i for i, row in enumerate(contexts)}
        self._hasher = RowHasher(2 * (-(-self.n_probes // 64)))

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
        return self.context_row(tuple(context.slot(slot) for slot in self.slots))

    def context_row(self, values: tuple[int, ...]) -> int | None:
        """The row of ``contexts`` holding these slot values (in `slots` order), or None.

        >>> from eleusis_lab.rules.enumerate import build_space
        >>> space = build_space("verdict", max_hypotheses=50, cache=False)
        >>> space.slots, space.context_row((12, 1)), space.contexts[space.context_row((12, 1))]
        (('last', 'outcome'), 37, array([12,  1]))
        """
        return self._context_ids.get(values)

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
        # the key of a behaviour hashes its verdicts on the probes, 64 probes to a word
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
        >>> from eleusis_lab.rules.enumerate import build_space
        >>> space = build_space("colours_suits", max_hypotheses=50, cache=False)
        >>> fewest = space.fewest_right
        >>> [int(fewest[space.index_of(parse(text))]) for text in ("false", "red(card)")]
        [0, 26]
        """
        fewest = np.full(len(self), N_FACES, dtype=np.uint8)
        for start in range(0, self.n_probes, N_FACES):
            rows = self.verdict_rows(slice(start, start + N_FACES))
            np.minimum(fewest, rows.sum(axis=0, dtype=np.uint8), out=fewest)
        return fewest

    # -- formulas -------------------------------------------------------------------

    def node(self, hypothesis: int) -> Node:
        """The syntax tree of a hypothesis's shortest formula."""
        int_graph, bool_graph, expr = self.graph
        return formula_node(self.grammar, (int_graph, bool_graph), "bool", int(expr[hypothesis]))

    def text(self, hypothesis: int) -> str:
        """The rule text of a hypothesis's shortest formula."""
        return str(self.node(hypothesis))

    def rule(self, hypothesis: int) -> Rule:
        """The `Rule` of a hypothesis's shortest formula."""
        return Rule(self.node(hypothesis))
