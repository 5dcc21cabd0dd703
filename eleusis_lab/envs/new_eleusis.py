"""New Eleusis (RULES.md section 5) as a PettingZoo AEC environment: `NewEleusisEnv`, a
thin layer over `eleusis_lab.games.new_eleusis.state.NewEleusisState`, and
`AgentSeats` / `play_agents`, through which the toolkit's agents act in it.

Agents are ``"player_0"`` .. ``"player_{N-1}"`` (`eleusis_lab.envs.seats`), seat 0 left
of the dealer (the dealer is not an agent: the rule judges). ``reset(seed=s)`` deals
what `eleusis_lab.games.new_eleusis.play_new_eleusis` deals for seed ``s``.

Actions: ``Discrete(N_ACTIONS)`` (212)
---------------------------------------
Every decision of the round is the environment's, the Prophet's included:

- ``slot * 52 + face`` (0 to 207, `card_action`): in a turn, add to the string being
  built the card of that face, the ``slot``-th one (0 to 3) of that face in the hand
  in the order held; ``0..51`` are the faces of `eleusis_lab.envs.encoding`. A string is
  built one card per step, at most `MAX_STRING` (4) cards.
- `PLAY` (208): end the string and play it (one card chosen at least).
- `NO_PLAY` (209): declare "no play" (before any card is chosen).
- `NO` (210) and `YES` (211): the Prophet's call of the turn chosen (`YES`: right, a
  right string or a true "no play") and, right after a player's turn, whether he
  declares himself Prophet when he may (`YES`: he does).

The mask (``observation["action_mask"]``) marks exactly the actions allowed now.

Observation: a ``Dict`` (`NewEleusisEnv.observation_space`)
------------------------------------------------------------
The shared fields of `eleusis_lab.envs.encoding`: ``hand`` (the cards the seat may
still add to its string: the hand less the cards chosen), ``main_line``, ``wrong`` (the
hands each seat set aside after a true "no play"), ``last_right`` and ``phase`` (2 in
sudden death); counts above `eleusis_lab.envs.encoding.MOST_COPIES` show as it. And
New Eleusis' own:

- ``seat``: the observing seat; ``decision``: 0 a turn, 1 a Prophet's call, 2 a
  declaration of Prophet (`DECISIONS`);
- ``string``: the faces of the string being built, or of the one the Prophet calls
  (``-1`` padded; all ``-1`` for a call of "no play");
- ``shown``: in a call of "no play", the declaring player's hand (counts), else 0;
- ``side_line``: how many cards of each face lie on the side line (at most 127 shown);
- ``hand_sizes`` and ``expelled`` per seat; ``prophet``: 0 none, else his seat + 1;
- ``played``: the cards played so far and, with a Prophet, when his marker went down
  (``-1`` without);
- ``action_mask``: the allowed actions, for the seat to move (0 for the others).

Rewards and the end
-------------------
Rewards are 0 until the round ends; then each agent's reward is its score, the
record's ``player_scores`` (RULES.md section 5; ``env.final_rewards``). A round that ends
by the rules terminates every agent; one stopped by ``max_turns`` truncates them.
Expelled players and the Prophet stay among the agents until the end (they are simply
not asked to play; the Prophet is asked for his calls). ``env.round`` is the round (a
`NewEleusisState`) and ``env.events`` the events the last step made
(`eleusis_lab.agent.Event`). Nothing is rendered (the record's layout is
`eleusis_lab.games.new_eleusis.format_new_eleusis_layout`).

Examples
--------
>>> from eleusis_lab.registry import make_agent
>>> env = NewEleusisEnv("red(card)", players=3)
>>> env.reset(seed=1)
>>> env.agent_selection, env.observation_space("player_0")["action_mask"].shape
('player_0', (212,))
>>> state = play_agents(env, [make_agent("random") for _ in range(3)], seed=1)
>>> state.end, state.scores() == env.final_rewards, env.agents
('all_expelled', True, [])
>>> from eleusis_lab.games.new_eleusis import play_new_eleusis
>>> record = play_new_eleusis("red(card)", [make_agent("random") for _ in range(3)], seed=1)
>>> record.turns == tuple(state.turns), record.player_scores == env.final_rewards
(True, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np
from gymnasium import spaces

from eleusis_lab.agent import Agent, Event, GameInfo
from eleusis_lab.cards import N_FACES, Card
from eleusis_lab.envs.encoding import (
    MOST_COPIES,
    allowed,
    encode,
    face_counts,
    mask_space,
    observation_space,
)
from eleusis_lab.envs.seats import BaseAgentSeats, SeatedEnv
from eleusis_lab.games.new_eleusis.engine import TRAITS, NewEleusisConfig, own_turn, turn_problem
from eleusis_lab.games.new_eleusis.record import GAME, MAX_STRING, MIN_PLAYERS
from eleusis_lab.games.new_eleusis.state import CALL, DECLARE, TURN, NewEleusisState
from eleusis_lab.record import TURN_CAP, sees_rule
from eleusis_lab.rules import Rule

__all__ = [
    "CARD_ACTIONS",
    "DECISIONS",
    "N_ACTIONS",
    "NO",
    "NO_PLAY",
    "PLAY",
    "YES",
    "AgentSeats",
    "NewEleusisEnv",
    "action_card",
    "card_action",
    "play_agents",
]

#: The card actions: ``slot * 52 + face``, slots 0 to ``MOST_COPIES - 1``.
CARD_ACTIONS = N_FACES * MOST_COPIES
PLAY, NO_PLAY, NO, YES = CARD_ACTIONS, CARD_ACTIONS + 1, CARD_ACTIONS + 2, CARD_ACTIONS + 3
N_ACTIONS = CARD_ACTIONS + 4
#: The decisions as ``observation["decision"]`` numbers them.
DECISIONS = (TURN, CALL, DECLARE)
_LARGEST = np.iinfo(np.int16).max  # bound of the sizes and counts shown
_SIDE_MOST = np.iinfo(np.int8).max


def card_action(card: Card, offered: Sequence[Card]) -> int:
    """The action that picks ``card`` among the ``offered`` cards (in the order held).

    Raises ValueError when ``card`` is not offered or follows `MOST_COPIES` others of
    its face.

    >>> hand = [Card(5, 2), Card(2, 0), Card(5, 2, copy=1)]  # 5H, 2C and a second 5H
    >>> card_action(hand[0], hand), card_action(hand[2], hand), card_action(hand[1], hand)
    (30, 82, 1)
    >>> action_card(82, hand) is hand[2], action_card(134, hand)
    (True, None)
    """
    slot = 0
    for held in offered:
        if held == card:
            if slot >= MOST_COPIES:
                raise ValueError(f"{card} follows {slot} cards of its face; no action picks it")
            return slot * N_FACES + card.face
        slot += held.face == card.face
    raise ValueError(f"{card} is not among the cards offered")


def action_card(action: int, offered: Sequence[Card]) -> Card | None:
    """The card a card action picks among the ``offered`` cards, or None."""
    slot, face = divmod(int(action), N_FACES)
    for held in offered:
        if held.face == face:
            if slot == 0:
                return held
            slot -= 1
    return None


class NewEleusisEnv(SeatedEnv):
    """A round of New Eleusis as a PettingZoo AEC environment (see the module docstring).

    Parameters
    ----------
    rule : Rule or str
        The dealer's secret rule (it reads only the main line).
    players : int
        3 to 7 players.
    config : NewEleusisConfig, optional
        The round's options (its fault and time options do not apply here).
    """

    metadata = {"name": "new_eleusis_v0", "render_modes": [], "is_parallelizable": False}

    def __init__(
        self,
        rule: Rule | str = "red(card)",
        players: int = MIN_PLAYERS,
        config: NewEleusisConfig | None = None,
    ):
        config = NewEleusisConfig() if config is None else config
        NewEleusisState.deal(rule, 0, config, players)  # refuse a bad set-up now
        space = spaces.Dict(
            {
                **observation_space(players).spaces,
                "seat": spaces.Discrete(players),
                "decision": spaces.Discrete(len(DECISIONS)),
                "string": spaces.Box(-1, N_FACES - 1, (MAX_STRING,), np.int8),
                "shown": spaces.Box(0, MOST_COPIES, (N_FACES,), np.int8),
                "side_line": spaces.Box(0, _SIDE_MOST, (N_FACES,), np.int8),
                "hand_sizes": spaces.Box(0, _LARGEST, (players,), np.int16),
                "expelled": spaces.Box(0, 1, (players,), np.int8),
                "prophet": spaces.Discrete(players + 1),
                "played": spaces.Box(-1, _LARGEST, (2,), np.int16),
                "action_mask": mask_space(N_ACTIONS),
            }
        )
        super().__init__(players, space, partial(spaces.Discrete, N_ACTIONS))
        self.rule, self.config = rule, config
        #: The round being played (None before the first reset).
        self.round: NewEleusisState | None = None
        self.events: tuple[Event, ...] = ()
        self._string: list[Card] = []

    def _deal(self, seed: int) -> None:
        self.round = NewEleusisState.deal(self.rule, seed, self.config, self.n)
        self.events, self._string = (), []

    def _offered(self) -> list[Card]:
        """The cards the seat to play may still add to its string."""
        chosen = self._string
        hand = self.round.hands[self.round.seat]
        return [card for card in hand if card not in chosen] if chosen else list(hand)

    def action_mask(self) -> np.ndarray:
        """The actions allowed now (1) to the agent selected, as ``int8``."""
        state = self.round
        if state is None or state.is_terminal():
            return allowed((), N_ACTIONS)
        if state.decision != TURN:
            return allowed((NO, YES), N_ACTIONS)
        picks = [PLAY if self._string else NO_PLAY]
        if len(self._string) < MAX_STRING:
            slots = np.zeros(N_FACES, np.int64)
            for card in self._offered():
                if slots[card.face] < MOST_COPIES:
                    picks.append(slots[card.face] * N_FACES + card.face)
                    slots[card.face] += 1
        return allowed(picks, N_ACTIONS)

    def _apply(self, action: int | None) -> None:
        action = int(action)  # type: ignore[arg-type]
        if not (0 <= action < N_ACTIONS and self.action_mask()[action]):
            raise ValueError(f"action {action} is not allowed now (see action_mask)")
        state, events = self.round, ()
        if state.decision != TURN:
            events = state.apply(action == YES)
        elif action < CARD_ACTIONS:
            self._string.append(action_card(action, self._offered()))  # type: ignore[arg-type]
        else:
            events = state.apply(tuple(self._string) if action == PLAY else ())
            self._string = []
        self.events = events

    def _to_move(self) -> int | None:
        return self.round.to_move()

    def _scores(self) -> tuple[float, ...]:
        return self.round.scores()

    def _truncated(self) -> bool:
        return self.round.end == TURN_CAP

    def observe(self, agent: str) -> dict[str, Any]:
        seat, state = self.seat_of(agent), self.round
        obs = state.observation(seat)
        acting = self._decides(agent)
        encoded = encode(obs, self.n)
        if acting and state.decision == TURN and self._string:
            encoded["hand"] = face_counts(self._offered())
        string = np.full(MAX_STRING, -1, np.int8)
        shown = np.zeros(N_FACES, np.int8)
        if acting and state.decision == TURN:
            cards = self._string
        else:
            cards = state.pending if state.decision == CALL else ()
            if state.decision == CALL and not cards:
                shown = face_counts(state.hands[state.seat])
        string[: len(cards)] = [card.face for card in cards]
        side = [card for pile in obs.side_line for card in pile]
        marker = -1 if obs.marker is None else obs.marker
        return {
            **encoded,
            "seat": seat,
            "decision": DECISIONS.index(state.decision),
            "string": string,
            "shown": shown,
            "side_line": face_counts(side, _SIDE_MOST),
            "hand_sizes": np.minimum(obs.hand_sizes, _LARGEST).astype(np.int16),
            "expelled": np.isin(np.arange(self.n), obs.expelled).astype(np.int8),
            "prophet": 0 if obs.prophet is None else obs.prophet + 1,
            "played": np.minimum([obs.cards_played, marker], _LARGEST).astype(np.int16),
            "action_mask": self.action_mask() if acting else allowed((), N_ACTIONS),
        }


class AgentSeats(BaseAgentSeats):
    """Toolkit agents acting through a `NewEleusisEnv`
    (`eleusis_lab.envs.seats.BaseAgentSeats`).

    The agents are told the round starts as `play_new_eleusis` tells them (the same
    `eleusis_lab.agent.GameInfo` and a generator spawned from the seed alike), decide as
    there (``choose_turn``, ``call_play`` / ``call_no_play``, ``declare_prophet``, from
    `eleusis_lab.games.new_eleusis.NewEleusisDecisions`) and observe every event. So with
    the same seed they play the round the engine plays, as long as none of them faults:
    here a fault raises (ValueError for an illegal turn).
    """

    def start(self) -> None:
        super().start()
        self._queued: list[int] = []  # the steps of a string chosen, still to take

    def action(self, agent: str) -> int:
        """The env action of ``agent``'s decision (a string takes one step per card)."""
        if self._queued:
            return self._queued.pop(0)
        state = self.env.round
        seat = self.env.seat_of(agent)
        me, obs = self.agents[agent], state.observation(seat)
        if state.decision == TURN:
            chosen = me.choose_turn(obs)
            if chosen is None:
                return NO_PLAY
            problem = turn_problem(chosen, obs.hand)
            if problem is not None:
                raise ValueError(f"seat {seat} {problem}")
            offered = list(obs.hand)
            for card in own_turn(chosen, obs.hand):
                self._queued.append(card_action(card, offered))
                offered.remove(card)
            self._queued.append(PLAY)
            return self._queued.pop(0)
        if state.decision == CALL:
            if state.pending:
                answer = me.call_play(obs, state.pending)
            else:
                answer = me.call_no_play(obs, tuple(state.hands[state.seat]))
        else:
            answer = me.declare_prophet(obs)
        return YES if answer else NO

    def _game_info(self, seat: int, agent: Agent) -> GameInfo:
        state = self.env.round
        rule = state.rule if sees_rule(agent) else None
        return GameInfo(GAME, seat, self.env.n, state.dealt[seat], state.starter, rule, TRAITS)


def play_agents(env: NewEleusisEnv, agents: Sequence[Agent], seed: int) -> NewEleusisState:
    """Play a round of ``env`` from ``seed`` with toolkit ``agents`` (`AgentSeats`); the
    final state."""
    AgentSeats(env, agents).play(seed)
    return env.round
