"""Classic Eleusis and its 4-8 player variant as PettingZoo AEC environments:
`ClassicEnv` and `FourToEightEnv` (`raw_env` / `env` by PettingZoo's conventions), thin
layers over `eleusis_lab.games.classic.state.MainLineState`, and `AgentSeats` /
`play_agents`, through which the toolkit's agents act in them.

Agents are ``"player_0"`` .. ``"player_{N-1}"`` (`eleusis_lab.envs.seats`), seat 0 left
of the dealer (the dealer is not an agent: the rule judges). ``reset(seed=s)`` deals
what `eleusis_lab.games.classic.play_classic` (or ``play_four_to_eight``) deals for seed
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
``last_right``, ``phase``); ``action_mask`` (``int8``, 52) marks the faces the seat may
play now, all 0 when it is not to move.

Rewards and the end
-------------------
Rewards are 0 until the game ends; then each agent's reward is its score, the record's
``player_scores`` (RULES.md 1.4, 2; ``env.final_rewards``): what the toolkit's results
rank players by, so a policy learns the game's own objective. The dealer's score is no agent's
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

from collections.abc import Sequence
from typing import Any

from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from eleusis_lab.agent import Agent, Event, GameInfo
from eleusis_lab.engines import card_key
from eleusis_lab.envs.encoding import (
    action_mask,
    action_space,
    allowed,
    card_of,
    encode,
    mask_space,
    observation_space,
)
from eleusis_lab.envs.seats import BaseAgentSeats, SeatedEnv
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


class MainLineEnv(SeatedEnv):
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
        if game not in GAMES:
            raise ConfigError(f"no main-line game {game!r}; one of {sorted(GAMES)}")
        self.variant, config_type = GAMES[game]
        if game == FOUR_TO_EIGHT.name:
            deck_plan(players)  # a number of players the table deals, or a ConfigError
        elif not (isinstance(players, int) and players >= 2):
            raise ConfigError(f"classic Eleusis needs 2 or more players, got {players!r}")
        if render_mode not in (None, "ansi"):
            raise ConfigError(f"render_mode is None or 'ansi', got {render_mode!r}")
        space = spaces.Dict(
            {"observation": observation_space(players), "action_mask": mask_space()}
        )
        super().__init__(players, space, action_space)
        self.rule = parse(rule) if isinstance(rule, str) else rule
        self.config = config_type() if config is None else config
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"eleusis_{game.replace('-', '_')}_v0"}
        self.game_state: MainLineState | None = None
        self.events: list[Event] = []

    def _deal(self, seed: int) -> None:
        self.game_state = MainLineState.deal(
            self.rule, seed, self.config, players=self.n, variant=self.variant
        )
        self.events = []

    def _apply(self, action: int | None) -> None:
        """Play the first offered card of face ``action`` (the first card offered when
        the face is not offered)."""
        offered = self.game_state.legal_actions()
        card = None if action is None else card_of(int(action), offered)
        self.events.append(self.game_state.play(offered[0] if card is None else card))

    def _to_move(self) -> int | None:
        return self.game_state.seat

    def _scores(self) -> tuple[float, ...]:
        return self.game_state.scores()

    def _truncated(self) -> bool:
        return self.game_state.end == TURN_CAP

    def observe(self, agent: str) -> dict[str, Any]:
        obs = self.game_state.observation(self.seat_of(agent))
        mask = action_mask(obs.hand) if self._decides(agent) else allowed(())
        return {"observation": encode(obs, self.n), "action_mask": mask}

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


class AgentSeats(BaseAgentSeats):
    """Toolkit agents (`eleusis_lab.agent.Agent`) acting through a `MainLineEnv`
    (`eleusis_lab.envs.seats.BaseAgentSeats`).

    Each agent is told the game starts as the engine tells it (the same `GameInfo`, the
    rule only to an agent that sees it, and the generator the engine spawns from the
    seed for its seat), is asked with the `eleusis_lab.agent.Observation` the engine
    gives, and observes every event before its next decision. So with the same seed they
    play the game the engine plays while none of them faults (here a fault raises:
    ValueError for an answer that is not a card). The env plays the first offered card
    of the chosen card's face: in the 4-8 player variant, whose deck has two copies of
    some faces, which copy is played may differ from the engine's game.
    """

    def start(self) -> None:
        super().start()
        self._told = 0  # the env's events told to the agents

    def action(self, agent: str) -> int:
        """The face ``agent``'s toolkit agent plays now."""
        self.observe()
        state = self.env.game_state
        card = self.agents[agent].choose_play(state.observation(self.env.seat_of(agent)))
        key = card_key(card)
        if key is None:
            raise ValueError(f"{agent} answered {card!r}, not a card")
        rank, suit, _ = key
        return 13 * suit + rank - 1

    def _game_info(self, seat: int, agent: Agent) -> GameInfo:
        state, variant = self.env.game_state, self.env.variant
        rule = state.rule if sees_rule(agent) else None
        hand = state.deal_hands[seat]
        return GameInfo(variant.name, seat, self.env.n, hand, state.starter, rule, variant.traits)

    def _news(self) -> list[Event]:
        news = self.env.events[self._told :]
        self._told = len(self.env.events)
        return news


def play_agents(env: MainLineEnv, agents: Sequence[Agent], seed: int) -> MainLineState:
    """Play one game of ``env`` with a toolkit agent at every seat (`AgentSeats`); the
    final position (the env is left with every agent done)."""
    AgentSeats(env, agents).play(seed)
    return env.game_state
