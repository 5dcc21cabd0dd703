"""What a player of New Eleusis sees and decides beyond `eleusis_lab.agent.Agent`'s core.

`NewEleusisObservation` is the observation the round hands its agents: the core
fields and the round's own (the side line, the hands' sizes, the Prophet ...).
`NewEleusisDecisions` is the mixin of the round's decisions (capability
``"plays_strings"``): a turn of one card, a string or "no play"; whether to become the
Prophet; the Prophet's calls. Its defaults are built on ``choose_play``,
``propose_rule`` and ``predict``, so that any agent that mixes it in plays a round.

Examples
--------
>>> from eleusis_lab.agent import Agent
>>> from eleusis_lab.games.new_eleusis import play_new_eleusis
>>> class Lowest(NewEleusisDecisions, Agent):
...     def choose_play(self, obs):
...         return min(obs.hand)
>>> record = play_new_eleusis("red(card)", [Lowest(), Lowest(), Lowest()], seed=2)
>>> all(len(turn.cards) == 1 for turn in record.turns)  # the default: one card a turn
True
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from eleusis_lab.agent import Observation
from eleusis_lab.cards import Card

__all__ = ["NewEleusisDecisions", "NewEleusisObservation"]


@dataclass(frozen=True)
class NewEleusisObservation(Observation):
    """An `eleusis_lab.agent.Observation` of New Eleusis (RULES.md section 5).

    The core fields read: ``phase`` is 2 in sudden death, and ``wrong_cards[seat]`` are
    the hands the seat set aside after a true "no play". The round's own fields:
    ``side_line[i]`` the wrong cards under main-line card ``i``, ``hand_sizes`` every
    seat's hand (the Prophet's hand set aside included), ``prophet`` the Prophet's seat,
    ``marker`` the cards played when his marker went down, ``cards_played`` the cards
    played so far (main and side line, not the starter) and ``expelled`` the seats
    expelled, in order.
    """

    side_line: tuple[tuple[Card, ...], ...] = ()
    hand_sizes: tuple[int, ...] = ()
    prophet: int | None = None
    marker: int | None = None
    cards_played: int = 0
    expelled: tuple[int, ...] = ()


class NewEleusisDecisions:
    """New Eleusis' decisions, for an `eleusis_lab.agent.Agent` to mix in: `choose_turn`,
    `declare_prophet`, `call_play` and `call_no_play`, with defaults built on the core
    decisions. It gives the capability ``"plays_strings"``.

    Mix it in before the agent's base, ``class MyAgent(NewEleusisDecisions, Agent)``,
    and override any decision, or `prophet_confidence`.
    """

    capabilities = ("plays_strings",)

    #: The confidence of ``propose_rule`` from which the default `declare_prophet` says yes.
    prophet_confidence: float = 0.9

    def choose_turn(self, obs: NewEleusisObservation) -> tuple[Card, ...] | None:
        """1 to 4 distinct cards of ``obs.hand`` to play in order, or ``None``.

        ``None`` declares "no play" (none of its cards is right). The default plays the
        single card ``choose_play`` returns, so it never declares "no play".
        """
        return (self.choose_play(obs),)

    def declare_prophet(self, obs: NewEleusisObservation) -> bool:
        """Asked right after its play when it may: become the Prophet?

        The default says yes when ``propose_rule`` gives a confidence of at least
        `prophet_confidence` (0.9): a Prophet scores a bonus per card played after his
        marker, and an overthrow (a wrong call) costs him 5 cards and the bonus.
        Agents whose ``propose_rule`` returns ``None`` never declare.
        """
        proposal = self.propose_rule()
        return proposal is not None and proposal[1] >= self.prophet_confidence

    def call_play(self, obs: NewEleusisObservation, cards: tuple[Card, ...]) -> bool:
        """The Prophet's call: is the string ``cards`` right on ``obs.main_line``?

        The default calls it right when ``predict`` rates each card right (>= 0.5) on
        the main line extended by the cards before it.

        Examples
        --------
        >>> from eleusis_lab.agent import Agent
        >>> from eleusis_lab.cards import parse_cards
        >>> class Reds(NewEleusisDecisions, Agent):
        ...     def choose_play(self, obs):
        ...         return obs.hand[0]
        ...     def predict(self, obs, cards):
        ...         return np.array([float(card.is_red) for card in cards])
        >>> obs = NewEleusisObservation(
        ...     "new-eleusis", 0, 1, (), tuple(parse_cards("2C")), (), None)
        >>> Reds().call_play(obs, tuple(parse_cards("3H 4D"))), Reds().call_play(
        ...     obs, tuple(parse_cards("3H 4S")))
        (True, False)
        """
        for i, card in enumerate(cards):
            after = obs if i == 0 else replace(obs, main_line=obs.main_line + cards[:i])
            if not float(np.asarray(self.predict(after, [card]))[0]) >= 0.5:
                return False
        return True

    def call_no_play(self, obs: NewEleusisObservation, hand: tuple[Card, ...]) -> bool:
        """The Prophet's call of a "no play": is none of ``hand`` right?

        ``hand`` is the declaring player's hand, shown to everyone. The default calls
        the declaration true when ``predict`` rates every card of it below 0.5.
        """
        return not bool((np.asarray(self.predict(obs, list(hand)), dtype=float) >= 0.5).any())
