"""A Bayesian agent: exact inference over every rule of a grammar, up to a size.

`BayesAgent` holds a posterior over the hypotheses of a
`eleusis_lab.rules.space.HypothesisSpace` (distinct behaviours of the rules of a
grammar, each with the prior mass of its formulas under the description-length prior),
and of the one-card language (`eleusis_agents.faces`: the sets of faces people name in one
sentence, "only cards from 3 to 8", which the grammar prices beyond its space), plus
one "none of the above" hypothesis for rules outside both. It learns from
every public play, its own and the other players', right and wrong.

The model
---------
One `eleusis_agents.hypothesis_model.HypothesisModel`, which
`eleusis_agents.bayes_context.ContextBayesAgent` builds too:

- Prior: a mixture of the two languages (`eleusis_agents.one_card_space`), the one-card language
  with mass ``one_card``, a face set both hold getting both masses. For solo, 1/4 is
  fitted: chosen from 0, 0.02, 0.1, 0.25 and 0.5 by the mean floored solo score on the
  rules people write, on 5 folds of the rules stratified by family (0.25 in three folds,
  0.1 in two; 1/2, fixed before measuring, cost the rules on the last card 2.3 points);
  see the guide's benchmarks page (docs/guide/benchmarks.md) for the held-out figures.
  The default, ``"auto"``, is that mass in solo and 0 (the grammar alone) in the other
  games, where it was not fitted. Within
  the grammar, a hypothesis's summed formula mass
  ``sum 2 ** -bits`` (``prior="bits"``; the bits of each production are those of the
  ``productions`` prior, `eleusis_lab.rules.prior`: in solo by default the one fitted
  on the catalog and the rules people write, elsewhere the hand-set one), or
  ``2 ** -bits`` of its shortest formula only (``"shortest"``), or ``"uniform"``, or
  ``"spread"``: the summed mass, rescaled so that every band of one bit (by the
  shortest formula) holds the same total, as the ``spread`` dealer spreads its rules;
  times ``unacceptable`` for a hypothesis the
  game's rule cannot be (``acceptability``): where a dealer chooses the rule
  (``"dealer"``: classic, Delphi ...), one that leaves fewer than 13 faces right in some
  context (RULES.md section 1, item 8) and ``true``, which rejects no card: with it
  nobody could ever be wrong, and there would be nothing to find (a rule of one node, it
  would otherwise hold about half of the mass the other rules a dealer may choose leave;
  its tautologies add a sixth to its own). In solo (``"solo"``) no test of acceptability
  applies: ``rank(card) == king`` is a rule like any other, and only the two with
  nothing to find are unlikely, ``true`` and a rule that rejects every card (``false``:
  no starter could be drawn under it). ``"auto"`` (the default) is ``"solo"`` in the
  solo game, ``"dealer"`` elsewhere. Scaled to ``1 - fallback``. The fallback
  hypothesis gets ``fallback``.
- Likelihood: a hypothesis says right or wrong for each play; the dealer's verdict
  disagrees with it with probability ``noise`` (so one surprise costs a factor
  ``noise / (1 - noise)``, it does not empty the posterior). The fallback predicts
  "right" with the Laplace-smoothed rate of right plays so far, the same for every card.
- The posterior is kept as one mismatch count per hypothesis (uint16): the log
  posterior of hypothesis ``h`` after ``n`` plays with ``m_h`` disagreements is
  ``log prior_h + m_h log noise + (n - m_h) log (1 - noise)``. An update reads one
  packed row of the verdict table (the verdicts of all hypotheses on the play) and
  adds it to the counts; a prediction is one dot product per card. Both are numpy
  passes over the hypotheses, never a Python loop over them (`eleusis_agents.posterior`).

Policies (``policy``)
---------------------
- ``"greedy"``: the card most probably right.
- ``"info_gain"``: the card whose verdict tells most about the rule (expected
  information gain; every hypothesis has the same noise, so this is the card whose
  probability of being right is closest to 1/2).
- ``"lookahead"``: information gain now, plus, for a card that may be right, the
  mean information gain of the next play in the context it opens (weighted by the
  probability that it is right): it also seeks the contexts that tell hypotheses
  apart (a face card on the line, for a rule that reads ``face(last)``). A few ms
  per decision (it conditions on the 2048 most probable hypotheses).
- ``"mix"``: maximises ``(1 - mix) * P(right) + mix * information gain (bits)``.
- ``"thompson"``: draws one hypothesis from the posterior and plays a card it says is
  right (the most probable card if it holds none, or if the fallback is drawn).
- ``"auto"`` (the default): ``"lookahead"`` where a wrong card costs nothing and only
  finding the rule counts (``GameInfo.traits.scored_on == "finding"``: the solo
  game); ``"mix"`` elsewhere.

Every ``"auto"`` follows the game's `eleusis_lab.agent.GameTraits`, never its name:
"in solo" above is where the benchmark chose the rule (``rule_from == "benchmark"``).

Exploring has a price at the table: in four-player games over the catalog, agents
playing by information gain identify rules fastest but end phase 1 with about twice
as many wrong cards as greedy ones; ``"mix"`` with ``mix=0.5`` scores best of the
four and identifies more rules than greedy play. For rule identification alone, use
``"lookahead"`` or ``"info_gain"`` (see ``eleusis_agents.bayes_bench``).

Declaring (solo, `SoloDeclaring`): the most probable hypothesis from probability 2/3,
or, once the next plays cannot make the agent surer, from the probability at which
declaring breaks even; a declaration the game
answers by going on is wrong, and its hypothesis leaves the posterior.

Once a few plays are seen, predictions only visit the hypotheses within 20 nats of the
best one (`eleusis_agents.posterior.Pruner`): each of those left out weighs under
``e**-20`` of the best, all of them under 2e-4 of it at 10**5 hypotheses, so late
decisions are cheap. (At 40 nats, before, the first dozen plays of a game visited
most of the hypotheses, and a decision took 0.56 ms instead of 0.41.)

Examples
--------
>>> from eleusis_agents.simple import RandomAgent
>>> from eleusis_lab.games.classic import play_classic
>>> from eleusis_lab.rules import parse
>>> agent = BayesAgent(grammar="colours_suits", max_hypotheses=2000)
>>> record = play_classic("color(card) != color(last)", [agent, RandomAgent()], seed=1)
>>> rule, mass = agent.propose_rule()
>>> rule, mass > 0.99
('color(card) != color(last)', True)
>>> agent.identified_mass(parse("if red(last) then black(card) else red(card)")) > 0.99
True
"""

from __future__ import annotations

import numpy as np

from eleusis_agents.hypothesis_model import (
    ACCEPTABILITY,
    PRIORS,
    HypothesisModel,
    ModelParams,
    Opening,
    keep_params,
    resolve_acceptability,
)
from eleusis_agents.one_card_space import OneCardSpace
from eleusis_agents.posterior import (
    LaplaceFallback,
    Leaders,
    PrunedWeights,
    Pruner,
    weight_calling_right,
)
from eleusis_agents.solo_declaring import JudgeGroups, SoloDeclaring, accepted_on_continuations
from eleusis_lab.agent import GameInfo, LearningAgent, Observation
from eleusis_lab.blas import limited_threads
from eleusis_lab.calibration import CalibrationMap
from eleusis_lab.cards import N_FACES, Card
from eleusis_lab.games.new_eleusis import NewEleusisDecisions
from eleusis_lab.rules import Context, Rule, parse
from eleusis_lab.rules.grammar import Grammar
from eleusis_lab.rules.prior import ProductionPrior
from eleusis_lab.rules.space import HypothesisSpace

__all__ = ["ACCEPTABILITY", "POLICIES", "PRIORS", "BayesAgent"]

POLICIES = ("auto", "greedy", "info_gain", "lookahead", "mix", "thompson")
_DEFAULT = ModelParams()  # the defaults of the parameters shared with ContextBayesAgent
_TIE = 1e-6  # scores this close are a tie, broken with the game's generator
_BLOCK = 4096  # hypotheses per block when drawing one from the posterior
_LOOKAHEAD = 2048  # most probable hypotheses the lookahead policy conditions on
_LEADERS = 256  # most probable hypotheses that tell whether a play can teach more
_WATCHED = 32  # most probable hypotheses that bound the best one's probability
_JUDGED = 128  # most probable hypotheses weighed for the published judge in solo


def binary_entropy(p: np.ndarray) -> np.ndarray:
    """Binary entropy in bits."""
    p = np.clip(np.asarray(p, dtype=np.float64), 1e-12, 1 - 1e-12)
    return -(p * np.log2(p) + (1 - p) * np.log2(1 - p))


class BayesAgent(SoloDeclaring, NewEleusisDecisions, LearningAgent):
    """Bayesian rule induction over an enumerated grammar (see the module docstring).

    Parameters
    ----------
    grammar : str or Grammar
        A preset of `eleusis_lab.rules.grammar.GRAMMARS` or a `Grammar`: what the
        agent can conceive of. The default, ``relational``, is the standard grammar
        in which comparing one feature of two cards is cheap (`Grammar.copies`).
    max_hypotheses : int
        The number of distinct behaviours, most probable first.
    noise : float
        Probability that a verdict disagrees with the true hypothesis, in (0, 0.5).
    fallback : float
        Prior probability that the rule is none of the hypotheses, in [0, 1).
    policy : {"auto", "greedy", "info_gain", "lookahead", "mix", "thompson"}
        How to choose a card (see the module docstring).
    mix : float
        Weight of the information gain in the ``"mix"`` policy, in [0, 1].
    prior : {"bits", "shortest", "uniform", "spread"}
        The prior over hypotheses.
    productions : str or ProductionPrior
        What each production of the grammar costs in that prior's bits
        (`eleusis_lab.rules.prior.get_prior`): ``"hand-set"``, every alternative of a
        choice equally likely; ``"people"``, the probabilities fitted on the catalog and
        the rules people write (``eleusis-lab bench prior``); a path to a prior; or
        ``"auto"`` (the default), ``people`` in solo and ``hand-set`` elsewhere
        (`resolve_productions`).
    unacceptable : float
        Factor on the prior of hypotheses the game's rule cannot be, in [0, 1]: 0 rules
        them out, 1 ignores the test.
    one_card : float or "auto"
        Prior mass of the one-card language (`eleusis_agents.faces`: the rules on the card
        alone people say in one sentence, added to the space by
        `eleusis_agents.one_card_space`), in [0, 1); the grammar's hypotheses share the rest.
        0 leaves it out; ``"auto"`` (the default) is the mass fitted for solo, 0.25, in
        solo and 0 elsewhere (`resolve_one_card`).
    acceptability : {"auto", "dealer", "solo"}
        Which hypotheses those are: ``"dealer"``, those a dealer would not choose (they
        fail the quarter-of-the-deck test, or reject nothing); ``"solo"``, only those
        with nothing to find (``true``, and ``false``: no test of acceptability applies
        in solo); ``"auto"`` (the default), ``"solo"`` in the solo game, ``"dealer"``
        elsewhere.
    declaring : {"expected_score", "threshold"}
        Solo: when to declare (`SoloDeclaring`). ``"expected_score"`` (the default):
        when declaring the hypothesis the published judge most probably accepts pays
        more than waiting a turn; ``"threshold"``: the former rule, from
        ``declare_confidence`` on the most probable hypothesis.
    calibrated_decisions : bool
        Solo: decide when to declare on what the calibration map makes of the
        probability that the judge accepts (`SoloDeclaring`), not on that probability
        itself (default False).
    declare_confidence : float
        Solo, ``declaring="threshold"``: the probability from which the best hypothesis
        is declared (see `SoloDeclaring`), in (0, 1].
    calibration : None, str or CalibrationMap
        Solo: the map from posterior probability to the confidence it states with its
        tentative rule and its declarations (`eleusis_lab.calibration`; it declares as
        without it): None for the posterior itself, a path to a map's JSON, or
        ``"default"`` (the default) for the map fitted to this agent's default model on
        the rules people write and shipped with it (`calibration_map`; another model
        states its posterior). Other games state the posterior.

    Attributes
    ----------
    model_ : HypothesisModel
        The model of the game being played (`eleusis_agents.hypothesis_model`): its
        space, prior and likelihood, and the cache its games share.
    space_ : HypothesisSpace or OneCardSpace
        The hypotheses, the one-card language's included (shared between agents and
        cached; never pickled).
    mismatches_ : ndarray of uint16
        For each hypothesis, how many plays it judged differently from the dealer
        (read-only: ``counts_.mismatches``).
    counts_ : Counts
        Those counts, shared with the agents of the same model that saw the same plays.
    history_ : list of (int, bool)
        Each play seen: its probe index in the space (-1 outside it) and its verdict.
    """

    def __init__(
        self,
        grammar: str | Grammar = _DEFAULT.grammar,
        max_hypotheses: int = _DEFAULT.max_hypotheses,
        noise: float = _DEFAULT.noise,
        fallback: float = _DEFAULT.fallback,
        policy: str = "auto",
        mix: float = 0.5,
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
        if self.policy not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {self.policy!r}")
        if not 0 <= self.mix <= 1:
            raise ValueError(f"mix must be in [0, 1], got {self.mix!r}")

    def start_game(self, info: GameInfo, rng: np.random.Generator) -> None:
        super().start_game(info, rng)
        self.check_params()
        self.history_: list[tuple[int, bool]] = []
        self.n_seen_ = 0  # plays in contexts of the space
        self.fallback_ = LaplaceFallback()
        self.refuted_: list[int] = []  # hypotheses declared in solo, and so wrong
        self._load_space()

    def _load_space(self) -> None:
        """Attach the model (its space cached) and rebuild the counts from ``history_``."""
        self.model_ = model = HypothesisModel.build(ModelParams.of(self), self._traits())
        self.space_ = space = model.space
        # the hypotheses' arrays are padded to line up with the table's rows
        self.log_prior_ = model.padded_log_prior().copy()  # a refutation writes to it
        self.log_prior_[getattr(self, "refuted_", [])] = -np.inf
        counts = model.root_counts()
        for probe, right in getattr(self, "history_", ()):
            if probe >= 0:
                counts = counts.after(space, probe, right)
        self.counts_ = counts  # shared with the agents of the model that saw these plays
        self.mismatches_ = counts.mismatches
        self.posterior_cache_ = None
        self.opening_: Opening | None = None  # the shared posterior before any play
        self.pruner_ = Pruner()
        self.leaders_: Leaders | None = None  # for `confident_proposal`

    def _acceptability(self) -> str:
        return resolve_acceptability(self.acceptability, self._traits())

    def _ensure(self) -> None:
        if getattr(self, "space_", None) is None:
            self._load_space()

    # -- pickling: parameters and what was seen, never the table ------------------------

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        rebuilt = ("space_", "model_", "log_prior_", "counts_", "mismatches_", "posterior_cache_")
        for name in (*rebuilt, "opening_", "pruner_", "leaders_"):
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.space_ = None  # rebuilt on first use, from the in-process or disk cache

    # -- learning -----------------------------------------------------------------------

    def learn(self, context: Context, card: Card, right: bool) -> None:
        self._ensure()
        right = bool(right)
        index = self.space_.context_index(context)
        probe = -1 if index is None else index * N_FACES + card.face
        self.fallback_.learn(right)
        self.history_.append((probe, right))
        if probe >= 0:
            self.n_seen_ += 1
            self.counts_ = self.counts_.after(self.space_, probe, right)
            self.mismatches_ = self.counts_.mismatches
        self.posterior_cache_ = None

    def _posterior(self) -> PrunedWeights:
        """The current posterior, without the hypotheses far below the best (`Pruner`);
        cached until the next play is learned."""
        if self.posterior_cache_ is None:
            fallback = self._fallback_log_weight()
            if self._opening(fallback) is not None:
                self.posterior_cache_ = self.opening_.post
            elif not self.refuted_:  # the prior of the model: weighed once for its agents
                self.posterior_cache_ = self.counts_.weigh(self.log_prior_, self.noise, fallback)
            else:
                self.posterior_cache_ = self.pruner_.weigh(
                    self.mismatches_, self.log_prior_, self.noise, fallback
                )
        return self.posterior_cache_

    def _opening(self, fallback: float) -> Opening | None:
        """The shared `Opening` while no play in the space is seen and nothing refuted
        (its weights are then the agent's own, to the bit), else None."""
        self.opening_ = None
        if self.n_seen_ == 0 and not self.refuted_:
            self.opening_ = self.model_.opening(fallback)
        return self.opening_

    def _fallback_log_weight(self) -> float:
        # the hypotheses' weights leave out the (1 - noise) of the plays they judged
        return self.fallback_.log_weight(self.fallback, self.noise, self.n_seen_)

    # -- predicting -----------------------------------------------------------------------

    @limited_threads
    def _said_right(self, probes: np.ndarray) -> np.ndarray:
        """Posterior weight of the hypotheses that say each probe is right."""
        post, space = self._posterior(), self.space_
        if post.active is not None:
            return weight_calling_right(space, probes, post.weights, post.position)
        # a probe at a time: no (probes x hypotheses) float matrix
        opening = self.opening_ if self.opening_ and post is self.opening_.post else None
        said = np.empty(len(probes))
        for i, probe in enumerate(probes.tolist()):
            if opening is not None and probe in opening.said:
                said[i] = opening.said[probe]
                continue
            said[i] = float(weight_calling_right(space, probe, post.weights))
            if opening is not None:
                opening.said[probe] = said[i]
        return said

    def _right_probabilities(self, context: Context, faces) -> np.ndarray:
        """P(right) of each face in ``context``, vectorised over hypotheses."""
        self._ensure()
        post = self._posterior()
        index = self.space_.context_index(context)
        faces = np.asarray(faces, dtype=np.int64)
        rate = self.fallback_.rate
        if index is None:  # a context the grammar cannot tell apart (e.g. an empty line)
            return np.full(len(faces), rate)
        said_right = np.clip(self._said_right(index * N_FACES + faces), 0.0, post.total)
        eps = self.noise
        right = (1 - eps) * said_right + eps * (post.total - said_right)
        return (right + post.fallback * rate) / (post.total + post.fallback)

    def predict_faces(self, context: Context) -> np.ndarray:
        """Probability that each of the 52 faces is right in ``context``."""
        return self._right_probabilities(context, np.arange(N_FACES))

    def predict(self, obs: Observation, cards: list[Card]) -> np.ndarray:
        """Probability that each of ``cards`` is right now."""
        context = Context(obs.main_line, obs.last_play_right)
        return self._right_probabilities(context, [card.face for card in cards])

    # -- playing ------------------------------------------------------------------------

    def choose_play(self, obs: Observation) -> Card:
        hand = list(obs.hand)
        context = Context(obs.main_line, obs.last_play_right)
        p_right = self._right_probabilities(context, [card.face for card in hand])
        policy = self.policy
        if policy == "auto":  # wrong cards cost nothing when finding the rule is all
            policy = "lookahead" if self.info_.traits.scored_on == "finding" else "mix"
        if policy == "greedy":
            scores = p_right
        elif policy == "info_gain":
            scores = binary_entropy(p_right)
        elif policy == "mix":
            scores = (1 - self.mix) * p_right + self.mix * binary_entropy(p_right)
        elif policy == "lookahead":
            scores = binary_entropy(p_right) + p_right * self._next_gain(context, hand)
        else:
            scores = self._thompson_scores(context, hand, p_right)
        best = np.flatnonzero(scores >= scores.max() - _TIE)
        return hand[int(best[self.rng_.integers(len(best))])]

    @limited_threads
    def _next_gain(self, context: Context, hand: list[Card]) -> np.ndarray:
        """For each card, the mean information gain of a play after it, if it is right.

        The verdict of a card tells about the rule, but a right card also opens a new
        context (it becomes the last card): some contexts split the hypotheses still
        in the running, some do not. This is the mean, over the faces that can follow,
        of the verdict's entropy there, under the posterior conditioned on the card
        being right; computed on the ``_LOOKAHEAD`` most probable hypotheses.
        """
        index = self.space_.context_index(context)
        post = self._posterior()
        gain = np.zeros(len(hand))
        if index is None or not len(post.weights):
            return gain
        k = min(_LOOKAHEAD, len(post.weights))
        top = np.argpartition(-post.weights, k - 1)[:k]
        hypotheses = top if post.active is None else post.active[top]
        keep = hypotheses < len(self.space_)
        hypotheses, weights = hypotheses[keep], post.weights[top[keep]]
        at, faces = self.space_.bit_position(hypotheses), np.arange(N_FACES)
        for i, card in enumerate(hand):
            after = self.space_.context_index(Context((*context.main_line, card), True))
            if after is None:
                continue
            says_right = self.space_.verdict_bits(index * N_FACES + card.face, at)
            conditioned = weights * says_right
            total = conditioned.sum()
            if total <= 0:
                continue
            p_next = weight_calling_right(self.space_, after * N_FACES + faces, conditioned, at)
            p_next /= total
            playable = faces != card.face  # the card just played is on the line
            if context.main_line:
                playable &= faces != context.main_line[-1].face
            gain[i] = binary_entropy(p_next[playable]).mean()
        return gain

    def _thompson_scores(self, context: Context, hand: list[Card], p_right) -> np.ndarray:
        index = self.space_.context_index(context)
        hypothesis = self._draw_hypothesis()
        if hypothesis is None or index is None:
            return p_right
        faces = index * N_FACES + np.array([card.face for card in hand])
        said = self.space_.verdict_bits(faces, hypothesis)
        # Among the cards the drawn hypothesis says are right, prefer the likelier ones.
        return said + 1e-3 * p_right if said.any() else p_right

    def _draw_hypothesis(self) -> int | None:
        """One hypothesis drawn from the posterior (None: the fallback was drawn)."""
        post = self._posterior()
        weights = post.weights
        if not len(weights):  # every hypothesis is far below the fallback
            return None
        # Two levels (blocks, then one block) cost one pass instead of a full cumsum.
        starts = np.arange(0, len(weights), _BLOCK)
        blocks = np.cumsum(np.add.reduceat(weights, starts), dtype=np.float64)
        draw = self.rng_.random() * (blocks[-1] + post.fallback)
        if draw >= blocks[-1]:
            return None
        block = min(int(np.searchsorted(blocks, draw, side="right")), len(blocks) - 1)
        offset = draw - (blocks[block - 1] if block else 0.0)
        inner = np.cumsum(weights[starts[block] : starts[block] + _BLOCK], dtype=np.float64)
        inside = min(int(np.searchsorted(inner, offset, side="right")), len(inner) - 1)
        drawn = int(starts[block]) + inside
        drawn = drawn if post.active is None else int(post.active[drawn])
        return min(drawn, len(self.space_) - 1)

    # -- what the agent believes --------------------------------------------------------

    def posterior(self) -> tuple[np.ndarray, float]:
        """The posterior probability of each hypothesis, and that of "none of the above".

        Hypotheses far below the best one (under ``e**-20`` of its weight) get 0.
        """
        self._ensure()
        post = self._posterior()
        z = post.total + post.fallback
        probabilities = np.zeros(len(self.space_))
        if post.active is None:
            probabilities[:] = post.weights[: len(self.space_)] / z
        else:
            probabilities[post.active] = post.weights / z
        return probabilities, post.fallback / z

    def top_hypotheses(self, k: int = 5) -> list[tuple[str, float]]:
        """The ``k`` most probable hypotheses as (rule text, posterior probability).

        >>> agent = BayesAgent(grammar="colours_suits", max_hypotheses=500, one_card=0)
        >>> agent.start_game(GameInfo("classic", 0, 2, (), None), np.random.default_rng(0))
        >>> [(text, round(p, 2)) for text, p in agent.top_hypotheses(2)]  # the prior
        [('red(card)', 0.48), ('black(card)', 0.48)]

        (``true`` and ``false`` are shorter, but a dealer would choose neither: one
        rejects no card, the other every card.)
        """
        probabilities, _ = self.posterior()
        k = min(k, len(probabilities))
        top = np.argpartition(-probabilities, k - 1)[:k]
        top = top[np.lexsort((top, -probabilities[top]))]
        return [(self.space_.text(int(h)), float(probabilities[h])) for h in top]

    def propose_rule(self) -> tuple[str, float] | None:
        """The most probable hypothesis as rule text, and its posterior probability.

        None before a game, or when "none of the above" is more probable than it.
        """
        best = self.best_hypothesis()
        return None if best is None else (self.space_.text(best[0]), self._stated(best[1]))

    def confident_proposal(self, confidence: float) -> tuple[str, float] | None:
        """`propose_rule`, or None when the confidence it would state is surely below
        ``confidence``.

        After a play, `propose_rule` weighs every hypothesis; this method first bounds
        the best one's probability from a few leaders (`Leaders`, noted at the last
        proposal it made below ``confidence``: a bound only needs tightening where it
        let through a proposal it should not have), and proposes only when the bound
        reaches ``confidence``: early in a game, and until the agent is nearly sure, a
        play costs microseconds.

        >>> from eleusis_lab.cards import parse_cards
        >>> agent = BayesAgent(grammar="colours_suits", max_hypotheses=500, one_card=0)
        >>> agent.start_game(GameInfo("classic", 0, 2, (), None), np.random.default_rng(0))
        >>> agent.confident_proposal(0.9) == agent.propose_rule()  # no leaders yet
        True
        >>> seven, queen, two = parse_cards("7S QH 2C")
        >>> agent.learn(Context((seven,)), queen, True)
        >>> agent.confident_proposal(0.9)
        ('red(card)', 0.959...)
        >>> agent.learn(Context((seven, queen)), two, True)  # neither red nor black
        >>> agent.confident_proposal(0.9) is None  # surely below 0.9: no pass over all
        True
        """
        if not hasattr(self, "history_"):
            return None
        self._ensure()
        if self.leaders_ is not None:
            bound = self.leaders_.bound(
                self.mismatches_, self.log_prior_, self.noise, self._fallback_log_weight()
            )
            if self._stated(bound) + 1e-12 < confidence:  # 1e-12: the map's rounding
                return None
        proposal = self.propose_rule()
        if self.leaders_ is None or proposal is None or proposal[1] < confidence:
            # new leaders tighten a bound that let through a proposal below
            # ``confidence``; one above it would be let through by any bound
            self.leaders_ = Leaders(self._posterior(), _WATCHED, self.pruner_.prune)
        return proposal

    def best_hypothesis(self) -> tuple[int, float] | None:
        """The most probable hypothesis and its probability (see `propose_rule`)."""
        if not hasattr(self, "history_"):
            return None
        self._ensure()
        post = self._posterior()
        if not len(post.weights):
            return None
        at = int(np.argmax(post.weights))  # the weights are 0 on padding: never picked
        if post.weights[at] < post.fallback:
            return None
        best = at if post.active is None else int(post.active[at])
        return best, float(post.weights[at]) / (post.total + post.fallback)

    def leader_verdicts(self, context: Context, faces) -> tuple[np.ndarray, np.ndarray]:
        """The probabilities of the most probable hypotheses and, for each, whether it
        calls each of ``faces`` right in ``context`` (`DeclaringHost`)."""
        post = self._posterior()
        index = self.space_.context_index(context)
        k = min(_LEADERS, len(post.weights))
        if index is None or not k:
            return np.zeros(0), np.zeros((0, len(faces)), dtype=bool)
        top = np.argpartition(-post.weights, k - 1)[:k]
        hypotheses = top if post.active is None else post.active[top]
        keep = hypotheses < len(self.space_)
        hypotheses, top = hypotheses[keep], top[keep]
        probes = index * N_FACES + np.asarray(faces)
        said = self.space_.verdict_bits(probes[None, :], hypotheses[:, None])
        return post.weights[top] / (post.total + post.fallback), said

    def ranked_hypotheses(self, n: int) -> list[tuple[int, float]]:
        """The ``n`` most probable hypotheses and their probabilities, most probable first."""
        post = self._posterior()
        k = min(n, len(post.weights))
        if not k:
            return []
        top = np.argpartition(-post.weights, k - 1)[:k]
        top = top[np.lexsort((top, -post.weights[top]))]
        hypotheses = top if post.active is None else post.active[top]
        keep = (hypotheses < len(self.space_)) & (post.weights[top] > 0)
        z = post.total + post.fallback
        return [
            (int(h), float(w) / z)
            for h, w in zip(hypotheses[keep], post.weights[top[keep]], strict=True)
        ]

    @limited_threads
    def _judge_groups(self, obs: Observation, card: Card | None) -> JudgeGroups:
        """`SoloDeclaring._judge_groups` over the ``_JUDGED`` most probable hypotheses at
        once, when the rules depend on the card and the last card alone: each
        hypothesis's verdict table (52 x 52) gives the lines it accepts, and so the
        states the judge compares (`accepted_on_continuations`)."""
        space = self.space_
        if space.slots != ("last",) or not obs.main_line:
            return super()._judge_groups(obs, card)
        leaders = self.ranked_hypotheses(_JUDGED)
        keys = [h for h, _ in leaders]
        probabilities = np.array([p for _, p in leaders], dtype=float)
        said = space.verdict_bits(np.arange(space.n_probes)[None, :], np.array(keys)[:, None])
        verdicts = np.zeros((len(keys), N_FACES, N_FACES), dtype=bool)
        verdicts[:, space.contexts[:, 0], :] = said.reshape(len(keys), -1, N_FACES)
        last = obs.main_line[-1].face
        start = np.full(len(keys), last)
        card_right = None
        if card is not None:
            card_right = verdicts[:, last, card.face]
            start[card_right] = card.face
        if self._judged_on_continuations():
            accepts = accepted_on_continuations(verdicts, start)
        else:
            accepts = np.eye(len(keys), dtype=bool)
        return JudgeGroups(keys, probabilities, accepts, card_right)

    def refute(self, hypothesis: int) -> None:
        """Take a hypothesis out of the posterior: a wrong declaration named it."""
        self.refuted_.append(hypothesis)
        self.log_prior_[hypothesis] = -np.inf
        self.posterior_cache_ = None

    def hypothesis_text(self, hypothesis: int) -> str:
        """The rule text of a hypothesis."""
        return self.space_.text(hypothesis)

    def identified_mass(self, rule: Rule | str) -> float | None:
        """The posterior probability of the behaviour of ``rule``; None if outside the space."""
        self._ensure()
        rule = parse(rule) if isinstance(rule, str) else rule
        index = self.space_.index_of(rule)
        if index is None:
            return None
        post = self._posterior()
        if post.active is None:
            weight = float(post.weights[index])
        else:
            at = int(np.searchsorted(post.active, index))
            found = at < len(post.active) and post.active[at] == index
            weight = float(post.weights[at]) if found else 0.0
        return weight / (post.total + post.fallback)

    @property
    def space(self) -> HypothesisSpace | OneCardSpace:
        """The hypothesis space (built or loaded on first use)."""
        self._ensure()
        return self.space_
