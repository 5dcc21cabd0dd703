"""The posterior of the Bayesian agents over a hypothesis space, kept as mismatch counts.

`eleusis_agents.bayes.BayesAgent` and `eleusis_agents.bayes_context.ContextBayesAgent`
both judge the hypotheses of a space (`eleusis_lab.rules.space.PackedVerdicts`) by
the same likelihood: the dealer's verdict disagrees with a hypothesis with
probability ``noise``. After ``n`` plays, ``m_h`` of which hypothesis ``h`` judged
differently from the dealer, its log posterior is, up to a constant,

    log prior_h + m_h log noise + (n - m_h) log (1 - noise)

Every hypothesis shares ``(1 - noise) ** n``, so the weights here leave it out:
``log prior_h + m_h * log_odds(noise)``, in float32. This module is the one
implementation of that posterior, for one row of counts (`BayesAgent`) or many rows
over the same space (`ContextBayesAgent`'s cells):

- `count_mismatches` adds a play to the counts, from the verdict table's row;
- `log_weights` and `normalise` give a row's log evidence and posterior;
- `Pruner` weighs a row leaving out the hypotheses far below the best
  (`PrunedWeights`);
- `weight_calling_right` sums the weights of the hypotheses that call probes right;
- `Leaders` bounds the probability of the best hypothesis from a few of them, so that
  it need not be weighed after every play to know it is still below a threshold;
- `LaplaceFallback` is the "none of the above" hypothesis both agents add.

It reads the verdict table only through the space's `PackedVerdicts` methods.

Examples
--------
Three hypotheses, a wrong ace of clubs and a right ace of diamonds (probes 0 and 13):

>>> from eleusis_lab.rules.enumerate import build_space
>>> space = build_space("colours_suits", max_hypotheses=3, cache=False)
>>> [space.text(h) for h in range(3)]
['true', 'false', 'red(card)']
>>> mismatches = np.zeros(len(space), np.uint16)
>>> count_mismatches(mismatches, space, probe=0, right=False)
>>> count_mismatches(mismatches, space, probe=13, right=True)
>>> mismatches.tolist()
[1, 1, 0]
>>> uniform = np.log(np.full(3, 1 / 3, np.float32))
>>> log_evidence, posterior = normalise(log_weights(mismatches, uniform, noise=0.1))
>>> [round(float(p), 3) for p in posterior]  # 1/9 : 1/9 : 1, the odds of one mismatch
[0.091, 0.091, 0.818]
>>> round(math.exp(log_evidence), 4)  # (1/9 + 1/9 + 1) / 3
0.4074
>>> round(float(weight_calling_right(space, 13, posterior)), 3)  # true and red(card)
0.909
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np

from eleusis_lab.rules.space import BitPosition, PackedVerdicts

__all__ = [
    "LaplaceFallback",
    "Leaders",
    "PrunedWeights",
    "Pruner",
    "count_mismatches",
    "exp_in_place",
    "heaviest_weights",
    "log_odds",
    "log_weights",
    "normalise",
    "weight_calling_right",
]


def log_odds(noise: float) -> float:
    """What one mismatch adds to a hypothesis's log weight: ``log(noise / (1 - noise))``.

    >>> round(log_odds(0.1), 4) == round(math.log(1 / 9), 4)
    True
    """
    return math.log(noise) - math.log1p(-noise)


def count_mismatches(
    mismatches: np.ndarray,
    space: PackedVerdicts,
    probe: int,
    right: bool,
    rows=None,
    out: np.ndarray | None = None,
) -> np.ndarray | None:
    """Add one play to ``mismatches``: one for each hypothesis whose verdict on ``probe``
    is not ``right``; into ``out`` instead, if given (1-D counts only), returned.

    Parameters
    ----------
    mismatches : ndarray of uint16, shape (size,) or (n_rows, size)
        The counts of hypotheses ``0 .. size - 1`` (``size`` up to the space's
        `padded_size`, whose padding counts too but weighs nothing), updated in place.
    space : PackedVerdicts
    probe : int
        The play's probe (its context and face) in ``space``.
    right : bool
        The dealer's verdict.
    rows : int or sequence of int, optional
        The rows of a 2-D ``mismatches`` the play counts in (each at most once).
    out : ndarray of uint16, optional
        Where the counts after the play go, ``mismatches`` left as they were: as fast
        as counting in place (`eleusis_agents.hypothesis_model.Counts` keeps the counts before).

    Examples
    --------
    >>> from eleusis_lab.rules.enumerate import build_space
    >>> space = build_space("colours_suits", max_hypotheses=3, cache=False)
    >>> cells = np.zeros((2, len(space)), np.uint16)
    >>> count_mismatches(cells, space, probe=0, right=True, rows=[1])  # ace of clubs
    >>> cells.tolist()  # false and red(card) call it wrong
    [[0, 0, 0], [0, 1, 1]]
    >>> after = count_mismatches(cells[1], space, probe=0, right=False, out=np.empty(3, np.uint16))
    >>> after.tolist(), cells[1].tolist()  # true calls it right
    ([1, 1, 1], [0, 1, 1])
    """
    mismatched = space.verdict_rows(probe, stop=mismatches.shape[-1])
    if right:
        np.logical_not(mismatched, out=mismatched)  # the hypotheses that said wrong
    if out is not None:
        return np.add(mismatches, mismatched, out=out)
    if rows is None:
        np.add(mismatches, mismatched, out=mismatches)
        return None
    mismatched = mismatched.astype(mismatches.dtype)  # once: bool to uint16 in each add cost 25%
    for row in np.atleast_1d(rows):  # in place: a gathered copy costs three times as much
        np.add(mismatches[row], mismatched, out=mismatches[row])
    return None


def log_weights(mismatches: np.ndarray, log_prior: np.ndarray, noise: float) -> np.ndarray:
    """The log weight of each hypothesis, float32: ``mismatches * log_odds(noise) +
    log_prior``, leaving out the ``(1 - noise) ** n`` all hypotheses share.

    >>> log_weights(np.array([0, 2], np.uint16), np.zeros(2, np.float32), 0.5).tolist()
    [0.0, 0.0]
    >>> float(log_weights(np.array([1], np.uint16), np.zeros(1, np.float32), 0.1)[0])
    -2.1972...
    """
    logw = np.multiply(mismatches, np.float32(log_odds(noise)), dtype=np.float32)
    return np.add(logw, log_prior, out=logw)


def normalise(logw: np.ndarray) -> tuple[float, np.ndarray]:
    """The log evidence of a row of log weights (`log_weights`): the log of their
    exponentials' sum; and its posterior, float32, summing to one.

    >>> log_evidence, posterior = normalise(np.log(np.array([1, 3], np.float32)))
    >>> round(math.exp(log_evidence), 5), posterior.tolist()
    (4.0, [0.25, 0.75])
    """
    weights = np.array(logw, np.float32)
    top = float(weights.max())
    exp_in_place(np.subtract(weights, np.float32(top), out=weights))
    total = float(weights.sum(dtype=np.float64))
    return top + math.log(total), np.divide(weights, np.float32(total), out=weights)


#: From about -87.3 to -104 float32's exp is subnormal, and a SIMD lane that computes
#: a subnormal slows its whole vector a hundredfold: `exp_in_place` takes these apart.
_SUBNORMAL_EXP = (-110.0, -87.0)


def exp_in_place(x: np.ndarray) -> np.ndarray:
    """``np.exp(x, out=x)``, float32, to the bit, the subnormal results apart.

    Weights far below the best come out subnormal, a few among many: scattered, one
    in 16 of them made numpy's exp 14 times slower; gathered, they cost their share.

    >>> x = np.array([0.0, -1.0, -95.0, -200.0], np.float32)
    >>> bool((exp_in_place(x.copy()) == np.exp(x)).all())
    True
    """
    low, high = _SUBNORMAL_EXP
    if not len(x) or x.min() >= high:
        return np.exp(x, out=x)
    apart = np.flatnonzero((x < high) & (x >= low))
    subnormal = x[apart]
    x[apart] = 0.0
    np.exp(x, out=x)
    x[apart] = np.exp(subnormal)
    return x


@dataclasses.dataclass(frozen=True, eq=False)
class PrunedWeights:
    """A posterior's weights, unnormalised, from `Pruner.weigh`.

    Attributes
    ----------
    weights : ndarray of float32
        The weights of every hypothesis of the row (``active`` None), or of the
        ``active`` ones; the best weight (or the fallback's) is 1.
    active : ndarray of int or None
        The hypotheses ``weights`` are of, ascending; None for all of them.
    position : BitPosition or None
        Where the ``active`` hypotheses sit in a table row (for `weight_calling_right`),
        computed when first asked.
    total : float
        The sum of ``weights``, in float64.
    fallback : float
        The fallback's weight, on the same scale.
    top : float
        The log weight (`log_weights`) that weighs 1: the best's, or the fallback's.
    """

    weights: np.ndarray
    active: np.ndarray | None
    total: float
    fallback: float
    top: float

    @functools.cached_property
    def position(self) -> BitPosition | None:
        return None if self.active is None else PackedVerdicts.bit_position(self.active)


class Pruner:
    """Weighs one row of mismatch counts, leaving out the hypotheses far below the best.

    Hypotheses more than ``prune`` nats below the best weigh less than ``e**-prune``
    each: while they are many, the weights leave them out. A hypothesis's weight never
    grows (counts only add up, and a prior only falls), so a pass over all of them also
    notes those within ``prune + slack`` nats of the best (the candidates); until the
    best falls ``slack`` nats, later passes need only visit the candidates: every other
    hypothesis is still more than ``prune`` below. A candidate that falls as far below
    that best as the others are leaves the candidates, for the same reason. Hence one
    `Pruner` per row, for as long as its counts only add up.

    When the hypotheses kept are a quarter of the row or more, the weights are of every
    hypothesis (``active`` None): with ``zero_pruned``, those more than ``prune`` below
    weigh 0 there too (`eleusis_agents.bayes_context`'s cells); without, their tiny
    weights stay (`eleusis_agents.bayes`).

    Examples
    --------
    Ten hypotheses, two of which explain the plays better than the rest by far:

    >>> mismatches = np.array([0, 1, 5, 5, 5, 5, 5, 5, 5, 5], np.uint16)
    >>> uniform = np.zeros(10, np.float32)
    >>> post = Pruner(prune=10.0).weigh(mismatches, uniform, 0.01, fallback_log_weight=-12.0)
    >>> post.active.tolist(), [round(float(w), 4) for w in post.weights]  # 1, 1/99
    ([0, 1], [1.0, 0.0101])
    >>> round(post.total, 4), post.fallback == math.exp(-12)
    (1.0101, True)
    """

    def __init__(self, prune: float = 20.0, slack: float = 10.0, zero_pruned: bool = False):
        self.prune, self.slack, self.zero_pruned = prune, slack, zero_pruned
        self.candidates: tuple[np.ndarray, float] | None = None  # (hypotheses, best then)

    def weigh(
        self,
        mismatches: np.ndarray,
        log_prior: np.ndarray,
        noise: float,
        fallback_log_weight: float,
    ) -> PrunedWeights:
        """The weights of the row (`log_weights`) and of the fallback, shifted so that the
        largest is 1, without the hypotheses more than ``prune`` nats below it.

        ``fallback_log_weight``: the fallback's log weight on the scale of
        `log_weights` (`LaplaceFallback.log_weight`), ``-inf`` for none.
        """
        if self.candidates is not None:
            near, best_then = self.candidates
            logw = log_weights(mismatches[near], log_prior[near], noise)
            best = float(logw.max()) if len(logw) else -math.inf
            if best >= best_then - self.slack:
                top = max(best, fallback_log_weight)
                keep = logw > np.float32(top - self.prune)
                weights = np.exp(logw[keep] - np.float32(top))
                # candidates fallen as far below best_then as the others are no longer
                # candidates: dropped once they are half of them
                alive = logw > np.float32(best_then - self.prune - self.slack)
                if np.count_nonzero(alive) * 2 < len(near):
                    self.candidates = (near[alive], best_then)
                return _pruned(weights, near[keep], fallback_log_weight, top)
        logw = log_weights(mismatches, log_prior, noise)
        best = float(logw.max())
        top = max(best, fallback_log_weight)
        kept = logw > np.float32(top - self.prune)
        n_kept = int(np.count_nonzero(kept))
        self.candidates = None
        # Gathering an eighth of the hypotheses costs a third of a full pass, a quarter
        # nearly all of it. Fewer candidates than a quarter keep the weights apart.
        if n_kept * 8 < len(logw):
            near = np.flatnonzero(logw > np.float32(best - self.prune - self.slack))
            self.candidates = (near, best) if len(near) * 8 < len(logw) else None
        if n_kept * 4 < len(logw):
            active = np.flatnonzero(kept)
            return _pruned(np.exp(logw[active] - np.float32(top)), active, fallback_log_weight, top)
        logw -= np.float32(top)
        if self.zero_pruned:
            logw[logw <= np.float32(-self.prune)] = -np.inf
        return _pruned(exp_in_place(logw), None, fallback_log_weight, top)


def _pruned(weights, active, fallback_log_weight: float, top: float) -> PrunedWeights:
    return PrunedWeights(
        weights,
        active,
        float(weights.sum(dtype=np.float64)),
        math.exp(fallback_log_weight - top),
        top,
    )


def weight_calling_right(
    space: PackedVerdicts, probes, weights: np.ndarray, hypotheses=None
) -> np.ndarray:
    """The summed weight of the hypotheses that call each of ``probes`` right.

    Parameters
    ----------
    space : PackedVerdicts
    probes : int or array of int
        Probes of ``space``.
    weights : ndarray of float32, shape (k,) or (k, c)
        The weights of ``k`` hypotheses (``c`` columns of them: one sum per column).
    hypotheses : array of int or BitPosition, optional
        The hypotheses the weights are of (computing their `bit_position` once saves
        work in a loop); by default ``0 .. k - 1``.

    Returns
    -------
    ndarray of float32, shape ``(*probes.shape, *weights.shape[1:])``

    Examples
    --------
    >>> from eleusis_lab.rules.enumerate import build_space
    >>> space = build_space("colours_suits", max_hypotheses=3, cache=False)
    >>> weights = np.array([0.5, 0.25, 0.25], np.float32)  # true, false, red(card)
    >>> weight_calling_right(space, [0, 13], weights).tolist()  # ace of clubs, diamonds
    [0.5, 0.75]
    >>> weight_calling_right(space, [0, 13], weights[[2]], hypotheses=[2]).tolist()
    [0.0, 0.25]
    """
    probes = np.asarray(probes)
    if hypotheses is None:
        return space.verdict_floats(probes, stop=len(weights)) @ weights
    return space.verdict_floats_at(probes, hypotheses) @ weights


#: Weights from which `heaviest_weights` looks for the heaviest first: the best weighs 1,
#: and a few hundred of 10**5 hypotheses are above 2**-16 early in a game.
_HEAVY_FLOORS = (np.float32(2.0**-16), np.float32(2.0**-40))


def heaviest_weights(weights: np.ndarray, k: int) -> tuple[np.ndarray, float]:
    """The indices of ``k`` heaviest of ``weights`` (more than ``k`` of them, in no
    order) and the next weight, the ``k + 1``-th largest.

    An ``argpartition`` of every weight took 170 us at 10**5 hypotheses, 6 ms of a
    game of ``bayes`` agents; the heaviest are among the few above a floor
    (`_HEAVY_FLOORS`), so only those are partitioned when there are more than ``k``
    of them. The next weight is the same either way; among weights tied with it,
    which ones are in the ``k`` may differ from a partition of all: any choice leaves
    `Leaders` a valid bound, and so `BayesAgent.confident_proposal` the same answers.

    >>> weights = np.array([0.0, 1.0, 0.5, 1e-9, 0.25], np.float32)
    >>> at, next_weight = heaviest_weights(weights, 2)
    >>> sorted(at.tolist()), next_weight
    ([1, 2], 0.25)
    """
    if len(weights) > 4096:
        for floor in _HEAVY_FLOORS:
            near = np.flatnonzero(weights >= floor)
            if len(near) > k:
                order = np.argpartition(-weights[near], k)
                return near[order[:k]], float(weights[near[order[k]]])
    order = np.argpartition(-weights, k)
    return order[:k], float(weights[order[k]])


class Leaders:
    """A few of the most probable hypotheses, which bound the probability of the best.

    The best hypothesis's posterior probability takes a pass over every hypothesis; a
    bound on it takes a few. Noted from a posterior (`PrunedWeights`), the leaders are
    its ``size`` heaviest hypotheses, and every other hypothesis has a log weight
    (`log_weights`) of at most ``cut``. A log weight only falls as plays add up (a
    count only grows, a refuted hypothesis's prior falls to 0), so later on, with the
    leaders' log weights ``l`` and the fallback's ``l_f``, the best hypothesis's
    probability is at most

        max(e**max(l) / A, e**cut / (A + e**cut)),  A = sum(e**l) + e**l_f,

    the first if the best is a leader, the second if not. `bound` adds `SLACK` for the
    rounding of the float32 weights `Pruner.weigh` gives: it is never below the
    probability they give (a `Leaders` serves as long as its row's counts only add up).

    Examples
    --------
    Hypothesis 0 explains two plays, hypotheses 1 to 99 miss one:

    >>> mismatches = np.array([0] + [1] * 99, np.uint16)
    >>> uniform = np.zeros(100, np.float32)
    >>> post = Pruner().weigh(mismatches, uniform, 0.1, fallback_log_weight=-math.inf)
    >>> leaders = Leaders(post, size=4, prune=20.0)
    >>> int(leaders.hypotheses[0]), round(float(post.weights[0] / post.total), 3)
    (0, 0.083)
    >>> round(leaders.bound(mismatches, uniform, 0.1, -math.inf), 3)  # 1 / (1 + 3 / 9)
    0.751

    Three more plays only hypothesis 0 explains: it holds 1 / (1 + 99 / 9**4) = 0.985
    of the posterior, and the leaders no longer bound it below 1:

    >>> mismatches[1:] += 3
    >>> leaders.bound(mismatches, uniform, 0.1, -math.inf)
    1.0
    """

    #: The bound's margin, relative: far above the float32 rounding of the weights.
    SLACK = 1e-3

    def __init__(self, post: PrunedWeights, size: int = 32, prune: float = 20.0):
        weights, cut = post.weights, -math.inf
        k = min(size, len(weights))
        heaviest = np.arange(k)
        if len(weights) > k:
            heaviest, next_weight = heaviest_weights(weights, k)
            # a weight w = e**(logw - top) rounded: logw is below top + log(w) + 1e-5, or
            # below top - 87 for a weight under float32's smallest normal (or 0)
            cut = post.top + max(math.log(next_weight) if next_weight else -math.inf, -87.0)
        if post.active is not None:  # the pruned hypotheses are below top - prune
            cut = max(cut, post.top - prune)
        self.hypotheses = np.sort(heaviest if post.active is None else post.active[heaviest])
        self.cut = cut + self.SLACK

    def bound(
        self, mismatches: np.ndarray, log_prior: np.ndarray, noise: float, fallback_log_weight
    ) -> float:
        """An upper bound on the best hypothesis's probability (see the class docstring)."""
        at = self.hypotheses
        logw = log_weights(mismatches[at], log_prior[at], noise).astype(np.float64)
        best = float(logw.max()) if len(logw) else -math.inf
        high = max(best, self.cut, fallback_log_weight)
        if high == -math.inf:
            return 1.0
        known = float(np.exp(logw - high).sum()) + math.exp(fallback_log_weight - high)
        best_weight, cut_weight = math.exp(best - high), math.exp(self.cut - high)
        if known <= 0:
            return 1.0
        bound = max(best_weight / known, cut_weight / (known + cut_weight))
        return min(1.0, bound * (1 + self.SLACK))


@dataclasses.dataclass
class LaplaceFallback:
    """The "none of the above" hypothesis: it calls every card right with the
    Laplace-smoothed rate of right verdicts so far, ``(rights + 1) / (plays + 2)``.

    Examples
    --------
    >>> fallback = LaplaceFallback()
    >>> for right in (True, True, False):
    ...     fallback.learn(right)
    >>> fallback.rate  # (2 + 1) / (3 + 2)
    0.6
    >>> round(math.exp(fallback.log_likelihood), 6) == round(1 / 2 * 2 / 3 * 1 / 4, 6)
    True
    """

    plays: int = 0
    rights: int = 0
    log_likelihood: float = 0.0  # of the verdicts, each predicted before it was seen

    @property
    def rate(self) -> float:
        """The probability it gives the next play of being right."""
        return (self.rights + 1) / (self.plays + 2)

    def learn(self, right: bool) -> None:
        """Score its prediction of a verdict, then count the verdict."""
        rate = self.rate
        self.log_likelihood += math.log(rate if right else 1 - rate)
        self.plays += 1
        self.rights += bool(right)

    def log_weight(self, prior: float, noise: float, shared_plays: int) -> float:
        """Its log posterior weight on the scale of `log_weights`, which leave out the
        ``(1 - noise)`` of the ``shared_plays`` plays every hypothesis was judged on;
        ``-inf`` for a prior of 0.

        >>> fallback = LaplaceFallback()
        >>> fallback.learn(True)  # predicted at 1/2
        >>> round(fallback.log_weight(0.1, 0.2, 1), 6) == round(math.log(0.1 * 0.5 / 0.8), 6)
        True
        >>> fallback.log_weight(0.0, 0.2, 1)
        -inf
        """
        if prior <= 0:
            return -math.inf
        return math.log(prior) + self.log_likelihood - shared_plays * math.log1p(-noise)
