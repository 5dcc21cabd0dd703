"""The ``eleusis-lab`` command.

Every command exits 0 on success. Bad input (a rule that does not parse, an unknown
agent, a missing file, impossible settings) prints one line on stderr and exits 2;
``replay`` exits 1 when a record does not check out, 2 (one line naming the file) when
it is not a record at all: not JSON, JSON of the wrong shape, a field of the wrong type,
an option its game does not have, an agent ``spec`` that names no agent class (`eleusis_lab.
record.agent_from_dict`), or a file over `eleusis_lab.record.MAX_RECORD_BYTES`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import sys
import textwrap
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import numpy as np

from eleusis_lab.cards import CardError, format_cards, parse_cards
from eleusis_lab.engines import MOST_SECONDS, is_seconds, people
from eleusis_lab.errors import AgentError, ConfigError
from eleusis_lab.games.solo import TIMINGS, SoloConfig
from eleusis_lab.games.solo.judge import JUDGES
from eleusis_lab.games.table import DEFAULT_GAME, GAMES
from eleusis_lab.llm_cache_mode import CACHE_MODE_ENV, CACHE_MODES
from eleusis_lab.record import RecordError, format_layout, load_record, replay
from eleusis_lab.registry import UnknownAgentError, parse_agent_list, split_specs
from eleusis_lab.rules import Context, Rule, RuleSyntaxError
from eleusis_lab.rules.analysis import check_acceptable, equivalent
from eleusis_lab.rules.catalog import acceptable_rules, catalog, get_rule
from eleusis_lab.rules.complexity import describe_measures, measures
from eleusis_lab.rules.printer import to_tree
from eleusis_lab.rules.reach import CHECK_SECONDS, TooManyContexts, time_limit
from eleusis_lab.spec import MAX_PLAYERS, check_jobs
from eleusis_lab.text import plural

_AGENTS_HELP = "comma-separated agent names, with any parameters: bayes(grammar=standard)"

# What a user can get wrong: reported in one line, exit code 2.
USER_ERRORS = (
    RuleSyntaxError,
    CardError,
    UnknownAgentError,
    AgentError,
    ConfigError,
    TooManyContexts,
    OSError,
    json.JSONDecodeError,
    ValueError,
)

SAMPLE_LINES = ("7S", "QH", "3D 10C", "AC 2C")

#: What ``eleusis-lab list`` lists (`eleusis_lab.listing.KINDS`).
LIST_KINDS = ("agents", "games", "dealers", "measures", "grammars", "rules")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with _llm_cache(getattr(args, "llm_cache", None)):
            return args.run(args)
    except RuleSyntaxError as error:
        print(f"eleusis-lab: bad rule: {error.one_line()}", file=sys.stderr)
    except OSError as error:  # the file, then the reason: no errno
        where = f"{error.filename}: " if error.filename else ""
        print(f"eleusis-lab: {where}{error.strerror or error}", file=sys.stderr)
    except USER_ERRORS as error:
        print(f"eleusis-lab: {error}", file=sys.stderr)
    except KeyboardInterrupt as error:  # Ctrl-C, or a person at a human seat quitting
        print(f"eleusis-lab: {str(error) or 'interrupted'}", file=sys.stderr)
        return 130
    return 2


class _Parser(argparse.ArgumentParser):
    """A parser whose errors are one line: ``eleusis-lab: error: ...``, exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"eleusis-lab: error: {message} (see {self.prog} --help)\n")


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Help that shows each option's default (unless it has none or says it already)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if default is None or default is False or default is argparse.SUPPRESS:
            return text
        if action.nargs == 0 and action.const is False:  # a switch that turns off (store_false)
            return text
        if "default:" in text or not action.option_strings:
            return text
        shown = " ".join(map(str, default)) if isinstance(default, list) else "%(default)s"
        return f"{text} (default: {shown})"


class _Renamed(argparse.Action):
    """An option's old name: it still works, warns on stderr and is hidden from help."""

    def __init__(self, option_strings, dest, new: str, **kwargs):
        super().__init__(option_strings, dest, help=argparse.SUPPRESS, **kwargs)
        self.new = new

    def __call__(self, parser, namespace, values, option_string=None):
        print(
            f"eleusis-lab: {option_string} is now {self.new} (the old name will go)",
            file=sys.stderr,
        )
        setattr(namespace, self.dest, values)


def _whole(minimum: int, also: int | None = None, most: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number >= ``minimum`` (or exactly ``also``), and at
    most ``most``."""

    def whole(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not (value >= minimum or value == also):
            extra = f" (or {also})" if also is not None else ""
            raise argparse.ArgumentTypeError(
                f"expected a whole number >= {minimum}{extra}, got {text!r}"
            )
        if most is not None and value > most:
            raise argparse.ArgumentTypeError(f"expected at most {most:,}, got {text!r}")
        return value

    whole.__name__ = f"whole number >= {minimum}"
    return whole


_COUNT = _whole(1)
_PLAYERS = _whole(1, most=MAX_PLAYERS)
_SEED = _whole(0)


def _jobs(text: str) -> int:
    """An argparse type: worker processes, -1 (every core) or 1 to `max_jobs`."""
    jobs = _whole(1, also=-1)(text)
    try:
        return check_jobs(jobs)
    except ConfigError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


_jobs.__name__ = "worker count"


def _seconds(text: str) -> float:
    """An argparse type: a number of seconds > 0, at most a day (`MOST_SECONDS`)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not is_seconds(value):
        raise argparse.ArgumentTypeError(
            f"expected a number of seconds > 0 and at most {MOST_SECONDS:g}, got {text!r}"
        )
    return value


_seconds.__name__ = "number of seconds"
_DECISION_LIMIT_HELP = (
    "the hard limit of one call of an agent, in seconds: a call still running then is"
    " stopped, a fault, and its seat retired for the rest of the game (its later"
    " decisions the engine's substitutes), so that a hanging agent costs it once a game"
)


_LLM_CACHE_HELP = (
    "what language-model agents do with their cache of replies, over their own cache_mode:"
    " write (replay what is stored, store what is new), read (replay only) or off; set"
    f" through ${CACHE_MODE_ENV}, which their worker and agent processes inherit"
)


def _llm_cache_option(command: argparse.ArgumentParser) -> None:
    command.add_argument("--llm-cache", choices=CACHE_MODES, help=_LLM_CACHE_HELP)


@contextlib.contextmanager
def _llm_cache(mode: str | None):
    """Set `CACHE_MODE_ENV` to ``mode`` while a command runs (nothing for None)."""
    if mode is None:
        yield
        return
    before = os.environ.get(CACHE_MODE_ENV)
    os.environ[CACHE_MODE_ENV] = mode
    try:
        yield
    finally:
        if before is None:
            del os.environ[CACHE_MODE_ENV]
        else:
            os.environ[CACHE_MODE_ENV] = before


def _command(commands, name: str, help: str, example: str, **kwargs) -> argparse.ArgumentParser:
    """A subcommand whose help shows the defaults and ends with an example."""
    return commands.add_parser(
        name,
        help=help,
        description=kwargs.pop("description", help[0].upper() + help[1:] + "."),
        epilog=f"example:\n  {example}",
        formatter_class=_HelpFormatter,
        **kwargs,
    )


def _subcommands(parser: argparse.ArgumentParser, dest: str) -> argparse._SubParsersAction:
    return parser.add_subparsers(
        dest=dest, required=True, metavar="SUBCOMMAND", help=f"see {parser.prog} SUBCOMMAND --help"
    )


def _fold_options(command: argparse.ArgumentParser, agent_help: str) -> None:
    """The options of the commands that fit something on folds of a rule file."""
    command.add_argument("--agent", default="bayes", help=agent_help)
    command.add_argument(
        "--rules-file",
        default="people",
        metavar="PATH",
        help="a rule file ('people': the packaged rules people write; not the published"
        " benchmark, a test set nothing is fitted on)",
    )
    command.add_argument("--seeds", type=_COUNT, default=2, metavar="N", help="seeds per rule")
    command.add_argument(
        "--folds", type=_whole(2), default=5, metavar="K", help="folds by rule (k)"
    )


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command (each imports what it needs when it runs)."""
    from eleusis_lab import __version__

    parser = _Parser(
        prog="eleusis-lab",
        description="Rule induction experiments with the card game Eleusis.",
        epilog="examples:\n  eleusis-lab list agents\n"
        "  eleusis-lab play --agents oracle,random,random --seed 3\n"
        "  eleusis-lab run experiments/rule_complexity.toml --games 100 --jobs 2",
        formatter_class=_HelpFormatter,
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"eleusis-lab {__version__}",
        help="print the version",
    )
    commands = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", help="see eleusis-lab COMMAND --help"
    )

    listing = _command(
        commands,
        "list",
        "the names of agents, games, dealers, complexity measures, grammars or catalog rules,"
        " with one line each",
        "eleusis-lab list agents",
    )
    listing.add_argument("kind", choices=LIST_KINDS, help="what to list")
    listing.set_defaults(run=_list)

    rules = _subcommands(
        _command(commands, "rules", "inspect rules", "eleusis-lab rules show suit_cycle"),
        "rules_command",
    )
    _command(
        rules,
        "list",
        "the catalog with complexity and acceptability",
        "eleusis-lab rules list",
    ).set_defaults(run=_rules_list)
    show = _command(
        rules,
        "show",
        "one rule: parsed form, figures, legal faces",
        'eleusis-lab rules show "color(card) != color(last)"',
    )
    show.add_argument("rule", help="a catalog name or rule text")
    show.set_defaults(run=_rules_show)
    equiv = _command(
        rules,
        "equiv",
        "are two rules equivalent?",
        'eleusis-lab rules equiv red_only "not black(card)"',
        description="Are two rules equivalent? If not, a context and a card where they differ"
        " (exit status 1, as diff and cmp give for files that differ).",
    )
    equiv.add_argument("first", help="a catalog name or rule text")
    equiv.add_argument("second", help="a catalog name or rule text")
    equiv.set_defaults(run=_rules_equiv)

    play = _command(
        commands,
        "play",
        "play one game or a whole match",
        "eleusis-lab play --agents oracle,random --rule suit_cycle --seed 3 --json game.json",
    )
    play.add_argument("--game", default=DEFAULT_GAME, choices=list(GAMES), help="which game")
    play.add_argument(
        "--players",
        type=_PLAYERS,
        metavar="N",
        help="players, the dealer not counted (with --match: participants; default: one per"
        " agent named, else the game's usual number)",
    )
    play.add_argument(
        "--agents",
        help="comma-separated agent names or module:Class, with any parameters as in"
        " bayes(grammar=standard), one per seat (one name fills all;"
        " default: random, secrets-random for secrets)",
    )
    play.add_argument("--rule", help="a catalog name or rule text (default: drawn by the seed)")
    play.add_argument(
        "--seed",
        type=_SEED,
        metavar="S",
        help="the seed of the deal (and of the rule when --rule is not given); default: a fresh"
        " one, printed on stderr so that the game can be played again",
    )
    play.add_argument("--json", metavar="PATH", help="write the game record (or match) as JSON")
    play.add_argument(
        "--isolate",
        action="store_true",
        help="every agent plays from a process of its own (for agents you do not trust;"
        " the same game)",
    )
    play.add_argument(
        "--match", action="store_true", help="play a match: everyone deals (classic: twice)"
    )
    play.add_argument(
        "--retry-in-turn", action="store_true", help="phase 2: try another card after a wrong one"
    )
    play.add_argument(
        "--on-fault",
        choices=["substitute", "raise"],
        default="substitute",
        help="an agent that fails: record it and play a documented substitute, or stop",
    )
    play.add_argument(
        "--decision-seconds",
        type=_seconds,
        metavar="S",
        help="time budget per decision (default: none)",
    )
    play.add_argument(
        "--decision-limit",
        type=_seconds,
        metavar="S",
        help=_DECISION_LIMIT_HELP + " (default: 60, none with a person at a seat)",
    )
    play.add_argument(
        "--beliefs",
        action="store_true",
        help="the agent's best guess and its probability after every turn (games: "
        + ", ".join(_showing_beliefs())
        + ")",
    )
    _llm_cache_option(play)
    play.set_defaults(run=_play)

    run = _command(
        commands,
        "run",
        "run an experiment spec (TOML), or resume it",
        "eleusis-lab run experiments/rule_complexity.toml --games 100 --jobs 2",
        description="Run an experiment spec (TOML), or resume it: the shards already stored"
        " in the output directory are checked against its manifest.json and kept, the"
        " others played.",
    )
    run.add_argument("spec", help="an experiment spec (TOML)")
    run.add_argument("--out", metavar="DIR", help="output directory (default: the spec's)")
    run.add_argument(
        "--jobs",
        type=_jobs,
        default=1,
        metavar="N",
        help="worker processes (-1: every core; at most 4 per core)",
    )
    run.add_argument(
        "--backend",
        choices=("local", "threads", "dask"),
        default="local",
        help="local: this process or joblib workers; threads: --jobs threads of this"
        " process (for language models, whose games wait); dask: a local Dask cluster",
    )
    run.add_argument(
        "--scheduler", metavar="ADDRESS", help="run on the Dask cluster of this scheduler"
    )
    run.add_argument(
        "--games",
        type=_COUNT,
        metavar="N",
        help="games (or matches) per cell, e.g. for a trial; a cell is one line-up at one"
        " point of the grid, so a spec of 4 cells plays 4 N games, as the run says at its"
        " start (default: the spec's)",
    )
    run.add_argument(
        "--decision-limit",
        type=_seconds,
        metavar="S",
        help=_DECISION_LIMIT_HELP + " (default: the spec's config.decision_limit, else 60)",
    )
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.add_argument(
        "--repair",
        action="store_true",
        help="stored shard files that fail their check (changed since written: truncated,"
        " damaged, another shard's; or not in the manifest) are moved to damaged/ in the"
        " output directory and their shards played again; without a usable manifest, every"
        " shard is played again and the stored files that replay the same are recorded in"
        " a new one; without --repair, such a folder stops the run (exit 2)",
    )
    run.add_argument(
        "--csv",
        action="store_true",
        help="also write the tables as CSV, beside the output directory (OUT-csv/results.csv"
        " and events.csv), as `eleusis-lab export` does",
    )
    _llm_cache_option(run)
    run.set_defaults(run=_run)

    export = _command(
        commands,
        "export",
        "write a run's tables as CSV",
        "eleusis-lab export results/rule_complexity --to tables",
        description="Write a run's tables as CSV (results.csv: a row per game and seat;"
        " events.csv: a row per play), every stored file checked first, for tools that do"
        " not read Parquet.",
    )
    export.add_argument("dir", help="an output directory of `eleusis-lab run`")
    export.add_argument(
        "--to", metavar="DIR", help="where to write the CSV files (default: DIR-csv, beside it)"
    )
    export.set_defaults(run=_export)

    compare = _command(
        commands,
        "compare",
        "two runs of a study: the answer side by side",
        "eleusis-lab compare results/before results/after",
        description="Each rank correlation and regression coefficient of the study's answer"
        " in two runs, and whether the second run's estimate lies inside the first's 95%"
        " interval; exit 1 when one does not.",
    )
    compare.add_argument("old", help="the first run's output directory")
    compare.add_argument("new", help="the second run's output directory")
    compare.set_defaults(run=_compare)

    report = _command(
        commands,
        "report",
        "figures and a page of an experiment's results",
        "eleusis-lab report results/rule_complexity",
    )
    report.add_argument("dir", help="an output directory of `eleusis-lab run`")
    report.add_argument(
        "--out", metavar="DIR", help="where to write the report (default: DIR/report)"
    )
    report.add_argument(
        "--bins",
        type=_COUNT,
        default=10,
        metavar="N",
        help="quantile bins of each complexity measure in the dealer-score figures",
    )
    report.add_argument(
        "--min-games",
        type=_COUNT,
        default=30,
        metavar="N",
        help="the fewest games a point of those figures holds: smaller bins are merged",
    )
    report.add_argument(
        "--markdown",
        metavar="PATH",
        help="also write the answer (the page's first section) as Markdown: a new file, or"
        " between the two marked lines of an existing one (as README.md)",
    )
    report.add_argument(
        "--no-example",
        dest="example",
        action="store_false",
        help="do not replay the first game to draw its layout",
    )
    report.add_argument(
        "--dpi", type=_COUNT, default=120, metavar="N", help="resolution of the PNG files"
    )
    report.add_argument("--quiet", action="store_true", help="no progress bar")
    report.set_defaults(run=_report)

    replay = _command(
        commands,
        "replay",
        "re-check a game or match record",
        "eleusis-lab replay game.json",
        description="Re-check a game or match record: OK, or the first discrepancy (exit 1).",
    )
    replay.add_argument("path", help="a record written by `eleusis-lab play --json`")
    replay.set_defaults(run=_replay)

    serve = _command(
        commands,
        "serve",
        "run a study with people in the browser, on the deals of the agents' runs",
        "eleusis-lab serve experiments/studies/pilot_study.toml",
        description="Run a study with people in the browser (docs/guide/participants.md):"
        " participants play the games of a study spec on the same deals as the agents' runs"
        " of its experiment specs; every decision is kept, every finished game stored as a"
        " run stores its games. Needs the web extra: pip install 'eleusis-lab[web]'.",
    )
    serve.add_argument("study", help="a study spec (TOML)")
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on")
    serve.add_argument(
        "--port", type=_whole(1, most=65535), default=8000, metavar="N", help="the port"
    )
    serve.add_argument(
        "--out",
        metavar="DIR",
        help="where the study writes its database and results (default: the study's out,"
        " else results/NAME)",
    )
    serve.add_argument(
        "--https-only",
        action="store_true",
        help="send the session cookie over HTTPS only (behind a proxy that speaks HTTPS)",
    )
    serve.add_argument(
        "--forwarded-allow-ips",
        metavar="IPS",
        help="the proxies whose X-Forwarded-For to trust, comma-separated",
    )
    serve.add_argument(
        "--check", action="store_true", help="check the study and list its deals; serve nothing"
    )
    serve.set_defaults(run=_serve)

    bench = _subcommands(
        _command(commands, "bench", "benchmarks", "eleusis-lab bench engine --games 500"),
        "bench_command",
    )
    engine = _command(
        bench, "engine", "classic games per second", "eleusis-lab bench engine --games 500"
    )
    engine.add_argument("--games", type=_COUNT, default=2000, metavar="N", help="games to play")
    engine.set_defaults(run=_bench_engine)
    agents = _command(
        bench,
        "agents",
        "compare agents over the catalog rules",
        "eleusis-lab bench agents --agents random,tree --seeds 2 --rules suit_cycle",
    )
    agents.add_argument("--agents", default="random,oracle", help=_AGENTS_HELP)
    agents.add_argument("--seeds", type=_COUNT, default=3, metavar="N", help="seeds per rule")
    agents.add_argument("--games", dest="seeds", type=_COUNT, action=_Renamed, new="--seeds")
    agents.add_argument(
        "--players",
        type=_PLAYERS,
        default=3,
        metavar="N",
        help="players per game (the agent in every seat)",
    )
    agents.add_argument(
        "--rules", nargs="+", metavar="RULE", help="catalog names or rule texts (default: all)"
    )
    agents.add_argument("--csv", metavar="PATH", help="also write the table as CSV")
    _llm_cache_option(agents)
    agents.set_defaults(run=_bench_agents)
    decisions = _command(
        bench,
        "decisions",
        "ms per decision of the Bayesian agents; a first decision against a plain read",
        "eleusis-lab bench decisions --games 3 --large 0",
    )
    decisions.add_argument(
        "--hypotheses", type=_COUNT, default=100_000, metavar="N", help="hypotheses per agent"
    )
    decisions.add_argument(
        "--games", type=_COUNT, default=5, metavar="N", help="replayed classic games per agent"
    )
    decisions.add_argument(
        "--large",
        type=int,
        default=1_000_000,
        metavar="N",
        help="hypotheses of the first decision against a plain read (0: skip it)",
    )
    decisions.add_argument(
        "--large-grammar", default="standard", help="the grammar of that space (built if need be)"
    )
    decisions.set_defaults(run=_bench_decisions)
    solo = _command(
        bench,
        "solo",
        "the solo benchmark protocol over the catalog rules",
        "eleusis-lab bench solo --agents oracle,bayes --seeds 1 --rules red_only suit_cycle",
    )
    solo.add_argument("--agents", default="random,oracle,bayes", help=_AGENTS_HELP)
    solo.add_argument("--seeds", type=_COUNT, default=2, metavar="N", help="seeds per rule")
    solo.add_argument(
        "--rules", nargs="+", metavar="RULE", help="catalog names or texts (default: acceptable)"
    )
    solo.add_argument(
        "--rules-file",
        metavar="PATH",
        help="the rules of a file in the corpus format ([[rule]] name, text, family);"
        " 'people' for the packaged rules people write, 'published' for the packaged Eleusis"
        " LLM benchmark (a test set); with published figures, also tables beside the"
        " published models",
    )
    solo.add_argument("--families", action="store_true", help="also a table per rule family")
    solo.add_argument(
        "--timing",
        choices=TIMINGS,
        default="before_verdict",
        help="declare with the card, before its verdict (published), or after it",
    )
    solo.add_argument(
        "--judge",
        choices=JUDGES,
        default="continuations",
        help="judge declarations over the continuations of the line (published) or over"
        " every state reachable from an empty line",
    )
    solo.add_argument(
        "--calibration", metavar="PNG", help="also draw the declarations' calibration curve"
    )
    solo.add_argument(
        "--beliefs",
        action="store_true",
        help="also when the secret rule first became the agent's best guess (slower)",
    )
    solo.add_argument("--csv", metavar="PATH", help="also write the per-game table as CSV")
    solo.add_argument(
        "--threads",
        type=_whole(1, most=64),
        default=1,
        metavar="N",
        help="games at once, in threads: for language models, whose games wait (the same"
        " rows; the decision limit is not enforced in threads)",
    )
    _llm_cache_option(solo)
    solo.set_defaults(run=_bench_solo)
    calibrate = _command(
        bench,
        "calibrate",
        "fit a solo agent's calibration on folds of rules and measure it on the others",
        "eleusis-lab bench calibrate --agent bayes --seeds 1 --folds 3",
    )
    _fold_options(calibrate, "one agent spec with a calibration")
    calibrate.add_argument("--plot", metavar="PNG", help="draw the curves, raw and held out")
    calibrate.add_argument("--write", metavar="PATH", help="save the map fitted on every rule")
    calibrate.set_defaults(run=_bench_calibrate)
    prior = _command(
        bench,
        "prior",
        "fit the production prior on folds of rules, play the held-out rules with it",
        "eleusis-lab bench prior --agent bayes --seeds 1 --split families",
    )
    _fold_options(prior, "one agent spec with productions")
    prior.add_argument(
        "--split",
        choices=("rules", "families"),
        default="rules",
        help="k folds by rule, or leave one family out",
    )
    prior.add_argument(
        "--write", metavar="PATH", help="save the prior fitted on the catalog and every rule"
    )
    prior.add_argument(
        "--write-calibration",
        metavar="PATH",
        help="also fit the calibration map of the held-out games and save it",
    )
    prior.set_defaults(run=_bench_prior)
    runner = _command(
        bench,
        "run",
        "an experiment with 1 and 2 workers: speed-up, overhead",
        "eleusis-lab bench run experiments/agent_leaderboard.toml --games 20",
    )
    runner.add_argument("spec", help="an experiment spec (TOML)")
    runner.add_argument(
        "--games", type=_COUNT, metavar="N", help="games per cell (default: the spec's)"
    )
    runner.add_argument(
        "--jobs", type=_jobs, nargs="+", default=[1, 2], metavar="N", help="worker counts"
    )
    runner.set_defaults(run=_bench_run)
    return parser


def _list(args) -> int:
    from eleusis_lab.listing import listing  # the Secrets agents: not at start-up

    rows = listing(args.kind)
    width = max(len(name) for name, _ in rows)
    for name, text in rows:
        print(f"{name:{width}}  {text}")
    return 0


# -- rules ------------------------------------------------------------------------------


def _rules_list(args) -> int:
    # A column per complexity measure (eleusis_lab.rules.complexity), as wide as needed.
    found = measures()
    rows = [
        (entry, [m.cell(m(entry.rule)) for m in found], check_acceptable(entry.rule).acceptable)
        for entry in catalog()
    ]
    headings = [m.heading or m.name for m in found]
    widths = [
        max([len(h), *(len(cells[k]) for _, cells, _ in rows)]) for k, h in enumerate(headings)
    ]
    columns = " ".join(f"{h:>{w}}" for h, w in zip(headings, widths, strict=True))
    print(f"{'name':34} {columns}  ok  text")
    for entry, cells, acceptable in rows:
        figures = " ".join(f"{c:>{w}}" for c, w in zip(cells, widths, strict=True))
        print(f"{entry.name:34} {figures}  {'yes' if acceptable else 'no':3} {entry.rule}")
    return 0


def _rules_show(args) -> int:
    rule = get_rule(args.rule)
    # The figures within about CHECK_SECONDS in all: those not done by then are named
    # as such, and the rest of the page (the parse, the right cards) is still shown.
    with time_limit():
        figures = ", ".join(
            _within_budget(lambda m=m: m.describe(m(rule)), f"{m.name} over the analysis budget")
            for m in measures()
        )
        verdict = _within_budget(
            lambda: check_acceptable(rule), "unknown: the check is over the analysis budget"
        )
    print(f"rule:        {rule}")
    if rule.name:
        entry = next(e for e in catalog() if e.name == rule.name)
        print(f"name:        {rule.name} ({entry.source}): {entry.description}")
    print(f"reads:       {', '.join(rule.slots) or 'only the card'}")
    print(f"complexity:  {figures}")
    print(f"verdict:     {verdict}")
    print("parsed:")
    print(to_tree(rule.expr, "  "))
    print("right cards:")
    for context in _sample_contexts(rule):
        legal = rule.legal_cards(context)
        cards = "all 52" if len(legal) == 52 else f"{len(legal):2d}: {format_cards(legal)}"
        print(f"  {context.describe()}: {cards}")
    return 0


def _within_budget(compute: Callable[[], Any], over: str) -> Any:
    """``compute()``, else ``over`` when it ran past the time limit under way
    (`time_limit`)."""
    try:
        return compute()
    except TooManyContexts:
        return f"{over} (more than {CHECK_SECONDS:g} s)"


def _sample_contexts(rule: Rule) -> list[Context]:
    contexts = [Context()] + [Context(tuple(parse_cards(line))) for line in SAMPLE_LINES]
    if "outcome" in rule.slots:
        contexts = [Context(c.main_line, verdict) for c in contexts for verdict in (True, False)]
    return contexts


def _rules_equiv(args) -> int:
    first, second = get_rule(args.first), get_rule(args.second)
    with time_limit():  # the answer, or the budget error, within about CHECK_SECONDS
        figures = [describe_measures(rule) for rule in (first, second)]
        answer = equivalent(first, second)
    for label, rule, described in zip(("first", "second"), (first, second), figures, strict=True):
        print(f"{label + ':':8} {rule}\n{'':8} {described}")
    print(answer)
    return 0 if answer else 1  # as diff and cmp: 1 when they differ


# -- games ------------------------------------------------------------------------------


def _play(args) -> int:
    import dataclasses

    game = GAMES[args.game]
    if args.match and game.match is None:
        raise ConfigError(f"{args.game} has no match: it is one player's game")
    if args.beliefs and game.beliefs is None:
        raise ConfigError(
            f"--beliefs is for {', '.join(_showing_beliefs()) or 'no game installed'}:"
            f" {args.game} does not show an agent's beliefs"
        )
    names = split_specs(args.agents or game.default_agent)
    count = args.players or (len(names) if len(names) > 1 else game.players + args.match)
    if len(names) == 1:
        names *= count
    if len(names) != count:
        raise ConfigError(f"--players is {count} but --agents names {len(names)} agents")
    if args.isolate:
        from eleusis_lab.isolation import isolated

        agents = [isolated(name, registry=game.agents) for name in names]
    else:
        agents = [game.agents.make(name) for name in names]
    for name, agent in zip(names, agents, strict=True):
        refusal = game.refusal(agent, f"agent {name!r}")
        if refusal is not None:
            raise ConfigError(refusal)
    config_type = game.config_type
    options = {
        "retry_in_turn": args.retry_in_turn,
        "on_fault": args.on_fault,
        "decision_seconds": args.decision_seconds,
    }
    if args.decision_limit is not None:
        options["decision_limit"] = args.decision_limit
    elif people(agents):
        options["decision_limit"] = None  # a person at a seat takes the time he needs
    known = {field.name for field in dataclasses.fields(config_type)}
    for option, value in options.items():
        if option not in known and value not in (None, False, "substitute"):
            flag = "--" + option.replace("_", "-")
            raise ConfigError(f"{flag} does not apply to {args.game}")
    config = config_type(**{k: v for k, v in options.items() if k in known})
    if not game.needs_rule and args.rule:
        raise ConfigError(f"{args.game} is played without a rule: leave out --rule")
    rule = get_rule(args.rule) if args.rule else None
    if game.max_players is not None and args.match:  # each round, one of them deals
        most = game.max_players + 1
        if len(agents) > most:
            raise ConfigError(
                f"a {args.game} match has at most {most} participants (the dealer of the"
                f" round and {game.max_players} players), not {len(agents)}"
            )
    elif game.max_players is not None and len(agents) > game.max_players:
        most = "one agent" if game.max_players == 1 else f"at most {game.max_players} agents"
        raise ConfigError(f"{args.game} is played by {most}, not {len(agents)}")
    seed = args.seed if args.seed is not None else _fresh_seed()
    pool = game.playable_rules(acceptable_rules())
    if not args.match and game.needs_rule and rule is None:
        rule = pool[np.random.default_rng(seed).integers(len(pool))]
    try:
        if args.match:
            played = game.match(agents, seed=seed, rules=rule or pool, config=config)
            text = played.summary()
        else:
            text = ""
            if args.beliefs:
                played, beliefs = game.beliefs(rule, agents, seed, config)
                text = beliefs + "\n\n"
            else:
                played = (game.play_for_people or game.play)(rule, agents, seed, config)
            text += format_layout(played)
    except KeyboardInterrupt as error:  # q at a human seat (exit 0) or Ctrl-C (130)
        return _stopped(error, args, None if args.match else rule, seed, config, agents)
    _tell_seed(args, seed)
    print(text)
    if args.json:
        _write(args.json, played.to_json())
    return 0


def _showing_beliefs() -> list[str]:
    """The games that can show an agent's beliefs turn by turn (``play --beliefs``)."""
    return [name for name, game in GAMES.items() if game.beliefs is not None]


def _stopped(error: KeyboardInterrupt, args, rule, seed: int, config, agents) -> int:
    """A game stopped by ``q`` or Ctrl-C: the rule and the scores so far; the exit code."""
    from eleusis_agents.human import PlayerQuit
    from eleusis_lab.stopped import stopped_report

    quit = isinstance(error, PlayerQuit)
    why = str(error) if quit else "interrupted (Ctrl-C)"
    print(stopped_report(why, args.game, rule, seed, config, list(agents)))
    _tell_seed(args, seed)
    return 0 if quit else 130


def _tell_seed(args, seed: int) -> None:
    """On stderr, the fresh seed of a game played without ``--seed``."""
    if args.seed is None:
        print(f"seed {seed} (play it again with --seed {seed})", file=sys.stderr)


def _fresh_seed() -> int:
    """A seed for a game played without ``--seed``: a new deal (and rule) every time."""
    import secrets

    return secrets.randbelow(10**7)


def _run(args) -> int:
    from eleusis_lab.runner import run_command  # pandas and pyarrow: only when needed

    return run_command(args)


def _export(args) -> int:
    from eleusis_lab.export import export_csv  # pandas and pyarrow: only when needed

    for path in export_csv(args.dir, args.to):
        print(f"written to {path}")
    return 0


def _compare(args) -> int:
    from eleusis_lab.compare import compare_command  # statsmodels: only when needed

    return compare_command(args.old, args.new)


def _report(args) -> int:
    from eleusis_lab.report import report_command

    return report_command(args)


def _serve(args) -> int:
    from eleusis_lab.web.serve import serve_command  # starlette, uvicorn: only when serving

    return serve_command(args)


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as file:
        file.write(text)
    print(f"written to {path}")


def _replay(args) -> int:
    try:
        record = load_record(args.path)
        problems = replay(record)
    except RecordError as error:
        text = str(error)
        raise RecordError(text if text.startswith(args.path) else f"{args.path}: {text}") from None
    except Exception as error:  # a record of the wrong shape that the checks let through
        reason = str(error).splitlines()[0] if str(error) else "no detail"
        raise RecordError(
            f"{args.path}: not a valid record: {type(error).__name__}: {reason}"
        ) from None
    if problems:
        print(f"MISMATCH: {problems[0]}")
        return 1
    if hasattr(record, "totals"):  # a match
        games = plural(len(record.games), "game")
        print(
            f"OK: the {record.game} match of seed {record.seed} ({games}):"
            " every play, score and total checks out"
        )
    else:
        print(f"OK: the {record.game} game of seed {record.seed}: every play and score check out")
    return 0


def _bench_engine(args) -> int:
    from eleusis_lab.bench import bench_engine

    bench_engine(games=args.games, verbose=True)
    return 0


def _bench_agents(args) -> int:
    from eleusis_lab.bench import bench_agents

    names = split_specs(args.agents)
    parse_agent_list(args.agents)  # unknown names fail now, not after a long run
    rules = [get_rule(rule) for rule in args.rules] if args.rules else None
    table = bench_agents(names, rules, seeds=args.seeds, players=args.players, verbose=True)
    if args.csv:
        table.to_csv(args.csv)
        print(f"written to {args.csv}")
    return 0


def _bench_decisions(args) -> int:
    from eleusis_agents.bayes_bench import decision_report

    large = args.large or None
    print(decision_report(args.hypotheses, large, args.large_grammar, games=args.games))
    return 0


def _bench_solo(args) -> int:
    from eleusis_lab.bench import (
        fault_warnings,
        format_solo_table,
        solo_declarations,
        solo_games,
        summarize_solo,
    )

    names = split_specs(args.agents)
    parse_agent_list(args.agents)  # unknown names fail now, not after a long run
    rules = [get_rule(rule) for rule in args.rules] if args.rules else []
    entries = _rule_file(args.rules_file) if args.rules_file else []
    rules += entries
    config = SoloConfig(timing=args.timing, judge=args.judge)
    games = solo_games(
        names,
        rules or None,
        range(args.seeds),
        progress=True,
        config=config,
        beliefs=args.beliefs,
        threads=args.threads,
    )
    n_rules = games["rule"].nunique()
    print(format_solo_table(summarize_solo(games), n_rules, args.seeds))
    if args.families:
        by_family = summarize_solo(games, ["agent", "family"])
        print(format_solo_table(by_family, n_rules, args.seeds).split("\n", 1)[1])
    if any(entry.published for entry in entries):
        _print_published(games, entries, args.rules_file, args.seeds)
    for line in fault_warnings(games):
        print(f"warning: {line}", file=sys.stderr)
    if args.calibration:
        _draw_calibration(solo_declarations(games), args.calibration)
    if args.csv:
        stated = {column: games[column].map(json.dumps) for column in ("declarations", "tentative")}
        games.assign(**stated).to_csv(args.csv, index=False)
        print(f"written to {args.csv}")
    return 0


def _print_published(games, entries, source: str, seeds: int) -> None:
    """The agents beside the published models, overall and per rule, and what ranks the
    rules as the published success does (each after a blank line)."""
    from eleusis_lab.bench import (
        format_published_by_rule,
        format_published_comparison,
        format_published_rank_correlations,
        published_by_rule,
        published_comparison,
        published_rank_correlations,
    )
    from eleusis_lab.rules.rule_file import published_models

    models = published_models(None if source == "published" else source)
    n_rules = sum(1 for entry in entries if entry.published)
    print()
    print(format_published_comparison(published_comparison(games, models, entries), n_rules, seeds))
    print()
    print(format_published_by_rule(published_by_rule(games, entries)))
    print()
    print(format_published_rank_correlations(published_rank_correlations(games, entries)))


def _bench_calibrate(args) -> int:
    import pandas as pd

    from eleusis_lab.bench import format_solo_table, solo_declarations, summarize_solo
    from eleusis_lab.heldout import calibrate_solo

    parse_agent_list(args.agent)
    rules = _rule_file(args.rules_file, fitting=True)
    result = calibrate_solo(args.agent, rules, range(args.seeds), args.folds, progress=True)
    games = pd.concat([result.raw, result.heldout], ignore_index=True)
    print(format_solo_table(summarize_solo(games), len(rules), args.seeds))
    by_family = summarize_solo(games, ["agent", "family"])
    print(format_solo_table(by_family, len(rules), args.seeds).split("\n", 1)[1])
    if args.plot:
        _draw_calibration(solo_declarations(games), args.plot)
    if args.write:
        about = {
            "agent": args.agent,
            "rules": args.rules_file,
            "seeds": args.seeds,
        }
        result.final.save(args.write, **about)
        fitted = f"all {plural(len(rules), 'rule')}" if len(rules) > 1 else "its one rule"
        print(f"calibration map fitted on {fitted} written to {args.write}")
    return 0


def _bench_prior(args) -> int:
    import pandas as pd

    from eleusis_lab.bench import format_solo_table, summarize_solo
    from eleusis_lab.heldout import heldout_prior

    parse_agent_list(args.agent)
    rules = _rule_file(args.rules_file, fitting=True)
    result = heldout_prior(
        args.agent, rules, range(args.seeds), args.folds, args.split, progress=True
    )
    games = pd.concat([result.handset, result.heldout], ignore_index=True)
    print(format_solo_table(summarize_solo(games), len(rules), args.seeds))
    by_family = summarize_solo(games, ["agent", "family"])
    print(format_solo_table(by_family, len(rules), args.seeds).split("\n", 1)[1])
    if args.write:
        result.final.save(args.write)
        print(f"production prior fitted on the catalog and {len(rules)} rules: {args.write}")
    if args.write_calibration:
        _write_heldout_calibration(result.heldout, rules, args)
    return 0


def _write_heldout_calibration(games, rules, args) -> None:
    """Fit the map of games played with held-out priors, and say what it does held out."""
    from eleusis_lab.calibration import expected_calibration_error
    from eleusis_lab.heldout import crossfit_calibration

    final, held = crossfit_calibration(games, rules, args.folds)
    raw = expected_calibration_error(held["confidence"], held["correct"])
    calibrated = expected_calibration_error(held["calibrated"], held["correct"])
    print(
        f"expected calibration error of {plural(len(held), 'declaration')} on held-out rules:"
        f" {raw:.3f} as stated, {calibrated:.3f} calibrated on the other folds"
    )
    about = {"agent": args.agent, "rules": args.rules_file, "seeds": args.seeds}
    final.save(args.write_calibration, **about, fitted_on="held-out prior games")
    print(f"calibration map written to {args.write_calibration}")


def _rule_file(source: str, fitting: bool = False):
    """The entries of a rule file; ``people`` is the packaged corpus of rules people write,
    ``published`` the packaged Eleusis LLM benchmark.

    A rule file with published figures is a test set: with ``fitting`` (a command that
    fits something on the rules), it is refused.
    """
    from eleusis_lab.rules.rule_file import load_rule_file, people_rules, published_rules

    packaged = {"people": people_rules, "published": published_rules}
    entries = packaged[source]() if source in packaged else load_rule_file(source)
    if fitting and any(entry.published for entry in entries):
        raise ConfigError(
            f"{source}: its rules carry published figures, a test set: nothing is fitted on"
            " it (play it with bench solo once a design is final)"
        )
    return entries


def _draw_calibration(declarations, path: str) -> None:
    """One reliability curve per agent over its declarations that stated a confidence."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from eleusis_lab.calibration import reliability_table
    from eleusis_lab.plots import plot_calibration

    stated = declarations.dropna(subset=["confidence"])
    if not len(stated):
        print("no declaration stated a confidence: no calibration curve", file=sys.stderr)
        return
    ax = None
    for agent, group in stated.groupby("agent", sort=False):
        table = reliability_table(group["confidence"], group["correct"])
        ax = plot_calibration(table, ax=ax, label=textwrap.shorten(agent, 60))
    ax.set_title("calibration of declarations")
    ax.figure.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(ax.figure)
    print(f"calibration curve written to {path}")


def _bench_run(args) -> int:
    from eleusis_lab.runner import bench_run

    bench_run(args.spec, jobs=args.jobs, games=args.games, verbose=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
