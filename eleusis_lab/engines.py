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
stops a call still running at the game's ``decision_limit`` and retires its seat for
the rest of the game (the engine goes on as if that call and every later one had
raised), and turns whatever else than an `Exception` an agent raises (``SystemExit``,
a ``KeyboardInterrupt`` of its own) into a fault (`AgentRaised`), while a real Ctrl-C
still stops the game (`DecisionLimit`).

The engine trusts no object an agent returns: a card is read as plain values without
running any code of its class (`card_key`) and replaced by the engine's own card it
equals (`own_card`); numbers and texts are copied into plain ``float`` and ``str``
(`plain_float`, `plain_text`) before they are checked; whether an agent is told the
rule is read once, from its class (`eleusis_lab.record.sees_rule`), and recorded so.

>>> check_seed(7)
7
>>> exception_text(ValueError("no card"))
'ValueError: no card'
"""

from __future__ import annotations

import _signal
import math
import numbers
import signal
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import partial
from time import perf_counter
from typing import Any

import numpy as np

from eleusis_lab.agent import (
    USAGE_FIELDS,
    Agent,
    Event,
    GameInfo,
    GameTraits,
    Observation,
    capability_refusal,
)
from eleusis_lab.cards import Card, format_cards
from eleusis_lab.errors import AgentError, ConfigError
from eleusis_lab.record_basics import (
    ILLEGAL_CARD,
    OVER_TIME,
    RAISED,
    STOPPED,
    Fault,
    class_attribute,
    describe_agent,
    sees_rule,
)

#: What an engine does when an agent faults (the ``on_fault`` option of every game).
ON_FAULT = ("substitute", "raise")
#: The default ``decision_limit`` of every game, in seconds: far above any agent's
#: decision, finite so that an agent that never returns cannot hang a run.
DECISION_LIMIT = 60.0
#: The most seconds a decision's limit, budget or an isolated agent's limit may be (a
#: day): the system's timers and waits take no more.
MOST_SECONDS = 86_400.0
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
    limit are None or numbers of seconds > 0, at most `MOST_SECONDS`.

    >>> check_fault_options("substitute", None, 60.0)
    >>> check_fault_options("substitute", None, 0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    eleusis_lab.errors.ConfigError: decision_limit must be None or a number of seconds > 0 ...
    """
    if on_fault not in ON_FAULT:
        raise ConfigError(f"on_fault must be 'substitute' or 'raise', got {on_fault!r}")
    for name, seconds in (
        ("decision_seconds", decision_seconds),
        ("decision_limit", decision_limit),
    ):
        if seconds is not None and not is_seconds(seconds):
            raise ConfigError(
                f"{name} must be None or a number of seconds > 0 and at most"
                f" {MOST_SECONDS:g}, got {seconds!r}"
            )


def is_seconds(value: object) -> bool:
    """Whether ``value`` is a number of seconds > 0 and at most `MOST_SECONDS`.

    >>> is_seconds(2.5), is_seconds(0), is_seconds(1e300), is_seconds(True)
    (True, False, False, False)
    """
    return (
        isinstance(value, numbers.Real)
        and not isinstance(value, bool)
        and 0 < value <= MOST_SECONDS
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


_TYPE_NAME = type.__dict__["__name__"].__get__


def class_name(value: object) -> str:
    """The name of ``value``'s class, read from the type itself: an agent's metaclass
    may override ``__name__``, and a fault's message must not run an agent's code.

    >>> class Meta(type):
    ...     @property
    ...     def __name__(cls):
    ...         raise SystemExit(3)
    >>> class Odd(metaclass=Meta):
    ...     pass
    >>> class_name(Odd())
    'Odd'
    """
    return _TYPE_NAME(type(value))


def text(show: Callable[[object], str], value: object) -> str:
    """``show(value)``, or a placeholder when that raises (a broken ``__repr__``, or
    one that raises ``SystemExit``) or, during a game, runs past its decision limit (a
    ``__repr__`` that never returns: `_shown_within`); a real interrupt still goes up
    (`is_interrupt`)."""
    # A fault's message must not raise a fault of its own.
    return guarded(
        lambda: plain_text(_shown_within(show, value)) or "",
        lambda error: f"<{class_name(value)} that cannot be shown>",
    )


def guarded(read: Callable[[], Any], failed: Callable[[BaseException], Any]) -> Any:
    """``read()``, the engine reading an agent's objects outside its calls (a message's
    repr, its parameters, its usage); ``failed(error)`` for what that raises, anything
    but a real interrupt (`is_interrupt`), which goes up."""
    received = _INTERRUPTS.received
    try:
        return read()
    except BaseException as error:
        if is_interrupt(error, received):
            raise
        return failed(error)


#: The `DecisionLimit` of the game this thread plays, if any (`_shown_within`).
_PLAYING = threading.local()
#: The "seat" of the engine's own reading of an agent's objects for its messages.
_MESSAGES = -1


def _shown_within(show: Callable[[object], str], value: object) -> Any:
    """``show(value)``, within the decision limit of the game under way: the ``__repr__``
    of an agent's answer is the agent's code. One that is stopped retires the messages'
    own seat, `_MESSAGES`, so that every later one is a placeholder at once."""
    limit = getattr(_PLAYING, "limit", None)
    if limit is None or not limit.enforced or limit.ticks is not None:
        return show(value)  # no limit, or inside a call: that call's limit holds
    return limit.call(show, value, seat=_MESSAGES)


def exception_text(error: BaseException) -> str:
    """An exception as a fault message: its type and text, shortened."""
    return shorten(f"{class_name(error)}: {text(str, error)}")


def shown(value: object) -> str:
    """An agent's answer in a fault message: a card as the engine reads it (`card_key`),
    else the repr and the type."""
    key = card_key(value)
    if key is not None and type(value) is Card:
        return repr(Card(*key))
    return shorten(f"{text(repr, value)} (a {class_name(value)})")


# -- what agents return, read as plain values ---------------------------------------------


def card_key(value: object) -> tuple[int, int, int] | None:
    """The rank, suit and copy of a card an agent returned, as plain ints read from the
    tuple itself; None unless ``value`` is a `Card` by its type whose three fields are
    plain ints in range (its face is then 0..51).

    Nothing of ``value``'s class runs: a `Card` subclass may override ``face``,
    ``rank``, ``__eq__`` or ``__hash__`` to be judged as another card than the one it
    is (a face computed where it is judged, or one of -1 that breaks the judging), and
    its fields may be ints of a class of its own. An engine judges the card of the hand
    it equals by these values (`own_card`), never the agent's object.

    >>> card_key(Card(12, 2)), card_key((12, 2, 0)), card_key("QH")
    ((12, 2, 0), None, None)
    >>> class Liar(Card):
    ...     face = 0  # the ace of clubs wherever it is judged
    >>> card_key(Liar(12, 2))
    (12, 2, 0)
    >>> card_key(tuple.__new__(Liar, (14, 2, 0))) is None  # a rank out of range
    True
    """
    kind = type(value)
    if kind is Card and len(value) == 3:  # type: ignore[arg-type]
        rank, suit, copy = value  # type: ignore[misc] # the engine's class: a tuple's fields
    elif issubclass(kind, Card) and tuple.__len__(value) == 3:  # type: ignore[arg-type]
        rank, suit, copy = tuple.__iter__(value)  # type: ignore[arg-type]
    else:
        return None  # not a card, or one made with tuple.__new__ of other than 3 fields
    if not (type(rank) is int and type(suit) is int and type(copy) is int):
        return None  # an int subclass of the agent's may lie in its comparisons
    return (rank, suit, copy) if 1 <= rank <= 13 and 0 <= suit <= 3 and copy >= 0 else None


def own_card(value: object, cards: Iterable[Card]) -> Card | None:
    """The card of ``cards`` (the engine's own) that ``value`` equals by its plain
    values (`card_key`), or None: what an engine plays in place of an agent's answer.

    >>> hand = (Card(3, 0), Card(12, 2))
    >>> class Liar(Card):
    ...     def __eq__(self, other):
    ...         return True
    ...     __hash__ = Card.__hash__
    >>> own_card(Liar(12, 2), hand) is hand[1], own_card(Liar(5, 1), hand)
    (True, None)
    """
    key = card_key(value)
    if key is not None:
        for card in cards:
            if card == key:  # the engine's Card against plain ints: no code of the agent's
                return card
    return None


#: numpy's real number types (exactly these: a subclass may override ``__float__``).
_NUMPY_REALS = frozenset(
    kind for kind in set(np.sctypeDict.values()) if issubclass(kind, np.floating | np.integer)
)


def plain_float(value: object) -> float | None:
    """``value`` as a plain float when it is a real number (not a bool), read without
    running code of its class (a ``float`` subclass may override ``__float__`` or
    ``__le__``); None for anything else (text, a number class of the agent's own).

    >>> class Half(float):
    ...     def __le__(self, other):
    ...         return True
    >>> plain_float(Half(7.0)), type(plain_float(Half(7.0))), plain_float(np.float32(0.5))
    (7.0, <class 'float'>, 0.5)
    >>> plain_float(True), plain_float("0.5"), plain_float(10**400)
    (None, None, None)
    """
    kind = type(value)
    if kind is bool:
        return None
    if issubclass(kind, float):
        return float.__float__(value)  # type: ignore[arg-type]
    if issubclass(kind, int):
        try:
            return float(int.__index__(value))  # type: ignore[arg-type]
        except OverflowError:
            return None
    if kind in _NUMPY_REALS:
        return float(value)  # type: ignore[arg-type]
    return None


def plain_text(value: object) -> str | None:
    """``value`` as a plain str when it is text (a copy of a ``str`` subclass, whose
    methods may lie), else None.

    >>> class Shifty(str):
    ...     def strip(self):
    ...         return "red(card)"
    >>> type(plain_text(Shifty("black(card)"))), plain_text(3)
    (<class 'str'>, None)
    """
    return str.__str__(value) if issubclass(type(value), str) else None  # type: ignore[arg-type]


def people(agents: Sequence[Any]) -> frozenset[int]:
    """The seats a person plays: their class declares ``interactive = True`` (read from
    the class, `eleusis_agents.human.HumanAgent`). A ``KeyboardInterrupt`` their calls
    raise is the person quitting and stops the game (`DecisionLimit`)."""
    return frozenset(
        seat
        for seat, agent in enumerate(agents)
        if class_attribute(type(agent), "interactive", False) is True
    )


def describe_seat(agent: Agent, told: bool | None = None) -> dict[str, Any]:
    """An agent as its record describes it (`eleusis_lab.record.describe_agent`), its
    parameters read as the engine reads answers: ``get_params()`` is the agent's code,
    so what it raises (but a real interrupt) is recorded in their place, never the end
    of a batch, and what it returns is copied into plain values (`plain_param`).

    >>> class Broken(Agent):
    ...     def choose_play(self, obs):
    ...         return obs.hand[0]
    ...     def get_params(self, deep=True):
    ...         raise SystemExit(3)
    >>> describe_seat(Broken())["params"]
    {'get_params': 'raised SystemExit: 3'}
    """
    params = guarded(
        lambda: plain_param(agent.get_params()),
        lambda error: {"get_params": f"raised {exception_text(error)}"},
    )
    if type(params) is not dict:
        params = {"get_params": f"returned {shorten(text(repr, params))}, not a dict"}
    return describe_agent(agent, told, params)


def seat_usage(agent: Agent) -> dict[str, float | None]:
    """What ``agent`` reports its last game cost (`eleusis_lab.agent.Agent.usage`),
    one value per `USAGE_FIELDS`: a number >= 0 (``calls`` and the tokens whole), None
    where it reports nothing, or reports what is no such number, or the call raises
    (but a real interrupt): the agent's code, read as its answers are.

    >>> class Talks(Agent):
    ...     def choose_play(self, obs):
    ...         return obs.hand[0]
    ...     def usage(self):
    ...         return {"calls": 3, "tokens_in": 1200, "model_seconds": 2.5, "tokens_out": -1}
    >>> seat_usage(Talks())
    {'calls': 3, 'tokens_in': 1200, 'tokens_out': None, 'reasoning_tokens': None, \
'model_seconds': 2.5}
    """

    def read() -> dict[str | None, float | None]:
        reported = agent.usage()
        items = dict.items(reported) if issubclass(type(reported), dict) else ()
        return {plain_text(key): plain_float(value) for key, value in items}

    values = guarded(read, lambda error: {})
    usage: dict[str, float | None] = {}
    for field in USAGE_FIELDS:
        value = values.get(field)
        if value is None or not (math.isfinite(value) and value >= 0):
            value = None
        elif field != "model_seconds":  # counts: whole numbers
            value = int(value) if value == int(value) else None
        usage[field] = value
    return usage


#: How deep `plain_param` copies containers; deeper ones are kept as their repr.
_PARAM_DEPTH = 20


def plain_param(value: object, depth: int = 0) -> Any:
    """A parameter's value as a record keeps it, read without running the agent's code:
    ``None``, bools, numbers, text, cards and numpy scalars as they are (subclasses
    copied into the plain type), dicts, lists and tuples copied with their items, and
    anything else as its repr (`text`).

    >>> class Loud(str):
    ...     def __str__(self):
    ...         raise SystemExit(3)
    >>> plain_param({"name": Loud("x"), "sizes": (1, 2.5), "other": object})
    {'name': 'x', 'sizes': (1, 2.5), 'other': "<class 'object'>"}
    """
    kind = type(value)
    if value is None or kind is bool or kind is Card or kind in _NUMPY_REALS:
        return value
    if issubclass(kind, str):
        return plain_text(value)
    if issubclass(kind, int):
        return int.__index__(value)  # type: ignore[arg-type]
    if issubclass(kind, float):
        return float.__float__(value)  # type: ignore[arg-type]
    if depth < _PARAM_DEPTH:
        if issubclass(kind, dict):
            return {
                plain_param(key, depth + 1): plain_param(item, depth + 1)
                for key, item in dict.items(value)  # type: ignore[arg-type]
            }
        if issubclass(kind, list | tuple):
            iterate = list.__iter__ if issubclass(kind, list) else tuple.__iter__
            items = [plain_param(item, depth + 1) for item in iterate(value)]  # type: ignore[arg-type]
            return items if issubclass(kind, list) else tuple(items)
    return text(repr, value)


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


class SeatRetired(Exception):
    """What `DecisionLimit.call` raises, without calling the agent, for a seat stopped
    earlier in the game: the engine plays its substitute and records nothing more, the
    seat's stopped fault counting the call (`counted`)."""


class AgentRaised(AgentError):
    """What `DecisionLimit.call` raises to the engine for an agent's call that raised
    something other than an `Exception`: ``SystemExit``, a ``KeyboardInterrupt`` of the
    agent's own, ``GeneratorExit``, a ``BaseException`` subclass. It is a fault of the
    seat like any exception (``raised``, its message the agent's exception), never the
    end of the game or of a batch of games; with ``on_fault="raise"`` it stops the game
    as an `AgentError`.

    >>> str(AgentRaised(SystemExit(3)))
    'SystemExit: 3'
    """

    def __init__(self, error: BaseException):
        super().__init__(exception_text(error))


class _Interrupts:
    """The interrupts the process received while games played, which tell a real Ctrl-C
    from a ``KeyboardInterrupt`` that an agent raises itself.

    Python raises ``KeyboardInterrupt`` from its SIGINT handler in whatever code runs,
    most often an agent's, where nothing tells it from ``raise KeyboardInterrupt`` in
    the agent's code. So while a `DecisionLimit` holds in the main thread (the only one
    where Python handles signals), the SIGINT and SIGTERM handlers that are Python
    functions (a run makes SIGTERM an interrupt) are wrapped to count here, then do
    what they did: a call during which ``received`` moved was interrupted. ``blind``
    counts the limits under which SIGINT has a handler set outside Python: there a
    ``KeyboardInterrupt`` may be real and cannot be told, so it stops the game.
    """

    received = 0
    blind = 0


_INTERRUPTS = _Interrupts()
_WATCHED = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM") if hasattr(signal, name))


#: `signal.signal` without its conversion of the handlers to enums (two thirds of its
#: cost, twice a signal and a game): the function it wraps.
_set_handler = _signal.signal


def _counting(replaced: list[Any]) -> Callable[[int, Any], Any]:
    """A handler that counts each signal in `_INTERRUPTS`, then calls the handler it
    replaced (``replaced[0]``, known once it is installed: one system call, not two;
    a signal in between is an interrupt)."""

    def counted(signum: int, frame: Any) -> Any:
        _INTERRUPTS.received += 1
        if not replaced:
            raise KeyboardInterrupt
        return replaced[0](signum, frame)

    return counted


def is_interrupt(error: BaseException, received: int) -> bool:
    """Whether ``error``, raised by code that ran since `_Interrupts.received` was
    ``received``, must stop the run: a signal came meanwhile (whatever the code made of
    it), or it is a ``KeyboardInterrupt`` where they cannot be told (`_Interrupts`)."""
    if _INTERRUPTS.received != received:
        return True
    return isinstance(error, KeyboardInterrupt) and _INTERRUPTS.blind > 0


def can_interrupt() -> bool:
    """Whether a `DecisionLimit` can interrupt agents here: in the main thread, on a
    platform with ``SIGALRM`` (Linux, macOS).

    Elsewhere (a thread of Dask's threaded workers, Windows) a limit cannot be enforced
    in the process that plays the game; running the agents in processes of their own
    is the remedy there.
    """
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


class DecisionLimit:
    """The hard limit on every call of one game's agents (the games' ``decision_limit``),
    and the boundary of every call of an agent.

    The engine calls each agent method through `call`, inside a ``with`` block that
    holds for the game. While it holds, an interval timer ticks `TICKS_PER_LIMIT` times
    per limit; at the first tick after a call has run for ``seconds``,
    `DecisionInterrupt` is raised in the agent's code, and `call` raises
    `DecisionStopped` to the engine, which goes on as if the agent had raised. The timer
    runs for the game, not for each call, so that a call costs a few attribute writes
    rather than two system calls.

    A limit costs a seat once: the seat of a stopped call is retired for the rest of
    the game (`retired`), and `call` answers its later calls with `SeatRetired` without
    calling the agent, so that the engine plays its substitutes at once rather than
    after the limit at every decision; `counted` adds those calls to the stopped fault.

    What a call raises other than an `Exception` is the agent's fault, not the end of
    the game: `AgentRaised`. A real interrupt still stops the game: a ``KeyboardInterrupt``
    (or anything else) raised in a call during which the process received SIGINT or
    SIGTERM goes up as a ``KeyboardInterrupt``, even when the agent swallowed the
    signal and returned (`_Interrupts`), and a ``KeyboardInterrupt`` from a seat a
    person plays (`people`) is the person quitting.

    Nothing is armed (`enforced` stays False) without a limit, where `can_interrupt` is
    false, or while another interval timer runs, which is not ours to re-arm: a test
    runner's time-out, or an outer game's limit when an agent plays games inside its
    own decision (the outer limit still holds). An agent inside a call that does not
    return to the interpreter (a long computation in C) is interrupted when it returns.

    Parameters
    ----------
    seconds : float or None
        The limit of one call; None: no limit.

    Attributes
    ----------
    retired : dict of int to int
        The seats stopped in this game, each with the calls `call` has refused since.
    people : frozenset of int
        The seats a person plays (`people`), whose ``KeyboardInterrupt`` stops the game.

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
        self.retired: dict[int, int] = {}
        self.people: frozenset[int] = frozenset()
        self.wrapped: list[tuple[int, Any]] = []  # the interrupt handlers to put back
        self.blind = False
        self.outer: DecisionLimit | None = None  # the limit of an outer game, if any

    def __enter__(self) -> DecisionLimit:
        self._watch_interrupts()
        self.outer = getattr(_PLAYING, "limit", None)
        _PLAYING.limit = self
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
        while self.wrapped:
            signum, handler = self.wrapped.pop()
            _set_handler(signum, handler)
        if self.blind:
            _INTERRUPTS.blind -= 1
            self.blind = False
        _PLAYING.limit = self.outer

    def _watch_interrupts(self) -> None:
        """Count the interrupts received while the game plays (`_Interrupts`)."""
        if threading.current_thread() is not threading.main_thread():
            return  # no signal is handled here: a KeyboardInterrupt is the agent's own
        for signum in _WATCHED:
            replaced: list[Any] = []
            handler = _set_handler(signum, _counting(replaced))
            if callable(handler):
                replaced.append(handler)
                self.wrapped.append((signum, handler))
                continue
            # SIG_DFL or SIG_IGN: no KeyboardInterrupt comes of it; None: a handler set
            # outside Python, which cannot be put back nor told apart (`_Interrupts`)
            _set_handler(signum, signal.SIG_DFL if handler is None else handler)
            if handler is None and signum == signal.SIGINT:
                self.blind = True
                _INTERRUPTS.blind += 1

    def _tick(self, signum: int, frame: Any) -> None:
        if self.ticks is None:
            return
        self.ticks += 1
        # Never in `call` itself, which must clean up whatever happens.
        if self.ticks > TICKS_PER_LIMIT and (frame is None or frame.f_code is not _CALL_CODE):
            raise DecisionInterrupt

    def call(self, method: Callable[..., Any], *args: Any, seat: int = 0) -> Any:
        """``method(*args)``, a call of the agent at ``seat``.

        `DecisionStopped` when it ran over the limit, whatever it returned or raised (an
        agent that caught the interrupt and went on), and the seat is retired;
        `SeatRetired` at once for a retired seat; `AgentRaised` for what it raised other
        than an `Exception`; ``KeyboardInterrupt`` after a real interrupt.
        """
        if seat in self.retired:
            self.retired[seat] += 1
            raise SeatRetired(f"seat {seat} was retired at the decision limit")
        received = _INTERRUPTS.received
        self.ticks = 0
        try:
            answer = method(*args)
        except BaseException as error:
            ticks, self.ticks = self.ticks, None  # first, before a tick can interrupt here
            if isinstance(error, KeyboardInterrupt) and (
                is_interrupt(error, received) or seat in self.people
            ):
                raise  # Ctrl-C, or the person at the seat quitting: the game stops
            self._after(ticks, received, seat)
            if isinstance(error, Exception):
                raise
            raise AgentRaised(error) from error
        ticks, self.ticks = self.ticks, None
        if ticks > TICKS_PER_LIMIT or _INTERRUPTS.received != received:
            self._after(ticks, received, seat)
        return answer

    def _after(self, ticks: int, received: int, seat: int) -> None:
        """After a call: a real interrupt goes on up, then the stop wins over what the
        call returned or raised (and retires the seat)."""
        if _INTERRUPTS.received != received:
            raise KeyboardInterrupt  # the agent swallowed it: the run stops all the same
        if ticks > TICKS_PER_LIMIT:
            self.retired[seat] = 0
            raise DecisionStopped(self.seconds) from None


_CALL_CODE = DecisionLimit.call.__code__


def counted(faults: Sequence[Fault], limit: DecisionLimit) -> tuple[Fault, ...]:
    """``faults`` with the stopped fault of each retired seat counting the calls `call`
    refused after it (`eleusis_lab.record.Fault.count`): the fault is recorded once.

    >>> limit = DecisionLimit(1.0)
    >>> limit.retired = {1: 4}
    >>> stop = Fault(1, "Slow", STOPPED, "was stopped", 2, 1, "choose_play")
    >>> [fault.count for fault in counted([stop], limit)]
    [5]
    """
    skipped = {seat: calls for seat, calls in limit.retired.items() if calls}
    if not skipped:
        return tuple(faults)
    result = list(faults)
    for i, fault in enumerate(result):
        if fault.kind == STOPPED and fault.seat in skipped:
            result[i] = replace(fault, count=fault.count + skipped.pop(fault.seat))
    return tuple(result)


def fault_of(error: Exception) -> tuple[str, str]:
    """The kind and message of the fault of an agent's call that raised ``error``:
    `STOPPED` for a call the decision limit stopped, else `RAISED`.

    >>> fault_of(ValueError("no card"))
    ('raised', 'ValueError: no card')
    >>> fault_of(DecisionStopped(0.5))
    ('stopped', 'was stopped: still deciding at the decision limit of 0.5 s')
    >>> fault_of(AgentRaised(SystemExit(3)))
    ('raised', 'SystemExit: 3')
    """
    if isinstance(error, DecisionStopped):
        return STOPPED, str(error)
    if isinstance(error, AgentRaised):
        return RAISED, str(error)
    return RAISED, exception_text(error)


def stops_game(error: Exception) -> bool:
    """Whether ``error``, from a call, stops a game with ``on_fault="raise"`` as an
    `AgentError` naming the seat (rather than going up unchanged, as an agent's own
    exception does)."""
    return isinstance(error, DecisionStopped | AgentRaised)


def error_message(error: Exception) -> str:
    """What the `AgentError` of a game stopped by ``error`` says after the seat."""
    return f"raised {error}" if isinstance(error, AgentRaised) else str(error)


class FaultLog:
    """The faults of one game, and what the engine does about each.

    ``config`` is the game's config: its ``on_fault``, ``decision_limit`` and, where the
    game has a time budget, ``decision_seconds`` are read; the engine plays the game
    inside ``with faults.limit`` and calls its agents through ``faults.limit.call``
    (naming the seat). ``events`` is the game's list of events: its length is the next
    event's index. Which agents are told the rule is decided once, here (``told``), and
    the record says so (`described`); the record's faults are `recorded`.
    """

    def __init__(self, agents: list[Agent], config: Any, events: list[Event]):
        self.agents = agents
        self.stop = config.on_fault == "raise"
        self.budget = getattr(config, "decision_seconds", None)  # None: a game without one
        self.limit = DecisionLimit(config.decision_limit)
        self.limit.people = people(agents)
        self.events = events
        self.faults: list[Fault] = []
        self.told = [sees_rule(agent) for agent in agents]

    def add(self, seat: int, kind: str, message: str, event: int, phase: int, call: str) -> None:
        """Record one fault."""
        name = class_name(self.agents[seat])
        self.faults.append(Fault(seat, name, kind, message, event, phase, call))

    def recorded(self) -> tuple[Fault, ...]:
        """The game's faults as its record holds them: a retired seat's stop counting
        the calls the engine did not make (`counted`)."""
        return counted(self.faults, self.limit)

    def described(self) -> tuple[dict[str, Any], ...]:
        """The agents as the record describes them, marked as they were told the rule."""
        return tuple(
            describe_seat(agent, told) for agent, told in zip(self.agents, self.told, strict=True)
        )

    def agent_error(self, seat: int, message: str) -> AgentError:
        """The error that stops a game with ``on_fault="raise"``, naming seat and agent."""
        return AgentError(f"seat {seat} ({text(repr, self.agents[seat])}) {message}")

    def failed(self, seat: int, error: Exception, event: int, phase: int, call: str) -> None:
        """The agent's ``call`` raised ``error`` or was stopped: recorded, or with
        ``on_fault="raise"`` the game stops (the agent's exception goes up unchanged, a
        stopped call or a ``BaseException`` as an `AgentError`). A retired seat's call
        is not recorded again (`counted`)."""
        if isinstance(error, SeatRetired):
            return
        if self.stop and stops_game(error):
            raise self.agent_error(seat, error_message(error)) from error
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
            told = rule if self.told[seat] else None
            info = GameInfo(game, seat, n, hands[seat], starter, told, traits)
            try:
                self.limit.call(agent.start_game, info, rngs[seat], seat=seat)
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

    def learners(self) -> list[tuple[int, Callable[[Event], None]]]:
        """The seats whose agent learns from events, each with its ``observe``, limited
        (for `announce`, or a game that tells its agents more than an `Event`: Secrets):
        an agent whose ``observe`` is `Agent`'s own, which ignores every event, is left
        out, so that agents that do not learn cost nothing at an event."""
        return [
            (seat, partial(self.limit.call, agent.observe, seat=seat))
            for seat, agent in enumerate(self.agents)
            if getattr(agent.observe, "__func__", None) is not Agent.observe
        ]

    def announce(self, event: Event, learners: list[tuple[int, Callable[[Event], None]]]) -> None:
        """Append ``event`` to the game's events and tell every agent that learns of it
        (`learners`)."""
        self.events.append(event)
        for seat, observe in learners:
            try:
                observe(event)
            except Exception as error:
                self.failed(seat, error, len(self.events) - 1, event.phase, "observe")
