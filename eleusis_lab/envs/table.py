"""Classic Eleusis and its 4-8 player variant as PettingZoo AEC environments:
`ClassicEnv` and `FourToEightEnv` (`raw_env` / `env` by PettingZoo's conventions), thin
layers over `eleusis_lab.games.classic.state.MainLineState`, and `AgentSeats` /
`play_agents`, through which the toolkit's agents act in them.

Agents are ``"player_0"`` .. ``"player_{N-1}"``, seat 0 left of the dealer (the dealer
is not an agent: the rule judges). ``reset(seed=s)`` deals what
`eleusis_lab.games.classic.play_classic` (or ``play_four_to_eight``) deals for seed
``s``; ``reset()`` draws a seed (``env.seed`` tells it). Of the game's config,
``hand_size``, ``max_turns`` and ``retry_in_turn`` apply; its fault and time options
are the engine's, not the environment's.

Actions: ``Discrete(52)``, a face (`eleusis_lab.envs.encoding`)
----------------------------------------------------------------
The seat to move plays the first card of that face among the cards it may play now
(its hand in phase 1, its wrong cards in phase 2, less those tried this turn with
``retry_in_turn``). A face it is not offered is played as the engine plays an illegal
card (its fault rule): the first card offered. So every action moves the game on.

Observation: ``{"observation": ..., "action_mask": ...}``
----------------------------------------------------------
PettingZoo's convention for masked games (as its classic games, which
``pettingzoo.test.api_test`` reads): ``observation`` is
`eleusis_lab.envs.encoding.encode` of what the seat sees (``hand``: the cards it may
play now when it is to move, every card it holds otherwise; ``main_line``, ``wrong``,
``last_right``, ``phase``), with ``last_right`` and ``phase`` as ``numpy.int64``;
``action_mask`` (``int8``, 52) marks the faces the seat may play now, all 0 when it is
not to move.

Rewards and the end
-------------------
Rewards are 0 until the game ends; then each agent's reward is its score, the record's
``player_scores`` (RULES.md 1.4, 2): what the toolkit's results rank players by, so a
policy learns the game's own objective. The dealer's score is no agent's
(``env.game_state.dealer_score()``). A game that ends by the rules (a player out, or
nobody holds a right card) terminates every agent; one stopped at ``max_turns``
truncates them (still scored). ``env.game_state`` is the position (a `MainLineState`)
and ``env.events`` the game's events (`eleusis_lab.agent.Event`).

Examples
--------
>>> from eleusis_lab.registry import make_agent
>>> env = ClassicEnv("red(card)", players=3)
>>> env.reset(seed=1)
>>> env.agent_selection, env.observe("player_0")["action_mask"].sum()
('player_0', np.int64(17))
>>> state = play_agents(env, [make_agent("random") for _ in range(3)], seed=1)
>>> from eleusis_lab.games.classic import play_classic
>>> record = play_classic("red(card)", [make_agent("random") for _ in range(3)], seed=1)
>>> record.events == tuple(env.events), record.player_scores == state.scores(), env.agents
(True, True, [])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from eleusis_lab.agent import Agent, Event, GameInfo
from eleusis_lab.cards import N_FACES
from eleusis_lab.engines import card_key
from eleusis_lab.envs.encoding import action_mask, action_space, card_of, encode, observation_space
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.classic.engine import ClassicConfig
from eleusis_lab.games.classic.state import CLASSIC, MainLineGame, MainLineState
from eleusis_lab.games.four_to_eight.engine import FOUR_TO_EIGHT, FourToEightConfig, deck_plan
from eleusis_lab.record import TURN_CAP, sees_rule
from eleusis_lab.rules import Rule, parse

__all__ = [
    "AgentSeats",
    "ClassicEnv",
    "FourToEightEnv",
    "MainLineEnv",
    "env",
    "play_agents",
    "raw_env",
]

#: The games of this environment: their `MainLineGame` and config class, by name.
GAMES: dict[str, tuple[MainLineGame, type]] = {
    CLASSIC.name: (CLASSIC, ClassicConfig),
    FOUR_TO_EIGHT.name: (FOUR_TO_EIGHT, FourToEightConfig),
}


class MainLineEnv(AECEnv):
    """A game of classic Eleusis or of its 4-8 player variant (the module tells the
    spaces, rewards and ends).

    Parameters
    ----------
    rule : Rule or str
        The dealer's rule.
    players : int
        The seats (classic: 2 or more; four-to-eight: 3, 5, 6, 7 or 8).
    config : ClassicConfig or FourToEightConfig, optional
        The game's options; its defaults when omitted.
    game : {"classic", "four-to-eight"}
        The game.
    render_mode : {None, "ansi"}
        ``"ansi"``: `render` returns the position as text.
    """

    metadata = {"name": "eleusis_table_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(
        self,
        rule: Rule | str,
        players: int = 3,
        config: Any = None,
        game: str = "classic",
        render_mode: str | None = None,
    ):
        super().__init__()
        if game not in GAMES:
            raise ConfigError(f"no main-line game {game!r}; one of {sorted(GAMES)}")
        self.variant, config_type = GAMES[game]
        if game == FOUR_TO_EIGHT.name:
            deck_plan(players)  # a number of players the table deals, or a ConfigError
        elif not (isinstance(players, int) and players >= 2):
            raise ConfigError(f"classic Eleusis needs 2 or more players, got {players!r}")
        if render_mode not in (None, "ansi"):
            raise ConfigError(f"render_mode is None or 'ansi', got {render_mode!r}")
        self.rule = parse(rule) if isinstance(rule, str) else rule
        self.n = players
        self.config = config_type() if config is None else config
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"eleusis_{game.replace('-', '_')}_v0"}
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self._seats = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        mask = spaces.Box(0, 1, (N_FACES,), np.int8)
        self.observation_spaces = {
            agent: spaces.Dict({"observation": observation_space(players), "action_mask": mask})
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: action_space() for agent in self.possible_agents}
        self._draw_seeds = np.random.default_rng()
        self.seed: int | None = None
        self.game_state: MainLineState | None = None
        self.events: list[Event] = []

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    def seat_of(self, agent: str) -> int:
        """The seat of ``agent`` (``"player_2"``: 2)."""
        return self._seats[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal the game of ``seed`` (a drawn seed when None); ``options`` are ignored."""
        if seed is None:
            seed = int(self._draw_seeds.integers(2**63))
        self.seed = seed
        self.game_state = MainLineState.deal(
            self.rule, seed, self.config, players=self.n, variant=self.variant
        )
        self.events = []
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict] = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self.game_state.seat]  # type: ignore[index]

    def step(self, action: int | None) -> None:
        """Play the first offered card of face ``action`` (the first card offered when
        the face is not offered) for the agent to move; ``None`` once it is done."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.game_state
        assert state is not None  # reset first
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        offered = state.legal_actions()
        card = None if action is None else card_of(int(action), offered)
        self.events.append(state.play(offered[0] if card is None else card))
        if state.seat is None:
            done = self.truncations if state.end == TURN_CAP else self.terminations
            for other, score in zip(self.possible_agents, state.scores(), strict=True):
                self.rewards[other] = float(score)
                done[other] = True
        else:
            self.agent_selection = self.possible_agents[state.seat]
        self._accumulate_rewards()

    def observe(self, agent: str) -> dict[str, Any]:
        state, seat = self.game_state, self._seats[agent]
        assert state is not None  # reset first
        obs = state.observation(seat)
        encoded = encode(obs, self.n)
        encoded["last_right"] = np.int64(encoded["last_right"])
        encoded["phase"] = np.int64(encoded["phase"])
        mask = action_mask(obs.hand) if seat == state.seat else np.zeros(N_FACES, np.int8)
        return {"observation": encoded, "action_mask": mask}

    def render(self) -> str | None:
        """With ``render_mode="ansi"``: the main line, each seat's wrong cards and who is
        to move, as text."""
        state = self.game_state
        if self.render_mode != "ansi" or state is None:
            return None
        lines = ["main line: " + " ".join(map(str, state.main))]
        for seat, pile in enumerate(state.piles):
            lines.append(f"player_{seat} wrong: " + " ".join(map(str, pile)))
        lines.append(f"to move: {state.seat}" if state.seat is not None else f"end: {state.end}")
        return "\n".join(lines)

    def close(self) -> None:
        """Nothing to release."""


class ClassicEnv(MainLineEnv):
    """Classic Eleusis (RULES.md section 1) as an AEC environment (see the module)."""

    def __init__(
        self,
        rule: Rule | str,
        players: int = 3,
        config: ClassicConfig | None = None,
        render_mode: str | None = None,
    ):
        super().__init__(rule, players, config, CLASSIC.name, render_mode)


class FourToEightEnv(MainLineEnv):
    """The 4-8 player variant (RULES.md section 2) as an AEC environment (see the
    module)."""

    def __init__(
        self,
        rule: Rule | str,
        players: int = 3,
        config: FourToEightConfig | None = None,
        render_mode: str | None = None,
    ):
        super().__init__(rule, players, config, FOUR_TO_EIGHT.name, render_mode)


def raw_env(
    rule: Rule | str, players: int = 3, game: str = "classic", **kwargs: Any
) -> MainLineEnv:
    """The environment of ``game`` unwrapped (`MainLineEnv`'s parameters)."""
    return MainLineEnv(rule, players, game=game, **kwargs)


def env(rule: Rule | str, players: int = 3, game: str = "classic", **kwargs: Any) -> AECEnv:
    """The environment of ``game`` in PettingZoo's order-enforcing wrapper (no step
    before reset). No illegal-move wrapper: a face not offered plays the first card
    offered (see the module).

    >>> table = env("red(card)", players=5, game="four-to-eight")
    >>> table.reset(seed=0)
    >>> table.agent_selection, len(table.possible_agents)
    ('player_0', 5)
    """
    return wrappers.OrderEnforcingWrapper(raw_env(rule, players, game, **kwargs))


class AgentSeats:
    """Toolkit agents (`eleusis_lab.agent.Agent`) acting through a `MainLineEnv`.

    Each agent is told the game starts as the engine tells it (the same `GameInfo`, the
    rule only to an agent that sees it, and the generator the engine spawns from the
    seed for its seat), is asked with the `eleusis_lab.agent.Observation` the engine
    gives, and observes every event before its next decision. So with the same seed they
    play the game the engine plays while none of them faults (here a fault raises:
    ValueError for an answer that is not a card). The env plays the first offered card
    of the chosen card's face: in the 4-8 player variant, whose deck has two copies of
    some faces, which copy is played may differ from the engine's game.

    Parameters
    ----------
    env : MainLineEnv
        The environment (unwrapped); call `start` after each reset.
    agents : sequence of Agent, or mapping of agent name to Agent
        One per seat, seat 0 first; or some seats only, the others left to other
        policies.
    """

    def __init__(self, env: MainLineEnv, agents: Sequence[Agent] | Mapping[str, Agent]):
        if not isinstance(agents, Mapping):
            if len(agents) != env.n:
                raise ValueError(f"{len(agents)} agents for {env.n} seats")
            agents = dict(zip(env.possible_agents, agents, strict=True))
        self.env, self.agents = env, dict(agents)
        self._told = 0

    def start(self) -> None:
        """Start every agent on the env's game, as the engine does."""
        env, state = self.env, self.env.game_state
        assert state is not None and env.seed is not None  # reset first
        rngs = np.random.SeedSequence(env.seed).spawn(env.n)
        for name, agent in self.agents.items():
            seat = env.seat_of(name)
            rule = state.rule if sees_rule(agent) else None
            hand = state.deal_hands[seat]
            variant = env.variant
            info = GameInfo(variant.name, seat, env.n, hand, state.starter, rule, variant.traits)
            agent.start_game(info, np.random.default_rng(rngs[seat]))
        self._told = 0

    def observe(self) -> None:
        """Tell every agent the events it has not heard yet."""
        events = self.env.events
        for event in events[self._told :]:
            for agent in self.agents.values():
                agent.observe(event)
        self._told = len(events)

    def action(self, agent: str) -> int:
        """The face ``agent``'s toolkit agent plays now."""
        self.observe()
        state = self.env.game_state
        assert state is not None  # reset first
        card = self.agents[agent].choose_play(state.observation(self.env.seat_of(agent)))
        key = card_key(card)
        if key is None:
            raise ValueError(f"{agent} answered {card!r}, not a card")
        rank, suit, _ = key
        return 13 * suit + rank - 1


def play_agents(env: MainLineEnv, agents: Sequence[Agent], seed: int) -> MainLineState:
    """Play one game of ``env`` with a toolkit agent at every seat (`AgentSeats`); the
    final position (the env is left with every agent done)."""
    seats = AgentSeats(env, agents)
    env.reset(seed=seed)
    seats.start()
    for agent in env.agent_iter():
        _, _, terminated, truncated, _ = env.last(observe=False)
        env.step(None if terminated or truncated else seats.action(agent))
    seats.observe()
    assert env.game_state is not None
    return env.game_state
