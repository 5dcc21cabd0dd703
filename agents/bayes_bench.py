"""Benchmarks of the Bayesian agent: build cost, time per decision, identification.

Run ``python -m eleusis_agents.bayes_bench`` for the full report (several minutes; it builds
the spaces it needs once, into the disk cache), or call the functions:

- `measure_build`: seconds and peak memory to enumerate a space, in a fresh process;
- `time_decisions`: milliseconds per decision (learn the plays since the agent's last
  turn, then choose among a 14-card hand), over the contexts of real games;
- `agent_decisions`: the same for ``bayes`` or ``bayes-context``, and the cost of checking
  after every play whether the agent has found the rule;
- `first_decision`: a first decision against one plain read of the bytes it needs;
  `decision_report` prints these against issue 31's targets (``eleusis-lab bench
  decisions``);
- `identification`: over the catalog rules inside the agent's grammar, the fraction of
  classic games where the posterior probability of the true behaviour reaches 0.9
  within the first 30 public plays.

Examples
--------
>>> figures = time_decisions(500, grammar="colours_suits", games=1)
>>> sorted(figures)
['decisions', 'first_ms', 'max_ms', 'mean_ms', 'median_ms', 'p95_ms']
>>> table = identification(
...     grammar="colours_suits", max_hypotheses=500, rules=["color_alternation"],
...     players=(3,), seeds=(0,), lineups=("random",),
... )
>>> table[["rule", "players", "lineup", "identified"]].to_dict("records")
[{'rule': 'color_alternation', 'players': 3, 'lineup': 'random', 'identified': True}]
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import sys
import time
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from eleusis_agents.bayes import BayesAgent
from eleusis_agents.simple import RandomAgent
from eleusis_lab.agent import Agent, Event, GameInfo, Observation
from eleusis_lab.cards import N_FACES, Card, standard_deck
from eleusis_lab.games.classic import play_classic
from eleusis_lab.registry import make_agent
from eleusis_lab.rules import Context, Rule
from eleusis_lab.rules.analysis import check_acceptable
from eleusis_lab.rules.catalog import catalog
from eleusis_lab.rules.context import NO_CARD, OUTCOME_NONE, OUTCOME_RIGHT, OUTCOME_WRONG
from eleusis_lab.rules.enumerate import build_space
from eleusis_lab.rules.grammar import Grammar
from eleusis_lab.rules.space import HypothesisSpace, unpack_verdicts
from eleusis_lab.shards import IDENTIFIED_MASS

__all__ = [
    "agent_decisions",
    "decision_report",
    "first_decision",
    "game_equivalents",
    "identification",
    "main",
    "measure_build",
    "time_decisions",
]

WITHIN = 30  # public plays
THRESHOLD = 0.9  # posterior probability of the true behaviour


# -- building ---------------------------------------------------------------------------


def _build_in_child(grammar, max_hypotheses, queue) -> None:
    start = time.perf_counter()
    space = build_space(grammar, max_hypotheses, cache=False)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB -> MB (Linux)
    queue.put((seconds, peak, len(space), float(space.bits.max()), space.table.nbytes / 2**20))


def measure_build(max_hypotheses: int, grammar: str | Grammar = "standard") -> dict:
    """Build a space from scratch in a fresh process: seconds, peak memory, sizes."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=_build_in_child, args=(grammar, max_hypotheses, queue))
    child.start()
    seconds, peak, n, bits, table = queue.get()
    child.join()
    return {
        "hypotheses": n,
        "seconds": round(seconds, 1),
        "peak_MB": round(peak),
        "table_MB": round(table, 1),
        "max_bits": round(bits, 1),
    }


# -- time per decision ------------------------------------------------------------------


def time_decisions(
    max_hypotheses: int,
    grammar: str | Grammar = "standard",
    policy: str = "greedy",
    games: int = 5,
    players: int = 4,
    hand_size: int = 14,
    seed: int = 0,
) -> dict:
    """Milliseconds per decision: learn the plays since the last turn, choose from a hand.

    The plays come from classic games of random agents over catalog rules; each round
    the agent learns the ``players`` new plays, then chooses among ``hand_size`` cards
    drawn from those not on the main line (fewer when fewer are left). The space is
    loaded (or built) beforehand.
    """
    build_space(grammar, max_hypotheses)
    rng = np.random.default_rng(seed)
    times = []
    for game, record, hand_of in _replayed_games(rng, games, players, hand_size, seed):
        agent = BayesAgent(grammar=grammar, max_hypotheses=max_hypotheses, policy=policy)
        info = GameInfo("classic", 0, players, (), record.starter)
        agent.start_game(info, np.random.default_rng(game))
        for start in range(0, len(record.events), players):
            hand = hand_of(agent.line_)
            began = time.perf_counter()
            for event in record.events[start : start + players]:
                agent.observe(event)
            obs = Observation(
                "classic", 0, 1, hand, tuple(agent.line_), ((),) * players, agent.last_right_
            )
            agent.choose_play(obs)
            times.append(time.perf_counter() - began)
    ms = np.array(times) * 1e3
    return {
        **_milliseconds(ms),
        "max_ms": round(float(ms.max()), 3),
        "first_ms": round(float(ms[0]), 3),
    }


def _milliseconds(ms: np.ndarray) -> dict:
    """How many decisions, and their mean, median and 95th percentile in ms."""
    return {
        "decisions": len(ms),
        "mean_ms": round(float(ms.mean()), 3),
        "median_ms": round(float(np.median(ms)), 3),
        "p95_ms": round(float(np.percentile(ms, 95)), 3),
    }


def agent_decisions(
    agent: str = "bayes",
    max_hypotheses: int = 100_000,
    games: int = 5,
    players: int = 4,
    hand_size: int = 14,
    seed: int = 0,
    **params,
) -> dict:
    """Milliseconds per decision of a registered Bayesian agent, as `time_decisions`
    measures them (learn the plays since its last turn, then choose from a hand), and
    what checking after every play whether it has found the rule costs
    (``identify_ms_per_play``: `eleusis_lab.agent.Agent.confident_proposal`, as the
    experiments ask it), on the same replayed classic games of random agents, in two
    passes: a check weighs what the next decision would, so timed together each would
    hide part of the other's cost.

    >>> figures = agent_decisions("bayes", 500, grammar="colours_suits", games=1)
    >>> sorted(figures)
    ['decisions', 'identify_ms_per_play', 'mean_ms', 'median_ms', 'p95_ms']
    """
    decisions, checks = [], []
    for identify in (False, True):  # apart: a check's pass over the model serves a decision
        rng = np.random.default_rng(seed)
        for game, record, hand_of in _replayed_games(rng, games, players, hand_size, seed):
            bayes = make_agent(agent, max_hypotheses=max_hypotheses, **params)
            info = GameInfo("classic", 0, players, (), record.starter)
            bayes.start_game(info, np.random.default_rng(game))
            for start in range(0, len(record.events), players):
                hand = hand_of(bayes.line_)
                began = time.perf_counter()
                for event in record.events[start : start + players]:
                    bayes.observe(event)
                    if identify:
                        checked = time.perf_counter()
                        bayes.confident_proposal(IDENTIFIED_MASS)
                        checks.append(time.perf_counter() - checked)
                if identify:
                    continue
                obs = Observation(
                    "classic", 0, 1, hand, tuple(bayes.line_), ((),) * players, bayes.last_right_
                )
                bayes.choose_play(obs)
                decisions.append(time.perf_counter() - began)
    return {
        **_milliseconds(np.array(decisions) * 1e3),
        "identify_ms_per_play": round(1e3 * float(np.mean(checks)), 3),
    }


def _replayed_games(rng, games: int, players: int, hand_size: int, seed: int):
    """Classic games of random agents over catalog rules, to replay to an agent: each
    game's number, record and a function drawing a hand of the faces not on a line."""
    rules = [entry.rule for entry in catalog()]
    deck = standard_deck()

    def hand_of(line) -> tuple:
        on_line = {card.face for card in line}
        free = [card for card in deck if card.face not in on_line]
        size = min(hand_size, len(free))  # a long main line leaves fewer faces
        return tuple(free[i] for i in rng.choice(len(free), size, replace=False))

    for game in range(games):
        rule = rules[int(rng.integers(len(rules)))]
        record = play_classic(rule, [RandomAgent() for _ in range(players)], seed=seed + game)
        yield game, record, hand_of


def first_decision(
    max_hypotheses: int = 1_000_000,
    grammar: str | Grammar = "standard",
    hand_size: int = 14,
    repeats: int = 5,
    seed: int = 0,
) -> dict:
    """A `BayesAgent`'s first decision of a game against one plain read of the bytes it
    needs: the packed verdicts of its hand's probes, its log prior (float32) and its
    counts (uint16), each read once by a numpy reduction.

    Three first decisions, in paired rounds (medians): ``cold``, with nothing shared yet
    (the model's `eleusis_agents.hypothesis_model.Opening` dropped: the prior weighed, every
    probe's product computed); ``new_deal``, the prior's weights shared by an earlier
    game but not these probes' products; ``warm``, both shared (the same deal again).
    The space is loaded beforehand.

    >>> figures = first_decision(2000, grammar="colours_suits", repeats=1)
    >>> sorted(figures)[:5]
    ['cold_ms', 'cold_x', 'hypotheses', 'new_deal_ms', 'new_deal_x']
    >>> figures["warm_ms"] <= figures["cold_ms"] * 10  # shared work is never a loss
    True
    """
    rng = np.random.default_rng(seed)
    deck = standard_deck()
    rounds = []
    for _ in range(repeats):
        starter, *hand = (deck[i] for i in rng.choice(len(deck), hand_size + 1, replace=False))
        obs = Observation("classic", 0, 1, tuple(hand), (starter,), ((),) * 4, None)
        info = GameInfo("classic", 0, 4, (), starter)
        times = {}
        for kind in ("cold", "new_deal", "warm"):
            agent = BayesAgent(grammar=grammar, max_hypotheses=max_hypotheses)
            agent.start_game(info, np.random.default_rng(seed))
            openings = agent.model_.cache.openings
            if kind == "cold":
                openings.clear()
            elif kind == "new_deal":
                for opening in openings.values():
                    opening.said.clear()
            began = time.perf_counter()
            agent.choose_play(obs)
            times[kind] = time.perf_counter() - began
        times["read"], nbytes = _plain_read(agent, obs)
        rounds.append(times)
    medians = {kind: float(np.median([r[kind] for r in rounds])) * 1e3 for kind in rounds[0]}
    figures = {"hypotheses": len(agent.space_), "read_MB": round(nbytes / 2**20, 2)}
    figures["read_ms"] = round(medians["read"], 3)
    for kind in ("cold", "new_deal", "warm"):
        figures[f"{kind}_ms"] = round(medians[kind], 3)
        figures[f"{kind}_x"] = round(medians[kind] / medians["read"], 1)
    return figures


def _plain_read(agent: BayesAgent, obs: Observation) -> tuple[float, int]:
    """Seconds of one plain read of what a first decision reads, and its bytes."""
    space = agent.space_
    index = space.context_index(Context(obs.main_line, obs.last_play_right))
    rows = space.table[[index * N_FACES + card.face for card in obs.hand]]  # a copy: not timed
    began = time.perf_counter()
    np.bitwise_or.reduce(rows, axis=None)
    agent.log_prior_.max()
    agent.mismatches_.max()
    seconds = time.perf_counter() - began
    return seconds, rows.nbytes + agent.log_prior_.nbytes + agent.mismatches_.nbytes


def decision_report(
    hypotheses: int = 100_000,
    large: int | None = 1_000_000,
    large_grammar: str = "standard",
    games: int = 5,
) -> str:
    """The figures of issue 31's targets, one line each, with the targets beside them:
    ms per decision of ``bayes`` and ``bayes-context`` at ``hypotheses`` (default
    models), and a first decision at ``large`` hypotheses against a plain read."""
    lines = []
    for agent, target in (("bayes", 0.5), ("bayes-context", 5.0)):
        figures = agent_decisions(agent, hypotheses, games=games)
        mean = figures["mean_ms"]
        lines.append(
            f"{agent} at {hypotheses:,} hypotheses: {mean:.2f} ms per decision (median"
            f" {figures['median_ms']:.2f}, p95 {figures['p95_ms']:.2f}; target <= {target:g}:"
            f" {'met' if mean <= target else 'not met'}); identification checked in"
            f" {figures['identify_ms_per_play']:.3f} ms per play"
        )
    if large:
        figures = first_decision(large, large_grammar)
        lines.append(
            f"first bayes decision at {figures['hypotheses']:,} hypotheses ({large_grammar}):"
            f" plain read of its {figures['read_MB']} MB {figures['read_ms']:.2f} ms; cold"
            f" {figures['cold_ms']:.2f} ms ({figures['cold_x']}x), new deal"
            f" {figures['new_deal_ms']:.2f} ms ({figures['new_deal_x']}x), warm"
            f" {figures['warm_ms']:.2f} ms ({figures['warm_x']}x); target <= 5x"
        )
    return "\n".join(lines)


# -- identification ---------------------------------------------------------------------


def game_equivalents(space: HypothesisSpace, rule: Rule, starter: Card) -> np.ndarray:
    """Which hypotheses agree with ``rule`` on every context a game from ``starter`` reaches.

    Contexts are explored as in `eleusis_lab.rules.reach` (cards are never used up), from
    the starter, after right and wrong plays; in each, the last card and the one before
    it cannot be played (a classic game has one deck and they are on the main line), so
    ``suit(card) == suit(last) or rank(card) == rank(last)`` cannot be told from
    ``(rank(card) == rank(last)) == (suit(card) != suit(last))``: they differ only on
    the last card itself. A hypothesis outside this set can be told from the rule in
    that game; one inside cannot, whatever is played.
    """
    truth = rule.evaluate_keys(space.slots, space.contexts)
    column = {slot: i for i, slot in enumerate(space.slots)}

    def context(last: int, prev: int, outcome: int) -> int | None:
        values = {"last": last, "prev": prev, "outcome": outcome}
        return space.context_row(tuple(values[slot] for slot in space.slots))

    start = context(starter.face, NO_CARD, OUTCOME_NONE)
    seen, frontier = {start}, [start]
    while frontier:
        here = frontier.pop()
        row = space.contexts[here]
        last = int(row[column["last"]]) if "last" in column else NO_CARD
        prev = int(row[column["prev"]]) if "prev" in column else NO_CARD
        nexts = [context(face, last, OUTCOME_RIGHT) for face in np.flatnonzero(truth[here])]
        if not truth[here].all():
            nexts.append(context(last, prev, OUTCOME_WRONG))
        for nxt in nexts:
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                frontier.append(nxt)
    differ = np.zeros(space.table.shape[1], np.uint8)
    for here in seen:
        rows = space.table[here * N_FACES : (here + 1) * N_FACES]
        disagree = np.where(truth[here][:, None], ~rows, rows)
        # One deck: the last card and the one before it are on the main line, in no hand.
        row = space.contexts[here]
        for slot in ("last", "prev"):
            if slot in column and row[column[slot]] != NO_CARD:
                disagree[row[column[slot]]] = 0
        differ |= np.bitwise_or.reduce(disagree, axis=0)
    return unpack_verdicts(~differ, len(space))


class _Watched(BayesAgent):
    """A Bayes agent that records, after each play, the posterior of the true behaviour
    and of the hypotheses the game cannot tell from it (`game_equivalents`).

    After ``WITHIN`` plays it stops learning and plays its first card, so that the rest
    of the game (which the measure does not look at) costs nothing.
    """

    def watch(self, rule: Rule | None) -> _Watched:
        self.true_rule_ = rule
        return self

    def start_game(self, info, rng) -> None:
        super().start_game(info, rng)
        self.masses_: list[tuple[float, float]] = []
        if self.true_rule_ is not None:
            self.true_index_ = self.space_.index_of(self.true_rule_)
            self.equivalents_ = game_equivalents(self.space_, self.true_rule_, info.starter)

    def observe(self, event: Event) -> None:
        if len(self.history_) >= WITHIN:
            return
        super().observe(event)
        if self.true_rule_ is not None:
            probabilities, _ = self.posterior()
            mass = float(probabilities[self.true_index_])
            self.masses_.append((mass, float(probabilities[self.equivalents_].sum())))

    def choose_play(self, obs: Observation):
        if len(self.history_) >= WITHIN:
            return obs.hand[0]
        return super().choose_play(obs)


def _first_at_least(masses: np.ndarray, threshold: float) -> int | None:
    reached = np.flatnonzero(masses >= threshold)
    return int(reached[0]) + 1 if len(reached) else None


def identification(
    grammar: str | Grammar = "standard",
    max_hypotheses: int = 100_000,
    policy: str = "mix",
    noise: float = 1e-5,
    fallback: float = 0.01,
    prior: str = "bits",
    mix: float = 0.5,
    rules: Iterable[str] | None = None,
    players: Sequence[int] = (3, 4),
    seeds: Iterable[int] = range(5),
    lineups: Sequence[str] = ("bayes", "random"),
    progress: bool = False,
) -> pd.DataFrame:
    """Whether the agent identifies each catalog rule inside its grammar, game by game.

    Parameters
    ----------
    rules : iterable of str, optional
        Catalog names; default every catalog rule whose behaviour is in the space.
    lineups : sequence of {"bayes", "random"}
        ``"bayes"``: Bayes agents on every seat; ``"random"``: one Bayes agent (seat 0)
        and random agents on the other seats.

    Returns
    -------
    pandas.DataFrame
        One row per game: rule, players, lineup, seed, ``first_play`` (the first public
        play after which the true behaviour has posterior >= 0.9, or None), its
        probability after 30 plays, ``identified`` (first_play <= 30); and the same
        for the hypotheses this game cannot tell from the rule (``equivalents`` of
        them, see `game_equivalents`): ``first_play_in_game``, ``identified_in_game``;
        and whether the rule is ``acceptable`` (one a dealer may choose).
    """
    space = build_space(grammar, max_hypotheses)
    entries = {entry.name: entry for entry in catalog()}
    names = list(rules) if rules is not None else list(entries)
    inside = [(name, space.index_of(entries[name].rule)) for name in names]
    acceptable = {name: check_acceptable(entries[name].rule).acceptable for name in names}
    rows = []
    params = {
        "grammar": grammar,
        "max_hypotheses": max_hypotheses,
        "policy": policy,
        "noise": noise,
        "fallback": fallback,
        "prior": prior,
        "mix": mix,
    }
    for name, index in inside:
        if index is None:
            continue
        rule = entries[name].rule
        for n, lineup, seed in ((n, lu, s) for n in players for lu in lineups for s in seeds):
            watched = _Watched(**params).watch(rule)
            others: list[Agent] = [
                _Watched(**params).watch(None) if lineup == "bayes" else RandomAgent()
                for _ in range(n - 1)
            ]
            play_classic(rule, [watched, *others], seed=seed)
            masses = np.array(watched.masses_).reshape(-1, 2)
            first = _first_at_least(masses[:, 0], THRESHOLD)
            first_in_game = _first_at_least(masses[:, 1], THRESHOLD)
            rows.append(
                {
                    "rule": name,
                    "players": n,
                    "lineup": lineup,
                    "seed": seed,
                    "first_play": first,
                    "mass_at_30": round(float(masses[-1, 0]), 4) if len(masses) else None,
                    "identified": first is not None and first <= WITHIN,
                    "equivalents": int(watched.equivalents_.sum()),
                    "first_play_in_game": first_in_game,
                    "identified_in_game": first_in_game is not None and first_in_game <= WITHIN,
                    "acceptable": acceptable[name],
                }
            )
            if progress:
                print(rows[-1], file=sys.stderr, flush=True)
    return pd.DataFrame(rows)


# -- the report -------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> None:
    """Print the benchmark report (``python -m eleusis_agents.bayes_bench --help``)."""
    parser = argparse.ArgumentParser(
        prog="python -m eleusis_agents.bayes_bench", description=__doc__
    )
    parser.add_argument("--grammar", default="standard")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 1_000_000])
    parser.add_argument("--build", action="store_true", help="measure builds from scratch")
    parser.add_argument("--hypotheses", type=int, default=100_000, help="for identification")
    parser.add_argument("--policies", nargs="+", default=["lookahead", "info_gain"])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--skip-timing", action="store_true")
    parser.add_argument("--skip-identification", action="store_true")
    args = parser.parse_args(argv)
    pd.set_option("display.width", 160)
    if args.build:
        for size in args.sizes:
            print(f"build {args.grammar} {size:,}:", measure_build(size, args.grammar), flush=True)
    if not args.skip_timing:
        for size in args.sizes:
            for policy in ("greedy", "mix", "thompson"):
                figures = time_decisions(size, args.grammar, policy)
                print(f"decision {args.grammar} {size:,} {policy}:", figures, flush=True)
    if not args.skip_identification:
        for policy in args.policies:
            table = identification(
                args.grammar, args.hypotheses, policy, seeds=range(args.seeds), progress=False
            )
            columns = ["identified", "identified_in_game"]
            print(f"identification, {args.grammar} {args.hypotheses:,}, policy {policy}:")
            print(table.groupby("rule", sort=False)[columns].mean().to_string())
            print(table.groupby(["players", "lineup"])[columns].mean().to_string())
            for label, games in (("all", table), ("acceptable", table[table["acceptable"]])):
                print(
                    f"{label} rules ({games['rule'].nunique()}): identified within {WITHIN}"
                    f" plays in {games['identified'].mean():.1%} of {len(games)} games; up to"
                    f" what each game can tell: {games['identified_in_game'].mean():.1%}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
