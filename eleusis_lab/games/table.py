"""The games, declared once: a registry from a game's name to everything the toolkit
knows of it (`GameType`).

Every engine has the same shape, ``play(rule, agents, seed, config) -> record``, and a
frozen dataclass of options that an experiment spec's ``[config]`` table is handed to.
Records differ from game to game, so each `GameType` also says what a results table
keeps of one (`Outcome`: what every game shares, and the values of the columns the game
declares, `ResultColumn`, which `game_columns` lists for the results' schema, the
analysis and the report), how its record is read, replayed and laid out, its match, its
players, its title, the capabilities its players need (`GameType.needs`, from the mixins
of its own decisions), what it tells them of itself (`GameType.traits`), and what people
are shown of it (at a human seat, when it is stopped early, an agent's beliefs turn by
turn). The command line, the runner, `eleusis_lab.record.replay`, `eleusis_lab.testing`,
`eleusis_lab.stopped` and the human seat read `GAMES`; a game's declaration lives in its
own module (``GAME_TYPE``) and is
registered as an entry point of the group ``eleusis_lab.games`` (the project's
``pyproject.toml`` registers its six), so an installed package adds a game with one
module and one line; `register_game` adds one in a running process.

The games and what a results row keeps of them (one row per game and seat):

=================  =========  ==============================================================
game               players    score / dealer_score / the game's own columns (`columns`)
=================  =========  ==============================================================
``classic``        2 or more  player score / dealer score; ``wrong_cards`` after phase 1
``four-to-eight``  3 or more  as classic
``delphi``         1 or more  player score after the settlement / the oracle's score;
                              its ``prediction_accuracy``: the share of correct tokens; the
                              event table has a row per card *and player* with its
                              probability (``p_right``)
``new-eleusis``    3 to 7     player score / dealer score; ``wrong_cards``: the seat's
                              wrong cards over the round; dealers may deal only rules of
                              the main line (`GameType.check_dealer`)
``solo``           1          the solo score / none (no dealer); its ``success``,
                              ``found_turn``, ``wrong_declarations``; the floored score is
                              ``score.clip(lower=0)``
=================  =========  ==============================================================

Examples
--------
>>> from eleusis_lab.registry import parse_agent_list
>>> classic = GAMES["classic"]
>>> config = classic.make_config({"hand_size": 5})
>>> record = classic.play("red(card)", parse_agent_list("random,random"), 3, config)
>>> record.game, [len(hand) for hand in record.deal]
('classic', [5, 5])
>>> outcome = classic.outcome(record)
>>> outcome.scores == record.player_scores, outcome.dealer_score == record.dealer_score
(True, True)
>>> solo = GAMES["solo"]
>>> record = solo.play("red(card)", parse_agent_list("oracle"), 3, solo.make_config({}))
>>> outcome = solo.outcome(record)
>>> outcome.scores, outcome.dealer_score, outcome.extra["success"]
((30.0,), None, (True,))
>>> [column.name for column in solo.columns]
['success', 'found_turn', 'wrong_declarations']
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from eleusis_lab.agent import (
    Agent,
    Event,
    GameInfo,
    GameTraits,
    agent_capabilities,
    capability_refusal,
)
from eleusis_lab.cards import Card
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.people import SeatView
from eleusis_lab.plugins import Plugins
from eleusis_lab.registry import AGENTS, AgentRegistry, make_agent
from eleusis_lab.rules import Rule
from eleusis_lab.rules.catalog import acceptable_rules, catalog
from eleusis_lab.rules.grammar import GRAMMARS, Grammar

if TYPE_CHECKING:
    from eleusis_lab.stopped import GameSoFar

#: The most turns a game's ``max_turns`` may allow (the games' defaults: 30 to 3,000).
MAX_TURNS = 100_000

__all__ = [
    "DEFAULT_GAME",
    "GAMES",
    "GAME_GROUP",
    "MAX_TURNS",
    "SUMMARIES",
    "GameType",
    "Outcome",
    "ResultColumn",
    "dealable_rules",
    "game_columns",
    "register_game",
    "replay_game",
    "SampleGame",
    "sample_table",
    "unregister_game",
]

#: The entry-point group where packages register their games (each a `GameType`).
GAME_GROUP = "eleusis_lab.games"
#: The game a spec or ``eleusis-lab play`` plays when it names none.
DEFAULT_GAME = "classic"


#: How a line-up table may summarise a game's column (`ResultColumn.summary`): ``"mean"``
#: with a t interval (`eleusis_lab.analysis.mean_ci`), ``"rate"``, the share of true
#: values, with a Wilson interval (`eleusis_lab.analysis.wilson_ci`).
SUMMARIES = ("mean", "rate")


@dataclass(frozen=True)
class ResultColumn:
    """A column of the results that one game declares (`GameType.columns`): one value
    per seat, in each row of the game's, null in the rows of other games.

    Attributes
    ----------
    name : str
        The column's name in the results (unique: not a core column, nor another game's).
    dtype : str
        Its Arrow type, as a `pyarrow.type_for_alias` alias: ``"float64"``, ``"int64"``,
        ``"bool"``, ``"string"``.
    description : str
        What a value means, in one line.
    summary : str or None
        How a line-up table (`eleusis_lab.analysis.leaderboard`, the report) summarises
        it, one of `SUMMARIES`; None: it is not summarised.
    label : str
        Its name for people in the report; by default the name with spaces.
    summary_name : str
        The summary's column in a line-up table; by default the name for a mean,
        ``NAME_rate`` for a rate.
    interval_name : str
        The stem of the interval's columns (``STEM_ci_low``, ``STEM_ci_high``); by
        default the name.
    digits : int
        The decimals the report shows of the summary.

    Examples
    --------
    >>> found = ResultColumn("found", "bool", "the seat found the rule", summary="rate")
    >>> found.summary_columns, found.heading
    (('found_rate', 'found_ci_low', 'found_ci_high'), 'found')
    >>> ResultColumn("found", "bool", "the seat found the rule", summary="median")
    Traceback (most recent call last):
    ...
    eleusis_lab.errors.ConfigError: column 'found': summary 'median' is not one of mean, rate
    """

    name: str
    dtype: str
    description: str
    summary: str | None = None
    label: str = ""
    summary_name: str = ""
    interval_name: str = ""
    digits: int = 2

    def __post_init__(self) -> None:
        if not self.name.isidentifier():
            raise ConfigError(f"a result column's name must be an identifier, got {self.name!r}")
        if self.summary is not None and self.summary not in SUMMARIES:
            raise ConfigError(
                f"column {self.name!r}: summary {self.summary!r} is not one of"
                f" {', '.join(SUMMARIES)}"
            )

    @property
    def heading(self) -> str:
        """The column's name for people: its `label`, or its name with spaces."""
        return self.label or self.name.replace("_", " ")

    @property
    def summary_columns(self) -> tuple[str, str, str]:
        """A line-up table's columns of its summary: the value, the interval's bounds."""
        value = self.summary_name or (self.name if self.summary == "mean" else f"{self.name}_rate")
        stem = self.interval_name or self.name
        return value, f"{stem}_ci_low", f"{stem}_ci_high"


@dataclass(frozen=True)
class Outcome:
    """What a results table keeps of one game, whatever the game (per seat: a tuple).

    Attributes
    ----------
    scores : tuple of float
        Each seat's score.
    dealer_score : float or None
        The dealer's score (what a learning dealer learns from); None if no dealer.
    wrong_cards : tuple of int or None
        Each seat's wrong cards (classic: at the end of the first phase), where the game
        has them.
    cards_left : tuple of int or None
        Cards each seat holds at the end, where the game has them.
    plays : tuple of int
        How many cards each seat played.
    end : str or None
        How the game ended, in the game's words.
    events : tuple of Event
        The public plays, for the event table.
    extra : mapping of str to tuple
        The values of the game's own columns (`GameType.columns`), by column name: a
        tuple with a value per seat (None: null).
    predictions : tuple of tuple of float, optional
        Where every seat predicts every event (Delphi): for each event, each seat's
        probability that the card is right. The event table then has one row per event
        and seat, the seat being the one that predicted.
    """

    scores: tuple[float, ...]
    dealer_score: float | None
    wrong_cards: tuple[int | None, ...]
    cards_left: tuple[int | None, ...]
    plays: tuple[int, ...]
    end: str | None
    events: tuple[Event, ...]
    extra: Mapping[str, tuple[Any, ...]] = dataclasses.field(default_factory=dict)
    predictions: tuple[tuple[float, ...], ...] | None = None


@dataclass(frozen=True)
class SampleGame:
    """The game `eleusis_lab.testing.check_playable_games` plays for an agent that can
    play a game (`GameType.sample_game`): ``players`` seats, the agent at seat
    ``seed % players`` and random players at the others (`sample_table`), the rule
    ``rule``, the game's options ``options`` with the agent's faults raised (where the
    game has the option ``on_fault``)."""

    rule: str
    players: int
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)


def sample_table(agent: Agent, players: int, seed: int) -> list[Agent]:
    """The table of a `GameType.sample_game`: ``agent`` at seat ``seed % players``, the
    registered ``random`` agent at every other seat.

    >>> from eleusis_lab.registry import make_agent
    >>> [type(a).__name__ for a in sample_table(make_agent("oracle"), 3, seed=4)]
    ['RandomAgent', 'OracleAgent', 'RandomAgent']
    """
    return [agent if i == seed % players else make_agent("random") for i in range(players)]


# -- which rules a dealer can deal ------------------------------------------------------------


def dealable_rules(dealer: Any) -> tuple[list[Rule] | None, Any]:
    """The rules a dealer of `eleusis_lab.dealers` can deal, as far as its parameters tell.

    Returns
    -------
    tuple
        ``(rules, grammar)``. ``rules``: every rule a fixed or catalog dealer may deal
        (None for other dealers); ``grammar``: the `eleusis_lab.rules.grammar.Grammar` a
        pool dealer (band, spread, adaptive) draws from (None for other dealers).

    Examples
    --------
    >>> from eleusis_lab.dealers import make_dealer
    >>> rules, grammar = dealable_rules(make_dealer("suit_cycle"))
    >>> [rule.name for rule in rules], grammar
    (['suit_cycle'], None)
    """
    import numpy as np

    from eleusis_lab.dealers import CatalogDealer, FixedDealer  # pandas: not at start-up

    if isinstance(dealer, FixedDealer):
        return [dealer.choose_rule(np.random.default_rng(0)).rule], None
    if isinstance(dealer, CatalogDealer):
        named = {entry.name: entry.rule for entry in catalog()}
        if dealer.rules is not None:
            return [named[name] for name in dealer.rules], None
        if dealer.weights is not None:
            return [named[name] for name, weight in dealer.weights.items() if weight > 0], None
        if dealer.require_acceptable:
            return list(acceptable_rules()), None
        return list(named.values()), None
    grammar = getattr(dealer, "grammar", None)  # a preset's name, a Grammar or its fields
    if isinstance(grammar, str):
        grammar = GRAMMARS[grammar]
    elif isinstance(grammar, Mapping):
        grammar = Grammar(**grammar)
    return None, grammar if isinstance(grammar, Grammar) else None


def _main_line_only(game: str, dealer: Any) -> None:
    """ConfigError if ``dealer`` could deal a rule that reads ``last_play_right``."""
    rules, grammar = dealable_rules(dealer)
    hint = f"{game} rules read only the main line, never last_play_right (RULES.md section 5)"
    if rules is not None:
        reading = [rule.name or rule.text for rule in rules if "outcome" in rule.slots]
        if reading:
            shown = ", ".join(repr(name) for name in reading[:5])
            more = f" and {len(reading) - 5} more" if len(reading) > 5 else ""
            raise ConfigError(
                f"{hint}, but this dealer can deal {shown}{more}; name the rules it may"
                " deal, e.g. {kind = 'catalog', rules = [...]}"
            )
    if grammar is not None and grammar.last_play_right:
        raise ConfigError(
            f"{hint}, but the grammar {grammar.name!r} of this dealer reads it; choose one"
            " that does not, e.g. grammar = 'standard'"
        )


@dataclass(frozen=True)
class GameType:
    """One game of the toolkit: everything the command line, the runner, replay, the
    conformance checks and the human seat need to know of it.

    Attributes
    ----------
    name : str
        The name specs use (``game = "classic"``), also the record's ``game``.
    play : callable
        ``play(rule, agents, seed, config) -> record``, a pure function of its inputs.
    config_type : type
        The frozen dataclass of the game's options (with ``to_dict``); its fields are
        the keys a spec's ``[config]`` table may hold.
    outcome : callable
        ``outcome(record) -> Outcome``: what a results table keeps of a game.
    min_players, max_players : int, int or None
        The fewest and most active players (the dealer not counted); None: no limit.
    has_dealer : bool
        Whether the game has a dealer (or oracle) with a score: a match rotates it and
        a learning dealer learns from it. The solo game has none.
    main_line_only : bool
        The game's rules may not read ``last_play_right`` (New Eleusis): a spec whose
        dealer could deal such a rule is refused (`check_dealer`).
    learning_phase : int or None
        The phase whose plays show what a player has learnt, for learning curves
        (classic Eleusis: 1, where he chooses any card of his hand; in phase 2 he plays
        his wrong cards back); None: every play.
    everyone_predicts : bool
        Every seat predicts every card (Delphi): the event table has a row per card and
        seat, the seat being the one that predicted.
    needs_rule : bool
        Whether the game is played to a secret rule (Secrets is not: it has no dealer
        in the spec, and its rows have no rule).
    agents : AgentRegistry
        Where the game's agents are found by name.
    title : str
        The game's name for people (``"classic Eleusis"``); the name when empty.
    record_type : type or None
        The record's class, with ``from_dict`` (`eleusis_lab.record.read_record`).
    replay : callable or None
        ``replay(record) -> list of str``: the discrepancies between a record and the
        rules (`eleusis_lab.record.replay`).
    layout : callable or None
        ``layout(record, columns, max_rows) -> str``: the table as players see it
        (`eleusis_lab.record.format_layout`).
    match : callable or None
        ``match(agents, seed, rules, config=config)``: a match that rotates the dealer,
        where the game has one (`eleusis_lab.games.match.rotate_deal`).
    match_type : type or None
        The class of the game's matches (a `eleusis_lab.games.match.MatchResult`), which
        `eleusis_lab.games.match.read_match` reads.
    default_players : int or None
        The players ``eleusis-lab play`` seats when told none (the fewest when None).
    default_agent : str
        The agent ``eleusis-lab play`` seats when told none.
    sample : SampleGame or None
        The game `sample_game` plays: what `eleusis_lab.testing.check_playable_games`
        plays for an agent that can play the game; None: no sample game.
    mixins : tuple of type
        The mixins of the game's own decisions, beyond those of its kind of agent
        (``agents.base``), e.g. `eleusis_lab.games.solo.SoloDecisions`: an agent needs
        their capabilities (`needs`) and a refusal names the one that provides what it
        lacks (`refusal`).
    traits : GameTraits
        What the game tells its players of itself (`eleusis_lab.agent.GameTraits`): who
        chose the rule, what a player is scored on. The engine hands them to every agent
        in ``GameInfo.traits``.
    cards : callable or None
        ``cards(record) -> (deck, places)``: the cards the game is played with, and
        where each one is at the end (a mapping from a place's name to its cards), so
        that `eleusis_lab.games.conformance.check_game` can check that every card is in
        exactly one place.
    score : callable or None
        ``score(record) -> (scores, dealer_score)``: the seats' scores and the dealer's
        (None without one) that the game's scoring functions give from the counts the
        record keeps; `eleusis_lab.games.conformance.check_game` compares them with
        the game's `Outcome`.
    seat_view : callable
        ``seat_view(info, title, turn_cap) -> SeatView``, usually a subclass of
        `eleusis_lab.games.people.SeatView`: what a person at a human seat
        (`eleusis_agents.human.HumanAgent`) is shown of the game beyond the table and
        the plays. By default the generic `SeatView`.
    scores_so_far : callable or None
        ``scores_so_far(game) -> list of str``: the scores of a game stopped before its
        end, from what a human seat saw (`eleusis_lab.stopped.GameSoFar`), as
        `eleusis_lab.stopped.stopped_report` shows them; None: the game has no scores
        before its end.
    beliefs : callable or None
        ``beliefs(rule, agents, seed, config) -> (record, str)``: one game, and what the
        agent believed turn by turn laid out for a terminal (``eleusis-lab play
        --beliefs``); None where the game cannot show it.
    play_for_people : callable or None
        How ``eleusis-lab play`` plays a game, where it differs from `play`: the same
        arguments and record, with more told to the seats (solo: a seat that hears
        how its declarations were judged is told); None: `play`.
    columns : tuple of ResultColumn
        The game's own columns of the results, beyond those every game has (solo: the
        rule found, the turn, the wrong declarations): `outcome` fills them
        (`Outcome.extra`), and the results' schema, the analysis and the report read
        them from the registry (`game_columns`).
    state_type : type or None
        The class of the game's positions, a subclass of
        `eleusis_lab.games.state.GameState` (its rules as data and transitions); None
        where the game has none.
    """

    name: str
    play: Callable[[Rule | str, Sequence[Agent], int, Any], Any]
    config_type: type
    outcome: Callable[[Any], Outcome]
    min_players: int = 2
    max_players: int | None = None
    has_dealer: bool = True
    main_line_only: bool = False
    learning_phase: int | None = None
    everyone_predicts: bool = False
    needs_rule: bool = True
    agents: AgentRegistry = AGENTS
    title: str = ""
    record_type: type | None = None
    replay: Callable[[Any], list[str]] | None = None
    layout: Callable[..., str] | None = None
    match: Callable[..., Any] | None = None
    match_type: type | None = None
    default_players: int | None = None
    default_agent: str = "random"
    sample: SampleGame | None = None
    cards: Callable[[Any], tuple[Sequence[Card], Mapping[str, Sequence[Card]]]] | None = None
    score: Callable[[Any], tuple[Sequence[float], float | None]] | None = None
    seat_view: Callable[[GameInfo, str, int | None], SeatView] = SeatView
    scores_so_far: Callable[[GameSoFar], list[str]] | None = None
    beliefs: Callable[[Rule | str, Sequence[Agent], int, Any], tuple[Any, str]] | None = None
    play_for_people: Callable[[Rule | str, Sequence[Agent], int, Any], Any] | None = None
    mixins: tuple[type, ...] = ()
    traits: GameTraits = GameTraits()
    columns: tuple[ResultColumn, ...] = ()
    state_type: type | None = None

    def sample_game(self, agent: Agent, seed: int) -> Any:
        """The record of the game of `sample` for ``agent`` and ``seed``, the agent's
        faults raised (`eleusis_lab.errors.AgentError`).

        >>> from eleusis_lab.registry import make_agent
        >>> record = GAMES["classic"].sample_game(make_agent("oracle"), seed=4)
        >>> [seat["name"] for seat in record.agents], record.rule
        (['RandomAgent', 'OracleAgent', 'RandomAgent'], 'red(card)')
        """
        if self.sample is None:
            raise ConfigError(f"{self.name} has no sample game")
        sample = self.sample
        # a game whose options say what a fault does raises the agent's
        faults = {"on_fault": "raise"} if "on_fault" in self.options else {}
        config = self.make_config({**sample.options, **faults})
        return self.play(sample.rule, sample_table(agent, sample.players, seed), seed, config)

    @property
    def label(self) -> str:
        """The title, or the name when the game has none."""
        return self.title or self.name

    @property
    def players(self) -> int:
        """The players ``eleusis-lab play`` seats when told none."""
        return self.min_players if self.default_players is None else self.default_players

    @property
    def needs(self) -> frozenset[str]:
        """The capabilities an agent needs to play the game
        (`eleusis_lab.agent.agent_capabilities`): its kind's (``"plays"`` for an
        `eleusis_lab.agent.Agent`) and those of its `mixins`.

        >>> [sorted(GAMES[name].needs) for name in ("classic", "solo", "new-eleusis")]
        [['plays'], ['declares', 'plays'], ['plays', 'plays_strings']]
        """
        return frozenset().union(*map(agent_capabilities, (self.agents.base, *self.mixins)))

    def refusal(self, agent: Any, label: str | None = None) -> str | None:
        """Why ``agent`` (an agent or its class, named ``label``) cannot sit at the
        game's table, in one line: it is not of the game's kind of agent, or it lacks one
        of the capabilities the game `needs` (the mixin that provides it is named). None
        when it can.

        >>> from eleusis_lab.agent import Agent
        >>> class Lowest(Agent):
        ...     def choose_play(self, obs):
        ...         return min(obs.hand)
        >>> GAMES["classic"].refusal(Lowest) is None
        True
        >>> GAMES["solo"].refusal(Lowest, "agent 'lowest'")
        "agent 'lowest' cannot play solo: it lacks the capability 'declares' (mix in \
eleusis_lab.games.solo.decisions.SoloDecisions)"
        """
        cls = agent if isinstance(agent, type) else type(agent)
        label = cls.__name__ if label is None else label
        base = self.agents.base
        if not issubclass(cls, base):
            kind = f"{base.__module__}.{base.__qualname__}"
            return f"{label} cannot play {self.name}: it is not a {kind}"
        return capability_refusal(cls, label, self.name, (base, *self.mixins))

    @property
    def options(self) -> tuple[str, ...]:
        """The names of the game's options."""
        return tuple(field.name for field in dataclasses.fields(self.config_type))

    def playable_rules(self, rules: Sequence[Rule]) -> list[Rule]:
        """The rules of ``rules`` the game can be played to: all, or for a game of
        `main_line_only` those that never read ``last_play_right``.

        >>> from eleusis_lab.rules import parse
        >>> rules = [parse("red(card)"), parse("last_play_right")]
        >>> [len(GAMES[name].playable_rules(rules)) for name in ("classic", "new-eleusis")]
        [2, 1]
        """
        return [rule for rule in rules if not self.main_line_only or "outcome" not in rule.slots]

    def make_config(self, options: Mapping[str, Any]) -> Any:
        """The game's options from a plain mapping; `ConfigError` for an unknown name, or
        a ``max_turns`` over `MAX_TURNS` (what specs and records give goes through here).

        >>> GAMES["classic"].make_config({"hand_sise": 5})
        Traceback (most recent call last):
        ...
        eleusis_lab.errors.ConfigError: classic has no option 'hand_sise' (did you mean \
'hand_size'?); its options: hand_size, retry_in_turn, max_turns, on_fault, decision_seconds, \
decision_limit
        """
        for key in options:
            if key not in self.options:
                close = difflib.get_close_matches(key, self.options, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise ConfigError(
                    f"{self.name} has no option {key!r}{hint}; its options:"
                    f" {', '.join(self.options)}"
                )
        turns = options.get("max_turns")
        if isinstance(turns, int) and not isinstance(turns, bool) and turns > MAX_TURNS:
            raise ConfigError(
                f"{self.name}: max_turns must be at most {MAX_TURNS:,}, got {turns:,}"
            )
        return self.config_type(**options)

    def check_dealer(self, dealer: Any) -> None:
        """`ConfigError` if ``dealer`` does not suit the game.

        A learning dealer (one that overrides ``record_score``) needs a game with a
        dealer score; a game of `main_line_only` needs a dealer that cannot deal a
        rule reading ``last_play_right``. (The engines check every rule again.)

        >>> from eleusis_lab.dealers import make_dealer
        >>> GAMES["new-eleusis"].check_dealer(make_dealer({"kind": "catalog"}))
        Traceback (most recent call last):
        ...
        eleusis_lab.errors.ConfigError: new-eleusis rules read only the main line, never \
last_play_right (RULES.md section 5), but this dealer can deal \
'right_red_wrong_black', 'wrong_play_same_suit'; name the rules it may deal, e.g. \
{kind = 'catalog', rules = [...]}
        """
        from eleusis_lab.dealers import Dealer  # pandas: not at start-up

        if not self.has_dealer and type(dealer).record_score is not Dealer.record_score:
            raise ConfigError(
                f"{self.name} has no dealer score, so a learning dealer"
                f" ({type(dealer).__name__}) has nothing to learn from"
            )
        if self.main_line_only:
            _main_line_only(self.name, dealer)


#: Game name -> its declaration: every registered game.
GAMES: Plugins[GameType] = Plugins(GAME_GROUP, GameType, "game")


def register_game(game: GameType, replace: bool = False) -> GameType:
    """Add ``game`` to `GAMES` for this process (an installed package registers its
    games as entry points instead); returns it. A name already taken is a ConfigError,
    unless ``replace`` (the registered game comes back with `unregister_game`).

    >>> import dataclasses
    >>> twin = dataclasses.replace(GAMES["classic"], name="classic-twin", title="a twin")
    >>> register_game(twin).label, "classic-twin" in GAMES
    ('a twin', True)
    >>> unregister_game("classic-twin"); "classic-twin" in GAMES
    False
    """
    if not isinstance(game, GameType):
        raise ConfigError(f"register_game({game!r}) is a {type(game).__name__}, not a GameType")
    if game.name in GAMES and not replace:
        raise ConfigError(f"a game named {game.name!r} is registered already")
    others = [other for other in GAMES.values() if other.name != game.name]
    _column_owners([*others, game])
    return GAMES.add(game)


def game_columns(core: Collection[str] = ()) -> tuple[ResultColumn, ...]:
    """The columns the registered games declare (`GameType.columns`), in the order of
    `GAMES`: those the results have after the columns every game shares. A name taken
    twice is a `ConfigError` naming both (a column declared alike by a game and its
    variant is one column), and so is a name among ``core``, the columns the results
    have whatever the game (`eleusis_lab.results_schema.row_schema` checks them so).

    >>> [column.name for column in game_columns()]
    ['prediction_accuracy', 'success', 'found_turn', 'wrong_declarations']
    """
    return tuple(_column_owners(GAMES.values(), core))


def _column_owners(games: Any, core: Collection[str] = ()) -> dict[ResultColumn, str]:
    """Each column of ``games`` and the first game that declares it, in order;
    `ConfigError` for a name that clashes with a core column of the results or another
    game's column."""
    core = set(core)
    owners: dict[ResultColumn, str] = {}
    by_name: dict[str, ResultColumn] = {}
    for game in games:
        for column in game.columns:
            if column.name in core:
                raise ConfigError(
                    f"game {game.name!r} declares the column {column.name!r}, a column every"
                    " game's results have: name it otherwise"
                )
            taken = by_name.get(column.name)
            if taken is not None and taken != column:
                raise ConfigError(
                    f"game {game.name!r} declares the column {column.name!r}, which game"
                    f" {owners[taken]!r} declares otherwise: name one of them otherwise"
                )
            if taken is None:
                by_name[column.name] = column
                owners[column] = game.name
    return owners


def unregister_game(name: str) -> None:
    """Take back a game `register_game` added (KeyError for any other)."""
    GAMES.remove(name)


def replay_game(record: Any) -> list[str]:
    """Check a record of one game against its game's rules (`GameType.replay`); the
    discrepancies found, empty when it checks out (`eleusis_lab.record.replay` also reads
    matches).

    >>> from eleusis_lab.registry import parse_agent_list
    >>> solo = GAMES["solo"]
    >>> record = solo.play("red(card)", parse_agent_list("oracle"), 3, solo.make_config({}))
    >>> replay_game(record), replay_game(record.replace(score=0.0)) != []
    ([], True)
    >>> import types
    >>> replay_game(types.SimpleNamespace(game="chess"))
    ["replay does not know the game 'chess'"]
    """
    game = GAMES.get(record.game)
    if game is None or game.replay is None:
        return [f"replay does not know the game {record.game!r}"]
    return game.replay(record)
