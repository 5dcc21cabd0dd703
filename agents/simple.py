"""The two reference agents: a random player (the floor) and an oracle (the ceiling).

`RandomAgent` plays a card drawn uniformly from the cards it may play. `OracleAgent` is
told the rule (``sees_rule = True``) and plays a right card whenever it holds one: no
learner can do better on the cards it is dealt, so it bounds every other agent. Both
play every game: they mix in the solo game's and New Eleusis' decisions
(`eleusis_lab.games.solo.SoloDecisions`,
`eleusis_lab.games.new_eleusis.NewEleusisDecisions`), the oracle declaring the rule it
was told on the first solo turn and playing the longest right string in New Eleusis.

Examples
--------
>>> from eleusis_lab.games.classic import play_classic
>>> oracle = play_classic("red(card)", [OracleAgent(), OracleAgent()], seed=2)
>>> lucky = play_classic("red(card)", [RandomAgent(), RandomAgent()], seed=2)
>>> sum(map(len, oracle.wrong_after_phase1)) <= sum(map(len, lucky.wrong_after_phase1))
True
"""

from __future__ import annotations

import numpy as np

from eleusis_lab.agent import Agent, GameInfo, Observation
from eleusis_lab.cards import Card
from eleusis_lab.games.new_eleusis import NewEleusisDecisions
from eleusis_lab.games.solo import SoloDecisions
from eleusis_lab.rules import Context

__all__ = ["OracleAgent", "RandomAgent"]


class RandomAgent(SoloDecisions, NewEleusisDecisions, Agent):
    """Plays one of the cards it may play, uniformly at random.

    Its only randomness is the generator the engine hands to ``start_game``, so the same
    seed gives the same plays.

    Examples
    --------
    >>> import numpy as np
    >>> from eleusis_lab.agent import GameInfo, Observation
    >>> from eleusis_lab.cards import parse_cards
    >>> hand = tuple(parse_cards("3H 7S KD"))
    >>> agent = RandomAgent()
    >>> agent.start_game(GameInfo("classic", 0, 2, hand, hand[0]), np.random.default_rng(0))
    >>> obs = Observation("classic", 0, 1, hand, (hand[0],), ((), ()), None)
    >>> agent.choose_play(obs) in hand
    True
    """

    def choose_play(self, obs: Observation) -> Card:
        hand = obs.hand
        return hand[int(self.rng_.integers(len(hand)))]


class OracleAgent(SoloDecisions, NewEleusisDecisions, Agent):
    """Knows the rule; plays a right card whenever it holds one, else any card.

    Parameters
    ----------
    choice : {"random", "first"}
        Which right card to play when it holds several (and which card when it holds no
        right one): one drawn uniformly with the game's generator, or the first one in
        the order of ``obs.hand``.

    Examples
    --------
    >>> import numpy as np
    >>> from eleusis_lab.agent import GameInfo, Observation
    >>> from eleusis_lab.cards import parse_cards
    >>> from eleusis_lab.rules import parse
    >>> hand = tuple(parse_cards("3H 7S KD"))
    >>> agent = OracleAgent(choice="first")
    >>> info = GameInfo("classic", 0, 2, hand, hand[0], rule=parse("black(card)"))
    >>> agent.start_game(info, np.random.default_rng(0))
    >>> agent.choose_play(Observation("classic", 0, 1, hand, (hand[0],), ((), ()), None))
    Card('7S')
    >>> agent.predict(Observation("classic", 0, 1, hand, (hand[0],), ((), ()), None), hand)
    array([0., 1., 0.])
    """

    sees_rule = True

    def __init__(self, choice: str = "random"):
        self.choice = choice

    def check_params(self) -> None:
        """``choice`` is ``'random'`` or ``'first'``."""
        if self.choice not in ("random", "first"):
            raise ValueError(f"OracleAgent choice must be 'random' or 'first', got {self.choice!r}")

    def start_game(self, info: GameInfo, rng: np.random.Generator) -> None:
        super().start_game(info, rng)
        self.check_params()
        if info.rule is None:
            raise ValueError("OracleAgent was not told the rule (GameInfo.rule is None)")
        self.rule_ = info.rule

    def _right_mask(self, obs: Observation) -> int:
        return self.rule_.legal_mask(Context(obs.main_line, obs.last_play_right))

    def choose_play(self, obs: Observation) -> Card:
        mask = self._right_mask(obs)
        pool = [card for card in obs.hand if (mask >> card.face) & 1] or obs.hand
        if self.choice == "first":
            return pool[0]
        return pool[int(self.rng_.integers(len(pool)))]

    def propose_rule(self) -> tuple[str, float]:
        """The rule it was told, with certainty (so it declares it on a solo game's first turn)."""
        return self.rule_.text, 1.0

    def choose_turn(self, obs: Observation) -> tuple[Card, ...] | None:
        """New Eleusis: the longest string of right cards it holds (up to 4), else "no play".

        A right string sheds the most cards; with no right card, "no play" is true
        and gives a hand 4 cards smaller. The search for a string tries each face once
        per step and stops after 200 steps (then plays the longest string found).
        """
        hand = list(obs.hand)
        if self.choice == "random":
            hand = [hand[i] for i in self.rng_.permutation(len(hand)).tolist()]
        string = self._longest_string(obs, hand)
        return tuple(string) if string else None

    def _longest_string(self, obs: Observation, hand: list[Card], limit: int = 4) -> list[Card]:
        """Depth-first, each face once per step (copies are alike), at most 200 steps."""
        legal = self.rule_.legal_mask
        best: list[Card] = []
        steps = 0

        def extend(line: tuple[Card, ...], string: list[Card], rest: list[Card]) -> None:
            nonlocal best, steps
            if len(string) > len(best):
                best = string
            if len(string) == limit or steps >= 200:
                return
            mask = legal(Context(line, obs.last_play_right if not string else True))
            tried = 0
            for i, card in enumerate(rest):
                bit = 1 << card.face
                if mask & bit and not tried & bit:
                    tried |= bit
                    steps += 1
                    extend((*line, card), [*string, card], rest[:i] + rest[i + 1 :])
                    if len(best) == limit:
                        return

        extend(tuple(obs.main_line), [], hand)
        return best

    def declare_prophet(self, obs: Observation) -> bool:
        """New Eleusis: become the Prophet whenever it may, unless it holds 4 cards or fewer.

        Its calls are always right (the defaults of `call_play` and `call_no_play` ask
        `predict`, which knows the rule), so it is never overthrown; with 4 cards or
        fewer it would rather go out.
        """
        return len(obs.hand) > 4

    def predict(self, obs: Observation, cards: list[Card]) -> np.ndarray:
        """1.0 for the cards that are right now, 0.0 for the others."""
        mask = self._right_mask(obs)
        return np.array([float((mask >> card.face) & 1) for card in cards])
