"""The agent interface: what a player of the toolkit's games sees and decides.

Agents follow scikit-learn's estimator contract: the constructor only stores its
parameters (``get_params``/``set_params``/``clone`` work), state learned during a
game lives in attributes ending in ``_`` and is set up in ``start_game``, and all
randomness comes from the generator the engine hands to ``start_game``.

A game calls, in order: ``start_game(info, rng)`` once; then, for each decision,
``choose_play(obs)`` (Delphi: ``predict``); and ``observe(event)`` for every public
event of the game (every player's plays, not only the agent's own).

`Agent` holds the decisions every game asks for. A game that asks for more has its own
decisions in a mixin of its package, with defaults built on the core ones: the solo
game's in `eleusis_lab.games.solo.SoloDecisions` (a move with a declaration), New
Eleusis' in `eleusis_lab.games.new_eleusis.NewEleusisDecisions` (strings, "no play",
the Prophet). Each class declares the *capabilities* it adds (``capabilities``, a
tuple of short names: ``"plays"`` for `Agent`, ``"declares"`` and ``"plays_strings"``
for those mixins); an agent's are the union over its classes (`agent_capabilities`),
and it may sit at a game's table when it has every capability the game needs
(`eleusis_lab.games.table.GameType.needs`). What an agent may adapt to in a game is
told in `GameInfo.traits`, never by the game's name.

Examples
--------
A complete agent that always plays its lowest card, in every game but those two:

>>> from eleusis_lab.agent import Agent
>>> class LowestCard(Agent):
...     def choose_play(self, obs):
...         return min(obs.hand, key=lambda card: card.rank)
>>> LowestCard().get_params(), sorted(agent_capabilities(LowestCard))
({}, ['plays'])

With the two mixins it plays them too (their defaults ask ``choose_play``):

>>> from eleusis_lab.games.new_eleusis import NewEleusisDecisions
>>> from eleusis_lab.games.solo import SoloDecisions
>>> class EveryGame(SoloDecisions, NewEleusisDecisions, LowestCard):
...     pass
>>> sorted(agent_capabilities(EveryGame))
['declares', 'plays', 'plays_strings']
"""

from __future__ import annotations

import abc
import copy
import functools
import inspect
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Self

import numpy as np

from eleusis_lab.cards import Card
from eleusis_lab.errors import ConfigError
from eleusis_lab.rules.context import Context

if TYPE_CHECKING:
    from eleusis_lab.rules import Rule


#: What `Agent.usage` may report of a game, and the results columns that hold it.
USAGE_FIELDS = ("calls", "tokens_in", "tokens_out", "reasoning_tokens", "model_seconds")

#: The values of `GameTraits.rule_from`, `GameTraits.scored_on` and `GameTraits.judge`.
RULE_FROM = ("dealer", "benchmark")
SCORED_ON = ("plays", "predictions", "finding")
JUDGED_ON = (None, "continuations", "reachable")


@dataclass(frozen=True)
class GameTraits:
    """What a game tells its players of itself beyond its name: facts an agent may
    adapt to, so that it never needs to know which game it plays.

    Each game declares its traits (`eleusis_lab.games.table.GameType.traits`) and its
    engine hands them to every agent in `GameInfo.traits`.

    Attributes
    ----------
    rule_from : {"dealer", "benchmark"}
        Who chose the rule. ``"dealer"``: a dealer (in Delphi, the oracle), so the rule
        is one a dealer may choose, acceptable (RULES.md section 1, item 8).
        ``"benchmark"``: the benchmark (solo), where any rule of the language may be
        the rule, acceptable or not; its rules are those people write.
    scored_on : {"plays", "predictions", "finding"}
        What the player is scored on. ``"plays"``: its cards, every wrong one costs;
        ``"predictions"``: its predictions of the verdicts (it plays no card);
        ``"finding"``: finding the rule fast (a wrong card costs nothing, and teaches).
    judge : {None, "continuations", "reachable"}
        How a declared rule is judged, in a game where it ends the game (solo,
        RULES.md section 6): ``"continuations"``, the same verdicts as the secret rule
        in every continuation of the main line (the published judge);
        ``"reachable"``, in every state a game can reach. None elsewhere.

    Examples
    --------
    >>> GameTraits()
    GameTraits(rule_from='dealer', scored_on='plays', judge=None)
    >>> GameTraits(scored_on="winning")
    Traceback (most recent call last):
    ...
    ValueError: GameTraits.scored_on is 'winning'; it is one of 'plays', 'predictions', 'finding'
    """

    rule_from: str = "dealer"
    scored_on: str = "plays"
    judge: str | None = None

    def __post_init__(self) -> None:
        for name, values in (
            ("rule_from", RULE_FROM),
            ("scored_on", SCORED_ON),
            ("judge", JUDGED_ON),
        ):
            value = getattr(self, name)
            if value not in values:
                known = ", ".join(map(repr, values))
                raise ValueError(f"GameTraits.{name} is {value!r}; it is one of {known}")


@dataclass(frozen=True)
class GameInfo:
    """What an agent is told when a game starts.

    ``rule`` is ``None`` except for agents whose class sets ``sees_rule = True``
    (the oracle, an upper bound for learners): agents never see the rule otherwise.
    ``traits`` are the game's `GameTraits`: what an agent adapts to, rather than to
    the game's name.
    """

    game: str
    seat: int
    n_players: int
    hand: tuple[Card, ...]
    starter: Card | None
    rule: Rule | None = None
    traits: GameTraits = GameTraits()


#: Sets an attribute of a frozen value object while it is made.
_set_attribute = object.__setattr__


@dataclass(frozen=True, init=False)
class Observation:
    """The public state of a game plus the agent's own cards, at a decision.

    ``hand`` holds exactly the cards the agent may play now (in phase 2 of classic
    Eleusis, its wrong cards). ``wrong_cards[seat]`` are the cards each player has
    face up in front of him, ``last_play_right`` the verdict of the previous play
    (``None`` before the first play). A game may show more: it hands agents a subclass
    (New Eleusis: `eleusis_lab.games.new_eleusis.NewEleusisObservation`).
    """

    game: str
    seat: int
    phase: int
    hand: tuple[Card, ...]
    main_line: tuple[Card, ...]
    wrong_cards: tuple[tuple[Card, ...], ...]
    last_play_right: bool | None

    def __init__(
        self,
        game: str,
        seat: int,
        phase: int,
        hand: tuple[Card, ...],
        main_line: tuple[Card, ...],
        wrong_cards: tuple[tuple[Card, ...], ...],
        last_play_right: bool | None,
    ):
        # One write of the whole dict, not one frozen write per field: made at every
        # decision of every game, the dataclass's own __init__ cost twice as much.
        _set_attribute(
            self,
            "__dict__",
            {
                "game": game,
                "seat": seat,
                "phase": phase,
                "hand": hand,
                "main_line": main_line,
                "wrong_cards": wrong_cards,
                "last_play_right": last_play_right,
            },
        )


@dataclass(frozen=True, init=False)
class Event:
    """One public event: ``seat`` played ``card`` in ``phase`` and heard ``right``.

    ``position`` is the index in the main line of the card the play was judged
    against (the last card then), so that a wrong card can be laid out under it.

    ``kind`` tells what ``right`` means. ``"play"`` (classic games, and New Eleusis
    plays of one card or right strings): the card's own verdict. New Eleusis also
    has ``"string"``, a card of a wrong string of 2 to 4 cards: the string was wrong,
    which card failed is not told; ``"set_aside"``, a card of a hand set aside after a
    true "no play" (wrong at ``position``, never played); and ``"dealer"``, the right
    card the dealer played from the seat's hand after a false "no play".
    """

    seat: int
    card: Card
    phase: int
    right: bool
    position: int
    kind: str = "play"

    def __init__(
        self, seat: int, card: Card, phase: int, right: bool, position: int, kind: str = "play"
    ):
        # As `Observation`: one write, at every play of every game.
        _set_attribute(
            self,
            "__dict__",
            {
                "seat": seat,
                "card": card,
                "phase": phase,
                "right": right,
                "position": position,
                "kind": kind,
            },
        )


class Parameters:
    """scikit-learn style parameters: the constructor's arguments, kept as attributes.

    The base of `Agent` and of `eleusis_lab.secrets.agent.SecretsAgent`.
    """

    @classmethod
    def _param_names(cls) -> tuple[str, ...]:
        return _init_parameters(cls)

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's parameters and their current values."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> Self:
        """Change constructor parameters; unknown names raise ``ValueError``."""
        valid = set(self._param_names())
        for name, value in params.items():
            if name not in valid:
                raise ValueError(f"{type(self).__name__} has no parameter {name!r}")
            setattr(self, name, value)
        return self

    def check_params(self) -> None:
        """Raise ``ValueError`` (or ``TypeError``) for a parameter value the agent cannot
        play with, naming the parameter and the value. The default accepts everything.

        The registry calls it when it makes an agent, so that a bad value is reported
        before the first game; agents also call it in ``start_game``, for parameters
        changed later with `set_params`.
        """

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"


class Agent(Parameters, abc.ABC):
    """Base class of all agents. Subclasses implement at least ``choose_play``.

    These decisions are the core every game asks for (capability ``"plays"``); a game's
    own decisions come with a mixin of the game's (see the module docstring).
    """

    #: Set to True only by agents that are allowed to know the rule (the oracle).
    sees_rule: bool = False
    #: The capabilities this class adds to its bases' (read them with `agent_capabilities`).
    capabilities: tuple[str, ...] = ("plays",)

    def start_game(self, info: GameInfo, rng: np.random.Generator) -> None:
        """Reset learned state for a new game; keep ``rng`` for random choices."""
        self.info_ = info
        self.rng_ = rng

    @abc.abstractmethod
    def choose_play(self, obs: Observation) -> Card:
        """Return one card of ``obs.hand`` to play."""

    def predict(self, obs: Observation, cards: list[Card]) -> np.ndarray:
        """Probability that each of ``cards`` is right now; 0.5 for an agent that cannot tell."""
        return np.full(len(cards), 0.5)

    def observe(self, event: Event) -> None:  # noqa: B027 - optional, not abstract
        """Learn from a public event. The default ignores it."""

    def propose_rule(self) -> tuple[str, float] | None:
        """The agent's best guess of the rule and its confidence, or ``None``."""
        return None

    def usage(self) -> dict[str, float] | None:
        """What the agent's last game cost beyond its own computation, for its results
        row: a language model's ``calls``, ``tokens_in``, ``tokens_out``,
        ``reasoning_tokens`` and ``model_seconds`` (`USAGE_FIELDS`; one left out is
        unknown). None, the default: an agent that calls nothing.
        """
        return None

    def confident_proposal(self, confidence: float) -> tuple[str, float] | None:
        """`propose_rule`, or ``None`` when its confidence is surely below ``confidence``.

        The experiments ask after every play whether a seat has found the rule with at
        least some confidence: an agent whose proposals cost a pass over its model can
        skip the work while it cannot be that sure. The default proposes.
        """
        return self.propose_rule()


def agent_capabilities(agent: object) -> frozenset[str]:
    """The capabilities of an agent (or agent class): the names its class and every one
    of its bases declare in their own ``capabilities``.

    A class declares only what it adds: `Agent` declares ``"plays"``, a game's mixin
    the capability of its decisions (``"declares"``, ``"plays_strings"``), and an agent
    that implements a game's decisions itself may declare theirs. A declaration that is
    not a tuple of names is a `ConfigError`.

    Examples
    --------
    >>> class Juggling:
    ...     capabilities = ("juggles",)
    >>> class Juggler(Juggling, Agent):
    ...     def choose_play(self, obs):
    ...         return obs.hand[0]
    >>> sorted(agent_capabilities(Juggler())), agent_capabilities(Agent)
    (['juggles', 'plays'], frozenset({'plays'}))
    """
    return _capabilities(agent if isinstance(agent, type) else type(agent))


@functools.cache  # a class's bases and declarations are fixed once it is defined
def _capabilities(cls: type) -> frozenset[str]:
    names: set[str] = set()
    for base in cls.__mro__:
        declared = vars(base).get("capabilities", ())
        names_only = isinstance(declared, tuple | frozenset) and all(
            isinstance(name, str) for name in declared
        )
        if not names_only:
            raise ConfigError(
                f"{base.__qualname__}.capabilities is {declared!r}; it should be a tuple of"
                " names, e.g. ('plays',)"
            )
        names.update(declared)
    return frozenset(names)


def capability_refusal(agent: object, label: str, game: str, classes: Iterable[type]) -> str | None:
    """Why ``agent`` (labelled ``label``) cannot play ``game``, whose decisions are those
    of ``classes`` (a base and mixins): one line naming the first capability it lacks and
    the class that provides it. None when it has them all.

    Examples
    --------
    >>> class Juggling:
    ...     capabilities = ("juggles",)
    >>> class Lowest(Agent):
    ...     def choose_play(self, obs):
    ...         return min(obs.hand)
    >>> capability_refusal(Lowest(), "Lowest()", "the circus", [Agent, Juggling])
    "Lowest() cannot play the circus: it lacks the capability 'juggles' (mix in \
eleusis_lab.agent.Juggling)"
    >>> capability_refusal(Lowest(), "Lowest()", "classic", [Agent]) is None
    True
    """
    held = agent_capabilities(agent)
    for cls in classes:
        lacking = sorted(agent_capabilities(cls) - held)
        if lacking:
            return (
                f"{label} cannot play {game}: it lacks the capability {lacking[0]!r}"
                f" (mix in {cls.__module__}.{cls.__qualname__})"
            )
    return None


class LearningAgent(Agent):
    """An agent that learns the rule from labelled examples: (context, card, right).

    It follows the main line from the starter and every public event, and hands each
    play to `learn` with the context it was judged in. It plays the card that `predict`
    rates most likely right, ties broken with the game's generator. Subclasses
    implement `learn` and `predict_faces`.

    Examples
    --------
    >>> from eleusis_lab.games.classic import play_classic
    >>> class CountingAgent(LearningAgent):
    ...     "Rates a face by how often it was right, whatever the context."
    ...     def start_game(self, info, rng):
    ...         super().start_game(info, rng)
    ...         self.right_ = np.ones(52)
    ...         self.seen_ = np.full(52, 2.0)
    ...     def learn(self, context, card, right):
    ...         self.right_[card.face] += right
    ...         self.seen_[card.face] += 1
    ...     def predict_faces(self, context):
    ...         return self.right_ / self.seen_
    >>> record = play_classic("red(card)", [CountingAgent(), CountingAgent()], seed=0)
    >>> len(record.events)
    51
    """

    def start_game(self, info: GameInfo, rng: np.random.Generator) -> None:
        super().start_game(info, rng)
        self.line_: list[Card] = [] if info.starter is None else [info.starter]
        self.last_right_: bool | None = None

    @abc.abstractmethod
    def learn(self, context: Context, card: Card, right: bool) -> None:
        """Learn that ``card`` was judged ``right`` (or not) in ``context``."""

    @abc.abstractmethod
    def predict_faces(self, context: Context) -> np.ndarray:
        """Probability that each of the 52 faces is right in ``context``."""

    def observe(self, event: Event) -> None:
        if event.kind == "string":  # New Eleusis: a wrong string's cards have no own verdict
            self.last_right_ = False
            return
        self.learn(Context(tuple(self.line_), self.last_right_), event.card, event.right)
        if event.right:
            self.line_.append(event.card)
        self.last_right_ = event.right

    def predict(self, obs: Observation, cards: list[Card]) -> np.ndarray:
        probabilities = self.predict_faces(Context(obs.main_line, obs.last_play_right))
        return np.array([probabilities[card.face] for card in cards], dtype=float)

    def choose_play(self, obs: Observation) -> Card:
        scores = self.predict(obs, list(obs.hand))
        best = np.flatnonzero(scores == scores.max())
        return obs.hand[int(best[self.rng_.integers(len(best))])]


@functools.cache
def _init_parameters(cls: type) -> tuple[str, ...]:
    # Inspecting a signature costs ~70 us: once per class, not once per game.
    signature = inspect.signature(cls.__init__)
    return tuple(
        name
        for name, p in signature.parameters.items()
        if name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    )


def clone(agent: Parameters) -> Parameters:
    """A new, unplayed agent with the same parameters (deep-copied).

    Any agent with `Parameters`: of Eleusis, or of Secrets.

    >>> from eleusis_lab.secrets.agent import make_secrets_agent
    >>> agent = make_secrets_agent("secrets-search", budget=8)
    >>> twin = clone(agent)
    >>> twin is not agent and twin.get_params() == agent.get_params()
    True
    """
    return type(agent)(**copy.deepcopy(agent.get_params()))
