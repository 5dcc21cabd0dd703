"""The replay of a solo game: `replay_solo` re-derives a record from its seed and rule,
without the agent.
"""

from __future__ import annotations

from collections import Counter

from eleusis_lab.errors import ConfigError
from eleusis_lab.games.solo.engine import (
    CARD_FAULTS,
    DECK,
    FAULT_CALLS,
    FAULT_KINDS,
    LEGAL_FAULTS,
    SoloConfig,
    solo_deal,
)
from eleusis_lab.games.solo.record import (
    FOUND,
    GAME,
    NO_STARTER,
    OUT_OF_CARDS,
    TURN_CAP,
    Declaration,
    SoloRecord,
    Tentative,
    published_success,
)
from eleusis_lab.games.solo.scoring import solo_score
from eleusis_lab.record import (
    FaultRules,
    card_text,
    check_faults,
    right_or_wrong,
)
from eleusis_lab.rules import Context, parse


def replay_solo(record: SoloRecord) -> list[str]:  # noqa: C901 - one pass over the game
    """Check a solo record against the rules of the game, without the agent.

    Re-deals from the seed (hand, refused starters, starter, stock), replays every play
    (the card is in hand, its position and verdict, the card drawn), judges every
    tentative rule and declaration again (`SoloConfig.judge_in`), and re-derives the
    end, the turns, the score and the success. Faults are checked too: a substituted
    play is the first card of the hand.

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
        deal, refused, starter, stock = solo_deal(rec.seed, rule, config.hand_size)
    except ConfigError as error:
        return [*problems, f"seed {rec.seed!r} cannot be dealt: {error}"]
    if tuple(rec.deal) != deal:
        problems.append(f"the hand is not the one dealt by seed {rec.seed}")
    if (tuple(rec.refused), rec.starter) != (refused, starter):
        problems.append(
            f"the refused starters and the starter are not those drawn by seed {rec.seed}"
        )
        return problems
    problems += _check_faults(rec)
    substituted = {f.event for f in rec.faults if (f.call, f.kind) in CARD_FAULTS}

    hand, main, side = list(deal), [] if starter is None else [starter], []
    last: bool | None = None
    drawn, found = 0, None
    by_turn: dict[int, list[Declaration]] = {}
    for declaration in rec.declarations:
        by_turn.setdefault(declaration.turn, []).append(declaration)
    stated: dict[int, list[Tentative]] = {}
    for statement in rec.tentative:
        stated.setdefault(statement.turn, []).append(statement)
    if starter is None and rec.events:
        problems.append("plays are recorded, but no starter was drawn")
        return problems
    for k, e in enumerate(rec.events):
        turn = k + 1
        where = f"turn {turn} ({card_text(e.card)})"
        if found is not None:
            problems.append(f"{where}: the game goes on after the rule was found on turn {found}")
            break
        if turn > config.max_turns:
            problems.append(f"{where}: the game goes past its {config.max_turns} turns")
            break
        if (e.seat, e.phase) != (0, 1):
            problems.append(f"{where}: a solo play is seat 0, phase 1")
        if e.card not in hand:
            problems.append(f"{where}: the player does not hold that card")
            return problems
        if k in substituted and e.card != hand[0]:
            problems.append(
                f"{where}: after a fault the engine plays the first card of the hand,"
                f" {card_text(hand[0])}"
            )
        hand.remove(e.card)
        if e.position != len(main) - 1:
            problems.append(
                f"{where}: position {e.position}, but the main line ended at {len(main) - 1}"
            )
        right = rule.accepts(e.card, Context(tuple(main), last))
        if right != e.right:
            problems.append(
                f"{where}: recorded {right_or_wrong(e.right)}, but the rule says"
                f" {right_or_wrong(right)}"
            )
        (main if right else side).append(e.card)
        last = right
        if drawn < len(stock):
            hand.append(stock[drawn])
            drawn += 1
        context = Context(tuple(main), last)
        made, tentatives = by_turn.pop(turn, []), stated.pop(turn, [])
        if len(made) > 1 or len(tentatives) > 1:
            problems.append(f"{where}: more than one declaration or tentative rule in one turn")
        for statement in tentatives:
            judgement = config.judge_in(rule, statement.text, context)
            if statement.correct != judgement.correct:
                problems.append(
                    f"{where}: the tentative rule {statement.text!r} is recorded"
                    f" {_correct(statement.correct)}, but judging it gives"
                    f" {_correct(judgement.correct)} ({judgement.method}: {judgement.reason})"
                )
        for declaration in made:
            if rec.tentative and [t.text for t in tentatives] != [declaration.text]:
                problems.append(f"{where}: the declared rule is not the turn's tentative rule")
            judgement = config.judge_in(rule, declaration.text, context)
            recorded = (declaration.correct, declaration.method, declaration.reason)
            if recorded != (judgement.correct, judgement.method, judgement.reason):
                problems.append(
                    f"{where}: the declaration {declaration.text!r} is recorded"
                    f" {_correct(declaration.correct)} ({declaration.method}),"
                    f" but judging it gives {_correct(judgement.correct)}"
                    f" ({judgement.method}: {judgement.reason})"
                )
            if judgement.correct and found is None:
                found = turn
    for turn in sorted({*by_turn, *stated}):
        problems.append(f"a statement is recorded on turn {turn}, which was not played")

    turns = len(rec.events)
    if starter is None:
        end = NO_STARTER
    elif found is not None:
        end = FOUND
    elif turns >= config.max_turns:
        end = TURN_CAP
    elif not hand:
        end = OUT_OF_CARDS
    else:
        end = None
        problems.append("the record stops before the last turn with no correct declaration")
    if end is not None and rec.end != end:
        problems.append(f"end: recorded {rec.end!r}, the game gives {end!r}")
    wrong = sum(not d.correct for d in rec.declarations)
    score = solo_score(found, wrong, config.max_turns)
    expected = {
        "turns": turns,
        "found_turn": found,
        "wrong_declarations": wrong,
        "score": score,
        "floored_score": max(0, score),
        "found": found is not None,
        "success": published_success(found is not None, score),
    }
    for name, value in expected.items():
        if getattr(rec, name) != value:
            problems.append(
                f"{name.replace('_', ' ')}: recorded {getattr(rec, name)!r},"
                f" the game gives {value!r}"
            )
    final = {
        "main line": (rec.main_line, main),
        "side line": (rec.side_line, side),
        "hand": (rec.hand, hand),
        "stock": (rec.stock, stock[drawn:]),
    }
    for name, (recorded, derived) in final.items():
        if tuple(recorded) != tuple(derived):
            problems.append(f"the {name} at the end differs from the one the plays give")
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
