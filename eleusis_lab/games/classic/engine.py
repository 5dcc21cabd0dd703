"""The engine of classic Eleusis: its options (`ClassicConfig`), the deal and one game
(`play_classic`), played by `play_main_line`, which the 4-8 player variant shares: a
`MainLineState` driven (`eleusis_lab.games.driver.drive`) by the agents at its seats
(`MainLineSeats`). The rules of play, randomness and faults are told in
`eleusis_lab.games.classic`.

Examples
--------
>>> from eleusis_lab.agent import Agent
>>> class FirstCard(Agent):
...     def choose_play(self, obs):
...         return obs.hand[0]
>>> record = play_classic("color(card) != color(last)", [FirstCard(), FirstCard()], seed=3)
>>> record.starter, len(record.deal[0]), len(record.deal[1])
(Card('QH'), 26, 25)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from eleusis_lab.agent import Agent, Event
from eleusis_lab.cards import Card
from eleusis_lab.engines import (
    DECISION_LIMIT,
    card_key,
    check_agents,
    check_fault_options,
    check_seed,
    is_int,
)
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.classic.record import GameRecord
from eleusis_lab.games.classic.state import (
    CLASSIC,
    MainLineGame,
    MainLineState,
    classic_deal_from,
)
from eleusis_lab.games.driver import AgentSeats, drive
from eleusis_lab.record import TURN_CAP
from eleusis_lab.rules import Rule, parse

GAME = CLASSIC.name
#: What classic Eleusis tells its players of itself: a dealer's rule, wrong cards cost.
TRAITS = CLASSIC.traits


@dataclass(frozen=True)
class ClassicConfig:
    """Options of classic Eleusis; the defaults are the decisions of RULES.md.

    Parameters
    ----------
    hand_size : int or None
        Cards dealt to each player; ``None`` deals the whole deck (hands may differ by
        one card). With a number, the rest of the deck is left unused.
    retry_in_turn : bool
        Phase 2: after a wrong card, the player may try another of his cards in the same
        turn, until one is right or he has tried them all. Default: the turn passes.
    max_turns : int
        Cap on the number of phase-2 turns, a safety net; reaching it is recorded.
    on_fault : {"substitute", "raise"}
        What an agent's fault does to the game (see below). ``"raise"`` stops the game
        at the first fault, for debugging an agent: an exception of the agent goes up
        unchanged, an illegal card or a decision over time raises `AgentError`.
    decision_seconds : float or None
        Time budget of one ``choose_play`` call, in seconds; ``None``: no limit.
    decision_limit : float or None
        Hard limit of every call of an agent (``start_game``, ``choose_play``,
        ``observe``), in seconds (60); ``None``: no limit. A call still running then is
        stopped (see below). Enforced only where the game is played in the main thread
        on Linux or macOS (`eleusis_lab.engines.DecisionLimit`).

    Notes
    -----
    The fault rule, with ``on_fault="substitute"`` (the default), so that one faulty
    agent cannot bring down a batch of games. Each fault is recorded as a
    `eleusis_lab.record.Fault` in ``GameRecord.faults`` (seat, agent, kind, message, event
    index, phase, method), and the game goes on:

    - ``choose_play`` raises, or returns something that is not one of the cards it may
      play now (``obs.hand``; a card is read by its rank, suit and copy as plain ints,
      `eleusis_lab.engines.card_key`, and the engine plays its own card of the hand
      that it equals, whatever the agent's object says of itself): the engine plays
      ``obs.hand[0]``, the first card offered,
      in its place. The choice is deterministic and free, draws on no random stream (the
      deal and the agents' generators are untouched), and `eleusis_lab.record.replay`
      can check it exactly; as hands are dealt from a shuffled deck, in phase 1 it is a
      random card of the hand as far as the rule is concerned. The substitute is a
      legal play, so verdicts and scores follow as usual.
    - ``choose_play`` returns a legal card but takes longer than ``decision_seconds``:
      the card is played and the fault only recorded, so that the plays and scores
      never depend on the speed of the machine. (An illegal card that also came late is
      two faults, over time and illegal, and is replaced.)
    - ``start_game`` or ``observe`` raises: recorded; the agent keeps its seat and the
      game goes on (a failed ``observe`` is that agent's loss of one update; the other
      agents still observe the event).
    - A call still running at ``decision_limit`` is interrupted and recorded as a
      ``stopped`` fault; the game goes on as if the call had raised (a card is
      substituted for a ``choose_play``), and the seat is retired for the rest of the
      game: the engine no longer calls it (no ``observe``; each ``choose_play`` its
      substitute), and the one stopped fault counts those calls
      (`eleusis_lab.record.Fault.count`), so that a hanging agent costs the limit
      once a game. Unlike the budget, the limit is a guard against agents that hang,
      not a measure: set it far above any decision, as a stopped decision depends on
      the speed of the machine. With ``on_fault="raise"`` it raises `AgentError`.

    What an agent raises other than an ``Exception`` (``SystemExit``, a
    ``KeyboardInterrupt`` it raises itself, any ``BaseException``) is a ``raised`` fault
    like an exception. A real Ctrl-C (a SIGINT the process received, even during an
    agent's call) stops the game, and so does the person at a human seat quitting
    (`eleusis_lab.engines.DecisionLimit`).

    Examples
    --------
    >>> ClassicConfig(hand_size=7).to_dict()  # doctest: +NORMALIZE_WHITESPACE
    {'hand_size': 7, 'retry_in_turn': False, 'max_turns': 1000, 'on_fault': 'substitute',
     'decision_seconds': None, 'decision_limit': 60.0}
    """

    hand_size: int | None = None
    retry_in_turn: bool = False
    max_turns: int = 1000
    on_fault: str = "substitute"
    decision_seconds: float | None = None
    decision_limit: float | None = DECISION_LIMIT

    def __post_init__(self) -> None:
        if self.hand_size is not None and not (is_int(self.hand_size) and self.hand_size >= 1):
            raise ConfigError(
                f"hand_size must be None or a whole number >= 1, got {self.hand_size!r}"
            )
        if not (is_int(self.max_turns) and self.max_turns >= 0):
            raise ConfigError(f"max_turns must be a whole number >= 0, got {self.max_turns!r}")
        if not isinstance(self.retry_in_turn, bool):
            raise ConfigError(f"retry_in_turn must be True or False, got {self.retry_in_turn!r}")
        check_fault_options(self.on_fault, self.decision_seconds, self.decision_limit)

    def to_dict(self) -> dict[str, object]:
        """The options as a plain dict (as stored in a `GameRecord`)."""
        return asdict(self)


def classic_deal(
    seed: int, n_players: int, hand_size: int | None = None
) -> tuple[Card, list[list[Card]], tuple[Card, ...]]:
    """The starter, the hands and the unused cards that `play_classic` deals for ``seed``.

    Examples
    --------
    >>> starter, hands, unused = classic_deal(3, n_players=4)
    >>> starter, [len(hand) for hand in hands], len(unused)
    (Card('QH'), [13, 13, 13, 12], 0)
    >>> starter, hands, unused = classic_deal(3, n_players=4, hand_size=5)
    >>> starter, [len(hand) for hand in hands], len(unused)
    (Card('QH'), [5, 5, 5, 5], 31)
    """
    seed = check_seed(seed)
    return classic_deal_from(
        np.random.default_rng(np.random.SeedSequence(seed)), n_players, hand_size
    )


def play_classic(
    rule: Rule | str,
    agents: Sequence[Agent],
    seed: int,
    config: ClassicConfig | None = None,
) -> GameRecord:
    """Play one game of classic Eleusis and return its record.

    Parameters
    ----------
    rule : Rule or str
        The dealer's secret rule (text is parsed with `eleusis_lab.rules.parse`).
    agents : sequence of Agent
        The N >= 2 active players, seat 0 first (left of the dealer); one object each.
    seed : int
        Seeds the shuffle and every agent's generator; same seed, same game.
    config : ClassicConfig, optional
        Options of the game; the defaults of `ClassicConfig` when omitted.

    Returns
    -------
    GameRecord
        Everything needed to replay, check, score and lay out the game.

    Raises
    ------
    AgentError
        Only with ``config.on_fault="raise"``: when an agent plays a card it may not play
        now (naming the seat, agent and card), decides over the time budget or is
        stopped at the decision limit. By default faults are recorded and the game goes
        on (see `ClassicConfig`).
    ConfigError
        For fewer than 2 agents, a shared agent object, a bad seed or hand size.

    Examples
    --------
    >>> from eleusis_lab.agent import Agent
    >>> class LowestCard(Agent):
    ...     def choose_play(self, obs):
    ...         return min(obs.hand)
    >>> record = play_classic("red(card)", [LowestCard(), LowestCard()], seed=1)
    >>> all(card.is_red for card in record.main_line[1:])
    True
    >>> record.dealer_score, record.phase2_end
    (6, 'no_playable_card')
    """
    if isinstance(rule, str):
        rule = parse(rule)
    config = ClassicConfig() if config is None else config
    agents = check_agents(agents, "classic Eleusis", 2)
    seed = check_seed(seed)
    return play_main_line(CLASSIC, rule, agents, seed, config)


class MainLineSeats(AgentSeats):
    """The agents at the seats of a game on one main line: each is told the game starts
    with a generator spawned from the seed's sequence, and asked for a card within its
    decision limit (and its budget, ``decision_seconds``). A faulty answer is recorded
    and the first card offered played in its place (`ClassicConfig`)."""

    def start(self, state: MainLineState) -> None:  # type: ignore[override]
        """Tell every agent its game starts, with its generator: the deal drew from the
        seed's sequence, and every agent's generator is spawned from it. Then look up
        once what each decision uses."""
        faults = self.faults
        children = state.sequence.spawn(len(self.agents))  # type: ignore[union-attr]
        agent_rngs = [np.random.default_rng(child) for child in children]
        variant = state.variant
        faults.start_games(
            variant.name, variant.traits, state.rule, state.starter, state.deal_hands, agent_rngs
        )
        choose = [agent.choose_play for agent in self.agents]
        if self.config.decision_seconds is not None:
            # Timed choices are wrapped once here: untimed games pay nothing for the budget,
            # and faults cost them only a try block (free until something is raised).
            choose = [faults.timed(seat, method) for seat, method in enumerate(choose)]
        self.choose = choose
        self.call, self.announce = faults.limit.call, faults.announce
        self.observation, self.own = state.observation, state.own

    def applier(self, state: MainLineState) -> Callable[[Card], tuple[Event, ...]]:  # type: ignore[override]
        """`decide` answers the state's own card of those allowed (the agent's, or its
        substitute): it is played as it is, not looked up again."""
        play = state.play
        return lambda card: (play(card),)

    def decide(self, seat: int, state: MainLineState) -> Card:  # type: ignore[override]
        """The state's own card that the agent at ``seat`` chose, or its substitute."""
        obs = self.observation(seat)
        try:
            answer = self.call(self.choose[seat], obs, seat=seat)
        except Exception as error:
            return self.faults.raised(seat, obs.phase, obs.hand, error)
        # The agent's answer is one of the state's own cards (known by its identity) or
        # looked up by its plain values (`card_key`): the engine's own card is what is
        # played, whatever the agent's object says.
        own = self.own.get(id(answer))
        card = state.allowed.get(own if own is answer else card_key(answer))  # type: ignore[arg-type]
        if card is None:
            return self.faults.illegal(seat, obs.phase, obs.hand, answer)
        return card

    def heard(self, action: Any, events: tuple[Event, ...], state: Any) -> None:
        """Append the play's event to the game's events and tell every agent that learns
        of it (with none, the event is only kept)."""
        learners = self.learners
        if not learners:
            self.events += events
            return
        announce = self.announce
        for event in events:
            announce(event, learners)


def play_main_line(
    variant: MainLineGame, rule: Rule, agents: list[Agent], seed: int, config: Any
) -> GameRecord:
    """The game of classic Eleusis and of its 4-8 player variant, which differ only in
    their deal and their scores (``variant``): `MainLineState` dealt from the seed,
    driven by the agents at its seats (`MainLineSeats`).

    ``config`` has the options of `ClassicConfig` (without ``retry_in_turn`` a turn of
    phase 2 is one card). The inputs are checked by the caller (`play_classic`,
    `eleusis_lab.games.four_to_eight.play_four_to_eight`).
    """
    state = MainLineState.deal(rule, seed, config, players=len(agents), variant=variant)
    events: list[Event] = []
    seats = MainLineSeats(agents, config, events)
    drive(state, seats)

    cards_left = state.cards_left()
    return GameRecord(
        game=variant.name,
        rule=rule.text,
        rule_name=rule.name,
        seed=seed,
        config=config.to_dict(),
        agents=seats.faults.described(),
        starter=state.starter,
        deal=state.deal_hands,
        unused=state.unused,
        events=tuple(events),
        main_line=state.main,
        wrong_after_phase1=state.wrong_after_phase1,
        cards_left=cards_left,
        dealer_score=state.dealer_score(),
        player_scores=state.scores(),
        phase2_end=state.end,
        phase2_turns=state.turns,
        turn_cap_hit=state.end == TURN_CAP,
        faults=seats.faults.recorded(),
    )
