"""Secrets (RULES.md section 4) as a PettingZoo AEC environment: `SecretsEnv`, a thin
layer over `eleusis_lab.secrets.state.SecretsState`, and `AgentSeats` /
`play_agents`, through which the Secrets agents (`eleusis_lab.secrets.agent.SECRETS_AGENTS`)
act in it.

Agents are ``"player_0"`` .. ``"player_3"`` (`eleusis_lab.envs.seats`): seat 0 hearts, 1
diamonds, 2 clubs, 3 spades, in the order of play. ``reset(seed=s)`` lays out the board
`eleusis_lab.secrets.game.play_secrets` lays out for seed ``s`` (a random seed when
None).

Actions: ``Discrete(N_ACTIONS)`` (2039)
---------------------------------------
One index for every `eleusis_lab.secrets.moves.SecretsAction` and every answer to a
duel (`action_index`, `answer_index`; `index_action`, `index_answer` read them back):

- ``sq`` (0 to 31): move the active piece to square ``sq``;
- ``DUELS + 52 * sq + face``: duel the card on ``sq``, sending the card of ``face``;
- `LEAVE`: leave the board from column 8;
- ``KILLS + sq``: kill the piece on ``sq`` with an ace held (``spend_special=False``);
- ``SPENT_KILLS + 4 * sq + suit``: the same, spending the ace of ``suit``
  (``spend_special=True``);
- ``TAKES + 4 * sq + suit``: take the piece on ``sq`` with the queen of ``suit``;
- `SKIP`: never allowed (a piece with no action skips without being asked);
- ``BEATS + face``: the defender's answer to a duel, beating with the card of ``face``;
- `NO_BEAT`: the defender lets the piece in.

There are two decisions: a turn (the seat to move picks one of its legal actions) and,
right after a duel whose defender holds a card that may beat the one sent, the
defender's answer (the agent selected is then the defender). The mask
(``observation["action_mask"]``) marks exactly the actions allowed now: in a turn,
those of `eleusis_lab.secrets.state.SecretsState.legal_actions`; in an answer, the
defender's beating cards and `NO_BEAT`.

Observation: a ``Dict`` (`SecretsEnv.observation_space`)
--------------------------------------------------------
What the seat sees (`eleusis_lab.secrets.state.SecretsView`): squares are numbered
``8 * row + column`` and cards by face (``13 * suit + rank - 1``), ``-1`` for none.

- ``board``: the face-up card of each square; ``pieces``: the jack or king on it;
  ``hidden``: 1 where a secret still lies face down;
- ``hand``: the seat's own cards; ``known_hands``: per seat, the cards this seat knows
  are in that hand; ``hand_sizes``: how many cards each seat holds;
- ``out``: the cards out of the game; ``unseen``: the cards this seat cannot place;
- ``seat``, ``to_move`` (the seat whose turn it is; for a duel's answer, the mover),
  ``turn`` (turns played);
- ``duel``: while a duel is answered, the square attacked, the face of the card on it
  and the face of the card sent (public), else ``-1``;
- ``action_mask``: the allowed actions, for the agent selected (0 for the others).

Rewards and the end
-------------------
Rewards are 0 until the game ends; then each agent's reward is its score, the
record's ``scores`` (cards in hand: J 1000, Q 100, A 10, K 1, others 0.01;
``env.final_rewards``). A game that ends by the rules (no piece left, or every piece
blocked) terminates every agent; one stopped by ``max_turns`` truncates them (still
rewarded with the scores the record keeps). ``env.state`` is the position, ``env.steps``
the turns played (`eleusis_lab.secrets.record.SecretsStep`, as a record has them),
``env.new_steps`` those the last step made (a turn and the forced skips after it) and
``env.end`` how the game ended. Nothing is rendered
(`eleusis_lab.secrets.draw.format_secrets_board` draws a position).

Examples
--------
>>> from eleusis_lab.secrets.agent import parse_secrets_agent_list
>>> env = SecretsEnv()
>>> env.reset(seed=7)
>>> obs = env.observe("player_0")
>>> [str(index_action(i)) for i in np.flatnonzero(obs["action_mask"])]
['a3/3C', 'a3/4C', 'a3/4S']
>>> state = play_agents(env, parse_secrets_agent_list("secrets-heuristic,secrets-random,"
...                                                    "secrets-heuristic,secrets-random"), 7)
>>> from eleusis_lab.secrets.game import play_secrets
>>> record = play_secrets(parse_secrets_agent_list("secrets-heuristic,secrets-random,"
...                                                "secrets-heuristic,secrets-random"), 7)
>>> tuple(env.steps) == record.steps, env.final_rewards == record.scores, env.end
(True, True, 'no_pieces')
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np
from gymnasium import spaces

from eleusis_lab.cards import N_FACES, Card
from eleusis_lab.envs.encoding import allowed, mask_space
from eleusis_lab.envs.seats import BaseAgentSeats, SeatedEnv
from eleusis_lab.secrets import moves
from eleusis_lab.secrets.agent import SecretsAgent, SecretsDuel, SecretsInfo
from eleusis_lab.secrets.game import SecretsConfig
from eleusis_lab.secrets.moves import (
    ACE,
    DECK,
    DUEL,
    KILL,
    MOVE,
    N_SEATS,
    N_SQUARES,
    QUEEN,
    SEAT_SUITS,
    TAKE,
    SecretsAction,
    beat_value,
    deck_card,
)
from eleusis_lab.secrets.record import BLOCKED, NO_PIECES, TURN_CAP, SecretsStep
from eleusis_lab.secrets.state import SecretsSetup, SecretsState, SecretsView, secrets_setup

__all__ = [
    "BEATS",
    "DUELS",
    "KILLS",
    "LEAVE",
    "NO_BEAT",
    "N_ACTIONS",
    "SKIP",
    "SPENT_KILLS",
    "TAKES",
    "AgentSeats",
    "SecretsEnv",
    "action_index",
    "answer_index",
    "encode_view",
    "index_action",
    "index_answer",
    "play_agents",
]

_SUITS = 4
DUELS = N_SQUARES
LEAVE = DUELS + N_SQUARES * N_FACES
KILLS = LEAVE + 1
SPENT_KILLS = KILLS + N_SQUARES
TAKES = SPENT_KILLS + N_SQUARES * _SUITS
SKIP = TAKES + N_SQUARES * _SUITS
BEATS = SKIP + 1
NO_BEAT = BEATS + N_FACES
N_ACTIONS = NO_BEAT + 1

#: Every action, by index (below `BEATS`).
_ACTIONS: tuple[SecretsAction, ...] = (
    *(SecretsAction(MOVE, sq) for sq in range(N_SQUARES)),
    *(SecretsAction(DUEL, sq, card) for sq in range(N_SQUARES) for card in DECK),
    SecretsAction(moves.LEAVE),
    *(SecretsAction(KILL, sq) for sq in range(N_SQUARES)),
    *(
        SecretsAction(KILL, sq, deck_card(ACE, suit))
        for sq in range(N_SQUARES)
        for suit in range(_SUITS)
    ),
    *(
        SecretsAction(TAKE, sq, deck_card(QUEEN, suit))
        for sq in range(N_SQUARES)
        for suit in range(_SUITS)
    ),
    SecretsAction(moves.SKIP),
)
_INDEX = {action: index for index, action in enumerate(_ACTIONS)}
_SKIP_ACTION = _ACTIONS[SKIP]
_LARGEST_TURN = np.iinfo(np.int32).max


def action_index(action: SecretsAction) -> int:
    """The index of ``action`` (ValueError for something else).

    >>> from eleusis_lab.secrets.moves import parse_action
    >>> action_index(parse_action("a3")), action_index(parse_action("a3/2C"))
    (2, 137)
    >>> action_index(parse_action("take b2 QD")), index_action(1894)
    (1894, SecretsAction(kind='take', square=9, card=Card('QD')))
    """
    try:
        return _INDEX[action]
    except (KeyError, TypeError):
        raise ValueError(f"not a Secrets action: {action!r}") from None


def index_action(index: int) -> SecretsAction:
    """The action of an index below `BEATS` (ValueError for another)."""
    if not 0 <= index < BEATS:
        raise ValueError(f"{index} is not the index of an action (0 to {BEATS - 1})")
    return _ACTIONS[index]


def answer_index(beat: Card | None) -> int:
    """The index of a defender's answer: beat with ``beat``, or `NO_BEAT` for None.

    >>> from eleusis_lab.cards import parse_card
    >>> answer_index(parse_card("9C")) - BEATS, answer_index(None) == NO_BEAT
    (8, True)
    """
    return NO_BEAT if beat is None else BEATS + beat.face


def index_answer(index: int) -> Card | None:
    """The beating card of an answer's index, None for `NO_BEAT` (ValueError for an
    index that is not an answer)."""
    if not BEATS <= index <= NO_BEAT:
        raise ValueError(f"{index} is not the index of an answer ({BEATS} to {NO_BEAT})")
    return None if index == NO_BEAT else DECK[index - BEATS]


def _faces(cards: Sequence[Card]) -> np.ndarray:
    marks = np.zeros(N_FACES, np.int8)
    for card in cards:
        marks[card.face] = 1
    return marks


def _squares(cards: Sequence[Card | None]) -> np.ndarray:
    return np.array([-1 if card is None else card.face for card in cards], np.int8)


def observation_space() -> spaces.Dict:
    """The observation space of every agent of a `SecretsEnv` (see the module)."""
    return spaces.Dict(
        {
            "board": spaces.Box(-1, N_FACES - 1, (N_SQUARES,), np.int8),
            "pieces": spaces.Box(-1, N_FACES - 1, (N_SQUARES,), np.int8),
            "hidden": spaces.Box(0, 1, (N_SQUARES,), np.int8),
            "hand": spaces.Box(0, 1, (N_FACES,), np.int8),
            "known_hands": spaces.Box(0, 1, (N_SEATS, N_FACES), np.int8),
            "hand_sizes": spaces.Box(0, N_FACES, (N_SEATS,), np.int8),
            "out": spaces.Box(0, 1, (N_FACES,), np.int8),
            "unseen": spaces.Box(0, 1, (N_FACES,), np.int8),
            "seat": spaces.Discrete(N_SEATS),
            "to_move": spaces.Discrete(N_SEATS),
            "turn": spaces.Box(0, _LARGEST_TURN, (1,), np.int32),
            "duel": spaces.Box(-1, N_FACES - 1, (3,), np.int8),
            "action_mask": mask_space(N_ACTIONS),
        }
    )


def encode_view(
    view: SecretsView, duel: SecretsDuel | None = None, mask: np.ndarray | None = None
) -> dict[str, Any]:
    """``view`` as arrays of `observation_space`, with the duel being answered, if any,
    and the action mask (all 0 when None).

    >>> from eleusis_lab.secrets.game import secrets_deal
    >>> encoded = encode_view(secrets_deal(7).view(1))
    >>> int(encoded["hand"].sum()), int(encoded["hidden"].sum()), encoded["pieces"][:2]
    (3, 8, array([38, 36], dtype=int8))
    >>> observation_space().contains(encoded)
    True
    """
    hidden = np.zeros(N_SQUARES, np.int8)
    hidden[list(view.hidden)] = 1
    duel_faces = (
        np.full(3, -1, np.int8)
        if duel is None
        else np.array([duel.square, duel.attacked.face, duel.sent.face], np.int8)
    )
    return {
        "board": _squares(view.board),
        "pieces": _squares(view.occupants),
        "hidden": hidden,
        "hand": _faces(view.hand),
        "known_hands": np.stack([_faces(hand) for hand in view.known_hands]),
        "hand_sizes": np.array(view.hand_sizes, np.int8),
        "out": _faces(view.out),
        "unseen": _faces(view.unseen),
        "seat": view.seat,
        "to_move": view.to_move,
        "turn": np.array([min(view.turn, _LARGEST_TURN)], np.int32),
        "duel": duel_faces,
        "action_mask": allowed((), N_ACTIONS) if mask is None else mask,
    }


class SecretsEnv(SeatedEnv):
    """A game of Secrets as a PettingZoo AEC environment (see the module docstring).

    Parameters
    ----------
    config : SecretsConfig, optional
        The game's options: ``spend_special``, ``queen_takes_own`` and ``max_turns``
        apply (the fault and time options do not).
    """

    metadata = {"name": "secrets_v0", "render_modes": [], "is_parallelizable": False}

    def __init__(self, config: SecretsConfig | None = None):
        config = SecretsConfig() if config is None else config
        if not isinstance(config, SecretsConfig):
            raise ValueError(f"config must be a SecretsConfig, got {config!r}")
        super().__init__(N_SEATS, observation_space(), partial(spaces.Discrete, N_ACTIONS))
        self.config = config
        #: The position (None before the first reset) and its set-up.
        self.state: SecretsState | None = None
        self.setup: SecretsSetup | None = None
        self.steps: list[SecretsStep] = []
        self.new_steps: tuple[SecretsStep, ...] = ()
        #: The duel the agent selected answers now, else None.
        self.duel: SecretsDuel | None = None
        #: How the game ended (`eleusis_lab.secrets.record.END_REASONS`), else None.
        self.end: str | None = None
        self._duel_action: SecretsAction | None = None
        self._mask = allowed((), N_ACTIONS)

    def _deal(self, seed: int) -> None:
        """Lay out the set-up of `play_secrets` for ``seed``; play the forced skips."""
        self.setup = secrets_setup(np.random.default_rng(np.random.SeedSequence(seed)))
        config = self.config
        self.state = SecretsState.initial(
            self.setup, config.spend_special, config.queen_takes_own, config.max_turns
        )
        self.steps, self.duel, self._duel_action, self.end = [], None, None, None
        made: list[SecretsStep] = []
        self._next_turn(made)
        self.new_steps = tuple(made)

    def action_mask(self) -> np.ndarray:
        """The actions allowed now (1) to the agent selected, as ``int8``."""
        return self._mask.copy()

    def _apply(self, action: int | None) -> None:
        index = int(action)  # type: ignore[arg-type]
        if not (0 <= index < N_ACTIONS and self._mask[index]):
            raise ValueError(f"action {index} is not allowed now (see action_mask)")
        made: list[SecretsStep] = []
        if self.duel is not None:
            self._play(self._duel_action, index_answer(index), made)
            self.duel, self._duel_action = None, None
            self._next_turn(made)
        else:
            chosen = _ACTIONS[index]
            options = self.state.beating_cards(chosen) if chosen.kind == DUEL else ()
            if options:
                self._ask_defender(chosen, options)
            else:
                self._play(chosen, None, made)
                self._next_turn(made)
        self.new_steps = tuple(made)

    def _to_move(self) -> int | None:
        if self.end is not None:
            return None
        return self.state.seat if self.duel is None else self.state.defender(self._duel_action)

    def _scores(self) -> tuple[float, ...]:
        return self.state.scores()

    def _truncated(self) -> bool:
        return self.end == TURN_CAP

    def _play(self, action: SecretsAction, beat: Card | None, made: list[SecretsStep]) -> None:
        """The seat to move plays ``action`` (``beat``: the defender's answer)."""
        state = self.state
        seat, at = state.seat, state.active()
        piece = state.occupants[at]
        effects = state.apply(action, beat)
        step = SecretsStep(seat, piece, at, action, beat, effects)
        self.steps.append(step)
        made.append(step)

    def _ask_defender(self, action: SecretsAction, options: tuple[Card, ...]) -> None:
        """The duel ``action`` waits for its defender's answer, as the engine asks it."""
        self.duel = SecretsDuel.of(self.state, action, options)
        self._duel_action = action
        self._mask = allowed([*map(answer_index, options), NO_BEAT], N_ACTIONS)

    def _next_turn(self, made: list[SecretsStep]) -> None:
        """Skip the pieces that have no action, then let the seat to move decide, or end
        the game as the engine ends it."""
        state = self.state
        while True:
            if state.over:
                end = NO_PIECES
            elif state.blocked:
                end = BLOCKED
            elif len(self.steps) >= self.config.max_turns:
                end = TURN_CAP
            else:
                legal = state.legal_actions()
                if not legal:
                    self._play(_SKIP_ACTION, None, made)
                    continue
                self._mask = allowed([_INDEX[action] for action in legal], N_ACTIONS)
                return
            break
        self.end = end
        self._mask = allowed((), N_ACTIONS)

    # -- what is seen --------------------------------------------------------------------

    def observe(self, agent: str) -> dict[str, Any]:
        mask = self._mask.copy() if self._decides(agent) else None
        return encode_view(self.state.view(self.seat_of(agent)), self.duel, mask)


class AgentSeats(BaseAgentSeats):
    """Secrets agents acting through a `SecretsEnv` (`eleusis_lab.envs.seats.BaseAgentSeats`).

    The agents are told the game starts as `play_secrets` tells them (the same
    `eleusis_lab.secrets.agent.SecretsInfo` and a generator spawned from the seed
    alike), choose among the legal actions and answer duels as there, and observe every
    turn. So with the same seed they play the game the engine plays, as long as none of
    them faults: here a fault raises (ValueError for an illegal action or answer).
    """

    def action(self, agent: str) -> int:
        """The env action of ``agent``'s decision: its turn, or its answer to a duel."""
        env = self.env
        seat = env.seat_of(agent)
        view = env.state.view(seat)
        if env.duel is not None:
            return answer_index(
                _beating_card(self.agents[agent].answer_duel(view, env.duel), env.duel)
            )
        legal = tuple(env.state.legal_actions())
        chosen = self.agents[agent].choose_action(view, legal)
        if chosen not in legal:
            raise ValueError(f"seat {seat} chose {chosen!r}, which is not a legal action now")
        return _INDEX[chosen]

    def _game_info(self, seat: int, agent: SecretsAgent) -> SecretsInfo:
        env = self.env
        return SecretsInfo(seat, SEAT_SUITS[seat], env.setup.hands[seat], env.config.to_dict())

    def _news(self) -> tuple[SecretsStep, ...]:
        return self.env.new_steps


def _beating_card(answer: object, duel: SecretsDuel) -> Card | None:
    """The card an agent's answer to ``duel`` beats with, as the engine reads it."""
    if answer is None or answer is False:
        return None
    if answer is True:
        return min(duel.options, key=beat_value)
    if answer in duel.options:
        return duel.options[duel.options.index(answer)]
    raise ValueError(f"answered {answer!r}; the answers are None or one of {duel.options}")


def play_agents(env: SecretsEnv, agents: Sequence[SecretsAgent], seed: int) -> SecretsState:
    """Play a game of ``env`` from ``seed`` with Secrets ``agents`` (`AgentSeats`); the
    final position."""
    AgentSeats(env, agents).play(seed)
    return env.state
