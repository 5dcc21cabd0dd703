"""The agent contract as a test suite: `check_agent` and `parametrize_with_checks`.

After scikit-learn's ``check_estimator``: every agent class, built in or third party,
runs the same checks. Each check is a function of one agent that raises
``AssertionError`` with a message naming the agent and what failed; it works on clones
and leaves the agent it is given untouched. The check games put the agent at one seat
and `RandomAgent` (the registered ``random``) at the others, with small hands so that the
whole suite takes a fraction of a second for a simple agent.

The checks, in the order `check_agent` runs them (`CHECKS`):

- `check_params_round_trip`: ``get_params``/``set_params``/``clone`` agree.
- `check_no_attributes_set_in_init`: the constructor only stores its parameters.
- `check_only_legal_actions`: it only plays cards it may play, and raises nothing.
- `check_same_seed_same_plays`: same seed, same game, whatever was played before.
- `check_observation_not_mutated`: observations, card lists and events come back intact.
- `check_pickle`: it pickles, before and after a game, into an agent that plays alike.
- `check_predict`: one probability in [0, 1] per card.
- `check_propose_rule`: ``None`` or (rule text that parses, confidence in [0, 1]).
- `check_playable_games`: it completes a game of every kind it can play (whose needs
  it meets).

Every check is called as ``check(agent)``; `check_agent` also passes a `CheckNotes` in
which the checks that play games leave their decision times and the games it can play
that they could not check.

Examples
--------
>>> from eleusis_lab.registry import make_agent
>>> report = check_agent(make_agent("oracle"))
>>> len(report.passed) == len(CHECKS), report.not_checked
(True, ())

A class that keeps state from its constructor fails, and the message says why:

>>> from eleusis_lab.agent import Agent
>>> class Counter(Agent):
...     def __init__(self):
...         self.plays_ = 0
...     def choose_play(self, obs):
...         return obs.hand[0]
>>> check_agent(Counter())
Traceback (most recent call last):
...
AssertionError: check_no_attributes_set_in_init failed for Counter(): the constructor sets \
plays_; state learned in a game ends in '_' and is set up in start_game, not in __init__

In a package's own test suite, one test per agent and check::

    from eleusis_lab.testing import parametrize_with_checks

    @parametrize_with_checks([MyAgent(), MyAgent(depth=3)])
    def test_agent_contract(agent, check):
        check(agent)
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import inspect
import math
import numbers
import pickle
import sys
import time
import unittest
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from eleusis_lab.agent import Agent, Event, Observation, agent_capabilities, clone
from eleusis_lab.cards import Card, standard_deck
from eleusis_lab.errors import AgentError, ConfigError
from eleusis_lab.games.classic import ClassicConfig, play_classic
from eleusis_lab.games.classic.record import GameRecord
from eleusis_lab.games.table import GAMES
from eleusis_lab.record import replay
from eleusis_lab.registry import make_agent
from eleusis_lab.rules import parse

__all__ = [
    "CHECKS",
    "AgentReport",
    "CheckNotes",
    "check_agent",
    "check_no_attributes_set_in_init",
    "check_observation_not_mutated",
    "check_only_legal_actions",
    "check_params_round_trip",
    "check_pickle",
    "check_playable_games",
    "check_predict",
    "check_propose_rule",
    "check_same_seed_same_plays",
    "parametrize_with_checks",
]

_DECK = tuple(standard_deck())


# -- what the checks report besides pass/fail ------------------------------------------


@dataclass
class CheckNotes:
    """What checks measure on the side, for `check_agent`'s report.

    Attributes
    ----------
    decision_seconds : list of float
        The time of each ``choose_play`` call of the games the checks timed.
    not_checked : list of str
        Games the agent can play (it has the capabilities they need) that no checker
        plays yet: they declare no sample game (``GameType.sample``).
    """

    decision_seconds: list[float] = field(default_factory=list)
    not_checked: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class AgentReport:
    """The result of `check_agent`: the checks passed and the time per decision.

    Attributes
    ----------
    agent : str
        The agent checked (its repr).
    passed : tuple of str
        The names of the checks it passed (all of `CHECKS`: a failure raises).
    not_checked : tuple of str
        Games it can play that cannot be checked yet (no checker plays them).
    decisions : int
        The ``choose_play`` calls timed, over the check games.
    mean_ms, max_ms : float
        Mean and longest time of one decision, in milliseconds.
    """

    agent: str
    passed: tuple[str, ...]
    not_checked: tuple[str, ...]
    decisions: int
    mean_ms: float
    max_ms: float

    def __str__(self) -> str:
        lines = [
            f"{self.agent}: {len(self.passed)} checks passed",
            f"  {self.decisions} decisions timed: mean {self.mean_ms:.3f} ms,"
            f" max {self.max_ms:.3f} ms",
        ]
        if self.not_checked:
            lines.append(f"  games not checkable yet: {', '.join(self.not_checked)}")
        return "\n".join(lines)


# -- the check games ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Setup:
    seed: int
    players: int
    seat: int
    rule: str
    hand_size: int | None = None
    retry_in_turn: bool = False

    def config(self) -> ClassicConfig:
        # "raise": any fault of the agent fails the check instead of being substituted;
        # the turn cap bounds the cost of a slow agent in a long phase 2.
        return ClassicConfig(
            hand_size=self.hand_size,
            retry_in_turn=self.retry_in_turn,
            max_turns=40,
            on_fault="raise",
        )

    def __str__(self) -> str:
        return f"classic game, seed {self.seed}, seat {self.seat} of {self.players}"


# Different seats, numbers of players, hand sizes, the phase-2 retry option and rules
# that read the colour, the previous verdict, the suit and the rank.
_SETUPS = (
    _Setup(101, 3, 0, "color(card) != color(last)", hand_size=10),
    _Setup(102, 2, 1, "if last_play_right then red(card) else black(card)", hand_size=8),
    _Setup(103, 4, 2, "suit(card) == (suit(last) + 1) mod 4", hand_size=5, retry_in_turn=True),
    _Setup(104, 3, 1, "rank(card) > rank(last)"),
)


def _failure(check: str, agent: Agent, what: str) -> AssertionError:
    error = AssertionError(f"{check} failed for {_label(agent)}: {what}")
    error.check = check  # type: ignore[attr-defined] # tells a check's failure from an agent's
    return error


def _label(agent: Agent) -> str:
    try:
        return repr(agent)
    except Exception:  # a broken get_params breaks the repr: still name the agent
        return f"{type(agent).__name__} (repr failed)"


def _play(check: str, agent: Agent, setup: _Setup) -> GameRecord:
    """One check game; the agent's faults and exceptions become the check's failure."""
    agents = [
        agent if seat == setup.seat else make_agent("random") for seat in range(setup.players)
    ]
    try:
        return play_classic(setup.rule, agents, setup.seed, setup.config())
    except AssertionError as error:
        if hasattr(error, "check"):
            raise  # a check's probe inside the game failed: its message says it all
        raise _failure(check, agent, f"failed an assert: {error} in a {setup}") from error
    except AgentError as error:
        raise _failure(check, agent, f"in a {setup}: {error}") from error
    except Exception as error:
        raise _failure(
            check, agent, f"raised {type(error).__name__}: {error} in a {setup}"
        ) from error


def _play_sample(agent: Agent, where: str, play: Callable[[], Any]) -> Any:
    """``play()``, its errors (the agent's faults, with on_fault="raise") as the check's."""
    try:
        return play()
    except Exception as error:
        if hasattr(error, "check"):
            raise  # a check's probe inside the game failed: its message says it all
        what = str(error) if isinstance(error, AgentError) else f"raised {error!r}"
        raise _failure("check_playable_games", agent, f"in a {where}: {what}") from error


def _timed(agent: Agent, notes: CheckNotes) -> Agent:
    """Time the agent's choose_play (the agent is a clone: it is patched in place)."""
    choose, times = agent.choose_play, notes.decision_seconds

    def timed_choose(obs: Observation) -> Card:
        started = time.perf_counter()
        card = choose(obs)
        times.append(time.perf_counter() - started)
        return card

    agent.choose_play = timed_choose  # type: ignore[method-assign]
    return agent


def _plays(record: GameRecord) -> dict[str, Any]:
    # The agents' descriptions may hold reprs with memory addresses: compare the rest.
    data = record.to_dict()
    del data["agents"]
    return data


def _difference(first: GameRecord, second: GameRecord) -> str:
    for k, (a, b) in enumerate(zip(first.events, second.events, strict=False)):
        if a != b:
            return (
                f"event {k}: {a.card} by seat {a.seat} in one game,"
                f" {b.card} by seat {b.seat} in the other"
            )
    one, other = _plays(first), _plays(second)
    return "they differ in " + ", ".join(key for key in one if one[key] != other.get(key))


def _equal(a: Any, b: Any) -> bool:
    """Deep value equality that copes with numpy arrays, NaN, estimators and dataclasses."""
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.shape == b.shape
            and bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
        )
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_equal(a[key], b[key]) for key in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(map(_equal, a, b))
    if isinstance(a, Agent) or callable(getattr(a, "get_params", None)):
        # Agents and scikit-learn estimators as parameters: equal when their parameters are.
        return _equal(a.get_params(), b.get_params())
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return all(_equal(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    try:
        return bool(a == b)
    except Exception:
        return False


# -- the checks --------------------------------------------------------------------------


def check_params_round_trip(agent: Agent, notes: CheckNotes | None = None) -> None:
    """``get_params``, ``set_params`` and ``clone`` agree with the constructor.

    ``get_params()`` returns every constructor parameter (and only those; ``*args`` and
    ``**kwargs`` are not allowed, as they cannot be listed), ``set_params`` returns the
    agent and ``set_params(**get_params())`` changes nothing, ``clone`` makes a different
    object with equal parameters, and ``set_params`` with an unknown name raises
    ``ValueError``.

    Examples
    --------
    >>> from eleusis_lab.agent import Agent
    >>> class Forgetful(Agent):
    ...     def __init__(self, depth=2):
    ...         self.depth = depth
    ...     def get_params(self, deep=True):
    ...         return {}
    ...     def choose_play(self, obs):
    ...         return obs.hand[0]
    >>> check_params_round_trip(Forgetful())
    Traceback (most recent call last):
    ...
    AssertionError: check_params_round_trip failed for Forgetful(): get_params() lacks the \
constructor parameter(s) depth
    """
    check = "check_params_round_trip"
    init = type(agent).__init__
    # A class without a constructor of its own has no parameters (object's takes *args).
    parameters = (
        [] if init is object.__init__ else list(inspect.signature(init).parameters.values())[1:]
    )
    varying = [p.name for p in parameters if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if varying:
        raise _failure(
            check,
            agent,
            f"the constructor takes *{varying[0]}; name every parameter, so that get_params"
            " can list them",
        )
    expected = [p.name for p in parameters]
    try:
        params = agent.get_params()
    except Exception as error:
        raise _failure(check, agent, f"get_params() raised {error!r}") from error
    if not isinstance(params, dict):
        raise _failure(check, agent, f"get_params() returned {params!r}, not a dict")
    missing = [name for name in expected if name not in params]
    if missing:
        raise _failure(
            check, agent, f"get_params() lacks the constructor parameter(s) {', '.join(missing)}"
        )
    extra = [name for name in params if name not in expected]
    if extra:
        raise _failure(
            check,
            agent,
            f"get_params() returns {', '.join(extra)}, which the constructor does not take",
        )
    subject = clone(agent)  # set_params changes its agent: work on a copy
    if subject is agent or type(subject) is not type(agent):
        raise _failure(check, agent, f"clone() returned {subject!r}, not a new agent of its class")
    if not _equal(subject.get_params(), params):
        raise _failure(
            check,
            agent,
            f"clone() has the parameters {subject.get_params()!r}, the agent {params!r}",
        )
    before = subject.get_params()
    returned = subject.set_params(**before)
    if returned is not subject:
        raise _failure(check, agent, f"set_params returned {returned!r}, not the agent itself")
    if not _equal(subject.get_params(), before):
        raise _failure(
            check,
            agent,
            f"set_params(**get_params()) changed the parameters from {before!r} to"
            f" {subject.get_params()!r}",
        )
    try:
        subject.set_params(not_a_parameter=1)
    except ValueError:
        pass
    except Exception as error:
        raise _failure(
            check,
            agent,
            f"set_params(not_a_parameter=1) raised {type(error).__name__}, not ValueError",
        ) from error
    else:
        raise _failure(check, agent, "set_params(not_a_parameter=1) accepted an unknown name")


def check_no_attributes_set_in_init(agent: Agent, notes: CheckNotes | None = None) -> None:
    """A new agent's attributes are exactly its parameters, as given to the constructor.

    As scikit-learn's ``check_no_attributes_set_in_init``: no learned state (an attribute
    ending in ``_``), no other attribute, and each parameter stored unchanged (the very
    object passed in), so that ``clone`` and ``set_params`` mean what they say.
    Validating a parameter and building state belong in ``start_game``.

    Examples
    --------
    >>> from eleusis_lab.agent import Agent
    >>> class Eager(Agent):
    ...     def __init__(self, depth=2):
    ...         self.depth = depth
    ...         self.table = [0] * depth
    ...     def choose_play(self, obs):
    ...         return obs.hand[0]
    >>> check_no_attributes_set_in_init(Eager())
    Traceback (most recent call last):
    ...
    AssertionError: check_no_attributes_set_in_init failed for Eager(depth=2): the constructor \
sets table, which is not a parameter; store only parameters, set state up in start_game
    """
    check = "check_no_attributes_set_in_init"
    params = agent.get_params()
    fresh = type(agent)(**params)
    attributes = getattr(fresh, "__dict__", {})
    learned = sorted(name for name in attributes if name.endswith("_"))
    if learned:
        raise _failure(
            check,
            agent,
            f"the constructor sets {', '.join(learned)}; state learned in a game ends in '_'"
            " and is set up in start_game, not in __init__",
        )
    other = sorted(set(attributes) - set(params))
    if other:
        raise _failure(
            check,
            agent,
            f"the constructor sets {', '.join(other)}, which"
            f" {'is not a parameter' if len(other) == 1 else 'are not parameters'};"
            " store only parameters, set state up in start_game",
        )
    absent = sorted(set(params) - set(attributes))
    if absent:
        raise _failure(
            check,
            agent,
            f"the constructor does not store the parameter(s) {', '.join(absent)} as"
            " attributes of the same name",
        )
    changed = [name for name in params if attributes[name] is not params[name]]
    if changed:
        raise _failure(
            check,
            agent,
            f"the constructor changes the parameter(s) {', '.join(changed)}; store them as"
            " given and validate or convert them in start_game",
        )


def check_same_seed_same_plays(agent: Agent, notes: CheckNotes | None = None) -> None:
    """Two clones play the same game with the same seed, also after other games.

    An agent draws all its randomness from the generator the engine hands to
    ``start_game`` (never the global ``random`` or ``numpy.random`` state), and
    ``start_game`` resets everything learned, so a game depends on its seed only.

    Examples
    --------
    >>> import random
    >>> from eleusis_lab.agent import Agent
    >>> class Global(Agent):
    ...     def choose_play(self, obs):
    ...         return random.choice(obs.hand)
    >>> check_same_seed_same_plays(Global())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    AssertionError: check_same_seed_same_plays failed for Global(): two clones played ...
    """
    check = "check_same_seed_same_plays"
    setup, other = _SETUPS[0], _SETUPS[1]
    first, second = clone(agent), clone(agent)
    one, two = _play(check, first, setup), _play(check, second, setup)
    if _plays(one) != _plays(two):
        raise _failure(
            check,
            agent,
            f"two clones played a {setup} differently ({_difference(one, two)}); draw random"
            " numbers only from the generator given to start_game",
        )
    _play(check, first, other)
    again = _play(check, first, setup)
    if _plays(again) != _plays(one):
        raise _failure(
            check,
            agent,
            f"after another game it played a {setup} differently ({_difference(one, again)});"
            " start_game must reset everything learned in earlier games",
        )


def check_only_legal_actions(agent: Agent, notes: CheckNotes | None = None) -> None:
    """Over several seeded games, every card it plays is one it may play.

    The engine runs with ``on_fault="raise"``, so a card it does not hold (or not a
    card at all) fails the check with the engine's `AgentError` message; so does an
    exception of the agent. The decisions are timed into ``notes``.

    Examples
    --------
    >>> from eleusis_lab.agent import Agent
    >>> class Cheat(Agent):
    ...     def choose_play(self, obs):
    ...         return next(card for card in _DECK if card not in obs.hand)
    >>> check_only_legal_actions(Cheat())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    AssertionError: check_only_legal_actions failed for Cheat(): in a classic game, seed 101, \
seat 0 of 3: seat 0 (Cheat()) played Card('AC'), which is not among the cards it may play now: ...
    """
    notes = CheckNotes() if notes is None else notes
    for setup in _SETUPS:
        _play("check_only_legal_actions", _timed(clone(agent), notes), setup)


def check_observation_not_mutated(agent: Agent, notes: CheckNotes | None = None) -> None:
    """``choose_play``, ``predict`` and ``observe`` leave what they are given unchanged.

    Observations and events are frozen, but an agent can still reach into them (or sort
    the list of cards ``predict`` is given in place): each argument is compared, by
    value, with a deep copy taken before the call.

    Examples
    --------
    >>> from eleusis_lab.agent import Agent
    >>> class Sorter(Agent):
    ...     def choose_play(self, obs):
    ...         return obs.hand[0]
    ...     def predict(self, obs, cards):
    ...         cards.sort()
    ...         return np.full(len(cards), 0.5)
    >>> check_observation_not_mutated(Sorter())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    AssertionError: check_observation_not_mutated failed for Sorter(): predict changed the list ...
    """
    for setup in _SETUPS[1:3]:
        _play("check_observation_not_mutated", _watched(agent, clone(agent), setup), setup)


def _changes(before: Any, after: Any) -> str:
    """What differs between two values, field by field for dataclasses."""
    if dataclasses.is_dataclass(before) and type(before) is type(after):
        return "; ".join(
            f"{f.name} was {getattr(before, f.name)!r}, is {getattr(after, f.name)!r}"
            for f in dataclasses.fields(before)
            if not _equal(getattr(before, f.name), getattr(after, f.name))
        )
    return f"it was {before!r}, is {after!r}"


def _watched(agent: Agent, probe: Agent, setup: _Setup) -> Agent:
    """Patch ``probe`` (a clone of ``agent``) to check that its calls change nothing."""
    choose, predict, observe = probe.choose_play, probe.predict, probe.observe

    def unchanged(call: str, what: str, before: Any, after: Any) -> None:
        if not _equal(before, after):
            raise _failure(
                "check_observation_not_mutated",
                agent,
                f"{call} changed the {what} it was given, in a {setup}: {_changes(before, after)}",
            )

    def watched_choose(obs: Observation) -> Card:
        cards = list(obs.hand)
        before, cards_before = copy.deepcopy(obs), list(cards)
        predict(obs, cards)
        unchanged("predict", "list of cards", cards_before, cards)
        unchanged("predict", "observation", before, obs)
        card = choose(obs)
        unchanged("choose_play", "observation", before, obs)
        return card

    def watched_observe(event: Event) -> None:
        before = copy.deepcopy(event)
        observe(event)
        unchanged("observe", "event", before, event)

    probe.choose_play = watched_choose  # type: ignore[method-assign]
    probe.observe = watched_observe  # type: ignore[method-assign]
    return probe


def check_pickle(agent: Agent, notes: CheckNotes | None = None) -> None:
    """It pickles, before and after a game, into an agent that plays the next game alike.

    Batches run games in worker processes, which pickle agents. Pickle finds a class by
    its module and name, so agent classes live at the top level of a module; and learned
    state holds no lambdas, locks or open files.

    Examples
    --------
    >>> from eleusis_lab.agent import Agent
    >>> class Local(Agent):  # in a doctest: pickle cannot find the class
    ...     def choose_play(self, obs):
    ...         return obs.hand[0]
    >>> check_pickle(Local())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    AssertionError: check_pickle failed for Local(): pickle cannot find its class Local as ...
    """
    check = "check_pickle"
    cls = type(agent)
    if "<locals>" in cls.__qualname__ or _lookup(cls) is not cls:
        raise _failure(
            check,
            agent,
            f"pickle cannot find its class {cls.__qualname__} as {cls.__module__}"
            f".{cls.__qualname__}; define agent classes at the top level of a module",
        )
    original = clone(agent)
    for when, setup in (("before a game", _SETUPS[0]), ("after a game", _SETUPS[2])):
        try:
            copied = pickle.loads(pickle.dumps(original))
        except Exception as error:
            raise _failure(
                check,
                agent,
                f"{when}, it does not pickle: {type(error).__name__}: {error}; keep no"
                " lambdas, locks, open files or other unpicklable state",
            ) from error
        if type(copied) is not type(original) or not _equal(
            copied.get_params(), original.get_params()
        ):
            raise _failure(check, agent, f"{when}, the unpickled agent is {copied!r}")
        one, two = _play(check, original, setup), _play(check, copied, setup)
        if _plays(one) != _plays(two):
            raise _failure(
                check,
                agent,
                f"pickled {when}, the copy plays a {setup} differently ({_difference(one, two)})",
            )


def _lookup(cls: type) -> object:
    """What pickle finds under the class's module and qualified name (None if nothing)."""
    found: object = sys.modules.get(cls.__module__)
    for part in cls.__qualname__.split("."):
        found = getattr(found, part, None)
    return found


def check_playable_games(agent: Agent, notes: CheckNotes | None = None) -> None:
    """It completes one game of every kind it can play: every game of
    `eleusis_lab.games.table.GAMES` whose needs it meets (`GameType.refusal`: its kind
    of agent and the capabilities of its decisions, `eleusis_lab.agent.agent_capabilities`).

    Each game is played by its ``sample_game``; a game the agent can play that declares
    none (``GameType.sample``) is listed in ``notes.not_checked``, not failed. A game
    completes when it ends with no fault and its record replays without a discrepancy.

    Examples
    --------
    >>> import dataclasses
    >>> from eleusis_lab.agent import Agent
    >>> from eleusis_lab.games.table import register_game, unregister_game
    >>> class Lowest(Agent):  # the core decisions: classic, 4-8, Delphi; not solo
    ...     def choose_play(self, obs):
    ...         return min(obs.hand)
    >>> twin = dataclasses.replace(GAMES["classic"], name="twin", sample=None)
    >>> _ = register_game(twin)
    >>> notes = CheckNotes()
    >>> check_playable_games(Lowest(), notes)
    >>> notes.not_checked
    ['twin']
    >>> unregister_game("twin")
    """
    check = "check_playable_games"
    notes = CheckNotes() if notes is None else notes
    try:
        agent_capabilities(agent)
    except ConfigError as error:
        raise _failure(check, agent, str(error)) from None
    seed = 201  # each game is its own: one seed serves them all
    for game in GAMES.values():
        if game.refusal(agent) is not None:
            continue
        if game.sample is None:
            notes.not_checked.append(game.name)
            continue
        where = f"{game.label} game, seed {seed}"
        played = functools.partial(game.sample_game, _timed(clone(agent), notes), seed)
        record = _play_sample(agent, where, played)
        problems = replay(record)
        problems += [f"fault: {fault.message}" for fault in record.faults]
        if problems:
            what = f"its {game.name} game (seed {seed}) does not check out: {problems[0]}"
            raise _failure(check, agent, what)


def _check_probabilities(agent: Agent, probe: Agent, obs: Observation, cards: list[Card]) -> None:
    check, label = "check_predict", f"predict(obs, {len(cards)} cards)"
    try:
        result = probe.predict(obs, cards)
        probabilities = np.asarray(result, dtype=float)
    except Exception as error:
        raise _failure(check, agent, f"{label} failed: {type(error).__name__}: {error}") from error
    if probabilities.shape != (len(cards),):
        raise _failure(
            check,
            agent,
            f"{label} returned shape {probabilities.shape}; one probability per card is"
            f" ({len(cards)},)",
        )
    outside = ~((probabilities >= 0) & (probabilities <= 1))  # NaN is outside too
    if outside.any():
        bad = float(probabilities[outside][0])
        raise _failure(check, agent, f"{label} returned {bad!r}, not a probability in [0, 1]")


def check_predict(agent: Agent, notes: CheckNotes | None = None) -> None:
    """``predict(obs, cards)`` gives one probability in [0, 1] per card.

    Asked at every decision of two games, for the cards in hand and for the whole deck.

    Examples
    --------
    >>> from eleusis_lab.agent import Agent
    >>> class Sure(Agent):
    ...     def choose_play(self, obs):
    ...         return obs.hand[0]
    ...     def predict(self, obs, cards):
    ...         return np.ones(len(cards)) * 2
    >>> check_predict(Sure())
    Traceback (most recent call last):
    ...
    AssertionError: check_predict failed for Sure(): predict(obs, 8 cards) returned 2.0, not a \
probability in [0, 1]
    """
    for setup in _SETUPS[1:3]:
        _play("check_predict", _asked_predict(agent, clone(agent)), setup)


def _asked_predict(agent: Agent, probe: Agent) -> Agent:
    """Patch ``probe`` to check ``predict`` before each decision."""
    choose = probe.choose_play

    def asked_choose(obs: Observation) -> Card:
        _check_probabilities(agent, probe, obs, list(obs.hand))
        _check_probabilities(agent, probe, obs, list(_DECK))
        return choose(obs)

    probe.choose_play = asked_choose  # type: ignore[method-assign]
    return probe


def _check_proposal(agent: Agent, probe: Agent, when: str) -> None:
    check = "check_propose_rule"
    try:
        proposal = probe.propose_rule()
    except Exception as error:
        raise _failure(
            check, agent, f"propose_rule() {when} raised {type(error).__name__}: {error}"
        ) from error
    if proposal is None:
        return
    if not (isinstance(proposal, tuple) and len(proposal) == 2):
        raise _failure(
            check,
            agent,
            f"propose_rule() {when} returned {proposal!r}; expected None or (rule text,"
            " confidence)",
        )
    text, confidence = proposal
    if not isinstance(text, str):
        raise _failure(
            check, agent, f"propose_rule() {when} proposed {text!r}, which is not rule text"
        )
    try:
        parse(text)
    except Exception as error:
        raise _failure(
            check, agent, f"propose_rule() {when} proposed {text!r}, which does not parse: {error}"
        ) from error
    if not (
        isinstance(confidence, numbers.Real)
        and not isinstance(confidence, bool)
        and 0 <= confidence <= 1
    ):
        raise _failure(
            check,
            agent,
            f"propose_rule() {when} gave the confidence {confidence!r}, not a number in [0, 1]",
        )


def check_propose_rule(agent: Agent, notes: CheckNotes | None = None) -> None:
    """``propose_rule()`` is ``None`` or (rule text that parses, confidence in [0, 1]).

    Asked every ten decisions of two games and at the end of each.

    Examples
    --------
    >>> from eleusis_lab.agent import Agent
    >>> class Pythonic(Agent):
    ...     def choose_play(self, obs):
    ...         return obs.hand[0]
    ...     def propose_rule(self):
    ...         return ("card.is_red", 0.9)
    >>> check_propose_rule(Pythonic())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    AssertionError: check_propose_rule failed for Pythonic(): propose_rule() during a game \
proposed 'card.is_red', which does not parse: ...
    """
    for setup in _SETUPS[1:3]:
        probe = _asked_proposal(agent, clone(agent))
        _play("check_propose_rule", probe, setup)
        _check_proposal(agent, probe, f"after a {setup}")


def _asked_proposal(agent: Agent, probe: Agent) -> Agent:
    """Patch ``probe`` to check ``propose_rule`` every ten decisions."""
    choose, decisions = probe.choose_play, [0]

    def asked_choose(obs: Observation) -> Card:
        decisions[0] += 1
        if decisions[0] % 10 == 1:
            _check_proposal(agent, probe, "during a game")
        return choose(obs)

    probe.choose_play = asked_choose  # type: ignore[method-assign]
    return probe


#: Every check, in the order `check_agent` runs them.
CHECKS: tuple[Callable[..., None], ...] = (
    check_params_round_trip,
    check_no_attributes_set_in_init,
    check_only_legal_actions,
    check_same_seed_same_plays,
    check_observation_not_mutated,
    check_pickle,
    check_predict,
    check_propose_rule,
    check_playable_games,  # last: a whole game of each kind fails less precisely
)


def _interactive(agent: Agent) -> str | None:
    """Why the checks cannot play ``agent`` (its class sets ``interactive = True``), or None."""
    if not getattr(type(agent), "interactive", False):
        return None
    return f"{type(agent).__name__} is interactive (a person plays it): the checks cannot play it"


def _check_instance(agent: object) -> Agent:
    if isinstance(agent, type):
        raise TypeError(f"pass an agent, not the class {agent.__name__}: e.g. {agent.__name__}()")
    if not isinstance(agent, Agent):
        raise TypeError(f"{agent!r} is not an Agent (eleusis_lab.agent.Agent)")
    return agent


def check_agent(agent: Agent) -> AgentReport:
    """Run every check of the agent contract on ``agent`` (after sklearn's check_estimator).

    Parameters
    ----------
    agent : Agent
        An agent as its users would construct it; it is not changed (checks use clones).

    Returns
    -------
    AgentReport
        The checks passed, the games it can play that cannot be checked yet, and the mean
        and longest time per decision over the check games that were timed.

    Raises
    ------
    AssertionError
        At the first check that fails, naming the check, the agent and what failed.
    TypeError
        When ``agent`` is not an `Agent` instance.
    unittest.SkipTest
        When the agent's class sets ``interactive = True`` (a person plays it, e.g. the
        registered ``human``): pytest reports the test as skipped, with the reason.

    Examples
    --------
    >>> from eleusis_lab.registry import make_agent
    >>> report = check_agent(make_agent("random"))
    >>> report.passed[:3]
    ('check_params_round_trip', 'check_no_attributes_set_in_init', 'check_only_legal_actions')
    >>> report.decisions > 0 and report.max_ms >= report.mean_ms > 0
    True
    """
    agent = _check_instance(agent)
    if (reason := _interactive(agent)) is not None:
        raise unittest.SkipTest(reason)
    notes = CheckNotes()
    for check in CHECKS:
        check(agent, notes)
    times = np.array(notes.decision_seconds) * 1e3
    return AgentReport(
        agent=_label(agent),
        passed=tuple(check.__name__ for check in CHECKS),
        not_checked=tuple(notes.not_checked),
        decisions=len(times),
        mean_ms=float(times.mean()) if len(times) else 0.0,
        max_ms=float(times.max()) if len(times) else 0.0,
    )


def parametrize_with_checks(agents: Sequence[Agent]) -> Any:
    """A ``pytest.mark.parametrize`` over every (agent, check) pair, as in scikit-learn.

    Parameters
    ----------
    agents : sequence of Agent
        The agents to check, constructed as their users would.

    Returns
    -------
    pytest.MarkDecorator
        Decorates a test function of two arguments, ``agent`` and ``check``, that calls
        ``check(agent)``; test ids read ``RandomAgent()-check_pickle``. The pairs of an
        interactive agent (``interactive = True``) are marked skip, with the reason.

    Examples
    --------
    >>> from eleusis_lab.registry import make_agent
    >>> marker = parametrize_with_checks([make_agent("random"), make_agent("oracle")])
    >>> marker.args[0], len(marker.args[1]) == 2 * len(CHECKS)
    ('agent, check', True)
    >>> marker.kwargs["ids"][0]
    'RandomAgent()-check_params_round_trip'
    """
    import pytest  # a test dependency: imported only when a test suite asks for it

    agents = [_check_instance(agent) for agent in agents]
    pairs = [(agent, check) for agent in agents for check in CHECKS]
    ids = [f"{_label(agent)}-{check.__name__}" for agent, check in pairs]
    params = [
        pair
        if _interactive(pair[0]) is None
        else pytest.param(*pair, marks=pytest.mark.skip(reason=_interactive(pair[0])))
        for pair in pairs
    ]
    return pytest.mark.parametrize("agent, check", params, ids=ids)
