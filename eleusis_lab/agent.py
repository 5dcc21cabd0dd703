"""The agent interface: what a player of the toolkit's games sees and decides.

Agents follow scikit-learn's estimator contract: the constructor only stores its
parameters (``get_params``/``set_params``/``clone`` work), state learned during a
game lives in attributes ending in ``_`` and is set up in ``start_game``, and all
randomness comes from the generator the engine hands to ``start_game``.

A game calls, in order: ``start_game(info, rng)`` once; then, for each decision,
``choose_play(obs)``; and ``observe(event)`` for every public event of the game (every
player's plays, not only the agent's own). What an agent may adapt to in a game is told
in `GameInfo.traits`, never by the game's name.

Examples
--------
A complete agent that always plays its lowest card:

>>> from eleusis_lab.agent import Agent
>>> class LowestCard(Agent):
...     def choose_play(self, obs):
...         return min(obs.hand, key=lambda card: card.rank)
>>> LowestCard().get_params()
{}
"""

from __future__ import annotations

import abc
import copy
import functools
import inspect
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Self

import numpy as np

from eleusis_lab.cards import Card
from eleusis_lab.rules.context import Context

if TYPE_CHECKING:
    from eleusis_lab.rules import Rule


#: The values of `GameTraits.rule_from` and of `GameTraits.scored_on`.
RULE_FROM = ("dealer", "benchmark")
SCORED_ON = ("plays", "predictions", "finding")


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

    Examples
    --------
    >>> GameTraits()
    GameTraits(rule_from='dealer', scored_on='plays')
    >>> GameTraits(scored_on="winning")
    Traceback (most recent call last):
    ...
    ValueError: GameTraits.scored_on is 'winning'; it is one of 'plays', 'predictions', 'finding'
    """

    rule_from: str = "dealer"
    scored_on: str = "plays"

    def __post_init__(self) -> None:
        for name, values in (("rule_from", RULE_FROM), ("scored_on", SCORED_ON)):
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


@dataclass(frozen=True)
class Observation:
    """The public state of a game plus the agent's own cards, at a decision.

    ``hand`` holds exactly the cards the agent may play now (in phase 2 of classic
    Eleusis, its wrong cards). ``wrong_cards[seat]`` are the cards each player has
    face up in front of him, ``last_play_right`` the verdict of the previous play
    (``None`` before the first play).

    The fields after these have defaults; New Eleusis fills them in (other games leave
    them empty). There ``phase`` is 2 in sudden death, ``wrong_cards[seat]`` are the
    hands the seat set aside after a true "no play", ``side_line[i]`` the wrong cards
    under main-line card ``i``, ``hand_sizes`` every seat's hand (the Prophet's hand
    set aside included), ``prophet`` the Prophet's seat, ``marker`` the cards played
    when his marker went down, ``cards_played`` the cards played so far (main and side
    line, not the starter) and ``expelled`` the seats expelled, in order.
    """

    game: str
    seat: int
    phase: int
    hand: tuple[Card, ...]
    main_line: tuple[Card, ...]
    wrong_cards: tuple[tuple[Card, ...], ...]
    last_play_right: bool | None
    side_line: tuple[tuple[Card, ...], ...] = ()
    hand_sizes: tuple[int, ...] = ()
    prophet: int | None = None
    marker: int | None = None
    cards_played: int = 0
    expelled: tuple[int, ...] = ()


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class SoloMove:
    """One move of the solo benchmark, made before the card's verdict (RULES.md 6).

    ``card`` is played; ``rule`` is the agent's tentative rule (text, or None) and
    ``confidence`` the probability it gives that rule (in [0, 1], or None); with
    ``declare`` the rule is declared: correct, it ends the game; wrong, it costs 2.
    """

    card: Card
    rule: str | None = None
    confidence: float | None = None
    declare: bool = False


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
    """Base class of all agents. Subclasses implement at least ``choose_play``."""

    #: Set to True only by agents that are allowed to know the rule (the oracle).
    sees_rule: bool = False
    #: The games the agent can play (``GameInfo.game`` names); `check_agent` plays each.
    games: tuple[str, ...] = ("classic",)

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

    #: The confidence from which the default `declare_rule` declares (2/3, see there).
    declare_confidence: float = 2 / 3

    def solo_move(self, obs: Observation) -> SoloMove:
        """The solo game's move (RULES.md section 6): a card, the tentative rule with its
        confidence, and whether to declare it, all before the card's verdict.

        The default composes the other methods: `declare_rule` says what to declare
        (with what the agent knows before this turn's card), `propose_rule` gives the
        tentative rule and its confidence (the declared text is the tentative rule),
        and `choose_play` the card.

        Examples
        --------
        >>> class Sure(Agent):
        ...     def choose_play(self, obs):
        ...         return obs.hand[0]
        ...     def propose_rule(self):
        ...         return ("red(card)", 0.7)
        >>> from eleusis_lab.cards import parse_cards
        >>> obs = Observation("solo", 0, 1, tuple(parse_cards("2C 9H")), (), ((),), None)
        >>> Sure().solo_move(obs)
        SoloMove(card=Card('2C'), rule='red(card)', confidence=0.7, declare=True)
        """
        rule, confidence, declare = solo_statement(self, obs)
        return SoloMove(self.choose_play(obs), rule, confidence, declare)

    def declare_rule(self, obs: Observation) -> str | None:
        """The solo game asks once a turn: rule text to declare now, or ``None``.

        Asked before the turn's card by the default `solo_move` (the published
        timing), after its verdict in the game's ``timing="after_verdict"`` reading.
        A correct declaration ends the game; a wrong one (or text that does not parse)
        costs 2 points and the game goes on (RULES.md section 6). The default declares
        the text of `propose_rule` when its confidence ``p`` is at least
        `declare_confidence`, and never a text it already declared in this game (in
        solo the game only goes on after a wrong declaration).

        Why 2/3: found on turn ``k`` the score is ``31 - k``, so waiting a turn costs
        at most 1 point, while a wrong declaration costs 2 and the game goes on as if it
        had not been made. Against any way of going on, declaring now gains at least
        ``p * 1 - (1 - p) * 2`` (the most waiting can gain is a sure find next turn),
        which is >= 0 when ``p >= 2/3``; on the last turn the gain is exactly that.
        Below 2/3 declaring pays only if the agent learns slowly, which it cannot know,
        so the default waits. An agent whose confidence is calibrated (the probability
        that the proposal is right) thus never declares at a loss.

        Examples
        --------
        >>> class Sure(Agent):
        ...     def choose_play(self, obs):
        ...         return obs.hand[0]
        ...     def propose_rule(self):
        ...         return ("red(card)", 0.7)
        >>> agent = Sure()
        >>> agent.declare_rule(None), agent.declare_rule(None)  # never the same text twice
        ('red(card)', None)
        """
        proposal = self.propose_rule()
        if proposal is None:
            return None
        text, confidence = proposal
        # The texts declared in this game; start_game sets a new info_ for each game.
        info = getattr(self, "info_", None)
        declared = getattr(self, "declared_", None)
        if declared is None or declared[0] is not info:
            declared = self.declared_ = (info, set())
        if confidence < self.declare_confidence or text in declared[1]:
            return None
        declared[1].add(text)
        return text

    # -- New Eleusis (RULES.md section 5): defaults that let every agent play it --------

    #: The confidence of `propose_rule` from which the default `declare_prophet` says yes.
    prophet_confidence: float = 0.9

    def choose_turn(self, obs: Observation) -> tuple[Card, ...] | None:
        """New Eleusis: 1 to 4 distinct cards of ``obs.hand`` to play in order, or ``None``.

        ``None`` declares "no play" (none of its cards is right). The default plays the
        single card `choose_play` returns, so it never declares "no play".
        """
        return (self.choose_play(obs),)

    def declare_prophet(self, obs: Observation) -> bool:
        """New Eleusis, asked right after its play when it may: become the Prophet?

        The default says yes when `propose_rule` gives a confidence of at least
        `prophet_confidence` (0.9): a Prophet scores a bonus per card played after his
        marker, and an overthrow (a wrong call) costs him 5 cards and the bonus.
        Agents whose ``propose_rule`` returns ``None`` never declare.
        """
        proposal = self.propose_rule()
        return proposal is not None and proposal[1] >= self.prophet_confidence

    def call_play(self, obs: Observation, cards: tuple[Card, ...]) -> bool:
        """New Eleusis, the Prophet's call: is the string ``cards`` right on ``obs.main_line``?

        The default calls it right when `predict` rates each card right (>= 0.5) on
        the main line extended by the cards before it.

        Examples
        --------
        >>> from eleusis_lab.cards import parse_cards
        >>> class Reds(Agent):
        ...     def choose_play(self, obs):
        ...         return obs.hand[0]
        ...     def predict(self, obs, cards):
        ...         return np.array([float(card.is_red) for card in cards])
        >>> obs = Observation("new-eleusis", 0, 1, (), tuple(parse_cards("2C")), (), None)
        >>> Reds().call_play(obs, tuple(parse_cards("3H 4D"))), Reds().call_play(
        ...     obs, tuple(parse_cards("3H 4S")))
        (True, False)
        """
        from dataclasses import replace

        for i, card in enumerate(cards):
            after = obs if i == 0 else replace(obs, main_line=obs.main_line + cards[:i])
            if not float(np.asarray(self.predict(after, [card]))[0]) >= 0.5:
                return False
        return True

    def call_no_play(self, obs: Observation, hand: tuple[Card, ...]) -> bool:
        """New Eleusis, the Prophet's call of a "no play": is none of ``hand`` right?

        ``hand`` is the declaring player's hand, shown to everyone. The default calls
        the declaration true when `predict` rates every card of it below 0.5.
        """
        return not bool((np.asarray(self.predict(obs, list(hand)), dtype=float) >= 0.5).any())


def solo_statement(agent: Agent, obs: Observation) -> tuple[str | None, float | None, bool]:
    """What ``agent`` states in a solo turn: (tentative rule, confidence, declare).

    `Agent.declare_rule` decides the declaration, `Agent.propose_rule` gives the
    tentative rule; a declared text is the tentative rule, with the proposal's
    confidence when it is the same text (else None).
    """
    declared = agent.declare_rule(obs)
    proposal = agent.propose_rule()
    rule, confidence = proposal if proposal is not None else (None, None)
    if declared is not None and declared != rule:
        rule, confidence = declared, None
    return rule, confidence, declared is not None


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
