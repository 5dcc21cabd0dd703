"""The engine of New Eleusis: its options (`NewEleusisConfig`) and one round
(`play_new_eleusis`), the round's state (`eleusis_lab.games.new_eleusis.state.NewEleusisState`)
driven (`eleusis_lab.games.driver.drive`) with the agents' decisions (`NewEleusisSeats`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from time import perf_counter
from typing import Any

import numpy as np

from eleusis_lab.agent import Agent, Event, GameTraits
from eleusis_lab.cards import Card, format_cards
from eleusis_lab.engines import (
    DECISION_LIMIT,
    card_key,
    check_agents,
    check_capabilities,
    check_fault_options,
    check_seed,
    is_int,
    own_card,
    shorten,
    shown,
)
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.driver import AgentSeats, drive
from eleusis_lab.games.new_eleusis.decisions import NewEleusisDecisions
from eleusis_lab.games.new_eleusis.record import (
    GAME,
    ILLEGAL_DECISION,
    MAX_PLAYERS,
    MAX_STRING,
    MIN_PLAYERS,
    NewEleusisRecord,
)
from eleusis_lab.games.new_eleusis.state import CALL, TURN, NewEleusisState
from eleusis_lab.games.new_eleusis.table import check_rule
from eleusis_lab.record import (
    ILLEGAL_CARD,
    OVER_TIME,
)
from eleusis_lab.rules import Rule

#: What New Eleusis tells its players of itself: a dealer's rule, wrong cards cost.
TRAITS = GameTraits(rule_from="dealer", scored_on="plays")

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
        or stop the game (an agent's exception goes up unchanged, an illegal answer, a
        decision over time or a stopped call raises `eleusis_lab.errors.AgentError`).
    decision_seconds : float or None
        Time budget of one decision (``choose_turn``, ``declare_prophet``,
        ``call_play``, ``call_no_play``); a late decision stands and is recorded.
    decision_limit : float or None
        Hard limit of every call of an agent (the decisions, ``start_game``,
        ``observe``), in seconds (60); ``None``: no limit. A call still running then is
        stopped, recorded as a ``stopped`` fault and replaced as if it had raised, its
        seat retired for the rest of the round (as in classic Eleusis).

    Examples
    --------
    >>> NewEleusisConfig(max_turns=50).to_dict()  # doctest: +NORMALIZE_WHITESPACE
    {'hand_size': 14, 'sudden_death_after': 40, 'sudden_death_after_marker': 30,
     'low_stock': 4, 'count_dealer': False, 'max_turns': 50, 'on_fault': 'substitute',
     'decision_seconds': None, 'decision_limit': 60.0}
    """

    hand_size: int = 14
    sudden_death_after: int = 40
    sudden_death_after_marker: int = 30
    low_stock: int = 4
    count_dealer: bool = False
    max_turns: int = 1000
    on_fault: str = "substitute"
    decision_seconds: float | None = None
    decision_limit: float | None = DECISION_LIMIT

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
        check_fault_options(self.on_fault, self.decision_seconds, self.decision_limit)

    def to_dict(self) -> dict[str, object]:
        """The options as a plain dict (as stored in a `NewEleusisRecord`)."""
        return asdict(self)


# -- the engine ------------------------------------------------------------------------------


def _items(value: object) -> tuple[Any, ...] | None:
    """The items of a tuple or list, read from the container itself (a subclass of the
    agent's may override its iteration), or None for anything else."""
    if issubclass(type(value), tuple):
        return tuple(tuple.__iter__(value))  # type: ignore[arg-type]
    if issubclass(type(value), list):
        return tuple(list.__iter__(value))  # type: ignore[arg-type]
    return None


def turn_problem(value: object, hand: Sequence[Card]) -> str | None:
    """Why ``value`` is not a legal turn for ``hand`` (``None``: it is one).

    Cards are compared by their plain values (`eleusis_lab.engines.card_key`), never
    by the code of the agent's objects; `own_turn` gives the engine's cards of a legal
    turn.
    """
    if value is None:
        return None
    problem = _turn_problem(value, hand)
    if problem is None:
        return None
    # the rule is spelt out only for a wrong turn: formatting the hand costs more than a turn
    return (
        f"{problem}; a turn is 1 to {MAX_STRING} different cards of the hand, in order, or"
        f" None for no play; the hand is {format_cards(hand) or 'empty'}"
    )


def _turn_problem(value: object, hand: Sequence[Card]) -> str | None:
    items = _items(value)
    if items is None:
        return f"returned {shown(value)}"
    if not 1 <= len(items) <= MAX_STRING:
        return f"returned {len(items)} cards"
    keys = [card_key(item) for item in items]
    if any(key is None for key in keys):
        return f"returned {shorten(shown(value))}, which is not only cards"
    cards = [Card(*key) for key in keys]  # type: ignore[misc]
    if len(set(cards)) != len(cards):
        return f"played the same card twice ({format_cards(cards)})"
    held = set(hand)
    missing = [card for card in cards if card not in held]
    if missing:
        return f"played {format_cards(missing)}, which it does not hold"
    return None


def own_turn(value: object, hand: Sequence[Card]) -> tuple[Card, ...]:
    """The engine's own cards of ``hand`` that a legal turn (`turn_problem`) plays."""
    items = _items(value) or ()
    return tuple(own_card(item, hand) for item in items)  # type: ignore[misc]


def _bool_problem(value: object, call: str) -> str | None:
    # exactly these types: a subclass of numpy's bool may override __bool__
    if type(value) is bool or type(value) is np.bool_:
        return None
    return f"{call} returned {shown(value)}; it answers True or False"


class NewEleusisSeats(AgentSeats):
    """The agents at a round's seats: each decision (a turn, the Prophet's call, a
    declaration) asked within the time budget and the decision limit (`decide`), a
    faulty one recorded and replaced; every agent observes each event of a judged turn
    (`heard`). The faults' index is the turn (``turns``, the state's list of them).
    """

    def __init__(self, agents: Sequence[Agent], config: NewEleusisConfig, turns: list, rule: Rule):
        super().__init__(agents, config, turns)
        self.rule = rule
        self.budget = config.decision_seconds
        self.call = self.faults.limit.call
        self.checks = {
            call: partial(_bool_problem, call=call)
            for call in ("call_play", "call_no_play", "declare_prophet")
        }

    def start(self, state: NewEleusisState) -> None:
        n = len(self.agents)
        rngs = [np.random.default_rng(child) for child in state.sequence.spawn(n)]
        self.faults.start_games(GAME, TRAITS, self.rule, state.starter, state.dealt, rngs)

    def decide(self, seat: int, state: NewEleusisState) -> Any:
        """The decision to come (`NewEleusisState.decision`) of the agent at ``seat``,
        as the state takes it."""
        index = len(self.events)
        agent = self.agents[seat]
        if state.decision == TURN:
            obs = state.observation(seat)
            hand = obs.hand
            chosen = self.ask(
                seat,
                "choose_turn",
                agent.choose_turn,
                (obs,),
                obs.phase,
                lambda value: turn_problem(value, hand),
                (hand[0],),
                index,
            )
            return () if chosen is None else own_turn(chosen, hand)
        if state.decision == CALL:
            seen, cards = state.observation(seat), state.pending
            if cards:
                method, what, args = agent.call_play, "call_play", (seen, cards)
            else:
                hand = tuple(state.hands[state.seat])
                method, what, args = agent.call_no_play, "call_no_play", (seen, hand)
            call = self.ask(seat, what, method, args, seen.phase, self.checks[what], True, index)
            return bool(call)
        # the player who has just played may declare himself Prophet
        after, phase = state.observation(seat), self.events[-1].phase
        method, check = agent.declare_prophet, self.checks["declare_prophet"]
        declared = self.ask(
            seat, "declare_prophet", method, (after,), phase, check, False, index - 1
        )
        return bool(declared)

    def ask(
        self,
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
        faults, budget = self.faults, self.budget
        started = perf_counter()
        try:
            value = self.call(method, *args, seat=seat)
        except Exception as error:
            faults.failed(seat, error, turn, phase, call)
            return substitute
        if budget is not None:
            seconds = perf_counter() - started
            if seconds > budget:
                message = (
                    f"took {seconds * 1e3:.3g} ms to decide ({call}); the budget is"
                    f" {budget * 1e3:.3g} ms"
                )
                if faults.stop:
                    raise faults.agent_error(seat, message)
                faults.add(seat, OVER_TIME, message, turn, phase, call)
        message = problem(value)
        if message is not None:
            if faults.stop:
                raise faults.agent_error(seat, message)
            kind = ILLEGAL_CARD if call == "choose_turn" else ILLEGAL_DECISION
            faults.add(seat, kind, message, turn, phase, call)
            return substitute
        return value

    def heard(self, action: Any, events: tuple[Event, ...], state: NewEleusisState) -> None:
        """Tell every agent of each event of the turn just judged (the state has
        appended it to its turns already)."""
        if not events:
            return
        faults, turns, call = self.faults, self.events, self.call
        index, phase = len(turns) - 1, turns[-1].phase
        for event in events:
            for other, agent in enumerate(self.agents):
                try:
                    call(agent.observe, event, seat=other)
                except Exception as error:
                    faults.failed(other, error, index, phase, "observe")


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
        For fewer than 3 or more than 7 agents, a shared agent object, an agent without
        the round's decisions (`NewEleusisDecisions`), a rule that reads
        ``last_play_right``, a bad seed or a hand size the decks cannot deal.
    AgentError
        Only with ``on_fault="raise"``, at an agent's illegal answer, late decision or
        call stopped at the decision limit.

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
    check_capabilities(agents, GAME, NewEleusisDecisions)
    seed = check_seed(seed)
    n = len(agents)
    state = NewEleusisState(rule, n, seed, config)
    seats = NewEleusisSeats(agents, config, state.turns, rule)
    drive(state, seats)

    return NewEleusisRecord(
        game=GAME,
        rule=rule.text,
        rule_name=rule.name,
        seed=seed,
        config=config.to_dict(),
        agents=seats.faults.described(),
        **state.record_fields(),
        faults=seats.faults.recorded(),
    )
