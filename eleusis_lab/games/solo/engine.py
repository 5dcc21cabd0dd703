"""The engine of the solo benchmark: its options (`SoloConfig`), the deal and one game
(`play_solo`): the rules of `eleusis_lab.games.solo.state.SoloState` driven
(`eleusis_lab.games.driver.drive`) with the agent's decisions (`SoloSeats`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from eleusis_lab.agent import Agent, Event, GameInfo, GameTraits
from eleusis_lab.cards import Card
from eleusis_lab.engines import (
    DECISION_LIMIT,
    check_capabilities,
    check_fault_options,
    check_seed,
    class_name,
    describe_seat,
    is_int,
    not_offered,
    own_card,
    plain_float,
    plain_text,
    shorten,
    text,
)
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.driver import AgentSeats, drive
from eleusis_lab.games.solo.decisions import SoloDecisions, SoloMove, solo_statement
from eleusis_lab.games.solo.judge import (
    JUDGE_PLAYS,
    JUDGES,
    Judgement,
    judge_declaration,
)
from eleusis_lab.games.solo.record import GAME, Declaration, SoloRecord
from eleusis_lab.games.solo.scoring import MAX_TURNS
from eleusis_lab.games.solo.state import (  # the timings, here since they were defined here
    AFTER_VERDICT,  # noqa: F401
    BEFORE_VERDICT,
    DECK,
    STATEMENT,
    TIMINGS,
    SoloState,
    Statement,
    Turn,
    solo_deal_from,
)
from eleusis_lab.record import ILLEGAL_CARD, RAISED, STOPPED
from eleusis_lab.rules import Context, Rule, parse

HAND_SIZE = 12
#: The most plays (``judge_plays``) or games (``simulation_games``) a declaration is
#: judged in.
MOST_JUDGED = 100_000
#: What the solo game tells its player of itself: any rule, found fast is all that counts.
TRAITS = GameTraits(rule_from="benchmark", scored_on="finding", judge=JUDGES[0])

#: A fault of a statement: a rule that is not text, or a confidence not in [0, 1].
ILLEGAL_DECLARATION = "illegal_declaration"
FAULT_KINDS = (RAISED, ILLEGAL_CARD, ILLEGAL_DECLARATION, STOPPED)
FAULT_CALLS = ("start_game", "solo_move", "choose_play", "observe", "declare_rule")
#: The faults that put the first card of the hand in place of the agent's.
CARD_FAULTS = {
    (call, kind)
    for call in ("solo_move", "choose_play")
    for kind in (RAISED, STOPPED, ILLEGAL_CARD)
}
LEGAL_FAULTS = {
    ("solo_move", ILLEGAL_CARD),
    ("solo_move", ILLEGAL_DECLARATION),
    ("choose_play", ILLEGAL_CARD),
    ("declare_rule", ILLEGAL_DECLARATION),
}


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
    decision_limit : float or None
        Hard limit of every call of the agent, in seconds (60); ``None``: no limit. A
        call still running then is stopped, recorded as a ``stopped`` fault and
        replaced as if it had raised, and the agent is retired for the rest of the game
        (as in `eleusis_lab.games.classic.ClassicConfig`).
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
     'judge_plays': 40, 'on_fault': 'substitute', 'decision_limit': 60.0,
     'simulation_games': 100, 'simulation_seed': 0}
    """

    hand_size: int = HAND_SIZE
    max_turns: int = MAX_TURNS
    timing: str = BEFORE_VERDICT
    judge: str = JUDGES[0]
    judge_plays: int = JUDGE_PLAYS
    on_fault: str = "substitute"
    decision_limit: float | None = DECISION_LIMIT
    simulation_games: int = 100
    simulation_seed: int = 0

    def __post_init__(self) -> None:
        for name, least, most in (
            ("hand_size", 1, None),
            ("max_turns", 1, None),
            # each declaration is judged in this many plays or simulated games: bounded
            # so that one declaration cannot hold up a run
            ("judge_plays", 1, MOST_JUDGED),
            ("simulation_games", 1, MOST_JUDGED),
            ("simulation_seed", 0, None),
        ):
            value = getattr(self, name)
            if not (is_int(value) and value >= least):
                raise ConfigError(f"{name} must be a whole number >= {least}, got {value!r}")
            if most is not None and value > most:
                raise ConfigError(f"{name} must be at most {most:,}, got {value!r}")
        if self.hand_size > len(DECK) - 1:
            raise ConfigError(f"hand_size must leave a starter in the stock, got {self.hand_size}")
        for name, allowed in (("timing", TIMINGS), ("judge", JUDGES)):
            if getattr(self, name) not in allowed:
                choices = " or ".join(repr(a) for a in allowed)
                raise ConfigError(f"{name} must be {choices}, got {getattr(self, name)!r}")
        check_fault_options(self.on_fault, decision_limit=self.decision_limit)

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
    return solo_deal_from(rng, rule, hand_size)


def agent_start(state: SoloState, rule_told: bool) -> tuple[GameInfo, np.random.Generator]:
    """What `play_solo` tells its agent at the start of the game of ``state``: the
    ``GameInfo`` (the secret rule only when ``rule_told``) and the agent's generator, a
    child of the deal's ``SeedSequence``.

    >>> state = SoloState.deal("red(card)", 3, SoloConfig())
    >>> info, rng = agent_start(state, rule_told=False)
    >>> info.starter == state.starter, info.rule, info.traits.judge
    (True, None, 'continuations')
    """
    traits = replace(TRAITS, judge=state.config.judge)
    told = state.rule if rule_told else None
    info = GameInfo(GAME, 0, 1, state.dealt, state.starter, told, traits)
    return info, np.random.default_rng(np.random.SeedSequence(state.seed).spawn(1)[0])


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
    game. The state (`SoloState`) is driven with the agent at its seat (`SoloSeats`).

    Parameters
    ----------
    rule : Rule or str
        The secret rule (text is parsed with `eleusis_lab.rules.parse`).
    agent : Agent
        The player, with the solo game's decisions (`SoloDecisions` mixed in). Agents
        that set ``sees_rule`` are told the rule in ``GameInfo``.
    seed : int
        Seeds the shuffle and the agent's generator; same seed, same game.
    config : SoloConfig, optional
        Options of the game; the benchmark's defaults when omitted.
    on_turn : callable, optional
        Called as ``on_turn(turn, event, declaration)`` at the end of every turn, the
        last one included (``declaration`` is None when the agent did not declare);
        `eleusis_lab.games.solo.beliefs` asks the agent what it believes there.

    Returns
    -------
    SoloRecord

    Raises
    ------
    AgentError
        Only with ``config.on_fault="raise"``: a card the agent does not hold, a
        statement that is not rule text with a confidence, or a call stopped at the
        decision limit. (The agent's own exceptions go up unchanged.)
    ConfigError
        For something that is not an agent, an agent without the solo game's
        decisions (capability ``"declares"``), or a bad seed.

    Examples
    --------
    >>> from eleusis_lab.agent import Agent
    >>> class Stubborn(SoloDecisions, Agent):
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
    check_capabilities([agent], GAME, SoloDecisions)
    seed = check_seed(seed)

    state = SoloState.deal(rule, seed, config)
    seats = SoloSeats(agent, config, state, on_turn)
    drive(state, seats)
    faults = seats.faults
    return state.record(describe_seat(agent, faults.told[0]), faults.recorded())


class SoloSeats(AgentSeats):
    """The agent at the solo game's one seat (`play_solo`).

    `decide` asks it for the decision the state awaits (`SoloState.awaited`), within
    the decision limit: the turn, a `Turn` made of its `SoloMove` (``timing=
    "before_verdict"``), or its card (``choose_play``) and, after the verdict, its
    statement (``"after_verdict"``). A faulty card is recorded and replaced by the
    first card of the hand, a faulty statement by none. `heard` tells the agent each
    play (``observe``), then calls ``on_turn(turn, event, declaration)`` once the turn's
    statement is judged.

    Parameters
    ----------
    agent : Agent
        The player.
    config : SoloConfig
        The game's options.
    state : SoloState
        The game, as dealt: the index of a fault's event is the number of its plays.
    on_turn : callable or None
        See `play_solo`.
    """

    def __init__(
        self,
        agent: Agent,
        config: SoloConfig,
        state: SoloState,
        on_turn: Callable[[int, Event, Declaration | None], None] | None,
    ):
        super().__init__([agent], config, state.events)
        self.agent = agent
        self.on_turn = on_turn
        self.before = config.timing == BEFORE_VERDICT
        self.event: Event | None = None  # the play of the turn under way
        # a move's faulty statement, recorded as it was before the state took the move:
        # once the agent was told the play (the function writes the message)
        self.misstated: Callable[[], str] | None = None

    def start(self, state: SoloState) -> None:
        """Start the agent's game, unless it is over at the deal (no starter)."""
        if state.starter is None:
            return
        try:
            self.faults.limit.call(self.agent.start_game, *agent_start(state, self.faults.told[0]))
        except Exception as error:
            self.faults.failed(0, error, 0, 0, "start_game")

    def decide(self, seat: int, state: SoloState) -> Any:
        """The agent's turn (a `Turn`), its card, or after the verdict its statement."""
        if state.awaited == STATEMENT:
            return self._statement(state)
        agent, faults = self.agent, self.faults
        index, faulted = len(self.events), len(faults.faults)
        obs = state.observation(0)
        fields = None
        if self.before:
            call = "solo_move"
            move = self._ask(call, index, lambda: agent.solo_move(obs))
            if move is not None and not issubclass(type(move), SoloMove):
                what = f"{shorten(text(repr, move))} (a {class_name(move)})"
                self._fault(ILLEGAL_CARD, f"returned {what}, not a SoloMove", index, call)
                move = None
            # its fields are read where the agent's code may run: a property of a
            # SoloMove subclass raising, hanging, or answering differently twice
            fields = None if move is None else self._ask(call, index, _fields(move))
            card = None if fields is None else fields[0]
        else:
            call = "choose_play"
            card = self._ask(call, index, lambda: agent.choose_play(obs))
        own = own_card(card, obs.hand)  # the engine's card it equals, by plain values
        if own is None:
            # not yet a fault this turn, nor a retired agent's substitute
            if card is not None or (len(faults.faults) == faulted and not faults.limit.retired):
                self._fault(ILLEGAL_CARD, not_offered(card, obs.hand), index, call)
            own = obs.hand[0]
        if not self.before or fields is None or _silent(*fields[1:]):
            return own  # the card alone: no statement
        checked = _checked_statement(*fields[1:])
        if callable(checked):
            self.misstated = checked
            return own
        statement = _stated(checked)
        return own if statement is None else Turn(own, statement)

    def _statement(self, state: SoloState) -> Statement | None:
        """The agent's statement after the verdict of the turn's card, or None."""
        index, call = len(self.events) - 1, "declare_rule"
        agent = self.agent
        stated = self._ask(call, index, lambda: solo_statement(agent, state.observation(0)))
        if stated is None or _silent(*stated):
            return None
        checked = _checked_statement(*stated)
        if callable(checked):
            self._fault(ILLEGAL_DECLARATION, checked(), index, call)
            return None
        return _stated(checked)

    def heard(self, action: Any, events: tuple[Event, ...], state: SoloState) -> None:
        """Tell the agent the play (recording a move's faulty statement after it); at the
        end of the turn, call ``on_turn``."""
        if events:
            (event,) = events
            self.event = event
            agent, index = self.agent, len(self.events) - 1
            self._ask("observe", index, lambda: agent.observe(event))
            if self.misstated is not None:
                message, self.misstated = self.misstated(), None
                self._fault(ILLEGAL_DECLARATION, message, index, "solo_move")
        if self.on_turn is not None and state.awaited != STATEMENT:
            self.on_turn(state.turns, self.event, state.turn_declaration)

    def _ask(self, call: str, index: int, method: Callable[[], Any]) -> Any:
        """``method()``, a call of the agent's; None after a fault (recorded)."""
        try:
            return self.faults.limit.call(method)
        except Exception as error:
            self.faults.failed(0, error, index, 1, call)
            return None

    def _fault(self, kind: str, message: str, index: int, call: str) -> None:
        """Record a fault of the agent's answer, or stop the game (``on_fault="raise"``)."""
        faults = self.faults
        if faults.stop:
            raise faults.agent_error(0, message)
        faults.add(0, kind, message, index, 1, call)


def _fields(move: SoloMove) -> Callable[[], tuple[Any, Any, Any, Any]]:
    """What reads a move's card, rule, confidence and declaration (`SoloSeats` calls it
    as a call of the agent's)."""
    return lambda: (move.card, move.rule, move.confidence, move.declare)


def plain_statement(
    rule: object, confidence: object, declare: object
) -> tuple[str | None, float | None, bool] | str:
    """A stated (rule, confidence, declare) as plain values, the text a ``str`` and the
    confidence a ``float`` (an agent's subclass may lie in its methods), or what is
    wrong with it.

    >>> plain_statement("red(card)", 0.75, True)
    ('red(card)', 0.75, True)
    >>> plain_statement("red(card)", 2, False)
    'stated a confidence of 2, not a number in [0, 1]'
    """
    checked = _checked_statement(rule, confidence, declare)
    return checked() if callable(checked) else checked


def _checked_statement(
    rule: object, confidence: object, declare: object
) -> tuple[str | None, float | None, bool] | Callable[[], str]:
    """`plain_statement`, but what is wrong with the statement as a function that says
    it: the message shows the agent's values, and their repr is the agent's code, which
    `SoloSeats` runs where it always did (after the play was told). The checks run none."""
    text_ = None if rule is None else plain_text(rule)
    if rule is not None and text_ is None:
        return lambda: (
            f"stated {shorten(text(repr, rule))} (a {class_name(rule)}), not rule text or None"
        )
    number = None if confidence is None else plain_float(confidence)
    if confidence is not None and not (
        number is not None and math.isfinite(number) and 0 <= number <= 1
    ):
        return lambda: (
            f"stated a confidence of {shorten(text(repr, confidence))}, not a number in [0, 1]"
        )
    # exactly these types: a subclass of numpy's bool may override __bool__
    if not (type(declare) is bool or type(declare) is np.bool_):
        return lambda: f"declare is {shorten(text(repr, declare))}, not True or False"
    if declare and rule is None:
        return lambda: "declared without stating a rule"
    return text_, number, bool(declare)


def _silent(rule: object, confidence: object, declare: object) -> bool:
    """Whether an agent states nothing, the common case (told apart by identity: no
    code of the agent's runs)."""
    return rule is None and confidence is None and declare is False


def _stated(plain: tuple[str | None, float | None, bool]) -> Statement | None:
    """A plain statement as the state takes it: None when it states no rule."""
    return None if plain[0] is None else Statement(*plain)  # type: ignore[arg-type]
