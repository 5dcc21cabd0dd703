"""The replay of a solo game: `replay_solo` re-derives a record from its seed and rule,
without the agent.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from eleusis_lab.agent import Event
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.driver import END, RecordedSeats, drive
from eleusis_lab.games.solo.engine import (
    BEFORE_VERDICT,
    CARD_FAULTS,
    DECK,
    FAULT_CALLS,
    FAULT_KINDS,
    LEGAL_FAULTS,
    SoloConfig,
)
from eleusis_lab.games.solo.record import (
    GAME,
    Declaration,
    SoloRecord,
    Tentative,
)
from eleusis_lab.games.solo.state import STATEMENT, SoloState, Statement, Turn
from eleusis_lab.record import (
    FaultRules,
    card_text,
    check_faults,
    right_or_wrong,
)
from eleusis_lab.rules import parse


def replay_solo(record: SoloRecord) -> list[str]:
    """Check a solo record against the rules of the game, without the agent.

    Deals again from the seed (hand, refused starters, starter, stock), drives a
    `SoloState` with every play and every statement of the record (`RecordedTurns`: the
    card is in hand, its position and verdict, the card drawn; each tentative rule and
    declaration judged again, `SoloConfig.judge_in`), and compares the end, the turns,
    the score and the success the state gives with the record's. Faults are checked
    too: a substituted play is the first card of the hand.

    Parameters
    ----------
    record : SoloRecord
        The record to check.

    Returns
    -------
    list of str
        The discrepancies found, most fundamental first; empty when consistent.

    Examples
    --------
    >>> from eleusis_lab.games.solo import play_solo
    >>> from eleusis_agents.simple import OracleAgent
    >>> record = play_solo("color(card) != color(last)", OracleAgent(), seed=1)
    >>> replay_solo(record)
    []
    >>> replay_solo(record.replace(score=29))
    ['score: recorded 29, the game gives 30']
    """
    problems: list[str] = []
    rec = record
    if rec.game != GAME:
        return [f"not a solo game record (game {rec.game!r})"]
    try:
        rule = parse(rec.rule)
    except Exception as error:
        return [f"the rule does not parse: {error} ({rec.rule!r})"]
    try:
        config = SoloConfig(**rec.config)
    except (ConfigError, TypeError) as error:
        return [f"the config cannot be played: {error}"]

    at_end = (*rec.hand, *rec.stock, *rec.main_line, *rec.side_line, *rec.refused)
    if Counter(at_end) != Counter(DECK):
        problems.append(
            "hand, stock, main line, side line and refused starters are not the 104 cards"
            " of two decks"
        )
    try:
        state = SoloState.deal(rule, rec.seed, config)
    except ConfigError as error:
        return [*problems, f"seed {rec.seed!r} cannot be dealt: {error}"]
    if tuple(rec.deal) != state.dealt:
        problems.append(f"the hand is not the one dealt by seed {rec.seed}")
    if (tuple(rec.refused), rec.starter) != (state.refused, state.starter):
        problems.append(
            f"the refused starters and the starter are not those drawn by seed {rec.seed}"
        )
        return problems
    problems += _check_faults(rec)
    if state.starter is None and rec.events:
        problems.append("plays are recorded, but no starter was drawn")
        return problems

    seats = RecordedTurns(rec, state)
    drive(state, seats)
    problems += seats.problems
    if not seats.held:
        return problems
    if state.turns < len(rec.events):  # the game ended before the record's plays did
        turn = state.turns + 1
        e = rec.events[turn - 1]
        where = f"turn {turn} ({card_text(e.card)})"
        if state.found_turn is not None:
            problems.append(
                f"{where}: the game goes on after the rule was found on turn {state.found_turn}"
            )
        elif turn > config.max_turns:
            problems.append(f"{where}: the game goes past its {config.max_turns} turns")
        else:  # out of cards
            if (e.seat, e.phase) != (0, 1):
                problems.append(f"{where}: a solo play is seat 0, phase 1")
            problems.append(f"{where}: the player does not hold that card")
            return problems
    for turn in sorted({*seats.by_turn, *seats.stated}):
        problems.append(f"a statement is recorded on turn {turn}, which was not played")

    end = state.end
    if end is None:
        problems.append("the record stops before the last turn with no correct declaration")
    elif rec.end != end:
        problems.append(f"end: recorded {rec.end!r}, the game gives {end!r}")
    for name, value in state.results().items():
        if getattr(rec, name) != value:
            problems.append(
                f"{name.replace('_', ' ')}: recorded {getattr(rec, name)!r},"
                f" the game gives {value!r}"
            )
    final = {
        "main line": (rec.main_line, state.main_line),
        "side line": (rec.side_line, state.side_line),
        "hand": (rec.hand, state.hand),
        "stock": (rec.stock, state.stock),
    }
    for name, (recorded, derived) in final.items():
        if tuple(recorded) != tuple(derived):
            problems.append(f"the {name} at the end differs from the one the plays give")
    return problems


class RecordedTurns(RecordedSeats):
    """A solo record's turns, as `replay_solo` drives a `SoloState` with them: each
    play with its statement (a `Turn`, ``timing="before_verdict"``), or the play then
    the statement (``"after_verdict"``); the statement applied is the declared text,
    else the tentative rule, or None.

    `decide` checks a play before it is made (and ends the drive at a card the player
    does not hold, ``held`` False); `compare` checks its position and verdict, then
    how the turn's recorded statements are judged. The statements of the turns not
    played stay in ``by_turn`` (declarations) and ``stated`` (tentative rules).
    """

    def __init__(self, rec: SoloRecord, state: SoloState):
        self.rec = rec
        self.state = state
        self.by_turn: dict[int, list[Declaration]] = {}
        for declaration in rec.declarations:
            self.by_turn.setdefault(declaration.turn, []).append(declaration)
        self.stated: dict[int, list[Tentative]] = {}
        for statement in rec.tentative:
            self.stated.setdefault(statement.turn, []).append(statement)
        self.substituted = {f.event for f in rec.faults if (f.call, f.kind) in CARD_FAULTS}
        self.held = True
        before = state.config.timing == BEFORE_VERDICT
        actions: list[Any] = []
        for turn, event in enumerate(rec.events, 1):
            statement = self._statement(turn)
            actions += [Turn(event.card, statement)] if before else [event.card, statement]
        super().__init__(actions)

    def _statement(self, turn: int) -> Statement | None:
        """The statement the record makes on ``turn``, as the state takes it."""
        made, tentatives = self.by_turn.get(turn, []), self.stated.get(turn, [])
        if not (made or tentatives):
            return None
        text = made[0].text if made else tentatives[0].text
        confidence = tentatives[0].confidence if tentatives else made[0].confidence
        return Statement(text, confidence, declare=bool(made))

    def decide(self, seat: int, state: SoloState) -> Any:
        action = super().decide(seat, state)
        if action is END or state.awaited == STATEMENT:
            return action
        k = state.turns
        e = self.rec.events[k]
        where = f"turn {k + 1} ({card_text(e.card)})"
        if (e.seat, e.phase) != (0, 1):
            self.problems.append(f"{where}: a solo play is seat 0, phase 1")
        if e.card not in state.hand:
            self.problems.append(f"{where}: the player does not hold that card")
            self.held = False
            return END
        if k in self.substituted and e.card != state.hand[0]:
            self.problems.append(
                f"{where}: after a fault the engine plays the first card of the hand,"
                f" {card_text(state.hand[0])}"
            )
        return action

    def compare(self, index: int, action: Any, events: tuple[Event, ...]) -> None:
        state, problems = self.state, self.problems
        turn = state.turns
        e = self.rec.events[turn - 1]
        where = f"turn {turn} ({card_text(e.card)})"
        if events:
            (event,) = events
            if e.position != event.position:
                problems.append(
                    f"{where}: position {e.position}, but the main line ended at {event.position}"
                )
            if e.right != event.right:
                problems.append(
                    f"{where}: recorded {right_or_wrong(e.right)}, but the rule says"
                    f" {right_or_wrong(event.right)}"
                )
        if state.awaited == STATEMENT:
            return  # the turn's statement is to come
        made, tentatives = self.by_turn.pop(turn, []), self.stated.pop(turn, [])
        if len(made) > 1 or len(tentatives) > 1:
            problems.append(f"{where}: more than one declaration or tentative rule in one turn")
        if made and self.rec.tentative and [t.text for t in tentatives] != [made[0].text]:
            problems.append(f"{where}: the declared rule is not the turn's tentative rule")
        problems += _check_statements(state, where, made, tentatives)


def _check_statements(
    state: SoloState, where: str, made: list[Declaration], tentatives: list[Tentative]
) -> list[str]:
    """Compare how each recorded statement of a turn is judged with how ``state``
    judged the turn's statement (the declared text, else the tentative rule) and, for
    any other, with how it is judged now."""
    if not (made or tentatives):
        return []
    text = made[0].text if made else tentatives[0].text
    problems = []
    for statement in tentatives:
        if statement.text == text and statement.correct == state.tentative[-1].correct:
            continue
        judgement = state.judge(statement.text)
        if statement.correct != judgement.correct:
            problems.append(
                f"{where}: the tentative rule {statement.text!r} is recorded"
                f" {_correct(statement.correct)}, but judging it gives"
                f" {_correct(judgement.correct)} ({judgement.method}: {judgement.reason})"
            )
    for recorded in made:
        # the first was applied; any other (a fault of the record) is judged apart
        judged = state.declarations[-1] if recorded is made[0] else state.judge(recorded.text)
        if (recorded.correct, recorded.method, recorded.reason) != (
            judged.correct,
            judged.method,
            judged.reason,
        ):
            problems.append(
                f"{where}: the declaration {recorded.text!r} is recorded"
                f" {_correct(recorded.correct)} ({recorded.method}),"
                f" but judging it gives {_correct(judged.correct)}"
                f" ({judged.method}: {judged.reason})"
            )
    return problems


def _check_faults(rec: SoloRecord) -> list[str]:
    """What is wrong with the faults of a solo record, short of replaying the plays."""
    return check_faults(
        rec,
        [rec.agent.get("name")],
        len(rec.events),
        FaultRules(FAULT_KINDS, FAULT_CALLS, pairs=LEGAL_FAULTS),
        phase_of=lambda k: 1,
        replaced=lambda f: f.event if (f.call, f.kind) in CARD_FAULTS else None,
    )


def _correct(correct: bool) -> str:
    return "correct" if correct else "wrong"
