"""Shards: the unit of work of an experiment, and the rows its games give.

A `Shard` is a run of consecutive games (or matches) of one cell. `play_shard` plays
them in one process and returns their rows: one per game and seat, plus one per play
when the cell asks for events. Shards share nothing, so they run in any order, on any
worker, and give the same rows.

Seeds
-----
Everything derives from the cell's root seed through ``numpy.random.SeedSequence``
spawn keys:

- game ``g`` of a cell (in a match: its games are numbered on from the match's first)
  is played with seed `game_seed` ``(root, g)``, a 63-bit integer stored in its rows,
  so `rerun_game` replays any one game from its row; with duplicate deals
  (`eleusis_lab.spec`), the seed of its deal, ``(root, g // k)`` for ``k`` agents;
- the dealer of shard ``s`` draws rules with a generator on ``(root, 1, s)``, and is
  made fresh for each shard: a learning dealer learns over the games of one shard.

Seeds do not depend on the cell's other settings, so the cells of a grid are played on
the same deals with the same rule draws ("common random numbers"): differences between
cells are not blurred by luck. Vary ``seed`` in the grid for independent replicates.

Examples
--------
>>> from eleusis_lab.spec import load_spec
>>> spec = load_spec({"games": 3, "dealer": "red(card)", "agents": ["random", "oracle"]})
>>> shard = Shard(spec.cells[0], index=0, start=0, stop=3)
>>> result = play_shard(shard)
>>> result.games, result.rows.num_rows
(3, 6)
>>> row = result.rows.to_pylist()[1]
>>> row["seed"] == game_seed(0, 0), row["agent"], row["rule"]
(True, 'oracle', 'red(card)')
>>> rerun_game(row).player_scores[row["seat"]] == row["score"]
True
"""

from __future__ import annotations

import contextlib
import functools
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from eleusis_lab.agent import Agent
from eleusis_lab.cards import Card
from eleusis_lab.engines import seat_usage
from eleusis_lab.games.table import GAMES, Outcome
from eleusis_lab.isolation import isolated, release
from eleusis_lab.record_basics import card_text, sees_rule
from eleusis_lab.results_schema import EVENT_SCHEMA, TIMING_COLUMNS, row_schema
from eleusis_lab.rules import Rule, parse
from eleusis_lab.rules.analysis import equivalent
from eleusis_lab.rules.complexity import Measure, measures
from eleusis_lab.run_context import in_run_folder
from eleusis_lab.spec import Cell

__all__ = [
    "EVENT_SCHEMA",
    "IDENTIFIED_MASS",
    "TIMING_COLUMNS",
    "Shard",
    "ShardResult",
    "add_rule_figures",
    "game_seed",
    "play_shard",
    "rerun_game",
    "row_schema",
    "rule_figures",
]

#: An agent has identified the rule once it proposes one equivalent to it with at least
#: this posterior mass (as `eleusis_lab.bench.bench_agents` measures it).
IDENTIFIED_MASS = 0.9
_GAME_STREAM, _DEALER_STREAM = 0, 1


def __getattr__(name: str) -> Any:
    if name == "ROW_SCHEMA":  # read when named: the measures registered then
        return row_schema()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def game_seed(root: int, game: int) -> int:
    """The seed of game ``game`` of a cell with root seed ``root`` (a 63-bit integer).

    >>> game_seed(0, 0), game_seed(0, 1) != game_seed(0, 0), game_seed(1, 0) != game_seed(0, 0)
    (1317536309490288386, True, True)
    """
    sequence = np.random.SeedSequence(root, spawn_key=(_GAME_STREAM, game))
    return int(sequence.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


def dealer_rng(root: int, shard: int) -> np.random.Generator:
    """The generator the dealer of shard ``shard`` draws rules with."""
    return np.random.default_rng(np.random.SeedSequence(root, spawn_key=(_DEALER_STREAM, shard)))


@dataclass(frozen=True)
class Shard:
    """Units ``start`` to ``stop - 1`` (games or matches) of a cell; shard ``index`` of
    those of ``size`` units (default: the cell's ``shard_size``)."""

    cell: Cell
    index: int
    start: int
    stop: int
    size: int | None = None

    @property
    def name(self) -> str:
        """The shard's file name (without suffix): the cell's key and the units' range,
        and the size of its shards when a trial cut them smaller than the cell's (the
        dealer's generator is the shard's index, so the size shapes the rows)."""
        size = "" if self.size in (None, self.cell.shard_size) else f"-of-{self.size}"
        return f"{self.cell.key}-{self.start:07d}-{self.stop:07d}{size}"

    @property
    def games(self) -> int:
        """How many games the shard plays."""
        return (self.stop - self.start) * self.cell.games_per_unit


@dataclass(frozen=True)
class ShardResult:
    """What `play_shard` returns: the rows, the events (or None), games and seconds."""

    shard: Shard
    rows: pa.Table
    events: pa.Table | None
    games: int
    seconds: float


# -- rule figures -----------------------------------------------------------------------

_FIGURES: dict[str, dict[Measure, int | float]] = {}  # rule text -> its figures


def rule_figures(rule: str) -> tuple[int | float, ...]:
    """The complexity figures of a rule's text, one per measure in the order of
    `eleusis_lab.rules.complexity.measures`, each computed once per process.

    >>> rule_figures("red(card)")[0]  # nodes
    2
    """
    known = _FIGURES.setdefault(rule, {})
    figures = []
    for measure in measures():
        value = known.get(measure)
        if value is None:
            value = known[measure] = measure(_parsed(rule))
        figures.append(value)
    return tuple(figures)


def add_rule_figures(
    rows: pa.Table, figures_of: Callable[[str], tuple[int | float, ...]] | None = None
) -> pa.Table:
    """``rows`` with the complexity columns filled in from each row's ``rule``, in the
    columns of `row_schema` (the measures registered in this process).

    A shard's rows come with their figures (`play_shard`); the runner fills them again
    only for rows whose columns are not its own: a measure registered in its process
    alone, which the workers do not know. ``figures_of`` gives a rule's figures (the
    cell's `eleusis_lab.dealers.DealerPlan.figures`; default `rule_figures`).
    """
    schema, found = row_schema(), measures()
    figures_of = rule_figures if figures_of is None else figures_of
    texts = rows.column("rule").to_pylist()
    figures = [None if text is None else figures_of(text) for text in texts]  # Secrets: None
    filled = {
        measure.column: pa.array(
            [None if each is None else each[k] for each in figures],
            type=schema.field(measure.column).type,
        )
        for k, measure in enumerate(found)
    }
    return pa.Table.from_arrays(
        [filled[name] if name in filled else rows.column(name) for name in schema.names],
        schema=schema,
    )


# -- watching agents --------------------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def _same_rule(rule: str, proposal: str) -> bool:
    try:
        return bool(equivalent(parse(rule), parse(proposal)))
    except Exception:  # a proposal that is not a rule of the language identifies nothing
        return False


def _told(record: Any, agents: list[Any]) -> list[bool]:
    """Whether each seat was told the rule, as its game's record says (the engine
    decided it once, when the game started); `sees_rule` for a record without agents."""
    described = getattr(record, "agents", None)
    if described is None and hasattr(record, "agent"):
        described = (record.agent,)  # solo
    if described is None or len(described) != len(agents):
        return [sees_rule(agent) for agent in agents]
    return [isinstance(info, dict) and info.get("sees_rule") is True for info in described]


class _Watch:
    """Watches one seat's agent: when it identifies the rule, and its predictions.

    It wraps the agent's own ``observe`` (and ``choose_play`` for predictions) on the
    instance, so the engine, the agent's class name and its faults are as without it.
    """

    def __init__(self, agent: Agent, seat: int, rule: Rule, predictions: bool):
        self.seat, self.plays, self.identified_at = seat, 0, None
        self.p_right: dict[int, float] = {}  # event index -> P(right) of the card played
        if not isinstance(agent, Agent):  # a Secrets agent: nothing to watch
            return
        proposes = type(agent).propose_rule is not Agent.propose_rule
        if not (proposes or predictions):
            return
        inner_observe, inner_choose = agent.observe, agent.choose_play
        pending: list = []

        def choose_play(obs):
            pending[:] = [obs]
            return inner_choose(obs)

        def observe(event):
            if pending and event.seat == seat:
                # The decision's state: nothing happened since choose_play.
                with contextlib.suppress(Exception):
                    self.p_right[self.plays] = float(agent.predict(pending[0], [event.card])[0])
                pending.clear()
            self.plays += 1
            inner_observe(event)  # a fault here is the engine's to record
            if proposes and self.identified_at is None:
                try:
                    proposal = agent.confident_proposal(IDENTIFIED_MASS)
                except Exception:
                    proposal = None
                if (
                    proposal
                    and proposal[1] >= IDENTIFIED_MASS
                    and _same_rule(rule.text, str(proposal[0]))
                ):
                    self.identified_at = self.plays

        agent.observe = observe
        if predictions:
            agent.choose_play = choose_play


# -- playing ----------------------------------------------------------------------------


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Card):
        return card_text(value)
    return repr(value)


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=_jsonable)


@functools.lru_cache(maxsize=1024)
def _parsed(text: str) -> Rule:
    return parse(text)


def _as_rule(rule: Rule | str) -> Rule:
    return _parsed(rule) if isinstance(rule, str) else rule


def _isolated(registry, limit: float, name: str, **params: Any) -> Any:
    return isolated(name, params, registry=registry, limit=limit)


class _ShardPlayer:
    """Plays the games of one shard and collects their rows."""

    def __init__(self, shard: Shard, figures: bool):
        self.figures = figures
        self.shard, cell = shard, shard.cell
        self.cell = cell
        self.game = GAMES[cell.game]
        self.config = self.game.make_config(cell.config)
        self.config_json = _dumps(self.config.to_dict())
        # A game without a rule (Secrets) has no dealer.
        self.plan = cell.dealer_plan
        self.dealer = None if self.plan is None else self.plan.make()
        self.dealer_params = None if self.dealer is None else _dumps(self.dealer.get_params())
        self.rng = dealer_rng(cell.seed, shard.index)
        self.rows: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        agents = cell.lineup.agents
        self.params_json = [_dumps(spec.params) for spec in agents]  # per line-up slot
        self.make = self.game.agents.make
        if cell.isolate is not None:
            self.make = functools.partial(_isolated, self.game.agents, cell.isolate)
        self.table_json: dict[tuple[int, ...], str] = {}  # per seating, as slots

    def _table_json(self, slots: tuple[int, ...]) -> str:
        text = self.table_json.get(slots)
        if text is None:
            agents = self.cell.lineup.agents
            text = self.table_json[slots] = _dumps([agents[k].to_dict() for k in slots])
        return text

    def play(
        self,
        number: int,
        seats: list[tuple[int, Any]],
        match: int | None = None,
        dealer: int | None = None,
        participants: list[int] | None = None,
    ) -> None:
        """Play game ``number`` with (slot, AgentSpec) per seat; in a match, who is who."""
        cell = self.cell
        chosen = None if self.dealer is None else self.dealer.choose_rule(self.rng)
        rule = None if chosen is None else _as_rule(chosen.rule)
        seed = game_seed(cell.seed, cell.lineup.deal(number))
        agents = [spec.make(self.make) for _, spec in seats]
        watches = [_Watch(agent, seat, rule, cell.predictions) for seat, agent in enumerate(agents)]
        started = time.perf_counter()
        record = self.game.play(rule, agents, seed, self.config)
        wall = time.perf_counter() - started
        outcome = self.game.outcome(record)
        if outcome.dealer_score is not None and self.dealer is not None:
            self.dealer.record_score(chosen, outcome.dealer_score)

        arm = getattr(chosen, "arm", None)
        figures = self.plan.figures(record.rule) if self.figures and self.plan and rule else None
        faults = [0] * len(agents)
        for fault in getattr(record, "faults", ()):
            faults[fault.seat] += fault.count  # a retired seat's stop: every call it stands for
        told = _told(record, agents)
        usage = [seat_usage(agent) for agent in agents]
        for agent in agents:  # an isolated agent's process serves the next game's
            release(agent)
        common = {
            "experiment": cell.experiment,
            "cell": cell.label,
            "lineup": cell.lineup.name,
            "shard": self.shard.index,
            "game": number,
            "match": match,
            "seed": seed,
            "game_type": record.game,
            "players": len(agents),
            "rule": getattr(record, "rule", None),
            "rule_name": getattr(record, "rule_name", None),
            **{
                measure.column: None if figures is None else figures[k]
                for k, measure in enumerate(measures())
            },
            "dealer": None if self.dealer is None else self.dealer.name,
            "dealer_params": self.dealer_params,
            "arm": None if arm is None else str(arm),
            "dealer_participant": dealer,
            "dealer_score": outcome.dealer_score,
            "game_plays": len(outcome.events),
            "end": outcome.end,
            "config": self.config_json,
            "table": self._table_json(tuple(slot for slot, _ in seats)),
            "wall_time": wall,
        }
        for seat, (slot, spec) in enumerate(seats):
            self.rows.append(
                {
                    **common,
                    "seat": seat,
                    "slot": slot,
                    "agent": spec.name,
                    "agent_params": self.params_json[slot],
                    "sees_rule": told[seat],
                    "score": outcome.scores[seat],
                    "wrong_cards": outcome.wrong_cards[seat],
                    "cards_left": outcome.cards_left[seat],
                    "plays": outcome.plays[seat],
                    "plays_to_identify": watches[seat].identified_at,
                    "faults": faults[seat],
                    **usage[seat],
                    "participant": None if participants is None else participants[seat],
                    # the game's own columns (GameType.columns); other games' stay null
                    **{name: values[seat] for name, values in outcome.extra.items()},
                }
            )
        if cell.events:
            self._add_events(number, outcome, watches)

    def _add_events(self, number: int, outcome: Outcome, watches: list[_Watch]) -> None:
        cell = self.cell
        experiment, label, shard = cell.experiment, cell.label, self.shard.index  # once a game
        predicted = outcome.predictions  # Delphi: every seat predicts every card
        for index, event in enumerate(outcome.events):
            row = {
                "experiment": experiment,
                "cell": label,
                "shard": shard,
                "game": number,
                "index": index,
                "seat": event.seat,
                "card": card_text(event.card),
                "phase": event.phase,
                "right": event.right,
                "position": event.position,
                "kind": event.kind,
            }
            if predicted is not None:
                for seat, p_right in enumerate(predicted[index]):
                    self.events.append({**row, "seat": seat, "p_right": p_right})
                continue
            seat = event.seat
            watched = 0 <= seat < len(watches)
            row["p_right"] = watches[seat].p_right.get(index) if watched else None
            self.events.append(row)


def play_shard(
    shard: Shard,
    figures: bool = True,
    on_game: Callable[[], None] | None = None,
    out: str | Path | None = None,
) -> ShardResult:
    """Play the games of a shard; its rows follow `ROW_SCHEMA` (and `EVENT_SCHEMA`).

    Parameters
    ----------
    shard : Shard
        Which units of which cell.
    figures : bool
        Fill in the rules' complexity columns (from the cell's
        `eleusis_lab.dealers.DealerPlan`: a rule of its pool from the pool, another
        once per process); False leaves them empty.
    on_game : callable, optional
        Called after each game (the runner's progress bar).
    out : str or Path, optional
        The run's output folder, told to the agents by
        `eleusis_lab.run_context.run_folder` while they play.

    Returns
    -------
    ShardResult
        The rows in the order of games and seats, the events (None unless the cell asks
        for them), the number of games and the seconds it took.
    """
    with in_run_folder(out):
        return _play_shard(shard, figures, on_game)


def _play_shard(shard: Shard, figures: bool, on_game: Callable[[], None] | None) -> ShardResult:
    started = time.perf_counter()
    player = _ShardPlayer(shard, figures)
    cell = shard.cell
    for unit in range(shard.start, shard.stop):
        if cell.unit == "game":
            slots = cell.lineup.slots(cell.players, unit)
            player.play(unit, [(k, cell.lineup.agents[k]) for k in slots])
            if on_game is not None:
                on_game()
            continue
        # A match: participants rotate by the match number; the deal passes left.
        slots = cell.lineup.slots(cell.players, unit)
        n = cell.players
        dealers = [k for _ in range(cell.deals_per_player) for k in range(n)]
        for j, dealer in enumerate(dealers):
            sitting = [(dealer + 1 + i) % n for i in range(n - 1)]
            seats = [(slots[who], cell.lineup.agents[slots[who]]) for who in sitting]
            player.play(unit * len(dealers) + j, seats, unit, dealer, sitting)
            if on_game is not None:
                on_game()
    rows = pa.Table.from_pylist(player.rows, schema=row_schema())
    events = pa.Table.from_pylist(player.events, schema=EVENT_SCHEMA) if cell.events else None
    return ShardResult(shard, rows, events, shard.games, time.perf_counter() - started)


def rerun_game(row: Mapping[str, Any] | Any) -> Any:
    """Replay one game of a results table exactly, from any of its rows.

    Parameters
    ----------
    row : mapping or pandas Series
        A row of `eleusis_lab.run_experiment`'s table (its ``game_type``, ``rule``,
        ``seed``, ``config`` and ``table`` are used).

    Returns
    -------
    GameRecord, DelphiRecord, NewEleusisRecord or SoloRecord
        The game's record as it was played: same deal, same plays, same scores.

    Examples
    --------
    >>> row = {"game_type": "classic", "rule": "red(card)", "seed": 7, "config": "{}",
    ...        "table": '[{"agent": "oracle", "params": {}}, {"agent": "random", "params": {}}]'}
    >>> record = rerun_game(row)
    >>> record.seed, record.player_scores == rerun_game(row).player_scores
    (7, True)
    """
    game = GAMES[row["game_type"]]
    config = game.make_config(json.loads(row["config"]))
    make = game.agents.make
    agents = [make(seat["agent"], **seat["params"]) for seat in json.loads(row["table"])]
    rule = _as_rule(row["rule"]) if game.needs_rule else None
    return game.play(rule, agents, int(row["seed"]), config)
