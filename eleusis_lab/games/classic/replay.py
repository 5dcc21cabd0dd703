"""The replay of a classic game (and the pieces its four-to-eight variant shares):
`replay_classic` re-derives a `GameRecord` from its seed and rule, without the agents.

Examples
--------
>>> from eleusis_lab.agent import Agent
>>> from eleusis_lab.games.classic import play_classic
>>> class FirstCard(Agent):
...     def choose_play(self, obs):
...         return obs.hand[0]
>>> record = play_classic("black(card)", [FirstCard(), FirstCard()], seed=0)
>>> replay_classic(record)
[]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from itertools import chain
from typing import Any

from eleusis_lab.agent import Event
from eleusis_lab.cards import Card, standard_deck
from eleusis_lab.games.classic.engine import classic_deal
from eleusis_lab.games.classic.record import NO_PLAYABLE_CARD, PLAYER_OUT, GameRecord
from eleusis_lab.games.classic.state import CLASSIC, MainLineGame, MainLineState
from eleusis_lab.games.driver import END, RecordedSeats, drive
from eleusis_lab.record import (
    FAULT_CALLS,
    FAULT_KINDS,
    TURN_CAP,
    Fault,
    FaultRules,
    card_text,
    check_faults,
    right_or_wrong,
)
from eleusis_lab.rules import Rule, RuleSyntaxError, parse

# -- replay -------------------------------------------------------------------------------


class PlayCheck(RecordedSeats):
    """What a replay of classic or four-to-eight checks at each play: the record's events
    played on a `MainLineState` of the record's deal, whose verdicts (the rule's, not the
    recorded ones) move the game on, so that one bad verdict is one report. A play the
    state does not allow (a seat out of turn, a card it does not hold) stops the replay
    (``stopped``). Its ``problems`` are the replay's, appended to."""

    def __init__(self, rec: GameRecord, state: MainLineState, problems: list[str]):
        super().__init__(rec.events)
        self.state, self.problems = state, problems
        self.wrong_after_phase1 = rec.wrong_after_phase1
        self.decided: dict[int, list[Fault]] = {}  # choose_play faults, by their play
        for fault in rec.faults:
            if fault.call == "choose_play":
                self.decided.setdefault(fault.event, []).append(fault)
        self.stopped = False
        self.held = "does not hold that card" + (" (or tried it this turn)" if state.retry else "")

    def where(self, e: Event) -> str:
        return f"event {self.taken} (seat {e.seat} plays {card_text(e.card)} in phase {e.phase})"

    def decide(self, seat: int, state: MainLineState) -> Any:  # type: ignore[override]
        """The state's own card of the record's next event, once it is the seat's turn,
        the phase and a card the seat may play; else `END`, ``stopped``."""
        e = super().decide(seat, state)
        if e is END:
            return END
        phase = state.phase
        if e.phase != phase or e.seat != seat:
            what = "a card of his hand in phase 1" if phase == 1 else "a wrong card in phase 2"
            return self.stop(f"{self.where(e)}: seat {seat} should play {what}")
        if e.card not in state.allowed:
            what = "does not hold that card in his hand" if phase == 1 else self.held
            return self.stop(f"{self.where(e)}: seat {seat} {what}")
        self.faults_at(e, state.legal_actions())
        return state.allowed[e.card]

    def stop(self, problem: str) -> Any:
        """Note ``problem`` and end the replay's drive (`END`)."""
        self.problems.append(problem)
        self.stopped = True
        return END

    def faults_at(self, e: Event, offered: Sequence[Card]) -> None:
        """The engine plays the first card the agent could play in place of a faulty one."""
        for fault in self.decided.get(self.taken, ()):
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

    def compare(self, index: int, action: Card, events: tuple[Event, ...]) -> None:
        """The play's position and verdict against the record's event; the wrong cards
        when the play ended phase 1."""
        e, (played,) = self.actions[index], events
        if e.position != played.position:
            self.problems.append(
                f"{self.where(e)}: position {e.position}, but the main line ended at"
                f" {played.position}"
            )
        if played.right != e.right:
            self.problems.append(
                f"{self.where(e)}: recorded {right_or_wrong(e.right)}, but the rule says"
                f" {right_or_wrong(played.right)}"
            )
        state = self.state
        if state.phase != e.phase and state.wrong_after_phase1 != tuple(
            map(tuple, self.wrong_after_phase1)
        ):
            self.problems.append(
                "the wrong cards after phase 1 differ from the ones the plays give"
            )

    def check_end(self, rec: GameRecord) -> None:
        """Check how phase 2 ended, the main line, the cards left and the scores."""
        problems, state = self.problems, self.state
        end = state.end_condition()
        if end is None:
            problems.append(
                "the record stops while nobody is out, a right card is held and turns remain"
            )
        elif rec.phase2_end != end:
            problems.append(f"phase 2 end: recorded {rec.phase2_end!r}, the plays give {end!r}")
        if rec.turn_cap_hit != (end == TURN_CAP):
            problems.append(f"turn_cap_hit is {rec.turn_cap_hit}, but phase 2 ended with {end!r}")
        if rec.phase2_turns != state.turns:
            problems.append(
                f"phase 2 turns: recorded {rec.phase2_turns}, the plays give {state.turns}"
            )
        if tuple(rec.main_line) != state.main:
            problems.append("the main line differs from the one the plays give")
        cards_left = state.cards_left()
        if tuple(rec.cards_left) != cards_left:
            problems.append(
                f"cards left: recorded {list(rec.cards_left)}, the plays give {list(cards_left)}"
            )
        dealer = state.dealer_score()
        if rec.dealer_score != dealer:
            problems.append(
                f"dealer score: recorded {rec.dealer_score}, the wrong-card counts after phase 1"
                f" give {dealer}"
            )
        scores = list(state.scores())
        if list(rec.player_scores) != scores:
            problems.append(
                f"player scores: recorded {list(rec.player_scores)}, the cards left give {scores}"
            )


def check_deal(
    rec: GameRecord, deck: Sequence[Card], deck_words: str, deal: Callable, problems: list[str]
) -> None:
    """Classic and four-to-eight: the starter, hands and unused cards are ``deck``
    (``deck_words`` says which), and exactly what ``deal(seed, players, hand_size)``
    deals from the record's seed."""
    everything = [rec.starter, *chain.from_iterable(rec.deal), *rec.unused]
    if Counter(everything) != Counter(deck):
        problems.append(f"the starter, the hands and the unused cards are not {deck_words}")
    try:
        starter, hands, unused = deal(rec.seed, len(rec.deal), rec.config.get("hand_size"))
    except ValueError as error:
        problems.append(f"seed {rec.seed!r} cannot be dealt: {error}")
    else:
        if (starter, tuple(map(tuple, hands)), unused) != (
            rec.starter,
            tuple(map(tuple, rec.deal)),
            tuple(rec.unused),
        ):
            problems.append(f"the starter and the hands are not those dealt by seed {rec.seed}")


def replay_classic(rec: GameRecord) -> list[str]:
    """Check a classic record against the rules, without the agents: `replay_main_line`
    with one 52-card deck, classic's deal and its scores.

    >>> from eleusis_lab.games.classic import play_classic
    >>> from eleusis_lab.registry import parse_agent_list
    >>> record = play_classic("red(card)", parse_agent_list("random,random"), seed=0)
    >>> replay_classic(record), replay_classic(record.replace(player_scores=(0.0, 0.0)))
    ([], ['player scores: recorded [0.0, 0.0], the cards left give [0.0, 12.0]'])
    """
    try:
        rule = parse(rec.rule)
    except RuleSyntaxError as error:
        return [f"the rule does not parse: {error.message} ({rec.rule!r})"]
    n = len(rec.deal)
    if n < 2 or len(rec.agents) != n:
        return [f"{n} hands dealt for {len(rec.agents)} agents; classic needs 2 or more"]
    return replay_main_line(rec, rule, (standard_deck(), "one 52-card deck", classic_deal), CLASSIC)


def replay_main_line(
    rec: GameRecord,
    rule: Rule,
    deck: tuple[Sequence[Card], str, Callable[..., Any]],
    variant: MainLineGame,
) -> list[str]:
    """The replay of a game on one main line (classic Eleusis, the 4-8 player variant):
    the deal, the faults, then the record's events played on a `MainLineState` of its
    deal and rule, which gives the turn order, the cards each seat may play, the verdicts,
    how phase 2 ends and the scores (``variant``'s).

    ``deck`` is the deck, its description and the game's deal function (as
    `check_deal` takes them). Phase 2 is one card per turn, or with the option
    ``retry_in_turn`` of the record's config, cards until one is right or all were tried.
    """
    problems: list[str] = []
    check_deal(rec, *deck, problems)
    problems += check_classic_faults(rec)
    state = MainLineState(
        variant,
        rule,
        rec.starter,
        rec.deal,
        rec.unused,
        retry_in_turn=bool(rec.config.get("retry_in_turn", False)),
        max_turns=rec.config.get("max_turns", 1000),
    )
    plays = PlayCheck(rec, state, problems)
    drive(state, plays)
    if plays.stopped:
        return problems
    if plays.taken < len(rec.events):
        problems.append(f"event {plays.taken}: {_went_on(state)}")
    if state.phase == 1:
        problems.append("the record ends in phase 1 while cards are still in hand")
        return problems
    if state.mid_turn:
        problems.append("the record ends in the middle of a phase-2 turn")
    plays.check_end(rec)
    return problems


def _went_on(state: MainLineState) -> str:
    """What is wrong with a play after phase 2 ended."""
    if state.end == PLAYER_OUT:
        return "phase 2 goes on after a player went out"
    if state.end == NO_PLAYABLE_CARD:
        return "phase 2 goes on although no player holds a right card"
    return f"phase 2 goes past the turn cap ({state.max_turns} turns)"


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
