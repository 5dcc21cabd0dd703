"""What every game's record shares: cards and agents as plain data, faults, JSON, and
reading, replaying and laying out a record of any game.

Each game keeps its record, replay and layout in its own module (classic's `GameRecord`
in `eleusis_lab.games.classic.record`) and declares them in the game registry
(`eleusis_lab.games.table.GAMES`); `read_record`, `load_record`, `replay` and
`format_layout` read a record of any game through it. Cards are written as text,
``"10H"``; a card of the second deck of a two-deck game carries its copy as a suffix,
``"10H#1"``. An agent that raises, plays a card it may not play or overruns its time
budget does not end the game, nor does one still deciding at the decision limit, which
is stopped: the engine records a `Fault` (who, what, where) and goes on; `check_faults`
checks a record's faults against its game's `FaultRules`.

Examples
--------
>>> from eleusis_lab.agent import Agent
>>> from eleusis_lab.games.classic import play_classic
>>> class FirstCard(Agent):
...     def choose_play(self, obs):
...         return obs.hand[0]
>>> record = play_classic("black(card)", [FirstCard(), FirstCard()], seed=0)
>>> read_record(record.to_json()) == record
True
>>> replay(record)
[]
"""

from __future__ import annotations

import contextlib
import html
import json
import sys
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from eleusis_lab.agent import Agent, Event
from eleusis_lab.cards import Card, CardError, parse_card

__all__ = [
    "FAULT_CALLS",
    "FAULT_KINDS",
    "ILLEGAL_CARD",
    "MAX_RECORD_BYTES",
    "OVER_TIME",
    "RAISED",
    "STOPPED",
    "TURN_CAP",
    "Fault",
    "RecordError",
    "agent_from_dict",
    "card_from_text",
    "card_text",
    "cards_from_text",
    "cards_text",
    "describe_agent",
    "format_layout",
    "format_layout_html",
    "load_record",
    "read_record",
    "replay",
    "right_or_wrong",
    "sees_rule",
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


def record_config(game: Any, config: Any) -> dict[str, Any]:
    """A record's options, checked as a spec's are (`eleusis_lab.games.table.GameType.
    make_config`: no unknown option, every value one the game takes, ``max_turns``
    bounded); else `ValueError`."""
    from eleusis_lab.errors import ConfigError
    from eleusis_lab.games.table import GAMES  # the games' modules import this one

    if not isinstance(config, dict):
        raise ValueError(f"config: expected an object, got {config!r}")
    declared = GAMES.get(game) if isinstance(game, str) else None
    if declared is not None:
        try:
            declared.make_config(config)
        except (ConfigError, TypeError) as error:
            raise ValueError(f"config: {error}") from None
    return dict(config)


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
    from eleusis_lab.registry import class_spec_problem

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


def rule_game_fields(data: dict[str, Any]) -> dict[str, Any]:
    """The record fields of `rule_game_head` data (a missing rule name is None), checked:
    rule text, a whole seed, the game's options (`record_config`); else `ValueError`."""
    game, rule, name = data["game"], data["rule"], data.get("rule_name")
    if not isinstance(rule, str):
        raise ValueError(f"rule: expected rule text, got {rule!r}")
    if name is not None and not isinstance(name, str):
        raise ValueError(f"rule_name: expected a name or null, got {name!r}")
    return {
        "game": game,
        "rule": rule,
        "rule_name": name,
        "seed": whole_field(data["seed"], "seed"),
        "config": record_config(game, data["config"]),
    }


class JsonRecord:
    """JSON in and out, and files, for a record class that has ``to_dict`` and ``from_dict``.

    ``kind`` names the record in error messages ("not a Delphi record: ...").
    """

    kind = "game record"

    def replace(self, **changes: Any) -> Any:
        """A copy with some fields changed (records are immutable)."""
        return replace(self, **changes)

    def to_json(self, indent: int | None = None) -> str:
        """The record as JSON text; `from_json` reads it back to an equal record."""
        return json.dumps(self.to_dict(), indent=indent, default=jsonable)

    @classmethod
    def from_json(cls, text: str) -> Any:
        """Read a record written by `to_json`; raises `RecordError` on anything else."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise RecordError(f"not a {cls.kind}: invalid JSON ({error})") from None
        if not isinstance(data, dict):
            raise RecordError(f"not a {cls.kind}: the JSON is not an object")
        return cls.from_dict(data)

    def save(self, path: str | Path) -> None:
        """Write the record to ``path`` as JSON."""
        Path(path).write_text(self.to_json(), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Any:
        """Read a record saved with `save`."""
        text = _record_text(path)
        try:
            return cls.from_json(text)
        except RecordError as error:
            raise RecordError(f"{path}: {error}") from None

    def _repr_html_(self) -> str:
        """The layout, for Jupyter: HTML tables of the main line (`format_layout_html`),
        or the text layout for a game without one (Secrets)."""
        if hasattr(self, "main_line") and hasattr(self, "events"):
            return format_layout_html(self)
        return f"<pre>{html.escape(format_layout(self))}</pre>"


def read_record(text: str) -> Any:
    """A record of any game from its JSON text, whatever the game.

    A `GameRecord` (classic, four-to-eight), the record class of the game's module
    (Delphi, solo, New Eleusis), or a match of any game (`eleusis_lab.games.match`);
    raises `RecordError` on anything else.

    >>> read_record('{"format": 2, "game": "classic"}')
    Traceback (most recent call last):
    ...
    eleusis_lab.record.RecordError: not a game record: the field 'rule' is missing
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError(f"not a game record: invalid JSON ({error})") from None
    from eleusis_lab.games.match import is_match, read_match

    if is_match(data):
        with reading_record("match record"):
            return read_match(data)
    game = data.get("game") if isinstance(data, dict) else None
    from eleusis_lab.games.table import GAMES

    declared = GAMES.get(game) if isinstance(game, str) else None
    if declared is None or declared.record_type is None:
        if not isinstance(data, dict) or "game" not in data:
            raise RecordError("not a game record: the field 'game' is missing")
        readable = ", ".join(name for name, kind in GAMES.items() if kind.record_type)
        raise RecordError(f"not a game record: the game {game!r} is none of {readable}")
    return declared.record_type.from_dict(data)


def _record_text(path: str | Path) -> str:
    """The text of a record file; `RecordError` naming ``path`` when it is missing,
    unreadable or over `MAX_RECORD_BYTES` (then not read further)."""
    try:
        with open(path, "rb") as file:
            raw = file.read(MAX_RECORD_BYTES + 1)
        if len(raw) > MAX_RECORD_BYTES:
            raise RecordError(
                f"{path}: larger than {MAX_RECORD_BYTES:,} bytes, the most a record may hold"
                " (eleusis_lab.record.MAX_RECORD_BYTES)"
            )
        return raw.decode("utf-8")
    except FileNotFoundError:
        raise RecordError(f"{path}: no such game record") from None
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or error
        raise RecordError(f"{path}: cannot read the record: {reason}") from None


def load_record(path: str | Path) -> Any:
    """Read a record of any game saved as JSON (see `read_record`).

    Raises `RecordError`, naming ``path``, when the file is missing, unreadable, larger
    than `MAX_RECORD_BYTES` (refused unread) or not a record.
    """
    text = _record_text(path)
    try:
        return read_record(text)
    except RecordError as error:
        raise RecordError(f"{path}: {error}") from None


# -- replay -------------------------------------------------------------------------------


def replay(record: Any) -> list[str]:
    """Check a record against the rules of its game, without the agents.

    A match (`eleusis_lab.games.match.MatchResult`) is checked by
    `eleusis_lab.games.match.replay_match`: the rotation, each game, the totals.

    Each game's replay (`eleusis_lab.games.table.GameType.replay`) re-parses the rule,
    re-deals from the seed, replays every event (whose turn, whether the card could be
    played, its verdict), and re-derives how the game ended and the scores with the
    game's own scoring functions. Faults are checked too: each names the seat and agent
    of its decision, in order, and a substituted decision is the one the game's rule for
    faults prescribes.

    Parameters
    ----------
    record : GameRecord
        The record to check.

    Returns
    -------
    list of str
        The discrepancies found, most fundamental first; empty when consistent.

    Examples
    --------
    >>> from eleusis_lab.agent import Agent
    >>> from eleusis_lab.games.classic import play_classic
    >>> class FirstCard(Agent):
    ...     def choose_play(self, obs):
    ...         return obs.hand[0]
    >>> record = play_classic("red(card)", [FirstCard(), FirstCard()], seed=0)
    >>> replay(record)
    []
    >>> replay(record.replace(dealer_score=record.dealer_score + 1))[0]
    'dealer score: recorded 7, the wrong-card counts after phase 1 give 6'

    A game with faults replays as well: the engine's substitutes are legal plays.

    >>> class Clumsy(Agent):
    ...     def choose_play(self, obs):
    ...         return "the queen of hearts"
    >>> record = play_classic("red(card)", [Clumsy(), FirstCard()], seed=0)
    >>> len(record.faults), record.faults[0].kind, replay(record)
    (26, 'illegal_card', [])
    """
    from eleusis_lab.games.match import MatchResult, replay_match

    if isinstance(record, MatchResult):
        return replay_match(record)
    from eleusis_lab.games.table import GAMES

    game = GAMES.get(record.game)
    if game is None or game.replay is None:
        return [f"replay does not know the game {record.game!r}"]
    return game.replay(record)


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


# -- layout -------------------------------------------------------------------------------

_CELL = 5  # a card of up to 3 characters, a phase-2 mark, a space
_LABEL = 8
_WIDTH = 100  # a terminal's width, for the lines that are not the table


def format_layout(record: Any, columns: int = 13, max_rows: int = 12) -> str:
    """The table at the end of a game of any registered game, as its players lay it out,
    then the scores and the agents' faults: the layout its game declares
    (`eleusis_lab.games.table.GameType.layout`).

    Eleusis games lay out the main line left to right, in blocks of ``columns`` cards,
    with the wrong cards under the card they were played on; a column longer than
    ``max_rows`` shows its first cards and how many more there are. The faults, if any,
    follow the scores: per seat, method and kind, how many, at which events, and the
    first one's message. `RecordError` for a record of a game that has no layout.

    Examples
    --------
    >>> from eleusis_lab.agent import Agent
    >>> from eleusis_lab.games.classic import play_classic
    >>> class FirstCard(Agent):
    ...     def choose_play(self, obs):
    ...         return obs.hand[0]
    >>> record = play_classic("red(card)", [FirstCard(), FirstCard()], seed=0)
    >>> print(format_layout(record, columns=6))  # doctest: +ELLIPSIS
    classic Eleusis, seed 0, rule: red(card)
    rule complexity: 2 nodes, 7.9 bits, 50% of faces right on average, 1 context class,
                     learnt in 3.0 plays
    ...
    position   0    1    2    3    4    5
    main      KH   6D   JD   3H   JH   9H
    wrong     QC   JC        5C
    ...
    seat  agent                wrong  left  score
       0  FirstCard               16    16      0
       1  FirstCard               10    10     12
    dealer score: 6
    phase 2 ended after 0 turns: no player held a card the rule accepts
    """
    from eleusis_lab.games.table import GAMES

    name = getattr(record, "game", None)
    game = GAMES.get(name) if isinstance(name, str) else None
    if game is None or game.layout is None:
        raise RecordError(f"no layout for a record of the game {name!r}")
    return game.layout(record, columns, max_rows)


def complexity_lines(rule: str, head: str = "rule complexity: ") -> list[str]:
    """The complexity figures of the rule ``rule`` (its text) in words, after ``head``, in
    lines of a terminal's width broken between figures (`measure_phrases`,
    `wrap_phrases`). Raises `RuleSyntaxError` for a rule that does not parse."""
    from eleusis_lab.rules import parse
    from eleusis_lab.rules.complexity import measure_phrases
    from eleusis_lab.text import wrap_phrases

    return wrap_phrases(head, measure_phrases(parse(rule)), _WIDTH)


def main_line_rows(
    main: Sequence[Card], under: list[list[str]], columns: int, max_rows: int
) -> list[str]:
    """The main line as players lay it out, in blocks of ``columns`` cards: a row of
    positions, a row of cards, then the wrong cards ``under[i]`` (already written out)
    stacked under card ``i``; a column deeper than ``max_rows`` shows its first cards and
    how many more there are. Each block ends with an empty line."""
    under = [
        cards
        if len(cards) <= max_rows
        else [*cards[: max_rows - 1], f"+{len(cards) - max_rows + 1}"]
        for cards in under
    ]
    lines: list[str] = []
    for start in range(0, len(main), columns):
        block = range(start, min(start + columns, len(main)))
        lines.append(f"{'position':<{_LABEL}}" + "".join(f"{i:>{_CELL - 1}} " for i in block))
        lines.append(f"{'main':<{_LABEL}}" + "".join(f"{main[i]!s:>{_CELL - 1}} " for i in block))
        depth = max(len(under[i]) for i in block)
        for row in range(depth):
            label = "wrong" if row == 0 else ""
            cells = (under[i][row] if row < len(under[i]) else "" for i in block)
            lines.append(f"{label:<{_LABEL}}" + "".join(f" {cell:<{_CELL - 1}}" for cell in cells))
        lines.append("")
    return lines


def fault_lines(faults: tuple[Fault, ...]) -> list[str]:
    """The faults grouped by seat, method and kind: a count, where, the first message."""
    if not faults:
        return []
    groups: dict[tuple[int, str, str], list[Fault]] = {}
    for fault in faults:
        groups.setdefault((fault.seat, fault.call, fault.kind), []).append(fault)
    note = " (each faulty choice replaced by the first card the player could play)"
    lines = [f"faults: {len(faults)}{note if any(f.substituted for f in faults) else ''}"]
    for (seat, call, kind), group in groups.items():
        first = group[0]
        if call == "start_game":
            where = "at the deal"
        else:
            shown = ", ".join(str(fault.event) for fault in group[:4])
            where = (
                f"event{'s' if len(group) > 1 else ''} {shown}{', ...' if len(group) > 4 else ''}"
            )
        line = (
            f"  seat {seat} {first.agent}: {call} {kind} x{len(group)} ({where}): {first.message}"
        )
        lines.append(line if len(line) <= _WIDTH else line[: _WIDTH - 3] + "...")
        lines += [retired_line(fault) for fault in group if fault.count > 1]
    return lines


def retired_line(fault: Fault) -> str:
    """The layout's line for the stop that retired a seat (`Fault.count`).

    >>> retired_line(Fault(1, "Slow", STOPPED, "was stopped", 4, 1, "choose_play", count=9))
    '    seat 1 retired there for the rest of the game: 8 later calls not made'
    """
    return (
        f"    seat {fault.seat} retired there for the rest of the game:"
        f" {fault.count - 1} later calls not made"
    )


def format_layout_html(record: Any, columns: int = 13) -> str:
    """The layout of `format_layout` as HTML: a table per block of the main line.

    Each block has a row of positions, the main line, then the wrong cards under the
    card they were played on (in italics with ``*``: phase 2). The rule, the scores and
    the dealer's score follow. Works for any record with ``main_line`` and ``events``;
    `GameRecord` shows itself this way in Jupyter (``_repr_html_``).

    Examples
    --------
    >>> from eleusis_lab.agent import Agent
    >>> from eleusis_lab.games.classic import play_classic
    >>> class FirstCard(Agent):
    ...     def choose_play(self, obs):
    ...         return obs.hand[0]
    >>> record = play_classic("red(card)", [FirstCard(), FirstCard()], seed=0)
    >>> page = format_layout_html(record)
    >>> page.count("<table"), "K♥" in page
    (3, True)
    """
    from html import escape

    def cell(card: Card | None, phase: int = 1) -> str:
        if card is None:
            return "<td></td>"
        colour = "#c0141b" if card.is_red else "#111"
        text = escape(card.symbol) + ("*" if phase == 2 else "")
        style = f"color:{colour};padding:1px 4px;text-align:center"
        return f'<td style="{style}">{"<i>" + text + "</i>" if phase == 2 else text}</td>'

    main = record.main_line
    under: list[list[tuple[Card, int]]] = [[] for _ in main]
    for event in getattr(record, "events", ()):
        if not event.right and 0 <= event.position < len(main):
            under[event.position].append((event.card, event.phase))
    head = 'style="text-align:left;padding:1px 6px;color:#666;font-weight:normal"'
    name = f" ({record.rule_name})" if getattr(record, "rule_name", None) else ""
    parts = [
        f"<div><b>{escape(str(record.game))}</b>, seed {record.seed}, rule:"
        f" <code>{escape(record.rule)}{escape(name)}</code></div>",
        '<div style="color:#666">wrong cards are under the main-line card they were played'
        " on; * = phase 2</div>",
    ]
    for start in range(0, len(main), columns):
        block = range(start, min(start + columns, len(main)))
        rows = [
            f"<tr><th {head}>position</th>"
            + "".join(f'<td style="color:#999;text-align:center">{i}</td>' for i in block)
            + "</tr>",
            f"<tr><th {head}>main</th>" + "".join(cell(main[i]) for i in block) + "</tr>",
        ]
        for row in range(max(len(under[i]) for i in block)):
            cells = "".join(
                cell(*under[i][row]) if row < len(under[i]) else cell(None) for i in block
            )
            rows.append(f"<tr><th {head}>{'wrong' if row == 0 else ''}</th>{cells}</tr>")
        parts.append(
            '<table style="border-collapse:collapse;margin:4px 0">' + "".join(rows) + "</table>"
        )
    scores = getattr(record, "player_scores", ())
    if scores:
        rows = "".join(
            f"<tr><td>{seat}</td><td>{escape(str(agent.get('name', '')))}</td>"
            f"<td style='text-align:right'>{scores[seat]:g}</td></tr>"
            for seat, agent in enumerate(record.agents)
        )
        parts.append(
            '<table style="border-collapse:collapse"><tr><th>seat</th><th>agent</th>'
            f"<th>score</th></tr>{rows}</table>"
        )
    if getattr(record, "dealer_score", None) is not None:
        parts.append(f"<div>dealer score: {record.dealer_score}</div>")
    return "<div>" + "".join(parts) + "</div>"
