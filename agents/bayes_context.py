"""A Bayesian agent whose rules may switch on the context: position, runs, the card
two back, the previous verdict, or a feature of the last card.

The hypotheses of `eleusis_agents.bayes.BayesAgent` read the card and the last card. Many rules
people choose also read the position of the card (``if odd(length) then red(card) else
black(card)``), a run (``if run(color) < 3 then ...``), the card two back or the
previous verdict. `ContextBayesAgent` conceives of such a rule as a *switch*, a feature
of the context with a few values (`SWITCHES`: ``length mod 2``, ``run(color) >= 3``,
``suit(last)`` ...), and one rule of the base space for each value:

    if length mod 2 == 1 then red(card) else black(card)

is the switch ``length mod 2`` with ``black(card)`` for 0 and ``red(card)`` for 1.

The model
---------
- Prior: the switch ``none`` (one value: the base space alone) has probability
  ``plain``; the other switches share the rest equally. Given a switch, the rule of
  each value is drawn independently from the base prior
  (`eleusis_agents.bayes.base_log_prior`: the grammar's rules and, with mass ``one_card``,
  the one-card language's face sets, `eleusis_agents.one_card_space`; the quarter-of-the-deck
  test where a dealer chooses the rule; ``true``, which rejects nothing, is unlikely
  as a plain rule but not as the rule of one value). A switch of three or four values
  also comes as a suit *template* (``length mod 4 -> suit``): each value's rule is one
  of ``suit(card) == clubs`` ... ``spades``, each as likely, where the base prior would
  charge about 18 bits for each.
- Where a switch reads what is not there yet (the card two back on a one-card line,
  the verdict before the first play), every card is right, as in the rule language.
- Likelihood: a verdict disagrees with a hypothesis with probability ``noise``; a
  "none of the above" hypothesis (prior ``fallback``) predicts the rate of right plays,
  as in `BayesAgent`.

It declares in solo as `BayesAgent` does (`eleusis_agents.solo_declaring.SoloDeclaring`). It is
slower per decision (about 5 ms in classic against 0.4 ms at the default 10**5 base
rules, ``eleusis-lab bench decisions``; about 24 ms with the solo lookahead) and holds
a counter for each of its 101 cells (10 MB at 10**5 base rules) and the weights of the
cells it has weighed (1.6 times more of each, time and memory, with the one-card
language: 156,313 base hypotheses).

Inference is exact but for weights too small to matter. Given the switch, a
play tells only about the rule of the value it was played under: the posterior is one
base-space posterior per (switch, value) *cell*, kept as mismatch counts
(`eleusis_agents.posterior`), and a switch's evidence is the product of its cells'.
Predictions mix, over the switches, the cell that the context selects. Each cell is
weighed by its own `eleusis_agents.posterior.Pruner`: the rules more than
``_PRUNE`` (20) nats below its best weigh 0, each less than e**-20 of the best, all of
them less than 2e-4 of it at 10**5 rules (at 40 nats, a cell weighed kept a median of
20,000 rules, now 1,000, and a decision took 10 ms instead of 6). A prediction reads
the verdicts of only the rules kept when all its cells kept few. Cells that saw the
same plays under the same prior are weighed once; a switch more than ``_NEGLIGIBLE``
(20) nats below the best weighs 0, and its cells count their plays and are weighed
again only when their last evidence, which only falls as plays add up, could bring it
back (at 50 nats, a decision weighed half as many cells again and took 7.0 ms on average
instead of 5.3, its median 6.5 instead of 1.1).

Examples
--------
>>> from eleusis_lab.games.solo import play_solo
>>> agent = ContextBayesAgent(grammar="colours_suits", max_hypotheses=2000)
>>> record = play_solo("if odd(length) then red(card) else black(card)", agent, seed=1)
>>> record.success, record.declarations[-1].text  # after a red starter, the same rule
(True, 'color(card) != color(last)')
"""

from __future__ import annotations

import itertools
import math
import weakref
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from eleusis_agents.bayes import binary_entropy
from eleusis_agents.hypothesis_model import HypothesisModel, ModelParams, keep_params
from eleusis_agents.posterior import (
    LaplaceFallback,
    PrunedWeights,
    Pruner,
    count_mismatches,
    log_odds,
    weight_calling_right,
)
from eleusis_agents.solo_declaring import SoloDeclaring
from eleusis_lab.agent import GameInfo, LearningAgent, Observation
from eleusis_lab.blas import limited_threads
from eleusis_lab.calibration import CalibrationMap
from eleusis_lab.cards import FEATURES, N_FACES, Card, face_card
from eleusis_lab.games.new_eleusis import NewEleusisDecisions
from eleusis_lab.rules import Context, parse
from eleusis_lab.rules.grammar import Grammar
from eleusis_lab.rules.prior import ProductionPrior

__all__ = ["SWITCHES", "ContextBayesAgent", "Switch"]

_TIE = 1e-6  # scores this close are a tie, broken with the game's generator
_LIVE = 1e-6  # switches below this posterior are left out of predictions
_LEADING = 1e-3  # switches below this are left out of the lookahead and the proposals
_LOOKAHEAD = 128  # most probable hypotheses per cell the lookahead conditions on
_ALTERNATIVES = 4  # runner-up rules per cell tried when the best ones were refuted
# A cell's rules more than _PRUNE nats below its best weigh 0: each less than e**-20 of
# the best, all of them together (10**5) less than 2e-4 of it, and so of its evidence.
_PRUNE = 20.0
_SLACK = 10.0  # its pruner passes over all the rules again once the best fell this far
# A switch _NEGLIGIBLE nats below the best weighs 0: it holds less than e**-20 of the
# posterior, all 41 such switches less than 1e-7, below what predictions read (_LIVE)
# and what tells two plays apart (_TIE).
_NEGLIGIBLE = 20.0
_TOP_THRESHOLDS = (1e-3, 1e-5, 1e-7, 1e-9)  # tried in turn by `_most_probable`
_DEFAULT = ModelParams()  # the defaults of the parameters shared with BayesAgent


def _most_probable(posterior: np.ndarray, k: int) -> np.ndarray:
    """The indices of the ``k`` largest values, largest first (ties: lowest index first).

    A posterior is concentrated: the values above a small threshold are few, and when
    there are at least ``k`` of them the ``k`` largest are among them, so only those are
    sorted (a selection over all 156,313 values took 6 ms, more than half of a game).

    >>> _most_probable(np.array([0.1, 0.4, 0.1, 0.4]), 3).tolist()
    [1, 3, 0]
    """
    k = min(k, len(posterior))
    for threshold in _TOP_THRESHOLDS:
        candidates = np.flatnonzero(posterior > threshold)
        if len(candidates) >= k:
            break
    else:
        candidates = np.arange(len(posterior))
    order = np.lexsort((candidates, -posterior[candidates]))
    return candidates[order[:k]]


def _share(posterior: np.ndarray, says_right: np.ndarray) -> float:
    """The share of ``posterior`` (the weights of some hypotheses) on those that say a
    card is right (``says_right``, 0 or 1 each): 0 when the hypotheses weigh nothing.

    In a classic game the most probable hypotheses of a cell can all have fallen to 0;
    0 / 0 made the lookahead's scores NaN, and its choice among them fail.

    >>> _share(np.array([0.25, 0.5], np.float32), np.array([1, 0], np.float32))
    0.3333...
    >>> _share(np.zeros(2, np.float32), np.ones(2, np.float32))
    0.0
    """
    total = posterior.sum()
    return float(posterior @ says_right / total) if total > 0 else 0.0


def _scattered(values: np.ndarray, at: np.ndarray, size: int) -> np.ndarray:
    """A row of ``size`` zeros with ``values`` at ``at``.

    >>> _scattered(np.array([0.5, 0.25], np.float32), np.array([1, 3]), 4).tolist()
    [0.0, 0.5, 0.0, 0.25]
    """
    row = np.zeros(size, values.dtype)
    row[at] = values
    return row


@dataclass(frozen=True)
class Switch:
    """A feature of the context with a few values, each named by a rule condition.

    ``value(context)`` is the value's index into ``conditions``, or None where the
    feature reads a card or verdict that is not there yet. ``reads`` names what it
    reads: ``"last"`` (then a switched rule is also a rule of the base space),
    ``"length"``, ``"run"``, ``"prev"``, ``"outcome"``, or ``""`` (the switch ``none``).
    ``members``: when given, the rule of each value is one of these rules of the base
    space, each as likely (a template: ``suit(card) == clubs`` ...); otherwise a rule of
    the base space under its prior.
    """

    name: str
    conditions: tuple[str, ...]
    value: Callable[[Context], int | None]
    reads: str = "last"
    members: tuple[str, ...] = ()


def _last(context: Context, feature: str) -> int | None:
    line = context.main_line
    return int(FEATURES[feature][line[-1].face]) if line else None


def _length(k: int) -> Switch:
    conditions = tuple(f"length mod {k} == {j}" for j in range(k))
    return Switch(f"length mod {k}", conditions, lambda c: len(c.main_line) % k, "length")


def _run(feature: str, n: int) -> Switch:
    conditions = (f"run({feature}) < {n}", f"run({feature}) >= {n}")
    return Switch(f"run({feature}) >= {n}", conditions, lambda c: int(c.run(feature) >= n), "run")


def _two_back(feature: str) -> Switch:
    values = FEATURES[feature]

    def same(context: Context) -> int | None:
        line = context.main_line
        return int(values[line[-2].face] == values[line[-1].face]) if len(line) >= 2 else None

    same_text = f"{feature}(prev) == {feature}(last)"
    return Switch(same_text, (f"{feature}(prev) != {feature}(last)", same_text), same, "prev")


def _last_predicate(name: str, feature: str, negation: str) -> Switch:
    return Switch(
        f"{name}(last)", (f"{negation}(last)", f"{name}(last)"), lambda c: _last(c, feature)
    )


def _rank_mod(k: int) -> Switch:
    def value(context: Context) -> int | None:
        rank = _last(context, "rank")
        return None if rank is None else rank % k

    conditions = tuple(f"rank(last) mod {k} == {j}" for j in range(k))
    return Switch(f"rank(last) mod {k}", conditions, value)


def _verdict(context: Context) -> int | None:
    return None if context.last_play_right is None else int(context.last_play_right)


def _parity_and_colour(context: Context) -> int | None:
    odd, red = _last(context, "parity"), _last(context, "color")
    return None if odd is None else 2 * odd + red


def _suit_template(switch: Switch) -> Switch:
    """The switch whose every value names a suit: "the suit follows the position" ..."""
    suits = tuple(f"suit(card) == {suit}" for suit in ("clubs", "diamonds", "hearts", "spades"))
    return replace(switch, name=f"{switch.name} -> suit", members=suits)


_BASE_SWITCHES: tuple[Switch, ...] = (
    Switch("none", ("true",), lambda c: 0, ""),
    *(_length(k) for k in (2, 3, 4)),
    *(_run(feature, n) for feature in FEATURES for n in (2, 3)),
    *(_two_back(feature) for feature in FEATURES),
    Switch("last_play_right", ("not last_play_right", "last_play_right"), _verdict, "outcome"),
    _last_predicate("red", "color", "black"),
    _last_predicate("odd", "parity", "even"),
    _last_predicate("high", "high", "low"),
    _last_predicate("face", "face", "number"),
    _last_predicate("prime", "prime", "not prime"),
    Switch(
        "suit(last)",
        tuple(f"suit(last) == {s}" for s in ("clubs", "diamonds", "hearts", "spades")),
        lambda c: _last(c, "suit"),
    ),
    _rank_mod(3),
    _rank_mod(4),
    Switch(
        "odd(last), red(last)",
        tuple(f"{p}(last) and {c}(last)" for p in ("even", "odd") for c in ("black", "red")),
        _parity_and_colour,
    ),
)

#: The switches the agent knows, the trivial one first: features of the context with
#: at most four values, from what the rule language reads: the position, runs, the
#: card two back against the last one, the previous verdict and the last card; and,
#: for those of three or four values, the same switch with a suit for each value.
SWITCHES: tuple[Switch, ...] = (
    *_BASE_SWITCHES,
    *(_suit_template(s) for s in _BASE_SWITCHES if len(s.conditions) >= 3),
)


class ContextBayesAgent(SoloDeclaring, NewEleusisDecisions, LearningAgent):
    """Bayesian rule induction over switched rules (see the module docstring).

    Parameters
    ----------
    grammar : str or Grammar
        The grammar of the base space (rules of the card and the last card), as in
        `BayesAgent`.
    max_hypotheses : int
        Hypotheses of the base space, most probable first.
    noise : float
        Probability that a verdict disagrees with the true hypothesis, in (0, 0.5).
    fallback : float
        Prior probability that the rule is none of the hypotheses, in [0, 1) (see
        `BayesAgent`).
    plain : float
        Prior probability of the switch ``none`` (a rule of the base space), in (0, 1).
    switches : tuple of str or None
        Names of the `SWITCHES` to consider besides ``none``; None for all.
    policy : {"auto", "greedy", "lookahead"}
        ``"lookahead"``: the card whose verdict, and the play it opens, tell most
        about the rule (as `BayesAgent`'s); ``"greedy"``: the card most probably right;
        ``"auto"``: lookahead in solo (scored on finding the rule), greedy elsewhere.
    prior : {"bits", "shortest", "uniform", "spread"}
        The prior over the base space (see `BayesAgent`).
    productions : str or ProductionPrior
        What the base grammar's productions cost (see `BayesAgent`).
    unacceptable : float
        Factor on the prior of base rules the game's rule cannot be (see `BayesAgent`).
    one_card : float or "auto"
        Prior mass of the one-card language in the base space, as in `BayesAgent`
        (default ``"auto"``: the mass fitted for solo, 0.25, in solo; 0 elsewhere).
    acceptability : {"auto", "dealer", "solo"}
        Which those are, as in `BayesAgent` (default ``"auto"``): in solo no test of
        acceptability applies, only ``true`` and ``false`` as a plain rule are
        unlikely.
    declaring : {"expected_score", "threshold"}
        Solo: when to declare, as in `BayesAgent`.
    calibrated_decisions : bool
        Solo: decide on the calibrated probability, as in `BayesAgent`.
    declare_confidence : float
        Solo, ``declaring="threshold"``: the probability from which the best hypothesis
        is declared, as in `BayesAgent`.
    calibration : None, str or CalibrationMap
        Solo: the map from posterior probability to stated confidence, as in
        `BayesAgent` (``"default"``, the default: the one fitted to this agent).

    Attributes
    ----------
    model_ : HypothesisModel
        The model of the base space (`eleusis_agents.hypothesis_model`), as `BayesAgent`'s.
    space_ : HypothesisSpace
        The base space (shared and cached; never pickled).
    switches_ : tuple of Switch
    history_ : list of (int, tuple, bool)
        Each play seen: its probe in the base space (-1 outside it), the value of
        every switch, and its verdict.
    """

    def __init__(
        self,
        grammar: str | Grammar = _DEFAULT.grammar,
        max_hypotheses: int = _DEFAULT.max_hypotheses,
        noise: float = _DEFAULT.noise,
        fallback: float = _DEFAULT.fallback,
        plain: float = 0.5,
        switches: tuple[str, ...] | None = None,
        policy: str = "auto",
        prior: str = _DEFAULT.prior,
        productions: str | ProductionPrior = _DEFAULT.productions,
        unacceptable: float = _DEFAULT.unacceptable,
        acceptability: str = _DEFAULT.acceptability,
        one_card: float | str = _DEFAULT.one_card,
        declaring: str = _DEFAULT.declaring,
        calibrated_decisions: bool = _DEFAULT.calibrated_decisions,
        declare_confidence: float = _DEFAULT.declare_confidence,
        calibration: str | CalibrationMap | None = _DEFAULT.calibration,
    ):
        keep_params(self, locals())

    # -- set-up -----------------------------------------------------------------------

    def check_params(self) -> None:
        ModelParams.of(self).check(self)
        if not 0 < self.plain < 1:
            raise ValueError(f"plain must be in (0, 1), got {self.plain!r}")
        if self.policy not in ("auto", "greedy", "lookahead"):
            raise ValueError(f"policy must be auto, greedy or lookahead, got {self.policy!r}")
        known = [s.name for s in SWITCHES[1:]]
        unknown = [name for name in self.switches or () if name not in known]
        if unknown:
            raise ValueError(f"unknown switches {unknown!r}; known: {', '.join(known)}")

    def start_game(self, info: GameInfo, rng: np.random.Generator) -> None:
        super().start_game(info, rng)
        self.check_params()
        self.history_: list[tuple[int, tuple, bool]] = []
        self.refuted_: list[tuple] = []  # hypotheses declared in solo, and so wrong
        self._load_space()

    def _chosen_switches(self) -> tuple[Switch, ...]:
        chosen = [s for s in SWITCHES[1:] if self.switches is None or s.name in self.switches]
        return (SWITCHES[0], *chosen)

    def _load_space(self) -> None:
        """Attach the model (its base space cached) and rebuild the counts from
        ``history_``."""
        self.model_ = HypothesisModel.build(ModelParams.of(self), self._traits())
        self.space_ = space = self.model_.space
        self.log_prior_ = self._base_prior(whole=False)  # the rule of one switch value
        self.plain_log_prior_ = self._base_prior(whole=True)  # a plain rule
        chosen = self._chosen_switches()
        members = {s.name: [space.index_of(parse(t)) for t in s.members] for s in chosen}
        # A template the space cannot hold (a space without suits) is left out.
        self.switches_ = tuple(s for s in chosen if None not in members[s.name])
        sizes = [len(s.conditions) for s in self.switches_]
        # Python ints, not numpy's: a play looks up and keys dictionaries with ~41 cells
        self.first_cell_ = tuple(itertools.accumulate([0, *sizes[:-1]]))
        self.switch_of_cell_ = tuple(s for s, size in enumerate(sizes) for _ in range(size))
        self.switch_cells_ = tuple(
            range(first, first + size) for first, size in zip(self.first_cell_, sizes, strict=True)
        )
        self.templates_ = {}  # switch -> log prior of its values' rules (a template)
        # A template's rules are rules of the switch it is made from (the one that reads
        # the same feature of the context), when that is chosen.
        self.base_switch_ = {}  # template -> that switch, or None
        plain = {switch.value: s for s, switch in enumerate(self.switches_) if not switch.members}
        templates = {}  # members -> their log prior
        for s, switch in enumerate(self.switches_):
            if switch.members:
                if switch.members not in templates:  # one array: cells weighed once (`_weights`)
                    log_prior = np.full(len(space), -np.inf, dtype=np.float32)
                    log_prior[members[switch.name]] = -math.log(len(switch.members))
                    templates[switch.members] = log_prior
                self.templates_[s] = templates[switch.members]
                self.base_switch_[s] = plain.get(switch.value)
        n_cells = sum(sizes)
        # A cell's counts are at most its plays: bytes, half the memory each play passes
        # over, until a cell has seen 255 plays (`_count`)
        self.mismatches_ = np.zeros((n_cells, len(space)), dtype=np.uint8)
        self.fixed_mismatches_ = np.zeros(len(sizes), dtype=np.int64)
        self.seen_ = [0] * n_cells
        rest = (1 - self.plain) / max(len(sizes) - 1, 1)
        switch_prior = np.array([self.plain, *[rest] * (len(sizes) - 1)]) * (1 - self.fallback)
        self.switch_log_prior_ = np.log(switch_prior)
        self.fallback_ = LaplaceFallback()
        # Each cell a play has reached is weighed by its own `Pruner` (its counts only
        # add up in a game), leaving out the rules far below its best.
        self.pruners_: dict[int, Pruner] = {}
        self.weights_: dict[int, PrunedWeights] = {}  # each cell's, until its next play
        self.evidence_bounds_: dict[int, float] = {}  # each cell's last log evidence
        # Cells that saw the same plays under the same prior have the same weights (the
        # cells of runs below 3 of each feature, at first): weighed once.
        self.plays_: list[list[int]] = [[] for _ in range(n_cells)]  # plays, numbered
        self.negligible_: set[int] = set()  # switches left out of the last switch posterior
        self.uncounted_: dict[int, list] = {}  # cell -> plays not in its counts yet
        self.same_plays_: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
        self.cells_: dict[int, np.ndarray] = {}  # each cell's whole posterior, when needed
        self.tops_ = {}  # (cell, k) -> the k most probable rules of the cell, best first
        self.behaviours_ = None  # `_behaviours`, until the next play or refutation
        self.canonical_ = {}  # switched key -> plain key of the same behaviour
        self.values_on_last_: dict[int, np.ndarray] = {}
        for probe, values, right in self.history_:
            self._count(probe, values, right)

    def _base_prior(self, whole: bool) -> np.ndarray:
        return self.model_.log_prior(whole).astype(np.float32)

    def _ensure(self) -> None:
        if getattr(self, "space_", None) is None:
            self._load_space()

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        # Rebuilt from the space and history_ (switches hold functions: chosen by name).
        rebuilt = "model_ space_ switches_ switch_of_cell_ switch_cells_ templates_ base_switch_"
        rebuilt += " mismatches_"
        caches = "log_prior_ plain_log_prior_ pruners_ weights_ evidence_bounds_ plays_"
        caches += " same_plays_ negligible_ uncounted_ cells_ tops_"
        caches += " behaviours_ canonical_"
        for name in (rebuilt + " " + caches).split():
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.space_ = None  # rebuilt on first use, with the switches (chosen by name)

    # -- learning -----------------------------------------------------------------------

    def _values(self, context: Context) -> tuple:
        return tuple(switch.value(context) for switch in self.switches_)

    def _probe(self, context: Context, face: int) -> int:
        index = self.space_.context_index(context)
        return -1 if index is None else index * N_FACES + face

    def _count(self, probe: int, values: tuple, right: bool) -> None:
        if self.mismatches_.dtype == np.uint8 and max(self.seen_) >= np.iinfo(np.uint8).max:
            self.mismatches_ = self.mismatches_.astype(np.uint16)
        self.fallback_.learn(right)
        now, later = [], []  # the cells the play was made in, one per switch
        for s, value in enumerate(values):
            if value is None:  # the switch reads what is not there: every card is right
                self.fixed_mismatches_[s] += not right
            elif probe >= 0:  # a negligible switch's cells count it when next weighed
                (later if s in self.negligible_ else now).append(self.first_cell_[s] + value)
        if now:
            count_mismatches(self.mismatches_, self.space_, probe, right, rows=now)
        for cell in later:
            self.uncounted_.setdefault(cell, []).append((probe, right))
        for cell in now + later:
            self.plays_[cell].append(self.fallback_.plays)
            self.seen_[cell] += 1
            self.weights_.pop(cell, None)
            self.cells_.pop(cell, None)
            self.tops_.pop((cell, _ALTERNATIVES), None)
            self.tops_.pop((cell, _LOOKAHEAD), None)
        self.behaviours_ = None

    def learn(self, context: Context, card: Card, right: bool) -> None:
        self._ensure()
        entry = (self._probe(context, card.face), self._values(context), bool(right))
        self.history_.append(entry)
        self._count(*entry)

    # -- the posterior --------------------------------------------------------------------

    def _evidence(self, cell: int) -> float:
        """A cell's log evidence: 0 until a play reaches it."""
        if not self.seen_[cell]:
            return 0.0
        weighed = self._weights(cell)
        evidence = self.evidence_bounds_[cell] = weighed.top + math.log(weighed.total)
        return evidence

    def _weights(self, cell: int) -> PrunedWeights:
        """The weights of a cell a play has reached (`Pruner.weigh`), the best at 1."""
        if cell not in self.weights_:
            prior = self._cell_prior(cell)
            same = (id(prior), tuple(self.plays_[cell]))
            weighed = self.same_plays_.get(same)
            if weighed is None:
                for probe, right in self.uncounted_.pop(cell, ()):
                    count_mismatches(self.mismatches_[cell], self.space_, probe, right)
                pruner = self.pruners_.setdefault(cell, Pruner(_PRUNE, _SLACK, zero_pruned=True))
                weighed = pruner.weigh(self.mismatches_[cell], prior, self.noise, -math.inf)
                self.same_plays_[same] = weighed
            self.weights_[cell] = weighed
        return self.weights_[cell]

    def _cell(self, cell: int) -> np.ndarray:
        """A cell's posterior over the base space (0 for the rules its `Pruner` left out)."""
        if cell not in self.cells_:
            if not self.seen_[cell]:
                self.cells_[cell] = np.exp(self._cell_prior(cell))
            else:
                weighed = self._weights(cell)
                posterior = np.divide(weighed.weights, np.float32(weighed.total))
                if weighed.active is not None:
                    posterior = _scattered(posterior, weighed.active, len(self.space_))
                self.cells_[cell] = posterior
        return self.cells_[cell]

    def _cell_prior(self, cell: int) -> np.ndarray:
        """The prior of a cell's rule: the plain rule's (cell 0), a template's, or the
        base prior of the rule of one value."""
        if cell == 0:
            return self.plain_log_prior_
        return self.templates_.get(self.switch_of_cell_[cell], self.log_prior_)

    def _prior_key(self, cell: int) -> int:
        """The cell, or -1 for a value no play has reached that holds the base prior:
        all of those hold the same (cell 0 and templates have their own)."""
        if self.seen_[cell] or cell == 0 or self.switch_of_cell_[cell] in self.templates_:
            return cell
        return -1

    def _top(self, cell: int, k: int) -> np.ndarray:
        """The ``k`` most probable rules of a cell, most probable first."""
        key = (self._prior_key(cell), k)
        if key not in self.tops_:
            self.tops_[key] = _most_probable(self._cell(cell), k)
        return self.tops_[key]

    def _switch_posterior(self) -> tuple[np.ndarray, float]:
        """The posterior probability of each switch, and of none of the hypotheses.

        A switch ``_NEGLIGIBLE`` nats below the best (or the fallback) weighs 0; its
        cells are not weighed while their last evidence, an upper bound (evidence only
        falls as plays add up), leaves it that far below.
        """
        # The switches' evidence leaves out the (1 - noise) of every play: so does this.
        fallback = self.fallback_.log_weight(self.fallback, self.noise, self.fallback_.plays)
        log_evidence = self.switch_log_prior_ + self.fixed_mismatches_ * log_odds(self.noise)
        cells = self.switch_cells_
        bounds = [sum(self.evidence_bounds_.get(cell, 0.0) for cell in c) for c in cells]
        best = fallback
        for s in np.argsort(-(log_evidence + bounds), kind="stable"):
            if log_evidence[s] + bounds[s] < best - _NEGLIGIBLE:  # its cells left unweighed
                log_evidence[s] = -np.inf
                continue
            for cell in cells[s]:
                log_evidence[s] += self._evidence(cell)
            best = max(best, log_evidence[s])
        top = max(log_evidence.max(), fallback)
        # Every switch that far below the best weighs 0, not only those the bounds left
        # out: which ones they left out depends on when cells were weighed last, what
        # an agent rebuilt from its plays does not know; this does not.
        faint = np.flatnonzero(log_evidence < top - _NEGLIGIBLE)
        log_evidence[faint] = -np.inf
        self.negligible_ = set(faint.tolist())
        weights, rest = np.exp(log_evidence - top), math.exp(fallback - top)
        total = weights.sum() + rest
        return weights / total, rest / total

    # -- predicting -----------------------------------------------------------------------

    @limited_threads
    def _right_probabilities(self, context: Context, faces) -> np.ndarray:
        """P(right) of each face in ``context``, mixed over the switches."""
        self._ensure()
        faces = np.asarray(faces, dtype=np.int64)
        weights, fallback = self._switch_posterior()
        values = self._values(context)
        live = np.flatnonzero(weights > _LIVE)
        fixed = [s for s in live if values[s] is None]  # every card is right there
        switched = [s for s in live if values[s] is not None]
        rate = self.fallback_.rate
        mixed = np.full(len(faces), weights[fixed].sum() * (1 - self.noise) + fallback * rate)
        index = self.space_.context_index(context)
        if index is None or not switched:  # no last card: the base rules cannot tell
            return mixed + 0.5 * weights[switched].sum()
        # Cells no play has reached all hold the prior: one column for all of them.
        cells: dict[int, list] = {}
        for s in switched:
            cell = self.first_cell_[s] + values[s]
            cells.setdefault(self._prior_key(cell), [cell, 0.0])[1] += weights[s]
        probes = index * N_FACES + faces
        total = float(sum(weight for _, weight in cells.values()))
        said = self._weight_calling_right(probes, list(cells.values()))
        said = np.clip(said, 0.0, total)
        return mixed + (1 - self.noise) * said + self.noise * (total - said)

    def _weight_calling_right(self, probes: np.ndarray, cells: list) -> np.ndarray:
        """The weight of the rules calling each probe right, over the ``cells`` (pairs
        of a cell and its weight), each cell's posterior weighed by its weight.

        P(right) is linear in each cell's posterior: the posteriors are mixed, then one
        product. When every cell's pruner kept few rules (the others weigh nothing),
        the mixture is of the rules kept in any of them, and only their verdicts are read.
        """
        kept = [self._weights(cell) if self.seen_[cell] else None for cell, _ in cells]
        sparse = all(weighed is not None and weighed.active is not None for weighed in kept)
        # reading a rule's verdict apart costs some 16 times reading it in a whole row
        sparse = sparse and 16 * sum(len(weighed.active) for weighed in kept) < len(self.space_)
        if sparse:
            rules = np.unique(np.concatenate([weighed.active for weighed in kept]))
            mixture = np.zeros(len(rules), np.float32)
        else:
            rules, mixture = None, np.zeros(len(self.space_), np.float32)
        for (cell, weight), weighed in zip(cells, kept, strict=True):
            if weighed is None or weighed.active is None:
                mixture += self._cell(cell) * np.float32(weight)
                continue
            posterior = weighed.weights / np.float32(weighed.total)
            at = np.searchsorted(rules, weighed.active) if sparse else weighed.active
            mixture[at] += posterior * np.float32(weight)
        return weight_calling_right(self.space_, probes, mixture, rules)

    def predict_faces(self, context: Context) -> np.ndarray:
        """Probability that each of the 52 faces is right in ``context``."""
        return self._right_probabilities(context, np.arange(N_FACES))

    def predict(self, obs: Observation, cards: list[Card]) -> np.ndarray:
        """Probability that each of ``cards`` is right now."""
        context = Context(obs.main_line, obs.last_play_right)
        return self._right_probabilities(context, [card.face for card in cards])

    def choose_play(self, obs: Observation) -> Card:
        hand = list(obs.hand)
        context = Context(obs.main_line, obs.last_play_right)
        p_right = self._right_probabilities(context, [card.face for card in hand])
        lookahead = self.policy == "lookahead" or (
            self.policy == "auto" and self.info_.traits.scored_on == "finding"
        )
        scores = self._lookahead(context, hand, p_right) if lookahead else p_right
        best = np.flatnonzero(scores >= scores.max() - _TIE)
        return hand[int(best[self.rng_.integers(len(best))])]

    @limited_threads
    def _lookahead(self, context: Context, hand: list[Card], p_right: np.ndarray) -> np.ndarray:
        """Bits each card's verdict is expected to tell, plus those of the play it opens.

        As `BayesAgent`'s lookahead policy, on the ``_LOOKAHEAD`` most probable
        hypotheses of each cell: a right card conditions the cell it was played under
        and the switch posterior, then opens a context whose plays are scored by the
        mean entropy of their verdicts.
        """
        index = self.space_.context_index(context)
        if index is None:
            return binary_entropy(p_right)
        gain = np.zeros(len(hand))
        weights = self._switch_posterior()[0]
        live = np.flatnonzero(weights > _LEADING)
        if not len(live):  # the fallback holds the mass: no hypothesis to look ahead with
            return binary_entropy(p_right)
        values = self._values(context)
        tops = {}
        for s in live:
            for cell in self.switch_cells_[s]:
                tops[cell] = self._top(cell, min(_LOOKAHEAD, len(self.space_)))
        hypotheses = np.unique(np.concatenate(list(tops.values())))
        at = self.space_.bit_position(hypotheses)
        posteriors = {cell: self._cell(cell)[hypotheses] for cell in tops}
        faces = np.arange(N_FACES)
        for i, card in enumerate(hand):
            now = self.space_.verdict_bits(index * N_FACES + card.face, at).astype(np.float32)
            after_context = Context((*context.main_line, card), True)
            after = self.space_.context_index(after_context)
            if after is None:
                continue
            after_values = self._values(after_context)
            columns, mixed, fixed = [], [], 0.0
            for s in live:
                cell_now = None if values[s] is None else self.first_cell_[s] + values[s]
                p_now = 1.0
                if cell_now is not None:
                    p_now = _share(posteriors[cell_now], now)
                w = weights[s] * p_now  # the switch's weight once the card is right
                if after_values[s] is None:
                    fixed += w
                    continue
                cell_after = self.first_cell_[s] + after_values[s]
                column = posteriors[cell_after]
                if cell_after == cell_now:
                    column = column * now
                total = column.sum()
                if total > 0:
                    columns.append(column / total)
                    mixed.append(w)
            if not columns or sum(mixed) + fixed <= 0:  # surely wrong: it opens nothing
                continue
            said = weight_calling_right(
                self.space_, after * N_FACES + faces, np.stack(columns, axis=1), at
            )
            p_next = (said @ np.array(mixed) + fixed) / (sum(mixed) + fixed)
            playable = faces != card.face  # the card just played is on the line
            if context.main_line:
                playable &= faces != context.main_line[-1].face
            gain[i] = binary_entropy(p_next[playable]).mean()
        return binary_entropy(p_right) + p_right * gain

    # -- what the agent believes --------------------------------------------------------

    def _candidates(self, weights: np.ndarray) -> dict[tuple, float]:
        """The most probable hypotheses of each live switch and their probabilities.

        A key is ``(switch, rules)``, one base hypothesis per value; a switched rule
        with the same rule for every value is the plain rule, ``(0, (rule,))``.
        Besides each switch's best rules, the runner-ups of each cell are tried, so
        that refuted hypotheses leave others in their place.
        """
        found = set()
        for s in np.flatnonzero(weights > _LEADING):
            cells = self.switch_cells_[s]
            runners = [self._top(cell, min(_ALTERNATIVES, len(self.space_))) for cell in cells]
            best = [int(r[0]) for r in runners]
            for v, r in enumerate(runners):
                for rule in r:
                    rules = [*best[:v], int(rule), *best[v + 1 :]]
                    found.add((0, (rules[0],)) if len(set(rules)) == 1 else (int(s), tuple(rules)))
        return {key: self._probability(key, weights) for key in found}

    def _probability(self, key: tuple, weights: np.ndarray) -> float:
        """Posterior probability of a key (for a plain rule: under every switch)."""
        s, rules = key
        if s != 0:
            return float(weights[s] * self._product(s, rules))
        total = 0.0
        for t in np.flatnonzero(weights > _LIVE):
            total += weights[t] * self._product(t, rules * len(self.switches_[t].conditions))
        return float(total)

    def _product(self, s: int, rules: tuple) -> float:
        first = self.first_cell_[s]
        return math.prod(float(self._cell(first + v)[h]) for v, h in enumerate(rules))

    def _canonical(self, key: tuple) -> tuple:
        """The plain key of a rule switched on the last card, when the base space has it.

        ``if red(last) then black(card) else red(card)`` is ``color(card) !=
        color(last)``: one behaviour, whose probability is the sum of both keys'.
        """
        s, rules = key
        base = self.base_switch_.get(s)
        if base is not None:  # a template's rules are rules of its switch too
            key = s, rules = (base, rules)
        if s == 0 or self.switches_[s].reads != "last" or self.space_.slots != ("last",):
            return key
        if key not in self.canonical_:
            values = self._values_on_last(s)
            verdicts = np.stack([self.space_.verdicts(h) for h in rules])
            index = self.space_.index_of_verdicts(verdicts[values, np.arange(len(values))])
            self.canonical_[key] = key if index is None else (0, (index,))
        return self.canonical_[key]

    def _values_on_last(self, s: int) -> np.ndarray:
        """The value of switch ``s`` after each last card of the base space's contexts."""
        if s not in self.values_on_last_:
            switch, lasts = self.switches_[s], self.space_.contexts[:, 0]
            values = [switch.value(Context((face_card(f),))) for f in lasts]
            self.values_on_last_[s] = np.array(values)
        return self.values_on_last_[s]

    def _behaviours(self) -> dict[tuple, tuple[float, tuple]]:
        """The candidate behaviours not refuted: key -> (probability, one of its keys)."""
        if self.behaviours_ is None:
            self.behaviours_ = self._merge_behaviours()
        return self.behaviours_

    def _merge_behaviours(self) -> dict[tuple, tuple[float, tuple]]:
        weights = self._switch_posterior()[0]
        candidates = self._candidates(weights)
        merged: dict[tuple, tuple[float, tuple]] = {}
        for key, probability in candidates.items():
            behaviour = self._canonical(key)
            total, shown = merged.get(behaviour, (0.0, behaviour))
            merged[behaviour] = (total + probability, shown)
        for behaviour in merged.keys() - candidates.keys():  # met only through a switch
            total, shown = merged[behaviour]
            merged[behaviour] = (total + self._probability(behaviour, weights), shown)
        refuted = 0.0
        for key in self.refuted_:
            refuted += merged.pop(key, (self._probability(key, weights),))[0]
        scale = 1 / max(1 - refuted, 1e-12)
        return {key: (min(p * scale, 1.0), shown) for key, (p, shown) in merged.items()}

    def best_hypothesis(self) -> tuple[tuple, float] | None:
        """The most probable behaviour and its probability (see `propose_rule`)."""
        if not hasattr(self, "history_"):
            return None
        self._ensure()
        behaviours = self._behaviours()
        if not behaviours:
            return None
        key = max(behaviours, key=lambda k: (behaviours[k][0], -len(k[1])))
        return key, behaviours[key][0]

    def leader_verdicts(self, context: Context, faces) -> tuple[np.ndarray, np.ndarray]:
        """The probabilities of the most probable hypotheses and, for each, whether it
        calls each of ``faces`` right in ``context`` (`DeclaringHost`)."""
        behaviours = self._behaviours()
        index = self.space_.context_index(context)
        if index is None:
            return np.zeros(0), np.zeros((0, len(faces)), dtype=bool)
        probes = index * N_FACES + np.asarray(faces)
        values = self._values(context)
        probabilities, said = [], []
        for probability, (s, rules) in behaviours.values():
            probabilities.append(probability)
            if values[s] is None:
                said.append(np.ones(len(faces), dtype=bool))
            else:
                h = rules[values[s]]
                said.append(self.space_.verdict_bits(probes, h))
        return np.array(probabilities), np.array(said).reshape(len(said), len(faces))

    def ranked_hypotheses(self, n: int) -> list[tuple[tuple, float]]:
        """The ``n`` most probable behaviours and their probabilities, most probable first."""
        behaviours = self._behaviours()
        ranked = sorted(behaviours, key=lambda k: (-behaviours[k][0], len(k[1])))[:n]
        return [(key, behaviours[key][0]) for key in ranked]

    def refute(self, key: tuple) -> None:
        """Take a hypothesis out of the posterior: a wrong declaration named it."""
        self.refuted_.append(key)
        self.behaviours_ = None

    def hypothesis_text(self, key: tuple) -> str:
        """Rule text of a hypothesis: the most common rule is the ``else``."""
        s, rules = key
        texts = [self.space_.text(h) for h in rules]
        default = Counter(texts).most_common(1)[0][0]
        branches = [
            f"if {condition} then {text} else "
            for condition, text in zip(self.switches_[s].conditions, texts, strict=True)
            if text != default
        ]
        return "".join(branches) + default

    def propose_rule(self) -> tuple[str, float] | None:
        """The most probable hypothesis as rule text, and its posterior probability."""
        best = self.best_hypothesis()
        return None if best is None else (self.hypothesis_text(best[0]), self._stated(best[1]))
