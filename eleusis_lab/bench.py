"""How fast the classic engine plays: games per second on one core.

Run it with ``eleusis-lab bench engine`` or ``python -m eleusis_lab.bench``. Timing
figures belong here, never in asserts of the test suite.

Examples
--------
>>> figures = bench_engine(games=20)
>>> sorted(figures)  # doctest: +NORMALIZE_WHITESPACE
['games', 'oracle_games_per_second', 'oracle_plays_per_game', 'players',
 'random_games_per_second', 'random_plays_per_game', 'rules']
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from eleusis_lab.games.classic import play_classic
from eleusis_lab.registry import make_agent
from eleusis_lab.rules import Rule, parse
from eleusis_lab.rules.catalog import catalog

__all__ = ["bench_engine", "main"]


def bench_engine(
    games: int = 2000,
    players: int = 4,
    rules: Sequence[Rule | str] | None = None,
    verbose: bool = False,
) -> dict[str, float]:
    """Time classic games with random agents, then with oracles, on every seat.

    Game ``i`` is played with seed ``i`` and rule ``rules[i % len(rules)]``; the rules
    are parsed once, as an experiment would, so their verdict caches warm up.

    Parameters
    ----------
    games : int
        Games per line-up.
    players : int
        Active players per game.
    rules : sequence of Rule or str, optional
        The rules to cycle over; every catalog rule when omitted.
    verbose : bool
        Print the figures.

    Returns
    -------
    dict
        ``random_games_per_second``, ``oracle_games_per_second``, the plays per game of
        each line-up, and the settings.
    """
    rules = rules or [entry.rule for entry in catalog()]
    pool = [parse(rule) if isinstance(rule, str) else rule for rule in rules]
    figures: dict[str, float] = {"games": games, "players": players, "rules": len(pool)}
    for name in ("random", "oracle"):
        agents = [make_agent(name) for _ in range(players)]
        plays = 0
        start = time.perf_counter()
        for seed in range(games):
            plays += len(play_classic(pool[seed % len(pool)], agents, seed).events)
        elapsed = time.perf_counter() - start
        figures[f"{name}_games_per_second"] = games / elapsed
        figures[f"{name}_plays_per_game"] = plays / max(games, 1)
    if verbose:
        print(format_figures(figures))
    return figures


def format_figures(figures: dict[str, float]) -> str:
    """The figures of `bench_engine` as a few lines of text."""
    head = (
        f"classic engine, {figures['players']:g} players, {figures['games']:g} games per"
        f" line-up over {figures['rules']:g} rules, one process"
    )
    rows = [
        f"  {name:<7} {figures[f'{name}_games_per_second']:8.0f} games/s"
        f"  ({figures[f'{name}_plays_per_game']:.1f} plays per game)"
        for name in ("random", "oracle")
    ]
    return "\n".join([head, *rows])


def main() -> None:
    """Print the engine benchmark with the default settings."""
    bench_engine(verbose=True)


if __name__ == "__main__":
    main()
