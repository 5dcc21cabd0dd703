"""What the game engines share: checking their inputs, and the faults of agents.

Every engine (classic, four-to-eight, Delphi) checks its seed and its agents the same
way (a game with decisions of its own also checks that every agent has their
capability, `check_capabilities`), and records an agent that raises, returns something
it may not or overruns its time budget as a `eleusis_lab.record.Fault` instead of
crashing (``on_fault="substitute"``), or stops at the first fault (``on_fault=
"raise"``). The rule of each game for what replaces a faulty decision is documented
with its config class (`eleusis_lab.games.classic.ClassicConfig` for the games where
agents play cards).

>>> check_seed(7)
7
>>> exception_text(ValueError("no card"))
'ValueError: no card'
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from time import perf_counter
from typing import Any

from eleusis_lab.agent import (
    Agent,
    Event,
    GameInfo,
    GameTraits,
    Observation,
    capability_refusal,
)
from eleusis_lab.cards import Card, format_cards
from eleusis_lab.errors import AgentError, ConfigError
from eleusis_lab.record import ILLEGAL_CARD, OVER_TIME, RAISED, Fault, sees_rule

#: What an engine does when an agent faults (the ``on_fault`` option of every game).
ON_FAULT = ("substitute", "raise")
MESSAGE_LENGTH = 300  # a fault message keeps this much of an exception's text


def is_int(value: object) -> bool:
    """Whether ``value`` is a whole number (and not a bool)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_seed(seed: object) -> int:
    """The seed as an int; `ConfigError` unless it is a whole number >= 0."""
    if not (is_int(seed) and seed >= 0):
        raise ConfigError(f"a game seed is a whole number >= 0, got {seed!r}")
    return int(seed)


def check_counts(counts: Sequence[int], what: str, game: str, minimum: int) -> list[int]:
    """The counts of a scoring function as ints; `ValueError` for fewer than ``minimum``
    players' counts or a negative one.

    >>> check_counts([3, 0], "card counts", "classic Eleusis", 2)
    [3, 0]
    >>> check_counts([3], "card counts", "classic Eleusis", 2)
    Traceback (most recent call last):
    ...
    ValueError: classic Eleusis needs at least 2 players' card counts, got 1
    """
    values = [int(count) for count in counts]
    if len(values) < minimum:
        raise ValueError(f"{game} needs at least {minimum} players' {what}, got {len(values)}")
    if any(value < 0 for value in values):
        raise ValueError(f"{what} cannot be negative, got {values}")
    return values


def check_fault_options(on_fault: object, decision_seconds: object) -> None:
    """`ConfigError` unless ``on_fault`` is one of `ON_FAULT` and the budget is valid."""
    if on_fault not in ON_FAULT:
        raise ConfigError(f"on_fault must be 'substitute' or 'raise', got {on_fault!r}")
    budget = decision_seconds
    if budget is not None and not (
        isinstance(budget, numbers.Real)
        and not isinstance(budget, bool)
        and math.isfinite(budget)
        and budget > 0
    ):
        raise ConfigError(
            f"decision_seconds must be None or a number of seconds > 0, got {budget!r}"
        )


def check_agents(agents: Sequence[Agent], game: str, minimum: int) -> list[Agent]:
    """The agents as a list; `ConfigError` for too few, a non-agent or a shared object."""
    agents = list(agents)
    if len(agents) < minimum:
        players = "player" if minimum == 1 else "players"
        raise ConfigError(f"{game} needs at least {minimum} active {players}, got {len(agents)}")
    for seat, agent in enumerate(agents):
        if not isinstance(agent, Agent):
            raise ConfigError(f"seat {seat}: {agent!r} is not an Agent (eleusis_lab.agent.Agent)")
    if len({id(agent) for agent in agents}) != len(agents):
        # Agents keep per-game state, so one object cannot sit at two seats.
        raise ConfigError(
            "the same agent object sits at two seats; give each seat its own agent"
            " (eleusis_lab.agent.clone makes a fresh copy)"
        )
    return agents


def check_capabilities(agents: Sequence[Agent], game: str, decisions: type) -> None:
    """`ConfigError` for an agent that lacks a capability of ``decisions``, the mixin of
    the game's own decisions: it would fault at each of them.

    >>> from eleusis_agents.simple import RandomAgent
    >>> from eleusis_lab.games.solo import SoloDecisions
    >>> class Lowest(Agent):
    ...     def choose_play(self, obs):
    ...         return min(obs.hand)
    >>> check_capabilities([RandomAgent()], "solo", SoloDecisions)
    >>> check_capabilities([Lowest()], "solo", SoloDecisions)
    Traceback (most recent call last):
    ...
    eleusis_lab.errors.ConfigError: seat 0 (Lowest()) cannot play solo: it lacks the \
capability 'declares' (mix in eleusis_lab.games.solo.decisions.SoloDecisions)
    """
    for seat, agent in enumerate(agents):
        label = f"seat {seat} ({text(repr, agent)})"
        refusal = capability_refusal(agent, label, game, (decisions,))
        if refusal is not None:
            raise ConfigError(refusal)


def shorten(text: str) -> str:
    """``text`` cut to `MESSAGE_LENGTH` characters."""
    return text if len(text) <= MESSAGE_LENGTH else text[: MESSAGE_LENGTH - 3] + "..."


def text(show: Callable[[object], str], value: object) -> str:
    """``show(value)``, or a placeholder when that raises (a broken ``__repr__``)."""
    # A fault's message must not raise a fault of its own.
    try:
        return show(value)
    except Exception:
        return f"<{type(value).__name__} that cannot be shown>"


def exception_text(error: Exception) -> str:
    """An exception as a fault message: its type and text, shortened."""
    return shorten(f"{type(error).__name__}: {text(str, error)}")


def shown(value: object) -> str:
    """An agent's answer in a fault message: a card's repr, else the repr and the type."""
    if isinstance(value, Card):
        return repr(value)
    return shorten(f"{text(repr, value)} (a {type(value).__name__})")


def not_offered(card: object, offered: tuple[Card, ...]) -> str:
    """The message of an illegal card: what was played and what could have been."""
    return (
        f"played {shorten(shown(card))}, which is not among the cards it may play"
        f" now: {format_cards(offered) or 'none'}"
    )


class FaultLog:
    """The faults of one game, and what the engine does about each.

    ``config`` is the game's config: its ``on_fault`` and ``decision_seconds`` are read.
    ``events`` is the game's list of events: its length is the next event's index.
    """

    def __init__(self, agents: list[Agent], config: Any, events: list[Event]):
        self.agents = agents
        self.stop = config.on_fault == "raise"
        self.budget = config.decision_seconds
        self.events = events
        self.faults: list[Fault] = []

    def add(self, seat: int, kind: str, message: str, event: int, phase: int, call: str) -> None:
        """Record one fault."""
        name = type(self.agents[seat]).__name__
        self.faults.append(Fault(seat, name, kind, message, event, phase, call))

    def agent_error(self, seat: int, message: str) -> AgentError:
        """The error that stops a game with ``on_fault="raise"``, naming seat and agent."""
        return AgentError(f"seat {seat} ({text(repr, self.agents[seat])}) {message}")

    def started(self, seat: int, error: Exception) -> None:
        """start_game raised (the caller re-raises when on_fault is "raise")."""
        self.add(seat, RAISED, exception_text(error), 0, 0, "start_game")

    def start_games(
        self, game: str, traits: GameTraits, rule: Any, starter: Card, hands, rngs
    ) -> None:
        """Tell every agent its game starts: a `GameInfo` with its hand and the game's
        traits (the rule only to an agent that sees it). A ``start_game`` that raises is
        a fault, or stops the game with ``on_fault="raise"``."""
        n = len(self.agents)
        for seat, agent in enumerate(self.agents):
            told = rule if sees_rule(agent) else None
            info = GameInfo(game, seat, n, hands[seat], starter, told, traits)
            try:
                agent.start_game(info, rngs[seat])
            except Exception as error:
                if self.stop:
                    raise
                self.started(seat, error)

    def raised(self, seat: int, phase: int, offered: tuple[Card, ...], error: Exception) -> Card:
        """choose_play raised (the caller re-raises when on_fault is "raise")."""
        self.add(seat, RAISED, exception_text(error), len(self.events), phase, "choose_play")
        return offered[0]

    def illegal(self, seat: int, phase: int, offered: tuple[Card, ...], card: object) -> Card:
        """choose_play returned ``card``, which is not one of ``offered``."""
        message = not_offered(card, offered)
        if self.stop:
            raise self.agent_error(seat, message)
        self.add(seat, ILLEGAL_CARD, message, len(self.events), phase, "choose_play")
        return offered[0]

    def timed(
        self, seat: int, choose: Callable[[Observation], Card]
    ) -> Callable[[Observation], Card]:
        """``choose`` (an agent's choose_play), recording the decisions over the budget."""
        budget = self.budget

        def timed_choose(obs: Observation) -> Card:
            started = perf_counter()
            card = choose(obs)
            seconds = perf_counter() - started
            if seconds > budget:
                message = (
                    f"took {seconds * 1e3:.3g} ms to choose a card; the budget is"
                    f" {budget * 1e3:.3g} ms"
                )
                if self.stop:  # goes up through the engine's `raise`, as an AgentError
                    raise self.agent_error(seat, message)
                self.add(seat, OVER_TIME, message, len(self.events), obs.phase, "choose_play")
            return card

        return timed_choose

    def not_observed(self, observers: list, observe: object, error: Exception) -> None:
        """An observe call raised (the caller re-raises when on_fault is "raise")."""
        seat = next(i for i, each in enumerate(observers) if each is observe)
        event = self.events[-1]
        self.add(seat, RAISED, exception_text(error), len(self.events) - 1, event.phase, "observe")

    def announce(self, event: Event, observers: list[Callable[[Event], None]]) -> None:
        """Append ``event`` to the game's events and tell every agent of it."""
        self.events.append(event)
        for observe in observers:
            try:
                observe(event)
            except Exception as error:
                if self.stop:
                    raise
                self.not_observed(observers, observe, error)
