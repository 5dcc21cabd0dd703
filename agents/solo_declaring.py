"""When a Bayesian agent declares in the solo game, and with what confidence.

`SoloDeclaring` extends the solo game's decisions (`eleusis_lab.games.solo.SoloDecisions`)
for an agent with a model, through the public methods `DeclaringHost` names (its most
probable hypotheses, their text, how to refute one): it weighs what the published judge
would say of declaring each leading hypothesis (`JudgeGroups`), declares when that pays
more than waiting a turn, and states its probability through the agent's calibration
map (`calibration_map`).
`eleusis_agents.bayes.BayesAgent` and `eleusis_agents.bayes_context.ContextBayesAgent`
share it.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from eleusis_lab.agent import GameInfo, GameTraits, Observation
from eleusis_lab.calibration import CalibrationMap
from eleusis_lab.cards import N_FACES, Card
from eleusis_lab.games.solo import (
    MAX_TURNS,
    WRONG_PENALTY,
    SoloDecisions,
    SoloMove,
    solo_statement,
)
from eleusis_lab.rules import Context, Rule, parse
from eleusis_lab.rules.analysis import equivalent
from eleusis_lab.rules.reach import TooManyContexts

__all__ = [
    "CALIBRATION_FILES",
    "DECLARING",
    "DeclaringHost",
    "JudgeGroups",
    "SoloDeclaring",
    "accepted_on_continuations",
    "break_even",
    "calibration_map",
]

_TWINS_CONFIDENCE = 0.2  # below 2/3, declare the first of two twins from here
_STALL_GAIN = 0.02  # "nothing more": how much a play may raise the best probability
_STALL_TURNS = 3  # ... and how much it rose over the last turns
#: The calibration maps fitted to the agents, by class name (``calibration="default"``);
#: refitted by ``eleusis-lab bench calibrate ... --write``.
CALIBRATION_FILES = {
    "BayesAgent": "bayes.json",
    "ContextBayesAgent": "bayes-context.json",
}


#: Parameters that change how an agent plays or states, not its posterior: a map fitted
#: on the default model holds whatever their values.
_NOT_THE_MODEL = frozenset(
    {"policy", "mix", "declare_confidence", "declaring", "calibrated_decisions", "calibration"}
)


def calibration_map(calibration: str | CalibrationMap | None, agent=None) -> CalibrationMap | None:
    """The `CalibrationMap` a ``calibration`` parameter names (`eleusis_agents.bayes.BayesAgent`).

    ``"default"`` is the map shipped for ``agent``'s class, fitted on its default model:
    for an agent whose model differs (another grammar, size, noise, prior ...) it is
    None, the posterior itself, since the map says nothing of that model.

    >>> from eleusis_agents.bayes import BayesAgent
    >>> calibration_map(None) is None
    True
    >>> calibration_map(CalibrationMap((0.0, 1.0), (0.0, 0.5)))(0.5)
    0.25
    >>> calibration_map("default", BayesAgent()) is not None
    True
    >>> calibration_map("default", BayesAgent(grammar="colours_suits")) is None
    True
    """
    if calibration is None or isinstance(calibration, CalibrationMap):
        return calibration
    if not isinstance(calibration, str):
        raise ValueError(
            f"calibration must be None, a path or 'default', got {type(calibration).__name__}"
        )
    if calibration != "default":
        return _map_file(calibration)
    name = CALIBRATION_FILES.get(type(agent).__name__)
    if name is None or not _default_model(agent):
        return None
    return _packaged_map(name)


def _default_model(agent) -> bool:
    defaults = type(agent)().get_params()
    return all(
        value == defaults[name]
        for name, value in agent.get_params().items()
        if name not in _NOT_THE_MODEL
    )


@functools.cache
def _packaged_map(name: str) -> CalibrationMap:
    from importlib.resources import as_file, files

    with as_file(files("eleusis_agents").joinpath("calibration", name)) as path:
        return CalibrationMap.load(path)


@functools.cache
def _map_file(path: str) -> CalibrationMap:
    return CalibrationMap.load(path)


DECLARING = ("expected_score", "threshold")
_GROUP_LEADERS = 8  # the most probable hypotheses the judge compares pair by pair
JUDGE_PLAYS = 40  # plays of a continuation in the published judge


@dataclass(frozen=True)
class JudgeGroups:
    """What the published judge would say of declaring each leading hypothesis.

    ``keys`` are the agent's most probable hypotheses, ``probabilities`` their posterior
    probabilities; ``accepts[d, h]`` says whether declaring ``keys[d]`` is judged
    correct when ``keys[h]`` is the secret rule (the same verdict on every face in
    every continuation of the main line after this turn's card, as ``keys[h]`` judges
    that card); ``card_right[h]`` is what ``keys[h]`` says of the turn's card (None
    when there is no card to play: the ``after_verdict`` reading).
    """

    keys: list
    probabilities: np.ndarray
    accepts: np.ndarray
    card_right: np.ndarray | None

    def masses(self) -> np.ndarray:
        """The probability that the judge accepts each leader, declared now."""
        return self.accepts.astype(float) @ self.probabilities


def accepted_on_continuations(verdicts: np.ndarray, start: np.ndarray) -> np.ndarray:
    """``accepts[d, h]``: whether rule ``d`` gives rule ``h``'s verdicts on every face in
    every state that lines ``h`` accepts lead to from ``start[h]``, for rules whose
    verdict depends on the card and the last card alone.

    ``verdicts[h, last, face]`` is rule ``h``'s verdict on ``face`` after ``last``;
    ``start[h]`` the last card of the line ``h`` judges from. The states are the faces a
    line can end in: from ``start[h]``, each face ``h`` accepts after one of them.

    >>> faces = np.arange(52)
    >>> same_suit = faces[:, None] // 13 == faces[None, :] // 13  # suit(card) == suit(last)
    >>> clubs = np.broadcast_to(faces // 13 == 0, (52, 52))  # suit(card) == clubs
    >>> red = np.broadcast_to((faces // 13 == 1) | (faces // 13 == 2), (52, 52))
    >>> accepts = accepted_on_continuations(np.stack([same_suit, clubs, red]), np.zeros(3, int))
    >>> accepts.astype(int).tolist()  # after a club, "same suit" and "clubs" judge alike
    [[1, 1, 0], [1, 1, 0], [0, 0, 1]]
    """
    k = len(verdicts)
    reach = np.zeros((k, verdicts.shape[1]), dtype=bool)
    reach[np.arange(k), start] = True
    while True:
        grown = reach | np.einsum("hl,hlf->hf", reach, verdicts, dtype=bool)
        if (grown == reach).all():
            break
        reach = grown
    # each row of 52 verdicts as one integer: rows differ iff their integers do
    packed = np.packbits(verdicts, axis=-1, bitorder="little")
    rows = np.zeros((*packed.shape[:2], 8), dtype=np.uint8)
    rows[..., : packed.shape[2]] = packed
    rows = rows.view(np.uint64)[..., 0]
    differ = rows[:, None, :] != rows[None, :, :]
    return ~(differ & reach[None, :, :]).any(axis=-1)


def break_even(points: int) -> float:
    """The probability from which declaring pays when waiting teaches nothing: right, it
    scores ``points``; wrong, it costs `WRONG_PENALTY` (2).

    >>> round(break_even(30), 3), round(break_even(1), 3)  # turn 1, turn 30
    (0.062, 0.667)
    """
    return WRONG_PENALTY / (WRONG_PENALTY + points)


class DeclaringHost(Protocol):
    """What `SoloDeclaring` asks of the agent it extends: its hypotheses, each named by a
    key of the agent's choosing, and their posterior probabilities.

    `eleusis_agents.bayes.BayesAgent` (keys: indices into its space) and
    `eleusis_agents.bayes_context.ContextBayesAgent` (keys: a switch and a rule per
    value) implement it. ``declaring="threshold"`` also reads `best_hypothesis` and
    `leader_verdicts`; the agent's ``choose_play`` plays the turn's card.
    """

    def ranked_hypotheses(self, n: int) -> list[tuple[Hashable, float]]:
        """The ``n`` most probable hypotheses (keys) and their probabilities, most
        probable first."""
        ...

    def hypothesis_text(self, key: Hashable) -> str:
        """The rule text of a hypothesis."""
        ...

    def refute(self, key: Hashable) -> None:
        """Take a hypothesis out of the posterior (a wrong declaration named it)."""
        ...

    def best_hypothesis(self) -> tuple[Hashable, float] | None:
        """The most probable hypothesis and its probability; None before a game, or
        when "none of the above" is more probable."""
        ...

    def leader_verdicts(
        self, context: Context, faces: Sequence[int]
    ) -> tuple[np.ndarray, np.ndarray]:
        """The probabilities of the most probable hypotheses and, for each, whether it
        calls each of ``faces`` right in ``context`` (a boolean matrix)."""
        ...


class SoloDeclaring(SoloDecisions):
    """When a Bayesian agent declares in solo, and what it states: the solo game's
    decisions over the public methods of the agent that `DeclaringHost` names.

    With ``declaring="threshold"`` (the former rule) it declares the most probable
    hypothesis (`DeclaringHost.best_hypothesis`) from ``declare_confidence``.

    ``declaring="expected_score"`` (the agents' default) decides with the published
    judge in view: a declaration is correct when it gives the secret rule's verdicts in
    every continuation of the main line, so every hypothesis that behaves like it there
    counts for it (`JudgeGroups`; ``spades only`` is found when the rule is
    ``suit(card) == suit(last)`` and a spade started the line). It declares the
    hypothesis the judge most probably accepts when the expected score of declaring now
    beats that of waiting a turn (`_value_of_waiting`), and after a wrong declaration
    removes every hypothesis the judge would have accepted with it.
    """

    #: When to declare (`DECLARING`) and whether on the calibrated probability: the
    #: defaults of the agents' parameters of the same names.
    declaring: str = "expected_score"
    calibrated_decisions: bool = False

    def start_game(self, info: GameInfo, rng: np.random.Generator) -> None:
        super().start_game(info, rng)
        self.declared_now_: list = []  # the hypotheses a declaration of the last turn named
        self.best_trail_: list[float] = []  # the best probability after each turn
        self.rules_: dict = {}  # key -> parsed Rule, for the judge's comparisons
        self.alike_: dict = {}  # (secret, declared) -> the line after which they judged alike
        # fitted on the benchmark's rules, the map says nothing of the rules of a dealer
        benchmark = self._traits().rule_from == "benchmark"
        self.calibration_ = calibration_map(self.calibration, self) if benchmark else None

    def _traits(self) -> GameTraits:
        """The traits of the game being played (`GameInfo.traits`); before the first
        game, a dealer's game's."""
        return getattr(getattr(self, "info_", None), "traits", GameTraits())

    def _stated(self, probability: float) -> float:
        """The confidence stated for a probability: calibrated, when the agent has a
        `eleusis_lab.calibration.CalibrationMap`, so that it means what it says.

        Only what is stated changes: when to declare is still decided on the
        posterior, so a calibrated agent plays and declares as the raw one does (and a
        map fitted on the raw agent's declarations holds for its own).
        """
        calibration = getattr(self, "calibration_", None)
        return probability if calibration is None else calibration(probability)

    def _settle(self) -> None:
        """The game goes on only after a wrong declaration: what it named is refuted."""
        for key in getattr(self, "declared_now_", ()):
            self.refute(key)
        self.declared_now_ = []

    def solo_move(self, obs: Observation) -> SoloMove:
        """The card first, then the tentative rule and whether to declare it, weighed
        knowing which card the declaration will be judged after (`SoloDecisions`)."""
        self._settle()
        card = self.choose_play(obs)
        if self.declaring == "threshold":
            return SoloMove(card, *solo_statement(self, obs))  # declare_rule, propose_rule
        text, probability, declare = self._decide(obs, card)
        stated = None if probability is None else self._stated(probability)
        return SoloMove(card, text, stated, declare)

    def declare_rule(self, obs: Observation) -> str | None:
        """Solo, asked once the turn's verdict is known (the ``after_verdict``
        reading): the rule to declare now, or None (see the class docstring)."""
        self._settle()
        if self.declaring == "threshold":
            return self._threshold_declaration(obs)
        text, _, declare = self._decide(obs, None)
        return text if declare else None

    # -- the expected score -------------------------------------------------------------

    def _decide(self, obs: Observation, card: Card | None) -> tuple[str | None, float | None, bool]:
        """(tentative rule, the probability the judge accepts it, declare it now)."""
        groups = self._judge_groups(obs, card)
        if not groups.keys:
            return None, None, False
        masses = groups.masses()
        best = int(np.argmax(masses))  # ties: the more probable hypothesis
        accepted = float(masses[best])
        points = self._points(obs, before_verdict=card is not None)
        believed = self._believed(accepted)
        now = believed * points - WRONG_PENALTY * (1 - believed)
        declare = now > 0 and now >= self._value_of_waiting(groups, points)
        if declare:
            self.declared_now_ = [groups.keys[h] for h in np.flatnonzero(groups.accepts[best])]
        return self.hypothesis_text(groups.keys[best]), accepted, declare

    def _believed(self, probability: float) -> float:
        """The probability decisions weigh: the posterior's, or with
        ``calibrated_decisions`` what the calibration map makes of it (the fraction of
        such declarations the judge accepted, on rules the map was fitted to)."""
        return self._stated(probability) if self.calibrated_decisions else probability

    @staticmethod
    def _points(obs: Observation, before_verdict: bool) -> int:
        """What a correct declaration scores on this turn: found on turn k, 31 - k."""
        played = len(obs.main_line) - 1 + sum(len(cards) for cards in obs.wrong_cards)
        turn = played + 1 if before_verdict else played
        return max(MAX_TURNS + 1 - turn, 1)

    def _value_of_waiting(self, groups: JudgeGroups, points: int) -> float:
        """The expected score of waiting a turn, then declaring if that pays.

        This turn's card tells its verdict: each leader's probability is weighed by the
        verdict it gives (the hypotheses outside the leaders split evenly), and next
        turn the best-accepted declaration scores ``points - 1`` if right and costs 2 if
        wrong, or is not made (0). Declaring now pays when it beats this: the
        one-step look-ahead rule of optimal stopping.

        >>> groups = JudgeGroups(["a", "b"], np.array([0.5, 0.5]), np.eye(2, dtype=bool),
        ...                      np.array([True, False]))
        >>> agent = SoloDeclaring()
        >>> agent.noise = 0.0
        >>> agent._value_of_waiting(groups, 20)  # the card tells them apart: sure next turn
        19.0
        """
        if groups.card_right is None or points <= 1:
            return 0.0
        p = groups.probabilities
        rest = max(1.0 - float(p.sum()), 0.0)
        noise = getattr(self, "noise", 0.0)
        value = 0.0
        for right in (True, False):
            joint = p * np.where(groups.card_right == right, 1 - noise, noise)
            p_verdict = float(joint.sum()) + rest / 2
            if p_verdict <= 0:
                continue
            accepted = self._believed(float((groups.accepts @ joint).max()) / p_verdict)
            value += p_verdict * max(accepted * (points - 1) - WRONG_PENALTY * (1 - accepted), 0.0)
        return value

    def _judge_groups(self, obs: Observation, card: Card | None) -> JudgeGroups:
        """The leaders and what the judge would say of declaring each: compared pair by
        pair over the continuations of the line (`eleusis_lab.rules.analysis.equivalent`)
        for the ``_GROUP_LEADERS`` most probable hypotheses, when together they could
        make a declaration pay."""
        leaders = self.ranked_hypotheses(_GROUP_LEADERS)
        keys = [key for key, _ in leaders]
        probabilities = np.array([p for _, p in leaders], dtype=float)
        context = Context(obs.main_line, obs.last_play_right)
        rules = [self._parsed(key) for key in keys]
        card_right = None
        afters = [context] * len(keys)
        if card is not None:
            card_right = np.array([rule.accepts(card, context) for rule in rules], dtype=bool)
            right = Context((*obs.main_line, card), True)
            wrong = Context(obs.main_line, False)
            afters = [right if said else wrong for said in card_right]
        accepts = np.eye(len(keys), dtype=bool)
        points = self._points(obs, before_verdict=card is not None)
        if self._judged_on_continuations() and probabilities.sum() >= break_even(points):
            for h, d in np.argwhere(~accepts):
                accepts[d, h] = self._judged_alike(keys[h], keys[d], afters[h])
        return JudgeGroups(keys, probabilities, accepts, card_right)

    def _judged_on_continuations(self) -> bool:
        """Whether declarations are judged as the published judge does (`GameTraits.judge`):
        under the stricter reading only the same behaviour everywhere is the rule."""
        return self._traits().judge == "continuations"

    def _parsed(self, key) -> Rule:
        if key not in self.rules_:
            self.rules_[key] = parse(self.hypothesis_text(key))
        return self.rules_[key]

    def _judged_alike(self, secret, declared, after: Context) -> bool:
        """Whether declaring ``declared`` is correct after ``after`` if ``secret`` is the
        rule. Once alike after a line, two rules stay alike after every line the secret
        one accepts that extends it, so that is remembered."""
        line = self.alike_.get((secret, declared))
        if line is not None and after.last_play_right and after.main_line[: len(line)] == line:
            return True
        try:
            alike = bool(
                equivalent(
                    self._parsed(secret), self._parsed(declared), after=after, plays=JUDGE_PLAYS
                )
            )
        except TooManyContexts:
            return False
        if alike and after.last_play_right:
            self.alike_[(secret, declared)] = after.main_line
        return alike

    # -- the former rule: a threshold on the best hypothesis ------------------------------

    def _threshold_declaration(self, obs: Observation) -> str | None:
        """``declaring="threshold"``: declare the most probable rule from confidence 2/3
        (`SoloDecisions.declare_rule`).

        The game goes on only after a wrong declaration, so the hypothesis declared on
        the turn before is refuted: it leaves the posterior, and the next one can rise.
        When only red cards were ever on the main line, ``red(card)`` and
        ``color(card) == color(last)`` agree on every play; the shorter is declared
        first and, refuted, leaves the other.

        Below 2/3 it still declares when waiting would cost a point a turn and teach
        nothing:

        - when no card of the hand can raise the probability of the best hypothesis
          after its verdict by 0.02 on average (`_stalled`), and it did not rise by
          0.02 over the last three turns either, from the probability at which
          declaring breaks even (`break_even`): found now, on turn ``k``, it scores
          ``31 - k``; wrong, it loses 2, so it declares from ``p = 2 / (33 - k)``
          (2/3 on turn 30);
        - when the best two are twins the next plays cannot tell apart and together
          reach 2/3 (`_twins`; after a red starter, ``color(card) != color(last)`` and
          ``if length mod 2 == 1 then black(card) else red(card)``), from 0.2.
        """
        best = self.best_hypothesis()
        if best is None:
            return None
        points = self._points(obs, before_verdict=False)  # the score if it is right
        self.best_trail_.append(best[1])
        recent = self.best_trail_[-_STALL_TURNS:]
        flat = len(recent) == _STALL_TURNS and max(recent) - min(recent) < _STALL_GAIN
        sure = best[1] >= self.declare_confidence
        if not (
            sure
            or (best[1] >= break_even(points) and flat and self._stalled(obs, best[1]))
            or (best[1] >= _TWINS_CONFIDENCE and self._twins(obs) >= self.declare_confidence)
        ):
            return None
        self.declared_now_ = [best[0]]
        return self.hypothesis_text(best[0])

    def _twins(self, obs: Observation) -> float:
        """The mass of the two most probable hypotheses if plays cannot tell them apart.

        They are twins when they agree on every face, now and after each card of the
        hand that they call right: the next plays cannot separate them, and waiting
        would only cost turns. Declaring the first, then (refuted) the second, finds
        the rule with probability ``p1 + p2``. Zero when they are not twins.
        """
        faces = np.arange(N_FACES)
        context = Context(obs.main_line, obs.last_play_right)
        probabilities, said = self.leader_verdicts(context, faces)
        if len(probabilities) < 2:
            return 0.0
        first, second = np.argsort(-probabilities, kind="stable")[:2]
        if (said[first] != said[second]).any():
            return 0.0
        for card in obs.hand:  # the contexts a right card of the hand opens
            if said[first, card.face]:
                after = self.leader_verdicts(Context((*obs.main_line, card), True), faces)[1]
                if not len(after) or (after[first] != after[second]).any():
                    return 0.0
        return float(probabilities[first] + probabilities[second])

    def _stalled(self, obs: Observation, best: float) -> bool:
        """Whether no card of the hand is expected to raise the best probability."""
        if not obs.hand:
            return True
        context = Context(obs.main_line, obs.last_play_right)
        probabilities, said_right = self.leader_verdicts(context, [card.face for card in obs.hand])
        if not len(probabilities):
            return True
        # The best probability after the verdict, on average: sum over the two verdicts
        # of the largest joint probability of a hypothesis and that verdict. No
        # hypothesis outside the leaders is more probable than the least of them.
        joint = probabilities[:, None]
        outside = float(probabilities.min()) if probabilities.sum() < 1 - 1e-9 else 0.0
        right = np.maximum((joint * said_right).max(axis=0), outside)
        wrong = np.maximum((joint * ~said_right).max(axis=0), outside)
        return bool((right + wrong).max() < best + _STALL_GAIN)
