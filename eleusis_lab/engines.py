"""What the game engines share: checking their inputs, the decision limit, and the
faults of agents.

Every engine (classic, four-to-eight, Delphi) checks its seed and its agents the same
way (a game with decisions of its own also checks that every agent has their
capability, `check_capabilities`), and records an agent that raises, returns something
it may not or overruns its time budget as a `eleusis_lab.record.Fault` instead of
crashing (``on_fault="substitute"``), or stops at the first fault (``on_fault=
"raise"``). The rule of each game for what replaces a faulty decision is documented
with its config class (`eleusis_lab.games.classic.ClassicConfig` for the games where
agents play cards). Every engine calls its agents through a `DecisionLimit`, which
stops a call still running at the game's ``decision_limit``: the engine goes on as if
the call had raised.

>>> check_seed(7)
7
>>> exception_text(ValueError("no card"))
'ValueError: no card'
"""

from __future__ import annotations

import math
import numbers
import signal
import threading
from collections.abc import Callable, Sequence
from functools import partial
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
from eleusis_lab.record import ILLEGAL_CARD, OVER_TIME, RAISED, STOPPED, Fault, sees_rule

#: What an engine does when an agent faults (the ``on_fault`` option of every game).
ON_FAULT = ("substitute", "raise")
#: The default ``decision_limit`` of every game, in seconds: far above any agent's
#: decision, finite so that an agent that never returns cannot hang a run.
DECISION_LIMIT = 60.0
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


def check_fault_options(
    on_fault: object, decision_seconds: object = None, decision_limit: object = None
) -> None:
    """`ConfigError` unless ``on_fault`` is one of `ON_FAULT` and the budget and the
    limit are None or numbers of seconds > 0.

    >>> check_fault_options("substitute", None, 60.0)
    >>> check_fault_options("substitute", None, 0)
    Traceback (most recent call last):
    ...
    eleusis_lab.errors.ConfigError: decision_limit must be None or a number of seconds > 0, got 0
    """
    if on_fault not in ON_FAULT:
        raise ConfigError(f"on_fault must be 'substitute' or 'raise', got {on_fault!r}")
    for name, seconds in (
        ("decision_seconds", decision_seconds),
        ("decision_limit", decision_limit),
    ):
        if seconds is not None and not (
            isinstance(seconds, numbers.Real)
            and not isinstance(seconds, bool)
            and math.isfinite(seconds)
            and seconds > 0
        ):
            raise ConfigError(f"{name} must be None or a number of seconds > 0, got {seconds!r}")


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


# -- the decision limit -------------------------------------------------------------------

#: The timer of a `DecisionLimit` ticks this many times per limit: a call is stopped
#: between the limit and a tenth of it later.
TICKS_PER_LIMIT = 10


class DecisionInterrupt(BaseException):
    """Raised by `DecisionLimit` inside an agent's call still running at the limit.

    Not an `Exception`, so that an agent's ``except Exception`` cannot swallow it. An
    agent that catches it all the same is interrupted again at every tick of the timer,
    and whatever it returns in the end is not used.
    """


class DecisionStopped(Exception):
    """What `DecisionLimit.call` raises to the engine for a call it stopped."""

    def __init__(self, seconds: float):
        super().__init__(f"was stopped: still deciding at the decision limit of {seconds:g} s")


def can_interrupt() -> bool:
    """Whether a `DecisionLimit` can interrupt agents here: in the main thread, on a
    platform with ``SIGALRM`` (Linux, macOS).

    Elsewhere (a thread of Dask's threaded workers, Windows) a limit cannot be enforced
    in the process that plays the game; running the agents in processes of their own
    is the remedy there.
    """
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


class DecisionLimit:
    """The hard limit on every call of one game's agents (the games' ``decision_limit``).

    The engine calls each agent method through `call`, inside a ``with`` block that
    holds for the game. While it holds, an interval timer ticks `TICKS_PER_LIMIT` times
    per limit; at the first tick after a call has run for ``seconds``,
    `DecisionInterrupt` is raised in the agent's code, and `call` raises
    `DecisionStopped` to the engine, which goes on as if the agent had raised. The timer
    runs for the game, not for each call, so that a call costs a few attribute writes
    rather than two system calls.

    Nothing is armed (`enforced` stays False) without a limit, where `can_interrupt` is
    false, or while another interval timer runs, which is not ours to re-arm: a test
    runner's time-out, or an outer game's limit when an agent plays games inside its
    own decision (the outer limit still holds). An agent inside a call that does not
    return to the interpreter (a long computation in C) is interrupted when it returns.

    Parameters
    ----------
    seconds : float or None
        The limit of one call; None: no limit.

    Examples
    --------
    >>> import time
    >>> def stubborn():
    ...     while True:
    ...         try:
    ...             time.sleep(10)
    ...         except Exception:
    ...             pass
    >>> with DecisionLimit(0.05) as limit:
    ...     limit.call(stubborn)
    Traceback (most recent call last):
    ...
    eleusis_lab.engines.DecisionStopped: was stopped: still deciding at the decision limit of 0.05 s
    >>> with DecisionLimit(0.05) as limit:
    ...     limit.enforced, limit.call(max, 2, 3)
    (True, 3)
    >>> with DecisionLimit(None) as limit:
    ...     limit.enforced, limit.call(max, 2, 3)
    (False, 3)
    """

    def __init__(self, seconds: float | None):
        self.seconds = seconds
        self.enforced = False
        self.ticks: int | None = None  # ticks since the call under way began, if any
        self.previous: Any = None  # the SIGALRM handler to put back

    def __enter__(self) -> DecisionLimit:
        if (
            self.seconds is not None
            and can_interrupt()
            and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
        ):
            self.previous = signal.signal(signal.SIGALRM, self._tick)
            period = self.seconds / TICKS_PER_LIMIT
            signal.setitimer(signal.ITIMER_REAL, period, period)
            self.enforced = True
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.enforced:
            signal.setitimer(signal.ITIMER_REAL, 0)
            # None: the handler was not set from Python and cannot be put back.
            previous = signal.SIG_DFL if self.previous is None else self.previous
            signal.signal(signal.SIGALRM, previous)
            self.enforced = False

    def _tick(self, signum: int, frame: Any) -> None:
        if self.ticks is None:
            return
        self.ticks += 1
        # Never in `call` itself, which must clean up whatever happens.
        if self.ticks > TICKS_PER_LIMIT and (frame is None or frame.f_code is not _CALL_CODE):
            raise DecisionInterrupt

    def call(self, method: Callable[..., Any], *args: Any) -> Any:
        """``method(*args)``; `DecisionStopped` when it ran over the limit, whatever it
        returned or raised (an agent that caught the interrupt and went on)."""
        self.ticks = 0
        try:
            return method(*args)
        finally:
            ticks, self.ticks = self.ticks, None
            if ticks > TICKS_PER_LIMIT:
                raise DecisionStopped(self.seconds) from None  # the stop wins


_CALL_CODE = DecisionLimit.call.__code__


def fault_of(error: Exception) -> tuple[str, str]:
    """The kind and message of the fault of an agent's call that raised ``error``:
    `STOPPED` for a call the decision limit stopped, else `RAISED`.

    >>> fault_of(ValueError("no card"))
    ('raised', 'ValueError: no card')
    >>> fault_of(DecisionStopped(0.5))
    ('stopped', 'was stopped: still deciding at the decision limit of 0.5 s')
    """
    if isinstance(error, DecisionStopped):
        return STOPPED, str(error)
    return RAISED, exception_text(error)


class FaultLog:
    """The faults of one game, and what the engine does about each.

    ``config`` is the game's config: its ``on_fault``, ``decision_seconds`` and
    ``decision_limit`` are read; the engine plays the game inside ``with faults.limit``
    and calls its agents through ``faults.limit.call``. ``events`` is the game's list of
    events: its length is the next event's index.
    """

    def __init__(self, agents: list[Agent], config: Any, events: list[Event]):
        self.agents = agents
        self.stop = config.on_fault == "raise"
        self.budget = config.decision_seconds
        self.limit = DecisionLimit(config.decision_limit)
        self.events = events
        self.faults: list[Fault] = []

    def add(self, seat: int, kind: str, message: str, event: int, phase: int, call: str) -> None:
        """Record one fault."""
        name = type(self.agents[seat]).__name__
        self.faults.append(Fault(seat, name, kind, message, event, phase, call))

    def agent_error(self, seat: int, message: str) -> AgentError:
        """The error that stops a game with ``on_fault="raise"``, naming seat and agent."""
        return AgentError(f"seat {seat} ({text(repr, self.agents[seat])}) {message}")

    def failed(self, seat: int, error: Exception, event: int, phase: int, call: str) -> None:
        """The agent's ``call`` raised ``error`` or was stopped: recorded, or with
        ``on_fault="raise"`` the game stops (the agent's exception goes up unchanged, a
        stopped call as an `AgentError`)."""
        if self.stop and isinstance(error, DecisionStopped):
            raise self.agent_error(seat, str(error)) from error
        if self.stop:
            raise error
        self.add(seat, *fault_of(error), event, phase, call)

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
                self.limit.call(agent.start_game, info, rngs[seat])
            except Exception as error:
                self.failed(seat, error, 0, 0, "start_game")

    def raised(self, seat: int, phase: int, offered: tuple[Card, ...], error: Exception) -> Card:
        """choose_play raised or was stopped: the first card offered is played instead."""
        self.failed(seat, error, len(self.events), phase, "choose_play")
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

    def observers(self) -> list[Callable[[Event], None]]:
        """Every agent's ``observe``, limited, for `announce`; but `Agent`'s own, which
        ignores every event, is called as it is: it cannot hang, and a guard at each
        event would slow the games of agents that do not learn."""
        methods = [agent.observe for agent in self.agents]
        return [
            method
            if getattr(method, "__func__", None) is Agent.observe
            else partial(self.limit.call, method)
            for method in methods
        ]

    def announce(self, event: Event, observers: list[Callable[[Event], None]]) -> None:
        """Append ``event`` to the game's events and tell every agent of it (through
        `observers`)."""
        self.events.append(event)
        for observe in observers:
            try:
                observe(event)
            except Exception as error:
                seat = observers.index(observe)  # not looked up unless needed: a hot loop
                self.failed(seat, error, len(self.events) - 1, event.phase, "observe")
