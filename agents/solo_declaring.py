"""When a Bayesian agent declares in the solo game, and with what confidence.

`SoloDeclaring` extends the solo game's decisions (`eleusis_lab.games.solo.SoloDecisions`)
for an agent with a model, over a few of its methods (its most probable hypothesis, its
text, how to refute one, the leaders' verdicts): it declares when that pays
(`break_even`) and states its probability through the agent's calibration map
(`calibration_map`). `eleusis_agents.bayes.BayesAgent` and
`eleusis_agents.bayes_context.ContextBayesAgent` share it.
"""

from __future__ import annotations

import functools

import numpy as np

from eleusis_lab.agent import GameInfo, GameTraits, Observation
from eleusis_lab.calibration import CalibrationMap
from eleusis_lab.cards import N_FACES
from eleusis_lab.games.solo import MAX_TURNS, WRONG_PENALTY, SoloDecisions
from eleusis_lab.rules import Context

__all__ = ["CALIBRATION_FILES", "SoloDeclaring", "break_even", "calibration_map"]

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
_NOT_THE_MODEL = frozenset({"policy", "mix", "declare_confidence", "calibration"})


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


def break_even(points: int) -> float:
    """The probability from which declaring pays when waiting teaches nothing: right, it
    scores ``points``; wrong, it costs `WRONG_PENALTY` (2).

    >>> round(break_even(30), 3), round(break_even(1), 3)  # turn 1, turn 30
    (0.062, 0.667)
    """
    return WRONG_PENALTY / (WRONG_PENALTY + points)


class SoloDeclaring(SoloDecisions):
    """When a Bayesian agent declares in solo: the solo game's decisions over four
    methods of the agent.

    ``_best()`` gives the most probable hypothesis (a key) and its probability, or
    None; ``_refute(key)`` takes a hypothesis out of the posterior; ``_rule_text(key)``
    writes it; ``_leaders(context, faces)`` gives the probabilities of the most
    probable hypotheses and, for each, whether it says each face is right.
    """

    def start_game(self, info: GameInfo, rng: np.random.Generator) -> None:
        super().start_game(info, rng)
        self.declared_now_ = None  # the hypothesis declared after the previous turn
        self.best_trail_: list[float] = []  # the best probability after each turn
        # fitted on the benchmark's rules, the map says nothing of the rules of a dealer
        benchmark = self._traits().rule_from == "benchmark"
        self.calibration_ = calibration_map(self.calibration, self) if benchmark else None

    def _traits(self) -> GameTraits:
        """The traits of the game being played (`GameInfo.traits`); before the first
        game, a dealer's game's."""
        return getattr(getattr(self, "info_", None), "traits", GameTraits())

    def _stated(self, probability: float) -> float:
        """The confidence stated for a posterior probability: calibrated, when the agent
        has a `eleusis_lab.calibration.CalibrationMap`, so that it means what it says.

        Only what is stated changes: when to declare is still decided on the
        posterior, so a calibrated agent plays and declares as the raw one does (and a
        map fitted on the raw agent's declarations holds for its own).
        """
        calibration = getattr(self, "calibration_", None)
        return probability if calibration is None else calibration(probability)

    def declare_rule(self, obs: Observation) -> str | None:
        """Solo: declare the most probable rule from confidence 2/3 (see
        `SoloDecisions.declare_rule`).

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
        if self.declared_now_ is not None:
            self._refute(self.declared_now_)
        self.declared_now_ = None
        best = self._best()
        if best is None:
            return None
        turn = len(obs.main_line) - 1 + sum(len(cards) for cards in obs.wrong_cards)
        points = max(MAX_TURNS + 1 - turn, 1)  # the score if the declaration is right
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
        self.declared_now_ = best[0]
        return self._rule_text(best[0])

    def _twins(self, obs: Observation) -> float:
        """The mass of the two most probable hypotheses if plays cannot tell them apart.

        They are twins when they agree on every face, now and after each card of the
        hand that they call right: the next plays cannot separate them, and waiting
        would only cost turns. Declaring the first, then (refuted) the second, finds
        the rule with probability ``p1 + p2``. Zero when they are not twins.
        """
        faces = np.arange(N_FACES)
        context = Context(obs.main_line, obs.last_play_right)
        probabilities, said = self._leaders(context, faces)
        if len(probabilities) < 2:
            return 0.0
        first, second = np.argsort(-probabilities, kind="stable")[:2]
        if (said[first] != said[second]).any():
            return 0.0
        for card in obs.hand:  # the contexts a right card of the hand opens
            if said[first, card.face]:
                after = self._leaders(Context((*obs.main_line, card), True), faces)[1]
                if not len(after) or (after[first] != after[second]).any():
                    return 0.0
        return float(probabilities[first] + probabilities[second])

    def _stalled(self, obs: Observation, best: float) -> bool:
        """Whether no card of the hand is expected to raise the best probability."""
        if not obs.hand:
            return True
        context = Context(obs.main_line, obs.last_play_right)
        probabilities, said_right = self._leaders(context, [card.face for card in obs.hand])
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
