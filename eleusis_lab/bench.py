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

import math
import re
import sys
import time
from collections.abc import Sequence

import numpy as np

from eleusis_lab.agent import Agent, clone
from eleusis_lab.engines import seat_usage
from eleusis_lab.evaluation import prediction_accuracy
from eleusis_lab.games.classic import play_classic
from eleusis_lab.games.solo import play_solo
from eleusis_lab.games.solo.scoring import MAX_TURNS
from eleusis_lab.record import sees_rule
from eleusis_lab.registry import make_agent
from eleusis_lab.rules import Rule, parse
from eleusis_lab.rules.analysis import equivalent
from eleusis_lab.rules.catalog import acceptable_rules, catalog, get_rule
from eleusis_lab.rules.complexity import measures
from eleusis_lab.text import plural

__all__ = [
    "bench_agents",
    "bench_engine",
    "bench_solo",
    "declaration_ece",
    "fault_warnings",
    "format_published_by_rule",
    "format_published_comparison",
    "format_published_rank_correlations",
    "format_solo_table",
    "main",
    "published_by_rule",
    "published_comparison",
    "published_rank_correlations",
    "rule_families",
    "solo_declarations",
    "solo_games",
    "summarize_solo",
]


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
    """Wraps an agent: times its decisions (updates included) and watches its proposals.

    Make it with `_instrumented`: the engines read ``sees_rule`` from an agent's class,
    so a wrapped oracle is a `_SeeingInstrumented`.
    """

    def __init__(self, inner: Agent, rule: Rule, equivalent_to_rule):
        self.inner, self.rule, self.equivalent_to_rule = inner, rule, equivalent_to_rule

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


class _SeeingInstrumented(_Instrumented):
    """An `_Instrumented` oracle: it must still be told the rule."""

    sees_rule = True


def _instrumented(inner: Agent, rule: Rule, equivalent_to_rule) -> _Instrumented:
    """``inner`` wrapped, told the rule when its class is (`eleusis_lab.record.sees_rule`)."""
    cls = _SeeingInstrumented if sees_rule(inner) else _Instrumented
    return cls(inner, rule, equivalent_to_rule)


def bench_agents(
    agents: Sequence[str] = ("random", "oracle"),
    rules: Sequence[Rule | str] | None = None,
    seeds: int = 3,
    players: int = 3,
    verbose: bool = False,
):
    """Compare agents on classic games over many rules; one row per agent.

    For each agent, rule and seed ``0..seeds-1``, a classic game is played with the agent
    on every one of ``players`` seats; seat 0 is watched. The columns:

    - ``wrong_per_game``: the mean number of wrong cards a player gets in phase 1;
    - ``accuracy_40``: Delphi-style prediction accuracy on all 52 faces in each of the 11
      contexts after 40 plays (`eleusis_lab.evaluation.prediction_accuracy`);
    - ``identified_30``: among agents that propose rules, the fraction of games in which
      the proposal is equivalent to the rule, with confidence >= 0.9, within 30 plays;
      ``plays_to_identify`` the median play at which that first happened;
    - ``ms_per_decision``: the time seat 0 spends per decision, its updates on every
      event since its previous decision included;
    - ``faults``: the agent's faults (it raised, or played a card it does not hold) in
      all seats; with ``verbose``, the first of each agent is shown as a warning;
    - ``sees_rule``: the agent is told the rule (the oracle): a ceiling, not a learner.

    Returns a pandas DataFrame; `format_agent_table` prints it.

    Examples
    --------
    >>> table = bench_agents(["random", "oracle"], rules=["red(card)"], seeds=1)
    >>> bool(table.loc["oracle", "wrong_per_game"] <= table.loc["random", "wrong_per_game"])
    True
    >>> table["sees_rule"].to_dict()
    {'random': False, 'oracle': True}
    """
    import pandas as pd

    pool = [get_rule(r) if isinstance(r, str) else r for r in (rules or _catalog_rules())]
    rows, warnings = [], []
    for name in agents:
        wrong, accuracy, identified, when, seconds, decisions = [], [], [], [], 0.0, 0
        proposes, faults = False, []
        for rule in pool:
            verdicts: dict[str, bool] = {}

            def equivalent_to_rule(text, rule=rule, verdicts=verdicts):
                if text not in verdicts:
                    verdicts[text] = bool(equivalent(parse(text), rule))
                return verdicts[text]

            for seed in range(seeds):
                seats = [make_agent(name) for _ in range(players)]
                watched = _instrumented(seats[0], rule, equivalent_to_rule)
                record = play_classic(rule, [watched, *seats[1:]], seed)
                faults += record.faults
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
                "faults": len(faults),
                "sees_rule": sees_rule(make_agent(name)),
            }
        )
        if faults:
            warnings.append(f"{name}: {len(faults)} faults; the first: {_fault_text(faults[0])}")
    table = pd.DataFrame(rows).set_index("agent")
    if verbose:
        print(format_agent_table(table, len(pool), seeds, players))
        for line in warnings:
            print(f"warning: {line}", file=sys.stderr)
    return table


def _catalog_rules() -> list[Rule]:
    return [entry.rule for entry in catalog()]


def format_agent_table(table, rules: int, seeds: int, players: int) -> str:
    """The table of `bench_agents` for a terminal; the agents told the rule are marked."""
    head = (
        f"classic games, {plural(players, 'player')} of one agent, {plural(rules, 'rule')} x"
        f" {plural(seeds, 'seed')};"
        " seat 0 is measured"
    )
    seeing = table["sees_rule"].astype(bool)
    shown = table.drop(columns="sees_rule").rename(
        index=lambda name: f"{name} *" if seeing[name] else name
    )
    lines = [head, shown.to_string(float_format=lambda x: f"{x:.3g}", na_rep="-")]
    if seeing.any():
        lines.append("* sees the rule: a ceiling to compare with, not a learner")
    return "\n".join(lines)


# -- the solo benchmark -----------------------------------------------------------------

#: The per-agent columns of `bench_solo`, in order.
SOLO_COLUMNS = (
    "games",
    "success",
    "found",
    "mean_score",
    "mean_floored_score",
    "mean_no_stakes",
    "mean_found_turn",
    "wrong_declarations",
    "boldness",
    "ece",
    "s_per_game",
    "ms_per_decision",
)


def rule_families() -> dict[str, str]:
    """Each catalog rule's family: the section of ``catalog.toml`` it is listed under.

    Examples
    --------
    >>> families = rule_families()
    >>> families["red_only"], families["suit_cycle"]
    ('1. One card on its own', '2. One feature of the card against the last card')
    """
    import re
    from importlib.resources import files

    text = files("eleusis_lab.rules").joinpath("catalog.toml").read_text(encoding="utf-8")
    heading = re.compile(r"^# -- (\d+\. .+?) -*$")
    name = re.compile(r'^name\s*=\s*"([^"]+)"')
    families, family = {}, "other"
    for line in text.splitlines():
        if found := heading.match(line):
            family = found.group(1)
        elif found := name.match(line):
            families[found.group(1)] = family
    return families


def _timed_solo(agent: Agent) -> list[float]:
    """Patch ``agent`` (a fresh copy) to add the time of its game calls to a counter.

    The calls nest (the default ``solo_move`` calls ``choose_play``): only the
    outermost is timed.
    """
    spent, depth = [0.0], [0]

    def timed(method):
        def call(*args):
            depth[0] += 1
            start = time.perf_counter()
            try:
                return method(*args)
            finally:
                depth[0] -= 1
                if not depth[0]:
                    spent[0] += time.perf_counter() - start

        return call

    for name in ("start_game", "solo_move", "choose_play", "observe", "declare_rule"):
        setattr(agent, name, timed(getattr(agent, name)))
    return spent


def solo_games(
    agents: Sequence[str | Agent] = ("random", "oracle"),
    rules: Sequence[Rule | str] | None = None,
    seeds: Sequence[int] = (0, 1),
    progress: bool = False,
    config=None,
    beliefs: bool = False,
    threads: int = 1,
):
    """Play the solo benchmark (RULES.md section 6): one row per agent, rule and seed.

    Parameters
    ----------
    agents : sequence of str or Agent
        Registered names or ``module:Class`` specs (a fresh agent per game), or agents
        (each game plays a `eleusis_lab.agent.clone`).
    rules : sequence of Rule, str or RuleEntry, optional
        Catalog names, rule texts, rules, or the entries of a rule file
        (`eleusis_lab.rules.rule_file.load_rule_file`, which name their family);
        default: the acceptable catalog rules
        (`eleusis_lab.rules.catalog.acceptable_rules`), the rules a dealer may pick.
    seeds : sequence of int
        The game seeds played for every agent and rule.
    progress : bool
        Show a progress bar (tqdm) over the games.
    config : SoloConfig, optional
        The game's options; the benchmark's when omitted.
    beliefs : bool
        Also ask the agent its best guess after every turn
        (`eleusis_lab.games.solo.beliefs`) and add the column ``led_turn``: the first
        turn after which that guess was the secret rule (NaN when it never was). Slower:
        every guess is judged.
    threads : int
        Games played at once, in threads: for agents that wait rather than compute
        (language models, whose requests then overlap); the rows are the same and in
        the same order. The decision limit is not enforced in threads.

    Returns
    -------
    pandas.DataFrame
        Columns ``agent``, ``rule`` (catalog name, else text), ``family`` (the rule
        file's, else `rule_families`, ``"other"`` outside the catalog), ``seed``,
        ``success`` (the published: found with a score of at least 2), ``found``,
        ``found_turn`` (NaN when not found), ``turns``, ``wrong_declarations``,
        ``score``, ``floored_score``, ``no_stakes_score``, ``boldness``
        (`eleusis_lab.games.solo.record.SoloRecord`), ``declarations`` and
        ``tentative`` (a tuple of (confidence, correct) per declaration, and per turn's
        tentative rule; confidence NaN when none was stated),
        ``end``, ``faults`` and ``first_fault`` (its kind, call and message: the agent
        raised, or played a card it does not hold ...), ``seconds`` (the agent's time in
        its game calls) and ``decisions`` (turns played); and ``led_turn`` with
        ``beliefs``.

    Examples
    --------
    >>> games = solo_games(["oracle"], rules=["red_only", "suit(card) != spades"], seeds=[0])
    >>> games[["agent", "rule", "success", "found_turn", "score"]]
        agent                  rule  success  found_turn  score
    0  oracle              red_only     True         1.0     30
    1  oracle  suit(card) != spades     True         1.0     30
    """
    import pandas as pd

    from eleusis_lab.games.solo.beliefs import solo_beliefs  # pandas: only here
    from eleusis_lab.rules.rule_file import RuleEntry  # scikit-learn: only here

    catalog_families = rule_families()
    pool = []  # (rule, family)
    for item in rules or acceptable_rules():
        if isinstance(item, RuleEntry):
            pool.append((item.rule, item.family))
        else:
            rule = get_rule(item) if isinstance(item, str) else item
            pool.append((rule, catalog_families.get(rule.name, "other")))
    jobs = [(agent, rule, seed) for agent in agents for rule in pool for seed in seeds]
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be a whole number >= 1, got {threads!r}")

    def play(job) -> dict:
        agent, (rule, family), seed = job
        player = make_agent(agent) if isinstance(agent, str) else clone(agent)
        spent = _timed_solo(player)
        extra = {}
        if beliefs:
            record, table = solo_beliefs(rule, player, seed, config)
            led = table["turn"][table["belief_correct"].fillna(False).astype(bool)]
            extra["led_turn"] = float(led.min()) if len(led) else float("nan")
        else:
            record = play_solo(rule, player, seed, config)
        return {
            "agent": agent if isinstance(agent, str) else repr(agent),
            "rule": rule.name or rule.text,
            "family": family,
            "seed": seed,
            "success": record.success,
            "found": record.found,
            "found_turn": float(record.found_turn) if record.found else float("nan"),
            "turns": record.turns,
            "wrong_declarations": record.wrong_declarations,
            "score": record.score,
            "floored_score": record.floored_score,
            "no_stakes_score": record.no_stakes_score,
            "boldness": record.boldness,
            "declarations": _stated(record.declarations),
            "tentative": _stated(record.tentative),
            "end": record.end,
            "faults": len(record.faults),
            "first_fault": _fault_text(record.faults[0]) if record.faults else "",
            "seconds": spent[0],
            "decisions": record.turns,
            **_usage(player),
            **extra,
        }

    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="eleusis-lab solo") as pool:
        rows = map(play, jobs) if threads == 1 else pool.map(play, jobs)  # in order
        if progress:
            from tqdm.auto import tqdm

            rows = tqdm(rows, total=len(jobs), desc="solo games", unit="game")
        return pd.DataFrame(list(rows))


def _usage(player) -> dict[str, float]:
    """A player's usage (`eleusis_lab.engines.seat_usage`), NaN where it reports none."""
    return {k: math.nan if v is None else v for k, v in seat_usage(player).items()}


def _stated(statements) -> tuple[tuple[float, bool], ...]:
    return tuple(
        (math.nan if s.confidence is None else s.confidence, s.correct) for s in statements
    )


def _fault_text(fault) -> str:
    return f"{fault.kind} in {fault.call}: {fault.message}"


def fault_warnings(games) -> list[str]:
    """One line per agent whose games recorded faults: how many, and the first.

    A game with a fault goes on (a faulty play is replaced, a failed ``start_game`` is
    only recorded), so its score is not quite the agent's own.

    >>> import pandas as pd
    >>> games = pd.DataFrame({"agent": ["a", "a", "b"], "faults": [0, 2, 0],
    ...                       "first_fault": ["", "raised in start_game: boom", ""]})
    >>> fault_warnings(games)
    ['a: 1 of 2 games recorded agent faults (2 in all); the first: raised in start_game: boom']
    """
    lines = []
    for agent, group in games.groupby("agent", sort=False):
        faulty = group[group["faults"] > 0]
        if len(faulty):
            first, total = faulty["first_fault"].iloc[0], int(faulty["faults"].sum())
            lines.append(
                f"{agent}: {len(faulty)} of {plural(len(group), 'game')} recorded agent faults"
                f" ({total} in all); the first: {first}"
            )
    return lines


def summarize_solo(games, by: str | Sequence[str] = "agent"):
    """Sum up a table of `solo_games` per agent (or per any columns, e.g. family).

    Returns a DataFrame indexed by ``by`` with the columns `SOLO_COLUMNS`: ``games``,
    ``success`` (the published success rate: found with a score of at least 2),
    ``found`` (the share of games the rule was found), ``mean_score``,
    ``mean_floored_score`` (the headline figure), ``mean_no_stakes`` (the no-stakes
    score), ``mean_found_turn`` (over the games where the rule was found),
    ``wrong_declarations`` (mean per game), ``boldness`` (mean per game), ``ece`` (the
    expected calibration error of the declarations that stated a confidence,
    `eleusis_lab.calibration.expected_calibration_error`; NaN without any),
    ``s_per_game`` (the agent's time per game) and ``ms_per_decision`` (per turn, its
    update and declaration included). With a ``led_turn`` column
    (``solo_games(beliefs=True)``), also ``led`` (the share of games in which the
    secret rule became the agent's best guess) and ``mean_led_turn`` (the turn it first
    did, over those games). When an agent reports its usage (a language model:
    `eleusis_lab.agent.Agent.usage`), also ``calls_per_game``, ``tokens_per_game``
    (in and out) and ``model_s_per_game`` (NaN for the agents that call nothing).

    Examples
    --------
    >>> games = solo_games(["oracle", "random"], rules=["red_only"], seeds=[0, 1])
    >>> table = summarize_solo(games)
    >>> table["success"].to_dict(), table["mean_floored_score"].to_dict()
    ({'oracle': 1.0, 'random': 0.0}, {'oracle': 30.0, 'random': 0.0})
    >>> table.loc["oracle", ["mean_no_stakes", "boldness", "ece"]].tolist()
    [30.0, 0.0, 0.0]
    """
    import pandas as pd

    keys = [by] if isinstance(by, str) else list(by)
    beliefs = "led_turn" in games  # played with solo_games(beliefs=True)
    used = "calls" in games and games["calls"].notna().any()  # a model played
    rows = []
    for key, group in games.groupby(keys, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        rows.append(
            {
                **dict(zip(keys, key, strict=True)),
                "games": len(group),
                "success": float(group["success"].mean()),
                "found": float(group["found"].mean()),
                "mean_score": float(group["score"].mean()),
                "mean_floored_score": float(group["floored_score"].mean()),
                "mean_no_stakes": float(group["no_stakes_score"].mean()),
                "mean_found_turn": float(group["found_turn"].mean()),
                "wrong_declarations": float(group["wrong_declarations"].mean()),
                "boldness": float(group["boldness"].mean()),
                "ece": declaration_ece(group),
                "s_per_game": float(group["seconds"].mean()),
                "ms_per_decision": 1000 * group["seconds"].sum() / max(group["decisions"].sum(), 1),
            }
        )
        if beliefs:
            rows[-1]["led"] = float(group["led_turn"].notna().mean())
            rows[-1]["mean_led_turn"] = float(group["led_turn"].mean())
        if used:
            rows[-1]["calls_per_game"] = float(group["calls"].mean())
            tokens = group["tokens_in"] + group["tokens_out"]
            rows[-1]["tokens_per_game"] = float(tokens.mean())
            rows[-1]["model_s_per_game"] = float(group["model_seconds"].mean())
    columns = [
        *keys,
        *SOLO_COLUMNS,
        *(("led", "mean_led_turn") if beliefs else ()),
        *(("calls_per_game", "tokens_per_game", "model_s_per_game") if used else ()),
    ]
    return pd.DataFrame(rows, columns=columns).set_index(keys)


def solo_declarations(games, column: str = "declarations"):
    """One row per declaration of a `solo_games` table: the game's columns ``agent``,
    ``rule``, ``family`` and ``seed``, and the declaration's ``confidence`` (NaN when
    none was stated) and ``correct``; the input of a calibration curve. With
    ``column="tentative"``, one row per tentative rule instead.

    >>> games = solo_games(["oracle"], rules=["red_only"], seeds=[0])
    >>> solo_declarations(games)[["agent", "confidence", "correct"]].values.tolist()
    [['oracle', 1.0, True]]
    """
    import pandas as pd

    rows = [
        {
            "agent": g.agent,
            "rule": g.rule,
            "family": g.family,
            "seed": g.seed,
            "confidence": confidence,
            "correct": correct,
        }
        for g in games.itertuples()
        for confidence, correct in getattr(g, column)
    ]
    columns = ["agent", "rule", "family", "seed", "confidence", "correct"]
    return pd.DataFrame(rows, columns=columns)


def declaration_ece(games, bins: int = 10) -> float:
    """The expected calibration error of the declarations of `solo_games` rows that
    stated a confidence; NaN when none did."""
    from eleusis_lab.calibration import expected_calibration_error  # pandas: only here

    table = solo_declarations(games).dropna(subset=["confidence"])
    if not len(table):
        return float("nan")
    return expected_calibration_error(table["confidence"], table["correct"], bins)


def bench_solo(
    agents: Sequence[str | Agent] = ("random", "oracle"),
    rules: Sequence[Rule | str] | None = None,
    seeds: Sequence[int] = (0, 1),
    progress: bool = False,
    config=None,
    verbose: bool = False,
):
    """The solo benchmark: per-agent success rate and scores over the catalog rules.

    Plays `solo_games` (every agent, rule and seed) and sums it up with
    `summarize_solo`. For the per-game table as well, call those two yourself:
    ``games = solo_games(...)``, then ``summarize_solo(games)`` per agent and
    ``summarize_solo(games, ["agent", "family"])`` per agent and rule family.

    Parameters
    ----------
    agents, rules, seeds, progress, config
        As in `solo_games` (default rules: the acceptable catalog rules).
    verbose : bool
        Print the table (`format_solo_table`).

    Returns
    -------
    pandas.DataFrame
        One row per agent, the columns `SOLO_COLUMNS`.

    Examples
    --------
    >>> table = bench_solo(["oracle"], rules=["red_only", "suit_cycle"], seeds=[0])
    >>> table.loc["oracle", ["games", "success", "mean_score", "wrong_declarations"]].tolist()
    [2.0, 1.0, 30.0, 0.0]
    """
    games = solo_games(agents, rules, seeds, progress, config)
    table = summarize_solo(games)
    if verbose:
        print(format_solo_table(table, games["rule"].nunique(), len(seeds)))
    return table


#: The short headings of `format_solo_table`.
_SOLO_HEADINGS = {
    "mean_score": "score",
    "mean_floored_score": "floored",
    "mean_no_stakes": "no_stakes",
    "mean_found_turn": "found_turn",
    "wrong_declarations": "wrong",
    "ms_per_decision": "ms_per_turn",
    "calls_per_game": "calls",
    "tokens_per_game": "tokens",
    "model_s_per_game": "model_s",
}


def format_solo_table(table, rules: int, seeds: int) -> str:
    """The table of `bench_solo` (or of `summarize_solo`) for a terminal, with short
    headings (floored: the mean floored score; wrong: wrong declarations a game).

    >>> games = solo_games(["oracle"], rules=["red_only"], seeds=[0])
    >>> print(format_solo_table(summarize_solo(games), 1, 1).splitlines()[1])
    ... # doctest: +NORMALIZE_WHITESPACE
    games  success  found  score  floored  no_stakes  found_turn  wrong  boldness  ece
    s_per_game  ms_per_turn
    """
    head = (
        f"solo benchmark (RULES.md 6), {plural(rules, 'rule')} x {plural(seeds, 'seed')};"
        " score: 31 - turn"
        " found - 2 x wrong declarations (floored: at least 0); success: found, score >= 2"
    )
    shown = table.rename(columns=_SOLO_HEADINGS)
    return head + "\n" + shown.to_string(float_format=lambda x: f"{x:.3g}", na_rep="-")


# -- beside published figures -----------------------------------------------------------


def _published_games(games, entries):
    """The rows of ``games`` played on the entries that carry published figures."""
    names = {entry.name for entry in entries if entry.published}
    return games[games["rule"].isin(names)]


def published_comparison(games, models, entries=None):
    """The agents of a `solo_games` table beside published players: one row each.

    Parameters
    ----------
    games : pandas.DataFrame
        A table of `solo_games`.
    models : sequence of PublishedModel
        The published players (`eleusis_lab.rules.rule_file.published_models`).
    entries : sequence of RuleEntry, optional
        The rules played; only the games on those that carry published figures
        (`RuleEntry.published`) count. Every game counts when omitted.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``name`` (the agent, or the model), with the columns ``kind``
        (``"agent"`` for an agent of this run, ``"published"`` for a model),
        ``floored`` (the mean floored score), ``success`` (the published success rate:
        found with a score of at least 2) and ``s_per_turn`` (an agent's time in its
        game calls over its turns; a model's published wall seconds per turn). A figure
        a model has not published is NaN. Sorted by ``floored``, highest first, NaN last.
        When a language model played here is a published one (`same_model`: its
        ``model`` parameter names it), the column ``same_model`` pairs the two rows.

    Examples
    --------
    >>> from eleusis_lab.rules.rule_file import PublishedModel
    >>> games = solo_games(["oracle", "random"], rules=["red_only"], seeds=[0])
    >>> models = [PublishedModel("LLM", floored=15.0, success=0.75, seconds_per_turn=60.0)]
    >>> table = published_comparison(games, models)
    >>> table.index.tolist(), table["kind"].tolist()
    (['oracle', 'LLM', 'random'], ['agent', 'published', 'agent'])
    >>> table["floored"].tolist(), table["success"].tolist()
    ([30.0, 15.0, 0.0], [1.0, 0.75, 0.0])
    """
    import pandas as pd

    if entries is not None:
        games = _published_games(games, entries)
    rows = [
        {
            "name": agent,
            "kind": "agent",
            "floored": float(group["floored_score"].mean()),
            "success": float(group["success"].mean()),
            "s_per_turn": float(group["seconds"].sum() / max(group["decisions"].sum(), 1)),
        }
        for agent, group in games.groupby("agent", sort=False)
    ]
    rows += [
        {
            "name": model.name,
            "kind": "published",
            "floored": math.nan if model.floored is None else model.floored,
            "success": math.nan if model.success is None else model.success,
            "s_per_turn": math.nan if model.seconds_per_turn is None else model.seconds_per_turn,
        }
        for model in models
    ]
    table = pd.DataFrame(rows, columns=["name", "kind", "floored", "success", "s_per_turn"])
    pairs = {
        agent: model.name
        for agent in games["agent"].unique()
        for model in models
        if same_model(agent, model.name)
    }
    if pairs:
        paired = {**pairs, **{model: agent for agent, model in pairs.items()}}
        table["same_model"] = table["name"].map(paired)
    table = table.sort_values("floored", ascending=False, kind="stable", na_position="last")
    return table.set_index("name")


_MODEL_PARAM = re.compile(r"""\bmodel\s*=\s*(['"])(.*?)\1""")


def same_model(agent: str, published: str) -> bool:
    """Whether the agent labelled ``agent`` is a language model whose ``model``
    parameter names the published model ``published``: the same letters and digits,
    case, spaces and punctuation aside (``gpt-oss:20b`` is "GPT-OSS 20B").

    >>> same_model("llm(model='gpt-oss:20b')", "GPT-OSS 20B")
    True
    >>> same_model("llm(model='gpt-oss:20b')", "GPT-OSS 120B"), same_model("bayes", "Bayes")
    (False, False)
    """
    found = _MODEL_PARAM.search(agent)
    if found is None:
        return False

    def letters(text: str) -> str:
        return re.sub(r"[^0-9a-z]", "", text.lower())

    return letters(found.group(2)) == letters(published)


def published_by_rule(games, entries):
    """Per rule, the published players' figures beside each agent's in `solo_games`.

    Parameters
    ----------
    games : pandas.DataFrame
        A table of `solo_games`.
    entries : sequence of RuleEntry
        The rules; those with published figures (`RuleEntry.published`) that were
        played make the rows, in their order.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``rule``, with a last row ``mean`` (over the rules above). The
        columns are pairs: ``("published", "floored")`` and ``("published",
        "success")``, the rule's published figures (the published players' mean floored
        score and success rate; NaN when not published), then ``(agent, "floored")``
        and ``(agent, "success")`` for each agent, over its seeds.

    Examples
    --------
    >>> from eleusis_lab.rules.rule_file import RuleEntry
    >>> reds = RuleEntry("reds", "red(card)", published={"floored": 25.4, "success": 1.0})
    >>> games = solo_games(["oracle", "random"], rules=[reds], seeds=[0])
    >>> published_by_rule(games, [reds]).loc["reds"].tolist()
    [25.4, 1.0, 30.0, 1.0, 0.0, 0.0]
    """
    import pandas as pd

    played = _published_games(games, entries)
    names = [e.name for e in entries if e.published and e.name in set(played["rule"])]
    published = {e.name: e.published for e in entries}
    columns = {
        ("published", "floored"): [published[n].get("floored", math.nan) for n in names],
        ("published", "success"): [published[n].get("success", math.nan) for n in names],
    }
    for agent, group in played.groupby("agent", sort=False):
        by_rule = group.groupby("rule")
        columns[(agent, "floored")] = by_rule["floored_score"].mean().reindex(names).tolist()
        columns[(agent, "success")] = by_rule["success"].mean().reindex(names).tolist()
    table = pd.DataFrame(columns, index=pd.Index(names, name="rule"), dtype=float)
    table.columns = pd.MultiIndex.from_tuples(table.columns)
    table.loc["mean"] = table.mean()
    return table


def published_rank_correlations(games, entries):
    """How well each agent's found turn, and each complexity measure, rank the rules as
    the published players' success rates do: Spearman's rho over the rules played that
    carry a published success rate.

    Parameters
    ----------
    games : pandas.DataFrame
        A table of `solo_games`.
    entries : sequence of RuleEntry
        The rules, with their published figures (`RuleEntry.published`).

    Returns
    -------
    pandas.DataFrame
        Indexed by ``predictor``: ``found turn: AGENT`` for each agent (the mean over its
        seeds of the turn its declaration was judged correct, 31 where the rule was not
        found: with ``bayes-context`` and seeds 0, 1, 2 this is the measure
        ``solo_turns``, `eleusis_lab.rules.solo_learnability`), then each measure of
        `eleusis_lab.rules.complexity` computed without play, then the published
        figures of the rules' complexity (``published nodes`` ...). Columns ``rho``
        (negative: higher values, lower success; NaN where either is constant) and
        ``rules``.

    Examples
    --------
    >>> from eleusis_lab.rules.rule_file import RuleEntry
    >>> entries = [RuleEntry(f"r{i}", text, published={"success": success})
    ...            for i, (text, success) in enumerate([("red(card)", 0.9),
    ...            ("suit(card) == suit(last)", 0.5), ("rank(card) >= 2 and black(card)", 0.2)])]
    >>> games = solo_games(["oracle"], rules=entries, seeds=[0])
    >>> table = published_rank_correlations(games, entries)
    >>> table.loc["nodes", ["rho", "rules"]].tolist()  # more nodes, less success
    [-1.0, 3.0]
    """
    import pandas as pd

    played = _published_games(games, entries)
    rated = [e for e in entries if "success" in e.published and e.name in set(played["rule"])]
    names = [e.name for e in rated]
    success = pd.Series([e.published["success"] for e in rated], index=names)
    predictors = {}
    for agent, group in played.groupby("agent", sort=False):
        turns = group["found_turn"].where(group["found"], MAX_TURNS + 1)
        predictors[f"found turn: {agent}"] = turns.groupby(group["rule"]).mean()
    rules = {e.name: parse(e.text) for e in rated}
    for measure in measures(on_demand=False):
        predictors[measure.name] = pd.Series({n: measure(rule) for n, rule in rules.items()})
    for figure in ("nodes", "cyclomatic", "acceptance"):
        values = {e.name: e.published[figure] for e in rated if figure in e.published}
        if values:
            predictors[f"published {figure}"] = pd.Series(values)
    rows = {}
    for name, values in predictors.items():
        pair = pd.DataFrame({"x": values, "y": success}).dropna()
        varied = pair.nunique().min() > 1  # no rank correlation with a constant
        rho = pair["x"].corr(pair["y"], method="spearman") if varied else math.nan
        rows[name] = (rho, float(len(pair)))
    table = pd.DataFrame.from_dict(rows, orient="index", columns=["rho", "rules"])
    table.index.name = "predictor"
    return table


def format_published_rank_correlations(table) -> str:
    """The table of `published_rank_correlations` for a terminal."""
    head = (
        "rank correlation (Spearman) with the published success rate, per rule: the agents'"
        " found turn (31 when not found) and the complexity measures"
    )
    return head + "\n" + table.to_string(float_format=lambda x: f"{x:.3g}")


def format_published_comparison(table, rules: int, seeds: int) -> str:
    r"""The table of `published_comparison` for a terminal, agents marked ``agent``.

    >>> from eleusis_lab.rules.rule_file import PublishedModel
    >>> games = solo_games(["oracle"], rules=["red_only"], seeds=[0])
    >>> table = published_comparison(games, [PublishedModel("LLM", floored=15.0)])
    >>> print(format_published_comparison(table, 1, 1).split("\n", 1)[1])
    ... # doctest: +NORMALIZE_WHITESPACE +ELLIPSIS
                 kind  floored  success  s_per_turn
    name
    oracle      agent       30        1      ...
    LLM     published       15        -           -
    """
    head = (
        f"beside the published models: the agents over {plural(rules, 'rule')} with published"
        f" figures x {plural(seeds, 'seed')}, the models as published; floored: mean floored"
        " score; success: found, score >= 2; s_per_turn: seconds per turn"
    )
    # four digits: the published scores are given to the hundredth (16.97, not 17)
    return head + "\n" + table.to_string(float_format=lambda x: f"{x:.4g}", na_rep="-")


def format_published_by_rule(table) -> str:
    r"""The table of `published_by_rule` for a terminal.

    >>> from eleusis_lab.rules.rule_file import RuleEntry
    >>> reds = RuleEntry("reds", "red(card)", published={"floored": 25.4, "success": 1.0})
    >>> games = solo_games(["oracle"], rules=[reds], seeds=[0])
    >>> print(format_published_by_rule(published_by_rule(games, [reds])).split("\n", 1)[1])
    ... # doctest: +NORMALIZE_WHITESPACE
          published          oracle
            floored success floored success
    rule
    reds       25.4       1      30       1
    mean       25.4       1      30       1
    """
    head = "per rule: the published models' mean floored score and success rate beside each agent's"
    return head + "\n" + table.to_string(float_format=lambda x: f"{x:.3g}", na_rep="-")
