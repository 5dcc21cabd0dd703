"""New Eleusis: the record of a round (every turn, the Prophet's terms, the scores), its
JSON form and its layout on the table.

The engine and the replay are in `eleusis_lab.games.new_eleusis`; the state of a round
that both drive is in `eleusis_lab.games.new_eleusis.state`.
"""

from __future__ import annotations

import textwrap
from dataclasses import asdict, dataclass
from itertools import chain
from typing import Any

from eleusis_lab.agent import Event
from eleusis_lab.cards import Card
from eleusis_lab.games.classic.record import PLAYER_OUT
from eleusis_lab.record import (
    FAULT_KINDS,
    TURN_CAP,
    Fault,
    JsonRecord,
    RecordError,
    agent_from_dict,
    card_from_text,
    card_text,
    cards_from_text,
    cards_text,
    complexity_lines,
    reading_record,
    rule_game_fields,
    rule_game_head,
)

__all__ = [
    "ALL_EXPELLED",
    "DEALER",
    "END_REASONS",
    "GAME",
    "ILLEGAL_DECISION",
    "PLAY",
    "PLAYER_OUT",
    "SET_ASIDE",
    "STRING",
    "TURN_CAP",
    "NewEleusisRecord",
    "ProphetTerm",
    "Turn",
    "format_new_eleusis_layout",
]

GAME = "new-eleusis"
MIN_PLAYERS, MAX_PLAYERS = 3, 7  # the agents; with the dealer, 4 to 8 participants
MAX_STRING = 4
WRONG_CARD_PENALTY = 2  # cards drawn per card of a wrong play
FALSE_NO_PLAY_PENALTY = 5
OVERTHROW_PENALTY = 5
NO_PLAY_SHRINK = 4  # a true "no play" deals a hand this much smaller

#: How a round ended (`NewEleusisRecord.end`); `PLAYER_OUT` and `TURN_CAP` as in classic.
ALL_EXPELLED = "all_expelled"
END_REASONS = {
    PLAYER_OUT: "a player ran out of cards",
    ALL_EXPELLED: "every player (but the Prophet) was expelled",
    TURN_CAP: "the turn cap was hit",
}

#: `eleusis_lab.agent.Event.kind` values of New Eleusis (see `Event`).
PLAY, STRING, SET_ASIDE, DEALER = "play", "string", "set_aside", "dealer"

#: A fault kind of New Eleusis: a Prophet's call or declaration that is not True/False.
ILLEGAL_DECISION = "illegal_decision"
NEW_ELEUSIS_FAULT_KINDS = {
    **FAULT_KINDS,
    ILLEGAL_DECISION: "answered something other than True/False",
}
DECISIONS = ("choose_turn", "declare_prophet", "call_play", "call_no_play")
NEW_ELEUSIS_FAULT_CALLS = ("start_game", *DECISIONS, "observe")

FORMAT_VERSION = 1


# -- the record ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Turn:
    """One turn of New Eleusis: the player's decision and everything it led to.

    Attributes
    ----------
    seat : int
        The player.
    cards : tuple of Card
        The card or string played, in order; empty for "no play".
    right : bool
        The dealer's verdict: the string was right (every card right in order), or the
        "no play" was true (none of the player's cards was right).
    position : int
        Index of the last main-line card before the turn: a wrong play goes under it.
    phase : int
        2 if sudden death was in force for the turn, else 1.
    prophet_call : bool or None
        The Prophet's call of the play (``None``: there was no Prophet).
    overthrown : bool
        The dealer overruled the call: the Prophet was overthrown.
    expelled : bool
        The player was expelled (a wrong play in sudden death).
    set_aside : tuple of Card
        After a true "no play": the hand set aside, face up.
    dealer_card : Card or None
        After a false "no play": the right card the dealer played from the hand.
    drawn : tuple of Card
        The cards the player received: his penalty, or his new hand after a true "no
        play".
    prophet_drawn : tuple of Card
        The 5 cards of an overthrown Prophet.
    declared_prophet : bool
        The player declared himself Prophet right after this turn.
    """

    seat: int
    cards: tuple[Card, ...]
    right: bool
    position: int
    phase: int
    prophet_call: bool | None = None
    overthrown: bool = False
    expelled: bool = False
    set_aside: tuple[Card, ...] = ()
    dealer_card: Card | None = None
    drawn: tuple[Card, ...] = ()
    prophet_drawn: tuple[Card, ...] = ()
    declared_prophet: bool = False

    @property
    def no_play(self) -> bool:
        """Whether the player declared "no play"."""
        return not self.cards

    @property
    def played(self) -> tuple[Card, ...]:
        """The cards this turn put on the main or side line (the dealer's card included)."""
        return (
            self.cards if self.cards else (() if self.dealer_card is None else (self.dealer_card,))
        )

    def events(self) -> list[Event]:
        """What the agents are told of this turn (see `eleusis_lab.agent.Event`)."""
        seat, phase, at = self.seat, self.phase, self.position
        if self.cards:
            if self.right:
                return [Event(seat, card, phase, True, at + i) for i, card in enumerate(self.cards)]
            kind = PLAY if len(self.cards) == 1 else STRING
            return [Event(seat, card, phase, False, at, kind) for card in self.cards]
        if self.right:
            return [Event(seat, card, phase, False, at, SET_ASIDE) for card in self.set_aside]
        return [Event(seat, self.dealer_card, phase, True, at, DEALER)]

    def to_dict(self) -> dict[str, Any]:
        """The turn as JSON-ready data."""
        return {
            "seat": self.seat,
            "cards": cards_text(self.cards),
            "right": self.right,
            "position": self.position,
            "phase": self.phase,
            "prophet_call": self.prophet_call,
            "overthrown": self.overthrown,
            "expelled": self.expelled,
            "set_aside": cards_text(self.set_aside),
            "dealer_card": None if self.dealer_card is None else card_text(self.dealer_card),
            "drawn": cards_text(self.drawn),
            "prophet_drawn": cards_text(self.prophet_drawn),
            "declared_prophet": self.declared_prophet,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Turn:
        """The inverse of `to_dict`."""
        dealer = data["dealer_card"]
        return cls(
            seat=data["seat"],
            cards=cards_from_text(data["cards"]),
            right=data["right"],
            position=data["position"],
            phase=data["phase"],
            prophet_call=data["prophet_call"],
            overthrown=data["overthrown"],
            expelled=data["expelled"],
            set_aside=cards_from_text(data["set_aside"]),
            dealer_card=None if dealer is None else card_from_text(dealer),
            drawn=cards_from_text(data["drawn"]),
            prophet_drawn=cards_from_text(data["prophet_drawn"]),
            declared_prophet=data["declared_prophet"],
        )


@dataclass(frozen=True)
class ProphetTerm:
    """One Prophet of a round: who, when, where his marker went, and his fall.

    Attributes
    ----------
    seat : int
        The Prophet.
    turn : int
        Index of the turn right after which he declared himself.
    marker : int
        Cards played in the round when his marker went down (the marked card is the
        ``marker``-th card played; 0: the starter).
    overthrown : int or None
        Index of the turn at which he was overthrown; ``None`` if still in place.
    """

    seat: int
    turn: int
    marker: int
    overthrown: int | None = None


@dataclass(frozen=True)
class NewEleusisRecord(JsonRecord):
    """Everything about one round of New Eleusis: enough to replay, check, score, lay out.

    Attributes
    ----------
    game : str
        ``"new-eleusis"``.
    rule, rule_name : str, str or None
        The secret rule's canonical text, and its catalog name if it has one.
    seed : int
        The seed the round was played with.
    config : dict
        `NewEleusisConfig.to_dict`.
    agents : tuple of dict
        Per seat: ``name``, ``spec`` and ``params`` (`eleusis_lab.record.describe_agent`).
    starter : Card
        The first card of the main line.
    first_seat : int
        The seat the starter's count picked to play first.
    deal : tuple of tuple of Card
        Each seat's hand as dealt.
    turns : tuple of Turn
        Every turn in order.
    prophets : tuple of ProphetTerm
        Every Prophet of the round, in order; at most the last one is still in place.
    main_line : tuple of Card
        The main line at the end, starter first.
    side_line : tuple of tuple of Card
        For each main-line position, the wrong cards played under it.
    hands : tuple of tuple of Card
        Each seat's hand at the end (the Prophet's hand, set aside, included).
    set_aside : tuple of tuple of Card
        Each seat's hands set aside after true "no play" declarations.
    expelled : tuple of int
        The seats expelled, in order.
    stock : tuple of Card
        The cards left in the stock, top first.
    decks : int
        The decks used (2, and one more each time the stock ran low).
    end : str
        `PLAYER_OUT`, `ALL_EXPELLED` or `TURN_CAP`.
    turn_cap_hit : bool
        Whether the turn cap stopped the round.
    player_scores : tuple of int
        Each seat's score.
    dealer_score : int
        The dealer's score.
    faults : tuple of Fault
        The agents' faults in order; ``Fault.event`` is an index in ``turns``.
    """

    kind = "New Eleusis record"  # named in errors: "not a New Eleusis record: ..."

    game: str
    rule: str
    seed: int
    config: dict[str, Any]
    agents: tuple[dict[str, Any], ...]
    starter: Card
    first_seat: int
    deal: tuple[tuple[Card, ...], ...]
    turns: tuple[Turn, ...]
    prophets: tuple[ProphetTerm, ...]
    main_line: tuple[Card, ...]
    side_line: tuple[tuple[Card, ...], ...]
    hands: tuple[tuple[Card, ...], ...]
    set_aside: tuple[tuple[Card, ...], ...]
    expelled: tuple[int, ...]
    stock: tuple[Card, ...]
    decks: int
    end: str
    turn_cap_hit: bool
    player_scores: tuple[int, ...]
    dealer_score: int
    rule_name: str | None = None
    faults: tuple[Fault, ...] = ()

    @property
    def n_players(self) -> int:
        """Number of players (the dealer is not counted)."""
        return len(self.deal)

    @property
    def cards_left(self) -> tuple[int, ...]:
        """Each seat's hand size at the end."""
        return tuple(len(hand) for hand in self.hands)

    @property
    def prophet(self) -> int | None:
        """The seat of the Prophet in place at the end, or ``None``."""
        if self.prophets and self.prophets[-1].overthrown is None:
            return self.prophets[-1].seat
        return None

    @property
    def cards_played(self) -> int:
        """Cards played in the round, main and side line (not the starter)."""
        return len(self.main_line) - 1 + sum(map(len, self.side_line))

    @property
    def events(self) -> tuple[Event, ...]:
        """Every event the agents were told, in order (`Turn.events`)."""
        return tuple(chain.from_iterable(turn.events() for turn in self.turns))

    # -- JSON -------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data (cards as text, ``"10H#1"`` for a second copy)."""
        return {
            **rule_game_head(self, FORMAT_VERSION),
            "agents": [dict(agent) for agent in self.agents],
            "starter": card_text(self.starter),
            "first_seat": self.first_seat,
            "deal": [cards_text(hand) for hand in self.deal],
            "turns": [turn.to_dict() for turn in self.turns],
            "prophets": [asdict(term) for term in self.prophets],
            "main_line": cards_text(self.main_line),
            "side_line": [cards_text(column) for column in self.side_line],
            "hands": [cards_text(hand) for hand in self.hands],
            "set_aside": [cards_text(cards) for cards in self.set_aside],
            "expelled": list(self.expelled),
            "stock": cards_text(self.stock),
            "decks": self.decks,
            "end": self.end,
            "turn_cap_hit": self.turn_cap_hit,
            "player_scores": list(self.player_scores),
            "dealer_score": self.dealer_score,
            "faults": [fault.to_dict() for fault in self.faults],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> NewEleusisRecord:
        """Build a record from `to_dict` data; raises `RecordError` when it is not one."""
        with reading_record(cls.kind):
            if data.get("format") != FORMAT_VERSION or data.get("game") != GAME:
                raise RecordError(
                    f"not a New Eleusis record of format {FORMAT_VERSION}: game"
                    f" {data.get('game')!r}, format {data.get('format')!r}"
                )
            return cls(
                **rule_game_fields(data),
                agents=tuple(agent_from_dict(agent) for agent in data["agents"]),
                starter=card_from_text(data["starter"]),
                first_seat=data["first_seat"],
                deal=tuple(cards_from_text(hand) for hand in data["deal"]),
                turns=tuple(Turn.from_dict(turn) for turn in data["turns"]),
                prophets=tuple(ProphetTerm(**term) for term in data["prophets"]),
                main_line=cards_from_text(data["main_line"]),
                side_line=tuple(cards_from_text(column) for column in data["side_line"]),
                hands=tuple(cards_from_text(hand) for hand in data["hands"]),
                set_aside=tuple(cards_from_text(cards) for cards in data["set_aside"]),
                expelled=tuple(data["expelled"]),
                stock=cards_from_text(data["stock"]),
                decks=data["decks"],
                end=data["end"],
                turn_cap_hit=data["turn_cap_hit"],
                player_scores=tuple(data["player_scores"]),
                dealer_score=data["dealer_score"],
                faults=tuple(Fault.from_dict(fault) for fault in data["faults"]),
            )


# -- layout ------------------------------------------------------------------------------------

_CELL = 5  # a card right-aligned in 4 characters, then a mark (or a space)
_LABEL = 8
_WIDTH = 100


def _marks(record: NewEleusisRecord) -> dict[tuple[int, int], str]:
    """Marks by place, (main-line position, row; row -1 = the main line): P, p and ^."""
    places: list[tuple[int, int]] = []  # the place of every card played, in order
    marks: dict[tuple[int, int], str] = {}
    main_length, rows = 1, [0] * len(record.main_line)
    for turn in record.turns:
        if turn.dealer_card is not None:
            marks[main_length, -1] = "^"
        if turn.right or turn.dealer_card is not None:
            for _ in turn.played:
                places.append((main_length, -1))
                main_length += 1
        else:
            for _ in turn.cards:
                if turn.position < len(rows):
                    places.append((turn.position, rows[turn.position]))
                    rows[turn.position] += 1
    for term in record.prophets:
        place = (0, -1) if term.marker == 0 else places[min(term.marker, len(places)) - 1]
        marks[place] = "P" if term.overthrown is None else "p"
    return marks


def format_new_eleusis_layout(
    record: NewEleusisRecord, columns: int = 13, max_rows: int = 12
) -> str:
    """The table at the end of a round, as players lay it out, then the scores.

    The main line runs left to right in blocks of ``columns`` cards; under each card
    are the side-line cards played on it (a column longer than ``max_rows`` shows its
    first cards and how many more). Marks: ``P`` the marker of the Prophet in place,
    ``p`` that of an overthrown Prophet, ``^`` a card the dealer played from a hand
    after a false "no play". Then each seat's hand, set-aside cards, status and score,
    the dealer's score, how the round ended, and the agents' faults.

    Examples
    --------
    >>> from eleusis_agents.simple import OracleAgent, RandomAgent
    >>> from eleusis_lab.games.new_eleusis import play_new_eleusis
    >>> agents = [RandomAgent(), RandomAgent(), OracleAgent()]
    >>> record = play_new_eleusis("red(card)", agents, seed=4)
    >>> print(format_new_eleusis_layout(record, columns=10))  # doctest: +ELLIPSIS
    New Eleusis, seed 4, rule: red(card)
    ...
    starter 4H counts 4: seat 0 played first; 2 decks used
    ...
    position   0    1    2    3    4    5    6    7    8    9
    main      4H   5H   2H   KH   9H   9DP  QH   JD   6D  10H
    side           7S                      10C   AS        8C
                                            JS
    ...
    seat  agent                 hand  set aside  status              score
       0  RandomAgent             15          0  expelled (turn 33)      4
       1  RandomAgent             19          0  expelled (turn 34)      0
       2  OracleAgent             10          0  Prophet                60
    Prophet: seat 2, declared after turn 2, marker after 6 cards played
    dealer score: 12
    the round ended after 35 turns: every player (but the Prophet) was expelled
    """
    main = record.main_line
    marks = _marks(record)
    under: list[list[str]] = []
    for i, column in enumerate(record.side_line):
        cells = [f"{card!s:>4}{marks.get((i, row), ' ')}" for row, card in enumerate(column)]
        if len(cells) > max_rows:
            cells = [*cells[: max_rows - 1], f"+{len(cells) - max_rows + 1}"]
        under.append(cells)
    name = f" ({record.rule_name})" if record.rule_name else ""
    starter = record.starter
    lines = [
        f"New Eleusis, seed {record.seed}, rule: {record.rule}{name}",
        *complexity_lines(record.rule),
        *textwrap.wrap(
            f"options: {', '.join(f'{k}={v}' for k, v in record.config.items())}",
            width=_WIDTH,
            subsequent_indent=" " * len("options: "),
        ),
        f"starter {starter} counts {starter.rank}: seat {record.first_seat} played first;"
        f" {record.decks} decks used",
        "side-line cards are under the main-line card they were played on",
        "P = the Prophet's marker, p = an overthrown Prophet's, ^ = played by the dealer",
        "",
    ]
    for start in range(0, len(main), columns):
        block = range(start, min(start + columns, len(main)))
        lines.append(f"{'position':<{_LABEL}}" + "".join(f"{i:>{_CELL - 1}} " for i in block))
        cells = (f"{main[i]!s:>{_CELL - 1}}{marks.get((i, -1), ' ')}" for i in block)
        lines.append(f"{'main':<{_LABEL}}" + "".join(cells))
        depth = max((len(under[i]) for i in block if i < len(under)), default=0)
        for row in range(depth):
            label = "side" if row == 0 else ""
            cells = (under[i][row] if i < len(under) and row < len(under[i]) else "" for i in block)
            lines.append(f"{label:<{_LABEL}}" + "".join(f"{cell:<{_CELL}}" for cell in cells))
        lines.append("")
    lines = [line.rstrip() for line in lines]

    prophet = record.prophet
    expelled_at = {turn.seat: k for k, turn in enumerate(record.turns) if turn.expelled}
    lines.append(
        f"{'seat':>4}  {'agent':<20} {'hand':>5} {'set aside':>10}  {'status':<18} {'score':>6}"
    )
    for seat, agent in enumerate(record.agents):
        if seat == prophet:
            status = "Prophet"
        elif seat in expelled_at:
            status = f"expelled (turn {expelled_at[seat]})"
        elif not record.hands[seat]:
            status = "out"
        else:
            status = ""
        lines.append(
            f"{seat:>4}  {agent['name'][:20]:<20} {len(record.hands[seat]):>5}"
            f" {len(record.set_aside[seat]):>10}  {status:<18} {record.player_scores[seat]:>6}"
        )
    if prophet is not None:
        term = record.prophets[-1]
        lines.append(
            f"Prophet: seat {prophet}, declared after turn {term.turn}, marker after"
            f" {term.marker} cards played"
        )
    for term in record.prophets:
        if term.overthrown is not None:
            lines.append(
                f"overthrown: seat {term.seat} (declared after turn {term.turn}) at turn"
                f" {term.overthrown}"
            )
    lines.append(f"dealer score: {record.dealer_score}")
    reason = END_REASONS.get(record.end, record.end)
    lines.append(f"the round ended after {len(record.turns)} turns: {reason}")
    lines += _fault_lines(record.faults)
    return "\n".join(lines)


def _fault_lines(faults: tuple[Fault, ...]) -> list[str]:
    if not faults:
        return []
    groups: dict[tuple[int, str, str], list[Fault]] = {}
    for fault in faults:
        groups.setdefault((fault.seat, fault.call, fault.kind), []).append(fault)
    lines = [f"faults: {len(faults)} (turn numbers; faulty decisions replaced, see the engine)"]
    for (seat, call, kind), group in groups.items():
        shown_turns = ", ".join(str(fault.event) for fault in group[:4])
        more = ", ..." if len(group) > 4 else ""
        line = (
            f"  seat {seat} {group[0].agent}: {call} {kind} x{len(group)}"
            f" (turns {shown_turns}{more}): {group[0].message}"
        )
        lines.append(line if len(line) <= _WIDTH else line[: _WIDTH - 3] + "...")
    return lines
