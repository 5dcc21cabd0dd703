"""The replay of a Delphi game: `replay_delphi` re-derives a record from its seed and
rule, without the agents.
"""

from __future__ import annotations

from collections import Counter

from eleusis_lab.agent import Event
from eleusis_lab.games.delphi.record import (
    DECK,
    DELPHI_FAULT_CALLS,
    GAME,
    ORACLE,
    PREDICT_FAULT_KINDS,
    SUBSTITUTE_PROBABILITY,
    DelphiRecord,
)
from eleusis_lab.games.delphi.scoring import delphi_scores
from eleusis_lab.games.delphi.state import DelphiState, delphi_deal
from eleusis_lab.games.driver import RecordedSeats, drive
from eleusis_lab.record import (
    OVER_TIME,
    FaultRules,
    card_text,
    check_faults,
    right_or_wrong,
)
from eleusis_lab.rules import RuleSyntaxError, parse

# -- replay -------------------------------------------------------------------------------


def replay_delphi(rec: DelphiRecord) -> list[str]:
    """Check a Delphi record against the rules, without the agents.

    Re-parses the rule and re-deals from the seed, plays the recorded cards and
    predictions through `eleusis_lab.games.delphi.state.DelphiState` (the rules the
    engine plays by, driven by `eleusis_lab.games.driver.drive`) and compares every
    verdict and position, the main line and side column, checks every probability (one
    per seat, in [0, 1], 0.5 where a prediction was faulty) and the faults, and compares
    the chips and the scores the state gives.
    `eleusis_lab.record.replay` calls it for this game.

    Parameters
    ----------
    rec : DelphiRecord
        The record to check.

    Returns
    -------
    list of str
        The discrepancies found, most fundamental first; empty when consistent.

    Examples
    --------
    >>> from eleusis_lab.games.delphi import play_delphi
    >>> from eleusis_agents.simple import OracleAgent, RandomAgent
    >>> record = play_delphi("black(card)", [OracleAgent(), RandomAgent()], seed=1)
    >>> replay_delphi(record)
    []
    >>> replay_delphi(record.replace(oracle_score=0))
    ['oracle score: recorded 0, the chips give 50']
    """
    if rec.game != GAME:
        return [f"not a Delphi record: the game is {rec.game!r}"]
    try:
        rule = parse(rec.rule)
    except RuleSyntaxError as error:
        return [f"the rule does not parse: {error.message} ({rec.rule!r})"]
    n = len(rec.agents)
    if n < 1:
        return ["no players: Delphi needs at least one"]
    problems: list[str] = []

    # The deal: one deck, turned in exactly the order the seed shuffles it.
    cards = [event.card for event in rec.events]
    if Counter([rec.starter, *cards]) != Counter(DECK):
        problems.append("the starter and the cards judged are not one 52-card deck")
    try:
        starter, dealt = delphi_deal(rec.seed)
    except ValueError as error:
        problems.append(f"seed {rec.seed!r} cannot be dealt: {error}")
    else:
        if (starter, dealt) != (rec.starter, tuple(cards)):
            problems.append(f"the starter and the cards are not in the order seed {rec.seed} deals")

    # Every card judged by the rule in its context: the state turns the recorded cards
    # with the recorded predictions (a bad one as the substitute: reported below).
    state = DelphiState(rule, rec.starter, cards, n)
    seats = _Predictions(rec, n)
    drive(state, seats)
    problems += seats.problems
    if tuple(rec.main_line) != state.main_line:
        problems.append("the main line differs from the one the verdicts give")
    if tuple(rec.side_column) != state.side_column:
        problems.append("the side column differs from the one the verdicts give")

    # The predictions: one probability per seat and card.
    if len(rec.probabilities) != len(rec.events):
        problems.append(f"{len(rec.probabilities)} rows of predictions for {len(rec.events)} cards")
        return problems
    for k, row in enumerate(rec.probabilities):
        if len(row) != n:
            problems.append(f"event {k}: {len(row)} predictions for {n} players")
            return problems
        bad = [p for p in row if not _is_probability(p)]
        if bad:
            problems.append(f"event {k}: {bad[0]!r} is not a probability in [0, 1]")
            return problems
    problems += _check_faults(rec)

    chips = state.chips()  # every recorded prediction is a probability by now
    if list(rec.chips) != chips:
        problems.append(f"chips: recorded {list(rec.chips)}, the predictions give {chips}")
    players, oracle = delphi_scores(chips)
    if list(rec.player_scores) != players:
        problems.append(
            f"player scores: recorded {list(rec.player_scores)}, the chips give {players}"
        )
    if rec.oracle_score != oracle:
        problems.append(f"oracle score: recorded {rec.oracle_score}, the chips give {oracle}")
    return problems


class _Predictions(RecordedSeats):
    """A Delphi record's predictions, card by card and seat by seat (a missing or bad
    one as the substitute); each card's event, which its last prediction makes, is
    compared with the record's."""

    def __init__(self, rec: DelphiRecord, n: int):
        rows = rec.probabilities
        predictions = []
        for k in range(len(rec.events)):
            row = rows[k] if k < len(rows) else ()
            for seat in range(n):
                p = row[seat] if seat < len(row) else None
                predictions.append(p if _is_probability(p) else SUBSTITUTE_PROBABILITY)
        super().__init__(predictions)
        self.players = n
        self.recorded = rec.events

    def compare(self, index: int, action: float, events: tuple[Event, ...]) -> None:
        if not events:
            return
        placed = events[0]  # the last seat's prediction turned the card
        k = index // self.players
        e = self.recorded[k]
        where = f"event {k} ({card_text(e.card)})"
        if (e.seat, e.phase) != (ORACLE, 1):
            self.problems.append(
                f"{where}: seat {e.seat} in phase {e.phase}; the oracle's cards are seat"
                f" {ORACLE} in phase 1"
            )
        if e.position != placed.position:
            self.problems.append(
                f"{where}: position {e.position}, but the main line ended at {placed.position}"
            )
        if placed.right != e.right:
            self.problems.append(
                f"{where}: recorded {right_or_wrong(e.right)}, but the rule says"
                f" {right_or_wrong(placed.right)}"
            )


def _check_faults(rec: DelphiRecord) -> list[str]:
    """What is wrong with the faults of a Delphi record."""
    problems = check_faults(
        rec,
        [agent.get("name") for agent in rec.agents],
        len(rec.events),
        FaultRules(PREDICT_FAULT_KINDS, DELPHI_FAULT_CALLS, ("predict",)),
        phase_of=lambda k: 1,
        replaced=lambda f: (f.event, f.seat) if _substituted(f) else None,
    )
    for i, fault in enumerate(rec.faults):  # a faulty prediction counts as the substitute
        if _substituted(fault) and 0 <= fault.event < len(rec.events):
            probability = rec.probabilities[fault.event][fault.seat]
            if 0 <= fault.seat < len(rec.agents) and probability != SUBSTITUTE_PROBABILITY:
                problems.append(
                    f"fault {i} ({fault.kind} in {fault.call}, seat {fault.seat}): a faulty"
                    f" prediction counts as {SUBSTITUTE_PROBABILITY}, but {probability!r} is"
                    " recorded"
                )
    return problems


def _is_probability(p: object) -> bool:
    return isinstance(p, float | int) and 0 <= p <= 1


def _substituted(fault) -> bool:
    return fault.call == "predict" and fault.kind != OVER_TIME
