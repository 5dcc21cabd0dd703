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
from typing import Any, NamedTuple

from eleusis_lab.agent import Event
from eleusis_lab.cards import Card, standard_deck
from eleusis_lab.games.classic.engine import classic_deal
from eleusis_lab.games.classic.record import NO_PLAYABLE_CARD, PLAYER_OUT, GameRecord
from eleusis_lab.games.classic.scoring import classic_dealer_score, classic_player_scores
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
from eleusis_lab.rules import Context, Rule, RuleSyntaxError, parse

# -- replay -------------------------------------------------------------------------------


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
                f"{self.where(e)}: recorded {right_or_wrong(e.right)}, but the rule says"
                f" {right_or_wrong(right)}"
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


class PhaseOne(NamedTuple):
    """Where phase 1 left the game: each seat's wrong cards (for phase 2 to play), the
    same frozen as they were at its end, and the seat whose turn is next."""

    piles: list[list[Card]]
    wrong_after: tuple[tuple[Card, ...], ...]
    seat: int


def replay_phase1(rec: GameRecord, plays: PlayCheck, problems: list[str]) -> PhaseOne | None:
    """Classic and four-to-eight, phase 1: seats in turn, skipping empty hands, until
    every hand is played out (`PhaseOne`), or None where the order of the plays broke
    (``problems`` says how; what follows would only echo it)."""
    n, events = len(rec.deal), rec.events
    hands = [list(hand) for hand in rec.deal]
    piles: list[list[Card]] = [[] for _ in range(n)]
    seat = 0
    while any(hands):
        while not hands[seat]:
            seat = (seat + 1) % n
        if plays.k >= len(events):
            problems.append("the record ends in phase 1 while cards are still in hand")
            return None
        e = events[plays.k]
        if e.phase != 1 or e.seat != seat:
            problems.append(
                f"{plays.where(e)}: seat {seat} should play a card of his hand in phase 1"
            )
            return None
        if e.card not in hands[seat]:
            problems.append(f"{plays.where(e)}: seat {seat} does not hold that card in his hand")
            return None
        plays.faults_at(e, hands[seat])
        hands[seat].remove(e.card)
        if not plays.follow(e):
            piles[seat].append(e.card)
        seat = (seat + 1) % n
    wrong_after = tuple(map(tuple, piles))
    if wrong_after != tuple(map(tuple, rec.wrong_after_phase1)):
        problems.append("the wrong cards after phase 1 differ from the ones the plays give")
    return PhaseOne(piles, wrong_after, seat)


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
    return replay_main_line(
        rec,
        rule,
        (standard_deck(), "one 52-card deck", classic_deal),
        classic_dealer_score,
        classic_player_scores,
    )


def replay_main_line(  # noqa: C901 - one pass over the game
    rec: GameRecord,
    rule: Rule,
    deck: tuple[Sequence[Card], str, Callable[..., Any]],
    dealer_score: Callable[[Sequence[int]], int],
    player_scores: Callable[[Sequence[int]], list[float]],
) -> list[str]:
    """The replay of a game on one main line (classic Eleusis, the 4-8 player variant):
    the deal, the faults, phase 1, phase 2 and the scores, re-derived from the seed and
    the rule.

    ``deck`` is the deck, its description and the game's deal function (as
    `check_deal` takes them); ``dealer_score`` and ``player_scores`` the game's
    formulas. Phase 2 is one card per turn, or with the option ``retry_in_turn`` of the
    record's config, cards until one is right or all were tried.
    """
    problems: list[str] = []
    retry = bool(rec.config.get("retry_in_turn", False))
    max_turns = rec.config.get("max_turns", 1000)
    check_deal(rec, *deck, problems)
    problems += check_classic_faults(rec)
    plays = PlayCheck(rec, rule, problems)
    phase1 = replay_phase1(rec, plays, problems)
    if phase1 is None:
        return problems
    piles, wrong_after, seat = phase1
    events, n = rec.events, len(rec.deal)
    held = "does not hold that card" + (" (or tried it this turn)" if retry else "")

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
                problems.append(f"{plays.where(e)}: seat {seat} {held}")
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

    plays.check_end(rec, piles, wrong_after, turns, max_turns, dealer_score, player_scores)
    return problems


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
