"""Delphi (RULES.md section 3) as a PettingZoo AEC environment: `DelphiEnv`, a thin
layer over `eleusis_lab.games.delphi.state.DelphiState`, and `AgentSeats` /
`play_agents`, through which the toolkit's agents act in it.

Agents are ``"player_0"`` .. ``"player_{N-1}"`` (`eleusis_lab.envs.seats`; the oracle is
not an agent: the rule judges). ``reset(seed=s)`` deals what
`eleusis_lab.games.delphi.play_delphi` deals for seed ``s`` (a random seed when None).

Actions: ``Box(0, 1, (1,), float64)``
--------------------------------------
Delphi has one kind of decision, a prediction: the agent selected gives its probability
that the card to predict (``observation["card"]``) is right; its token says "right"
when it is at least 0.5. Before each card the seats predict in seat order, none seeing
the others' predictions of that card; the last prediction turns the card. The action is
read as one float (an array of one number or a plain number); a value outside [0, 1]
or NaN raises ValueError (clip a policy's output first). There is no action mask: every
probability is allowed.

Observation: a ``Dict`` (`DelphiEnv.observation_space`)
-------------------------------------------------------
The shared fields of `eleusis_lab.envs.encoding` for one pile: ``hand`` (always empty:
nobody holds cards), ``main_line``, ``wrong`` (one row: the side column), ``last_right``
and ``phase`` (always 1). And Delphi's own:

- ``card``: the face of the card to predict, ``-1`` once every card is judged;
- ``seat``: the observing seat;
- ``chips``: each seat's chips now (the tokens are shown, so chips are public).

Rewards and the end
-------------------
Rewards are 0 until the last card is judged; then each agent's reward is its score
after the settlement, the record's ``player_scores`` (they add up to 0; the oracle's
score is ``env.state.settlement()[1]``). The game always ends by the rules, after the
51 cards: every agent terminates (none is ever truncated). ``env.state`` is the game
(a `DelphiState`), ``env.events`` the oracle's events the last step made. Nothing is
rendered (the record's layout is `eleusis_lab.games.delphi.format_delphi_layout`).

Examples
--------
>>> from eleusis_lab.registry import make_agent
>>> env = DelphiEnv("red(card)", players=2)
>>> env.reset(seed=4)
>>> env.agent_selection, env.action_space("player_0")
('player_0', Box(0.0, 1.0, (1,), float64))
>>> env.step(np.array([1.0]))  # player_0 says "right"; player_1 to predict the same card
>>> env.agent_selection, env.events
('player_1', ())
>>> state = play_agents(env, [make_agent("oracle"), make_agent("random")], seed=4)
>>> from eleusis_lab.games.delphi import play_delphi
>>> record = play_delphi("red(card)", [make_agent("oracle"), make_agent("random")], seed=4)
>>> tuple(state.probabilities) == record.probabilities, state.scores() == env.final_rewards
(True, True)
>>> env.final_rewards, record.player_scores
((50.0, -50.0), (50, -50))
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np
from gymnasium import spaces

from eleusis_lab.agent import Agent, Event, GameInfo
from eleusis_lab.cards import N_FACES
from eleusis_lab.envs.encoding import encode, observation_space
from eleusis_lab.envs.seats import BaseAgentSeats, SeatedEnv
from eleusis_lab.games.delphi.engine import TRAITS, read_probability
from eleusis_lab.games.delphi.record import DECK, GAME, SUBSTITUTE_PROBABILITY
from eleusis_lab.games.delphi.state import DelphiState
from eleusis_lab.record import sees_rule
from eleusis_lab.rules import Rule, parse

__all__ = ["AgentSeats", "DelphiEnv", "play_agents", "prediction_of"]

#: The most chips a seat can hold: one per card judged.
_MOST_CHIPS = len(DECK) - 1


def prediction_of(action: Any) -> float:
    """The probability an action gives: one number in [0, 1] (ValueError otherwise).

    >>> prediction_of(np.array([0.25])), prediction_of(1)
    (0.25, 1.0)
    >>> prediction_of([1.5])
    Traceback (most recent call last):
    ...
    ValueError: a Delphi action is one probability in [0, 1], got [1.5]
    """
    try:
        values = np.asarray(action, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        values = np.empty(0)
    if values.shape != (1,) or not 0.0 <= values[0] <= 1.0:  # NaN fails too
        raise ValueError(f"a Delphi action is one probability in [0, 1], got {action!r}")
    return float(values[0])


class DelphiEnv(SeatedEnv):
    """A game of Delphi as a PettingZoo AEC environment (see the module docstring).

    Parameters
    ----------
    rule : Rule or str
        The oracle's rule.
    players : int
        How many seats predict (at least one).
    """

    metadata = {"name": "delphi_v0", "render_modes": [], "is_parallelizable": False}

    def __init__(self, rule: Rule | str = "red(card)", players: int = 2):
        rule = parse(rule) if isinstance(rule, str) else rule
        if not (isinstance(players, int) and players >= 1):
            raise ValueError(f"Delphi needs at least one player, got {players!r}")
        space = spaces.Dict(
            {
                **observation_space(1).spaces,
                "card": spaces.Discrete(N_FACES + 1, start=-1),
                "seat": spaces.Discrete(players),
                "chips": spaces.Box(0, _MOST_CHIPS, (players,), np.int8),
            }
        )
        super().__init__(players, space, partial(spaces.Box, 0.0, 1.0, (1,), np.float64))
        self.rule = rule
        #: The game being played (None before the first reset).
        self.state: DelphiState | None = None
        self.events: tuple[Event, ...] = ()

    def _deal(self, seed: int) -> None:
        self.state = DelphiState.deal(self.rule, seed, players=self.n)
        self.events = ()

    def _apply(self, action: Any) -> None:
        self.events = self.state.apply(prediction_of(action))

    def _to_move(self) -> int | None:
        return self.state.to_move()

    def _scores(self) -> tuple[float, ...]:
        return self.state.scores()

    def observe(self, agent: str) -> dict[str, Any]:
        seat, state = self.seat_of(agent), self.state
        card = state.card
        return {
            **encode(state.observation(seat), 1),
            "card": -1 if card is None else card.face,
            "seat": seat,
            "chips": np.minimum(state.chips(), _MOST_CHIPS).astype(np.int8),
        }


class AgentSeats(BaseAgentSeats):
    """Toolkit agents acting through a `DelphiEnv` (`eleusis_lab.envs.seats.BaseAgentSeats`).

    The agents are told the game starts as `play_delphi` tells them (the same
    `eleusis_lab.agent.GameInfo` and a generator spawned from the seed alike), predict
    as there (``predict(observation, [card])``) and observe every card's verdict. So
    with the same seed they make the predictions the engine records. An answer that is
    not one probability in [0, 1] counts as 0.5, as the engine counts it (here nothing
    is recorded and an agent's exception goes up).
    """

    def action(self, agent: str) -> np.ndarray:
        """``agent``'s prediction of the card to predict, as an env action."""
        state, seat = self.env.state, self.env.seat_of(agent)
        answer = self.agents[agent].predict(state.observation(seat), [state.card])
        p = read_probability(answer)
        return np.array([SUBSTITUTE_PROBABILITY if p is None else p])

    def _game_info(self, seat: int, agent: Agent) -> GameInfo:
        rule = self.env.rule if sees_rule(agent) else None
        return GameInfo(GAME, seat, self.env.n, (), self.env.state.starter, rule, TRAITS)


def play_agents(env: DelphiEnv, agents: Sequence[Agent], seed: int) -> DelphiState:
    """Play a game of ``env`` from ``seed`` with toolkit ``agents`` (`AgentSeats`); the
    final state."""
    AgentSeats(env, agents).play(seed)
    return env.state
