"""The one driver of every game: `drive` moves a `eleusis_lab.games.state.GameState` to
its end with the decisions of `Seats`.

Who decides is what changes between the ways a game is played; the loop and the rules
do not. A game's engine drives its state with `AgentSeats` (the toolkit's agents, asked
within their decision limit, their faults recorded and replaced); its replay drives a
state dealt again with `RecordedSeats` (the record's own actions, each compared with
what the record says it made); an environment for reinforcement learning steps the same
state one action at a time (`eleusis_lab.envs`).

Examples
--------
A replay of sorts: a classic game driven with the cards its record played.

>>> from eleusis_lab.games.classic import play_classic
>>> from eleusis_lab.games.classic.state import CLASSIC, MainLineState
>>> from eleusis_agents.simple import RandomAgent
>>> record = play_classic("red(card)", [RandomAgent(), RandomAgent()], seed=2)
>>> class Cards(RecordedSeats):
...     def compare(self, index, action, events):
...         if events != record.events[index:index + 1]:
...             self.problems.append(f"event {index} differs")
>>> from eleusis_lab.games.classic import ClassicConfig
>>> state = MainLineState.deal(record.rule, 2, ClassicConfig(), players=2, variant=CLASSIC)
>>> seats = Cards([event.card for event in record.events])
>>> drive(state, seats).scores() == record.player_scores, seats.problems
(True, [])
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from eleusis_lab.agent import Agent, Event
from eleusis_lab.engines import FaultLog
from eleusis_lab.games.state import GameState

__all__ = ["END", "AgentSeats", "RecordedSeats", "Seats", "drive"]


class _End:
    def __repr__(self) -> str:
        return "END"


#: What `Seats.decide` answers to end a drive before the game's end (a record whose
#: actions run out before the game does).
END: Any = _End()


class Seats(abc.ABC):
    """Who decides at a game's seats: `drive` asks `decide` for each decision and tells
    `heard` what it made. A context manager around the drive (`AgentSeats` arms its
    decision limit there)."""

    def __enter__(self) -> Seats:
        return self

    def __exit__(self, *exc_info: object) -> None:
        return None

    def start(self, state: GameState) -> None:
        """Before the first decision, with the state as dealt: nothing by default."""
        return None

    def applier(self, state: GameState) -> Callable[[Any], tuple[Event, ...]]:
        """How `drive` applies the actions of `decide` to ``state``: `GameState.apply`
        by default, which checks each; seats whose actions are the state's own may
        skip the check."""
        return state.apply

    @abc.abstractmethod
    def decide(self, seat: int, state: GameState) -> Any:
        """The action ``seat`` takes now, one the state accepts; or `END`."""

    def heard(self, action: Any, events: tuple[Event, ...], state: GameState) -> None:
        """After ``action`` was applied: the ``events`` it made; nothing by default."""
        return None


def drive(state: GameState, seats: Seats) -> GameState:
    """Move ``state`` with the decisions of ``seats`` until the game is over (or the
    seats answer `END`); the state, moved.

    >>> from eleusis_lab.games.delphi.state import DelphiState
    >>> class Sure(Seats):
    ...     def decide(self, seat, state):
    ...         return 1.0
    >>> state = drive(DelphiState.deal("red(card)", 0, players=2), Sure())
    >>> state.is_terminal(), len(state.probabilities), state.probabilities[0]
    (True, 51, (1.0, 1.0))
    """
    with seats:
        seats.start(state)
        to_move, apply = state.to_move, seats.applier(state)
        decide, heard = seats.decide, seats.heard
        while (seat := to_move()) is not None:
            action = decide(seat, state)
            if action is END:
                break
            heard(action, apply(action), state)
    return state


class AgentSeats(Seats):
    """The toolkit's agents at a game's seats, one per seat: each asked within its
    decision limit, its faults recorded (``faults``, an `eleusis_lab.engines.FaultLog`
    over ``events``) and, by default, every event a seat's action made told to every
    agent (`heard`). A game's engine says how a decision is asked (`decide`) and what
    an agent is told as the game starts (`start`).

    Parameters
    ----------
    agents : sequence of Agent
        One per seat, seat 0 first.
    config : object
        The game's options (``on_fault``, ``decision_seconds``, ``decision_limit``).
    events : list
        The game's events as they come (the index of a fault's event is its length).
    """

    def __init__(self, agents: Sequence[Agent], config: Any, events: list[Any]):
        self.agents = list(agents)
        self.config = config
        self.events = events
        self.faults = FaultLog(self.agents, config, events)
        self.learners = self.faults.learners()

    def __enter__(self) -> AgentSeats:
        self.faults.limit.__enter__()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.faults.limit.__exit__(*exc_info)

    def heard(self, action: Any, events: tuple[Event, ...], state: GameState) -> None:
        """Append each event to the game's events and tell every agent that learns of it."""
        announce, learners = self.faults.announce, self.learners
        for event in events:
            announce(event, learners)


class RecordedSeats(Seats):
    """A record's actions, in order, at every seat (a replay): each action's events are
    handed to `compare`, which notes what differs from the record in ``problems``. The
    drive ends when the actions do.

    Parameters
    ----------
    actions : iterable
        The record's actions, in the order they were taken.
    """

    def __init__(self, actions: Iterable[Any]):
        self.actions = list(actions)
        self.taken = 0
        self.problems: list[str] = []

    def decide(self, seat: int, state: GameState) -> Any:
        if self.taken == len(self.actions):
            return END
        return self.actions[self.taken]

    def heard(self, action: Any, events: tuple[Event, ...], state: GameState) -> None:
        self.compare(self.taken, action, events)
        self.taken += 1

    def compare(self, index: int, action: Any, events: tuple[Event, ...]) -> None:
        """What the record's action ``index`` made: by default nothing is compared."""
