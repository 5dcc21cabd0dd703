"""The solo benchmark protocol (RULES.md section 6): one player finds the rule alone.

`play_solo` takes a rule, one agent, a seed and a `SoloConfig`, and returns a
`SoloRecord`:

1. **Deal.** Two decks shuffled together (104 cards); the player gets the first 12.
2. **Starter.** Cards are drawn from the stock until one is right on an empty main line
   (``Context()``): it becomes the starter, so a rule may constrain the first card.
   *Decision*: the cards drawn and refused go to a discard pile, face down: they are out
   of the game, the player is not shown them (the agent interface only announces the
   starter) and they are recorded in `SoloRecord.refused`. Should the stock run out
   before a card is accepted, the game ends at once (`NO_STARTER`, score 0).
3. **Turns** (at most ``max_turns``, 30). The published move (``timing=
   "before_verdict"``, the default): the agent makes one move (``Agent.solo_move``): a
   card of its hand, its tentative rule with a confidence, and whether it declares
   that rule, all before the card's verdict. The card is judged (right: main line;
   wrong: side line), the player draws one card to keep 12 while the stock lasts
   (*decision*: with an empty stock the hand shrinks, and a player with no card left
   ends the game, `OUT_OF_CARDS`), is told the play (``Agent.observe``), and only then
   are the tentative rule and the declaration judged. With ``timing="after_verdict"``
   (an easier reading, about 0.8 points higher) the agent plays a card
   (``Agent.choose_play``), is told its verdict, then states and declares
   (``Agent.declare_rule``, ``Agent.propose_rule``).
4. **Declarations** (and tentative rules, at no cost) are judged by
   `eleusis_lab.games.solo_judge.judge_declaration`: by default over every continuation
   of the main line after the turn's card (the published judge, computed exactly);
   ``judge="reachable"`` judges over every state reachable from an empty line instead.
5. **End**: at the first correct declaration (`FOUND`) or after the last turn
   (`TURN_CAP`). Score by `solo_score`; the published success is found with a score
   of at least 2; the no-stakes score and the boldness index are properties of the
   record (`SoloRecord.no_stakes_score`, `SoloRecord.boldness`).

The record (`SoloRecord`), its JSON form and its layout (`format_solo_layout`) are in
`eleusis_lab.games.solo_record`; this module re-exports them.

Randomness: the seed feeds one ``numpy.random.SeedSequence``; the deck is shuffled by a
generator on it and the agent gets its own spawned generator, as in classic Eleusis.

Faults (an agent that raises, plays a card it does not hold, or states something that
is not rule text and a confidence in [0, 1]) are recorded as `eleusis_lab.record.Fault`
and the game goes on, imitating `eleusis_lab.games.classic.ClassicConfig`: a faulty
move or play is replaced by the first card of the hand, a faulty statement counts as
none (not as a wrong declaration), a failed ``start_game`` or ``observe`` is only
recorded. ``on_fault="raise"`` stops the game instead.

Examples
--------
>>> from eleusis_agents.simple import OracleAgent, RandomAgent
>>> record = play_solo("red(card)", OracleAgent(), seed=3)
>>> record.starter.is_red, record.found_turn, record.score, record.success
(True, 1, 30, True)
>>> record.tentative[0]
Tentative(turn=1, text='red(card)', confidence=1.0, correct=True)
>>> record = play_solo("red(card)", RandomAgent(), seed=3)
>>> record.end, record.turns, record.score
('turn_cap', 30, 0)
>>> replay_solo(record)
[]
"""

from __future__ import annotations

import math
import numbers
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from eleusis_lab.agent import Agent, Event, GameInfo, Observation, SoloMove, solo_statement
from eleusis_lab.cards import Card, format_cards, two_decks
from eleusis_lab.errors import AgentError, ConfigError
from eleusis_lab.games._faults import check_seed, exception_text, is_int, shorten, text
from eleusis_lab.games.solo_judge import (
    JUDGE_PLAYS,
    JUDGES,
    Judgement,
    judge_declaration,
    simulate_continuations,
    simulate_equivalence,
)
from eleusis_lab.games.solo_record import (
    END_REASONS,
    EXACT,
    FOUND,
    GAME,
    INVALID,
    NO_STARTER,
    OUT_OF_CARDS,
    SIMULATION,
    TURN_CAP,
    Declaration,
    SoloRecord,
    Tentative,
    format_solo_layout,
    published_success,
)
from eleusis_lab.games.table import GameType, Outcome
from eleusis_lab.record import (
    ILLEGAL_CARD,
    RAISED,
    Fault,
    FaultRules,
    card_text,
    check_faults,
    describe_agent,
)
from eleusis_lab.rules import Context, Rule, parse

__all__ = [
    "END_REASONS",
    "EXACT",
    "FOUND",
    "GAME",
    "GAME_TYPE",
    "ILLEGAL_DECLARATION",
    "INVALID",
    "NO_STARTER",
    "OUT_OF_CARDS",
    "SIMULATION",
    "TIMINGS",
    "TURN_CAP",
    "WRONG_PENALTY",
    "Declaration",
    "Judgement",
    "SoloConfig",
    "SoloRecord",
    "Tentative",
    "format_solo_layout",
    "judge_declaration",
    "play_solo",
    "replay_solo",
    "simulate_continuations",
    "simulate_equivalence",
    "solo_deal",
    "solo_outcome",
    "solo_score",
]

HAND_SIZE = 12
MAX_TURNS = 30
#: Points a wrong declaration costs.
WRONG_PENALTY = 2
_DECK = tuple(two_decks())

#: A fault of a statement: a rule that is not text, or a confidence not in [0, 1].
ILLEGAL_DECLARATION = "illegal_declaration"
_FAULT_KINDS = (RAISED, ILLEGAL_CARD, ILLEGAL_DECLARATION)
_FAULT_CALLS = ("start_game", "solo_move", "choose_play", "observe", "declare_rule")
#: The faults that put the first card of the hand in place of the agent's.
_CARD_FAULTS = {
    (call, kind) for call in ("solo_move", "choose_play") for kind in (RAISED, ILLEGAL_CARD)
}
_LEGAL_FAULTS = {
    ("solo_move", ILLEGAL_CARD),
    ("solo_move", ILLEGAL_DECLARATION),
    ("choose_play", ILLEGAL_CARD),
    ("declare_rule", ILLEGAL_DECLARATION),
}
ON_FAULT = ("substitute", "raise")
#: When the agent states and declares: in the move, before the verdict (published), or
#: after it.
BEFORE_VERDICT, AFTER_VERDICT = "before_verdict", "after_verdict"
TIMINGS = (BEFORE_VERDICT, AFTER_VERDICT)


# -- score --------------------------------------------------------------------------------


def solo_score(found_turn: int | None, wrong_declarations: int, max_turns: int = MAX_TURNS) -> int:
    """The benchmark's score of a solo game (RULES.md section 6).

    Found on turn ``k`` (1-based): ``max_turns - (k - 1) - 2 * wrong``; not found:
    ``-2 * wrong``. The published tables also report ``max(0, score)`` (the floored
    score) and whether the rule was found (success).

    Parameters
    ----------
    found_turn : int or None
        The turn of the correct declaration, ``None`` if the rule was not found.
    wrong_declarations : int
        Wrong declarations made (those that did not parse included).
    max_turns : int
        The game's number of turns, 30 in the benchmark.

    Examples
    --------
    >>> solo_score(1, 0), solo_score(12, 1), solo_score(30, 0), solo_score(None, 3)
    (30, 17, 1, -6)
    >>> max(0, solo_score(20, 6))  # the floored score
    0
    """
    if not (is_int(max_turns) and max_turns >= 1):
        raise ValueError(f"max_turns must be a whole number >= 1, got {max_turns!r}")
    if not (is_int(wrong_declarations) and wrong_declarations >= 0):
        raise ValueError(f"wrong_declarations must be >= 0, got {wrong_declarations!r}")
    penalty = WRONG_PENALTY * int(wrong_declarations)
    if found_turn is None:
        return -penalty
    if not (is_int(found_turn) and 1 <= found_turn <= max_turns):
        raise ValueError(f"found_turn must be None or in 1..{max_turns}, got {found_turn!r}")
    return int(max_turns - (found_turn - 1) - penalty)


# -- configuration ------------------------------------------------------------------------


@dataclass(frozen=True)
class SoloConfig:
    """Options of the solo game; the defaults are the published benchmark's.

    Parameters
    ----------
    hand_size : int
        Cards in hand, kept by drawing after each play while the stock lasts.
    max_turns : int
        Turns played at most; also the longest main line on which a play is judged
        (the states of the ``"reachable"`` judge).
    timing : {"before_verdict", "after_verdict"}
        When the agent states its rule and declares: in its move, before the card's
        verdict (published), or after hearing it (an easier game, about 0.8 points).
    judge : {"continuations", "reachable"}
        Over which states a declaration must agree with the secret rule: every
        continuation of the current main line (published), or every state reachable
        from an empty line (stricter: the empty line and the starter count too).
    judge_plays : int
        Plays of a continuation the ``"continuations"`` judge compares (40).
    on_fault : {"substitute", "raise"}
        ``"substitute"`` records an agent's fault and goes on (see the module
        docstring); ``"raise"`` stops the game, for debugging an agent.
    simulation_games : int
        Random continuations (or games) the judge samples, only when exact analysis
        is impossible (100, as published).
    simulation_seed : int
        Seed of that sampling; the same for every game, so a declaration gets the same
        judgement wherever it is made.

    Examples
    --------
    >>> SoloConfig().to_dict()  # doctest: +NORMALIZE_WHITESPACE
    {'hand_size': 12, 'max_turns': 30, 'timing': 'before_verdict', 'judge': 'continuations',
     'judge_plays': 40, 'on_fault': 'substitute', 'simulation_games': 100,
     'simulation_seed': 0}
    """

    hand_size: int = HAND_SIZE
    max_turns: int = MAX_TURNS
    timing: str = BEFORE_VERDICT
    judge: str = JUDGES[0]
    judge_plays: int = JUDGE_PLAYS
    on_fault: str = "substitute"
    simulation_games: int = 100
    simulation_seed: int = 0

    def __post_init__(self) -> None:
        for name, least in (
            ("hand_size", 1),
            ("max_turns", 1),
            ("judge_plays", 1),
            ("simulation_games", 1),
            ("simulation_seed", 0),
        ):
            value = getattr(self, name)
            if not (is_int(value) and value >= least):
                raise ConfigError(f"{name} must be a whole number >= {least}, got {value!r}")
        if self.hand_size > len(_DECK) - 1:
            raise ConfigError(f"hand_size must leave a starter in the stock, got {self.hand_size}")
        for name, allowed in (("timing", TIMINGS), ("judge", JUDGES), ("on_fault", ON_FAULT)):
            if getattr(self, name) not in allowed:
                choices = " or ".join(repr(a) for a in allowed)
                raise ConfigError(f"{name} must be {choices}, got {getattr(self, name)!r}")

    def to_dict(self) -> dict[str, Any]:
        """The options as a plain dict (as stored in a `SoloRecord`)."""
        return asdict(self)

    def judge_in(self, rule: Rule, text: str, context: Context) -> Judgement:
        """Judge the declared ``text`` against ``rule`` in ``context`` under these options."""
        return judge_declaration(
            rule,
            text,
            context,
            self.judge,
            self.judge_plays,
            self.max_turns,
            self.simulation_games,
            self.simulation_seed,
        )


# -- the deal -----------------------------------------------------------------------------


def _deal(
    rng: np.random.Generator, rule: Rule, hand_size: int
) -> tuple[tuple[Card, ...], tuple[Card, ...], Card | None, tuple[Card, ...]]:
    deck = [_DECK[i] for i in rng.permutation(len(_DECK)).tolist()]
    hand, stock = tuple(deck[:hand_size]), deck[hand_size:]
    mask = rule.legal_mask(Context())
    start = next((i for i, card in enumerate(stock) if (mask >> card.face) & 1), None)
    if start is None:
        return hand, tuple(stock), None, ()
    return hand, tuple(stock[:start]), stock[start], tuple(stock[start + 1 :])


def solo_deal(
    seed: int, rule: Rule | str, hand_size: int = HAND_SIZE
) -> tuple[tuple[Card, ...], tuple[Card, ...], Card | None, tuple[Card, ...]]:
    """The hand, the refused starters, the starter and the stock `play_solo` deals.

    The starter is ``None`` when the stock runs out before the rule accepts a card.

    Examples
    --------
    >>> hand, refused, starter, stock = solo_deal(0, "black(card)")
    >>> len(hand), refused, starter, len(stock)
    (12, (Card('2H'), Card('JH')), Card('QC'), 89)
    """
    rule = parse(rule) if isinstance(rule, str) else rule
    rng = np.random.default_rng(np.random.SeedSequence(check_seed(seed)))
    return _deal(rng, rule, hand_size)


# -- the game -----------------------------------------------------------------------------


def play_solo(
    rule: Rule | str,
    agent: Agent,
    seed: int,
    config: SoloConfig | None = None,
    on_turn: Callable[[int, Event, Declaration | None], None] | None = None,
) -> SoloRecord:
    """Play one solo game (RULES.md section 6) and return its record.

    Each turn the engine asks ``agent.solo_move(obs)`` (``timing="before_verdict"``)
    or ``agent.choose_play(obs)`` then, after the verdict, ``agent.declare_rule`` and
    ``agent.propose_rule`` (``"after_verdict"``); judges the card, refills the hand,
    tells ``agent.observe(event)``, and judges the tentative rule and the declaration
    in the state after the card (`SoloConfig.judge_in`); a correct declaration ends the
    game.

    Parameters
    ----------
    rule : Rule or str
        The secret rule (text is parsed with `eleusis_lab.rules.parse`).
    agent : Agent
        The player. Agents that set ``sees_rule`` are told the rule in ``GameInfo``.
    seed : int
        Seeds the shuffle and the agent's generator; same seed, same game.
    config : SoloConfig, optional
        Options of the game; the benchmark's defaults when omitted.
    on_turn : callable, optional
        Called as ``on_turn(turn, event, declaration)`` at the end of every turn, the
        last one included (``declaration`` is None when the agent did not declare);
        `eleusis_lab.games.solo_beliefs` asks the agent what it believes there.

    Returns
    -------
    SoloRecord

    Raises
    ------
    AgentError
        Only with ``config.on_fault="raise"``: a card the agent does not hold, or a
        statement that is not rule text with a confidence. (The agent's own
        exceptions go up unchanged.)
    ConfigError
        For something that is not an agent, or a bad seed.

    Examples
    --------
    >>> from eleusis_lab.agent import Agent
    >>> class Stubborn(Agent):
    ...     def choose_play(self, obs):
    ...         return obs.hand[0]
    ...     def declare_rule(self, obs):
    ...         return "black(card)" if len(obs.main_line) + len(obs.wrong_cards[0]) < 3 \
else "red(card)"
    >>> record = play_solo("red(card)", Stubborn(), seed=0)
    >>> [(d.turn, d.correct) for d in record.declarations]
    [(1, False), (2, False), (3, True)]
    >>> record.score, record.floored_score, record.success
    (24, 24, True)
    """
    if isinstance(rule, str):
        rule = parse(rule)
    config = SoloConfig() if config is None else config
    if not isinstance(agent, Agent):
        raise ConfigError(f"{agent!r} is not an Agent (eleusis_lab.agent.Agent)")
    seed = check_seed(seed)
    stop = config.on_fault == "raise"
    before = config.timing == BEFORE_VERDICT

    sequence = np.random.SeedSequence(seed)
    deal, refused, starter, stock = _deal(np.random.default_rng(sequence), rule, config.hand_size)
    agent_rng = np.random.default_rng(sequence.spawn(1)[0])
    name = type(agent).__name__
    faults: list[Fault] = []
    events: list[Event] = []
    declarations: list[Declaration] = []
    tentative: list[Tentative] = []
    hand, main, side = list(deal), [], []
    drawn = 0  # cards drawn from the stock after the starter
    last_right: bool | None = None
    found: int | None = None
    turns = 0

    def fault(kind: str, message: str, event: int, phase: int, call: str) -> None:
        if stop and kind != RAISED:
            raise AgentError(f"{agent!r} {message}")
        faults.append(Fault(0, name, kind, message, event, phase, call))

    def observation() -> Observation:
        return Observation(GAME, 0, 1, tuple(hand), tuple(main), (tuple(side),), last_right)

    def ask(call: str, index: int, method: Callable[[], Any]) -> Any:
        try:
            return method()
        except Exception as error:
            if stop:
                raise
            fault(RAISED, exception_text(error), index, 1, call)
            return None

    if starter is None:
        end = NO_STARTER
    else:
        main.append(starter)
        info = GameInfo(GAME, 0, 1, deal, starter, rule if agent.sees_rule is True else None)
        try:
            agent.start_game(info, agent_rng)
        except Exception as error:
            if stop:
                raise
            fault(RAISED, exception_text(error), 0, 0, "start_game")
        end = TURN_CAP
        for turn in range(1, config.max_turns + 1):
            if not hand:
                end = OUT_OF_CARDS
                break
            index, faulted = len(events), len(faults)
            obs = observation()
            if before:
                move = ask("solo_move", index, lambda obs=obs: agent.solo_move(obs))
                if move is not None and not isinstance(move, SoloMove):
                    what = f"{shorten(text(repr, move))} (a {type(move).__name__})"
                    fault(ILLEGAL_CARD, f"returned {what}, not a SoloMove", index, 1, "solo_move")
                    move = None
                call, card = "solo_move", None if move is None else move.card
                statement = None if move is None else (move.rule, move.confidence, move.declare)
            else:
                call = "choose_play"
                card = ask(call, index, lambda obs=obs: agent.choose_play(obs))
            if not (isinstance(card, Card) and card in hand):
                if card is not None or len(faults) == faulted:  # not yet a fault this turn
                    fault(ILLEGAL_CARD, _not_held(card, obs.hand), index, 1, call)
                card = hand[0]
            hand.remove(card)
            right = bool((rule.legal_mask(Context(tuple(main), last_right)) >> card.face) & 1)
            event = Event(0, card, 1, right, len(main) - 1)
            (main if right else side).append(card)
            last_right = right
            if drawn < len(stock):
                hand.append(stock[drawn])
                drawn += 1
            events.append(event)
            turns = turn
            ask("observe", index, lambda event=event: agent.observe(event))
            if not before:
                call = "declare_rule"
                statement = ask(call, index, lambda: solo_statement(agent, observation()))
            if statement is not None and (problem := _statement_problem(*statement)):
                fault(ILLEGAL_DECLARATION, problem, index, 1, call)
                statement = None
            declaration = None
            if statement is not None and statement[0] is not None:
                stated, confidence, declare = statement
                confidence = None if confidence is None else float(confidence)
                judged = config.judge_in(rule, stated, Context(tuple(main), last_right))
                tentative.append(Tentative(turn, stated, confidence, judged.correct))
                if declare:
                    declaration = Declaration(
                        turn, stated, judged.correct, judged.method, judged.reason, confidence
                    )
                    declarations.append(declaration)
            if on_turn is not None:
                on_turn(turn, event, declaration)
            if declaration is not None and declaration.correct:
                found, end = turn, FOUND
                break

    wrong = sum(not d.correct for d in declarations)
    score = solo_score(found, wrong, config.max_turns)
    return SoloRecord(
        game=GAME,
        rule=rule.text,
        rule_name=rule.name,
        seed=seed,
        config=config.to_dict(),
        agent=describe_agent(agent),
        deal=deal,
        refused=refused,
        starter=starter,
        events=tuple(events),
        declarations=tuple(declarations),
        main_line=tuple(main),
        side_line=tuple(side),
        hand=tuple(hand),
        stock=stock[drawn:],
        end=end,
        turns=turns,
        found_turn=found,
        wrong_declarations=wrong,
        score=score,
        floored_score=max(0, score),
        found=found is not None,
        success=published_success(found is not None, score),
        faults=tuple(faults),
        tentative=tuple(tentative),
    )


def _statement_problem(rule: object, confidence: object, declare: object) -> str | None:
    """What is wrong with a stated (rule, confidence, declare), or None."""
    if rule is not None and not isinstance(rule, str):
        what = f"{shorten(text(repr, rule))} (a {type(rule).__name__})"
        return f"stated {what}, not rule text or None"
    if confidence is not None and not (
        isinstance(confidence, numbers.Real)
        and not isinstance(confidence, bool)
        and math.isfinite(confidence)
        and 0 <= confidence <= 1
    ):
        return f"stated a confidence of {shorten(text(repr, confidence))}, not a number in [0, 1]"
    if not isinstance(declare, bool | np.bool_):
        return f"declare is {shorten(text(repr, declare))}, not True or False"
    if declare and rule is None:
        return "declared without stating a rule"
    return None


def _verdict(right: bool) -> str:
    return "right" if right else "wrong"


def _correct(correct: bool) -> str:
    return "correct" if correct else "wrong"


def _not_held(card: object, hand: tuple[Card, ...]) -> str:
    what = repr(card) if isinstance(card, Card) else f"{text(repr, card)} (a {type(card).__name__})"
    return (
        f"played {shorten(what)}, which is not among the cards it may play"
        f" now: {format_cards(hand) or 'none'}"
    )


# -- replay -------------------------------------------------------------------------------


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
    if Counter(at_end) != Counter(_DECK):
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
    substituted = {f.event for f in rec.faults if (f.call, f.kind) in _CARD_FAULTS}

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
                f"{where}: recorded {_verdict(e.right)}, but the rule says {_verdict(right)}"
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
        FaultRules(_FAULT_KINDS, _FAULT_CALLS, pairs=_LEGAL_FAULTS),
        phase_of=lambda k: 1,
        replaced=lambda f: f.event if (f.call, f.kind) in _CARD_FAULTS else None,
    )


# -- the declaration -------------------------------------------------------------------------


def solo_outcome(record: SoloRecord) -> Outcome:
    """The `Outcome` of a solo game: one seat, no dealer.

    The score is the benchmark's `solo_score` (the floored score is ``max(0, score)``);
    ``wrong_cards`` the wrong plays, ``cards_left`` the hand at the end; ``success``,
    ``found_turn`` and ``wrong_declarations`` as in the record.
    """
    return Outcome(
        scores=(float(record.score),),
        dealer_score=None,
        wrong_cards=(len(record.side_line),),
        cards_left=(len(record.hand),),
        plays=(len(record.events),),
        end=record.end,
        events=tuple(record.events),
        success=(bool(record.success),),
        found_turn=(record.found_turn,),
        wrong_declarations=(int(record.wrong_declarations),),
    )


def _play_table(
    rule: Rule | str, agents: Sequence[Agent], seed: int, config: SoloConfig | None = None
) -> SoloRecord:
    """`play_solo` with the engines' shape: a table of one seat."""
    if len(agents) != 1:
        raise ConfigError(f"solo is played by one player, got {len(agents)} agents")
    return play_solo(rule, agents[0], seed, config)


def _sample_game(agent: Agent, seed: int) -> SoloRecord:
    """A solo game of ``red(card)`` (black starters are refused)."""
    return play_solo("red(card)", agent, seed, SoloConfig(on_fault="raise"))


#: Solo Eleusis, as `eleusis_lab.games.table.GAMES` knows it.
GAME_TYPE = GameType(
    "solo",
    _play_table,
    SoloConfig,
    solo_outcome,
    min_players=1,
    max_players=1,
    has_dealer=False,
    title="solo Eleusis",
    record_type=SoloRecord,
    replay=replay_solo,
    layout=format_solo_layout,
    sample_game=_sample_game,
)
