"""The agent interface of Secrets, the jack-and-king board game (RULES.md section 4).

Secrets is not a game of rule induction, so its players are not Eleusis agents
(`eleusis_lab.agent.Agent`): a `SecretsAgent` chooses among the legal actions of a
board position and answers duels. It keeps the same conventions: the constructor only
stores its parameters (``get_params``/``set_params``/`clone` work), state learned in a
game ends in ``_`` and is set up in ``start_game``, and all randomness comes from the
generator the engine hands to ``start_game``.

A game calls, in order: ``start_game(info, rng)`` once; ``choose_action(view, legal)``
at each of the agent's turns where it has an action (a forced skip is not asked);
``answer_duel(view, duel)`` when another player duels a card of the agent's suit and
the agent holds a card that may beat the one sent; and ``observe(step)`` after every
turn of every player.

Secrets agents are registered under their own entry-point group,
``eleusis_lab.secrets_agents`` (`SECRETS_GROUP`), not the Eleusis group: the Eleusis
registry, experiments and conformance checks never see them. `make_secrets_agent`
finds them by name (or ``module:Class``).

Examples
--------
>>> class Rightmost(SecretsAgent):
...     "Takes the action whose square is furthest right (leaving counts as column 9)."
...     def choose_action(self, view, legal):
...         return max(legal, key=lambda a: 8 if a.square is None else a.square % 8)
>>> Rightmost()
Rightmost()
>>> make_secrets_agent("secrets-random")
RandomSecretsAgent()
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any

import numpy as np

from eleusis_lab.agent import Parameters, clone
from eleusis_lab.cards import Card
from eleusis_lab.registry import AgentRegistry
from eleusis_lab.secrets.moves import SecretsAction
from eleusis_lab.secrets.state import SecretsState, SecretsView

__all__ = [
    "SECRETS_AGENTS",
    "SECRETS_GROUP",
    "SecretsAgent",
    "SecretsDuel",
    "SecretsInfo",
    "available_secrets_agents",
    "clone",
    "make_secrets_agent",
    "parse_secrets_agent_list",
    "secrets_agent_class",
]

#: The entry-point group where Secrets agents are registered.
SECRETS_GROUP = "eleusis_lab.secrets_agents"


@dataclass(frozen=True)
class SecretsInfo:
    """What an agent is told when a game of Secrets starts.

    Attributes
    ----------
    seat : int
        0 hearts, 1 diamonds, 2 clubs, 3 spades (the order of play).
    suit : int
        The seat's suit (`eleusis_lab.cards` numbering: 0 clubs ... 3 spades).
    hand : tuple of Card
        The three cards dealt to the seat.
    config : dict
        The game's options (`eleusis_lab.secrets.game.SecretsConfig.to_dict`).
    """

    seat: int
    suit: int
    hand: tuple[Card, ...]
    config: dict[str, Any]


@dataclass(frozen=True)
class SecretsDuel:
    """A duel the agent is asked to answer: beat the card sent, or let the piece in.

    Attributes
    ----------
    mover : int
        The seat that attacks.
    piece : Card
        Its piece (a jack or king).
    start, square : int
        The square the piece stands on and the square of the card attacked.
    attacked : Card
        The card of the agent's suit on ``square``.
    sent : Card
        The card sent to the agent.
    options : tuple of Card
        The agent's cards that may beat ``sent`` (same suit, higher value; A high).

    Answering with one of ``options`` beats: the sent and the beating card go to the
    mover's hand and his piece stays. Answering None (or False) lets the piece in: the
    agent keeps the sent card and the attacked card leaves the game. True beats with
    the lowest of ``options``.
    """

    mover: int
    piece: Card
    start: int
    square: int
    attacked: Card
    sent: Card
    options: tuple[Card, ...]

    @classmethod
    def of(
        cls, state: SecretsState, action: SecretsAction, options: tuple[Card, ...]
    ) -> SecretsDuel:
        """The duel that ``action``, a duel of the seat to move in ``state`` not yet
        applied, asks its defender to answer, with his beating cards ``options``."""
        at = state.active()
        square = action.square
        piece, attacked = state.occupants[at], state.board[square]
        return cls(state.seat, piece, at, square, attacked, action.card, options)


class SecretsAgent(Parameters, abc.ABC):
    """Base class of the players of Secrets. Subclasses implement ``choose_action``."""

    #: The game the agent plays (Secrets agents play only Secrets).
    games: tuple[str, ...] = ("secrets",)

    def start_game(self, info: SecretsInfo, rng: np.random.Generator) -> None:
        """Reset state for a new game; keep ``rng`` for random choices."""
        self.info_ = info
        self.rng_ = rng

    @abc.abstractmethod
    def choose_action(self, view: SecretsView, legal: tuple[SecretsAction, ...]) -> SecretsAction:
        """Return one of ``legal`` (never empty) for the position seen as ``view``."""

    def answer_duel(self, view: SecretsView, duel: SecretsDuel) -> Card | bool | None:
        """Beat ``duel.sent`` with one of ``duel.options``, or None to let it through.

        The default never beats.
        """
        return None

    def observe(self, step: Any) -> None:  # noqa: B027 - optional, not abstract
        """Told every turn of every player (`eleusis_lab.secrets.record.SecretsStep`)."""


# -- the registry of Secrets agents ----------------------------------------------------------


#: The Secrets players.
SECRETS_AGENTS = AgentRegistry(
    SECRETS_GROUP, SecretsAgent, "Secrets agent", "eleusis_agents.secrets:...", "known"
)


def available_secrets_agents() -> dict[str, str]:
    """The registered Secrets agent names and the ``module:Class`` each points to.

    >>> available_secrets_agents()["secrets-heuristic"]
    'eleusis_agents.secrets:HeuristicSecretsAgent'
    """
    return SECRETS_AGENTS.available()


def secrets_agent_class(spec: str) -> type[SecretsAgent]:
    """The `SecretsAgent` subclass named by ``spec`` (a registered name or ``module:Class``).

    Raises
    ------
    UnknownAgentError
        For a name that is not registered; the message lists the known names.
    AgentSpecError
        When the module does not import, has no such class, or it is not a SecretsAgent.
    """
    return SECRETS_AGENTS.agent_class(spec)


def make_secrets_agent(spec: str, **params: Any) -> SecretsAgent:
    """A new Secrets agent from a registered name or ``module:Class``, with parameters.

    >>> make_secrets_agent("secrets-search", budget=16).budget
    16
    >>> make_secrets_agent("random")
    Traceback (most recent call last):
    ...
    eleusis_lab.registry.UnknownAgentError: unknown Secrets agent 'random' (did you mean \
'secrets-random'?); known: secrets-heuristic, secrets-random, secrets-search (or give \
'module:Class')
    """
    return SECRETS_AGENTS.make(spec, **params)


def parse_secrets_agent_list(text: str) -> list[SecretsAgent]:
    """One new agent per comma-separated spec: ``"secrets-search,secrets-random,..."``.

    >>> parse_secrets_agent_list("secrets-random, secrets-heuristic")
    [RandomSecretsAgent(), HeuristicSecretsAgent(caution=1.0, beat=True)]
    """
    return SECRETS_AGENTS.parse_list(text)
