"""What every Eleusis game's rules are, as data and transitions: `GameState`.

A game's state holds one position and knows nothing of agents: who decides next
(`GameState.to_move`), what they may do (`GameState.legal_actions`), what an action
does (`GameState.apply`, which returns the events it made), what a seat sees
(`GameState.observation`) and, once the game is over, the scores. The engine that asks
agents, the replay that applies a record's actions, and the environments for
reinforcement learning (`eleusis_lab.envs`) all go through the same state, so each
game's rules are written once.

An action is what the game's decision is: a `eleusis_lab.cards.Card` in the main-line
games, and whatever a game documents beside it (a solo move's statement, a New
Eleusis string or no play, a Delphi prediction).
"""

from __future__ import annotations

import abc
from typing import Any, ClassVar

from eleusis_lab.agent import Event, Observation

__all__ = ["GameState"]


class GameState(abc.ABC):
    """One position of a game; `apply` moves it on.

    Subclasses document their actions and make their first position with a class
    method ``deal(rule, seed, config)`` (the same deal the game's ``play`` function
    makes for that seed).
    """

    #: The game's registered name (`eleusis_lab.games.table.GAMES`).
    game: ClassVar[str]

    @abc.abstractmethod
    def to_move(self) -> int | None:
        """The seat whose decision is next, or None once the game is over."""

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.to_move() is None

    @abc.abstractmethod
    def legal_actions(self) -> tuple[Any, ...]:
        """What the seat to move may do now, in the order it is offered (a fault's
        substitute is the first)."""

    @abc.abstractmethod
    def apply(self, action: Any) -> tuple[Event, ...]:
        """Do ``action`` for the seat to move; the events it made, in order."""

    @abc.abstractmethod
    def observation(self, seat: int) -> Observation:
        """What ``seat`` sees now."""

    @abc.abstractmethod
    def scores(self) -> tuple[float, ...]:
        """Each seat's score, once the game is over."""
