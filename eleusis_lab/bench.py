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

import numpy as np

from eleusis_lab.agent import Agent
from eleusis_lab.games.classic import play_classic
from eleusis_lab.registry import make_agent
from eleusis_lab.rules import Rule, parse
from eleusis_lab.rules.catalog import catalog

__all__ = ["bench_agents", "bench_engine", "main"]


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
    rules = rules or _catalog_rules()
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


# -- agents -----------------------------------------------------------------------------

IDENTIFIED_MASS = 0.9


class _Instrumented(Agent):
    """Wraps an agent: times its decisions (updates included) and watches its proposals."""

    def __init__(self, inner: Agent, rule: Rule, equivalent_to_rule):
        self.inner, self.rule, self.equivalent_to_rule = inner, rule, equivalent_to_rule

    @property
    def sees_rule(self) -> bool:  # the oracle must still be told the rule
        return type(self.inner).sees_rule

    def start_game(self, info, rng) -> None:
        self.inner.start_game(info, rng)
        self.seconds_, self.decisions_, self.plays_, self.identified_at_ = 0.0, 0, 0, None

    def choose_play(self, obs):
        start = time.perf_counter()
        card = self.inner.choose_play(obs)
        self.seconds_ += time.perf_counter() - start
        self.decisions_ += 1
        return card

    def observe(self, event) -> None:
        start = time.perf_counter()
        self.inner.observe(event)
        self.seconds_ += time.perf_counter() - start
        self.plays_ += 1
        if self.identified_at_ is None:
            proposal = self.inner.propose_rule()
            if proposal and proposal[1] >= IDENTIFIED_MASS and self.equivalent_to_rule(proposal[0]):
                self.identified_at_ = self.plays_


def bench_agents(
    agents: Sequence[str] = ("random", "oracle"),
    rules: Sequence[Rule | str] | None = None,
    games: int = 3,
    players: int = 3,
    verbose: bool = False,
):
    """Compare agents on classic games over many rules; one row per agent.

    For each agent, rule and seed ``0..games-1``, a classic game is played with the agent
    on every one of ``players`` seats; seat 0 is watched. The columns:

    - ``wrong_per_game``: the mean number of wrong cards a player gets in phase 1;
    - ``accuracy_40``: Delphi-style prediction accuracy on all 52 faces in each of the 11
      contexts after 40 plays (`eleusis_lab.evaluation.prediction_accuracy`);
    - ``identified_30``: among agents that propose rules, the fraction of games in which
      the proposal is equivalent to the rule, with confidence >= 0.9, within 30 plays;
      ``plays_to_identify`` the median play at which that first happened;
    - ``ms_per_decision``: the time seat 0 spends per decision, its updates on every
      event since its previous decision included.

    Returns a pandas DataFrame; `format_agent_table` prints it.

    Examples
    --------
    >>> table = bench_agents(["random", "oracle"], rules=["red(card)"], games=1)
    >>> bool(table.loc["oracle", "wrong_per_game"] <= table.loc["random", "wrong_per_game"])
    True
    """
    import pandas as pd

    from eleusis_lab.evaluation import prediction_accuracy
    from eleusis_lab.rules.analysis import equivalent
    from eleusis_lab.rules.catalog import get_rule

    pool = [get_rule(r) if isinstance(r, str) else r for r in (rules or _catalog_rules())]
    rows = []
    for name in agents:
        wrong, accuracy, identified, when, seconds, decisions = [], [], [], [], 0.0, 0
        proposes = False
        for rule in pool:
            verdicts: dict[str, bool] = {}

            def equivalent_to_rule(text, rule=rule, verdicts=verdicts):
                if text not in verdicts:
                    verdicts[text] = bool(equivalent(parse(text), rule))
                return verdicts[text]

            for seed in range(games):
                seats = [make_agent(name) for _ in range(players)]
                watched = _Instrumented(seats[0], rule, equivalent_to_rule)
                record = play_classic(rule, [watched, *seats[1:]], seed)
                wrong.append(sum(map(len, record.wrong_after_phase1)) / players)
                accuracy.append(prediction_accuracy(make_agent(name), rule, seed))
                seconds += watched.seconds_
                decisions += watched.decisions_
                if seats[0].propose_rule() is not None:
                    proposes = True
                hit = watched.identified_at_
                identified.append(hit is not None and hit <= 30)
                if hit is not None:
                    when.append(hit)
        rows.append(
            {
                "agent": name,
                "games": len(wrong),
                "wrong_per_game": float(np.mean(wrong)),
                "accuracy_40": float(np.mean(accuracy)),
                "identified_30": float(np.mean(identified)) if proposes else float("nan"),
                "plays_to_identify": float(np.median(when)) if when else float("nan"),
                "ms_per_decision": 1000 * seconds / max(decisions, 1),
            }
        )
    table = pd.DataFrame(rows).set_index("agent")
    if verbose:
        print(format_agent_table(table, len(pool), games, players))
    return table


def _catalog_rules() -> list[Rule]:
    return [entry.rule for entry in catalog()]


def format_agent_table(table, rules: int, games: int, players: int) -> str:
    """The table of `bench_agents` for a terminal."""
    head = (
        f"classic games, {players} players of one agent, {rules} rules x {games} seeds;"
        " seat 0 is measured"
    )
    return head + "\n" + table.to_string(float_format=lambda x: f"{x:.3g}", na_rep="-")
