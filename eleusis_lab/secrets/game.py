"""Secrets, the jack-and-king board game (RULES.md section 4): one game as a pure function.

`play_secrets` takes four `eleusis_lab.secrets.agent.SecretsAgent` players (hearts,
diamonds, clubs, spades, in the order of play), a seed and a `SecretsConfig`, lays out
the board, plays until no jack or king is left on it and returns a
`eleusis_lab.secrets.record.SecretsRecord`.

The game in brief: each player moves his jack one square up, down, left or right per
turn (then, once the jack is gone, his king), never onto another piece; onto a card of
his own suit he captures it, onto a card of another suit he duels its owner by sending
him a card from hand (the owner may beat it with a higher card of the same suit); from
column 8 a piece may leave the board into its owner's hand. Holding an ace kills an
adjacent enemy piece, holding the queen of a piece's suit takes it into hand. Secrets
(aces and queens face down on columns 5 and 6) are turned up by the piece that enters:
a queen or an own ace goes to hand, an enemy ace kills the piece and stays face up. A
player who can act must. Cards in hand score J 1000, Q 100, A 10, K 1, others 0.01.
The rules module, `eleusis_lab.secrets.state`, documents every decision taken
where the rules are open.

Randomness: the seed feeds one ``numpy.random.SeedSequence``; the set-up is laid out by
a generator on it and every agent gets its own generator spawned from it, so an
agent's random stream depends on the seed and its seat only.

The modules, one job each: `eleusis_lab.secrets.moves` (squares, card values and
scores, actions and effects), `eleusis_lab.secrets.state` (positions, legal
actions, transitions, views), `eleusis_lab.secrets.config` (the options), this one
(the engine), `eleusis_lab.secrets.record` (the record and its replay) and
`eleusis_lab.secrets.draw` (text layout, drawing); the agent interface is
`eleusis_lab.secrets.agent`, the agents are in ``eleusis_agents.secrets`` and the tournament in
`eleusis_lab.secrets.tournament`. This module re-exports
what a user needs.

Examples
--------
>>> from eleusis_lab.secrets.agent import parse_secrets_agent_list
>>> agents = parse_secrets_agent_list("secrets-heuristic,secrets-random,"
...                                   "secrets-heuristic,secrets-random")
>>> record = play_secrets(agents, seed=7)
>>> record.game, record.end, len(record.steps) == record.turns
('secrets', 'no_pieces', True)
>>> replay_secrets(record)
[]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from time import perf_counter
from typing import Any

import numpy as np

from eleusis_lab.cards import Card
from eleusis_lab.engines import (
    card_key,
    check_seed,
    describe_seat,
    own_card,
    plain_text,
    shorten,
    text,
)
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.driver import AgentSeats, drive
from eleusis_lab.games.table import GameType, Outcome
from eleusis_lab.record import OVER_TIME
from eleusis_lab.secrets.agent import SECRETS_AGENTS, SecretsAgent, SecretsDuel, SecretsInfo
from eleusis_lab.secrets.config import SecretsConfig
from eleusis_lab.secrets.draw import (
    draw_secrets_board,
    format_secrets_board,
    format_secrets_layout,
)
from eleusis_lab.secrets.moves import (
    DECK,
    N_SEATS,
    SEAT_SUITS,
    SKIP,
    SecretsAction,
    beat_value,
    secrets_ranks,
    secrets_score,
)
from eleusis_lab.secrets.record import (
    BLOCKED,
    END_REASONS,
    ILLEGAL_ACTION,
    NO_PIECES,
    TURN_CAP,
    SecretsRecord,
    SecretsStep,
    replay_secrets,
)
from eleusis_lab.secrets.state import SecretsSetup, SecretsState, SecretsView, secrets_setup

__all__ = [
    "BLOCKED",
    "END_REASONS",
    "GAME",
    "GAME_TYPE",
    "NO_PIECES",
    "TURN_CAP",
    "SecretsAgent",
    "SecretsConfig",
    "SecretsRecord",
    "SecretsState",
    "SecretsStep",
    "SecretsView",
    "draw_secrets_board",
    "format_secrets_board",
    "format_secrets_layout",
    "play_secrets",
    "replay_secrets",
    "secrets_deal",
    "secrets_outcome",
]

GAME = "secrets"
_SKIP = SecretsAction(SKIP)


def secrets_deal(seed: int) -> SecretsState:
    """The position before the first move of the game `play_secrets` plays for ``seed``.

    >>> state = secrets_deal(7)
    >>> [len(hand) for hand in state.hands], len(state.hidden_squares())
    ([3, 3, 3, 3], 8)
    """
    return SecretsState.deal(None, seed)


def _check_agents(agents: Sequence[SecretsAgent]) -> list[SecretsAgent]:
    agents = list(agents)
    if len(agents) != N_SEATS:
        raise ConfigError(f"Secrets is played by exactly 4 players, got {len(agents)}")
    for seat, agent in enumerate(agents):
        if not isinstance(agent, SecretsAgent):
            raise ConfigError(
                f"seat {seat}: {agent!r} is not a SecretsAgent (eleusis_lab.secrets.agent)"
            )
    if len({id(agent) for agent in agents}) != len(agents):
        raise ConfigError(
            "the same agent object sits at two seats; give each seat its own agent"
            " (eleusis_lab.secrets.agent.clone makes a fresh copy)"
        )
    return agents


class _Seats(AgentSeats):
    """The four agents at the table (`eleusis_lab.games.driver.AgentSeats`): each asked
    its turns and its duels' answers within the decision limit and the time budget,
    its faults recorded and replaced (`SecretsConfig`), and every turn, once played,
    recorded as a `SecretsStep` (``events``, the game's steps) and observed by all.

    A turn whose piece has no action is a skip, asked of nobody.
    """

    def __init__(
        self,
        agents: list[SecretsAgent],
        config: SecretsConfig,
        setup: SecretsSetup,
        rngs: list[np.random.Generator],
    ):
        self.steps: list[SecretsStep] = []
        super().__init__(agents, config, self.steps)
        self.setup, self.rngs, self.options = setup, rngs, config.to_dict()
        # The turn being played: the seat, its piece and square, its action; the answer.
        self.turn: tuple[int, Card, int, SecretsAction] | None = None
        self.beat: Card | None = None

    def start(self, state: SecretsState) -> None:
        """Tell each agent its seat, suit and hand, the options, and its generator."""
        for seat, agent in enumerate(self.agents):
            info = SecretsInfo(seat, SEAT_SUITS[seat], self.setup.hands[seat], self.options)
            self._call(seat, "start_game", agent.start_game, info, self.rngs[seat])

    def decide(self, seat: int, state: SecretsState) -> Any:
        """The turn's action (a skip when there is none), or the defender's answer."""
        if state.duel is not None:
            self.beat = self._answer(seat, state)
            return self.beat
        at = state.active()
        legal = state.legal_actions()
        action = self._choose(seat, state, legal) if legal else _SKIP
        self.turn, self.beat = (seat, state.occupants[at], at, action), None
        return action

    def heard(self, action: Any, events: Any, state: SecretsState) -> None:
        """Once the turn is played (its duel answered): its step, observed by every agent
        that learns."""
        if state.duel is not None:  # the defender answers first
            return
        seat, piece, at, played = self.turn
        step = SecretsStep(seat, piece, at, played, self.beat, events)
        steps = self.steps
        steps.append(step)
        k = len(steps) - 1
        for t, observe in self.learners:
            try:
                observe(step)
            except Exception as error:
                self.faults.failed(t, error, k, 1, "observe")

    def _call(self, seat: int, call: str, method: Callable, *args: Any) -> tuple[Any, bool]:
        """``method(*args)``, limited and (a decision) timed; returns ``(answer,
        failed)``. A seat retired at the decision limit fails at once, recorded once
        (`eleusis_lab.engines.counted`)."""
        faults = self.faults
        started = perf_counter()
        start = call == "start_game"  # as in the Eleusis games: event 0, phase 0
        try:
            answer = faults.limit.call(method, *args, seat=seat)
        except Exception as error:
            faults.failed(seat, error, 0 if start else len(self.steps), int(not start), call)
            return None, True
        budget = faults.budget
        if budget is not None and not start:
            seconds = perf_counter() - started
            if seconds > budget:
                message = (
                    f"took {seconds * 1e3:.3g} ms to decide; the budget is {budget * 1e3:.3g} ms"
                )
                if faults.stop:
                    raise faults.agent_error(seat, message)
                faults.add(seat, OVER_TIME, message, len(self.steps), 1, call)
        return answer, False

    def _illegal(self, seat: int, call: str, message: str) -> None:
        faults = self.faults
        if faults.stop:
            raise faults.agent_error(seat, message)
        faults.add(seat, ILLEGAL_ACTION, shorten(message), len(self.steps), 1, call)

    def _choose(self, seat: int, state: SecretsState, legal: list[SecretsAction]) -> SecretsAction:
        """The seat's action, or the first legal action after a recorded fault."""
        offered = tuple(legal)
        agent = self.agents[seat]
        action, failed = self._call(
            seat, "choose_action", agent.choose_action, state.view(seat), offered
        )
        if failed:
            return legal[0]
        own = _own_action(action, offered)  # the engine's action it equals, by plain values
        if own is None:
            shown = " ".join(map(str, offered))
            self._illegal(
                seat,
                "choose_action",
                f"returned {text(repr, action)}, which is not a legal action now: {shown}",
            )
            return legal[0]
        return own

    def _answer(self, defender: int, state: SecretsState) -> Card | None:
        """The defender's beating card, or None (no beat, or a fault)."""
        action = state.duel
        options = state.beating_cards(action)
        duel = SecretsDuel.of(state, action, options)
        agent = self.agents[defender]
        answer, failed = self._call(
            defender, "answer_duel", agent.answer_duel, state.view(defender), duel
        )
        if failed or answer is None or answer is False:
            return None
        if answer is True:
            return min(options, key=beat_value)
        own = own_card(answer, options)  # the engine's card it equals, by plain values
        if own is not None:
            return own
        self._illegal(
            defender,
            "answer_duel",
            f"answered {text(repr, answer)}; the answers are None or one of"
            f" {' '.join(map(str, options))}",
        )
        return None


def play_secrets(
    agents: Sequence[SecretsAgent], seed: int, config: SecretsConfig | None = None
) -> SecretsRecord:
    """Play one game of Secrets and return its record.

    The position (`SecretsState`) is driven to its end (`eleusis_lab.games.driver.drive`)
    with the agents at its seats: each turn is asked of the seat to move, a duel's
    answer of its defender when he may beat.

    Parameters
    ----------
    agents : sequence of 4 SecretsAgent
        Seat 0 hearts, 1 diamonds, 2 clubs, 3 spades (the order of play); one object
        each.
    seed : int
        Seeds the set-up and every agent's generator; same seed, same game.
    config : SecretsConfig, optional
        Options of the game; the defaults of `SecretsConfig` when omitted.

    Returns
    -------
    SecretsRecord
        Everything needed to replay, check, score, lay out and draw the game.

    Raises
    ------
    AgentError
        Only with ``config.on_fault="raise"``: an illegal action or answer, a decision
        over the time budget or a call stopped at the decision limit. By default faults
        are recorded (see `SecretsConfig`).
    ConfigError
        For a number of agents other than 4, a shared agent object or a bad seed.

    Examples
    --------
    >>> from eleusis_lab.secrets.agent import make_secrets_agent
    >>> agents = [make_secrets_agent("secrets-random") for _ in range(4)]
    >>> record = play_secrets(agents, seed=3)
    >>> record.ranks.count(1) >= 1, sum(record.final_state().cards().values())
    (True, 52)
    >>> play_secrets(agents, seed=3) == record  # same seed, same game
    True
    """
    config = SecretsConfig() if config is None else config
    if not isinstance(config, SecretsConfig):
        raise ConfigError(f"config must be a SecretsConfig, got {config!r}")
    agents = _check_agents(agents)
    seed = check_seed(seed)
    sequence = np.random.SeedSequence(seed)
    setup = secrets_setup(np.random.default_rng(sequence))
    agent_rngs = [np.random.default_rng(child) for child in sequence.spawn(N_SEATS)]
    state = SecretsState.initial(
        setup, config.spend_special, config.queen_takes_own, config.max_turns
    )
    seats = _Seats(agents, config, setup, agent_rngs)
    drive(state, seats)

    end = NO_PIECES if state.over else BLOCKED if state.blocked else TURN_CAP
    scores = state.scores()
    return SecretsRecord(
        game=GAME,
        seed=seed,
        config=seats.options,
        agents=tuple(describe_seat(agent) for agent in agents),
        setup=setup,
        steps=tuple(seats.steps),
        end=end,
        turn_cap_hit=end == TURN_CAP,
        hands=tuple(map(tuple, state.hands)),
        out=tuple(state.out),
        board=tuple(state.board),
        occupants=tuple(state.occupants),
        secrets=tuple(state.secrets),
        scores=scores,
        ranks=secrets_ranks(scores),
        faults=seats.faults.recorded(),
    )


#: The slots of an action, read through `SecretsAction`'s own descriptors: a subclass
#: of the agent's may override its fields, ``__eq__`` or ``__hash__``.
_SLOTS = tuple(SecretsAction.__dict__[name] for name in ("kind", "square", "card"))


def _own_action(value: object, offered: Sequence[SecretsAction]) -> SecretsAction | None:
    """The action of ``offered`` that ``value`` equals by its plain values, or None."""
    if not issubclass(type(value), SecretsAction):
        return None
    try:
        kind, square, card = (slot.__get__(value) for slot in _SLOTS)
    except AttributeError:  # a slot left empty
        return None
    key = card_key(card)
    if plain_text(kind) is None or not (square is None or type(square) is int):
        return None
    if card is not None and key is None:
        return None
    for action in offered:
        plain = None if action.card is None else tuple(action.card)
        if (action.kind, action.square, plain) == (str.__str__(kind), square, key):
            return action
    return None


# -- the declaration -------------------------------------------------------------------------


def secrets_outcome(record: SecretsRecord) -> Any:
    """What the experiment runner's results table keeps of a game of Secrets.

    An `eleusis_lab.games.table.Outcome`: the scores, no dealer score, no wrong
    cards, the cards each seat holds at the end, the turns each seat played and how
    the game ended; Secrets has no Eleusis events.

    >>> from eleusis_lab.secrets.agent import parse_secrets_agent_list
    >>> record = play_secrets(parse_secrets_agent_list(",".join(["secrets-random"] * 4)), 0)
    >>> outcome = secrets_outcome(record)
    >>> outcome.scores == record.scores, sum(outcome.plays) == record.turns
    (True, True)
    """
    plays = [0] * N_SEATS
    for step in record.steps:
        plays[step.seat] += 1
    return Outcome(
        scores=tuple(record.scores),
        dealer_score=None,
        wrong_cards=(None,) * N_SEATS,
        cards_left=tuple(len(hand) for hand in record.hands),
        plays=tuple(plays),
        end=record.end,
        events=(),
    )


def _play_table(rule: None, agents: Sequence[Any], seed: int, config: SecretsConfig | None = None):
    """`play_secrets` with the engines' shape (no rule)."""
    return play_secrets(agents, seed, config)


#: Secrets, as `eleusis_lab.games.table.GAMES` knows it: a board game with no rule.
def _cards(record: SecretsRecord) -> tuple[tuple[Card, ...], dict[str, tuple[Card, ...]]]:
    """One 52-card deck, and where each card is at the end: the hands, the cards out of
    the game, the face-up cards, the pieces and the secrets on the board."""
    places = {f"seat {seat}": hand for seat, hand in enumerate(record.hands)}
    places["out"] = record.out
    for name in ("board", "occupants", "secrets"):
        places[name] = tuple(card for card in getattr(record, name) if card is not None)
    return DECK, places


def _score(record: SecretsRecord) -> tuple[list[float], None]:
    """Each seat's score from the cards in its hand at the end; no dealer."""
    return [secrets_score(hand) for hand in record.hands], None


GAME_TYPE = GameType(
    "secrets",
    _play_table,
    SecretsConfig,
    secrets_outcome,
    min_players=4,
    max_players=4,
    has_dealer=False,
    needs_rule=False,
    agents=SECRETS_AGENTS,
    title="Secrets",
    default_agent="secrets-random",
    record_type=SecretsRecord,
    replay=replay_secrets,
    layout=format_secrets_layout,
    cards=_cards,
    score=_score,
    state_type=SecretsState,
)
