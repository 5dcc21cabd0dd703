"""Experiment specs: a TOML file that says which games to play, checked and expanded.

A spec names the game, the players, the agent line-ups, the dealer, how many games (or
matches) to play per cell, the root seed and the game's options, and a grid over any
of these. `load_spec` reads and checks it (every mistake is a `ConfigError` naming the
file, the key and the reason) and expands it into cells (`Cell`): one per line-up
and combination of grid values. The runner (`eleusis_lab.runner`) cuts each cell into
shards of games.

The keys
--------
::

    name = "complexity"          # the experiment's name (default: the file's stem)
    game = "classic"             # a name of eleusis_lab.games.table.GAMES: classic,
                                 #   four-to-eight, delphi, new-eleusis, solo
    players = 4                  # active players per game (matches: participants);
                                 #   default: the number of agents of each line-up
                                 #   (solo: 1, the line-up's agents taking turns)
    games = 1000                 # games per cell ... or ...
    # matches = 50               # matches per cell (everyone deals deals_per_player times)
    # deals_per_player = 2
    seed = 0                     # the root seed of every random choice
    shard_size = 100             # games (matches: 10) per shard, the unit of work (a
                                 #   trial of fewer than twice as many is cut in two);
                                 #   a learning dealer learns over the games of one
                                 #   shard (and its shards keep this size)
    out = "results/complexity"   # where the results go (relative to the working dir)
    events = false               # also store one row per play (learning curves)
    predictions = false          # ... with the playing agent's P(right) of its card
    isolate = false              # true: every agent plays from a process of its own
                                 #   (60 s per call; or isolate = SECONDS), the rows
                                 #   unchanged (eleusis_lab.isolation)
    budget = {calls = 5000, tokens = 2_000_000}
                                 # language models: the run stops cleanly, what it
                                 #   finished kept, once its seats' requests or tokens
                                 #   (in and out) reach either (checked per shard)
    dealer = {kind = "spread", measure = "bits", bins = 5}
                                 # handed to eleusis_lab.dealers.make_dealer; a rule's
                                 #   name or text is a fixed dealer: dealer = "suit_cycle"

    [config]                     # the game's options, e.g. ClassicConfig's
    hand_size = 13
    decision_limit = 60          # every game's: the hard limit of one call of an agent
                                 #   (s); a seat stopped there is retired for the rest
                                 #   of its game; `run --decision-limit S` sets it

    [[lineups]]                  # one or more; or a top-level `agents = [...]`, with
                                 #   its `rotate` and `duplicate` beside it
    name = "mixed"
    agents = ["bayes", "tree", {name = "bayes", grammar = "colours_suits"}]
    rotate = true                # seat s of game g gets agent (s + g) mod k
    duplicate = false            # true: the k games of a deal share its seed (below)

    [grid]                       # every combination is a cell (times the line-ups)
    players = [3, 4, 5]
    "config.retry_in_turn" = [false, true]

The agents of a line-up fill the seats in turn: with ``k`` agents and ``n`` players,
seat ``s`` of game ``g`` gets agent ``(s + g) mod k`` (``rotate = false``: ``s mod k``),
so a mixed population has no agent always playing first. In a match the line-up gives
the participants, rotated by the match number.

Duplicate deals (``duplicate = true``, games only, with ``rotate = true``): the ``k``
games ``k*d ... k*d + k - 1`` of a line-up of ``k`` agents are its ``k`` rotations of
one deal ``d``, all played with the deal's seed, `eleusis_lab.shards.game_seed`
``(seed, d)`` (the same cards dealt, and each seat the same random stream), so every
agent meets the same cards from every seat and the luck of the deal cancels out of the
comparison. ``games`` must then be a multiple of ``k``. A rule is not part of the deal:
the dealer chooses each game's rule as usual (a fixed rule is the same in every game).
Without duplicate deals, game ``g`` has seed ``game_seed(seed, g)``.

Examples
--------
>>> spec = load_spec({
...     "games": 4,
...     "dealer": "red(card)",
...     "lineups": [{"name": "solo", "agents": ["random"]},
...                 {"name": "mixed", "agents": ["random", "oracle"]}],
...     "grid": {"players": [2, 3]},
... })
>>> [cell.label for cell in spec.cells]  # doctest: +NORMALIZE_WHITESPACE
['{"lineup": "solo", "players": 2}', '{"lineup": "solo", "players": 3}',
 '{"lineup": "mixed", "players": 2}', '{"lineup": "mixed", "players": 3}']
>>> [agent.name for agent in spec.cells[3].seat_agents(game=1)]
['oracle', 'random', 'oracle']
>>> load_spec({"games": 4, "dealer": "red(card)", "agents": ["random", "bayse"]})
Traceback (most recent call last):
...
eleusis_lab.errors.ConfigError: spec: agents[1]: unknown agent 'bayse' (did you mean 'bayes'?)
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import itertools
import json
import math
import numbers
import os
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eleusis_lab.agent import Agent
from eleusis_lab.engines import MOST_SECONDS, is_seconds
from eleusis_lab.errors import ConfigError, did_you_mean
from eleusis_lab.games.table import DEFAULT_GAME, GAMES
from eleusis_lab.registry import (
    AgentSpecError,
    UnknownAgentError,
    make_agent,
    split_params,
)
from eleusis_lab.rules.reach import time_limit
from eleusis_lab.text import plural

if TYPE_CHECKING:  # pandas: not at start-up
    from eleusis_lab.dealers import DealerPlan

__all__ = [
    "AgentSpec",
    "Cell",
    "ExperimentSpec",
    "Lineup",
    "check_jobs",
    "check_output_folder",
    "load_spec",
    "max_jobs",
]

#: Version of the rows a cell produces; part of every cell's key, so that shards written
#: by an older layout are never mistaken for current ones.
ROWS_VERSION = 3  # 3: the sees_rule column

_KEYS = (
    "name",
    "description",
    "game",
    "players",
    "games",
    "matches",
    "deals_per_player",
    "seed",
    "shard_size",
    "out",
    "events",
    "predictions",
    "isolate",
    "budget",
    "dealer",
    "config",
    "agents",
    "rotate",
    "duplicate",
    "lineups",
    "grid",
)
#: What a run's `budget` may bound: the requests of its seats, their tokens in and out.
BUDGET_KEYS = ("calls", "tokens")
#: How a line-up's agents take the seats; beside a top-level `agents` list, top-level keys.
_SEATING_KEYS = ("rotate", "duplicate")
_LINEUP_KEYS = ("name", "agents", *_SEATING_KEYS)
_GRID_KEYS = ("game", "players", "seed", "dealer", "config")
_DEFAULT_SHARD_SIZE = {"game": 100, "match": 10}

# -- bounds: what a spec may ask for; beyond one, a one-line ConfigError that states it --

#: The largest spec file read, in bytes (a spec is a few kilobytes).
MAX_SPEC_BYTES = 1_000_000
#: Games per cell, a match's games counted (1,000 times the flagship study's 10,000).
MAX_GAMES = 10_000_000
#: Shards of a spec in all: each is a file and an entry of the manifest.
MAX_SHARDS = 100_000
#: Cells of a spec: line-ups times the grid's combinations.
MAX_CELLS = 10_000
#: Players of a game that sets no maximum of its own.
MAX_PLAYERS = 1_000
#: An experiment's name names its folder under ``results/``: letters, digits, ``_`` and,
#: after the first character, ``- . +`` and spaces; at most 100 characters (no path).
NAME_PATTERN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+ -]{0,99}")
#: Worker processes per core of the machine (`max_jobs`).
JOBS_PER_CORE = 4


def max_jobs() -> int:
    """The most worker processes a run may start: `JOBS_PER_CORE` per core."""
    return JOBS_PER_CORE * (os.cpu_count() or 1)


def check_jobs(jobs: int) -> int:
    """``jobs`` itself, unless it asks for more worker processes than `max_jobs`."""
    if jobs > max_jobs():
        raise ConfigError(
            f"at most {max_jobs()} worker processes ({JOBS_PER_CORE} per core, and this"
            f" machine has {os.cpu_count() or 1}), got {jobs}"
        )
    return jobs


#: What a results folder holds (`eleusis_lab.storage`); hidden files (a run's temporary
#: files) are no other content either.
RESULTS_ENTRIES = ("manifest.json", "metadata.json", "rows", "events")


def check_output_folder(out: str | Path) -> None:
    """`ConfigError` for an output folder with other files in it and no results: a run
    writes its files only into a new or empty folder, or one a run wrote (``--out /``,
    or a project's folder, would get rows/ and manifest.json mixed into its files).

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> check_output_folder(folder)  # empty: fine
    >>> _ = (folder / "notes.txt").write_text("mine")
    >>> check_output_folder(folder)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    eleusis_lab.errors.ConfigError: ...: not a results folder: it holds other files (notes.txt); \
give a new or empty folder, or one an earlier run wrote
    """
    path = Path(out)
    try:
        if not path.is_dir() or any((path / name).exists() for name in RESULTS_ENTRIES):
            return
        with os.scandir(path) as entries:
            others = [e.name for e in itertools.islice(entries, 1000) if e.name[:1] != "."]
    except OSError:  # unreadable: creating the folder says why
        return
    if others:
        shown = ", ".join(sorted(others)[:3]) + (", ..." if len(others) > 3 else "")
        raise ConfigError(
            f"{out}: not a results folder: it holds other files ({shown}); give a new or"
            " empty folder, or one an earlier run wrote"
        )


def _json(value: Any) -> str:
    """Canonical JSON text: sorted keys, so equal values give equal text."""
    return json.dumps(value, sort_keys=True, default=str)


# -- agents and line-ups ----------------------------------------------------------------


@dataclass(frozen=True)
class AgentSpec:
    """An agent as a spec names it: a registered name or ``module:Class``, and parameters.

    Examples
    --------
    >>> AgentSpec("oracle", {"choice": "first"}).make()
    OracleAgent(choice='first')
    """

    name: str
    params: dict[str, Any] = field(default_factory=dict)

    def make(self, make: Callable[..., Any] = make_agent) -> Agent:
        """A new agent, from `eleusis_lab.registry.make_agent` or the game's own ``make``."""
        return make(self.name, **copy.deepcopy(self.params))

    def to_dict(self) -> dict[str, Any]:
        """``{"agent": name, "params": {...}}``, as results tables store it."""
        return {"agent": self.name, "params": self.params}


@dataclass(frozen=True)
class Lineup:
    """A named population of agents that fills the seats of a game in turn.

    With ``duplicate``, the ``k`` games of a deal are the ``k`` rotations of the agents
    (see the module docstring).
    """

    name: str
    agents: tuple[AgentSpec, ...]
    rotate: bool = True
    duplicate: bool = False

    @property
    def games_per_deal(self) -> int:
        """Games played on one deal: the number of agents with duplicate deals, else 1."""
        return len(self.agents) if self.duplicate else 1

    def deal(self, game: int) -> int:
        """The number of the deal game ``game`` is played on, which its seed derives from.

        >>> duo = Lineup("x", (AgentSpec("random"), AgentSpec("oracle")), duplicate=True)
        >>> [duo.deal(game) for game in range(5)]
        [0, 0, 1, 1, 2]
        """
        return game // self.games_per_deal

    def slots(self, seats: int, turn: int) -> list[int]:
        """For each seat, the index in `agents` of the agent sitting there.

        >>> Lineup("x", (AgentSpec("random"), AgentSpec("oracle"))).slots(3, turn=1)
        [1, 0, 1]
        """
        k = len(self.agents)
        shift = turn if self.rotate else 0
        return [(seat + shift) % k for seat in range(seats)]


# -- cells ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    """One combination of settings: everything needed to play its games but their count.

    Attributes
    ----------
    experiment : str
        The experiment's name.
    values : dict
        The grid values that make this cell (the line-up's name always among them).
    game : str
        A name of `eleusis_lab.games.table.GAMES`.
    players : int
        Active players per game; in a match, the participants.
    lineup : Lineup
        Who sits at the table.
    dealer : dict or str
        The dealer's spec, for `eleusis_lab.dealers.make_dealer` (None: a game without a
        rule).
    config : dict
        The game's options.
    seed : int
        The root seed.
    unit : {"game", "match"}
        What `ExperimentSpec.units` counts.
    deals_per_player : int
        Deals of each participant in a match.
    shard_size : int
        Units per shard (but in a trial, `eleusis_lab.runner.shard_size`).
    events, predictions : bool
        Whether the event table is written, and with the agents' predictions.
    isolate : float or None
        With a number, every agent plays from a process of its own and may take that
        many seconds per call (`eleusis_lab.isolation`); None: in the worker's process.
        The rows are the same either way, so it is not part of the cell's `key`.
    dealer_plan : DealerPlan or None
        The dealer as `load_spec` checked it (`eleusis_lab.dealers.DealerPlan`): what
        each shard builds its dealer from, and whether it learns. Made from ``dealer``
        when not given.
    """

    experiment: str
    values: dict[str, Any]
    game: str
    players: int
    lineup: Lineup
    dealer: Any
    config: dict[str, Any]
    seed: int
    unit: str = "game"
    deals_per_player: int = 2
    shard_size: int = 100
    events: bool = False
    predictions: bool = False
    isolate: float | None = None
    dealer_plan: DealerPlan | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.dealer is not None and self.dealer_plan is None:
            from eleusis_lab.dealers import DealerPlan  # pandas: not at start-up

            object.__setattr__(self, "dealer_plan", DealerPlan.of(self.dealer))

    @property
    def label(self) -> str:
        """The cell's grid values as JSON text (the ``cell`` column of results)."""
        return _json(self.values)

    @property
    def key(self) -> str:
        """A short hash of every setting that shapes the cell's rows; names its shard files.

        Two cells with the same key produce the same rows for the same games, so a run
        that resumes (even after adding grid values or games) reuses what was stored.
        """
        settings = {
            "rows_version": ROWS_VERSION,
            "experiment": self.experiment,
            "values": self.values,
            "game": self.game,
            "players": self.players,
            "lineup": [self.lineup.name, [a.to_dict() for a in self.lineup.agents]],
            "rotate": self.lineup.rotate,
            # only when on: the keys, and so the shard files, of other specs stay as they were
            **({"duplicate": True} if self.lineup.duplicate else {}),
            "dealer": self.dealer,
            "config": self.config,
            "seed": self.seed,
            "unit": self.unit,
            "deals_per_player": self.deals_per_player if self.unit == "match" else None,
            "shard_size": self.shard_size,
            "events": self.events,
            "predictions": self.predictions,
        }
        return hashlib.sha256(_json(settings).encode()).hexdigest()[:12]

    @property
    def seats(self) -> int:
        """Active players per game (a match's dealer sits out)."""
        return self.players - 1 if self.unit == "match" else self.players

    @property
    def games_per_unit(self) -> int:
        """Games per unit: 1, or a match's ``players * deals_per_player``."""
        return self.players * self.deals_per_player if self.unit == "match" else 1

    def seat_agents(self, game: int) -> list[AgentSpec]:
        """The agent of each seat in game ``game`` (game mode) or participant (match mode)."""
        return [self.lineup.agents[k] for k in self.lineup.slots(self.players, game)]


@dataclass(frozen=True)
class ExperimentSpec:
    """A checked experiment spec, expanded into cells (see the module docstring).

    Attributes
    ----------
    name : str
        The experiment's name.
    source : str
        Where the spec came from (a path, or ``"spec"``), for messages.
    cells : tuple of Cell
        Line-ups times grid values, in the order of the spec.
    units : int
        Games (or matches, see ``Cell.unit``) per cell.
    out : str or None
        The output directory the spec asks for.
    data : dict
        The spec as read, for the run's metadata.
    """

    name: str
    source: str
    cells: tuple[Cell, ...]
    units: int
    out: str | None
    data: dict[str, Any]

    @property
    def unit(self) -> str:
        """``"game"`` or ``"match"``."""
        return self.cells[0].unit

    @property
    def budget(self) -> dict[str, int]:
        """The run's budget of language-model ``calls`` and ``tokens`` (either may be
        absent); empty without one."""
        return dict(self.data.get("budget", {}))

    @property
    def plan(self) -> str:
        """How many games (or matches) the spec plays, counted out: cells x per cell.

        >>> spec = load_spec({"games": 100, "dealer": "red(card)", "players": 2, "lineups": [
        ...     {"name": "a", "agents": ["random"]}, {"name": "b", "agents": ["oracle"]}]})
        >>> spec.plan
        '2 cells (line-ups x grid) x 100 games = 200 games'
        """
        unit, many = self.unit, f"{self.unit}es" if self.unit == "match" else None
        total = len(self.cells) * self.units
        return (
            f"{plural(len(self.cells), 'cell')} (line-ups x grid)"
            f" x {plural(self.units, unit, many)} = {plural(total, unit, many)}"
        )

    def with_units(self, units: int) -> ExperimentSpec:
        """The same spec with another number of games (or matches) per cell."""
        _whole(units, "games", self.source, minimum=1, most=MAX_GAMES)
        _check_sizes(self.cells, units, "games", self.source)
        _check_deals(self.cells, units, "games", self.source)
        return ExperimentSpec(self.name, self.source, self.cells, units, self.out, self.data)


# -- checking ---------------------------------------------------------------------------


def _whole(value: Any, where: str, source: str, minimum: int, most: int | None = None) -> int:
    if not (isinstance(value, numbers.Integral) and not isinstance(value, bool)):
        raise ConfigError(f"{source}: {where}: expected a whole number, got {value!r}")
    if value < minimum:
        raise ConfigError(f"{source}: {where}: must be >= {minimum}, got {value}")
    if most is not None and value > most:
        raise ConfigError(f"{source}: {where}: must be at most {most:,}, got {value:,}")
    return int(value)


def _read_spec(path: Path, source: str) -> str:
    """The text of a spec file, refused unread beyond `MAX_SPEC_BYTES`."""
    with open(path, "rb") as file:
        data = file.read(MAX_SPEC_BYTES + 1)
    if len(data) > MAX_SPEC_BYTES:
        raise ConfigError(
            f"{source}: larger than {MAX_SPEC_BYTES:,} bytes, the most a spec may hold"
            " (eleusis_lab.spec.MAX_SPEC_BYTES)"
        )
    return data.decode("utf-8")


def _check_name(name: str, where: str, source: str) -> str:
    if not NAME_PATTERN.fullmatch(name):
        raise ConfigError(
            f"{source}: {where}: {name[:120]!r} cannot name an experiment (it names its folder"
            " under results/): letters, digits, _ and, after the first, - . + and spaces;"
            " at most 100 characters"
        )
    return name


def _check_sizes(cells: Sequence[Cell], units: int, where: str, source: str) -> None:
    """`ConfigError` for more than `MAX_GAMES` games in a cell, or `MAX_SHARDS` in all."""
    shards = 0
    for cell in cells:
        games = units * cell.games_per_unit
        if games > MAX_GAMES:
            raise ConfigError(
                f"{source}: {where}: {games:,} games in a cell ({units:,} matches of"
                f" {cell.games_per_unit:,} games), more than {MAX_GAMES:,}"
            )
        shards += max(-(-units // cell.shard_size), min(units, 2))
    if shards > MAX_SHARDS:
        raise ConfigError(
            f"{source}: {where}: {shards:,} shards in all (cells times {where} / shard_size),"
            f" more than {MAX_SHARDS:,}; play fewer or raise shard_size"
        )


def _flag(value: Any, where: str, source: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{source}: {where}: expected true or false, got {value!r}")
    return value


def _isolation(value: Any, source: str) -> float | None:
    """``isolate``: false (None), true (the default limit) or a limit in seconds."""
    from eleusis_lab.isolation import DEFAULT_LIMIT  # multiprocessing: not at start-up

    if value is True:
        return DEFAULT_LIMIT
    if value is False:
        return None
    if isinstance(value, int | float) and is_seconds(value):
        return float(value)
    raise ConfigError(
        f"{source}: isolate: expected true, false or a number of seconds > 0 and at most"
        f" {MOST_SECONDS:g}, got {value!r}"
    )


def _text(value: Any, where: str, source: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{source}: {where}: expected a non-empty string, got {value!r}")
    return value.strip()


def _table(value: Any, where: str, source: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"{source}: {where}: expected a table, got {value!r}")
    return dict(value)


def _unknown_keys(table: Mapping, known, where: str, source: str) -> None:
    for key in table:
        if key not in known:
            raise ConfigError(
                f"{source}: {where}{key}: unknown key{did_you_mean(key, known)};"
                f" the keys are: {', '.join(known)}"
            )


def _agent(entry: Any, where: str, source: str, game: str, isolate: float | None) -> AgentSpec:
    """The agent an entry of a line-up names, made once (its parameters checked; in a
    process of its own when the spec isolates its agents, so that nothing of its
    module runs here: `eleusis_lab.isolation`).

    An entry is a name, ``"name(key=value, ...)"`` (as on the command line), or a table
    ``{name = ..., key = value}``; the table's keys win over parameters in its name.
    """
    if isinstance(entry, Mapping):
        if "name" not in entry:
            raise ConfigError(
                f"{source}: {where}: an agent table needs a name, e.g. name = 'bayes'"
            )
        _text(entry["name"], where, source)
    elif not isinstance(entry, str):
        raise ConfigError(
            f"{source}: {where}: expected an agent name or a table {{name = ..., param = ...}},"
            f" got {entry!r}"
        )
    try:
        name, params = split_params(entry if isinstance(entry, Mapping) else entry.strip())
    except AgentSpecError as error:
        raise ConfigError(f"{source}: {where}: {error}") from None
    name = _text(name, where, source)
    registry = GAMES[game].agents
    try:
        if isolate is None:
            cls = registry.agent_class(name)
            registry.make(name, **copy.deepcopy(params))
        else:
            from eleusis_lab.isolation import isolated  # multiprocessing: not at start-up

            cls = type(isolated(name, copy.deepcopy(params), registry=registry, limit=isolate))
        refusal = GAMES[game].refusal(cls, f"agent {name!r}")
    except UnknownAgentError:
        raise ConfigError(
            f"{source}: {where}: unknown agent {name!r}{did_you_mean(name, registry.available())}"
        ) from None
    except (AgentSpecError, ConfigError, ValueError, TypeError) as error:
        raise ConfigError(f"{source}: {where}: {error}") from None
    if refusal is not None:
        raise ConfigError(f"{source}: {where}: {refusal}")
    return AgentSpec(name, params)


def _agents(
    value: Any, where: str, source: str, game: str, isolate: float | None
) -> tuple[AgentSpec, ...]:
    if not isinstance(value, list) or not value:
        raise ConfigError(f"{source}: {where}: expected a non-empty list of agents, got {value!r}")
    return tuple(
        _agent(entry, f"{where}[{i}]", source, game, isolate) for i, entry in enumerate(value)
    )


def _lineups(
    data: dict, source: str, games: set[str], unit: str, isolate: float | None
) -> list[tuple[str, Lineup]]:
    """The line-ups and the path of each, checked for every game the spec can play."""
    if ("agents" in data) == ("lineups" in data):
        raise ConfigError(
            f"{source}: give either `agents = [...]` (one line-up) or [[lineups]] tables,"
            " not both and not neither"
        )
    if "agents" in data:  # the one line-up's keys are written beside its agents
        table = {key: data[key] for key in ("agents", *_SEATING_KEYS) if key in data}
        tables, where = [{"name": "default", **table}], ["agents"]
    else:
        for key in _SEATING_KEYS:
            if key in data:
                raise ConfigError(
                    f"{source}: {key}: with [[lineups]] tables, write it in each of them"
                )
        tables = data["lineups"]
        if not isinstance(tables, list) or not tables:
            raise ConfigError(f"{source}: lineups: expected one or more [[lineups]] tables")
        where = [f"lineups[{i}]" for i in range(len(tables))]
    lineups, names = [], set()
    for i, (table, path) in enumerate(zip(tables, where, strict=True)):
        prefix = "" if "agents" in data else f"{path}."  # where the line-up's keys are
        if "agents" not in data:
            table = _table(table, path, source)
            _unknown_keys(table, _LINEUP_KEYS, prefix, source)
            if "agents" not in table:
                raise ConfigError(f"{source}: {path}: a line-up needs agents = [...]")
        name = _text(table.get("name", f"lineup{i}"), f"{prefix}name", source)
        if name in names:
            raise ConfigError(f"{source}: {prefix}name: two line-ups are called {name!r}")
        names.add(name)
        agents = None
        for game in sorted(games):
            agents = _agents(table["agents"], f"{prefix}agents", source, game, isolate)
        rotate = _flag(table.get("rotate", True), f"{prefix}rotate", source)
        duplicate = _flag(table.get("duplicate", False), f"{prefix}duplicate", source)
        if duplicate and not rotate:
            raise ConfigError(
                f"{source}: {prefix}duplicate: needs rotate = true (the games of a deal are"
                " the rotations of the line-up)"
            )
        if duplicate and unit == "match":
            raise ConfigError(
                f"{source}: {prefix}duplicate: only for games = N (a match deals its own games)"
            )
        lineups.append((path, Lineup(name, agents, rotate, duplicate)))
    return lineups


def _check_deals(cells: Sequence[Cell], units: int, where: str, source: str) -> None:
    """`ConfigError` unless every duplicate deal is played from all its rotations."""
    for cell in cells:
        per_deal = cell.lineup.games_per_deal
        if units % per_deal:
            raise ConfigError(
                f"{source}: {where}: {units} is not a multiple of {per_deal}: line-up"
                f" {cell.lineup.name!r} plays each deal once per rotation of its"
                f" {per_deal} agents (duplicate = true)"
            )


def _games_named(data: Mapping) -> list[str]:
    """The games a spec's data names (``game``, or the grid's), before they are checked."""
    grid = data.get("grid")
    games = grid.get("game") if isinstance(grid, Mapping) else None
    return list(games) if isinstance(games, list) else [data.get("game", DEFAULT_GAME)]


def _check_dealer(value: Any, where: str, source: str, games: list[str]) -> tuple[Any, DealerPlan]:
    """The dealer's spec, checked (it builds, and suits every game it deals for), and
    its plan, made from the dealer built to check it.

    A fixed rule (a text, or ``kind = "fixed"``) is checked within the time limit of a
    rule someone typed (`eleusis_lab.rules.reach.time_limit`): the answer or the budget
    error within about a second. Never a pool's dealer: building a pool would leave
    out the rules the limit stops.
    """
    from eleusis_lab.dealers import DealerPlan, make_dealer  # pandas: not at start-up

    if not isinstance(value, str | Mapping):
        raise ConfigError(f"{source}: {where}: expected a string or a table, got {value!r}")
    value = value if isinstance(value, str) else dict(value)
    fixed = isinstance(value, str) or value.get("kind") == "fixed"
    try:
        with time_limit() if fixed else contextlib.nullcontext():
            dealer = make_dealer(copy.deepcopy(value))
        for game in games:
            GAMES[game].check_dealer(dealer)
    except (ConfigError, ValueError, TypeError, KeyError, LookupError) as error:
        message = str(error.args[0]) if isinstance(error, KeyError) and error.args else str(error)
        message = message.splitlines()[0] if message else type(error).__name__  # one line
        if message.startswith(("dealer.", "dealer:")):  # make_dealer names its own keys
            raise ConfigError(f"{source}: {where}{message[len('dealer') :]}") from None
        raise ConfigError(f"{source}: {where}: {message}") from None
    return value, DealerPlan.of(value, dealer)


def _check_config(game: str, options: dict, where: str, source: str) -> None:
    try:
        GAMES[game].make_config(options)
    except (ConfigError, TypeError) as error:
        raise ConfigError(f"{source}: {where}: {error}") from None


def _grid(data: dict, source: str) -> list[tuple[str, list[Any]]]:
    """The grid's axes as (key, values), config options as ``config.NAME``."""
    grid = _table(data.get("grid", {}), "grid", source)
    axes = []
    for key, values in grid.items():
        if key == "config" and isinstance(values, Mapping):
            axes += [(f"config.{name}", each) for name, each in values.items()]
        else:
            axes.append((key, values))
    for key, values in axes:
        head = key.split(".", 1)[0]
        if head not in _GRID_KEYS or (head == "config") != ("." in key):
            raise ConfigError(
                f"{source}: grid.{key}: cannot vary{did_you_mean(key, _GRID_KEYS)};"
                " the grid varies:"
                f" {', '.join(k for k in _GRID_KEYS if k != 'config')} and config.OPTION"
                " (line-ups are an axis of their own)"
            )
        if not isinstance(values, list) or not values:
            raise ConfigError(f"{source}: grid.{key}: expected a non-empty list of values")
        if len({_json(value) for value in values}) != len(values):
            raise ConfigError(f"{source}: grid.{key}: a value is listed twice")
    return axes


def load_spec(
    spec: str | Path | Mapping[str, Any],
    games: int | None = None,
    decision_limit: float | None = None,
) -> ExperimentSpec:
    """Read, check and expand an experiment spec.

    Parameters
    ----------
    spec : str, Path or mapping
        The path of a TOML file, or its contents as a mapping.
    games : int, optional
        Games (or matches) per cell instead of the spec's count, e.g. for a trial run.
    decision_limit : float, optional
        Every game's ``decision_limit`` (seconds), as if the spec's ``[config]`` said it
        (``run --decision-limit S``); a spec whose grid varies it is refused.

    Returns
    -------
    ExperimentSpec

    Raises
    ------
    ConfigError
        For a missing or unreadable file, bad TOML, or a key that is unknown, missing or
        wrong; the message names the file, the key and the reason.

    Examples
    --------
    >>> load_spec({"games": 5, "dealer": "red(card)", "agents": ["random"]})
    Traceback (most recent call last):
    ...
    eleusis_lab.errors.ConfigError: spec: agents: one agent, so say how many play: players = N
    >>> spec = load_spec({"games": 5, "dealer": "red(card)", "agents": ["random"],
    ...                   "players": 3, "grid": {"config": {"hand_size": [4, 6]}}})
    >>> [cell.config for cell in spec.cells]
    [{'hand_size': 4}, {'hand_size': 6}]
    >>> load_spec({"games": 5, "dealer": "red(card)", "agents": ["random"] * 2},
    ...           decision_limit=5.0).cells[0].config
    {'decision_limit': 5.0}
    """
    if isinstance(spec, Mapping):
        source, data, stem = "spec", copy.deepcopy(dict(spec)), "experiment"
    else:
        path = Path(spec)
        source, stem = str(spec), path.stem
        try:
            data = tomllib.loads(_read_spec(path, source))
        except FileNotFoundError:
            raise ConfigError(f"{source}: no such spec file") from None
        except (OSError, UnicodeDecodeError) as error:
            raise ConfigError(f"{source}: cannot read the spec: {error}") from None
        except tomllib.TOMLDecodeError as error:
            raise ConfigError(f"{source}: invalid TOML: {error}") from None
    _unknown_keys(data, _KEYS, "", source)

    name = _text(data.get("name", stem), "name", source)
    _check_name(name, "name" if "name" in data else "name (the file's)", source)
    if "description" in data:
        _text(data["description"], "description", source)
    if ("games" in data) == ("matches" in data):
        raise ConfigError(f"{source}: say how many to play: games = N or matches = N (one of them)")
    unit, count = ("game", "games") if "games" in data else ("match", "matches")
    units = _whole(data[count], count, source, minimum=1, most=MAX_GAMES)
    if games is not None:
        count = "games (override)"
        units = _whole(games, count, source, minimum=1, most=MAX_GAMES)
    deals = 2
    if "deals_per_player" in data:
        if unit != "match":
            raise ConfigError(f"{source}: deals_per_player: only for matches (matches = N)")
        deals = _whole(data["deals_per_player"], "deals_per_player", source, 1, MAX_GAMES)
    shard_size = _whole(
        data.get("shard_size", _DEFAULT_SHARD_SIZE[unit]), "shard_size", source, 1, MAX_GAMES
    )
    out = _text(data["out"], "out", source) if "out" in data else None
    events = _flag(data.get("events", False), "events", source)
    predictions = _flag(data.get("predictions", False), "predictions", source)
    isolate = _isolation(data.get("isolate", False), source)
    if "budget" in data:
        budget = _table(data["budget"], "budget", source)
        _unknown_keys(budget, BUDGET_KEYS, "budget.", source)
        if not budget:
            raise ConfigError(f"{source}: budget: give calls = N, tokens = N or both")
        for key, value in budget.items():
            _whole(value, f"budget.{key}", source, minimum=1)
    # (an unknown game is reported below, with the games there are)
    ruled = [game for game in _games_named(data) if game not in GAMES or GAMES[game].needs_rule]
    if "dealer" not in data and ruled:
        raise ConfigError(
            f"{source}: dealer: missing; e.g. dealer = 'suit_cycle' (one rule) or"
            " dealer = {kind = 'catalog'} (see eleusis_lab.dealers)"
        )
    if "dealer" in data and not ruled:
        raise ConfigError(f"{source}: dealer: {_games_named(data)[0]} is played without a rule")

    # The base settings; the grid may vary each of them.
    base: dict[str, Any] = {
        "game": data.get("game", DEFAULT_GAME),
        "players": data.get("players"),
        "seed": data.get("seed", 0),
        "dealer": data.get("dealer"),
    }
    config = _table(data.get("config", {}), "config", source)
    axes = _grid(data, source)
    if decision_limit is not None:
        if any(key == "config.decision_limit" for key, _ in axes):
            raise ConfigError(
                f"{source}: grid: varies config.decision_limit, which --decision-limit sets"
                " for every game; leave out one of them"
            )
        config = data["config"] = {**config, "decision_limit": decision_limit}
    grid_games = dict(axes).get("game")
    named = [("game", base["game"])]
    if grid_games is not None:
        named = [(f"grid.game[{i}]", game) for i, game in enumerate(grid_games)]
    for where, game in named:
        if not isinstance(game, str) or game not in GAMES:
            raise ConfigError(
                f"{source}: {where}: unknown game {game!r}{did_you_mean(game, GAMES)};"
                f" the games: {', '.join(GAMES)}"
            )
    games_played = {game for _, game in named}
    lineups = _lineups(data, source, games_played, unit, isolate)
    n_cells = len(lineups) * math.prod(len(values) for _, values in axes)
    if n_cells > MAX_CELLS:
        raise ConfigError(
            f"{source}: grid: {n_cells:,} cells (line-ups times the grid's combinations),"
            f" more than {MAX_CELLS:,}"
        )
    for game in sorted(games_played):
        if unit == "match" and not GAMES[game].has_dealer:
            raise ConfigError(
                f"{source}: matches: {game} has no dealer to rotate; play games = N instead"
            )
    fewest_players = min(GAMES[game].min_players for game in games_played)

    # Check each value where it is written, so the message names the right key.
    checked_dealers: dict[str, tuple[Any, DealerPlan]] = {}  # by the dealer's JSON text

    def check(key: str, value: Any, where: str, game: str) -> Any:
        if key == "players":
            least = 2 if unit == "match" else min(2, fewest_players)
            if value is None:
                return None
            return _whole(value, where, source, minimum=least, most=MAX_PLAYERS)
        if key == "seed":
            return _whole(value, where, source, minimum=0)
        if key == "dealer":
            if value is None:  # a game without a rule
                return None
            text = _json(value)
            if text not in checked_dealers:
                checked_dealers[text] = _check_dealer(value, where, source, sorted(games_played))
            return checked_dealers[text][0]
        if key == "game":
            return value
        option = key.split(".", 1)[1]
        _check_config(game, {**config, option: value}, where, source)
        return value

    for key in ("players", "seed", "dealer"):
        if not any(axis == key for axis, _ in axes):
            base[key] = check(key, base[key], key, base["game"])
    for game in games_played:
        _check_config(game, config, "config", source)
    for key, values in axes:
        for i, value in enumerate(values):
            for game in sorted(games_played) if key.startswith("config.") else [base["game"]]:
                values[i] = check(key, value, f"grid.{key}[{i}]", game)

    cells = []
    combos = list(itertools.product(*(values for _, values in axes)))
    for path, lineup in lineups:
        for combo in combos:
            settings = dict(base)
            options = dict(config)
            chosen: dict[str, Any] = {"lineup": lineup.name}
            for (key, _), value in zip(axes, combo, strict=True):
                chosen[key] = value
                if key.startswith("config."):
                    options[key.split(".", 1)[1]] = value
                else:
                    settings[key] = value
            players = settings["players"]
            game = GAMES[settings["game"]]
            if players is None:
                if game.max_players == 1:
                    players = 1  # solo: the line-up's agents take turns at the one seat
                elif len(lineup.agents) < 2:
                    raise ConfigError(
                        f"{source}: {path}: one agent, so say how many play: players = N"
                    )
                else:
                    players = len(lineup.agents)
            least = game.min_players + (unit == "match")
            what = "participants in a match" if unit == "match" else "players"
            if players < least:
                raise ConfigError(
                    f"{source}: players: {settings['game']} needs at least {least} {what},"
                    f" got {players}"
                )
            most = None if game.max_players is None else game.max_players + (unit == "match")
            if most is not None and players > most:
                raise ConfigError(
                    f"{source}: players: {settings['game']} takes at most {most}"
                    f" {what if most > 1 else 'player'}, got {players}"
                )
            cells.append(
                Cell(
                    experiment=name,
                    values=dict(sorted(chosen.items())),
                    game=settings["game"],
                    players=players,
                    lineup=lineup,
                    dealer=settings["dealer"],
                    dealer_plan=(
                        None
                        if settings["dealer"] is None
                        else checked_dealers[_json(settings["dealer"])][1]
                    ),
                    config=options,
                    seed=settings["seed"],
                    unit=unit,
                    deals_per_player=deals,
                    shard_size=shard_size,
                    events=events or predictions,
                    predictions=predictions,
                    isolate=isolate,
                )
            )
    if len({cell.key for cell in cells}) != len(cells):
        raise ConfigError(f"{source}: two cells of the grid have the same settings")
    _check_sizes(cells, units, count, source)
    _check_deals(cells, units, count, source)
    return ExperimentSpec(name, source, tuple(cells), units, out, data)
