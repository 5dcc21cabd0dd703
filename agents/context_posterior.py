"""The weighing of `eleusis_agents.bayes_context.ContextBayesAgent`'s cells.

A cell is one row of mismatch counts over the base space (`eleusis_agents.posterior`);
its log weights are ``log_prior + counts * log_odds(noise)``. `CellPruner` weighs a row
keeping only the rules within ``prune`` nats of its best, in as few passes over the
row as it can: a cell sees a few plays and holds thousands of rules within reach, and
a decision weighs some twenty cells, so each pass over 10**5 rules is what a decision
costs (and, on a busy machine, memory traffic is what others slow down).

What a weighing gives does not depend on what was weighed before: the candidates a
pruner keeps from one pass to the next are every rule within ``prune + slack`` nats of
the best then; a rule outside them is below the best then by more than that, and
weights only fall (counts only add up), so while the best has not fallen ``slack``
nats, it is more than ``prune`` below the best now, and weighs 0 either way.

Examples
--------
>>> mismatches = np.array([0, 1, 5, 5, 5, 5, 5, 5, 5, 5], np.uint8)
>>> weighed = CellPruner(prune=10.0, slack=5.0).weigh(mismatches, np.zeros(10, np.float32), 0.01)
>>> weighed.active.tolist(), [round(float(w), 4) for w in weighed.weights]  # 1, 1/99
([0, 1], [1.0, 0.0101])
>>> round(weighed.total, 4)
1.0101
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

__all__ = ["CellPruner", "CellWeights"]


@dataclasses.dataclass(frozen=True, eq=False)
class CellWeights:
    """A cell's weights, unnormalised, the best at 1 (from `CellPruner.weigh`).

    Attributes
    ----------
    weights : ndarray of float32
        The weights of the ``active`` rules (of every rule when ``active`` is None).
    active : ndarray of int or None
        The rules ``weights`` are of, ascending.
    total : float
        The sum of ``weights``, in float64 (numpy's pairwise sum: one order, always).
    top : float
        The log weight that weighs 1: the best's.
    """

    weights: np.ndarray
    active: np.ndarray | None
    total: float
    top: float


class CellPruner:
    """Weighs one row of mismatch counts, leaving out the rules more than ``prune`` nats
    below its best (see the module docstring); one per row, while its counts only add
    up.

    A full pass notes the rules within ``prune + slack`` nats of the best (the
    candidates); while they are fewer than an eighth of the rules, later weighings
    visit only them, until the best falls ``slack`` nats. When the rules kept are a
    quarter of the row or more, the weights are of every rule (``active`` None), those
    pruned at 0.
    """

    def __init__(self, prune: float, slack: float):
        self.prune, self.slack = prune, slack
        self.candidates: tuple[np.ndarray, float] | None = None  # (rules, best then)

    def weigh(self, mismatches: np.ndarray, log_prior: np.ndarray, noise: float) -> CellWeights:
        """The weights of the row within ``prune`` nats of its best, the best at 1."""
        odds = np.float32(math.log(noise) - math.log1p(-noise))
        if self.candidates is not None:
            near, best_then = self.candidates
            logw = _log_weights(mismatches[near], log_prior[near], odds)
            best = float(logw.max()) if len(logw) else -math.inf
            if best >= best_then - self.slack:
                return self._kept(logw, near, best)
        logw = _log_weights(mismatches, log_prior, odds)
        best = float(logw.max())
        kept = logw > np.float32(best - self.prune)
        n_kept = int(np.count_nonzero(kept))
        self.candidates = None
        # Gathering an eighth of the rules costs a third of a full pass, a quarter nearly
        # all of it: the candidates are kept when fewer than an eighth, the weights
        # apart when fewer than a quarter.
        if 8 * n_kept < len(logw):
            near = np.flatnonzero(logw > np.float32(best - self.prune - self.slack))
            self.candidates = (near, best) if 8 * len(near) < len(logw) else None
        if 4 * n_kept < len(logw):
            active = np.flatnonzero(kept)
            weights = np.exp(logw[active] - np.float32(best))
            return CellWeights(weights, active, float(weights.sum(dtype=np.float64)), best)
        return self._dense(logw, best)

    def _kept(self, logw: np.ndarray, rules: np.ndarray, best: float) -> CellWeights:
        keep = logw > np.float32(best - self.prune)
        logw = logw[keep] - np.float32(best)
        weights = np.exp(logw, out=logw)
        return CellWeights(weights, rules[keep], float(weights.sum(dtype=np.float64)), best)

    def _dense(self, logw: np.ndarray, best: float) -> CellWeights:
        """Every rule's weight, 0 for those ``prune`` nats below the best (the exp of a
        rule far below would be subnormal: a hundred times slower, and not kept)."""
        logw -= np.float32(best)
        logw = np.where(logw > np.float32(-self.prune), logw, np.float32(-np.inf))
        weights = np.exp(logw, out=logw)
        return CellWeights(weights, None, float(weights.sum(dtype=np.float64)), best)


def _log_weights(mismatches: np.ndarray, log_prior: np.ndarray, odds: np.float32) -> np.ndarray:
    """``mismatches * odds + log_prior``, float32, in two passes."""
    logw = np.multiply(mismatches, odds, dtype=np.float32)
    return np.add(logw, log_prior, out=logw)
