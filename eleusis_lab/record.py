"""The record of one game: what was dealt, every play and its verdict, and the scores.

A `GameRecord` is what every game engine returns. It is plain data: it goes to JSON and
back (`GameRecord.to_json`, `GameRecord.from_json`, `save`, `load`), it can be checked
against the rules of the game without the agents (`replay`), and it can be laid out as
the players would see the table at the end (`format_layout`).

Cards are written as text, ``"10H"``; a card of the second deck of a two-deck game
carries its copy as a suffix, ``"10H#1"``.

An agent that raises, plays a card it may not play or overruns its time budget does not
end the game: the engine records a `Fault` (who, what, where) in ``GameRecord.faults``
and goes on by the rule of `eleusis_lab.games.classic.ClassicConfig`.

Examples
--------
>>> from eleusis_lab.agent import Agent
>>> from eleusis_lab.games.classic import play_classic
>>> class FirstCard(Agent):
...     def choose_play(self, obs):
...         return obs.hand[0]
>>> record = play_classic("black(card)", [FirstCard(), FirstCard()], seed=0)
>>> GameRecord.from_json(record.to_json()) == record
True
>>> replay(record)
[]
"""

from __future__ import annotations

import contextlib
import html
import json
import textwrap
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

from eleusis_lab.agent import Agent, Event
from eleusis_lab.cards import Card, CardError, parse_card, standard_deck
from eleusis_lab.games.scoring import classic_dealer_score, classic_player_scores
from eleusis_lab.rules import Context, Rule, RuleSyntaxError, parse
from eleusis_lab.rules.complexity import describe_measures

__all__ = [
    "END_REASONS",
    "FAULT_CALLS",
    "FAULT_KINDS",
    "ILLEGAL_CARD",
    "NO_PLAYABLE_CARD",
    "OVER_TIME",
    "PLAYER_OUT",
    "RAISED",
    "TURN_CAP",
    "Fault",
    "GameRecord",
    "RecordError",
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
]

#: How phase 2 of classic Eleusis ended.
PLAYER_OUT = "player_out"
NO_PLAYABLE_CARD = "no_playable_card"
TURN_CAP = "turn_cap"
END_REASONS = {
    PLAYER_OUT: "a player went out",
    NO_PLAYABLE_CARD: "no player held a card the rule accepts",
    TURN_CAP: "the turn cap was hit",
}

#: What an agent did wrong (`Fault.kind`).
RAISED = "raised"
ILLEGAL_CARD = "illegal_card"
OVER_TIME = "over_time"
FAULT_KINDS = {
    RAISED: "raised an exception",
    ILLEGAL_CARD: "returned a card it may not play",
    OVER_TIME: "took longer than the time budget to decide",
}
#: The agent methods a fault can happen in (`Fault.call`).
FAULT_CALLS = ("start_game", "choose_play", "observe")

#: Version of the JSON layout written by `GameRecord.to_json` (2 added ``faults``).
FORMAT_VERSION = 2
_READABLE_VERSIONS = (1, 2)


class RecordError(ValueError):
    """Text or a file that is not a valid game record."""


# -- cards and agents as plain data -----------------------------------------------------


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


def describe_agent(agent: Agent) -> dict[str, Any]:
    """An agent as record data: its class name, its ``module:Class`` spec, its parameters.

    >>> from eleusis_lab.agent import Agent
    >>> class Lowest(Agent):
    ...     def __init__(self, depth=2):
    ...         self.depth = depth
    ...     def choose_play(self, obs):
    ...         return min(obs.hand)
    >>> describe_agent(Lowest())["params"]
    {'depth': 2}
    """
    cls = type(agent)
    spec = f"{cls.__module__}:{cls.__qualname__}"
    return {"name": cls.__name__, "spec": spec, "params": agent.get_params()}


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
        that is not one of the cards it may play now) or `OVER_TIME` (``choose_play``
        took longer than ``ClassicConfig.decision_seconds``).
    message : str
        What happened, e.g. the exception's type and text.
    event : int
        Index in `GameRecord.events` of the play decided (``choose_play``) or of the
        event observed (``observe``); 0 for ``start_game``.
    phase : int
        The phase of that event; 0 for ``start_game`` (at the deal).
    call : str
        The agent method at fault: ``"start_game"``, ``"choose_play"`` or ``"observe"``.

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

    @property
    def substituted(self) -> bool:
        """Whether the engine played a card in the agent's place (not for `OVER_TIME`)."""
        return self.call == "choose_play" and self.kind != OVER_TIME

    def to_dict(self) -> dict[str, Any]:
        """The fault as JSON-ready data."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Fault:
        """The inverse of `to_dict`."""
        return cls(**{name: data[name] for name in _FAULT_FIELDS})


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
    """The play written by `event_to_dict`."""
    card = card_from_text(data["card"])
    return Event(data["seat"], card, data["phase"], data["right"], data["position"])


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
    """The record fields of `rule_game_head` data (a missing rule name is None)."""
    return {
        "game": data["game"],
        "rule": data["rule"],
        "rule_name": data.get("rule_name"),
        "seed": data["seed"],
        "config": dict(data["config"]),
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
        try:
            return cls.from_json(Path(path).read_text(encoding="utf-8"))
        except RecordError as error:
            raise RecordError(f"{path}: {error}") from None

    def _repr_html_(self) -> str:
        """The layout, for Jupyter: HTML tables of the main line (`format_layout_html`),
        or the text layout for a game without one (Secrets)."""
        if hasattr(self, "main_line") and hasattr(self, "events"):
            return format_layout_html(self)
        return f"<pre>{html.escape(format_layout(self))}</pre>"


@dataclass(frozen=True)
class GameRecord(JsonRecord):
    """Everything about one game, enough to replay, check, score and lay it out.

    Attributes
    ----------
    game : str
        The game's name, e.g. ``"classic"``.
    rule, rule_name : str, str or None
        The secret rule's canonical text, and its catalog name if it has one.
    seed : int
        The seed the game was played with.
    config : dict
        The game's options (`ClassicConfig.to_dict` for classic).
    agents : tuple of dict
        Per seat: ``name`` (class name), ``spec`` (``module:Class``) and ``params``.
    starter : Card
        The first card of the main line, placed unjudged.
    deal : tuple of tuple of Card
        Each seat's hand as dealt.
    unused : tuple of Card
        Cards of the deck that were not dealt (with a fixed hand size).
    events : tuple of Event
        Every play in order: seat, card, phase, verdict (``right``) and the main-line
        position of the card it was judged against.
    main_line : tuple of Card
        The main line at the end, starter first.
    wrong_after_phase1 : tuple of tuple of Card
        Each seat's wrong cards at the end of phase 1.
    cards_left : tuple of int
        Cards each seat still holds at the end.
    dealer_score : int
        The dealer's score (from the wrong-card counts after phase 1).
    player_scores : tuple of float
        Each seat's score.
    phase2_end : str
        `PLAYER_OUT`, `NO_PLAYABLE_CARD` or `TURN_CAP`.
    phase2_turns : int
        Number of phase-2 turns played.
    turn_cap_hit : bool
        Whether phase 2 was stopped by the turn cap.
    rule_name : str or None
        The rule's catalog name, if it has one.
    faults : tuple of Fault
        The agents' faults, in the order they happened; empty in a clean game.
    """

    kind = "game record"  # named in errors: "not a game record: ..."

    game: str
    rule: str
    seed: int
    config: dict[str, Any]
    agents: tuple[dict[str, Any], ...]
    starter: Card
    deal: tuple[tuple[Card, ...], ...]
    unused: tuple[Card, ...]
    events: tuple[Event, ...]
    main_line: tuple[Card, ...]
    wrong_after_phase1: tuple[tuple[Card, ...], ...]
    cards_left: tuple[int, ...]
    dealer_score: int
    player_scores: tuple[float, ...]
    phase2_end: str
    phase2_turns: int
    turn_cap_hit: bool
    rule_name: str | None = None
    faults: tuple[Fault, ...] = ()

    @property
    def n_players(self) -> int:
        """Number of active players (the dealer is not counted)."""
        return len(self.deal)

    # -- JSON ---------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data (cards as text)."""

        return {
            **rule_game_head(self, FORMAT_VERSION),
            "agents": [dict(agent) for agent in self.agents],
            "starter": card_text(self.starter),
            "deal": [cards_text(hand) for hand in self.deal],
            "unused": cards_text(self.unused),
            "events": [event_to_dict(event) for event in self.events],
            "main_line": cards_text(self.main_line),
            "wrong_after_phase1": [cards_text(pile) for pile in self.wrong_after_phase1],
            "cards_left": list(self.cards_left),
            "dealer_score": self.dealer_score,
            "player_scores": list(self.player_scores),
            "phase2_end": self.phase2_end,
            "phase2_turns": self.phase2_turns,
            "turn_cap_hit": self.turn_cap_hit,
            "faults": [fault.to_dict() for fault in self.faults],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameRecord:
        """Build a record from `to_dict` data; raises `RecordError` when it is not one."""
        with reading_record(cls.kind):
            version = data.get("format")
            if version not in _READABLE_VERSIONS:
                readable = " and ".join(map(str, _READABLE_VERSIONS))
                raise RecordError(
                    f"unknown game record format {version!r} (this version reads {readable})"
                )

            return cls(
                **rule_game_fields(data),
                agents=tuple(dict(agent) for agent in data["agents"]),
                starter=card_from_text(data["starter"]),
                deal=tuple(cards_from_text(hand) for hand in data["deal"]),
                unused=cards_from_text(data["unused"]),
                events=tuple(event_from_dict(event) for event in data["events"]),
                main_line=cards_from_text(data["main_line"]),
                wrong_after_phase1=tuple(
                    cards_from_text(pile) for pile in data["wrong_after_phase1"]
                ),
                cards_left=tuple(data["cards_left"]),
                dealer_score=data["dealer_score"],
                player_scores=tuple(float(score) for score in data["player_scores"]),
                phase2_end=data["phase2_end"],
                phase2_turns=data["phase2_turns"],
                turn_cap_hit=data["turn_cap_hit"],
                # Format 1 predates faults: its games had none (a fault raised).
                faults=tuple(
                    Fault.from_dict(fault) for fault in (data["faults"] if version >= 2 else ())
                ),
            )


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
    if declared is not None and declared.record_type is not None:
        return declared.record_type.from_dict(data)
    return GameRecord.from_json(text)


def load_record(path: str | Path) -> Any:
    """Read a record of any game saved as JSON (see `read_record`).

    Raises `RecordError`, naming ``path``, when the file is missing, unreadable or not a
    record.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RecordError(f"{path}: no such game record") from None
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or error
        raise RecordError(f"{path}: cannot read the record: {reason}") from None
    try:
        return read_record(text)
    except RecordError as error:
        raise RecordError(f"{path}: {error}") from None


# -- replay -------------------------------------------------------------------------------


def replay(record: GameRecord) -> list[str]:
    """Check a record against the rules of its game, without the agents.

    A match (`eleusis_lab.games.match.MatchResult`) is checked by
    `eleusis_lab.games.match.replay_match`: the rotation, each game, the totals.

    Re-parses the rule, re-deals from the seed, replays every event (turn order, the
    card comes from the hand or wrong pile that holds it, position, verdict), re-derives
    how phase 2 ended and the scores with `eleusis_lab.games.scoring`. Faults are checked
    too: each names the seat and agent of its play, in order, and a substituted play is
    the first card the agent could play (the rule of the engine, see
    `eleusis_lab.games.classic.ClassicConfig`).

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


def _verdict(right: bool) -> str:
    return "right" if right else "wrong"


class PlayCheck:
    """What a replay of classic or four-to-eight checks at each play and at the end.

    It follows the rule's verdicts, not the recorded ones, so that one bad verdict is one
    report. ``k`` is the index of the event being checked.
    """

    def __init__(self, rec: GameRecord, rule: Rule, problems: list[str]):
        self.rule, self.problems = rule, problems
        self.decided: dict[int, list[Fault]] = {}  # choose_play faults, by their play
        for fault in rec.faults:
            if fault.call == "choose_play":
                self.decided.setdefault(fault.event, []).append(fault)
        self.main: list[Card] = [rec.starter]
        self.last: bool | None = None
        self.k = 0

    def where(self, e: Event) -> str:
        return f"event {self.k} (seat {e.seat} plays {card_text(e.card)} in phase {e.phase})"

    def context(self) -> Context:
        return Context(tuple(self.main), self.last)

    def faults_at(self, e: Event, offered: list[Card]) -> None:
        """The engine plays the first card the agent could play in place of a faulty one."""
        for fault in self.decided.get(self.k, ()):
            if (fault.seat, fault.phase) != (e.seat, e.phase):
                self.problems.append(
                    f"{self.where(e)}: a {fault.kind} fault names seat {fault.seat} in phase"
                    f" {fault.phase} for this play"
                )
            elif fault.substituted and e.card != offered[0]:
                self.problems.append(
                    f"{self.where(e)}: after a {fault.kind} fault the engine plays the first"
                    f" card seat {e.seat} could play, {card_text(offered[0])}"
                )

    def follow(self, e: Event) -> bool:
        """Judge the play by the rule, extend the line if it is right, go to the next event."""
        if e.position != len(self.main) - 1:
            self.problems.append(
                f"{self.where(e)}: position {e.position}, but the main line ended at"
                f" {len(self.main) - 1}"
            )
        right = self.rule.accepts(e.card, self.context())
        if right != e.right:
            self.problems.append(
                f"{self.where(e)}: recorded {_verdict(e.right)}, but the rule says"
                f" {_verdict(right)}"
            )
        if right:
            self.main.append(e.card)
        self.last, self.k = right, self.k + 1
        return right

    def playable(self, piles: list[list[Card]]) -> bool:
        """Whether a player holds a card that is right now."""
        context = self.context()
        return any(self.rule.accepts(card, context) for pile in piles for card in pile)

    def check_end(
        self, rec, piles, wrong_after, turns: int, max_turns: int, dealer_score, player_scores
    ) -> None:
        """Check how phase 2 ended, the main line, the cards left and the scores.

        The scores come from the game's own ``dealer_score`` and ``player_scores``.
        """
        problems = self.problems
        if not all(piles):
            end = PLAYER_OUT
        elif not self.playable(piles):
            end = NO_PLAYABLE_CARD
        elif turns >= max_turns:
            end = TURN_CAP
        else:
            end = None
            problems.append(
                "the record stops while nobody is out, a right card is held and turns remain"
            )
        if end is not None and rec.phase2_end != end:
            problems.append(f"phase 2 end: recorded {rec.phase2_end!r}, the plays give {end!r}")
        if rec.turn_cap_hit != (end == TURN_CAP):
            problems.append(f"turn_cap_hit is {rec.turn_cap_hit}, but phase 2 ended with {end!r}")
        if rec.phase2_turns != turns:
            problems.append(f"phase 2 turns: recorded {rec.phase2_turns}, the plays give {turns}")
        if tuple(rec.main_line) != tuple(self.main):
            problems.append("the main line differs from the one the plays give")
        cards_left = tuple(len(pile) for pile in piles)
        if tuple(rec.cards_left) != cards_left:
            problems.append(
                f"cards left: recorded {list(rec.cards_left)}, the plays give {list(cards_left)}"
            )
        dealer = dealer_score([len(pile) for pile in wrong_after])
        if rec.dealer_score != dealer:
            problems.append(
                f"dealer score: recorded {rec.dealer_score}, the wrong-card counts after phase 1"
                f" give {dealer}"
            )
        scores = player_scores(cards_left)
        if list(rec.player_scores) != scores:
            problems.append(
                f"player scores: recorded {list(rec.player_scores)}, the cards left give {scores}"
            )


def replay_classic(rec: GameRecord) -> list[str]:  # noqa: C901 - one pass over the game
    from eleusis_lab.games.classic import classic_deal  # games import this module

    problems: list[str] = []
    try:
        rule = parse(rec.rule)
    except RuleSyntaxError as error:
        return [f"the rule does not parse: {error.message} ({rec.rule!r})"]
    n = len(rec.deal)
    if n < 2 or len(rec.agents) != n:
        return [f"{n} hands dealt for {len(rec.agents)} agents; classic needs 2 or more"]
    retry = bool(rec.config.get("retry_in_turn", False))
    max_turns = rec.config.get("max_turns", 1000)

    # The deal: one deck, and exactly what the seed deals.
    everything = [rec.starter, *chain.from_iterable(rec.deal), *rec.unused]
    if Counter(everything) != Counter(standard_deck()):
        problems.append("the starter, the hands and the unused cards are not one 52-card deck")
    try:
        starter, hands, unused = classic_deal(rec.seed, n, rec.config.get("hand_size"))
    except ValueError as error:
        problems.append(f"seed {rec.seed!r} cannot be dealt: {error}")
    else:
        if (starter, tuple(map(tuple, hands)), unused) != (
            rec.starter,
            tuple(map(tuple, rec.deal)),
            tuple(rec.unused),
        ):
            problems.append(f"the starter and the hands are not those dealt by seed {rec.seed}")

    problems += check_classic_faults(rec)
    plays = PlayCheck(rec, rule, problems)
    hands = [list(hand) for hand in rec.deal]
    piles: list[list[Card]] = [[] for _ in range(n)]
    events = rec.events

    # Phase 1: seats in turn, skipping empty hands, until every hand is played out.
    seat = 0
    while any(hands):
        while not hands[seat]:
            seat = (seat + 1) % n
        if plays.k >= len(events):
            problems.append("the record ends in phase 1 while cards are still in hand")
            return problems
        e = events[plays.k]
        if e.phase != 1 or e.seat != seat:
            problems.append(
                f"{plays.where(e)}: seat {seat} should play a card of his hand in phase 1"
            )
            return problems  # the order is broken; what follows would only echo it
        if e.card not in hands[seat]:
            problems.append(f"{plays.where(e)}: seat {seat} does not hold that card in his hand")
            return problems
        plays.faults_at(e, hands[seat])
        hands[seat].remove(e.card)
        if not plays.follow(e):
            piles[seat].append(e.card)
        seat = (seat + 1) % n

    wrong_after = tuple(tuple(pile) for pile in piles)
    if wrong_after != tuple(map(tuple, rec.wrong_after_phase1)):
        problems.append("the wrong cards after phase 1 differ from the ones the plays give")

    # Phase 2: one turn per seat in rotation; with the retry option a turn goes on
    # after a wrong card until one is right or all were tried.
    turns, mid_turn = 0, False
    while plays.k < len(events):
        if not all(piles):
            problems.append(f"event {plays.k}: phase 2 goes on after a player went out")
            break
        if not plays.playable(piles):
            problems.append(
                f"event {plays.k}: phase 2 goes on although no player holds a right card"
            )
            break
        if turns >= max_turns:
            problems.append(f"event {plays.k}: phase 2 goes past the turn cap ({max_turns} turns)")
            break
        turns += 1
        untried = list(piles[seat])
        while True:
            if plays.k >= len(events):
                mid_turn = True
                break
            e = events[plays.k]
            if e.phase != 2 or e.seat != seat:
                problems.append(
                    f"{plays.where(e)}: seat {seat} should play a wrong card in phase 2"
                )
                return problems
            if e.card not in untried:
                problems.append(
                    f"{plays.where(e)}: seat {seat} does not hold that card (or tried it this turn)"
                )
                return problems
            plays.faults_at(e, untried)
            untried.remove(e.card)
            right = plays.follow(e)
            if right:
                piles[seat].remove(e.card)
            if right or not retry or not untried:
                break
        seat = (seat + 1) % n
    if mid_turn:
        problems.append("the record ends in the middle of a phase-2 turn")

    plays.check_end(
        rec, piles, wrong_after, turns, max_turns, classic_dealer_score, classic_player_scores
    )
    return problems


def fault_options_problems(record) -> list[str]:
    """The faults a record's options rule out.

    Any fault under on_fault='raise'; an over_time fault without a time budget.
    """
    problems = []
    if record.faults and record.config.get("on_fault") == "raise":
        problems.append("the record has faults, but with on_fault='raise' a fault ends the game")
    if record.config.get("decision_seconds") is None and any(
        fault.kind == OVER_TIME for fault in record.faults
    ):
        problems.append("an over_time fault is recorded, but the game had no time budget")
    return problems


@dataclass(frozen=True)
class FaultRules:
    """What a game allows of the faults its records list (`check_faults`).

    ``kinds`` and ``calls``: the fault kinds and agent methods the game knows;
    ``decisions``: the methods that may fault other than by raising (an illegal card,
    an answer out of range, over time); ``step``: what a fault's ``event`` counts
    (``"event"``, ``"turn"``, ``"step"``).
    """

    kinds: Collection[str]
    calls: Collection[str]
    decisions: Collection[str]
    step: str = "event"


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
    >>> record = GameRecord.__new__(GameRecord)
    >>> object.__setattr__(record, "faults", (fault,))
    >>> object.__setattr__(record, "config", {"decision_seconds": 1.0})
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
        elif fault.kind != RAISED and fault.call not in rules.decisions:
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
        if replaced is not None and (key := replaced(fault)) is not None:
            once[key] += 1
    problems += [
        f"{step} {key[0] if isinstance(key, tuple) else key}: {count} faults recorded for"
        " one decision"
        for key, count in once.items()
        if count > 1
    ]
    return problems + fault_options_problems(record)


def check_classic_faults(rec: GameRecord) -> list[str]:
    """What is wrong with the faults of a classic record, short of replaying the plays."""
    return check_faults(
        rec,
        [agent.get("name") for agent in rec.agents],
        len(rec.events),
        FaultRules(FAULT_KINDS, FAULT_CALLS, ("choose_play",)),
        phase_of=lambda k: rec.events[k].phase,
        replaced=lambda fault: fault.event if fault.substituted else None,
    )


# -- layout -------------------------------------------------------------------------------

_CELL = 5  # a card of up to 3 characters, a phase-2 mark, a space
_LABEL = 8
_WIDTH = 100  # a terminal's width, for the lines that are not the table


def format_layout(record: GameRecord, columns: int = 13, max_rows: int = 12) -> str:
    """The table at the end of the game, as Eleusis players lay it out, then the scores.

    The main line runs left to right, in blocks of ``columns`` cards; under each card,
    in its column, are the wrong cards that were played on it (``*`` marks a wrong card
    of phase 2, which went back to its player). A column longer than ``max_rows`` (a
    long phase 2) shows its first cards and how many more there are. The agents' faults,
    if any, follow the scores: per seat, method and kind, how many, at which events, and
    the first one's message.

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
    rule complexity: 2 nodes, 7.9 bits, 50% of faces right on average, 1 context class
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

    game = GAMES.get(getattr(record, "game", None))
    if game is not None and game.layout is not None:
        return game.layout(record, columns, max_rows)
    return format_main_line_layout(record, columns, max_rows)


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


def format_main_line_layout(record: GameRecord, columns: int = 13, max_rows: int = 12) -> str:
    """`format_layout` of a `GameRecord` (classic and four-to-eight), whatever its game."""
    main = record.main_line
    under: list[list[str]] = [[] for _ in main]
    for event in record.events:
        if not event.right and 0 <= event.position < len(main):
            under[event.position].append(f"{event.card!s:>3}{'*' if event.phase == 2 else ' '}")

    name = f" ({record.rule_name})" if record.rule_name else ""
    lines = [
        f"{record.game} Eleusis, seed {record.seed}, rule: {record.rule}{name}",
        f"rule complexity: {describe_measures(parse(record.rule))}",
        *textwrap.wrap(
            f"options: {', '.join(f'{k}={v}' for k, v in record.config.items())}",
            width=_WIDTH,
            subsequent_indent=" " * len("options: "),
        ),
        "wrong cards are under the main-line card they were played on; * = phase 2",
        "",
    ]
    lines += main_line_rows(main, under, columns, max_rows)
    lines = [line.rstrip() for line in lines]

    lines.append(f"{'seat':>4}  {'agent':<20} {'wrong':>5} {'left':>5} {'score':>6}")
    for seat, agent in enumerate(record.agents):
        lines.append(
            f"{seat:>4}  {agent['name'][:20]:<20} {len(record.wrong_after_phase1[seat]):>5}"
            f" {record.cards_left[seat]:>5} {record.player_scores[seat]:>6g}"
        )
    lines.append(f"dealer score: {record.dealer_score}")
    reason = END_REASONS.get(record.phase2_end, record.phase2_end)
    lines.append(f"phase 2 ended after {record.phase2_turns} turns: {reason}")
    lines += fault_lines(record.faults)
    return "\n".join(lines)


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
    return lines


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
