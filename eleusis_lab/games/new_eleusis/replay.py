"""The replay of a New Eleusis round: `replay_new_eleusis` re-derives a record from its
seed and rule on the same state as the engine
(`eleusis_lab.games.new_eleusis.state.NewEleusisState`), without the agents.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from eleusis_lab.agent import Event
from eleusis_lab.cards import Card
from eleusis_lab.engines import (
    check_seed,
)
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.driver import END, RecordedSeats, drive
from eleusis_lab.games.new_eleusis.engine import NewEleusisConfig, turn_problem
from eleusis_lab.games.new_eleusis.record import (
    DECISIONS,
    GAME,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NEW_ELEUSIS_FAULT_CALLS,
    NEW_ELEUSIS_FAULT_KINDS,
    NewEleusisRecord,
    Turn,
)
from eleusis_lab.games.new_eleusis.state import CALL, DECLARE, TURN, NewEleusisState
from eleusis_lab.games.new_eleusis.table import check_rule
from eleusis_lab.record import (
    OVER_TIME,
    TURN_CAP,
    Fault,
    FaultRules,
    card_text,
    check_faults,
)
from eleusis_lab.rules import RuleSyntaxError, parse


def _show(value: Any) -> str:
    if isinstance(value, Card):
        return card_text(value)
    if isinstance(value, tuple) and value and all(isinstance(v, Card) for v in value):
        return " ".join(map(card_text, value))
    if isinstance(value, tuple) and value and all(isinstance(v, tuple) for v in value):
        return "[" + " | ".join(_show(v) for v in value) + "]"
    return repr(value)


def replay_new_eleusis(record: NewEleusisRecord) -> list[str]:
    """Check a New Eleusis record against the rules, without the agents.

    Re-parses the rule, re-deals from the seed, and plays the recorded decisions (each
    turn's cards or "no play", the Prophet's calls, the declarations of Prophet) on a
    fresh state (`eleusis_lab.games.driver.drive`): the turn order, that each card
    played is held, every verdict, draw, overthrow and expulsion, the Prophets, the end
    of the round, the final lines, hands and stock, and the scores must all be those
    the rules give. Faults are checked too: each names the seat and agent of its
    decision, and a replaced decision is the engine's substitute (the first card of the
    hand; a call of "right"; no declaration).

    Parameters
    ----------
    record : NewEleusisRecord

    Returns
    -------
    list of str
        The discrepancies found, most fundamental first; empty when consistent.

    Examples
    --------
    >>> from eleusis_lab.games.new_eleusis import play_new_eleusis
    >>> from eleusis_agents.simple import RandomAgent
    >>> record = play_new_eleusis("black(card)", [RandomAgent() for _ in range(4)], seed=2)
    >>> replay_new_eleusis(record)
    []
    >>> from dataclasses import replace
    >>> turn = record.turns[0]
    >>> tampered = record.replace(turns=(replace(turn, right=not turn.right), *record.turns[1:]))
    >>> replay_new_eleusis(tampered)
    ['turn 0 (seat 0): recorded right=True, the rules give False']
    """
    if record.game != GAME:
        return [f"not a New Eleusis record: game {record.game!r}"]
    try:
        rule = check_rule(parse(record.rule))
    except RuleSyntaxError as error:
        return [f"the rule does not parse: {error.message} ({record.rule!r})"]
    except ConfigError as error:
        return [str(error)]
    n = len(record.deal)
    if not MIN_PLAYERS <= n <= MAX_PLAYERS or len(record.agents) != n:
        return [f"{n} hands dealt for {len(record.agents)} agents; New Eleusis has 3 to 7 players"]
    try:
        config = NewEleusisConfig(**record.config)
        state = NewEleusisState(rule, n, check_seed(record.seed), config)
    except (ConfigError, TypeError) as error:
        return [f"the round cannot be set up from its seed and config: {error}"]
    if (state.starter, state.dealt) != (record.starter, tuple(map(tuple, record.deal))):
        return [f"the starter and the hands are not those dealt by seed {record.seed}"]
    seats = _Turns(record, state)
    problems = seats.problems
    if record.first_seat != state.first:
        problems.append(
            f"first seat: recorded {record.first_seat}, the starter {record.starter} gives"
            f" {state.first}"
        )
    problems += _check_faults(record)

    drive(state, seats)
    if seats.broken:
        return problems  # the order is broken; what follows would only echo it
    if seats.taken < len(record.turns):  # the round ended before the record does
        where = seats.where(seats.taken)
        if state.end == TURN_CAP:
            problems.append(f"{where}: past the turn cap ({config.max_turns} turns)")
        else:
            problems.append(f"{where}: the round had ended ({state.end})")

    if state.end is None:
        problems.append("the record stops while the round goes on")
    if state.end is not None and record.end != state.end:
        problems.append(f"end: recorded {record.end!r}, the turns give {state.end!r}")
    if record.turn_cap_hit != (state.end == TURN_CAP):
        problems.append(f"turn_cap_hit is {record.turn_cap_hit}, but the round ended {state.end!r}")
    derived = state.record_fields()
    for name in (
        "prophets",
        "main_line",
        "side_line",
        "hands",
        "set_aside",
        "expelled",
        "stock",
        "decks",
        "player_scores",
        "dealer_score",
    ):
        got, want = getattr(record, name), derived[name]
        if isinstance(got, list):
            got = tuple(got)
        if got != want:
            problems.append(f"{name}: recorded {_show(got)}, the turns give {_show(want)}")
    return problems


class _Turns(RecordedSeats):
    """A record's turns at the seats of ``state``, decision by decision: each turn's
    cards (checked first: its seat, its cards, its faults, its Prophet's call), the
    Prophet's call when the state asks for one, the declaration when it asks for one.
    Each judged turn is compared with the record's; ``broken`` when the order of the
    turns is, which ends the drive.
    """

    def __init__(self, record: NewEleusisRecord, state: NewEleusisState):
        super().__init__(record.turns)
        self.state = state
        self.decided: dict[int, list[Fault]] = {}
        for fault in record.faults:
            if fault.call in DECISIONS:
                self.decided.setdefault(fault.event, []).append(fault)
        self.compared = [f.name for f in fields(Turn) if f.name not in ("seat", "declared_prophet")]
        self.broken = False
        self.deciding = TURN

    def decide(self, seat: int, state: NewEleusisState) -> Any:
        self.deciding = state.decision
        if self.taken == len(self.actions):
            return END
        turn = self.actions[self.taken]
        if state.decision == CALL:
            return bool(turn.prophet_call)
        if state.decision == DECLARE:
            return bool(turn.declared_prophet)
        return self.cards(self.taken, turn, state)

    def cards(self, k: int, turn: Turn, state: NewEleusisState) -> Any:
        """The cards of turn ``k``, checked against the state; `END` if it cannot be
        played."""
        problems, where = self.problems, self.where(k)
        if turn.seat != state.seat:
            problems.append(f"{where}: seat {state.seat} should play")
            self.broken = True
            return END
        hand = tuple(state.hands[turn.seat])
        illegal = turn_problem(turn.cards or None, hand)
        if illegal is not None:
            problems.append(f"{where}: {illegal}")
            self.broken = True
            return END
        prophet = state.prophet
        for fault in self.decided.get(k, ()):
            substituted = fault.kind != OVER_TIME
            who = prophet if fault.call.startswith("call_") else turn.seat
            if fault.seat != who:
                problems.append(f"{where}: a {fault.call} fault names seat {fault.seat}")
            elif fault.call == "choose_turn" and substituted and turn.cards != hand[:1]:
                problems.append(
                    f"{where}: after a {fault.kind} fault the engine plays the first card"
                    f" of the hand, {card_text(hand[0])}"
                )
            elif fault.call.startswith("call_") and substituted and turn.prophet_call is not True:
                problems.append(f"{where}: after a {fault.kind} fault the Prophet's call is right")
            elif fault.call == "declare_prophet" and substituted and turn.declared_prophet:
                problems.append(f"{where}: after a {fault.kind} fault nobody declares")
        if (turn.prophet_call is None) != (prophet is None):
            problems.append(
                f"{where}: prophet_call is {turn.prophet_call!r}, but "
                + ("there is no Prophet" if prophet is None else f"seat {prophet} is Prophet")
            )
        return tuple(turn.cards)

    def heard(self, action: Any, events: tuple[Event, ...], state: NewEleusisState) -> None:
        if self.deciding == DECLARE:
            self.taken += 1
            return
        if state.decision == CALL:
            return  # the turn awaits the Prophet's call
        self.compare(self.taken, action, events)  # the turn is judged
        if state.decision != DECLARE:
            if self.actions[self.taken].declared_prophet:
                self.problems.append(
                    f"{self.where(self.taken)}: declares himself Prophet, which he may not now"
                )
            self.taken += 1

    def compare(self, index: int, action: Any, events: tuple[Event, ...]) -> None:
        """The record's turn ``index`` against the one the state judged."""
        turn, expected = self.actions[index], self.state.turns[-1]
        for name in self.compared:
            got, want = getattr(turn, name), getattr(expected, name)
            if got != want:
                self.problems.append(
                    f"{self.where(index)}: recorded {name}={_show(got)}, the rules give"
                    f" {_show(want)}"
                )

    def where(self, k: int) -> str:
        """How a problem names the record's turn ``k``."""
        return f"turn {k} (seat {self.actions[k].seat})"


def _replaced(fault) -> bool:
    """Whether the engine decided in the agent's place (over time, the decision stands)."""
    return fault.call in DECISIONS and fault.kind != OVER_TIME


def _check_faults(record: NewEleusisRecord) -> list[str]:
    """What is wrong with a record's faults, short of replaying the turns."""
    return check_faults(
        record,
        [agent.get("name") for agent in record.agents],
        len(record.turns),
        FaultRules(NEW_ELEUSIS_FAULT_KINDS, NEW_ELEUSIS_FAULT_CALLS, DECISIONS, "turn"),
        phase_of=lambda k: record.turns[k].phase,
        replaced=lambda f: (f.event, f.call) if _replaced(f) else None,
    )
