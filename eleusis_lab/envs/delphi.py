"""Delphi (RULES.md section 3) as a PettingZoo AEC environment: `DelphiEnv`, a thin
layer over `eleusis_lab.games.delphi.state.DelphiState`, and `AgentSeats` /
`play_agents`, through which the toolkit's agents act in it.

Agents are ``"player_0"`` .. ``"player_{N-1}"`` (the oracle is not an agent: the rule
judges). ``reset(seed=s)`` deals what `eleusis_lab.games.delphi.play_delphi` deals for
seed ``s`` (a random seed when None).

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
(a `DelphiState`), ``env.events`` the oracle's events the last step made.

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
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from eleusis_lab.agent import Agent, Event, GameInfo
from eleusis_lab.cards import N_FACES
from eleusis_lab.engines import check_seed
from eleusis_lab.envs.encoding import encode, observation_space
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


class DelphiEnv(AECEnv):
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
        super().__init__()
        self.rule = parse(rule) if isinstance(rule, str) else rule
        if not (isinstance(players, int) and players >= 1):
            raise ValueError(f"Delphi needs at least one player, got {players!r}")
        self.n = players
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self._seats = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        space = spaces.Dict(
            {
                **observation_space(1).spaces,
                "card": spaces.Discrete(N_FACES + 1, start=-1),
                "seat": spaces.Discrete(players),
                "chips": spaces.Box(0, _MOST_CHIPS, (players,), np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {
            agent: spaces.Box(0.0, 1.0, (1,), np.float64) for agent in self.possible_agents
        }
        #: The game being played (None before the first reset) and its seed.
        self.state: DelphiState | None = None
        self.seed: int | None = None
        self.events: tuple[Event, ...] = ()
        #: Each agent's score once the game is over, else None.
        self.final_rewards: tuple[float, ...] | None = None

    def seat_of(self, agent: str) -> int:
        """The seat of ``agent`` (``"player_2"``: 2)."""
        return self._seats[agent]

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Box:
        return self.action_spaces[agent]

    # -- the game ------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game: the deal of `play_delphi` for ``seed`` (a random seed when
        None)."""
        if seed is None:
            seed = int(np.random.default_rng().integers(2**63))
        self.seed = check_seed(seed)
        self.state = DelphiState.deal(self.rule, self.seed, players=self.n)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.events, self.final_rewards = (), None
        self._select()

    def _select(self) -> None:
        seat = self.state.to_move()
        if seat is not None:
            self.agent_selection = self.possible_agents[seat]
            return
        self.agent_selection = self.agents[0]
        self.final_rewards = self.state.scores()
        for agent, score in zip(self.possible_agents, self.final_rewards, strict=True):
            self.rewards[agent] = score
            self.terminations[agent] = True

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        prediction = prediction_of(action)
        self._cumulative_rewards[agent] = 0
        self._clear_rewards()
        self.events = self.state.apply(prediction)
        self._select()
        self._accumulate_rewards()

    # -- what is seen --------------------------------------------------------------------

    def observe(self, agent: str) -> dict[str, Any]:
        seat, state = self._seats[agent], self.state
        card = state.card
        return {
            **encode(state.observation(seat), 1),
            "card": -1 if card is None else card.face,
            "seat": seat,
            "chips": np.minimum(state.chips(), _MOST_CHIPS).astype(np.int8),
        }

    def render(self) -> None:
        """Nothing to render (the record's layout is
        `eleusis_lab.games.delphi.format_delphi_layout`)."""
        return None

    def close(self) -> None:
        return None


class AgentSeats:
    """Toolkit agents acting through a `DelphiEnv`, one per seat.

    The agents are told the game starts as `play_delphi` tells them (the same
    `eleusis_lab.agent.GameInfo` and a generator spawned from the seed alike), predict
    as there (``predict(observation, [card])``) and observe every card's verdict. So
    with the same seed they make the predictions the engine records. An answer that is
    not one probability in [0, 1] counts as 0.5, as the engine counts it (here nothing
    is recorded and an agent's exception goes up).

    Parameters
    ----------
    env : DelphiEnv
        Reset already; call `start` after each reset.
    agents : sequence of Agent
        One per seat, seat 0 first.
    """

    def __init__(self, env: DelphiEnv, agents: Sequence[Agent]):
        if len(agents) != env.n:
            raise ValueError(f"{len(agents)} agents for {env.n} seats")
        self.env, self.agents = env, list(agents)

    def start(self) -> None:
        """Start every agent on the env's game, as the engine does."""
        env, n = self.env, self.env.n
        rngs = [np.random.default_rng(child) for child in np.random.SeedSequence(env.seed).spawn(n)]
        for seat, agent in enumerate(self.agents):
            rule = env.rule if sees_rule(agent) else None
            info = GameInfo(GAME, seat, n, (), env.state.starter, rule, TRAITS)
            agent.start_game(info, rngs[seat])

    def action(self, agent: str) -> np.ndarray:
        """``agent``'s prediction of the card to predict, as an env action."""
        state, seat = self.env.state, self.env.seat_of(agent)
        answer = self.agents[seat].predict(state.observation(seat), [state.card])
        p = read_probability(answer)
        return np.array([SUBSTITUTE_PROBABILITY if p is None else p])

    def observe(self) -> None:
        """Tell every agent the events of the env's last step."""
        for event in self.env.events:
            for agent in self.agents:
                agent.observe(event)


def play_agents(env: DelphiEnv, agents: Sequence[Agent], seed: int) -> DelphiState:
    """Play a game of ``env`` from ``seed`` with toolkit ``agents`` (`AgentSeats`); the
    final state."""
    env.reset(seed=seed)
    seats = AgentSeats(env, agents)
    seats.start()
    for agent in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else seats.action(agent))
        seats.observe()
    return env.state
