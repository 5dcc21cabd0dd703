"""The command line as a person meets it: version, lists, help, names, errors, seeds."""

import argparse
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import eleusis_lab
from eleusis_lab.cli import build_parser, main
from eleusis_lab.registry import available_agents
from eleusis_lab.rules.catalog import catalog
from eleusis_lab.rules.complexity import measure_names
from eleusis_lab.rules.grammar import GRAMMARS
from eleusis_lab.secrets.agent import SECRETS_AGENTS

ROOT = Path(__file__).resolve().parents[1]


def run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exit:  # argparse: --version, --help and usage errors
        code = exit.code
    out, err = capsys.readouterr()
    return code, out, err


def test_version_is_pyproject_s(capsys):
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert eleusis_lab.__version__ == version
    code, out, _ = run(capsys, "--version")
    assert (code, out) == (0, f"eleusis-lab {version}\n")


def test_version_without_installed_metadata_reads_pyproject(monkeypatch):
    import importlib.metadata

    def not_installed(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)
    assert eleusis_lab._version() == eleusis_lab.__version__


@pytest.mark.parametrize(
    ("kind", "names", "says"),
    [
        ("agents", [*available_agents(), *SECRETS_AGENTS.available()], "Secrets: scores each"),
        (
            "games",
            ["classic", "delphi", "four-to-eight", "new-eleusis", "secrets", "solo"],
            "Classic Eleusis (RULES.md section 1)",
        ),
        (
            "dealers",
            ["fixed", "catalog", "band", "spread", "adaptive"],
            "The same rule every game.",
        ),
        ("measures", list(measure_names()), "rule description length (bits), a number"),
        ("grammars", list(GRAMMARS), "relational     cards"),
        ("rules", [entry.name for entry in catalog()], "Play only red cards"),
    ],
)
def test_list_prints_every_registered_name_with_a_line(capsys, kind, names, says):
    code, out, _ = run(capsys, "list", kind)
    rows = [line.split(None, 1) for line in out.splitlines()]
    assert code == 0 and [row[0] for row in rows] == names
    assert all(len(row) == 2 and row[1].strip() for row in rows)
    assert says in out


def test_list_grammars_names_the_default_of_the_rule_tools_and_of_the_learners(capsys):
    _, out, _ = run(capsys, "list", "grammars")
    defaults = {line.split()[0]: line for line in out.splitlines() if "(the default" in line}
    assert set(defaults) == {"standard", "relational"}
    assert "learners" in defaults["relational"] and "rule tools" in defaults["standard"]


def test_rules_equiv_exits_0_for_equivalent_rules_and_1_for_rules_that_differ(capsys):
    same, out, _ = run(capsys, "rules", "equiv", "red(card)", "not black(card)")
    assert same == 0 and "not equivalent" not in out
    differ, out, _ = run(capsys, "rules", "equiv", "red(card)", "black(card)")
    assert differ == 1 and "not equivalent" in out


@pytest.mark.parametrize(
    ("agents", "says"),
    [
        ("random,bayse", "unknown agent 'bayse' (did you mean 'bayes'?)"),
        ("bayes(nosie=0.1)", "takes no parameter 'nosie' (did you mean 'noise'?)"),
    ],
)
def test_a_mistyped_agent_or_parameter_gets_a_did_you_mean(capsys, agents, says):
    code, _, err = run(capsys, "bench", "agents", "--agents", agents, "--seeds", "1")
    assert code == 2 and says in err and len(err.splitlines()) == 1


def test_list_of_something_unknown_is_a_one_line_error(capsys):
    code, _, err = run(capsys, "list", "colours")
    assert code == 2 and "invalid choice: 'colours'" in err and len(err.splitlines()) == 1


def _parsers(parser, path=("eleusis-lab",)):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, (*path, name))


def test_every_help_has_an_example_and_every_option_a_help_string():
    for path, parser in _parsers(build_parser()):
        assert parser.epilog and "eleusis-lab" in parser.epilog, path
        for action in parser._actions:
            if action.help is not argparse.SUPPRESS:
                assert action.help, (path, action.dest)


def test_help_shows_the_defaults(capsys):
    code, out, _ = run(capsys, "bench", "solo", "--help")
    assert code == 0
    assert "seeds per rule (default: 2)" in out
    assert re.search(r"\(default:\s+random,oracle,bayes\)", out)
    assert "example:\n  eleusis-lab bench solo" in out
    _, out, _ = run(capsys, "bench", "run", "--help")
    assert "worker counts (default: 1 2)" in out


def test_seeds_per_rule_is_seeds_everywhere_and_games_still_works(capsys):
    for command in ("agents", "solo", "calibrate"):
        _, out, _ = run(capsys, "bench", command, "--help")
        assert "--seeds N" in out and "--games" not in out
    old = build_parser().parse_args(["bench", "agents", "--games", "5"])
    new = build_parser().parse_args(["bench", "agents", "--seeds", "5"])
    assert old.seeds == new.seeds == 5 and not hasattr(old, "games")
    assert build_parser().parse_args(["bench", "agents"]).seeds == 3
    assert "--games is now --seeds" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "names"),
    [
        (["play", "--seed", "-1"], "argument --seed: expected a whole number >= 0, got '-1'"),
        (["play", "--seed", "x"], "argument --seed"),
        (["play", "--gmae", "solo"], "unrecognized arguments: --gmae"),
        (["run", "spec.toml", "--jobs", "0"], "argument --jobs"),
        (["bench", "solo", "--seeds", "0"], "argument --seeds"),
        (["play", "--game", "chess"], "argument --game: invalid choice: 'chess'"),
        ([], "the following arguments are required: COMMAND"),
    ],
)
def test_a_bad_argument_is_one_line_naming_it(capsys, argv, names):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("eleusis-lab: error: ") and names in err
    assert len(err.splitlines()) == 1


def test_a_missing_record_is_one_line_naming_the_file(capsys, tmp_path):
    missing = tmp_path / "missing.json"
    code, _, err = run(capsys, "replay", str(missing))
    assert code == 2 and err == f"eleusis-lab: {missing}: no such game record\n"


def test_play_without_a_seed_draws_one_and_prints_it(capsys):
    argv = ["play", "--agents", "oracle,random", "--rule", "red_only"]
    code, first, err = run(capsys, *argv)
    seed = re.fullmatch(r"seed (\d+) \(play it again with --seed \1\)\n", err).group(1)
    assert code == 0
    _, again, err = run(capsys, *argv, "--seed", seed)
    assert again == first and err == ""
    seeds = {re.match(r"seed (\d+)", run(capsys, *argv)[2]).group(1) for _ in range(3)}
    assert len(seeds | {seed}) > 1  # not the same deal every time


def test_the_installed_command_prints_its_version():
    result = subprocess.run(
        [sys.executable, "-m", "eleusis_lab", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0 and result.stdout.startswith("eleusis-lab ")


def test_counts_of_one_are_singular(capsys, tmp_path):
    spec = tmp_path / "one.toml"
    spec.write_text('games = 1\ndealer = "red(card)"\nagents = ["random", "oracle"]\n')
    code, out, _ = run(capsys, "run", str(spec), "--out", str(tmp_path / "out"), "--quiet")
    assert code == 0 and re.match(r"1 game, 2 rows in .* \(1 shard; ", out), out
    argv = ["bench", "solo", "--agents", "oracle", "--seeds", "1", "--rules", "red_only"]
    code, out, _ = run(capsys, *argv)
    assert code == 0 and "1 rule x 1 seed;" in out


def test_a_run_says_at_its_start_how_many_games_the_cells_make(capsys, tmp_path):
    spec = tmp_path / "two.toml"
    spec.write_text(
        'name = "two"\ngames = 5\ndealer = "red(card)"\nplayers = 2\n'
        '[[lineups]]\nname = "a"\nagents = ["random"]\n'
        '[[lineups]]\nname = "b"\nagents = ["oracle"]\n'
    )
    out_dir = str(tmp_path / "out")
    code, out, err = run(capsys, "run", str(spec), "--out", out_dir, "--games", "3")
    assert code == 0 and "two: 2 cells (line-ups x grid) x 3 games = 6 games" in err
    assert out.startswith("6 games, ")
    code, _, err = run(capsys, "run", str(spec), "--out", out_dir, "--games", "3", "--quiet")
    assert code == 0 and "cells" not in err


def test_export_and_run_csv_write_the_tables_the_run_stored(capsys, tmp_path):
    import pandas as pd

    from eleusis_lab.storage import load_events, load_results

    spec = tmp_path / "tiny.toml"
    spec.write_text(
        'games = 2\ndealer = "red(card)"\nagents = ["random", "oracle"]\nevents = true\n'
    )
    out = tmp_path / "tiny"
    code, stdout, _ = run(capsys, "run", str(spec), "--out", str(out), "--quiet", "--csv")
    assert code == 0 and f"written to {tmp_path / 'tiny-csv' / 'results.csv'}" in stdout
    results = pd.read_csv(tmp_path / "tiny-csv" / "results.csv")
    stored = load_results(out)
    assert list(results.columns) == list(stored.columns) and len(results) == len(stored) == 4
    assert results["score"].tolist() == stored["score"].tolist()
    code, stdout, _ = run(capsys, "export", str(out), "--to", str(tmp_path / "elsewhere"))
    events = pd.read_csv(tmp_path / "elsewhere" / "events.csv")
    stored = load_events(out)
    assert code == 0 and list(events.columns) == list(stored.columns)
    assert len(events) == len(stored)
    (out / "rows" / next(p.name for p in (out / "rows").iterdir())).write_bytes(b"damaged")
    code, _, err = run(capsys, "export", str(out))
    assert code == 2 and "damaged: not a whole Parquet file" in err and "--repair" in err
