"""Tournaments of Secrets: many seeded games of a line-up, seats rotated, as a DataFrame.

`secrets_tournament` plays ``games`` games of a line-up of Secrets agents and returns
one row per game and seat; `secrets_summary` turns the rows into win rates and mean
scores per agent (and per seat), in this process. The experiment runner plays Secrets
too (``eleusis-lab run experiments/secrets_tournament.toml``: Parquet results, resume,
workers, the report's tables per agent and seat); `eleusis_lab.secrets.game.secrets_outcome`
is what its results table keeps of a record. What this function adds is duplicate deals.

Seats and seeds, as in the experiment specs: with ``k`` agents in the line-up, seat
``s`` of game ``g`` gets agent ``(s + g) mod k``. With ``duplicate=True`` (the default)
the ``k`` games ``g = k*d ... k*d + k - 1`` share one deal ``d`` (seed
`tournament_seed` ``(seed, d)``), so each agent meets the same cards from every
rotation and the luck of the deal cancels out of the comparison.

Examples
--------
>>> rows = secrets_tournament(["secrets-heuristic", "secrets-random"], games=4, seed=0)
>>> rows.shape, sorted(rows["agent"].unique())
((16, 14), ['secrets-heuristic', 'secrets-random'])
>>> summary = secrets_summary(rows)
>>> list(summary.columns)
['seats', 'win_rate', 'win_se', 'mean_score', 'mean_rank', 'own_jack_saved']
>>> float(summary["win_rate"].sum() * 2)  # each game's win is shared by 4 seats, 2 per agent
1.0
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from eleusis_lab.engines import check_seed, is_int
from eleusis_lab.errors import ConfigError
from eleusis_lab.secrets.agent import SecretsAgent, clone, make_secrets_agent
from eleusis_lab.secrets.game import SecretsConfig, play_secrets
from eleusis_lab.secrets.moves import JACK, N_SEATS, QUEEN, SEAT_SUITS
from eleusis_lab.secrets.record import SecretsRecord

__all__ = ["secrets_summary", "secrets_tournament", "tournament_seed"]

_SUITS = ("clubs", "diamonds", "hearts", "spades")
AgentSpec = str | SecretsAgent | Mapping[str, Any] | tuple[str, Mapping[str, Any]]


def tournament_seed(seed: int, deal: int) -> int:
    """The game seed of deal ``deal`` of a tournament with root ``seed`` (63 bits).

    >>> tournament_seed(0, 0) != tournament_seed(0, 1), tournament_seed(0, 0) < 2**63
    (True, True)
    """
    words = np.random.SeedSequence(seed, spawn_key=(deal,)).generate_state(2, np.uint32)
    return (int(words[0]) << 31) ^ int(words[1])


def _factory(spec: AgentSpec) -> tuple[str, Any]:
    """A label and a maker of fresh agents for one entry of a line-up."""
    if isinstance(spec, SecretsAgent):
        return repr(spec), lambda: clone(spec)
    if isinstance(spec, str):
        make_secrets_agent(spec)  # fail early on an unknown name
        return spec.strip(), lambda: make_secrets_agent(spec)
    if isinstance(spec, tuple) and len(spec) == 2:
        name, params = spec
    elif isinstance(spec, Mapping) and "name" in spec:
        params = {key: value for key, value in spec.items() if key != "name"}
        name = spec["name"]
    else:
        raise ConfigError(
            f"a line-up entry is a name, a SecretsAgent, {{'name': ..., params}} or"
            f" (name, params); got {spec!r}"
        )
    params = dict(params)
    make_secrets_agent(name, **params)
    label = name if not params else f"{name}({', '.join(f'{k}={v!r}' for k, v in params.items())})"
    return label, lambda: make_secrets_agent(name, **params)


def _rows(record: SecretsRecord, game: int, deal: int, labels: list[str]) -> list[dict]:
    winners = len(record.winners)
    rows = []
    for seat in range(N_SEATS):
        hand = record.hands[seat]
        suit = SEAT_SUITS[seat]
        rows.append(
            {
                "game": game,
                "deal": deal,
                "seed": record.seed,
                "seat": seat,
                "suit": _SUITS[suit],
                "agent": labels[seat],
                "score": record.scores[seat],
                "rank": record.ranks[seat],
                "win": (1.0 / winners) if record.ranks[seat] == 1 else 0.0,
                "own_jack_saved": any(c.rank == JACK and c.suit == suit for c in hand),
                "jacks": sum(card.rank == JACK for card in hand),
                "queens": sum(card.rank == QUEEN for card in hand),
                "turns": record.turns,
                "end": record.end,
            }
        )
    return rows


def _play_game(game: int, k: int, seed: int, duplicate: bool, makers, labels, config):
    deal = game // k if duplicate else game
    order = [(seat + game) % k for seat in range(N_SEATS)]
    agents = [makers[i]() for i in order]
    record = play_secrets(agents, tournament_seed(seed, deal), config)
    return _rows(record, game, deal, [labels[i] for i in order])


def secrets_tournament(
    agents: Sequence[AgentSpec],
    games: int,
    seed: int,
    config: SecretsConfig | None = None,
    duplicate: bool = True,
    n_jobs: int = 1,
    progress: bool = False,
) -> Any:
    """Play ``games`` games of Secrets with a line-up of agents, seats rotated.

    Parameters
    ----------
    agents : sequence of 1 to 4 agent specs
        A registered name (``"secrets-search"``), ``"module:Class"``, a `SecretsAgent`
        (cloned for each game), ``{"name": ..., **params}`` or ``(name, params)``. Seat
        ``s`` of game ``g`` gets entry ``(s + g) mod k``.
    games : int
        How many games.
    seed : int
        The root seed; every game's seed derives from it (`tournament_seed`).
    config : SecretsConfig, optional
        The game's options.
    duplicate : bool
        Play each deal once per rotation (see the module's notes).
    n_jobs : int
        Processes (joblib); the rows do not depend on it.
    progress : bool
        Show a progress bar (tqdm).

    Returns
    -------
    pandas.DataFrame
        One row per game and seat: ``game``, ``deal``, ``seed``, ``seat``, ``suit``,
        ``agent`` (its label), ``score``, ``rank`` (1 best; ties share), ``win`` (1 for a
        sole winner, 1/n on an n-way tie for first, else 0), ``own_jack_saved``,
        ``jacks`` and ``queens`` in hand at the end, ``turns`` and ``end``.

    Examples
    --------
    >>> rows = secrets_tournament(["secrets-random"], games=2, seed=1)
    >>> rows.groupby("game")["win"].sum().tolist()
    [1.0, 1.0]
    """
    import pandas as pd

    if not (is_int(games) and games >= 0):
        raise ConfigError(f"games must be a whole number >= 0, got {games!r}")
    seed = check_seed(seed)
    if not 1 <= len(agents) <= N_SEATS:
        raise ConfigError(f"a Secrets line-up has 1 to 4 agents, got {len(agents)}")
    made = [_factory(spec) for spec in agents]
    labels = [label for label, _ in made]
    makers = [maker for _, maker in made]
    k = len(made)
    config = SecretsConfig() if config is None else config
    numbers = range(games)
    if progress:
        from tqdm.auto import tqdm

        numbers = tqdm(numbers, desc="secrets", unit="game")
    if n_jobs == 1:
        chunks = [_play_game(g, k, seed, duplicate, makers, labels, config) for g in numbers]
    else:
        from joblib import Parallel, delayed

        chunks = Parallel(n_jobs=n_jobs)(
            delayed(_play_game)(g, k, seed, duplicate, makers, labels, config) for g in numbers
        )
    columns = [
        "game",
        "deal",
        "seed",
        "seat",
        "suit",
        "agent",
        "score",
        "rank",
        "win",
        "own_jack_saved",
        "jacks",
        "queens",
        "turns",
        "end",
    ]
    return pd.DataFrame([row for chunk in chunks for row in chunk], columns=columns)


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
        ``mean_rank`` and ``own_jack_saved`` (the share of games the seat's own jack
        ended in its hand), sorted by win rate.

    Examples
    --------
    >>> rows = secrets_tournament(["secrets-heuristic", "secrets-random"], games=4, seed=0)
    >>> secrets_summary(rows, by=["agent", "seat"]).index.names
    FrozenList(['agent', 'seat'])
    """
    keys = [by] if isinstance(by, str) else list(by)
    grouped = rows.groupby(keys)
    summary = grouped.agg(
        seats=("win", "size"),
        win_rate=("win", "mean"),
        win_std=("win", "std"),
        mean_score=("score", "mean"),
        mean_rank=("rank", "mean"),
        own_jack_saved=("own_jack_saved", "mean"),
    )
    summary.insert(2, "win_se", summary.pop("win_std").fillna(0.0) / np.sqrt(summary["seats"]))
    return summary.sort_values("win_rate", ascending=False)
