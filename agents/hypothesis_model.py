"""The hypothesis model of the Bayesian agents: its space, prior, likelihood and cache.

`eleusis_agents.bayes.BayesAgent` and `eleusis_agents.bayes_context.ContextBayesAgent`
judge the rules of one model (see `eleusis_agents.bayes` for what it says):

- `ModelParams`: the parameters both agents take for it (and for declaring in solo),
  declared once, with their defaults and their checks;
- `HypothesisModel`: the model a game is played under, those parameters resolved for
  the game's traits (`resolve_productions`, `resolve_one_card`,
  `resolve_acceptability`): its ``space`` (the grammar's `HypothesisSpace`, with the
  one-card language, `eleusis_agents.one_card_space`), its prior (`log_prior`,
  `padded_log_prior`), its likelihood (``noise`` and ``fallback``: the mismatch counts
  of `eleusis_agents.posterior`) and what every game of it shares (`opening`,
  `root_counts`);
- `ModelCache`: that shared work, one object per model, kept as long as the space
  lives: every agent of a process that builds the same model gets the same cache.

Examples
--------
>>> from eleusis_lab.agent import GameTraits
>>> params = ModelParams(grammar="colours_suits", max_hypotheses=500, one_card=0)
>>> model = HypothesisModel.build(params, GameTraits())
>>> len(model.space), model.acceptability, model.noise
(500, 'dealer', 0.005)
>>> model.cache is HypothesisModel.build(params, GameTraits()).cache  # one per model
True
>>> round(float(np.exp(model.log_prior()).sum()), 6)
1.0
"""

from __future__ import annotations

import dataclasses
import math
import weakref
from typing import Any

import numpy as np

from eleusis_agents.one_card_space import OneCardSpace, with_one_card
from eleusis_agents.posterior import PrunedWeights, Pruner, count_mismatches
from eleusis_agents.solo_declaring import DECLARING, calibration_map
from eleusis_lab.agent import GameTraits
from eleusis_lab.calibration import CalibrationMap
from eleusis_lab.cards import N_FACES
from eleusis_lab.rules.analysis import QUARTER_OF_THE_DECK
from eleusis_lab.rules.enumerate import build_space, check_max_hypotheses
from eleusis_lab.rules.grammar import LEARNER_GRAMMAR, Grammar, get_grammar
from eleusis_lab.rules.prior import UNIFORM, ProductionPrior, get_prior
from eleusis_lab.rules.space import HypothesisSpace, unpack_verdicts

__all__ = [
    "ACCEPTABILITY",
    "PRIORS",
    "SOLO_ONE_CARD",
    "SOLO_PRODUCTIONS",
    "Counts",
    "HypothesisModel",
    "ModelCache",
    "ModelParams",
    "Opening",
    "base_log_prior",
    "resolve_acceptability",
    "resolve_one_card",
    "resolve_productions",
]

ACCEPTABILITY = ("auto", "dealer", "solo")
PRIORS = ("bits", "shortest", "uniform", "spread")
#: The mass of the one-card language fitted for solo (`eleusis_agents.bayes`).
SOLO_ONE_CARD = 0.25
#: The production prior of solo: fitted on the catalog and the rules people write.
SOLO_PRODUCTIONS = "people"


def resolve_productions(productions: str | ProductionPrior, traits: GameTraits) -> ProductionPrior:
    """The production prior: ``"auto"`` is the prior fitted on the rules people write
    (``people``) where the benchmark chose the rule (`GameTraits.rule_from`, solo),
    where it was validated on rules it was not fitted to, and the hand-set one where a
    dealer did (as before).

    >>> benchmark = GameTraits(rule_from="benchmark")
    >>> resolve_productions("auto", benchmark).name, resolve_productions("auto", GameTraits()).name
    ('people', 'hand-set')
    """
    if productions == "auto":
        productions = SOLO_PRODUCTIONS if traits.rule_from == "benchmark" else UNIFORM
    return get_prior(productions)


def resolve_acceptability(acceptability: str, traits: GameTraits) -> str:
    """``"dealer"`` or ``"solo"``: which rules the game's rule may be
    (`eleusis_agents.bayes`); ``"auto"`` follows who chose it (`GameTraits.rule_from`).

    >>> benchmark = GameTraits(rule_from="benchmark")
    >>> resolve_acceptability("auto", benchmark), resolve_acceptability("auto", GameTraits())
    ('solo', 'dealer')
    >>> resolve_acceptability("dealer", benchmark)
    'dealer'
    """
    if acceptability != "auto":
        return acceptability
    return "solo" if traits.rule_from == "benchmark" else "dealer"


def resolve_one_card(one_card: float | str, traits: GameTraits) -> float:
    """The one-card language's mass: ``"auto"`` is the mass fitted for solo where the
    benchmark chose the rule (`GameTraits.rule_from`) and 0 where a dealer did, where it
    was not fitted (the grammar alone, as before).

    >>> benchmark = GameTraits(rule_from="benchmark")
    >>> resolve_one_card("auto", benchmark), resolve_one_card("auto", GameTraits())
    (0.25, 0.0)
    >>> resolve_one_card(0.1, GameTraits())
    0.1
    """
    if one_card != "auto":
        return float(one_card)
    return SOLO_ONE_CARD if traits.rule_from == "benchmark" else 0.0


@dataclasses.dataclass
class ModelParams:
    """The parameters `eleusis_agents.bayes.BayesAgent` and
    `eleusis_agents.bayes_context.ContextBayesAgent` share, with their defaults: the
    model's, and when to declare in solo and what to state (documented with
    `eleusis_agents.bayes.BayesAgent`). The agents keep each as an attribute of the
    same name (their ``get_params``); `of` reads them back.

    >>> ModelParams().noise, ModelParams(noise=0.1).noise
    (0.005, 0.1)
    >>> ModelParams(fallback=1.0).check()
    Traceback (most recent call last):
    ...
    ValueError: fallback must be in [0, 1), got 1.0
    """

    grammar: str | Grammar = LEARNER_GRAMMAR
    max_hypotheses: int = 100_000
    noise: float = 0.005
    fallback: float = 0.01
    prior: str = "bits"
    productions: str | ProductionPrior = "auto"
    unacceptable: float = 1e-3
    acceptability: str = "auto"
    one_card: float | str = "auto"
    declaring: str = "expected_score"
    calibrated_decisions: bool = False
    declare_confidence: float = 2 / 3
    calibration: str | CalibrationMap | None = "default"

    @classmethod
    def of(cls, agent) -> ModelParams:
        """The parameters as ``agent`` holds them now (`set_params` may change them)."""
        return cls(**{field.name: getattr(agent, field.name) for field in dataclasses.fields(cls)})

    def grammar_in(self, traits: GameTraits) -> Grammar:
        """The grammar in a game of ``traits``, priced by the production prior
        (`resolve_productions`).

        >>> ModelParams(productions="people").grammar_in(GameTraits()).prior.name
        'people'
        """
        prior = resolve_productions(self.productions, traits)
        return dataclasses.replace(get_grammar(self.grammar), prior=prior)

    def check(self, agent=None) -> None:
        """Raise ``ValueError`` naming the first parameter out of its range; ``agent``:
        the agent whose default calibration map ``calibration="default"`` names."""
        self.grammar_in(GameTraits())  # raises on an unknown preset or production prior
        check_max_hypotheses(self.max_hypotheses)
        if not 0 < self.noise < 0.5:
            raise ValueError(f"noise must be in (0, 0.5), got {self.noise!r}")
        if not 0 <= self.fallback < 1:
            raise ValueError(f"fallback must be in [0, 1), got {self.fallback!r}")
        if self.prior not in PRIORS:
            raise ValueError(f"prior must be one of {', '.join(PRIORS)}, got {self.prior!r}")
        if not 0 <= self.unacceptable <= 1:
            raise ValueError(f"unacceptable must be in [0, 1], got {self.unacceptable!r}")
        if self.one_card != "auto" and not (
            isinstance(self.one_card, int | float) and 0 <= self.one_card < 1
        ):
            raise ValueError(f"one_card must be 'auto' or in [0, 1), got {self.one_card!r}")
        if self.acceptability not in ACCEPTABILITY:
            raise ValueError(
                f"acceptability must be one of {', '.join(ACCEPTABILITY)}, "
                f"got {self.acceptability!r}"
            )
        if self.declaring not in DECLARING:
            raise ValueError(
                f"declaring must be one of {', '.join(DECLARING)}, got {self.declaring!r}"
            )
        if not 0 < self.declare_confidence <= 1:
            raise ValueError(
                f"declare_confidence must be in (0, 1], got {self.declare_confidence!r}"
            )
        calibration_map(self.calibration, agent)


def keep_params(agent, arguments: dict[str, Any]) -> None:
    """Keep each constructor argument of ``agent`` as the attribute of its name (what
    ``get_params`` reads); ``arguments``: the constructor's ``locals()``."""
    for name in agent._param_names():
        setattr(agent, name, arguments[name])


def base_log_prior(
    space: HypothesisSpace | OneCardSpace,
    prior: str,
    unacceptable: float,
    whole: bool = True,
    acceptability: str = "dealer",
) -> np.ndarray:
    """The normalised log prior of each hypothesis of ``space`` (`eleusis_agents.bayes`).

    ``whole``: the hypotheses are whole rules, so ``true`` (and, in solo, ``false``)
    counts as one with nothing to find; not so for the rule of one context of a
    switched rule (`eleusis_agents.bayes_context`). ``acceptability``: ``"dealer"`` (the
    quarter-of-the-deck test) or ``"solo"`` (no test). `HypothesisModel.log_prior` keeps it
    for every game of a model.

    >>> from eleusis_lab.rules import parse
    >>> space = build_space("colours_suits", max_hypotheses=3, cache=False)
    >>> [space.text(h) for h in range(3)]
    ['true', 'false', 'red(card)']
    >>> np.exp(base_log_prior(space, "uniform", 0.5)).round(2).tolist()  # x 0.5: true, false
    [0.25, 0.25, 0.5]
    >>> np.exp(base_log_prior(space, "uniform", 0.5, whole=False)).round(2).tolist()
    [0.4, 0.2, 0.4]
    >>> space = build_space("standard", max_hypotheses=2000, cache=False)
    >>> king, red = (space.index_of(parse(t)) for t in ("rank(card) == king", "red(card)"))
    >>> dealer = base_log_prior(space, "bits", 1e-3)
    >>> solo = base_log_prior(space, "bits", 1e-3, acceptability="solo")
    >>> round(float(np.exp(solo[king] - solo[red] - dealer[king] + dealer[red])))
    1000
    """
    if prior in ("bits", "spread"):
        log_prior = np.asarray(space.log_prior, dtype=np.float64)
        if prior == "spread":  # every band of one bit holds the same total
            band = np.floor(np.asarray(space.bits)).astype(np.int64)
            totals = np.full(band.max() + 1, -np.inf)
            np.logaddexp.at(totals, band, log_prior)
            log_prior = log_prior - totals[band]
    elif prior == "shortest":
        log_prior = -np.asarray(space.bits) * math.log(2)
    else:
        log_prior = np.zeros(len(space))
    if unacceptable < 1:
        penalty = math.log(unacceptable) if unacceptable else -np.inf
        if acceptability == "dealer":
            fails = space.fewest_right < QUARTER_OF_THE_DECK
        else:
            fails = np.zeros(len(space), dtype=bool)
        if whole:
            fails |= space.fewest_right == N_FACES  # true: no card is ever wrong
            if acceptability == "solo":  # false: every card is wrong, there is no starter
                fails |= ~_ever_right(space)
        log_prior = np.where(fails, log_prior + penalty, log_prior)
    top = log_prior.max()  # log-sum-exp: 20 times faster than np.logaddexp.reduce
    return log_prior - (top + math.log(np.exp(log_prior - top).sum()))


class ModelCache:
    """What every game of one model computes alike, computed once: the log priors
    (`HypothesisModel.log_prior`, `HypothesisModel.padded_log_prior`), the openings by
    fallback weight (`HypothesisModel.opening`) and the counts before any play
    (`HypothesisModel.root_counts`).

    One per model and space, found by `for_model`: it lives as long as the space (the
    spaces `build_space` and `with_one_card` keep), and holds no reference to it.
    """

    def __init__(self):
        self.log_priors: dict[bool, np.ndarray] = {}  # whole -> base_log_prior
        self.padded: np.ndarray | None = None
        self.openings: dict[float, Opening] = {}  # fallback log weight -> Opening
        self.root: Counts | None = None

    @classmethod
    def for_model(cls, space: HypothesisSpace | OneCardSpace, key: tuple) -> ModelCache:
        """The cache of the model ``key`` names over ``space``: the same object for
        every agent of the process that builds that model."""
        caches = _CACHES.setdefault(space, {})
        if key not in caches:
            caches[key] = cls()
        return caches[key]


#: The process's caches, per space (as long as it lives) and model key.
_CACHES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class HypothesisModel:
    """A Bayesian agent's model in a game: the hypotheses, their prior, the likelihood
    of a verdict, and the `ModelCache` its games share.

    Parameters
    ----------
    space : HypothesisSpace or OneCardSpace
        The hypotheses (`build`: the grammar's space, with the one-card language).
    prior : {"bits", "shortest", "uniform", "spread"}
        The prior over them (`base_log_prior`).
    unacceptable : float
        Factor on the prior of hypotheses the game's rule cannot be.
    acceptability : {"dealer", "solo"}
        Which those are.
    fallback : float
        Prior of "none of the above": the hypotheses share ``1 - fallback``.
    noise : float
        Probability that a verdict disagrees with the true hypothesis.

    Examples
    --------
    >>> space = build_space("colours_suits", max_hypotheses=3, cache=False)
    >>> model = HypothesisModel(space, "uniform", 1.0, "dealer", fallback=0.5)
    >>> log_prior = model.padded_log_prior()  # padded to the verdict table's rows
    >>> log_prior.dtype.name, [round(float(p), 3) for p in np.exp(log_prior)]
    ('float32', [0.167, 0.167, 0.167, 0.0, 0.0, 0.0, 0.0, 0.0])
    >>> model.padded_log_prior() is log_prior  # the next games reuse it
    True
    """

    def __init__(
        self,
        space: HypothesisSpace | OneCardSpace,
        prior: str = "bits",
        unacceptable: float = 1e-3,
        acceptability: str = "dealer",
        fallback: float = 0.01,
        noise: float = 0.005,
    ):
        self.space = space
        self.prior, self.unacceptable = prior, float(unacceptable)
        self.acceptability = acceptability
        self.fallback, self.noise = float(fallback), float(noise)
        # the space (which holds the one-card mass) and these determine every array
        self.key = (prior, self.unacceptable, acceptability, self.fallback, self.noise)
        self.cache = ModelCache.for_model(space, self.key)

    @classmethod
    def build(cls, params: ModelParams, traits: GameTraits) -> HypothesisModel:
        """The model of ``params`` in a game of ``traits``: the space built or loaded
        (`build_space`, cached in the process and on disk), ``"auto"`` resolved."""
        space = build_space(params.grammar_in(traits), params.max_hypotheses)
        space = with_one_card(space, resolve_one_card(params.one_card, traits))
        acceptability = resolve_acceptability(params.acceptability, traits)
        return cls(
            space, params.prior, params.unacceptable, acceptability, params.fallback, params.noise
        )

    def log_prior(self, whole: bool = True) -> np.ndarray:
        """`base_log_prior` of the space (float64, normalised, read-only).

        ``whole=False``: the prior of the rule of one context of a switched rule
        (`eleusis_agents.bayes_context`), where ``true`` is a rule like any other.
        """
        cached = self.cache.log_priors
        if whole not in cached:
            log_prior = base_log_prior(
                self.space, self.prior, self.unacceptable, whole, self.acceptability
            )
            log_prior.flags.writeable = False
            cached[whole] = log_prior
        return cached[whole]

    def padded_log_prior(self) -> np.ndarray:
        """`log_prior` scaled to ``1 - fallback``, float32, over the `padded_size` of
        the space (the padding at ``-inf``): the log prior `BayesAgent` weighs.

        Read-only (each game took 0.2 ms per agent to redo it): an agent copies it.
        """
        if self.cache.padded is None:
            log_prior = self.log_prior()
            if self.fallback > 0:
                log_prior = log_prior + math.log1p(-self.fallback)
            padded = np.full(self.space.padded_size, -np.inf, dtype=np.float32)
            padded[: len(self.space)] = log_prior
            padded.flags.writeable = False
            self.cache.padded = padded
        return self.cache.padded

    def opening(self, fallback_log_weight: float) -> Opening:
        """The `Opening`: the posterior of `padded_log_prior` before any play, with
        "none of the above" at ``fallback_log_weight``."""
        openings = self.cache.openings
        if fallback_log_weight not in openings:
            log_prior = self.padded_log_prior()
            zeros = np.zeros(len(log_prior), np.uint16)
            post = Pruner().weigh(zeros, log_prior, self.noise, fallback_log_weight)
            openings[fallback_log_weight] = Opening(post)
        return openings[fallback_log_weight]

    def root_counts(self) -> Counts:
        """The `Counts` of no play: the root of the counts the model's agents share."""
        if self.cache.root is None:
            root = Counts(np.zeros(self.space.padded_size, np.uint16), Pruner())
            root.mismatches.flags.writeable = False  # shared by every game's agents
            self.cache.root = root
        return self.cache.root


class Opening:
    """The posterior of an agent that has seen no play in its space (`Pruner.weigh` of
    zero counts), and the weight calling each probe right under it, filled as asked.

    It depends only on the model, not on the game: every game's first decision asked
    for the same weights and the same products, at 10**6 hypotheses a pass over 4 MB
    for each probe. Kept by the model's cache (`HypothesisModel.opening`), read-only.
    """

    def __init__(self, post: PrunedWeights):
        post.weights.flags.writeable = False
        self.post = post
        self.said: dict[int, float] = {}  # probe -> weight_calling_right of post.weights


class Counts:
    """The mismatch counts after a sequence of plays in a space, shared by the agents
    of one model that saw the same plays, with their posterior.

    In a game every agent learns every play, so four ``bayes`` seats counted each play
    four times and weighed the same counts four times. The counts after a play are a
    child of those before it (`after`), made by the first agent to learn it and found
    by the others; a child lives while an agent holds it. The weights are a function
    of the counts, the log prior and the fallback's weight (`Pruner.weigh` gives the
    same for any candidates a `Pruner` noted on fewer plays of the same game), so the
    agents get the very arrays each would have computed. An agent that refuted a
    hypothesis (solo) has its own prior and weighs the counts itself.

    Counts no other agent took (an agent alone of its model) are counted in place, as
    before sharing: a new array for each play cost a lone agent 13 us a play.
    """

    __slots__ = ("__weakref__", "children", "key", "mismatches", "parent", "post", "pruner")

    def __init__(self, mismatches: np.ndarray, pruner: Pruner, parent=None, key=None):
        self.mismatches = mismatches
        self.pruner = pruner
        self.children: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
        self.post: tuple[float, PrunedWeights] | None = None  # (fallback log weight, post)
        # the counts before the play ``key`` (a weak reference), until another agent
        # takes these counts (then None: shared, never changed again)
        self.parent, self.key = parent, key

    def after(self, space, probe: int, right: bool) -> Counts:
        """The counts after one more play, ``probe`` judged ``right``."""
        key = (probe, right)
        child = self.children.get(key)
        if child is not None:  # another agent's: shared from now on
            child.parent = None
            child.mismatches.flags.writeable = False
            return child
        if self.parent is not None:  # no other agent holds these counts: in place
            parent = self.parent()
            if parent is not None and parent.children.get(self.key) is self:
                del parent.children[self.key]  # no longer the counts after that play
            count_mismatches(self.mismatches, space, probe, right)
            self.post, self.parent = None, _detached
            return self
        fresh = np.empty_like(self.mismatches)
        mismatches = count_mismatches(self.mismatches, space, probe, right, out=fresh)
        pruner = Pruner(self.pruner.prune, self.pruner.slack)
        pruner.candidates = self.pruner.candidates  # noted on fewer of these plays
        child = self.children[key] = Counts(mismatches, pruner, weakref.ref(self), key)
        return child

    def weigh(self, log_prior: np.ndarray, noise: float, fallback: float) -> PrunedWeights:
        """`Pruner.weigh` of these counts, kept for the next agent with the same
        fallback weight."""
        if self.post is None or self.post[0] != fallback:
            self.post = (fallback, self.pruner.weigh(self.mismatches, log_prior, noise, fallback))
        return self.post[1]


def _detached() -> None:
    """The parent of counts changed in place, as a dead weak reference: no counts have
    them as a child, and they are still no other agent's."""


def _ever_right(space: HypothesisSpace | OneCardSpace) -> np.ndarray:
    """For each hypothesis, whether it calls some face right in some context."""
    return unpack_verdicts(np.bitwise_or.reduce(space.table, axis=0), len(space))
