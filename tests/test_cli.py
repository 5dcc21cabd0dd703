"""The command line: output of each command, and one-line errors with exit code 2."""

import dataclasses
import json
import re
import subprocess
import sys
import time

import pytest

from eleusis_lab.cli import main
from eleusis_lab.games.table import GAMES, register_game, unregister_game
from eleusis_lab.rules import parse
from eleusis_lab.rules.analysis import check_acceptable
from eleusis_lab.rules.prior import load_prior


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_rules_list_shows_the_catalog_with_figures(capsys):
    code, out, _ = run(capsys, "rules", "list")
    lines = out.splitlines()
    assert code == 0 and len(lines) >= 41  # a header and at least 40 rules
    assert lines[0].split()[:6] == ["name", "nodes", "bits", "accept", "classes", "learn"]
    alternate = next(line for line in lines if "color(card) != color(last)" in line)
    assert alternate.split()[1:7] == ["5", "18.5", "50%", "3", "5.8", "yes"]


def test_rules_show_by_text(capsys):
    code, out, _ = run(capsys, "rules", "show", "(rank(card) - rank(last)) mod 13 in {1, 2, 3}")
    assert code == 0
    assert "not acceptable: after 7C only 12 cards are legal: 8C 9C 10C 8D" in out
    assert "after 7S: 12: 8C 9C 10C 8D 9D 10D 8H 9H 10H 8S 9S 10S" in out
    assert "on an empty main line: all 52" in out


def test_rules_show_outcome_rule_shows_both_verdicts(capsys):
    code, out, _ = run(
        capsys, "rules", "show", "if last_play_right then red(card) else black(card)"
    )
    assert code == 0
    assert "after 7S (previous play wrong): 26: AC 2C" in out
    assert "after 7S (previous play right): 26: AD 2D" in out


def test_rules_equiv(capsys):
    code, out, _ = run(
        capsys, "rules", "equiv", "odd(rank(card) + rank(last))", "parity(card) != parity(last)"
    )
    lines = out.splitlines()
    assert code == 0 and lines[-1].startswith("equivalent")
    assert lines[0] == "first:   odd(rank(card) + rank(last))"
    assert "context classes" in lines[1]
    code, out, _ = run(capsys, "rules", "equiv", "red(card)", "true")
    assert code == 1  # they differ, as diff and cmp say of files
    verdict = out.splitlines()[-1]
    assert verdict.startswith("not equivalent: ") and "is wrong under the first rule" in verdict


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["rules", "show", "rank(card) > rank(lsat)"], "did you mean 'last'"),
        (["rules", "show", "rank(card) >"], "line 1, column 13"),
        (["play", "--agents", "random,nobody", "--rule", "red(card)"], "nobody"),
        (["play", "--players", "3", "--agents", "random,random"], "--players is 3"),
        (["replay", "/nonexistent/record.json"], "/nonexistent/record.json: no such game record"),
        (["play", "--game", "delphi", "--retry-in-turn"], "--retry-in-turn does not apply"),
        (["play", "--game", "solo", "--agents", "oracle,oracle"], "solo is played by one agent"),
        (["play", "--game", "solo", "--match"], "solo has no match"),
        (
            ["play", "--game", "new-eleusis", "--match", "--players", "9"],
            "a new-eleusis match has at most 8 participants (the dealer of the round and 7",
        ),
        (["play", "--game", "new-eleusis", "--players", "8"], "at most 7 agents, not 8"),
        (["play", "--game", "classic", "--beliefs"], "--beliefs is for solo"),
        (["play", "--game", "four-to-eight", "--players", "4"], "4"),
        (["bench", "solo", "--agents", "oracel"], "oracel"),
        (["report", "/nonexistent/results"], "/nonexistent/results"),
        (["run", "/nonexistent/spec.toml"], "/nonexistent/spec.toml"),
    ],
)
def test_bad_input_is_one_line_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize("command", ["play", "bench agents"])
def test_players_are_bounded_in_one_line(capsys, command):
    with pytest.raises(SystemExit) as exited:
        main([*command.split(), "--players", "100000"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "--players: expected at most 1,000, got '100000'" in err


def test_play_writes_a_record_that_replays(capsys, tmp_path):
    path = tmp_path / "game.json"
    code, out, _ = run(
        capsys,
        "play",
        "--agents",
        "oracle,random,random",
        "--seed",
        "3",
        "--rule",
        "color(card) != color(last)",
        "--json",
        str(path),
    )
    assert code == 0 and "dealer" in out.lower()
    assert json.loads(path.read_text())["rule"] == "color(card) != color(last)"
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0 and out.startswith("OK")


@pytest.mark.parametrize(
    ("game", "agents", "says"),
    [
        ("four-to-eight", "oracle,random,random", "deck: 52 cards"),
        ("delphi", "oracle,random", "oracle score"),
        ("new-eleusis", "oracle,random,random", "dealer score"),
        ("solo", "oracle", "found on turn 1 with 0 wrong declarations: score 30"),
    ],
)
def test_play_every_game_writes_a_record_that_replays(capsys, tmp_path, game, agents, says):
    path = tmp_path / "game.json"
    argv = ["play", "--game", game, "--agents", agents, "--rule", "red_then_even"]
    code, out, _ = run(capsys, *argv, "--seed", "4", "--json", str(path))
    assert code == 0 and says in out
    assert json.loads(path.read_text())["game"] == game
    code, out, _ = run(capsys, "replay", str(path))
    assert (code, out.split(":")[0]) == (0, "OK") and f"the {game} game of seed 4" in out


def test_play_secrets_writes_a_record_that_replays(capsys, tmp_path):
    path = tmp_path / "secrets.json"
    agents = "secrets-search,secrets-heuristic,secrets-random,secrets-heuristic"
    argv = ["play", "--game", "secrets", "--agents", agents, "--seed", "3"]
    code, out, _ = run(capsys, *argv, "--json", str(path))
    assert code == 0 and "final position:" in out and "SearchSecretsAgent" in out
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0 and "the secrets game of seed 3" in out
    code, _, err = run(capsys, "play", "--game", "secrets", "--rule", "red(card)")
    assert code == 2 and "without a rule" in err


@pytest.mark.parametrize("game", ["four-to-eight", "delphi", "new-eleusis"])
def test_match_of_every_game(capsys, game):
    argv = ["play", "--game", game, "--match", "--agents", "random", "--seed", "1"]
    code, out, _ = run(capsys, *argv)
    assert code == 0 and "total" in out.lower() and "winner" in out


def test_a_new_eleusis_match_seats_the_dealer_and_7_players(capsys):
    argv = ["play", "--game", "new-eleusis", "--match", "--players", "8", "--seed", "1"]
    code, out, _ = run(capsys, *argv, "--agents", "random")
    rows = re.findall(r"^\s+p(\d)\s+RandomAgent", out, flags=re.M)
    assert code == 0 and rows == [str(k) for k in range(8)]


def test_play_solo_beliefs_prints_the_best_guess_of_every_turn(capsys):
    argv = [
        "play",
        "--game",
        "solo",
        "--agents",
        "bayes(grammar=colours_suits,max_hypotheses=2000)",
    ]
    code, out, _ = run(
        capsys, *argv, "--rule", "suit(card) == suit(last)", "--seed", "1", "--beliefs"
    )
    assert code == 0
    table, layout = out.split("\n\n", 1)
    rows = [line for line in table.splitlines()[1:] if not line.lstrip().startswith("declared")]
    assert [int(row.split()[0]) for row in rows] == [1, 2, 3, 4, 5, 6, 7]  # as in solo_beliefs
    assert rows[-1].endswith("*suit(card) == spades")  # after a spade starter, the rule
    assert table.splitlines()[-1].strip() == "declared: suit(card) == spades (correct)"
    # turn 1's gamble: after a spade starter, the same colour, with every rule the judge
    # would accept with it (black cards only, ...), was worth declaring
    assert "declared: color(card) == color(last) (wrong)" in table
    assert "found on turn 7 with 1 wrong declaration" in layout


def test_bench_solo_prints_the_table(capsys, tmp_path):
    path = tmp_path / "solo.csv"
    argv = ["bench", "solo", "--agents", "oracle", "--seeds", "1", "--rules", "red_only"]
    code, out, _ = run(capsys, *argv, "--csv", str(path))
    row = next(line.split() for line in out.splitlines() if line.startswith("oracle"))
    assert code == 0 and row[1:5] == ["1", "1", "1", "30"]  # games, success, found, score
    assert "red_only" in path.read_text()


def test_bench_solo_reads_a_rule_file_and_draws_the_calibration(capsys, tmp_path):
    rules = tmp_path / "rules.toml"
    rules.write_text(
        '[[rule]]\nname = "reds"\ntext = "red(card)"\nfamily = "one card"\n'
        '[[rule]]\nname = "start"\ntext = "if empty then face(card) else red(card)"\n'
        'family = "start"\n'
    )
    png = tmp_path / "calibration.png"
    argv = ["bench", "solo", "--agents", "oracle", "--seeds", "1", "--families"]
    code, out, _ = run(capsys, *argv, "--rules-file", str(rules), "--calibration", str(png))
    assert code == 0 and png.stat().st_size > 0
    assert "2 rules x 1 seed;" in out
    assert re.search(r"oracle\s+one card\s+1\s+1\s+1\s+30", out)
    assert re.search(r"^\s+start\s+1\s+1\s+1\s+30", out, re.MULTILINE)
    code, _, err = run(capsys, "bench", "solo", "--rules-file", str(tmp_path / "none.toml"))
    assert code == 2 and "none.toml" in err and len(err.splitlines()) == 1


def test_bench_solo_on_the_published_benchmark_sets_the_agents_beside_the_models(capsys):
    # oracle and random only: the benchmark is a test set, no learner is run on it
    argv = ["bench", "solo", "--agents", "oracle,random", "--seeds", "1"]
    code, out, _ = run(capsys, *argv, "--rules-file", "published")
    assert code == 0 and "26 rules x 1 seed;" in out
    overall, by_rule, ranks = out.split("\n\n")[1:]
    assert overall.startswith("beside the published models: the agents over 26 rules")
    rows = overall.splitlines()[3:]
    assert re.match(r"oracle\s+agent\s+30\s+1\s", rows[0])  # the best floored score
    assert re.match(r"random\s+agent\s+0\s+0\s", rows[-2])
    assert re.match(r"Claude Opus 4\.5\s+published\s+16\.97\s+0\.833\s+114\.2$", rows[2])
    assert re.match(r"GPT-5\.2 Pro\s+published\s+-\s+0\.97\s+-$", rows[-1])  # no floored
    assert "Gemini 3 Pro High" in overall and len(rows) == 2 + 15
    assert by_rule.splitlines()[1].split() == ["published", "oracle", "random"]
    assert re.search(r"^only_red_cards\s+25\.4\s+1\s+30\s+1\s+0\s+0$", by_rule, re.MULTILINE)
    assert by_rule.splitlines()[-1].split()[0] == "mean" and len(by_rule.splitlines()) == 4 + 27
    assert ranks.startswith("rank correlation (Spearman) with the published success rate")
    # random never finds a rule (31 everywhere): no rank correlation; the measures have one
    assert re.search(r"^found turn: random\s+NaN\s+26$", ranks, re.MULTILINE)
    assert re.search(r"^nodes\s+-0\.\d+\s+26$", ranks, re.MULTILINE)


def test_a_file_with_published_figures_gets_the_tables_and_no_fitting(capsys, tmp_path):
    rules = tmp_path / "rules.toml"
    rules.write_text(
        '[[rule]]\nname = "reds"\ntext = "red(card)"\npublished_floored = 20.5\n'
        '[models]\n"Bot" = { floored = 11.0 }\n'
    )
    argv = ["bench", "solo", "--agents", "oracle", "--seeds", "1", "--rules", "red_only"]
    code, out, _ = run(capsys, *argv, "--rules-file", str(rules))
    assert code == 0 and "2 rules x 1 seed;" in out  # the catalog rule is played ...
    assert "the agents over 1 rule with published figures" in out  # ... but not compared
    assert re.search(r"^Bot\s+published\s+11\s+-\s+-$", out, re.MULTILINE)
    assert re.search(r"^reds\s+20\.5\s+-\s+30\s+1$", out, re.MULTILINE)
    assert "red_only" not in out.split("\n\n")[-1]
    for command in ("calibrate", "prior"):
        for source in ("published", str(rules)):
            argv = ["bench", command, "--agent", "random", "--rules-file", source]
            code, out, err = run(capsys, *argv)
            assert code == 2 and not out and "a test set: nothing is fitted on it" in err


def test_bench_solo_without_published_figures_prints_no_comparison(capsys):
    argv = ["bench", "solo", "--agents", "random", "--seeds", "1", "--rules", "red_only"]
    code, out, _ = run(capsys, *argv)
    assert code == 0 and "published models" not in out and "\n\n" not in out


def test_bench_solo_takes_agents_with_parameters(capsys):
    agents = "oracle,bayes(grammar=colours_suits, max_hypotheses=500)"
    argv = ["bench", "solo", "--agents", agents, "--seeds", "1", "--rules", "red_only"]
    code, out, _ = run(capsys, *argv)
    assert code == 0
    assert any(line.startswith("bayes(grammar=colours_suits") for line in out.splitlines())


def test_bench_solo_warns_of_agent_faults(capsys):
    argv = ["bench", "solo", "--agents", "runner_agents:Faulty", "--seeds", "1"]
    code, out, err = run(capsys, *argv, "--rules", "red_only")
    assert code == 0 and "runner_agents:Faulty" in out
    assert "warning: runner_agents:Faulty: 1 of 1 game recorded agent faults" in err
    assert "this agent always fails" in err


def test_bench_solo_refuses_a_bad_parameter_before_playing(capsys):
    argv = ["bench", "solo", "--agents", "bayes(grammar=nonesuch)", "--seeds", "1"]
    code, out, err = run(capsys, *argv, "--rules", "red_only")
    assert code == 2 and out == ""
    assert err == (
        "eleusis-lab: agent 'bayes': unknown grammar 'nonesuch';"
        " presets: colours_suits, standard, arithmetic, verdict, relational\n"
    )


def test_bench_run_prints_the_timings(capsys, tmp_path):
    spec = tmp_path / "tiny.toml"
    spec.write_text(
        'games = 4\nshard_size = 2\ndealer = "red(card)"\nagents = ["random", "random"]\n'
    )
    code, out, _ = run(capsys, "bench", "run", str(spec), "--jobs", "1")
    assert code == 0 and "4 games in 2 shards" in out and "jobs=1:" in out


def test_bench_run_warms_up_on_whole_duplicate_deals(capsys, tmp_path):
    spec = tmp_path / "deals.toml"
    spec.write_text(
        'games = 6\nshard_size = 2\ndealer = "red(card)"\nagents = ["random", "oracle", "random"]\n'
        "duplicate = true\n"
    )
    code, out, _ = run(capsys, "bench", "run", str(spec), "--jobs", "1")  # warm-up: 3 games
    assert code == 0 and "6 games in 3 shards" in out


def test_replay_reports_a_tampered_record(capsys, tmp_path):
    path = tmp_path / "game.json"
    run(capsys, "play", "--seed", "5", "--rule", "red(card)", "--json", str(path))
    record = json.loads(path.read_text())
    record["dealer_score"] += 1
    path.write_text(json.dumps(record))
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 1 and out.startswith("MISMATCH")


def test_match(capsys):
    code, out, _ = run(capsys, "play", "--match", "--agents", "oracle,random,random", "--seed", "1")
    assert code == 0 and "total" in out.lower()


def test_python_dash_m_runs_the_command():
    result = subprocess.run(
        [sys.executable, "-m", "eleusis_lab", "rules", "equiv", "red(card)", "not black(card)"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0
    assert result.stdout.splitlines()[-1].startswith("equivalent")


def test_bench_agents_table_and_csv(capsys, tmp_path):
    path = tmp_path / "agents.csv"
    code, out, _ = run(
        capsys, "bench", "agents", "--games", "1", "--rules", "suit_cycle", "--csv", str(path)
    )
    assert code == 0
    header = out.splitlines()[1].split()
    assert header == [
        "games",
        "wrong_per_game",
        "accuracy_40",
        "identified_30",
        "plays_to_identify",
        "ms_per_decision",
        "faults",
    ]
    rows = path.read_text().splitlines()
    assert rows[0].startswith("agent,games") and {r.split(",")[0] for r in rows[1:]} == {
        "random",
        "oracle",
    }
    oracle = next(r for r in rows if r.startswith("oracle")).split(",")
    assert float(oracle[3]) == 1.0  # the oracle predicts every verdict


def test_bench_agents_unknown_agent_fails_fast(capsys):
    code, _, err = run(capsys, "bench", "agents", "--agents", "random,nobody")
    assert code == 2 and "unknown agent 'nobody'" in err


def test_play_records_faults_under_a_time_budget(capsys, tmp_path):
    path = tmp_path / "game.json"
    code, out, _ = run(
        capsys,
        "play",
        "--agents",
        "random,random",
        "--rule",
        "red(card)",
        "--seed",
        "2",
        "--decision-seconds",
        "1e-9",
        "--retry-in-turn",
        "--json",
        str(path),
    )
    record = json.loads(path.read_text())
    assert code == 0 and "over_time" in out
    # every decision runs over a nanosecond; the agents' own cards are kept
    assert {fault["kind"] for fault in record["faults"]} == {"over_time"}
    assert record["config"]["retry_in_turn"] is True
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0 and out.startswith("OK")


@pytest.mark.parametrize("value", ["-1", "nan", "1e300"])
def test_play_rejects_a_time_budget_that_is_no_number_of_seconds(capsys, value):
    with pytest.raises(SystemExit) as exited:
        main(["play", "--rule", "red(card)", "--decision-seconds", value])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and err.count("\n") == 1
    assert (
        f"--decision-seconds: expected a number of seconds > 0 and at most 86400, got '{value}'"
        in err
    )


def _four_rules(tmp_path):
    """A rule file of two families of two rules."""
    rules = tmp_path / "rules.toml"
    four = [
        ("red(card)", "one card"),
        ("black(card)", "one card"),
        ("color(card) != color(last)", "last card"),
        ("suit(card) == suit(last)", "last card"),
    ]
    rules.write_text(
        "".join(
            f'[[rule]]\nname = "r{i}"\ntext = "{text}"\nfamily = "{family}"\n'
            for i, (text, family) in enumerate(four)
        )
    )
    return rules


def test_bench_calibrate_fits_on_folds_and_writes_the_map(capsys, tmp_path):
    rules = _four_rules(tmp_path)
    agent = "bayes(grammar=colours_suits, max_hypotheses=2000)"
    written = tmp_path / "map.json"
    argv = ["bench", "calibrate", "--agent", agent, "--rules-file", str(rules), "--seeds", "1"]
    code, out, _ = run(capsys, *argv, "--folds", "2", "--write", str(written))
    assert code == 0 and f"{agent}, held out" in out
    assert json.loads(written.read_text())["agent"] == agent
    code, _, err = run(
        capsys, "bench", "calibrate", "--agent", "random", "--rules-file", str(rules)
    )
    assert code == 2 and "no calibration parameter" in err


def test_bench_prior_fits_on_folds_and_writes_the_prior(capsys, tmp_path):
    rules = _four_rules(tmp_path)
    agent = "bayes(grammar=colours_suits, max_hypotheses=1000)"
    written = tmp_path / "prior.json"
    argv = ["bench", "prior", "--agent", agent, "--rules-file", str(rules), "--seeds", "1"]
    mapped = tmp_path / "map.json"
    code, out, _ = run(
        capsys, *argv, "--folds", "2", "--write", str(written), "--write-calibration", str(mapped)
    )
    assert code == 0 and f"{agent}, fitted prior" in out
    assert load_prior(written).name == "people"
    assert "on held-out rules:" in out and json.loads(mapped.read_text())["agent"] == agent
    code, _, err = run(capsys, "bench", "prior", "--agent", "random", "--rules-file", str(rules))
    assert code == 2 and "no productions parameter" in err


@pytest.mark.parametrize(
    "text",
    [
        "(" * 98 + "red(card)" + ")" * 98,
        "not " * 500 + "red(card)",
        "rank(card) == 9223372036854775808",
        "rank(card) == " + "9" * 5000,
        "rank(card) + 9223372036854775807 > 0",
    ],
)
def test_rules_show_of_a_hostile_text_is_one_short_line_and_exit_2(capsys, text):
    code, _, err = run(capsys, "rules", "show", text)
    assert code == 2
    assert err.startswith("eleusis-lab: bad rule: line 1, column ")
    assert err.count("\n") == 1 and len(err) < 300


@pytest.mark.parametrize(
    "text",
    [  # issue 26: 10.5 s and 8-18 s before the time limit of a rule typed
        "length > suit(prev)",
        "suit(last) <= (run(suit) + abs(abs(min(suit(last), length))))",
    ],
)
def test_rules_show_of_a_rule_over_the_analysis_budget_shows_the_rest(capsys, text):
    started = time.perf_counter()
    code, out, err = run(capsys, "rules", "show", text)
    assert time.perf_counter() - started < 4  # 1 s, and a block of work past it
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[2].startswith("complexity:  4 nodes, 17.0 bits, ") or "11 nodes" in lines[2]
    assert "acceptance over the analysis budget (more than 1 s)" in lines[2]
    # the check is over the budget, unless an earlier test left the rule's contexts
    # explored in this process: then it is answered at once, and answered right
    over = "verdict:     unknown: the check is over the analysis budget (more than 1 s)"
    if lines[3] != over:
        assert lines[3] == f"verdict:     {check_acceptable(parse(text))}"
    assert lines[4] == "parsed:" and "right cards:" in lines


@pytest.mark.parametrize(
    "text",
    [
        "length > suit(prev)",
        "suit(last) <= (run(suit) + abs(abs(min(suit(last), length))))",
    ],
)
def test_rules_equiv_of_a_rule_over_the_analysis_budget_is_one_line_and_exit_2(capsys, text):
    started = time.perf_counter()
    code, out, err = run(capsys, "rules", "equiv", text, "red(card)")
    assert code == 2 and out == ""  # nothing printed before the answer
    assert err.startswith("eleusis-lab: rule '") and err.count("\n") == 1
    assert err.endswith(
        " is over the analysis budget: analysing it takes more than 1 s (the time limit of a"
        " rule checked on demand)\n"
    )
    assert time.perf_counter() - started < 4  # 1 s, and a block of work past it


@pytest.mark.parametrize(
    ("game", "agents"),
    [
        ("classic", "oracle,random,random"),
        ("four-to-eight", "oracle,random,random,random"),
        ("delphi", "oracle,random"),
        ("new-eleusis", "oracle,random,random,random"),
    ],
)
def test_play_match_writes_a_record_that_replays(capsys, tmp_path, game, agents):
    path = tmp_path / "match.json"
    argv = ["play", "--game", game, "--match", "--agents", agents, "--seed", "2"]
    code, _, _ = run(capsys, *argv, "--rule", "red_only", "--json", str(path))
    assert code == 0 and json.loads(path.read_text())["kind"] == "match"
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0 and out.startswith(f"OK: the {game} match of seed 2 (")
    record = json.loads(path.read_text())
    record["totals"][0] += 1
    path.write_text(json.dumps(record))
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 1 and out.startswith("MISMATCH: totals: recorded")


def test_replay_checks_every_game_of_a_match_and_reads_one_without_format(capsys, tmp_path):
    path = tmp_path / "match.json"
    argv = ["play", "--match", "--agents", "oracle,random,random", "--seed", "1"]
    run(capsys, *argv, "--json", str(path))
    record = json.loads(path.read_text())
    for field in ("format", "kind", "game"):  # as written before matches had a format
        del record[field]
    path.write_text(json.dumps(record))
    assert run(capsys, "replay", str(path))[0] == 0
    record["games"][3]["dealer_score"] += 1
    path.write_text(json.dumps(record))
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 1 and out.startswith("MISMATCH: game 3: dealer score: recorded")
    record["games"][3]["dealer_score"] -= 1
    record["dealers"][0] = 1
    path.write_text(json.dumps(record))
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 1 and "game 0: dealt by 1" in out


def test_ctrl_c_in_a_command_is_one_line_exit_130(capsys, monkeypatch):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr("eleusis_lab.cli._rules_list", interrupted)
    code, out, err = run(capsys, "rules", "list")
    assert (code, err) == (130, "eleusis-lab: interrupted\n")


def test_play_stopped_by_ctrl_c_shows_the_rule_and_exits_130(capsys, request):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    classic = dataclasses.replace(GAMES["classic"], play=interrupted)
    register_game(classic, replace=True)
    request.addfinalizer(lambda: unregister_game("classic"))
    code, out, err = run(capsys, "play", "--rule", "suit_cycle", "--seed", "1")
    assert code == 130 and err == ""
    assert out.splitlines()[1:] == [
        "game stopped: interrupted (Ctrl-C)",
        "the secret rule: suit(card) == (suit(last) + 1) mod 4 (suit_cycle)",
    ]
