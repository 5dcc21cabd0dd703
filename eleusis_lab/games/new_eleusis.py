"""New Eleusis (RULES.md section 5): one round as a pure function of its inputs, and a match.

`play_new_eleusis` takes a rule, the players' agents (3 to 7: with the dealer, 4 to 8
participants), a seed and a `NewEleusisConfig`, and plays one round: the deal of 14
cards each from two decks, the starter, turns of one card or a string of 2 to 4, "no
play" declarations, the Prophet, sudden death and the scores. It returns a
`NewEleusisRecord`, which goes to JSON and back, is checked without the agents by
`replay_new_eleusis` and laid out by `format_new_eleusis_layout`. The dealer is not an
agent: the rule is given, and the dealer's part (judging, the right card he plays after
a false "no play", overruling the Prophet) follows from it. `play_new_eleusis_match`
plays a match: every participant deals once.

Seats and turns: seat 0 sits left of the dealer, seats go clockwise. The starter's
value (A=1 .. K=13) counted clockwise from the dealer picks the first player: count 1
is seat 0 and the dealer is not counted (he does not play), so the first player is
seat ``(value - 1) mod N``; ``count_dealer=True`` counts the dealer's place too and a
count ending on him gives the turn to his left. Turns then go clockwise, skipping the
Prophet and the expelled players.

Decisions where RULES.md is silent (each is documented where it applies):

- The stock: the deck is dealt one card at a time from seat 0; the starter is the next
  card; the rest is the stock. Whenever the stock holds `NewEleusisConfig.low_stock`
  (4) cards or fewer, another deck, shuffled, goes under it (a third, then a fourth ...
  as needed; the cards of deck ``k`` have ``copy == k``).
- A "no play" is judged on the player's whole hand. A false one is a wrong play: in
  sudden death it expels the player. The dealer's right card is the first right card
  of the hand, in the order the player holds his cards (the order he received them).
- An expelled player draws the penalty of his wrong play like any other (his hand
  still counts when scoring; so a wrong play never leaves a hand empty).
- Only the player who has just played may declare himself Prophet, right after his
  play (or "no play") is judged, as in Abbott's rules; not after a play that ended the
  round or expelled him. His marker goes on the last card played in the round (the
  starter if none was); "cards played" count the main and side line but not the
  starter, and include the dealer's cards. Sudden death is in force for a turn when 40
  cards have been played with no Prophet in place, or 30 after the marker of the
  Prophet in place; an overthrow lifts the 30 and brings back the 40.
- The Prophet's calls: he calls every play (`Agent.call_play`) and every "no play"
  (`Agent.call_no_play`, seeing the declared hand, which is shown to everyone). On an
  overthrow the player draws nothing and is not expelled; a true "no play" still sets
  his hand aside and deals him the smaller hand (that is not a penalty). The Prophet's
  5 cards are drawn after the player's cards.

Randomness: the seed feeds one ``numpy.random.SeedSequence``; the deck and every
added deck are shuffled by a generator on it, and every agent gets its own generator
spawned from it (as in classic Eleusis).

Faults: as in classic Eleusis (`eleusis_lab.games.classic.ClassicConfig`), an agent that
raises, answers something it may not or overruns the time budget is recorded as a
`eleusis_lab.record.Fault` and replaced by a fixed choice that draws on no random
stream: the turn becomes the first card of its hand played alone, a Prophet's call
becomes "right", and a declaration of Prophet becomes "no". A `Fault`'s ``event`` is
the index of the turn in `NewEleusisRecord.turns`, its ``call`` the agent method.

Examples
--------
>>> from eleusis_agents.simple import OracleAgent, RandomAgent
>>> agents = [RandomAgent(), RandomAgent(), OracleAgent()]
>>> record = play_new_eleusis("color(card) != color(last)", agents, seed=1)
>>> record.starter, record.first_seat, [len(hand) for hand in record.deal]
(Card('KH', copy=1), 0, [14, 14, 14])
>>> record.end in END_REASONS, replay_new_eleusis(record)
(True, [])
>>> NewEleusisRecord.from_json(record.to_json()) == record
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields, replace
from time import perf_counter
from typing import Any

import numpy as np

from eleusis_lab.agent import Agent
from eleusis_lab.cards import Card, format_cards
from eleusis_lab.errors import ConfigError
from eleusis_lab.games._faults import (
    FaultLog,
    check_agents,
    check_fault_options,
    check_seed,
    exception_text,
    is_int,
    shorten,
    shown,
)
from eleusis_lab.games.match import MatchResult, rotate_deal
from eleusis_lab.games.new_eleusis_record import (
    ALL_EXPELLED,
    DEALER,
    DECISIONS,
    END_REASONS,
    GAME,
    ILLEGAL_DECISION,
    MAX_PLAYERS,
    MAX_STRING,
    MIN_PLAYERS,
    NEW_ELEUSIS_FAULT_CALLS,
    NEW_ELEUSIS_FAULT_KINDS,
    PLAY,
    SET_ASIDE,
    STRING,
    NewEleusisRecord,
    ProphetTerm,
    Turn,
    format_new_eleusis_layout,
)
from eleusis_lab.games.new_eleusis_table import (
    RoundTable,
    check_rule,
    first_player,
    new_eleusis_deal,
)
from eleusis_lab.games.scoring import (
    new_eleusis_match_totals,
)
from eleusis_lab.games.table import GameType, Outcome, sample_table
from eleusis_lab.record import (
    ILLEGAL_CARD,
    OVER_TIME,
    PLAYER_OUT,
    RAISED,
    TURN_CAP,
    Fault,
    FaultRules,
    card_text,
    check_faults,
    describe_agent,
)
from eleusis_lab.rules import Rule, RuleSyntaxError, parse

__all__ = [
    "ALL_EXPELLED",
    "DEALER",
    "END_REASONS",
    "GAME",
    "GAME_TYPE",
    "LOW_STOCK_LIMIT",
    "ILLEGAL_DECISION",
    "PLAY",
    "PLAYER_OUT",
    "SET_ASIDE",
    "STRING",
    "TURN_CAP",
    "NewEleusisConfig",
    "NewEleusisMatch",
    "NewEleusisRecord",
    "ProphetTerm",
    "Turn",
    "first_player",
    "format_new_eleusis_layout",
    "new_eleusis_deal",
    "new_eleusis_outcome",
    "play_new_eleusis",
    "play_new_eleusis_match",
    "replay_new_eleusis",
]

# -- options -------------------------------------------------------------------------------


#: The largest `NewEleusisConfig.low_stock`: a deck of 52 under it lifts the stock above.
LOW_STOCK_LIMIT = 51


@dataclass(frozen=True)
class NewEleusisConfig:
    """Options of New Eleusis; the defaults are RULES.md section 5 and its decisions.

    Parameters
    ----------
    hand_size : int
        Cards dealt to each player (14).
    sudden_death_after : int
        Cards played with no Prophet after which a wrong play expels its player (40).
    sudden_death_after_marker : int
        The same, counted from the marker of the Prophet in place (30).
    low_stock : int
        When the stock holds this many cards or fewer, another deck goes under it (4);
        at most 51, so that one deck always lifts the stock above it.
    count_dealer : bool
        The first player: the starter's value counted clockwise from the dealer's left
        (``False``, the dealer is not counted), or counting the dealer's place too, a
        count ending on the dealer giving the turn to his left (``True``).
    max_turns : int
        Cap on the number of turns, a safety net; reaching it is recorded.
    on_fault : {"substitute", "raise"}
        What an agent's fault does: recorded and replaced (see the module docstring),
        or stop the game (an agent's exception goes up unchanged, an illegal answer or
        a decision over time raises `eleusis_lab.errors.AgentError`).
    decision_seconds : float or None
        Time budget of one decision (``choose_turn``, ``declare_prophet``,
        ``call_play``, ``call_no_play``); a late decision stands and is recorded.

    Examples
    --------
    >>> NewEleusisConfig(max_turns=50).to_dict()  # doctest: +NORMALIZE_WHITESPACE
    {'hand_size': 14, 'sudden_death_after': 40, 'sudden_death_after_marker': 30,
     'low_stock': 4, 'count_dealer': False, 'max_turns': 50, 'on_fault': 'substitute',
     'decision_seconds': None}
    """

    hand_size: int = 14
    sudden_death_after: int = 40
    sudden_death_after_marker: int = 30
    low_stock: int = 4
    count_dealer: bool = False
    max_turns: int = 1000
    on_fault: str = "substitute"
    decision_seconds: float | None = None

    def __post_init__(self) -> None:
        for name, least in (
            ("hand_size", 1),
            ("sudden_death_after", 0),
            ("sudden_death_after_marker", 0),
            ("low_stock", 0),
            ("max_turns", 0),
        ):
            value = getattr(self, name)
            if not (is_int(value) and value >= least):
                raise ConfigError(f"{name} must be a whole number >= {least}, got {value!r}")
        if self.low_stock > LOW_STOCK_LIMIT:
            raise ConfigError(
                f"low_stock must be at most {LOW_STOCK_LIMIT} (one deck must lift the stock"
                f" above it), got {self.low_stock!r}"
            )
        if not isinstance(self.count_dealer, bool):
            raise ConfigError(f"count_dealer must be True or False, got {self.count_dealer!r}")
        check_fault_options(self.on_fault, self.decision_seconds)

    def to_dict(self) -> dict[str, object]:
        """The options as a plain dict (as stored in a `NewEleusisRecord`)."""
        return asdict(self)


# -- the engine ------------------------------------------------------------------------------


def _turn_problem(value: object, hand: Sequence[Card]) -> str | None:
    """Why ``value`` is not a legal turn for ``hand`` (``None``: it is one)."""
    if value is None:
        return None
    rule = (
        f"a turn is 1 to {MAX_STRING} different cards of the hand, in order, or None for"
        f" no play; the hand is {format_cards(hand) or 'empty'}"
    )
    if not isinstance(value, tuple | list):
        return f"returned {shown(value)}; {rule}"
    cards = tuple(value)
    if not 1 <= len(cards) <= MAX_STRING:
        return f"returned {len(cards)} cards; {rule}"
    if not all(isinstance(card, Card) for card in cards):
        return f"returned {shorten(shown(value))}, which is not only cards; {rule}"
    if len(set(cards)) != len(cards):
        return f"played the same card twice ({format_cards(cards)}); {rule}"
    held = set(hand)
    missing = [card for card in cards if card not in held]
    if missing:
        return f"played {format_cards(missing)}, which it does not hold; {rule}"
    return None


def _bool_problem(value: object, call: str) -> str | None:
    if isinstance(value, bool | np.bool_):
        return None
    return f"{call} returned {shown(value)}; it answers True or False"


def play_new_eleusis(
    rule: Rule | str,
    agents: Sequence[Agent],
    seed: int,
    config: NewEleusisConfig | None = None,
) -> NewEleusisRecord:
    """Play one round of New Eleusis and return its record.

    Parameters
    ----------
    rule : Rule or str
        The dealer's secret rule; it may read only the main line (not
        ``last_play_right``).
    agents : sequence of Agent
        The 3 to 7 players, seat 0 first (left of the dealer); one object each.
    seed : int
        Seeds the shuffles and every agent's generator; same seed, same round.
    config : NewEleusisConfig, optional
        Options of the round; the defaults when omitted.

    Returns
    -------
    NewEleusisRecord

    Raises
    ------
    ConfigError
        For fewer than 3 or more than 7 agents, a shared agent object, a rule that reads
        ``last_play_right``, a bad seed or a hand size the decks cannot deal.
    AgentError
        Only with ``on_fault="raise"``, at an agent's illegal answer or late decision.

    Examples
    --------
    >>> from eleusis_agents.simple import OracleAgent
    >>> record = play_new_eleusis("red(card)", [OracleAgent() for _ in range(3)], seed=0)
    >>> all(card.is_red for card in record.main_line[1:]), sum(map(len, record.side_line))
    (True, 0)
    >>> record.end, record.prophet is not None
    ('player_out', True)
    """
    rule = check_rule(rule)
    config = NewEleusisConfig() if config is None else config
    agents = list(agents)
    if not MIN_PLAYERS <= len(agents) <= MAX_PLAYERS:
        raise ConfigError(
            f"New Eleusis has 4 to 8 participants: the dealer and {MIN_PLAYERS} to"
            f" {MAX_PLAYERS} players, got {len(agents)} players"
        )
    agents = check_agents(agents, "New Eleusis", MIN_PLAYERS)
    seed = check_seed(seed)
    n = len(agents)
    table = RoundTable(rule, n, seed, config)
    agent_rngs = [np.random.default_rng(child) for child in table.sequence.spawn(n)]
    turns: list[Turn] = []
    faults = FaultLog(agents, config, turns)  # type: ignore[arg-type] # its index: the turn
    stop, budget = faults.stop, config.decision_seconds

    faults.start_games(GAME, rule, table.starter, table.deal, agent_rngs)

    def ask(
        seat: int,
        call: str,
        method: Callable[..., Any],
        args: tuple,
        phase: int,
        problem: Callable[[Any], str | None],
        substitute: Any,
        turn: int,
    ) -> Any:
        """An agent's decision, or ``substitute`` after a recorded fault."""
        started = perf_counter()
        try:
            value = method(*args)
        except Exception as error:
            if stop:
                raise
            faults.add(seat, RAISED, exception_text(error), turn, phase, call)
            return substitute
        if budget is not None:
            seconds = perf_counter() - started
            if seconds > budget:
                message = (
                    f"took {seconds * 1e3:.3g} ms to decide ({call}); the budget is"
                    f" {budget * 1e3:.3g} ms"
                )
                if stop:
                    raise faults.agent_error(seat, message)
                faults.add(seat, OVER_TIME, message, turn, phase, call)
        message = problem(value)
        if message is not None:
            if stop:
                raise faults.agent_error(seat, message)
            kind = ILLEGAL_CARD if call == "choose_turn" else ILLEGAL_DECISION
            faults.add(seat, kind, message, turn, phase, call)
            return substitute
        return value

    def is_bool(call: str) -> Callable[[Any], str | None]:
        return lambda value: _bool_problem(value, call)

    while table.end is None:
        if len(turns) >= config.max_turns:
            table.end = TURN_CAP
            break
        index, seat = len(turns), table.seat
        obs = table.observation(seat)
        hand = obs.hand
        chosen = ask(
            seat,
            "choose_turn",
            agents[seat].choose_turn,
            (obs,),
            obs.phase,
            lambda value, hand=hand: _turn_problem(value, hand),
            (hand[0],),
            index,
        )
        cards = () if chosen is None else tuple(chosen)
        call = None
        if table.prophet is not None:
            prophet = table.prophet
            seen = table.observation(prophet)
            if cards:
                method, what, args = agents[prophet].call_play, "call_play", (seen, cards)
            else:
                method, what, args = agents[prophet].call_no_play, "call_no_play", (seen, hand)
            call = bool(ask(prophet, what, method, args, obs.phase, is_bool(what), True, index))
        turn = table.play(cards, call)
        turns.append(turn)
        for event in turn.events():
            for other, agent in enumerate(agents):
                try:
                    agent.observe(event)
                except Exception as error:
                    if stop:
                        raise
                    faults.add(other, RAISED, exception_text(error), index, turn.phase, "observe")
        if table.can_declare(seat):
            after = table.observation(seat)
            method = agents[seat].declare_prophet
            check = is_bool("declare_prophet")
            if ask(seat, "declare_prophet", method, (after,), turn.phase, check, False, index):
                table.declare(seat)
                turns[-1] = replace(turn, declared_prophet=True)
        table.advance()

    players, dealer = table.scores()
    return NewEleusisRecord(
        game=GAME,
        rule=rule.text,
        rule_name=rule.name,
        seed=seed,
        config=config.to_dict(),
        agents=tuple(describe_agent(agent) for agent in agents),
        starter=table.starter,
        first_seat=table.first,
        deal=table.deal,
        turns=tuple(turns),
        prophets=tuple(table.prophets),
        main_line=tuple(table.main),
        side_line=tuple(map(tuple, table.side)),
        hands=tuple(map(tuple, table.hands)),
        set_aside=tuple(map(tuple, table.set_aside)),
        expelled=tuple(table.expelled),
        stock=tuple(reversed(table.stock)),
        decks=table.decks,
        end=table.end,
        turn_cap_hit=table.end == TURN_CAP,
        player_scores=tuple(players),
        dealer_score=dealer,
        faults=tuple(faults.faults),
    )


# -- replay ------------------------------------------------------------------------------------


def _show(value: Any) -> str:
    if isinstance(value, Card):
        return card_text(value)
    if isinstance(value, tuple) and value and all(isinstance(v, Card) for v in value):
        return " ".join(map(card_text, value))
    if isinstance(value, tuple) and value and all(isinstance(v, tuple) for v in value):
        return "[" + " | ".join(_show(v) for v in value) + "]"
    return repr(value)


def replay_new_eleusis(record: NewEleusisRecord) -> list[str]:  # noqa: C901 - one pass
    """Check a New Eleusis record against the rules, without the agents.

    Re-parses the rule, re-deals from the seed, and plays the recorded decisions (each
    turn's cards or "no play", the Prophet's calls, the declarations of Prophet) on a
    fresh table: the turn order, that each card played is held, every verdict, draw,
    overthrow and expulsion, the Prophets, the end of the round, the final lines,
    hands and stock, and the scores must all be those the rules give. Faults are
    checked too: each names the seat and agent of its decision, and a replaced decision
    is the engine's substitute (the first card of the hand; a call of "right"; no
    declaration).

    Parameters
    ----------
    record : NewEleusisRecord

    Returns
    -------
    list of str
        The discrepancies found, most fundamental first; empty when consistent.

    Examples
    --------
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
        table = RoundTable(rule, n, check_seed(record.seed), config)
    except (ConfigError, TypeError) as error:
        return [f"the round cannot be set up from its seed and config: {error}"]
    if (table.starter, table.deal) != (record.starter, tuple(map(tuple, record.deal))):
        return [f"the starter and the hands are not those dealt by seed {record.seed}"]
    problems: list[str] = []
    if record.first_seat != table.first:
        problems.append(
            f"first seat: recorded {record.first_seat}, the starter {record.starter} gives"
            f" {table.first}"
        )
    problems += _check_faults(record)
    decided: dict[int, list[Fault]] = {}
    for fault in record.faults:
        if fault.call in DECISIONS:
            decided.setdefault(fault.event, []).append(fault)
    compared = [f.name for f in fields(Turn) if f.name not in ("seat", "declared_prophet")]

    for k, turn in enumerate(record.turns):
        where = f"turn {k} (seat {turn.seat})"
        if table.end is not None:
            problems.append(f"{where}: the round had ended ({table.end})")
            break
        if k >= config.max_turns:
            problems.append(f"{where}: past the turn cap ({config.max_turns} turns)")
            break
        if turn.seat != table.seat:
            problems.append(f"{where}: seat {table.seat} should play")
            return problems  # the order is broken; what follows would only echo it
        hand = tuple(table.hands[turn.seat])
        illegal = _turn_problem(turn.cards or None, hand)
        if illegal is not None:
            problems.append(f"{where}: {illegal}")
            return problems
        prophet = table.prophet
        for fault in decided.get(k, ()):
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
        call = None if prophet is None else bool(turn.prophet_call)
        expected = table.play(turn.cards, call)
        for name in compared:
            got, want = getattr(turn, name), getattr(expected, name)
            if got != want:
                problems.append(
                    f"{where}: recorded {name}={_show(got)}, the rules give {_show(want)}"
                )
        if turn.declared_prophet:
            if table.can_declare(turn.seat):
                table.declare(turn.seat)
            else:
                problems.append(f"{where}: declares himself Prophet, which he may not now")
        table.advance()

    if table.end is None:
        if len(record.turns) >= config.max_turns:
            table.end = TURN_CAP
        else:
            problems.append("the record stops while the round goes on")
    if table.end is not None and record.end != table.end:
        problems.append(f"end: recorded {record.end!r}, the turns give {table.end!r}")
    if record.turn_cap_hit != (table.end == TURN_CAP):
        problems.append(f"turn_cap_hit is {record.turn_cap_hit}, but the round ended {table.end!r}")
    players, dealer = table.scores()
    for name, want in (
        ("prophets", tuple(table.prophets)),
        ("main_line", tuple(table.main)),
        ("side_line", tuple(map(tuple, table.side))),
        ("hands", tuple(map(tuple, table.hands))),
        ("set_aside", tuple(map(tuple, table.set_aside))),
        ("expelled", tuple(table.expelled)),
        ("stock", tuple(reversed(table.stock))),
        ("decks", table.decks),
        ("player_scores", tuple(players)),
        ("dealer_score", dealer),
    ):
        got = getattr(record, name)
        if isinstance(got, list):
            got = tuple(got)
        if got != want:
            problems.append(f"{name}: recorded {_show(got)}, the turns give {_show(want)}")
    return problems


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
        replaced=lambda f: (
            (f.event, f.call) if f.call in DECISIONS and f.kind != OVER_TIME else None
        ),
    )


# -- a match -------------------------------------------------------------------------------------


class NewEleusisMatch(MatchResult):
    """The rounds of a New Eleusis match and the participants' totals.

    A `eleusis_lab.games.match.MatchResult` whose games are `NewEleusisRecord` s;
    ``totals`` are `eleusis_lab.games.scoring.new_eleusis_match_totals` (10 for those
    who never dealt when the match stopped early).
    """

    record_type = NewEleusisRecord
    title = "New Eleusis"
    game = GAME

    @classmethod
    def score_totals(cls, n, dealers, seats, games) -> list[float]:
        """The totals of `eleusis_lab.games.scoring.new_eleusis_match_totals`."""
        dealer_scores = [game.dealer_score for game in games]
        player_scores = [game.player_scores for game in games]
        return new_eleusis_match_totals(n, dealers, seats, dealer_scores, player_scores)


def play_new_eleusis_match(
    agents: Sequence[Agent],
    seed: int,
    rules: Rule | str | Sequence[Rule | str],
    config: NewEleusisConfig | None = None,
    rounds: int | None = None,
) -> NewEleusisMatch:
    """Play a New Eleusis match: every participant deals once, the deal passing left.

    When participant ``k`` deals, the others play, seat 0 being ``k + 1``. The match
    seed feeds one ``numpy.random.SeedSequence``: one child draws the rules (when several
    are given), the other gives every round its own seed, kept in its record.

    Parameters
    ----------
    agents : sequence of Agent
        The 4 to 8 participants; the same objects play every round.
    seed : int
        The match seed.
    rules : Rule, str or sequence of them
        One rule for every round, or rules from which each deal draws uniformly.
    config : NewEleusisConfig, optional
        Options of every round.
    rounds : int, optional
        Stop the match after this many rounds (participants 0, 1, ... deal); those who
        never dealt get 10 points. Default: every participant deals.

    Returns
    -------
    NewEleusisMatch

    Examples
    --------
    >>> from eleusis_lab.registry import parse_agent_list
    >>> agents = parse_agent_list("random,random,oracle,random")
    >>> match = play_new_eleusis_match(agents, seed=0, rules="red(card)", rounds=2)
    >>> match.dealers, match.seats
    ((0, 1), ((1, 2, 3), (2, 3, 0)))
    >>> sum(match.totals) >= 20  # participants 2 and 3 never dealt: 10 each
    True
    """
    n = len(agents)
    if not MIN_PLAYERS + 1 <= n <= MAX_PLAYERS + 1:
        raise ConfigError(f"a New Eleusis match has 4 to 8 participants, got {n}")
    rounds = n if rounds is None else rounds
    if not (is_int(rounds) and 0 <= rounds <= n):
        raise ConfigError(f"rounds must be a whole number from 0 to {n}, got {rounds!r}")
    return rotate_deal(
        lambda rule, seated, game_seed: play_new_eleusis(rule, seated, game_seed, config),
        agents,
        seed,
        rules,
        rounds,
        NewEleusisMatch,
        read_rule=check_rule,
    )


# -- the declaration -------------------------------------------------------------------------


def new_eleusis_outcome(record: NewEleusisRecord) -> Outcome:
    """The `Outcome` of a round of New Eleusis.

    ``plays`` counts the cards a seat put down itself (one card or a string);
    ``wrong_cards`` those of them that were wrong, over the whole round. The hands set
    aside after a true "no play" and the dealer's cards after a false one are in the
    events (their ``kind`` tells them apart) but in neither count.
    """
    n = record.n_players
    plays, wrong = [0] * n, [0] * n
    events = record.events
    for event in events:
        if event.kind in (PLAY, STRING):
            plays[event.seat] += 1
            wrong[event.seat] += not event.right
    return Outcome(
        scores=tuple(float(score) for score in record.player_scores),
        dealer_score=float(record.dealer_score),
        wrong_cards=tuple(wrong),
        cards_left=tuple(record.cards_left),
        plays=tuple(plays),
        end=record.end,
        events=tuple(events),
    )


def _sample_game(agent: Agent, seed: int) -> NewEleusisRecord:
    """A round of New Eleusis (RULES.md section 5): 3 players, random opponents."""
    agents = sample_table(agent, 3, seed)
    config = NewEleusisConfig(max_turns=60, on_fault="raise")
    return play_new_eleusis("color(card) != color(last)", agents, seed, config)


#: New Eleusis, as `eleusis_lab.games.table.GAMES` knows it.
GAME_TYPE = GameType(
    "new-eleusis",
    play_new_eleusis,
    NewEleusisConfig,
    new_eleusis_outcome,
    min_players=3,
    max_players=7,
    main_line_only=True,
    title="New Eleusis",
    record_type=NewEleusisRecord,
    replay=replay_new_eleusis,
    layout=format_new_eleusis_layout,
    match=play_new_eleusis_match,
    default_players=4,
    sample_game=_sample_game,
)
