"""The parts every game's record is made of: faults, cards and agents as plain data, the
fields of a record's JSON and how they are checked.

The games' record modules, the engines and the shards build on these; reading,
replaying and laying out a record of any game, which go through the game registry,
are in `eleusis_lab.record`, which re-exports everything here.

Examples
--------
>>> from eleusis_lab.cards import Card
>>> card_text(Card(10, 2)), card_from_text("10H#1")
('10H', Card('10H', copy=1))
>>> Fault.from_dict(Fault(0, "Slow", OVER_TIME, "took 2 s", 3, 1, "choose_play").to_dict()).kind
'over_time'
"""

from __future__ import annotations

import contextlib
import sys
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from eleusis_lab.agent import Agent, Event
from eleusis_lab.cards import Card, CardError, parse_card
from eleusis_lab.registry import class_spec_problem
from eleusis_lab.rules import parse
from eleusis_lab.rules.complexity import measure_phrases
from eleusis_lab.text import wrap_phrases

__all__ = [
    "FAULT_CALLS",
    "FAULT_KINDS",
    "Fault",
    "FaultRules",
    "ILLEGAL_CARD",
    "LINE_WIDTH",
    "MAX_RECORD_BYTES",
    "OVER_TIME",
    "RAISED",
    "RecordError",
    "STOPPED",
    "TURN_CAP",
    "agent_from_dict",
    "card_from_text",
    "card_text",
    "cards_from_text",
    "cards_text",
    "check_faults",
    "class_attribute",
    "complexity_lines",
    "describe_agent",
    "event_from_dict",
    "event_to_dict",
    "fault_options_problems",
    "flag_field",
    "jsonable",
    "reading_record",
    "right_or_wrong",
    "rule_game_head",
    "sees_rule",
    "whole_field",
]

#: How a game stopped by its turn cap ended (every game's safety net, never silent).
TURN_CAP = "turn_cap"

#: What an agent did wrong (`Fault.kind`).
RAISED = "raised"
ILLEGAL_CARD = "illegal_card"
OVER_TIME = "over_time"
STOPPED = "stopped"
FAULT_KINDS = {
    RAISED: "raised an exception",
    ILLEGAL_CARD: "returned a card it may not play",
    OVER_TIME: "took longer than the time budget to decide",
    STOPPED: "was still deciding at the decision limit and was stopped",
}
#: The agent methods a fault can happen in (`Fault.call`).
FAULT_CALLS = ("start_game", "choose_play", "observe")


class RecordError(ValueError):
    """Text or a file that is not a valid game record."""


#: The largest record file read, in bytes (a classic match of 8 players: about 120 kB).
MAX_RECORD_BYTES = 50_000_000
#: The modules no agent class comes from: Python's own. A record's ``spec`` naming one
#: (``os:system``) is refused; replay imports nothing a record names.
_NOT_AGENT_MODULES = frozenset(sys.stdlib_module_names)
#: A terminal's width: the lines of a layout that are not its table fit in it.
LINE_WIDTH = 100


def whole_field(value: Any, what: str, least: int | None = 0) -> int:
    """``value``, a whole number of a record (not a bool, not text) >= ``least`` (None:
    any); else `ValueError` naming ``what``, which `reading_record` reports.

    >>> whole_field("3", "seed")
    Traceback (most recent call last):
    ...
    ValueError: seed: expected a whole number >= 0, got '3'
    """
    if type(value) is not int or (least is not None and value < least):
        at_least = f" >= {least}" if least is not None else ""
        raise ValueError(f"{what}: expected a whole number{at_least}, got {value!r}")
    return value


def flag_field(value: Any, what: str) -> bool:
    """``value``, true or false in a record; else `ValueError` naming ``what``."""
    if type(value) is not bool:
        raise ValueError(f"{what}: expected true or false, got {value!r}")
    return value


def agent_from_dict(data: Any) -> dict[str, Any]:
    """An agent's description in a record (`describe_agent`), checked: an object whose
    ``spec`` is ``module:Class`` text (`eleusis_lab.registry.class_spec_problem`) of no
    module of Python's own; else `ValueError`. Nothing is imported.

    >>> agent_from_dict({"name": "system", "spec": "os:system", "params": {}})
    Traceback (most recent call last):
    ...
    ValueError: agent 'system': spec: 'os:system' is no agent class: 'os' is a module of \
Python's own
    """
    if not isinstance(data, dict):
        raise ValueError(f"an agent: expected an object, got {data!r}")
    spec = data.get("spec")
    if spec is not None:
        if not isinstance(spec, str):
            problem = f"expected 'module:Class' text, got {spec!r}"
        else:
            problem = class_spec_problem(spec)
            top = spec.partition(":")[0].split(".")[0]
            if problem is None and top in _NOT_AGENT_MODULES:
                problem = f"{spec!r} is no agent class: {top!r} is a module of Python's own"
        if problem is not None:
            raise ValueError(f"agent {data.get('name')!r}: spec: {problem}")
    return dict(data)


# -- cards and agents as plain data -----------------------------------------------------


def right_or_wrong(right: bool) -> str:
    """A verdict in words, for the messages of replays.

    >>> right_or_wrong(True), right_or_wrong(False)
    ('right', 'wrong')
    """
    return "right" if right else "wrong"


def card_text(card: Card) -> str:
    """A card as record text: ``"10H"``, or ``"10H#1"`` for a second-deck copy.

    >>> card_text(Card(10, 2)), card_text(Card(10, 2, copy=1))
    ('10H', '10H#1')
    """
    return f"{card}#{card.copy}" if card.copy else str(card)


def card_from_text(text: str) -> Card:
    """The inverse of `card_text`.

    >>> card_from_text("10H#1")
    Card('10H', copy=1)
    """
    face, _, copy = text.partition("#")
    card = parse_card(face)
    return Card(card.rank, card.suit, int(copy)) if copy else card


def cards_text(cards) -> list[str]:
    """Cards as record text (`card_text` of each)."""
    return [card_text(card) for card in cards]


def cards_from_text(texts) -> tuple[Card, ...]:
    """The inverse of `cards_text`."""
    return tuple(card_from_text(text) for text in texts)


def describe_agent(
    agent: Agent, told: bool | None = None, params: dict[str, Any] | None = None
) -> dict[str, Any]:
    """An agent as record data: its class name, its ``module:Class`` spec, its parameters.

    >>> from eleusis_lab.agent import Agent
    >>> class Lowest(Agent):
    ...     def __init__(self, depth=2):
    ...         self.depth = depth
    ...     def choose_play(self, obs):
    ...         return min(obs.hand)
    >>> describe_agent(Lowest())["params"]
    {'depth': 2}

    An agent told the rule is marked ``"sees_rule": True``: ``told``, what the engine
    decided when the game started, else `sees_rule`. ``params``, when given, are
    recorded instead of ``agent.get_params()`` (the engines read them guarded:
    `eleusis_lab.engines.describe_seat`).
    """
    cls = type(agent)
    spec = f"{cls.__module__}:{cls.__qualname__}"
    if params is None:
        params = agent.get_params()
    described = {"name": cls.__name__, "spec": spec, "params": params}
    if sees_rule(agent) if told is None else told:
        described["sees_rule"] = True  # told the secret rule: not a learner's result
    return described


def sees_rule(agent: Any) -> bool:
    """Whether the engines tell ``agent`` the secret rule (its class sets ``sees_rule =
    True``, as the oracle's): its games say nothing of learning, and records, results
    rows and leaderboards mark it.

    Read from the class as it is written, without running any code (not a property,
    nor an instance attribute set during a game): an engine reads it once when a game
    starts and records what it decided (`describe_agent`'s ``told``).

    >>> from eleusis_lab.registry import make_agent
    >>> sees_rule(make_agent("oracle")), sees_rule(make_agent("random"))
    (True, False)
    >>> describe_agent(make_agent("oracle"))["sees_rule"]
    True
    """
    return class_attribute(type(agent), "sees_rule", False) is True


_MRO = type.__dict__["__mro__"].__get__
_NAMESPACE = type.__dict__["__dict__"].__get__


def class_attribute(cls: type, name: str, default: Any = None) -> Any:
    """The attribute ``name`` of ``cls`` as its class body (or a base's) wrote it, or
    ``default``: read from the classes' namespaces, never through a property, a
    metaclass or an instance, so that no code of the class runs (as
    `inspect.getattr_static`, at a fraction of its cost).

    >>> class Sly:
    ...     @property
    ...     def sees_rule(self):
    ...         return True
    >>> class_attribute(Sly, "sees_rule", False) is True, class_attribute(Sly, "other", 0)
    (False, 0)
    """
    for klass in _MRO(cls):
        namespace = _NAMESPACE(klass)
        if name in namespace:
            return namespace[name]
    return default


def jsonable(value: Any) -> Any:
    """The JSON form of what `json` cannot write itself: numpy scalars, cards, else repr."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Card):
        return card_text(value)
    return repr(value)  # parameters that JSON cannot hold are kept as their repr


# -- the record ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Fault:
    """An agent's fault in a game: which agent, what it did, and where.

    Attributes
    ----------
    seat : int
        The seat of the faulty agent.
    agent : str
        Its class name.
    kind : str
        `RAISED` (an exception), `ILLEGAL_CARD` (``choose_play`` returned something
        that is not one of the cards it may play now), `OVER_TIME` (``choose_play``
        took longer than ``ClassicConfig.decision_seconds``) or `STOPPED` (the method
        was still running at ``ClassicConfig.decision_limit`` and was interrupted; the
        engine goes on as if it had raised).
    message : str
        What happened, e.g. the exception's type and text.
    event : int
        Index in `GameRecord.events` of the play decided (``choose_play``) or of the
        event observed (``observe``); 0 for ``start_game``.
    phase : int
        The phase of that event; 0 for ``start_game`` (at the deal).
    call : str
        The agent method at fault: ``"start_game"``, ``"choose_play"`` or ``"observe"``.
    count : int
        The agent's calls the fault stands for: 1, but for the `STOPPED` fault of a seat
        the engine then retired for the rest of the game (its later calls not made,
        its decisions the engine's substitutes), 1 plus those calls. Written in the
        JSON only when it is not 1.

    Examples
    --------
    >>> fault = Fault(1, "Cheat", ILLEGAL_CARD, "played Card('AS')", 4, 1, "choose_play")
    >>> fault.substituted, Fault.from_dict(fault.to_dict()) == fault
    (True, True)
    """

    seat: int
    agent: str
    kind: str
    message: str
    event: int
    phase: int
    call: str
    count: int = 1

    @property
    def substituted(self) -> bool:
        """Whether the engine played a card in the agent's place (not for `OVER_TIME`)."""
        return self.call == "choose_play" and self.kind != OVER_TIME

    def to_dict(self) -> dict[str, Any]:
        """The fault as JSON-ready data (without ``count`` when it is 1, as before it was
        kept)."""
        data = asdict(self)
        if self.count == 1:
            del data["count"]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Fault:
        """The inverse of `to_dict`; `ValueError` for a count that is not a whole number
        >= 1."""
        count = data.get("count", 1)
        if type(count) is not int or count < 1:
            raise ValueError(f"a fault's count is a whole number >= 1, got {count!r}")
        return cls(**{name: data[name] for name in _FAULT_FIELDS}, count=count)


_FAULT_FIELDS = ("seat", "agent", "kind", "message", "event", "phase", "call")


def event_to_dict(event: Event) -> dict[str, Any]:
    """A play as JSON-ready data (`event_from_dict` reads it back)."""
    return {
        "seat": event.seat,
        "card": card_text(event.card),
        "phase": event.phase,
        "right": event.right,
        "position": event.position,
    }


def event_from_dict(data: dict[str, Any]) -> Event:
    """The play written by `event_to_dict`; `ValueError` for a field of the wrong type."""
    card = card_from_text(data["card"])
    return Event(
        whole_field(data["seat"], "an event's seat", least=None),  # Delphi's dealer: -1
        card,
        whole_field(data["phase"], "an event's phase"),
        flag_field(data["right"], "an event's right"),
        whole_field(data["position"], "an event's position", least=None),
    )


@contextlib.contextmanager
def reading_record(kind: str) -> Iterator[None]:
    """Turn a missing field or a bad value met while reading a ``kind`` into `RecordError`."""
    try:
        yield
    except RecordError:
        raise
    except KeyError as error:
        raise RecordError(f"not a {kind}: the field {error.args[0]!r} is missing") from None
    except (CardError, TypeError, AttributeError, ValueError) as error:
        raise RecordError(f"not a {kind}: {error}") from None


def rule_game_head(record: Any, version: int) -> dict[str, Any]:
    """The fields the JSON of a game played to a rule starts with: format, game, rule,
    rule name, seed and options (`rule_game_fields` reads them back)."""
    return {
        "format": version,
        "game": record.game,
        "rule": record.rule,
        "rule_name": record.rule_name,
        "seed": record.seed,
        "config": dict(record.config),
    }


def fault_options_problems(record) -> list[str]:
    """The faults a record's options rule out.

    Any fault under on_fault='raise'; an over_time fault without a time budget; a
    stopped fault without a decision limit.
    """
    problems = []
    kinds = {fault.kind for fault in record.faults}
    if record.faults and record.config.get("on_fault") == "raise":
        problems.append("the record has faults, but with on_fault='raise' a fault ends the game")
    if record.config.get("decision_seconds") is None and OVER_TIME in kinds:
        problems.append("an over_time fault is recorded, but the game had no time budget")
    if record.config.get("decision_limit") is None and STOPPED in kinds:
        problems.append("a stopped fault is recorded, but the game had no decision limit")
    return problems


@dataclass(frozen=True)
class FaultRules:
    """What a game allows of the faults its records list (`check_faults`).

    ``kinds`` and ``calls``: the fault kinds and agent methods the game knows;
    ``decisions``: the methods that may fault other than by raising or being stopped (an
    illegal card, an answer out of range, over time); ``pairs``, where the game is
    stricter: the (method, kind) pairs allowed besides those two; ``step``: what a
    fault's ``event`` counts (``"event"``, ``"turn"``, ``"step"``).
    """

    kinds: Collection[str]
    calls: Collection[str]
    decisions: Collection[str] = ()
    step: str = "event"
    pairs: Collection[tuple[str, str]] | None = None

    def allows(self, call: str, kind: str) -> bool:
        """Whether ``call`` may fault with ``kind`` (any call may raise or be stopped)."""
        if kind in (RAISED, STOPPED):
            return True
        return (call, kind) in self.pairs if self.pairs is not None else call in self.decisions


def _count_problems(label: str, fault: Fault, later: Sequence[Fault]) -> list[str]:
    """What is wrong with a fault's `Fault.count`: more than 1 only for a stop, which
    retired its seat, whose calls then fault no more."""
    if fault.count == 1:
        return []
    if fault.kind != STOPPED:
        return [f"{label}: a count of {fault.count}, but only a stopped fault counts more calls"]
    if any(other.seat == fault.seat for other in later):
        return [f"{label}: seat {fault.seat} was retired here, but faults again later"]
    return []


def check_faults(
    record: Any,
    seats: Sequence[str | None],
    steps: int,
    rules: FaultRules,
    phase_of: Callable[[int], int] | None = None,
    replaced: Callable[[Fault], Any] | None = None,
) -> list[str]:
    """What is wrong with the faults of any game's record, short of replaying it.

    ``seats``: each seat's agent name; ``steps``: how many events (turns, steps) the
    record holds; ``phase_of(k)``: the phase of step ``k``, where phases are checked;
    ``replaced(fault)``: what a fault's substitute replaced (None: nothing), of which
    there is one per key. Every fault names a known kind and method, may fault so, sits
    at a seat that holds its agent and at a step of the record (a start_game fault at
    step 0, phase 0), in order; and the record's options allow it
    (`fault_options_problems`).

    >>> rules = FaultRules(FAULT_KINDS, FAULT_CALLS, ("choose_play",))
    >>> fault = Fault(0, "Slow", OVER_TIME, "took 2 s", 3, 1, "observe")
    >>> from types import SimpleNamespace
    >>> record = SimpleNamespace(faults=(fault,), config={"decision_seconds": 1.0})
    >>> for problem in check_faults(record, ["Slow"], 2, rules):
    ...     print(problem)
    fault 0 (over_time in observe, seat 0): observe cannot fault with 'over_time'
    fault 0 (over_time in observe, seat 0): event 3 is not in the record
    """
    problems: list[str] = []
    step, previous = rules.step, 0
    once: Counter[Any] = Counter()
    for i, fault in enumerate(record.faults):
        label = f"fault {i} ({fault.kind} in {fault.call}, seat {fault.seat})"
        if fault.kind not in rules.kinds:
            problems.append(f"{label}: unknown kind {fault.kind!r}")
        if fault.call not in rules.calls:
            problems.append(f"{label}: unknown agent method {fault.call!r}")
        elif not rules.allows(fault.call, fault.kind):
            problems.append(f"{label}: {fault.call} cannot fault with {fault.kind!r}")
        if not 0 <= fault.seat < len(seats):
            problems.append(f"{label}: there is no seat {fault.seat}")
        elif fault.agent != seats[fault.seat]:
            problems.append(
                f"{label}: names agent {fault.agent!r}, but seat {fault.seat} is"
                f" {seats[fault.seat]!r}"
            )
        if fault.call == "start_game":
            if (fault.event, fault.phase) != (0, 0):
                problems.append(f"{label}: a start_game fault is at {step} 0, phase 0")
        elif not 0 <= fault.event < steps:
            problems.append(f"{label}: {step} {fault.event} is not in the record")
        elif phase_of is not None and phase_of(fault.event) != fault.phase:
            problems.append(
                f"{label}: {step} {fault.event} is in phase {phase_of(fault.event)},"
                f" not {fault.phase}"
            )
        if fault.event < previous:
            problems.append(f"{label}: faults are not in the order of the {step}s")
        previous = fault.event
        problems += _count_problems(label, fault, record.faults[i + 1 :])
        if replaced is not None and (key := replaced(fault)) is not None:
            once[key] += 1
    problems += [
        f"{step} {key[0] if isinstance(key, tuple) else key}: {count} faults recorded for"
        " one decision"
        for key, count in once.items()
        if count > 1
    ]
    return problems + fault_options_problems(record)


def complexity_lines(rule: str, head: str = "rule complexity: ") -> list[str]:
    """The complexity figures of the rule ``rule`` (its text) in words, after ``head``, in
    lines of a terminal's width broken between figures (`measure_phrases`,
    `wrap_phrases`). Raises `RuleSyntaxError` for a rule that does not parse."""
    return wrap_phrases(head, measure_phrases(parse(rule)), LINE_WIDTH)
