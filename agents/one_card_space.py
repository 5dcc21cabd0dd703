"""A hypothesis space with the one-card language added: extra columns of its verdict table.

The Bayesian agents hold a posterior over the hypotheses of a
`eleusis_lab.rules.space.HypothesisSpace`, whose verdict table has one row per
probe (a context and a face) and one bit per hypothesis. A rule of the one-card
language (`eleusis_agents.faces`) says at every probe ``(context, face)`` what its mask says of
the face, so it fits the table as one more column. `with_one_card` returns a space
that is the base space followed by the face sets it does not already hold, with the
prior of a mixture of the two languages:

    P(h) = (1 - mass) * P_base(h) + mass * P_one_card(h)

A face set the base space holds (``red(card)``, a rule whose verdicts do not depend on
the context) is not added twice: its base hypothesis gets both masses. The agents read
the merged space exactly as the base one, so inference stays exact.

Examples
--------
>>> from eleusis_lab.rules import parse
>>> from eleusis_lab.rules.enumerate import build_space
>>> base = build_space("colours_suits", max_hypotheses=2000, cache=False)
>>> space = with_one_card(base, 0.5)
>>> len(space) > len(base), space.index_of(parse("red(card)")) == base.index_of(parse("red(card)"))
(True, True)
>>> between = space.index_of(parse("rank(card) >= 3 and rank(card) <= 8"))
>>> between >= len(base), space.text(between)
(True, 'rank(card) >= 3 and rank(card) <= 8')
>>> round(float(np.exp(space.log_prior).sum()), 6)
1.0
>>> space.text(space.index_of(parse("suit(card) == 2")))  # held by both: the sentence
'suit(card) == hearts'

"""

from __future__ import annotations

import functools
import math

import numpy as np

from eleusis_agents.faces import face_mask, mask_verdicts, one_card_language
from eleusis_lab.cards import N_FACES
from eleusis_lab.rules import Rule, parse
from eleusis_lab.rules.space import (
    HypothesisSpace,
    PackedVerdicts,
    pack_verdicts,
    packed_width,
    unpack_verdicts,
)

__all__ = ["OneCardSpace", "card_only_masks", "with_one_card"]


def card_only_masks(space: HypothesisSpace) -> tuple[np.ndarray, np.ndarray]:
    """The hypotheses of ``space`` whose verdicts are the same in every context, and
    their face masks.

    >>> from eleusis_lab.rules import parse
    >>> from eleusis_lab.rules.enumerate import build_space
    >>> space = build_space("colours_suits", max_hypotheses=50, cache=False)
    >>> which, masks = card_only_masks(space)
    >>> red = space.index_of(parse("red(card)"))
    >>> bool(red in which), space.index_of(parse("red(last)")) in which
    (True, False)
    """
    table = space.table.reshape(len(space.contexts), N_FACES, -1)
    varies = np.bitwise_or.reduce(np.bitwise_or.reduce(table ^ table[:1], axis=0), axis=0)
    which = np.flatnonzero(~unpack_verdicts(varies, len(space)))
    verdicts = space.verdict_rows(np.arange(N_FACES))[:, which]  # (52, k): the first context
    return which, face_mask(verdicts.T)


class OneCardSpace(PackedVerdicts):
    """A base space followed by the face sets of the one-card language it lacks.

    It answers as a `HypothesisSpace` (``table``, read as `PackedVerdicts`,
    ``log_prior``, ``bits``, ``fewest_right``, ``context_index``, ``index_of``,
    ``text`` ...); hypotheses
    ``0 .. len(base) - 1`` are the base space's, in its order, the rest are the added
    face sets (``masks``, ``texts``); ``held_texts`` writes the face sets the base holds
    whose sentence is likelier than the base's formula. ``bits`` is the length of a
    hypothesis's likeliest writing in the mixture's code: ``-log2(1 - mass)`` plus its
    base bits, or ``-log2(mass)`` plus its bits in the one-card grammar, whichever is
    shorter.
    """

    def __init__(self, base: HypothesisSpace, mass: float):
        if not 0 < mass < 1:
            raise ValueError(f"the one-card mass must be in (0, 1), got {mass!r}")
        self.base, self.mass = base, mass
        language = one_card_language()
        which, base_masks = card_only_masks(base)
        order = np.argsort(base_masks, kind="stable")  # the first (simplest) of equals wins
        base_masks, which = base_masks[order], which[order]
        at = np.searchsorted(base_masks, language.masks).clip(max=max(len(base_masks) - 1, 0))
        held = (
            base_masks[at] == language.masks if len(base_masks) else np.zeros(len(language), bool)
        )
        log_mass, log_rest = math.log(mass), math.log1p(-mass)
        log_prior = np.asarray(base.log_prior, dtype=np.float64) + log_rest
        bits = np.asarray(base.bits, dtype=np.float64) - math.log2(1 - mass)
        lang_bits = language.bits - math.log2(mass)
        held_at = which[at[held]]
        np.logaddexp.at(log_prior, held_at, language.log_prior[held] + log_mass)
        # A held face set is written as its likeliest writing: the sentence, when that is
        # likelier than the grammar's shortest formula (``prime(jack - (rank(card) +
        # parity(card)))`` is "from 3 to 8").
        shorter = lang_bits[held] < bits[held_at]
        self.held_texts = {
            int(h): language.texts[i]
            for h, i in zip(held_at[shorter], np.flatnonzero(held)[shorter], strict=True)
        }
        np.minimum.at(bits, held_at, lang_bits[held])
        new = ~held
        self.masks = language.masks[new]
        self.texts = tuple(t for t, keep in zip(language.texts, new, strict=True) if keep)
        self.log_prior = np.concatenate([log_prior, language.log_prior[new] + log_mass])
        self.bits = np.concatenate([bits, lang_bits[new]])
        self.table = _extend(base, self.masks)
        self.grammar, self.slots, self.contexts = base.grammar, base.slots, base.contexts
        self.info = {**base.info, "one_card_mass": mass, "one_card_added": int(new.sum())}

    def __len__(self) -> int:
        return len(self.base) + len(self.masks)

    def __repr__(self) -> str:
        return f"<OneCardSpace: {self.base!r} + {len(self.masks):,} face sets (mass {self.mass})>"

    @property
    def n_probes(self) -> int:
        return self.base.n_probes

    def context_index(self, context) -> int | None:
        return self.base.context_index(context)

    def verdicts(self, hypothesis: int) -> np.ndarray:
        """A hypothesis's verdicts, shape (n_contexts, 52): True where the card is right."""
        if hypothesis < len(self.base):
            return self.base.verdicts(hypothesis)
        row = mask_verdicts(self.masks[hypothesis - len(self.base)])
        return np.broadcast_to(row, (len(self.contexts), N_FACES)).copy()

    def index_of_verdicts(self, right: np.ndarray) -> int | None:
        """The hypothesis with these verdicts (shape (n_contexts, 52)), or None."""
        found = self.base.index_of_verdicts(right)
        if found is not None:
            return found
        right = np.asarray(right, dtype=bool).reshape(len(self.contexts), N_FACES)
        if not (right == right[:1]).all():
            return None
        mask = face_mask(right[0])
        at = int(np.searchsorted(self.masks, mask))
        found = at < len(self.masks) and self.masks[at] == mask
        return len(self.base) + at if found else None

    def index_of(self, rule: Rule) -> int | None:
        """The hypothesis with the same behaviour as ``rule``, or None if there is none."""
        if not set(rule.slots) <= set(self.slots):
            return None
        return self.index_of_verdicts(rule.evaluate_keys(self.slots, self.contexts))

    @functools.cached_property
    def fewest_right(self) -> np.ndarray:
        """The fewest faces each hypothesis calls right in a context of the space."""
        added = mask_verdicts(self.masks).sum(axis=1).astype(np.uint8)
        return np.concatenate([self.base.fewest_right, added])

    def text(self, hypothesis: int) -> str:
        """The rule text of a hypothesis's likeliest writing."""
        if hypothesis >= len(self.base):
            return self.texts[hypothesis - len(self.base)]
        return self.held_texts.get(hypothesis) or self.base.text(hypothesis)

    def rule(self, hypothesis: int) -> Rule:
        return parse(self.text(hypothesis))

    def __getattr__(self, name: str):  # whatever else a space has: the base's
        if name == "base":
            raise AttributeError(name)
        return getattr(self.base, name)


def _extend(base: HypothesisSpace, masks: np.ndarray) -> np.ndarray:
    """The base verdict table with one more column per mask (a face set's verdict at a
    probe is its bit for the probe's face, whatever the context)."""
    n, n_contexts = len(base), len(base.contexts)
    added = mask_verdicts(masks).T  # (52, m): face x added hypothesis
    start = base.bit_position(n)
    if start.shift == 0:  # the added columns start on a byte: pack them once for all contexts
        packed = pack_verdicts(added)
        block = np.broadcast_to(packed, (n_contexts, *packed.shape)).reshape(-1, packed.shape[1])
        return np.ascontiguousarray(np.concatenate([base.table[:, : start.byte], block], axis=1))
    table = np.empty((n_contexts * N_FACES, packed_width(n + len(masks))), dtype=np.uint8)
    for c in range(n_contexts):
        rows = slice(c * N_FACES, (c + 1) * N_FACES)
        table[rows] = pack_verdicts(np.concatenate([base.verdict_rows(rows), added], axis=1))
    return table


@functools.lru_cache(maxsize=8)
def with_one_card(space: HypothesisSpace, mass: float) -> OneCardSpace | HypothesisSpace:
    """``space`` with the one-card language added at prior ``mass`` (0: ``space`` itself).

    Cached per space object and mass, as `build_space` caches spaces.
    """
    return space if mass == 0 else OneCardSpace(space, mass)
