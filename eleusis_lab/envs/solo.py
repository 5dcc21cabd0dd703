"""The solo game (RULES.md section 6) as a Gymnasium environment: `SoloEnv`, a thin
layer over `eleusis_lab.games.solo.state.SoloState`; and `AgentPolicy`, a toolkit agent
choosing its actions.

An episode is one solo game of the published move (``timing="before_verdict"``): each
step plays a card and states the turn's rule before the card's verdict.

Seeding
-------
``reset(seed=s)`` deals exactly as ``play_solo(rule, agent, s, config)``. Given a
sequence of rules, it plays ``rules[s % len(rules)]`` (so seeds 0, 1, 2, ... go round
the rules). ``reset()`` without a seed draws the game's seed from the environment's
generator (``np_random``, seeded by the first seeded reset); ``info["seed"]`` and
``info["rule"]`` say which game was dealt.

Observation
-----------
`eleusis_lab.envs.encoding.observation_space` ``(1)`` (the hand, the main line's last
16 cards, the wrong cards, the previous verdict, the phase, always 1), and one key the
solo game adds: ``turn``, the turns played (``Discrete(max_turns + 1)``), on which the
score of finding the rule depends.

Action
------
A ``spaces.Dict``:

- ``card``: a face (``Discrete(52)``); the first card of that face in the hand is
  played (`eleusis_lab.envs.encoding.card_of`). A face not in the hand plays the first
  card of the hand, the engine's substitute for a faulty play, and ``info`` says so
  (``"illegal_card"``). ``info["action_mask"]`` holds the faces of the hand.
- ``rule``: the tentative rule, as text (``spaces.Text`` of printable ASCII, at most
  `MAX_RULE_TEXT` characters); ``""`` states none.
- ``confidence``: its confidence, ``Box(0, 1, (1,))``.
- ``declare``: 1 declares the rule (``Discrete(2)``).

A statement the engine would take as an agent's fault (a confidence outside [0, 1], a
declaration without a rule) counts as none, and ``info["illegal_statement"]`` says why.
With ``on_fault="raise"`` both faults raise ``ValueError`` instead. Two more forms are
accepted beside the space: a plain face (a card, no statement), and a
`eleusis_lab.games.solo.SoloMove`, taken as `play_solo` takes an agent's (its exact
card, its confidence as given): what `AgentPolicy` returns.

Reward and the end
------------------
Each step's reward is the change of the solo score (`SoloState.score`, the score of
the game if it ended now): -2 for a wrong declaration, ``max_turns + 1 - k`` for the
correct declaration on turn ``k``, 0 otherwise. So an episode's return is exactly the
game's `solo_score`, and a wrong declaration is charged on the step that made it.
``terminated`` is True once the game is over, however it ended: the rule found, the
hand empty, or the turn cap (the rules end the game there and the observation shows
the turn, so it is the end of the task, not a time limit); ``truncated`` is always
False. A deal with no starter (`NO_STARTER`: the rule accepted none of the stock's
cards) is over at once: its mask is empty and the first step ends the episode with
reward 0.

``info`` holds ``action_mask`` (``int8``), ``turn``, ``end`` (None while the game goes
on), and after a step ``event`` (the play) and ``declaration`` (None when none was
made). ``env.unwrapped.state`` is the `SoloState` (``state.record(...)`` makes the
game's `SoloRecord`). The options ``decision_limit`` and ``timing`` concern agents
asked by the engine: the environment ignores the first and plays only the published
timing.

Examples
--------
>>> env = SoloEnv("red(card)")
>>> obs, info = env.reset(seed=3)
>>> int(obs["turn"]), info["end"], bool((info["action_mask"] == obs["hand"].clip(0, 1)).all())
(0, None, True)
>>> face = int(info["action_mask"].nonzero()[0][0])
>>> action = {"card": face, "rule": "red(card)", "confidence": np.array([0.9], np.float32),
...           "declare": 1}
>>> obs, reward, terminated, truncated, info = env.step(action)
>>> reward, terminated, truncated, info["end"]
(30.0, True, False, 'found')
"""

from __future__ import annotations

import operator
import string
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from eleusis_lab.agent import Agent
from eleusis_lab.cards import Card
from eleusis_lab.engines import check_capabilities, describe_seat, own_card
from eleusis_lab.envs.encoding import action_mask, action_space, card_of, encode
from eleusis_lab.envs.encoding import observation_space as table_observation_space
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.solo.decisions import SoloDecisions, SoloMove
from eleusis_lab.games.solo.engine import (
    BEFORE_VERDICT,
    SoloConfig,
    agent_start,
    plain_statement,
)
from eleusis_lab.games.solo.record import GAME, SoloRecord
from eleusis_lab.games.solo.state import SoloState, Statement, Turn
from eleusis_lab.record import sees_rule
from eleusis_lab.rules import Rule, parse

__all__ = ["ENV_ID", "MAX_RULE_TEXT", "AgentPolicy", "SoloEnv"]

#: The longest rule text the action space holds.
MAX_RULE_TEXT = 500
#: The characters of a rule text in the action space: printable ASCII.
RULE_CHARSET = frozenset(string.printable[:-5])  # less the whitespace but the space
#: The environment's id in Gymnasium's registry (``gymnasium.make(ENV_ID, rule=...)``).
ENV_ID = "eleusis_lab/Solo-v0"
_SEEDS = 2**32  # the game seeds an unseeded reset draws from


class SoloEnv(gym.Env):
    """The solo game as a Gymnasium environment (see the module docstring).

    Parameters
    ----------
    rule : Rule, str, or sequence of them
        The secret rule; with several, ``reset(seed=s)`` plays ``rules[s % len(rules)]``.
    config : SoloConfig, optional
        The game's options (``timing`` must be ``"before_verdict"``).
    render_mode : {None, "ansi"}
        ``"ansi"``: `render` returns the table as text.

    Attributes
    ----------
    state : SoloState or None
        The game, after `reset`.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}  # fps: the checker asks for one

    def __init__(
        self,
        rule: Rule | str | Sequence[Rule | str],
        config: SoloConfig | None = None,
        render_mode: str | None = None,
    ):
        many = not isinstance(rule, (str, Rule))
        self.rules = tuple(
            parse(r) if isinstance(r, str) else r for r in (rule if many else (rule,))
        )
        if not self.rules:
            raise ConfigError("SoloEnv needs at least one rule")
        self.config = SoloConfig() if config is None else config
        if self.config.timing != BEFORE_VERDICT:
            raise ConfigError(
                "SoloEnv plays the published move (timing='before_verdict'): a step states"
                f" its rule with its card; got timing={self.config.timing!r}"
            )
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ConfigError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        self.observation_space = spaces.Dict(
            {
                **table_observation_space(1).spaces,
                "turn": spaces.Discrete(self.config.max_turns + 1),
            }
        )
        self.action_space = spaces.Dict(
            {
                "card": action_space(),
                "rule": spaces.Text(MAX_RULE_TEXT, min_length=0, charset=RULE_CHARSET),
                "confidence": spaces.Box(0.0, 1.0, (1,), np.float32),
                "declare": spaces.Discrete(2),
            }
        )
        self.state: SoloState | None = None
        self._reported = False  # the end of the game was returned by a step

    # -- the episode ----------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Deal a new game: the one ``play_solo`` deals for ``seed`` (or a seed drawn
        from ``np_random``); the observation and ``info`` (with ``seed`` and ``rule``)."""
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(_SEEDS)) if seed is None else seed
        rule = self.rules[game_seed % len(self.rules)]
        self.state = SoloState.deal(rule, game_seed, self.config)
        self._reported = False
        info = self._info()
        info.update(seed=self.state.seed, rule=rule.text)
        return self._observe(), info

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Play the action's card and judge its statement (see the module docstring)."""
        state = self.state
        if state is None:
            raise gym.error.ResetNeeded("call reset before step")
        if self._reported:
            raise gym.error.ResetNeeded("the game is over: call reset")
        if state.end is not None:  # no starter: over at the deal
            self._reported = True
            return self._observe(), 0.0, True, False, self._info(event=None, declaration=None)
        chosen, statement = _split(action)
        faults: dict[str, str] = {}
        card = self._card(chosen, faults)
        if statement is not None:
            statement = plain_statement(*statement)
            if isinstance(statement, str):
                faults["illegal_statement"] = statement
                statement = None
        if faults and self.config.on_fault == "raise":
            raise ValueError("; ".join(faults.values()))
        before = state.score
        stated = None if statement is None or statement[0] is None else Statement(*statement)
        (event,) = state.apply(Turn(card, stated))
        terminated = self._reported = state.end is not None
        info = self._info(event=event, declaration=state.turn_declaration, **faults)
        return self._observe(), float(state.score - before), terminated, False, info

    def render(self) -> str | None:
        """The table as text (``render_mode="ansi"``), else None."""
        if self.render_mode != "ansi" or self.state is None:
            return None
        state = self.state
        cards = (" ".join(map(str, line)) or "-" for line in (state.main_line, state.side_line))
        main, side = cards
        return (
            f"turn {state.turns}/{self.config.max_turns}, score {state.score}\n"
            f"main line: {main}\nwrong: {side}\nhand: {' '.join(map(str, state.hand))}\n"
        )

    # -- helpers --------------------------------------------------------------------------

    def _observe(self) -> dict[str, Any]:
        assert self.state is not None
        encoded = encode(self.state.observation(0), 1)
        encoded["turn"] = self.state.turns
        return encoded

    def _info(self, **more: Any) -> dict[str, Any]:
        assert self.state is not None
        return {
            "action_mask": action_mask(self.state.legal_actions()),
            "turn": self.state.turns,
            "end": self.state.end,
            **more,
        }

    def _card(self, chosen: Any, faults: dict[str, str]) -> Card:
        """The hand's card ``chosen`` names (a face, or a card), else the first card of
        the hand, with the fault in ``faults``."""
        assert self.state is not None
        hand = self.state.hand
        if isinstance(chosen, Card):
            card = own_card(chosen, hand)
        else:
            try:
                card = card_of(operator.index(chosen), hand)
            except TypeError:
                card = None
        if card is None:
            faults["illegal_card"] = f"{chosen!r} is not a face or card of the hand"
            card = hand[0]
        return card


def _split(action: Any) -> tuple[Any, tuple[Any, Any, Any] | None]:
    """An action's card and its statement (rule, confidence, declare) as the engine
    takes an agent's (`plain_statement` checks it), or None."""
    if isinstance(action, SoloMove):
        return action.card, (action.rule, action.confidence, action.declare)
    if not isinstance(action, Mapping):
        return action, None  # a face alone
    rule = action.get("rule")
    if isinstance(rule, str) and not rule:
        rule = None  # no rule stated
    confidence = None if rule is None else _scalar(action.get("confidence"))
    declare = _scalar(action.get("declare", 0))
    if type(declare) is not bool and _is_int(declare) and declare in (0, 1):
        declare = bool(declare)  # the space's 0 and 1, as the engine's False and True
    return action.get("card"), (rule, confidence, declare)


def _scalar(value: Any) -> Any:
    """The item of a one-element array (as the spaces sample them), else ``value``."""
    if isinstance(value, np.ndarray | np.generic) and value.size == 1:
        return value.reshape(-1)[0].item()
    return value


def _is_int(value: Any) -> bool:
    try:
        operator.index(value)
    except TypeError:
        return False
    return True


class AgentPolicy:
    """A toolkit agent (an `eleusis_lab.agent.Agent` with `SoloDecisions`) choosing the
    actions of a `SoloEnv` as `play_solo` asks it: started with the same ``GameInfo``
    and generator, told every play, asked `SoloDecisions.solo_move`.

    Call it with the environment after each ``reset`` or ``step``: on a new game it
    starts the agent, tells it the plays it has not heard yet, and returns its move (a
    `SoloMove`, which `SoloEnv.step` takes as the engine takes an agent's). The agent's
    exceptions go up unchanged (the engine's fault handling is not repeated here).

    Examples
    --------
    >>> from eleusis_agents.simple import OracleAgent
    >>> env, policy = SoloEnv("red(card)"), AgentPolicy(OracleAgent())
    >>> _ = env.reset(seed=3)
    >>> _, reward, terminated, _, info = env.step(policy(env))
    >>> reward, terminated, policy.record(env).score
    (30.0, True, 30)
    """

    def __init__(self, agent: Agent):
        if not isinstance(agent, Agent):
            raise ConfigError(f"{agent!r} is not an Agent (eleusis_lab.agent.Agent)")
        check_capabilities([agent], GAME, SoloDecisions)
        self.agent = agent
        self._state: SoloState | None = None
        self._told = 0  # plays of the game told to the agent

    def __call__(self, env: gym.Env) -> SoloMove:
        state = env.unwrapped.state
        if state is None:
            raise gym.error.ResetNeeded("call reset before asking the agent")
        if state is not self._state:  # a new game: start the agent as play_solo does
            self._state, self._told = state, 0
            self.agent.start_game(*agent_start(state, sees_rule(self.agent)))
        for event in state.events[self._told :]:
            self.agent.observe(event)
        self._told = len(state.events)
        return self.agent.solo_move(state.observation(0))

    def record(self, env: gym.Env) -> SoloRecord:
        """The record of the game the agent played in ``env``, once it is over (the
        record `play_solo` makes of a game without faults)."""
        return env.unwrapped.state.record(describe_seat(self.agent, sees_rule(self.agent)))


gym.register(ENV_ID, entry_point=SoloEnv, disable_env_checker=False)
