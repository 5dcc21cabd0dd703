"""The one-card language: the rules on the card alone that people say in one sentence.

A rule that reads only the candidate card is a set of the 52 faces: one ``uint64`` mask
(bit ``f`` is face ``f``, right). `one_card_language` enumerates, exactly, the masks of
a small probabilistic grammar of such sentences, each distinct mask once, with the
summed mass of its writings as its prior and its most probable writing as its text.
The enumerated grammar of `eleusis_lab.rules.enumerate` prices "only cards from 3 to 8"
(``rank(card) >= 3 and rank(card) <= 8``) at some 40 bits, beyond what a space of 10**5
hypotheses holds; here it is one choice among a few dozen.

The grammar
-----------
Every alternative of a production is as likely as the others (nothing tells them apart
before looking at rules), and the members of a class are uniform:

- ``S -> R | U | R and U | R or U | if red(card) then N else N``, 1/5 each: a rank set,
  a suit set, their conjunction or disjunction, or a rank set for each colour.
- ``R -> F | A | B | O | M | E``, 1/6 each: a named feature ``F`` (``odd``, ``even``,
  ``face``, ``number``, ``low``, ``high``, ``prime``, ``not prime``: 8); at most or at
  least ``A`` (``rank(card) <= k`` and ``rank(card) >= k``, k = 2..12: 22; a range of
  one rank is that rank, in ``E``);
  between ``B`` (``rank(card) >= a and rank(card) <= b``, 2 <= a < b <= 12: 55);
  outside ``O`` (``rank(card) < a or rank(card) > b``, 2 <= a <= b <= 12: 66);
  multiples ``M`` (``rank(card) mod k == 0``, k = 2..6: 5); an explicit set ``E`` of
  ``n`` ranks (``rank(card) == k``, ``rank(card) in {1, 4, 9}``), n = 1..4 with
  probability proportional to ``2 ** -n``, uniform over the ``C(13, n)`` sets.
- ``N -> F | A | B | O | M``, 1/5 each: a named rank set (a branch of a colour rule is
  not a list of ranks: that would not be one sentence).
- ``U -> one suit | a colour | not one suit | two suits``, 1/4 each (4, 2, 4 and 6
  members: ``suit(card) == hearts``, ``red(card)``, ``suit(card) != clubs``,
  ``suit(card) in {clubs, hearts}``).

No writing is ``true`` or ``false``: no rank or suit set is empty or full.

Examples
--------
>>> language = one_card_language()
>>> len(language) > 10_000, round(float(np.exp(language.log_prior).sum()), 6)
(True, 1.0)
>>> i = language.index(face_mask(RANK == 13))
>>> language.texts[i], round(float(language.bits[i]), 1)
('rank(card) == king', 9.5)
>>> language.texts[language.index(face_mask((RANK >= 3) & (RANK <= 8)))]
'rank(card) >= 3 and rank(card) <= 8'
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np

from eleusis_lab.cards import COLOR, N_FACES, RANK, SUIT, SUIT_NAMES

__all__ = ["OneCardLanguage", "face_mask", "mask_verdicts", "one_card_language"]

_BITS = np.left_shift(np.uint64(1), np.arange(N_FACES, dtype=np.uint64))
_RANKS = np.arange(1, 14)
_RANK_WORDS = {1: "ace", 11: "jack", 12: "queen", 13: "king"}


def face_mask(right) -> np.ndarray:
    """The masks of boolean verdicts over the 52 faces, shape (..., 52) -> (...,) uint64.

    >>> hex(int(face_mask(SUIT == 0)))  # clubs: faces 0..12
    '0x1fff'
    """
    right = np.asarray(right, dtype=bool)
    return np.bitwise_or.reduce(np.where(right, _BITS, np.uint64(0)), axis=-1)


def mask_verdicts(masks) -> np.ndarray:
    """The verdicts of masks over the 52 faces, shape (...,) -> (..., 52) bool.

    >>> mask_verdicts(np.uint64(5))[:4].tolist()
    [True, False, True, False]
    """
    masks = np.asarray(masks, dtype=np.uint64)
    return (masks[..., None] & _BITS) != 0


@dataclass(frozen=True)
class OneCardLanguage:
    """Distinct face sets, each with its prior and the text of its likeliest writing.

    Attributes
    ----------
    masks : ndarray of uint64, shape (n,)
        Sorted, distinct.
    log_prior : ndarray of float64
        Natural log of the summed mass of each mask's writings (they sum to 1).
    bits : ndarray of float64
        ``-log2`` of the mass of each mask's likeliest writing.
    texts : tuple of str
        That writing, in the rule language.
    """

    masks: np.ndarray
    log_prior: np.ndarray
    bits: np.ndarray
    texts: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.masks)

    def index(self, mask) -> int | None:
        """The position of a mask, or None if the language does not hold it."""
        at = int(np.searchsorted(self.masks, np.uint64(mask)))
        return at if at < len(self.masks) and self.masks[at] == np.uint64(mask) else None


class _Sets:
    """Writings of one nonterminal: masks, log probabilities and texts."""

    def __init__(self):
        self.masks, self.logp, self.texts = [], [], []

    def add(self, right, logp: float, text: str) -> None:
        self.masks.append(face_mask(right))
        self.logp.append(logp)
        self.texts.append(text)

    def union(self, *classes: _Sets) -> _Sets:
        """The alternatives of a production, each as likely: ``self`` holds them."""
        log_choice = -math.log(len(classes))
        for c in classes:
            self.masks += c.masks
            self.logp += [p + log_choice for p in c.logp]
            self.texts += c.texts
        return self

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return np.array(self.masks, dtype=np.uint64), np.array(self.logp)


def _uniform(items: list[tuple]) -> _Sets:
    sets = _Sets()
    for right, text in items:
        sets.add(right, -math.log(len(items)), text)
    return sets


def _rank_classes() -> dict[str, _Sets]:
    rank = RANK
    features = [
        (rank % 2 == 1, "odd(card)"),
        (rank % 2 == 0, "even(card)"),
        (rank >= 11, "face(card)"),
        (rank <= 10, "number(card)"),
        (rank <= 7, "low(card)"),
        (rank >= 8, "high(card)"),
        (np.isin(rank, (2, 3, 5, 7, 11, 13)), "prime(card)"),
        (~np.isin(rank, (2, 3, 5, 7, 11, 13)), "not prime(card)"),
    ]
    one_sided = [(rank <= k, f"rank(card) <= {k}") for k in range(2, 13)]
    one_sided += [(rank >= k, f"rank(card) >= {k}") for k in range(2, 13)]
    pairs = [(a, b) for a in range(2, 13) for b in range(a, 13)]
    between = [
        ((rank >= a) & (rank <= b), f"rank(card) >= {a} and rank(card) <= {b}")
        for a, b in pairs
        if a < b
    ]
    outside = [((rank < a) | (rank > b), f"rank(card) < {a} or rank(card) > {b}") for a, b in pairs]
    multiples = [(rank % k == 0, f"rank(card) mod {k} == 0") for k in range(2, 7)]
    explicit = _Sets()
    sizes = np.arange(1, 5)
    log_size = -sizes * math.log(2) - math.log((2.0**-sizes).sum())
    for n, log_n in zip(sizes, log_size, strict=True):
        combos = list(itertools.combinations(range(1, 14), int(n)))
        for combo in combos:
            if n == 1:
                text = f"rank(card) == {_RANK_WORDS.get(combo[0], combo[0])}"
            else:
                text = f"rank(card) in {{{', '.join(map(str, combo))}}}"
            explicit.add(np.isin(rank, combo), log_n - math.log(len(combos)), text)
    named = {"F": features, "A": one_sided, "B": between, "O": outside, "M": multiples}
    return {**{k: _uniform(v) for k, v in named.items()}, "E": explicit}


def _suit_sets() -> _Sets:
    suit = SUIT
    suits = [(suit == s, f"suit(card) == {name}") for s, name in enumerate(SUIT_NAMES)]
    colours = [(COLOR == 1, "red(card)"), (COLOR == 0, "black(card)")]
    not_suit = [(suit != s, f"suit(card) != {name}") for s, name in enumerate(SUIT_NAMES)]
    two = [
        (np.isin(SUIT, pair), f"suit(card) in {{{SUIT_NAMES[pair[0]]}, {SUIT_NAMES[pair[1]]}}}")
        for pair in itertools.combinations(range(4), 2)
    ]
    return _Sets().union(*(_uniform(c) for c in (suits, colours, not_suit, two)))


def _operand(text: str) -> str:
    """A writing as the operand of ``and``, ``or`` or a branch: compounds in parentheses."""
    return f"({text})" if " and " in text or " or " in text else text


def _combine(left: _Sets, right: _Sets, how: str) -> tuple[np.ndarray, np.ndarray, list]:
    """Every pair of writings joined by ``and`` / ``or`` (or ``if``: a rank set per colour)."""
    (lm, lp), (rm, rp) = left.arrays(), right.arrays()
    if how == "and":
        masks = lm[:, None] & rm[None, :]
    elif how == "or":
        masks = lm[:, None] | rm[None, :]
    else:  # if red(card) then left else right
        red = face_mask(COLOR == 1)
        masks = (lm[:, None] & red) | (rm[None, :] & ~red)
    logp = lp[:, None] + rp[None, :]
    lt, rt = [_operand(t) for t in left.texts], [_operand(t) for t in right.texts]
    if how == "if":
        texts = [f"if red(card) then {a} else {b}" for a in lt for b in rt]
    else:
        texts = [f"{a} {how} {b}" for a in lt for b in rt]
    return masks.ravel(), logp.ravel(), texts


@functools.cache
def one_card_language() -> OneCardLanguage:
    """The face sets of the one-card grammar (see the module docstring); cached."""
    classes = _rank_classes()
    ranks = _Sets().union(*classes.values())
    named = _Sets().union(*(classes[k] for k in "FABOM"))
    suits = _suit_sets()
    parts = [
        (*ranks.arrays(), ranks.texts),
        (*suits.arrays(), suits.texts),
        _combine(ranks, suits, "and"),
        _combine(ranks, suits, "or"),
        _combine(named, named, "if"),
    ]
    log_choice = -math.log(len(parts))
    masks = np.concatenate([m for m, _, _ in parts])
    logp = np.concatenate([p for _, p, _ in parts]) + log_choice
    texts = [t for _, _, ts in parts for t in ts]
    unique, inverse = np.unique(masks, return_inverse=True)
    log_prior = np.full(len(unique), -np.inf)
    np.logaddexp.at(log_prior, inverse, logp)
    # The likeliest writing of each mask (the first listed among equals).
    order = np.lexsort((np.arange(len(masks)), -logp, inverse))
    first = order[np.r_[0, np.flatnonzero(np.diff(inverse[order])) + 1]]
    return OneCardLanguage(
        masks=unique,
        log_prior=log_prior,
        bits=-logp[first] / math.log(2),
        texts=tuple(texts[i] for i in first),
    )
