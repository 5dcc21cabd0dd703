"""Tournaments of Secrets from Python: a line-up's games on the experiment runner.

`secrets_tournament` writes the experiment spec of a line-up of Secrets agents and
plays it with `eleusis_lab.runner.run_experiment`, the runner of every experiment, so
seeds, seats, workers and resuming are the runner's; it returns the rows of the
results table that mean something for Secrets, with each seat's place. With ``k``
agents, seat ``s`` of game ``g`` gets agent ``(s + g) mod k``; with duplicate deals
(the default) the ``k`` games of a deal share its seed, so each agent meets the same
set-up from every seat (`eleusis_lab.spec`, ``duplicate = true``). `secrets_summary`
turns the rows into win rates and mean scores per agent (and per seat).

The same tournament as a spec file: ``game = "secrets"``, ``players = 4`` and a line-up
with ``duplicate = true`` (``experiments/secrets_tournament.toml`` is one without it).

Examples
--------
>>> rows = secrets_tournament(["secrets-heuristic", "secrets-random"], games=4, seed=0)
>>> rows.shape, sorted(rows["agent"].unique())
((16, 12), ['secrets-heuristic', 'secrets-random'])
>>> rows.groupby("game")["seed"].first().nunique()  # two deals, each played twice
2
>>> summary = secrets_summary(rows)
>>> list(summary.columns)
['seats', 'win_rate', 'win_se', 'mean_score', 'mean_rank', 'mean_jacks']
>>> float(summary["win_rate"].sum() * 2)  # each game's win is shared by 4 seats, 2 per agent
1.0
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from eleusis_lab.errors import ConfigError
from eleusis_lab.runner import run_experiment
from eleusis_lab.secrets.agent import SecretsAgent
from eleusis_lab.secrets.game import GAME, SecretsConfig
from eleusis_lab.secrets.moves import JACK, N_SEATS, card_points, deck_card

__all__ = ["secrets_summary", "secrets_tournament"]

AgentSpec = str | SecretsAgent | Mapping[str, Any] | tuple[str, Mapping[str, Any]]

#: A tournament's columns: the runner's that Secrets fills (``agent`` as the entry's
#: label), and each seat's ``rank`` and ``win``.
_COLUMNS = (
    "game",
    "seed",
    "seat",
    "slot",
    "agent",
    "score",
    "rank",
    "win",
    "cards_left",
    "plays",
    "faults",
    "end",
)
#: Games per shard: few, so that the workers share even a short tournament (a game of the
#: search player takes seconds), and fixed, so that a kept tournament resumes whatever
#: the number of workers.
_SHARD_SIZE = 10
#: A jack in hand is worth 1000 points, more than every other card together (444.36).
_JACK_POINTS = card_points(deck_card(JACK, 0))


def _entry(agent: AgentSpec) -> tuple[str, Any]:
    """An agent's label in the rows, and its entry in the spec's line-up (checked there)."""
    if isinstance(agent, SecretsAgent):  # made anew for each game from its class
        cls = type(agent)
        return repr(agent), {"name": f"{cls.__module__}:{cls.__qualname__}", **agent.get_params()}
    if isinstance(agent, tuple) and len(agent) == 2 and isinstance(agent[1], Mapping):
        agent = {"name": agent[0], **agent[1]}
    if isinstance(agent, Mapping) and isinstance(agent.get("name"), str):
        params = ", ".join(f"{key}={value!r}" for key, value in agent.items() if key != "name")
        return (f"{agent['name']}({params})" if params else agent["name"]), agent
    return str(agent).strip(), agent  # a name or "name(key=value, ...)"


def secrets_tournament(
    agents: Sequence[AgentSpec],
    games: int,
    seed: int,
    config: SecretsConfig | None = None,
    duplicate: bool = True,
    n_jobs: int = 1,
    progress: bool = False,
    out: str | Path | None = None,
) -> Any:
    """Play ``games`` games of Secrets with a line-up of agents, seats rotated.

    Parameters
    ----------
    agents : sequence of agent specs
        A registered name (``"secrets-search"``), ``"name(key=value, ...)"``,
        ``"module:Class"``, ``{"name": ..., **params}``, ``(name, params)`` or a
        `SecretsAgent` (made anew for each game from its class and parameters, so its
        class must be importable by name; with ``n_jobs > 1``, from a module). Seat
        ``s`` of game ``g`` gets entry ``(s + g) mod k``; with more than four, some sit
        out each game.
    games : int
        How many games; with ``duplicate``, a multiple of the number of agents.
    seed : int
        The root seed of the runner (`eleusis_lab.shards.game_seed`).
    config : SecretsConfig, optional
        The game's options.
    duplicate : bool
        Play each deal once per rotation of the agents: games ``k*d ... k*d + k - 1``
        share the seed of deal ``d``.
    n_jobs : int
        Worker processes of the runner; the rows do not depend on it.
    progress : bool
        Show the runner's progress bar.
    out : str or Path, optional
        Keep the runner's results there (Parquet, `eleusis_lab.storage.load_results`),
        so that the same call again plays only what is missing; default: a temporary
        folder, removed.

    Returns
    -------
    pandas.DataFrame
        One row per game and seat, from the runner's table: ``game``, ``seed``,
        ``seat`` (0 hearts, 1 diamonds, 2 clubs, 3 spades), ``slot`` (the entry of
        ``agents``), ``agent`` (its label), ``score``, ``rank`` (1 best; equal scores
        share the best place), ``win`` (1 for a sole winner, 1/n on an n-way tie for
        first, else 0), ``cards_left`` (in hand at the end), ``plays`` (turns
        played), ``faults`` and ``end`` (how the game ended).

    Raises
    ------
    ConfigError
        For a bad agent, count, seed or option, in one line naming it as the spec does
        (``spec: agents[1]: ...``).

    Examples
    --------
    >>> rows = secrets_tournament(["secrets-random"], games=2, seed=1)
    >>> rows.groupby("game")["win"].sum().tolist()
    [1.0, 1.0]
    """
    if isinstance(agents, str) or not isinstance(agents, Sequence):
        raise ConfigError(f"agents is a list of agent specs, got {agents!r}")
    if config is not None and not isinstance(config, SecretsConfig):
        raise ConfigError(f"config must be a SecretsConfig, got {config!r}")
    made = [_entry(agent) for agent in agents]
    spec = {
        "name": "secrets_tournament",
        "game": GAME,
        "players": N_SEATS,
        "games": games,
        "seed": seed,
        "shard_size": _SHARD_SIZE,
        "config": {} if config is None else config.to_dict(),
        "agents": [entry for _, entry in made],
        "duplicate": duplicate,
    }
    kept = contextlib.nullcontext(out) if out is not None else tempfile.TemporaryDirectory()
    with kept as folder:
        table = run_experiment(spec, jobs=n_jobs, out=folder, progress=progress)
    rows = table.assign(agent=table["slot"].map(dict(enumerate(label for label, _ in made))))
    # places compared in hundredths of a point, as secrets_ranks does
    cents = (rows["score"] * 100).round()
    rows["rank"] = cents.groupby(rows["game"]).rank(method="min", ascending=False).astype(int)
    first = (rows["rank"] == 1).astype(float)
    rows["win"] = first / first.groupby(rows["game"]).transform("sum")
    return rows[list(_COLUMNS)]


def secrets_summary(rows: Any, by: str | Sequence[str] = "agent") -> Any:
    """Win rates and mean scores of a tournament's rows, per agent (or per agent and seat).

    Parameters
    ----------
    rows : pandas.DataFrame
        The rows of `secrets_tournament`.
    by : str or sequence of str
        The grouping: ``"agent"``, or ``["agent", "seat"]``.

    Returns
    -------
    pandas.DataFrame
        Per group: ``seats`` (seat-games played), ``win_rate`` (mean of ``win``; 0.25
        is par at four seats), ``win_se`` (its standard error), ``mean_score``,
        ``mean_rank`` and ``mean_jacks`` (jacks in hand at the end, the seat's own
        saved or another's taken with a queen: read off the score, since a jack is
        1000 points and all the other cards together fewer), sorted by win rate.

    Examples
    --------
    >>> rows = secrets_tournament(["secrets-heuristic", "secrets-random"], games=4, seed=0)
    >>> secrets_summary(rows, by=["agent", "seat"]).index.names
    FrozenList(['agent', 'seat'])
    """
    keys = [by] if isinstance(by, str) else list(by)
    grouped = rows.assign(jacks=rows["score"] // _JACK_POINTS).groupby(keys)
    summary = grouped.agg(
        seats=("win", "size"),
        win_rate=("win", "mean"),
        win_std=("win", "std"),
        mean_score=("score", "mean"),
        mean_rank=("rank", "mean"),
        mean_jacks=("jacks", "mean"),
    )
    summary.insert(2, "win_se", summary.pop("win_std").fillna(0.0) / np.sqrt(summary["seats"]))
    return summary.sort_values("win_rate", ascending=False)
