"""Learners over card features: any scikit-learn classifier as an Eleusis agent.

`SklearnAgent` turns every public play into one labelled example, the features of
`eleusis_lab.features.encode` for the card in the context it was judged in, and the
verdict as label. It refits a fresh clone of its estimator on a schedule and plays the
card its classifier rates most likely right. `DecisionTreeAgent` is the same agent with
a decision tree. Both play every game: they mix in the solo game's and New Eleusis'
decisions, whose defaults ask the classifier (`SklearnAgent.predict`) and declare
nothing (``propose_rule`` is None).

Benchmarking a new learner takes two lines:

>>> from sklearn.ensemble import RandomForestClassifier
>>> agent = SklearnAgent(estimator=RandomForestClassifier(n_estimators=10))

>>> from eleusis_agents.simple import RandomAgent
>>> from eleusis_lab.games.classic import play_classic
>>> record = play_classic("color(card) != color(last)", [agent, RandomAgent()], seed=0)
>>> len(record.wrong_after_phase1[0]) < len(record.wrong_after_phase1[1])
True
"""

from __future__ import annotations

import abc
import contextlib
import math
import numbers
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

import numpy as np

from eleusis_agents import lean_logistic, lean_tree
from eleusis_agents.lean_tree import LeanTree, splitter_seed
from eleusis_lab.agent import GameInfo, LearningAgent, Observation
from eleusis_lab.blas import blas_threads
from eleusis_lab.cards import N_FACES, Card
from eleusis_lab.engines import is_int
from eleusis_lab.features import N_FEATURES, encode, encode_one
from eleusis_lab.games.new_eleusis import NewEleusisDecisions
from eleusis_lab.games.solo import SoloDecisions
from eleusis_lab.rules.context import Context

if TYPE_CHECKING:
    from sklearn.tree import DecisionTreeClassifier

__all__ = ["REFITS", "DecisionTreeAgent", "FeatureLearner", "SklearnAgent"]

#: The values of `FeatureLearner`'s ``refit``: refit when due and a new example is
#: mispredicted, or whenever due.
REFITS = ("on_error", "due")


def _real(value: Any) -> bool:
    """A real number, not a bool, not NaN."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and value == value


class FeatureLearner(SoloDecisions, NewEleusisDecisions, LearningAgent):
    """An agent that learns the rule with a classifier over card features.

    Every play of every player (the agent's own and the others') becomes one example:
    the features of the card in the context it was judged in (`eleusis_lab.features`),
    labelled 1 if it was right. When a prediction is needed and enough new examples have
    arrived since the last fit, a fresh classifier is fitted on all the examples of the
    game (`_fit`); the agent plays the card it rates most likely right
    (`_right_probabilities`). Subclasses implement those two methods.

    Parameters
    ----------
    refit_every : int
        The fewest new examples that make a refit due.
    refit_growth : float
        Refit schedule that grows with the data: after a fit on ``n`` examples, the next
        one is due once ``max(refit_every, ceil(refit_growth * n))`` more examples have
        arrived (0.1: at most 29 fits over 100 plays, fewer in a game, where fits wait
        for the agent's turn). ``0`` with ``refit_every=1`` refits before every
        prediction that follows a new example.
    min_examples : int
        No model before this many examples.
    explore : float
        Epsilon-greedy exploration: the probability that ``choose_play`` plays a card of
        the hand drawn uniformly instead of the best-rated one. ``predict`` never
        explores.
    refit : {"on_error", "due"}
        When a due refit happens. ``"on_error"`` (the default): only if the classifier
        fitted last rates some example learned since that fit on the wrong side of 0.5
        (0.5 itself counts as wrong); a classifier that predicted every new example
        stays until one contradicts it, which takes half the fits. ``"due"``: every due
        refit, the schedule alone (the former rule).

    Attributes
    ----------
    estimator_ : classifier or None
        The classifier fitted last; ``None`` until there are ``min_examples`` examples of
        both verdicts. Until then every face is rated with the observed rate of right
        plays, smoothed: ``(right + 1) / (plays + 2)``.
    n_fits_ : int
        How many fits this game.

    Examples
    --------
    A learner that rates a card by how often cards of its colour were right:

    >>> from eleusis_lab.features import feature_index
    >>> RED = feature_index("card_color")
    >>> class ColourRate(FeatureLearner):
    ...     def _fit(self, X, y):
    ...         red = X[:, RED] == 1
    ...         return [(y[~red].sum() + 1) / (len(y[~red]) + 2),
    ...                 (y[red].sum() + 1) / (len(y[red]) + 2)]
    ...     def _right_probabilities(self, X):
    ...         return np.array(self.estimator_)[X[:, RED].astype(int)]

    >>> from eleusis_agents.simple import RandomAgent
    >>> from eleusis_lab.games.classic import play_classic
    >>> agents = [ColourRate(), RandomAgent()]
    >>> record = play_classic("red(card)", agents, seed=0)
    >>> [round(float(rate), 2) for rate in agents[0].estimator_]  # black, red
    [0.17, 0.75]

    It fitted once: every later example fell on the side of 0.5 it predicted
    (``refit="on_error"``); refitting whenever due, it ends nearer the true rates:

    >>> agents = [ColourRate(refit="due"), RandomAgent()]
    >>> record = play_classic("red(card)", agents, seed=0)
    >>> [round(float(rate), 2) for rate in agents[0].estimator_]
    [0.04, 0.96]
    """

    def __init__(
        self,
        refit_every: int = 1,
        refit_growth: float = 0.1,
        min_examples: int = 5,
        explore: float = 0.0,
        refit: str = "on_error",
    ):
        self.refit_every = refit_every
        self.refit_growth = refit_growth
        self.min_examples = min_examples
        self.explore = explore
        self.refit = refit

    def check_params(self) -> None:
        """The refit schedule's numbers and ``explore`` are in range (booleans refused)."""
        if not (is_int(self.refit_every) and self.refit_every >= 1):
            raise ValueError(f"refit_every must be an int >= 1, got {self.refit_every!r}")
        if not (_real(self.refit_growth) and self.refit_growth >= 0):
            raise ValueError(f"refit_growth must be a number >= 0, got {self.refit_growth!r}")
        if not (is_int(self.min_examples) and self.min_examples >= 1):
            raise ValueError(f"min_examples must be an int >= 1, got {self.min_examples!r}")
        if not (_real(self.explore) and 0 <= self.explore <= 1):
            raise ValueError(f"explore must be a probability in [0, 1], got {self.explore!r}")
        if self.refit not in REFITS:
            raise ValueError(f"refit must be one of {', '.join(REFITS)}, got {self.refit!r}")

    def start_game(self, info: GameInfo, rng: np.random.Generator) -> None:
        super().start_game(info, rng)
        self.check_params()
        self.examples_ = np.empty((64, N_FEATURES))  # the first len(labels_) rows
        self.labels_: list[int] = []
        self.estimator_: Any = None
        self.n_fits_ = 0
        self.next_fit_ = self.min_examples
        self.checked_ = 0  # the examples so far are rated right by estimator_ (on_error)

    def learn(self, context: Context, card: Card, right: bool) -> None:
        n = len(self.labels_)
        if n == len(self.examples_):  # full: twice the room, so rows are copied O(1) times each
            self.examples_ = np.concatenate([self.examples_, np.empty_like(self.examples_)])
        encode_one(context, card.face, self.examples_[n])
        self.labels_.append(int(right))

    def _refit_if_due(self) -> None:
        n = len(self.labels_)
        n_right = sum(self.labels_)
        # A classifier needs both verdicts; until then the smoothed rate stands in.
        if n < self.next_fit_ or n_right in (0, n):
            return
        if self.refit == "on_error" and self._rates_new_examples_right(n):
            return  # the schedule stays due: the next new example is checked in turn
        self.estimator_ = self._fit(self.examples_[:n], np.asarray(self.labels_))
        self.n_fits_ += 1
        self.checked_ = n
        self.next_fit_ = n + max(self.refit_every, math.ceil(self.refit_growth * n))

    def _rates_new_examples_right(self, n: int) -> bool:
        """Whether ``estimator_`` rates every example since ``checked_`` on its side of 0.5.

        Each example is checked once: the classifier does not change between fits.
        """
        if self.estimator_ is None:
            return False
        checked = self.checked_
        if checked < n:
            # A copy: a user's estimator may scale its input in place.
            probabilities = self._right_probabilities(self.examples_[checked:n].copy())
            labels = np.asarray(self.labels_[checked:n], dtype=bool)
            if not np.all(np.where(labels, probabilities > 0.5, probabilities < 0.5)):
                return False
            self.checked_ = n
        return True

    @abc.abstractmethod
    def _fit(self, X: np.ndarray, y: np.ndarray) -> Any:
        """A fresh classifier fitted on ``(X, y)``: the features of the examples, 0/1.

        ``X`` is a view of the examples, to copy before changing it.
        """

    @abc.abstractmethod
    def _right_probabilities(self, X: np.ndarray) -> np.ndarray:
        """The fitted classifier's probability that each row of ``X`` is right."""

    def predict_faces(self, context: Context) -> np.ndarray:
        return self._ratings(context, None)

    def predict(self, obs: Observation, cards: list[Card]) -> np.ndarray:
        # Only the cards asked about are encoded (a hand, not the 52 faces).
        context = Context(obs.main_line, obs.last_play_right)
        return self._ratings(context, [card.face for card in cards])

    def _ratings(self, context: Context, faces: list[int] | None) -> np.ndarray:
        """The probability that each of ``faces`` (all 52 if None) is right in ``context``."""
        self._refit_if_due()
        if self.estimator_ is None:
            rate = (sum(self.labels_) + 1) / (len(self.labels_) + 2)
            return np.full(N_FACES if faces is None else len(faces), rate)
        return self._right_probabilities(encode(context, faces))

    def choose_play(self, obs: Observation) -> Card:
        # Draw only when exploring, so that explore=0 leaves the generator's stream alone.
        if self.explore > 0 and self.rng_.random() < self.explore:
            return obs.hand[int(self.rng_.integers(len(obs.hand)))]
        return super().choose_play(obs)


class SklearnAgent(FeatureLearner):
    """A `FeatureLearner` with any scikit-learn classifier.

    A fit is a fresh `sklearn.base.clone` of ``estimator``, fitted on all the examples of
    the game through scikit-learn's every check. The default estimator is the agent's
    own, so its checks, which could find nothing, are skipped.

    Parameters
    ----------
    estimator : classifier, optional
        Any scikit-learn classifier with ``predict_proba``; never fitted itself, only
        its clones. Default: standard scaling then ``LogisticRegression(max_iter=1000)``.
        Estimators with a ``random_state`` left at ``None`` get one drawn from the
        game's generator, so the same game seed gives the same plays.
    refit_every, refit_growth, min_examples, explore, refit
        As in `FeatureLearner`. (A k-nearest-neighbours estimator needs at least
        ``n_neighbors`` examples: 5 by default.)
    warm_start : bool
        For the default estimator only: each fit's L-BFGS starts from the function the
        previous fit of the game found (its coefficients re-expressed in the new
        scaling), which converges in fewer iterations to the same optimum, within the
        solver's tolerance. ``False`` starts from zero, as scikit-learn's pipeline does
        (and as the agent does where `lean_logistic.LEAN` is False).

    Examples
    --------
    A tree learns "alternate colours" from another player's plays alone:

    >>> import numpy as np
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from eleusis_lab.agent import Event, GameInfo
    >>> from eleusis_lab.cards import parse_card, parse_cards
    >>> from eleusis_lab.rules import Context, parse
    >>> rule = parse("color(card) != color(last)")
    >>> agent = SklearnAgent(estimator=DecisionTreeClassifier(), min_examples=2)
    >>> agent.start_game(GameInfo("classic", 0, 2, (), parse_card("7C")), np.random.default_rng(0))
    >>> agent.predict_faces(Context(tuple(parse_cards("7C"))))[:3]  # no example yet
    array([0.5, 0.5, 0.5])
    >>> line = parse_cards("7C")
    >>> for card in parse_cards("6D 9H 2S 8C AS 4S"):  # seat 1 plays, the dealer judges
    ...     right = rule.accepts(card, Context(tuple(line)))
    ...     agent.observe(Event(seat=1, card=card, phase=1, right=right, position=len(line) - 1))
    ...     line += [card] if right else []
    >>> line
    [Card('7C'), Card('6D'), Card('2S')]
    >>> context = Context(tuple(line))
    >>> bool(((agent.predict_faces(context) > 0.5) == rule.legal_faces(context)).all())
    True
    """

    def __init__(
        self,
        estimator: Any = None,
        refit_every: int = 1,
        refit_growth: float = 0.1,
        min_examples: int = 5,
        explore: float = 0.0,
        refit: str = "on_error",
        warm_start: bool = True,
    ):
        self.estimator = estimator
        self.warm_start = warm_start
        super().__init__(refit_every, refit_growth, min_examples, explore, refit)

    def check_params(self) -> None:
        """As `FeatureLearner`, and ``estimator`` has a ``fit``."""
        super().check_params()
        estimator = self.estimator
        if estimator is not None and not hasattr(estimator, "fit"):
            raise ValueError(f"estimator must be a scikit-learn classifier, got {estimator!r}")

    def start_game(self, info: GameInfo, rng: np.random.Generator) -> None:
        super().start_game(info, rng)
        # One seed per game for the estimators' own randomness (tie-breaks in trees,
        # bootstraps in forests), drawn here so that it depends on the game seed only.
        self.seed_ = int(rng.integers(2**31 - 1))

    def _make_estimator(self) -> Any:
        """A fresh, unfitted classifier for one fit, seeded from the game."""
        if self.estimator is None:
            from sklearn.linear_model import LogisticRegression
            from sklearn.pipeline import make_pipeline
            from sklearn.preprocessing import StandardScaler

            # The agent's own pipeline is built as it is, not cloned and its parameters
            # read back (its only random_state is the LogisticRegression's).
            logistic = LogisticRegression(max_iter=lean_logistic.MAX_ITER, random_state=self.seed_)
            return make_pipeline(StandardScaler(), logistic)
        from sklearn.base import clone

        model = clone(self.estimator)
        seeds = {
            name: self.seed_
            for name, value in model.get_params(deep=True).items()
            if (name == "random_state" or name.endswith("__random_state")) and value is None
        }
        return model.set_params(**seeds)

    def _checks(self) -> AbstractContextManager:
        """Where scikit-learn's checks of inputs and parameters run: all of them for a
        user's estimator; none for the default pipeline, whose parameters are the
        agent's and whose features are a finite array it built, so they find nothing."""
        if self.estimator is not None:
            return contextlib.nullcontext()
        from sklearn import config_context

        return config_context(assume_finite=True, skip_parameter_validation=True)

    def _fit(self, X: np.ndarray, y: np.ndarray) -> Any:
        if self.estimator is None and lean_logistic.LEAN:
            start = self.estimator_ if self.warm_start else None
            with blas_threads(), self._checks():
                return lean_logistic.fit_pipeline(X, y, self.seed_, start)
        model = self._make_estimator()
        with blas_threads(), self._checks():
            model.fit(X.copy(), y)  # a copy: an estimator may scale in place
        return model

    def _right_probabilities(self, X: np.ndarray) -> np.ndarray:
        if self.estimator is None:
            with blas_threads():
                return lean_logistic.right_probabilities(self.estimator_, X)
        with blas_threads(), self._checks():
            probabilities = self.estimator_.predict_proba(X)
        return probabilities[:, lean_logistic.right_column(self.estimator_)]


class DecisionTreeAgent(FeatureLearner):
    """A `FeatureLearner` with a CART decision tree, the one scikit-learn would grow.

    The rules of Eleusis are mostly a test or two on a few features, which is what a
    shallow tree is, and the features include the relations (same colour, difference
    mod 13, ...) that such tests read. The tree is grown until its leaves are pure or
    hold ``min_samples_leaf`` examples. The defaults scored best of the few settings
    tried (gini or entropy, leaves of 1, 2 or 4) in Delphi accuracy after 40 plays
    over the 51 catalog rules, seeds 0 to 9 (`eleusis_lab.evaluation`): 0.895 on average,
    against 0.877 to 0.890 for the others.

    The tree is a `eleusis_agents.lean_tree.LeanTree`: the tree
    `sklearn.tree.DecisionTreeClassifier` grows with these settings and
    ``random_state=seed_``, to the bit, without scikit-learn's work around each fit
    (checking and converting its input, encoding the labels), which was most of the
    time of a fit on the few examples of a game. So the agent plays as
    ``SklearnAgent(estimator=DecisionTreeClassifier(criterion=...), min_examples=2)``
    does, faster.

    Parameters
    ----------
    max_depth : int or None
        Deepest tree; ``None`` grows until the leaves are pure.
    min_samples_leaf : int
        Fewest examples in a leaf. The rules are noiseless, so 1 (pure leaves, hard
        0/1 probabilities) does well; more smooths the probabilities.
    criterion : {"gini", "entropy", "log_loss"}
        Split quality, as in scikit-learn.
    refit_every, refit_growth, min_examples, explore, refit
        As in `FeatureLearner`.

    Attributes
    ----------
    seed_ : int
        The tree's ``random_state`` this game (drawn from the game's generator).

    Examples
    --------
    >>> from eleusis_agents.simple import RandomAgent
    >>> from eleusis_lab.games.classic import play_classic
    >>> record = play_classic(
    ...     "suit(card) == (suit(last) + 1) mod 4", [DecisionTreeAgent(), RandomAgent()], seed=4
    ... )
    >>> [len(wrong) for wrong in record.wrong_after_phase1]
    [10, 18]
    """

    def __init__(
        self,
        max_depth: int | None = None,
        min_samples_leaf: int = 1,
        criterion: str = "entropy",
        refit_every: int = 1,
        refit_growth: float = 0.1,
        min_examples: int = 2,
        explore: float = 0.0,
        refit: str = "on_error",
    ):
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.criterion = criterion
        super().__init__(refit_every, refit_growth, min_examples, explore, refit)

    def check_params(self) -> None:
        """As `FeatureLearner`, and the tree's parameters (`LeanTree.check_params`)."""
        super().check_params()
        self._tree().check_params()

    def _tree(self) -> LeanTree:
        return LeanTree(self.criterion, self.max_depth, self.min_samples_leaf)

    def start_game(self, info: GameInfo, rng: np.random.Generator) -> None:
        super().start_game(info, rng)
        # As SklearnAgent's: one seed per game, for the tree's tie-breaks.
        self.seed_ = int(rng.integers(2**31 - 1))
        # What a tree with random_state=seed_ draws from it, the same for every fit:
        # drawn once (seeding a RandomState costs about as much as a fit).
        self.splitter_seed_ = splitter_seed(self.seed_)

    def _fit(self, X: np.ndarray, y: np.ndarray) -> Any:
        """The tree grown on ``(X, y)`` with ``random_state=seed_``, and which says so.

        Unchecked: the parameters passed `check_params`, and the features are the whole
        numbers this agent encoded. Past `lean_tree.MAX_EXAMPLES` examples (a very long
        game), scikit-learn grows it, the same tree.
        """
        if len(y) > lean_tree.MAX_EXAMPLES:
            return self._fit_sklearn(X, y)
        tree = self._tree()
        tree.random_state = self.seed_
        return tree.fit(X, y, check_input=False, seed=self.splitter_seed_)

    def _fit_sklearn(self, X: np.ndarray, y: np.ndarray) -> DecisionTreeClassifier:
        """scikit-learn's tree, without its checks of its inputs, which would find nothing.

        ``X`` goes in as the float32 they would convert it to.
        """
        from sklearn import config_context
        from sklearn.tree import DecisionTreeClassifier

        tree = DecisionTreeClassifier(
            criterion=self.criterion,
            max_depth=self.max_depth,
            min_samples_leaf=self.min_samples_leaf,
            random_state=self.seed_,
        )
        with config_context(assume_finite=True, skip_parameter_validation=True):
            tree.fit(X.astype(np.float32), y, check_input=False)
        return tree

    def _right_probabilities(self, X: np.ndarray) -> np.ndarray:
        if isinstance(self.estimator_, LeanTree):
            return self.estimator_.right_probability(X)
        probabilities = self.estimator_.predict_proba(X.astype(np.float32), check_input=False)
        return probabilities[:, lean_logistic.right_column(self.estimator_)]
