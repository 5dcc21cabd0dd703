"""What the PettingZoo environments of several seats share: `SeatedEnv`, the AEC
environment a game's environment extends with its own deal, actions and observation, and
`BaseAgentSeats`, through which the toolkit's agents act in one.

Agents are ``"player_0"`` .. ``"player_{N-1}"``, by seat (`SeatedEnv.seat_of`). Every
agent has the same observation space and an action space of its own (so each samples
from its own generator). ``reset(seed=s)`` deals the game of seed ``s``, a random seed
when None (``env.seed`` tells it). Rewards are 0 until the game is over; then each
agent's reward is its score (``env.final_rewards``) and every agent is done: truncated
when the game's turn cap stopped it, else terminated. The first agent is then selected,
and PettingZoo's ``agent_iter`` steps each one out in seat order.

Examples
--------
A game of two seats that each say a number once, the larger scoring 1:

>>> from gymnasium import spaces
>>> class Bids(SeatedEnv):
...     metadata = {"name": "bids_v0", "render_modes": [], "is_parallelizable": False}
...     def __init__(self):
...         super().__init__(2, spaces.Discrete(1), lambda: spaces.Discrete(10))
...     def _deal(self, seed):
...         self.bids = []
...     def _apply(self, action):
...         self.bids.append(int(action))
...     def _to_move(self):
...         return len(self.bids) if len(self.bids) < 2 else None
...     def _scores(self):
...         return tuple(float(bid == max(self.bids)) for bid in self.bids)
...     def observe(self, agent):
...         return 0
>>> env = Bids()
>>> env.reset(seed=0)
>>> env.agent_selection, env.seat_of("player_1"), env.action_space("player_1")
('player_0', 1, Discrete(10))
>>> env.step(3)
>>> env.step(7)
>>> env.final_rewards, env.rewards, all(env.terminations.values())
((0.0, 1.0), {'player_0': 0.0, 'player_1': 1.0}, True)
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from eleusis_lab.engines import check_seed

__all__ = ["BaseAgentSeats", "SeatedEnv"]

_SEEDS = 2**63  # the game seeds an unseeded reset draws from


class SeatedEnv(AECEnv, abc.ABC):
    """A game of ``players`` seats as a PettingZoo AEC environment (see the module).

    A game's environment makes its first position in `_deal`, moves it in `_apply`,
    and says whose decision is next (`_to_move`) and, once the game is over, the scores
    (`_scores`) and whether its turn cap stopped it (`_truncated`); it observes in
    ``observe`` and sets PettingZoo's ``metadata``.

    Parameters
    ----------
    players : int
        The seats, each an agent.
    observation_space : gymnasium.spaces.Space
        Every agent's observation space.
    action_space : callable
        Makes an agent's action space.

    Attributes
    ----------
    n : int
        The seats.
    seed : int or None
        The seed of the game dealt, after `reset`.
    final_rewards : tuple of float or None
        Each agent's score once the game is over, else None.
    """

    def __init__(
        self,
        players: int,
        observation_space: spaces.Space,
        action_space: Callable[[], spaces.Space],
    ):
        super().__init__()
        self.n = players
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self._seats = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation_space)
        self.action_spaces = {agent: action_space() for agent in self.possible_agents}
        self.seed: int | None = None
        self.final_rewards: tuple[float, ...] | None = None

    def seat_of(self, agent: str) -> int:
        """The seat of ``agent`` (``"player_2"``: 2)."""
        return self._seats[agent]

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal the game of ``seed``, what the game's play function deals for it (a
        random seed when None); ``options`` are ignored."""
        if seed is None:
            seed = int(np.random.default_rng().integers(_SEEDS))
        self.seed = check_seed(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.final_rewards = None
        self._deal(self.seed)
        self._select()

    def step(self, action: Any) -> None:
        """Take ``action`` for the agent selected (None once it is done)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self._apply(action)
        self._select()
        self._accumulate_rewards()

    def render(self) -> Any:
        """Nothing to render: None (a game's record has its own layout)."""
        return None

    def close(self) -> None:
        """Nothing to release."""

    def _decides(self, agent: str) -> bool:
        """Whether ``agent`` is the one to decide now (only its mask allows actions)."""
        return self._to_move() == self.seat_of(agent)

    def _select(self) -> None:
        """Select the agent to decide; once the game is over, score it."""
        seat = self._to_move()
        if seat is not None:
            self.agent_selection = self.possible_agents[seat]
            return
        self.agent_selection = self.agents[0]
        self.final_rewards = self._scores()
        cut = self._truncated()
        for agent, score in zip(self.possible_agents, self.final_rewards, strict=True):
            self.rewards[agent] = float(score)
            self.terminations[agent] = not cut
            self.truncations[agent] = cut

    # -- what a game's environment writes -------------------------------------------------

    @abc.abstractmethod
    def _deal(self, seed: int) -> None:
        """Make the game's first position for ``seed``."""

    @abc.abstractmethod
    def _apply(self, action: Any) -> None:
        """Move the game on with the selected agent's ``action`` (ValueError for an
        action it refuses, before changing anything)."""

    @abc.abstractmethod
    def _to_move(self) -> int | None:
        """The seat whose decision is next, or None once the game is over."""

    @abc.abstractmethod
    def _scores(self) -> tuple[float, ...]:
        """Each seat's score, once the game is over."""

    def _truncated(self) -> bool:
        """Whether the game's turn cap stopped it (rather than its rules ending it)."""
        return False


class BaseAgentSeats(abc.ABC):
    """Toolkit agents acting through a `SeatedEnv`, asked as the game's engine asks them.

    `start` tells each agent the game starts as the engine tells it, with the generator
    the engine spawns from the seed for its seat; `action` asks an agent for its
    decision as the env's action; `observe` tells every agent what the env's steps made
    since it was last told; `play` plays a whole game. A game's seats say what an agent
    is told at the start (`_game_info`), what is new to tell (`_news`) and how an
    agent's decision is asked (`action`).

    Parameters
    ----------
    env : SeatedEnv
        The environment (unwrapped); call `start` after each reset.
    agents : sequence or mapping
        An agent per seat, seat 0 first; or a mapping of agent names (``"player_1"``)
        to agents for some seats only, the others left to other policies.
    """

    def __init__(self, env: SeatedEnv, agents: Sequence[Any] | Mapping[str, Any]):
        if not isinstance(agents, Mapping):
            if len(agents) != env.n:
                raise ValueError(f"{len(agents)} agents for {env.n} seats")
            agents = dict(zip(env.possible_agents, agents, strict=True))
        self.env, self.agents = env, dict(agents)

    def start(self) -> None:
        """Start every agent on the env's game, as the engine does."""
        env = self.env
        children = np.random.SeedSequence(env.seed).spawn(env.n)
        for name, agent in self.agents.items():
            seat = env.seat_of(name)
            agent.start_game(self._game_info(seat, agent), np.random.default_rng(children[seat]))

    def observe(self) -> None:
        """Tell every agent what the env's steps made that it has not heard yet."""
        for news in self._news():
            for agent in self.agents.values():
                agent.observe(news)

    @abc.abstractmethod
    def action(self, agent: str) -> Any:
        """The env action of ``agent``'s decision now."""

    def play(self, seed: int) -> None:
        """Play the game of ``seed`` to the end, a toolkit agent at every seat (the env
        is left with every agent done)."""
        env = self.env
        env.reset(seed=seed)
        self.start()
        self.observe()  # what the deal made before the first decision, if anything
        for agent in env.agent_iter():
            _, _, terminated, truncated, _ = env.last(observe=False)
            if terminated or truncated:
                env.step(None)  # steps a done agent out: nothing new to tell
            else:
                env.step(self.action(agent))
                self.observe()

    @abc.abstractmethod
    def _game_info(self, seat: int, agent: Any) -> Any:
        """What ``agent`` at ``seat`` is told as the game starts."""

    def _news(self) -> Iterable[Any]:
        """What the env's steps made since the agents were last told: by default the
        env's ``events``, those its last step made."""
        return self.env.events
