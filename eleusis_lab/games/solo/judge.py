"""Judging a declared rule in the solo game (RULES.md section 6).

Two readings of "the declared rule is the secret rule":

- ``"continuations"`` (the published benchmark's judge, the default): the declared rule
  gives the secret rule's verdict on all 52 faces in the current context and in every
  context that up to ``plays - 1`` more cards the secret rule accepts make of it (40
  plays). The benchmark samples 100 such continuations; this module computes them all
  exactly (`eleusis_lab.rules.analysis.equivalent` with ``after``), and samples as the
  benchmark does only when the rules tell apart too many states to enumerate. A rule
  that differs only on the empty line, which no later play reaches, is found.
- ``"reachable"`` (stricter): the same verdicts in every state a game of ``max_turns``
  turns can reach from an empty main line, starters included.

Text that does not parse or type-check is a wrong declaration, its error recorded.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

import numpy as np

from eleusis_lab.cards import Card, face_card, two_decks
from eleusis_lab.engines import shorten
from eleusis_lab.games.solo.record import EXACT, INVALID, SIMULATION
from eleusis_lab.record import right_or_wrong
from eleusis_lab.rules import Context, Rule, parse
from eleusis_lab.rules.analysis import Equivalence, equivalent
from eleusis_lab.rules.reach import (
    TooManyContexts,
    context_state,
    describe_state,
    tracked_slots,
)

__all__ = [
    "CONTINUATIONS",
    "JUDGES",
    "REACHABLE",
    "Judgement",
    "judge_declaration",
    "simulate_continuations",
    "simulate_equivalence",
]

CONTINUATIONS = "continuations"
REACHABLE = "reachable"
JUDGES = (CONTINUATIONS, REACHABLE)
#: Plays of a continuation in the published judge.
JUDGE_PLAYS = 40
MAX_TURNS = 30
_DECK = tuple(two_decks())


@dataclass(frozen=True)
class Judgement:
    """The verdict on a declared rule: correct or not, how it was judged, and why.

    ``method`` is ``"exact"`` (state analysis), ``"simulation"`` (random
    continuations or games, when exact analysis is impossible) or ``"invalid"`` (the
    text does not parse or type-check: always wrong). ``reason`` says where the rules
    differ, or the error of the text.
    """

    correct: bool
    method: str
    reason: str


def judge_declaration(
    rule: Rule | str,
    text: str,
    context: Context | None = None,
    judge: str = CONTINUATIONS,
    plays: int = JUDGE_PLAYS,
    max_turns: int = MAX_TURNS,
    simulation_games: int = 100,
    simulation_seed: int = 0,
) -> Judgement:
    """Judge a declared rule against the secret rule of a solo game.

    Parameters
    ----------
    rule : Rule or str
        The secret rule.
    text : str
        The declared rule's text; text that does not parse is wrong (never raises).
    context : Context, optional
        The state the declaration is judged in: the main line after the turn's card
        and that card's verdict. Needed by the ``"continuations"`` judge; the empty
        main line when omitted.
    judge : {"continuations", "reachable"}
        The reading (module docstring).
    plays : int
        Plays of a continuation (``"continuations"``).
    max_turns : int
        The game's turns: the longest main line a play is judged on (``"reachable"``).
    simulation_games, simulation_seed : int
        The sampled continuations (or games) when exact analysis is impossible.

    Examples
    --------
    >>> from eleusis_lab.cards import parse_cards
    >>> after = Context(tuple(parse_cards("3H 7D")), True)
    >>> judge_declaration("odd(rank(card) + rank(last))",
    ...                   "if odd(last) then even(card) else odd(card)", after)
    Judgement(correct=True, method='exact', reason='the same verdict on every card in every \
continuation of the main line')
    >>> secret = "if empty then rank(card) == 7 else red(card)"
    >>> judge_declaration(secret, "red(card)", after).correct  # the start is past
    True
    >>> judge_declaration(secret, "red(card)", judge="reachable").correct
    False
    >>> print(judge_declaration("suit(card) == suit(last)", "red(card) == red(last)", after).reason)
    after 7D, AH is wrong under the secret rule and right under the declared one
    >>> judgement = judge_declaration("red(card)", "red(crad)", after)
    >>> judgement.correct, judgement.method
    (False, 'invalid')
    """
    if isinstance(rule, str):
        rule = parse(rule)
    if not isinstance(text, str):
        raise TypeError(f"a declaration is rule text, got {type(text).__name__}")
    if judge not in JUDGES:
        raise ValueError(f"judge must be one of {', '.join(JUDGES)}, got {judge!r}")
    declared = _parse(text)
    if isinstance(declared, Judgement):
        return declared
    if judge == REACHABLE:
        return _judge_reachable(rule, declared, max_turns, simulation_games, simulation_seed)
    context = Context() if context is None else context
    # The judgement depends on the context only through the slots the rules read
    # (lengths past 1 are all alike to rules that do not read it): cache on those.
    slots = tracked_slots(sorted({*rule.slots, *declared.slots}))
    state = context_state(slots, context, "length" in rule.slots + declared.slots)
    key = (rule, declared, slots, state, plays, simulation_games, simulation_seed)
    if key not in _CONTINUATIONS_CACHE:
        if len(_CONTINUATIONS_CACHE) >= _CACHE_SIZE:
            _CONTINUATIONS_CACHE.clear()
        _CONTINUATIONS_CACHE[key] = _judge_continuations(
            rule, declared, context, plays, simulation_games, simulation_seed
        )
    return _CONTINUATIONS_CACHE[key]


_CACHE_SIZE = 8192
_CONTINUATIONS_CACHE: dict[tuple, Judgement] = {}


@functools.lru_cache(maxsize=512)
def _parse(text: str) -> Rule | Judgement:
    try:
        return parse(text)
    except Exception as error:  # RuleSyntaxError; also anything odd text may provoke
        one_line = getattr(error, "one_line", None)
        reason = one_line() if callable(one_line) else f"{type(error).__name__}: {error}"
        return Judgement(False, INVALID, shorten(reason))


def _judge_continuations(rule, declared, context, plays, games, seed) -> Judgement:
    try:
        found = equivalent(rule, declared, after=context, plays=plays)
        method = EXACT
        same = "the same verdict on every card in every continuation of the main line"
    except TooManyContexts:
        found = simulate_continuations(rule, declared, context, plays, games, seed)
        method = SIMULATION
        same = f"no difference in {games} random continuations of {plays} plays"
    return Judgement(bool(found), method, same if found else _difference(found))


@functools.lru_cache(maxsize=4096)
def _judge_reachable(rule, declared, max_turns, games, seed) -> Judgement:
    try:
        found = equivalent(rule, declared, max_length=max_turns)
        method, same = EXACT, "the same verdict on every card in every reachable state"
    except TooManyContexts:
        found = simulate_equivalence(rule, declared, max_turns, games, seed)
        method = SIMULATION
        same = f"no difference in {games} random games of {max_turns} plays"
    return Judgement(bool(found), method, same if found else _difference(found))


def _difference(found: Equivalence) -> str:
    said = right_or_wrong(found.first_accepts)
    return (
        f"{found.context}, {found.card} is {said} under the secret rule and"
        f" {right_or_wrong(not found.first_accepts)} under the declared one"
    )


def simulate_continuations(
    first: Rule,
    second: Rule,
    context: Context,
    plays: int = JUDGE_PLAYS,
    games: int = 100,
    seed: int = 0,
) -> Equivalence:
    """Compare two rules as the published benchmark's judge does: over random
    continuations of ``context``.

    Each of ``games`` continuations compares the rules on all 52 faces in ``context``,
    then extends the main line with a face ``first`` accepts, drawn uniformly, and
    compares again, ``plays`` comparisons in all (fewer if no face is right). This
    samples what `eleusis_lab.rules.analysis.equivalent` with ``after`` computes
    exactly; it is its fallback when the rules tell apart too many states.

    Examples
    --------
    >>> from eleusis_lab.cards import parse_cards
    >>> after = Context(tuple(parse_cards("3H")), True)
    >>> bool(simulate_continuations(parse("red(card)"), parse("not black(card)"), after))
    True
    >>> print(simulate_continuations(parse("red(card)"), parse("if length > 5 then \
suit(card) == hearts else red(card)"), after))
    not equivalent: after ... (main line of 6 cards), AD is right under the first rule and wrong \
under the second
    """
    slots = tracked_slots(sorted({*first.slots, *second.slots}))
    exact_length = "length" in first.slots + second.slots
    rng = np.random.default_rng(seed)
    for _ in range(games):
        line, verdict = context.main_line, context.last_play_right
        for _ in range(plays):
            here = Context(line, verdict)
            found = _first_difference(first, second, here)
            if found is not None:  # described by what the rules read, as the exact judge
                state = context_state(slots, here, exact_length)
                return replace(found, context=describe_state(slots, state, exact_length))
            right = np.flatnonzero(first.legal_faces(here))
            if not len(right):
                break
            line, verdict = (*line, face_card(int(rng.choice(right)))), True
    return Equivalence(True)


def simulate_equivalence(
    first: Rule, second: Rule, plays: int = MAX_TURNS, games: int = 1000, seed: int = 0
) -> Equivalence:
    """Compare two rules over random games from an empty main line (the ``"reachable"``
    judge's fallback).

    Each game shuffles two decks, draws starters until ``first`` accepts one on an
    empty main line, then plays ``plays`` random cards (judged by ``first``). At every
    step, the empty line included, the two rules must give the same verdict on all 52
    faces. Random plays reach common states only: prefer `equivalent`, which is exact.

    Examples
    --------
    >>> bool(simulate_equivalence(parse("red(card)"), parse("not black(card)"), games=20))
    True
    >>> print(simulate_equivalence(parse("red(card)"), parse("suit(card) == hearts")))
    not equivalent: on an empty main line, AD is right under the first rule and wrong under \
the second
    """
    rng = np.random.default_rng(seed)
    empty = Context()
    for _ in range(games):
        deck = [_DECK[i] for i in rng.permutation(len(_DECK)).tolist()]
        context = empty
        found = _first_difference(first, second, context)
        if found is not None:
            return found
        first_mask = first.legal_mask(context)
        start = next((i for i, c in enumerate(deck) if (first_mask >> c.face) & 1), None)
        if start is None:
            continue
        main: tuple[Card, ...] = (deck[start],)
        last: bool | None = None
        for card in deck[start + 1 : start + 1 + plays]:
            context = Context(main, last)
            found = _first_difference(first, second, context)
            if found is not None:
                return found
            last = bool((first.legal_mask(context) >> card.face) & 1)
            if last:
                main += (card,)
    return Equivalence(True)


def _first_difference(first: Rule, second: Rule, context: Context) -> Equivalence | None:
    a, b = first.legal_mask(context), second.legal_mask(context)
    if a == b:
        return None
    face = ((a ^ b) & -(a ^ b)).bit_length() - 1  # the lowest face they disagree on
    return Equivalence(False, context.describe(), face_card(face), bool((a >> face) & 1))
