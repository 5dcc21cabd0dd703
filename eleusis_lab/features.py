"""Features of a candidate card in a context, for learners over card features.

`encode` turns one `Context` and an array of candidate faces into a 2-D float array:
one row per candidate, one column per name of `FEATURE_NAMES`. `encode_many` does the
same for a training set, one (context, face) pair per row; `encode_one` for one
example, into a row given. Every feature is a small
integer (stored as float64, the dtype scikit-learn estimators work in).

The columns, in order (the first three groups depend on the candidate, the others on
the context only):

- the candidate: ``card_rank`` (1..13), ``card_suit`` (0 clubs .. 3 spades),
  ``card_color`` (1 red), ``card_parity`` (1 odd), ``card_face`` (J Q K), ``card_high``
  (8..K), ``card_prime``;
- the candidate against the last card: ``same_rank_last`` ... ``same_prime_last`` (one
  per attribute), ``higher_last`` / ``lower_last`` (candidate rank above / below),
  ``rank_diff_last`` (rank(card) - rank(last)), ``rank_diff_mod13_last``,
  ``rank_sum_last``, ``suit_diff_mod4_last`` ((suit(card) - suit(last)) mod 4), and the
  cross-attribute equalities ``suit_eq_last_rank_mod4`` (suit(card) == rank(last) mod
  4), ``rank_mod4_eq_last_suit``, ``color_eq_last_parity``, ``parity_eq_last_color``;
- the candidate against the card before the last: ``same_rank_prev``, ``same_suit_prev``,
  ``same_color_prev``, ``same_parity_prev``, ``higher_prev``, ``lower_prev``,
  ``rank_diff_mod13_prev``, ``suit_diff_mod4_prev``;
- the last card and the one before it: ``last_present`` and ``last_rank`` ...
  ``last_prime``, then ``prev_present`` and ``prev_rank`` ... ``prev_prime``;
- the last card against the one before it, the same eight relations:
  ``last_prev_same_rank`` ... ``last_prev_suit_diff_mod4``;
- the position: ``length_mod2``, ``length_mod3``, ``length_mod4`` (length of the main
  line);
- the previous verdict: ``last_play_right``, ``last_play_wrong`` (both 0 before the
  first play);
- the runs at the end of the main line (`Context.run`): ``run_rank``, ``run_suit``,
  ``run_color``, ``run_parity``, ``run_face``, ``run_high``, ``run_prime`` (0 on an empty
  line).

A missing card (``last`` on an empty main line, ``prev`` before the second card) has
``*_present`` 0 and every attribute -1; every relation involving it is -1, except
``rank_diff_last``, whose -1 is a real value, which is 0 (read it with ``last_present``).

Speed: everything that depends on faces only is tabled once at import (the attributes
of the 52 faces plus "missing", and every relation of every pair of faces), so encoding
is a few table look-ups; the part that depends on the context alone is one row,
broadcast over the candidates, and that of the last context encoded is remembered (the
players of a game encode the same contexts in turn).

Examples
--------
>>> from eleusis_lab.cards import parse_card, parse_cards
>>> from eleusis_lab.rules import Context
>>> context = Context(tuple(parse_cards("7S QH")), last_play_right=True)
>>> X = encode(context)  # all 52 faces
>>> X.shape == (52, len(FEATURE_NAMES))
True
>>> row = dict(zip(FEATURE_NAMES, encode(context, [parse_card("3D").face])[0].tolist()))
>>> row["same_color_last"], row["rank_diff_mod13_last"], row["suit_eq_last_rank_mod4"]
(1.0, 4.0, 0.0)
>>> row["prev_rank"], row["last_prev_same_color"], row["last_play_right"], row["run_color"]
(7.0, 0.0, 1.0, 1.0)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from eleusis_lab.cards import FEATURES, N_FACES
from eleusis_lab.rules.context import Context

__all__ = ["FEATURE_NAMES", "N_FEATURES", "encode", "encode_many", "encode_one", "feature_index"]

#: The card attributes, in the order of their columns (a subset of `cards.FEATURES`).
_ATTRIBUTES = ("rank", "suit", "color", "parity", "face", "high", "prime")
MISSING = N_FACES  # the table row of a card that is not there

_CARD = tuple(f"card_{a}" for a in _ATTRIBUTES)
_LAST = ("last_present", *(f"last_{a}" for a in _ATTRIBUTES))
_PREV = ("prev_present", *(f"prev_{a}" for a in _ATTRIBUTES))
# Relations of a candidate c against a reference card r, in the order of `_relations`.
_RELATIONS = (
    *(f"same_{a}" for a in _ATTRIBUTES),
    "higher",
    "lower",
    "rank_diff",
    "rank_diff_mod13",
    "rank_sum",
    "suit_diff_mod4",
    "suit_eq_{r}_rank_mod4",
    "rank_mod4_eq_{r}_suit",
    "color_eq_{r}_parity",
    "parity_eq_{r}_color",
)
# The relations kept for the card before the last (and for last against prev).
_SHORT = (
    "same_rank",
    "same_suit",
    "same_color",
    "same_parity",
    "higher",
    "lower",
    "rank_diff_mod13",
    "suit_diff_mod4",
)
_SHORT_INDEX = [_RELATIONS.index(name) for name in _SHORT]


def _relation_name(relation: str, ref: str) -> str:
    return relation.format(r=ref) if "{r}" in relation else f"{relation}_{ref}"


_REL_LAST = tuple(_relation_name(r, "last") for r in _RELATIONS)
_REL_PREV = tuple(f"{r}_prev" for r in _SHORT)
_LAST_PREV = tuple(f"last_prev_{r}" for r in _SHORT)
_POSITION = ("length_mod2", "length_mod3", "length_mod4")
_OUTCOME = ("last_play_right", "last_play_wrong")
_RUNS = tuple(f"run_{a}" for a in _ATTRIBUTES)

#: The name of every column of `encode`, in order.
FEATURE_NAMES: tuple[str, ...] = (
    _CARD + _REL_LAST + _REL_PREV + _LAST + _PREV + _LAST_PREV + _POSITION + _OUTCOME + _RUNS
)
N_FEATURES = len(FEATURE_NAMES)

# Column blocks: the first three depend on the candidate, the rest on the context only.
_END_REL_LAST = len(_CARD) + len(_REL_LAST)
_END_CANDIDATE = _END_REL_LAST + len(_REL_PREV)


def feature_index(name: str) -> int:
    """The column of feature ``name`` in the arrays of `encode`.

    >>> FEATURE_NAMES[feature_index("same_color_last")]
    'same_color_last'
    """
    try:
        return FEATURE_NAMES.index(name)
    except ValueError:
        raise KeyError(f"no feature named {name!r}") from None


# ---------------------------------------------------------------------------
# Tables over the faces, built once.
# ---------------------------------------------------------------------------

# _ATTR[face] = the 7 attributes; row MISSING is all -1.
_ATTR = np.full((N_FACES + 1, len(_ATTRIBUTES)), -1, dtype=np.int64)
for _column, _attribute in enumerate(_ATTRIBUTES):
    _ATTR[:N_FACES, _column] = FEATURES[_attribute]
# _PRESENT_ATTR[face] = present flag + attributes, the block of the last or prev card.
_PRESENT_ATTR = np.hstack([(np.arange(N_FACES + 1) < N_FACES)[:, None], _ATTR]).astype(float)


def _relations(ref: np.ndarray, cand: np.ndarray) -> np.ndarray:
    """The `_RELATIONS` of candidates against references: broadcast attribute arrays."""
    r_rank, r_suit, r_color, r_parity = (ref[..., i] for i in range(4))
    c_rank, c_suit, c_color, c_parity = (cand[..., i] for i in range(4))
    columns = [ref[..., i] == cand[..., i] for i in range(len(_ATTRIBUTES))]
    columns += [
        c_rank > r_rank,
        c_rank < r_rank,
        c_rank - r_rank,
        (c_rank - r_rank) % 13,
        c_rank + r_rank,
        (c_suit - r_suit) % 4,
        c_suit == r_rank % 4,
        c_rank % 4 == r_suit,
        c_color == r_parity,
        c_parity == r_color,
    ]
    return np.stack(np.broadcast_arrays(*columns), axis=-1).astype(np.int64)


def _join(*blocks: np.ndarray) -> np.ndarray:
    """Concatenate along the last axis, broadcasting the leading axes; as float."""
    lead = np.broadcast_shapes(*(block.shape[:-1] for block in blocks))
    return np.concatenate(
        [np.broadcast_to(block, (*lead, block.shape[-1])) for block in blocks], axis=-1
    ).astype(float)


# _REL[ref, cand] = relations of face cand against face ref (row or column MISSING: -1).
_REL = np.full((N_FACES + 1, N_FACES + 1, len(_RELATIONS)), -1, dtype=np.int64)
_REL[:N_FACES, :N_FACES] = _relations(_ATTR[:N_FACES, None, :], _ATTR[None, :N_FACES, :])
_REL[MISSING, :, _RELATIONS.index("rank_diff")] = 0
_REL_SHORT_TABLE = np.ascontiguousarray(_REL[:, :, _SHORT_INDEX]).astype(float)
# The candidate block against the last card, _CANDIDATE[last, face]: the candidate's
# attributes then its relations to the last card; one copy per encoding.
_CANDIDATE = _join(_ATTR[None, :N_FACES, :], _REL[:, :N_FACES, :])
# The same relations to the card before the last, _BEFORE[prev, face].
_BEFORE = np.ascontiguousarray(_REL_SHORT_TABLE[:, :N_FACES, :])

# The context block that depends only on (last, prev): _PAIR[last, prev].
_PAIR = _join(
    _PRESENT_ATTR[:, None, :],
    _PRESENT_ATTR[None, :, :],
    # last against prev: prev is the reference, last the "candidate".
    _REL_SHORT_TABLE.transpose(1, 0, 2),
)
_END_PAIR = _END_CANDIDATE + _PAIR.shape[-1]
_ATTR_ROWS = [tuple(row) for row in _ATTR[:N_FACES].tolist()]


# ---------------------------------------------------------------------------
# Encoding
# ---------------------------------------------------------------------------


def _runs(line: Sequence) -> list[int]:
    """`Context.run` of every attribute at once: one backward scan of the line."""
    if not line:
        return [0] * len(_ATTRIBUTES)
    target = _ATTR_ROWS[line[-1].face]
    runs = [1] * len(_ATTRIBUTES)
    alive = list(range(len(_ATTRIBUTES)))
    for index in range(len(line) - 2, -1, -1):
        row = _ATTR_ROWS[line[index].face]
        alive = [i for i in alive if row[i] == target[i]]
        if not alive:
            break
        for i in alive:
            runs[i] += 1
    return runs


# The last context encoded and its part, (main line, last_play_right, part): the players
# of a game encode the same contexts in turn, each play once per player and decision.
_last_part: tuple = ((), None, None)


def _context_part(context: Context) -> tuple[int, int, tuple]:
    """(last row, prev row, the columns after the pair block) of a context.

    Remembered for the last context: a context equal to it (a tuple comparison, card by
    card, mostly the same objects) gets the same part, read only.
    """
    global _last_part
    line, right = context.main_line, context.last_play_right
    last_line, last_right, part = _last_part
    if part is not None and last_right is right and last_line == line:
        return part
    n = len(line)
    last = line[-1].face if n else MISSING
    prev = line[-2].face if n >= 2 else MISSING
    tail = (n % 2, n % 3, n % 4, right is True, right is False, *_runs(line))
    part = (last, prev, tail)
    _last_part = (line, right, part)
    return part


def encode(context: Context, faces: Sequence[int] | np.ndarray | None = None) -> np.ndarray:
    """Features of each candidate face played in ``context``.

    Parameters
    ----------
    context : Context
        The main line and the previous verdict.
    faces : array of int, optional
        Candidate face indices (``card.face``, 0..51); all 52 faces when omitted.

    Returns
    -------
    numpy.ndarray
        Float array of shape ``(len(faces), N_FEATURES)``; columns named by
        `FEATURE_NAMES`.

    Examples
    --------
    After 7S then QH, the candidate 3D: same colour as the queen, 3 - 12 = 4 mod 13,
    and 12 mod 4 == 0 is clubs, not diamonds.

    >>> from eleusis_lab.cards import parse_card, parse_cards
    >>> from eleusis_lab.rules import Context
    >>> X = encode(Context(tuple(parse_cards("7S QH"))), [parse_card("3D").face])
    >>> names = ("same_color_last", "rank_diff_mod13_last", "suit_eq_last_rank_mod4")
    >>> X[0, [feature_index(name) for name in names]].tolist()
    [1.0, 4.0, 0.0]

    On an empty main line the last card is missing:

    >>> X = encode(Context())
    >>> X.shape, X[0, [feature_index("last_present"), feature_index("last_rank")]].tolist()
    ((52, 68), [0.0, -1.0])
    """
    last, prev, tail = _context_part(context)
    if faces is None:  # all 52 faces: the tables' rows as they are, no fancy indexing
        candidate, before, n = _CANDIDATE[last], _BEFORE[prev], N_FACES
    else:
        faces = np.asarray(faces, dtype=np.intp)
        candidate, before, n = _CANDIDATE[last, faces], _BEFORE[prev, faces], len(faces)
    out = np.empty((n, N_FEATURES))
    out[:, :_END_REL_LAST] = candidate
    out[:, _END_REL_LAST:_END_CANDIDATE] = before
    out[:, _END_CANDIDATE:_END_PAIR] = _PAIR[last, prev]
    out[:, _END_PAIR:] = tail
    return out


def encode_one(context: Context, face: int, out: np.ndarray | None = None) -> np.ndarray:
    """The features of one face in ``context``: ``encode(context, [face])[0]``, written
    into ``out`` (a row of ``N_FEATURES`` floats) if given; for one example at a time.

    >>> from eleusis_lab.cards import parse_cards
    >>> from eleusis_lab.rules import Context
    >>> context = Context(tuple(parse_cards("7S QH")))
    >>> bool((encode_one(context, 5) == encode(context, [5])[0]).all())
    True
    """
    last, prev, tail = _context_part(context)
    if out is None:
        out = np.empty(N_FEATURES)
    out[:_END_REL_LAST] = _CANDIDATE[last, face]
    out[_END_REL_LAST:_END_CANDIDATE] = _BEFORE[prev, face]
    out[_END_CANDIDATE:_END_PAIR] = _PAIR[last, prev]
    out[_END_PAIR:] = tail
    return out


def encode_many(contexts: Sequence[Context], faces: Sequence[int] | np.ndarray) -> np.ndarray:
    """Features of one candidate per context: row ``i`` is ``faces[i]`` in ``contexts[i]``.

    The same rows as stacking ``encode(contexts[i], [faces[i]])``, built in one pass;
    use it for training sets.

    Examples
    --------
    >>> from eleusis_lab.cards import parse_cards
    >>> from eleusis_lab.rules import Context
    >>> line = tuple(parse_cards("7S QH 3D"))
    >>> contexts = [Context(line[:i]) for i in range(1, 3)]
    >>> X = encode_many(contexts, [line[1].face, line[2].face])
    >>> X.shape, X[:, feature_index("same_color_last")].tolist()
    ((2, 68), [0.0, 1.0])
    >>> bool((X[1] == encode(contexts[1], [line[2].face])[0]).all())
    True
    """
    faces = np.asarray(faces, dtype=np.intp).reshape(-1)
    if len(faces) != len(contexts):
        raise ValueError(f"{len(contexts)} contexts but {len(faces)} faces: give one face each")
    parts = [_context_part(context) for context in contexts]
    last = np.array([part[0] for part in parts], dtype=np.intp)
    prev = np.array([part[1] for part in parts], dtype=np.intp)
    out = np.empty((len(faces), N_FEATURES))
    out[:, :_END_REL_LAST] = _CANDIDATE[last, faces]
    out[:, _END_REL_LAST:_END_CANDIDATE] = _BEFORE[prev, faces]
    out[:, _END_CANDIDATE:_END_PAIR] = _PAIR[last, prev]
    if parts:
        out[:, _END_PAIR:] = [part[2] for part in parts]
    return out
