"""``eleusis-lab report`` (eleusis_lab.report) on tiny real runs: files, inline page, errors."""

from __future__ import annotations

import html
import json
import re
from xml.etree import ElementTree

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from eleusis_lab import load_results, run_experiment  # noqa: E402
from eleusis_lab.analysis import COMPLEXITY_COLUMNS, games_table  # noqa: E402
from eleusis_lab.cli import build_parser  # noqa: E402
from eleusis_lab.errors import ConfigError  # noqa: E402
from eleusis_lab.report import (  # noqa: E402
    MARKDOWN_BEGIN,
    MARKDOWN_END,
    answer_markdown,
    below_random_note,
    report_command,
    write_report,
)

POOL = {"grammar": "colours_suits", "size": 300}
BAYES = {"name": "bayes", "grammar": "colours_suits", "max_hypotheses": 200}


@pytest.fixture(scope="module")
def spread_run(tmp_path_factory):
    """Two line-ups against a spread dealer, with events and predictions."""
    out = tmp_path_factory.mktemp("spread")
    spec = {
        "name": "tiny-spread",
        "games": 4,
        "shard_size": 2,
        "events": True,
        "predictions": True,
        "dealer": {"kind": "spread", "measure": "bits", "bins": 3, **POOL},
        "config": {"hand_size": 6},
        "lineups": [
            {"name": "mixed", "agents": ["random", "oracle", "tree", BAYES]},
            {"name": "pair", "agents": ["random", BAYES]},
        ],
    }
    run_experiment(spec, out=out, progress=False)
    return out


@pytest.fixture(scope="module")
def spread_report(spread_run):
    return write_report(spread_run)


@pytest.fixture(scope="module")
def adaptive_run(tmp_path_factory):
    """An adaptive dealer, no events."""
    out = tmp_path_factory.mktemp("adaptive")
    spec = {
        "name": "tiny-adaptive",
        "games": 6,
        "shard_size": 3,
        "dealer": {"kind": "adaptive", "bins": 3, **POOL},
        "config": {"hand_size": 5},
        "agents": ["random", "oracle"],
    }
    run_experiment(spec, out=out, progress=False)
    return out


@pytest.fixture(scope="module")
def adaptive_report(adaptive_run, tmp_path_factory):
    return write_report(adaptive_run, out=tmp_path_factory.mktemp("web"), example_game=False)


def varying_measures(out) -> list[str]:
    games = games_table(load_results(out))
    return [measure for measure in COMPLEXITY_COLUMNS if games[measure].nunique() > 1]


def figure_names(page: str) -> list[str]:
    return re.findall(r'<figure id="([^"]+)">', page)


def test_report_writes_every_figure_the_data_support(spread_run, spread_report):
    assert spread_report == spread_run / "report" / "report.html"
    expected = [
        *(f"dealer_score_by_{measure}" for measure in varying_measures(spread_run)),
        "leaderboard",
        "score_distributions",
        "learning_curves",
        "prediction_accuracy",
        "example_game",
    ]
    assert len(expected) >= 5
    written = sorted(path.name for path in spread_report.parent.iterdir())
    files = [f"{name}.{suffix}" for name in expected for suffix in ("png", "svg")]
    assert written == sorted([*files, "report.html"])
    for name in expected:
        assert (spread_report.parent / f"{name}.png").read_bytes()[:4] == b"\x89PNG"
    page = spread_report.read_text(encoding="utf-8")
    assert figure_names(page) == expected
    assert "<h2>Notes</h2>" not in page  # every figure the spec asked for is there
    assert 'id="warnings"' not in page  # no turn cap, no fault


def test_report_page_is_self_contained(spread_report):
    page = spread_report.read_text(encoding="utf-8")
    assert page.count("<svg") == len(figure_names(page))
    assert "<img" not in page and "<link" not in page and "<script" not in page
    assert not re.search(r"\bsrc=", page)
    assert all(href.startswith("#") for href in re.findall(r'href="([^"]*)"', page))
    assert "<?xml" not in page and "<!DOCTYPE svg" not in page
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids))  # each inline SVG has ids of its own
    for svg in re.findall(r"<svg.*?</svg>", page, flags=re.DOTALL):
        ElementTree.fromstring(svg)  # well-formed XML
    referenced = set(re.findall(r'href="#([^"]+)"', page)) | set(
        re.findall(r"url\(#([^)]+)\)", page)
    )
    assert referenced <= set(ids)


def test_report_page_has_the_run_and_the_leaderboard(spread_run, spread_report):
    page = spread_report.read_text(encoding="utf-8")
    metadata = json.loads((spread_run / "metadata.json").read_text())
    assert "<h1>tiny-spread</h1>" in page
    assert metadata["runs"][-1]["started"] in page
    assert "mixed: random, oracle, tree, bayes(grammar=colours_suits" in page
    leaderboard = page[page.index("<h2>Leaderboard</h2>") : page.index("<h2>By seat</h2>")]
    titles = re.findall(r"<h3>([^<]+)</h3>", leaderboard)
    assert titles == ["Mean score per seat-game", "mixed", "pair"]  # the heading once
    assert leaderboard.count("<tr>") == 2 + 6  # a table per line-up: its header, 4 + 2 agents
    by_seat = page[page.index("<h2>By seat</h2>") : page.index("<h2>By rule</h2>")]
    assert "<th>seat</th>" in by_seat and by_seat.count("<tr>") > 2 + 6
    for agent in ("random", "oracle (sees the rule)", "tree", "bayes"):
        assert f"<td>{agent}</td>" in leaderboard


def test_report_of_an_adaptive_dealer_without_events(adaptive_run, adaptive_report):
    page = adaptive_report.read_text(encoding="utf-8")
    names = figure_names(page)
    assert names[-3:] == ["leaderboard", "score_distributions", "adaptive_choices"]
    assert "learning_curves" not in names and "example_game" not in names
    assert (adaptive_report.parent / "adaptive_choices.svg").is_file()
    assert "<h2>Notes</h2>" not in page  # the spec asked for no events: no note says so
    assert not (adaptive_run / "report").exists()  # written where it was asked


def test_report_of_a_fixed_dealer_notes_the_constant_complexity(tmp_path):
    out = tmp_path / "fixed"
    spec = {"name": "fixed", "games": 2, "dealer": "suit_cycle", "agents": ["random"] * 2}
    run_experiment(spec, out=out, progress=False)
    page = write_report(out, example_game=False).read_text(encoding="utf-8")
    assert figure_names(page) == ["leaderboard", "score_distributions"]
    answer = html.unescape(page[page.index("<h2>The answer") : page.index("<h2>Leaderboard</h2>")])
    assert "Rule description length (bits), rule size (nodes), " in answer
    assert ": the same for every rule dealt, so nothing to say about them." in answer
    assert "No regression of the dealer's score on the measures: no measure varies" in answer


def test_report_of_a_directory_without_results_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="no experiment results here"):
        write_report(tmp_path)
    with pytest.raises(ConfigError, match="no such directory"):
        write_report(tmp_path / "missing")
    (tmp_path / "metadata.json").write_text(json.dumps({"experiment": "x", "shards": ["a-0"]}))
    with pytest.raises(ConfigError, match="no games stored yet"):
        write_report(tmp_path)
    assert not (tmp_path / "report").exists()


def test_report_command_writes_the_same_report_again(
    adaptive_run, adaptive_report, tmp_path, capsys
):
    parser = build_parser()
    args = parser.parse_args(["report", str(adaptive_run), "--out", str(tmp_path), "--no-example"])
    assert args.run(args) == 0
    printed = capsys.readouterr().out
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    figures = len(figure_names(page))
    assert printed == f"{tmp_path / 'report.html'} ({figures} figures, PNG and SVG beside it)\n"
    assert page == adaptive_report.read_text(encoding="utf-8")  # no dates, stable ids
    svg = (tmp_path / "leaderboard.svg").read_bytes()
    assert svg == (adaptive_report.parent / "leaderboard.svg").read_bytes()
    args = parser.parse_args(["report", str(tmp_path / "nothing")])
    with pytest.raises(ConfigError):
        report_command(args)


def test_report_of_delphi_games(tmp_path):
    out = tmp_path / "delphi"
    spec = {
        "name": "delphi",
        "game": "delphi",
        "games": 2,
        "events": True,
        "dealer": "suit_cycle",
        "agents": ["oracle", "random"],
    }
    run_experiment(spec, out=out, progress=False)
    page = write_report(out, example_game=False).read_text(encoding="utf-8")
    assert figure_names(page) == ["leaderboard", "score_distributions", "prediction_accuracy"]
    assert "in Delphi the oracle places them" in page  # the spec asked for events
    assert "<th>prediction accuracy</th>" in page and "<th>wrong cards</th>" not in page


def test_report_has_a_row_per_rule_dealt(spread_run, spread_report):
    page = spread_report.read_text(encoding="utf-8")
    by_rule = page[page.index("<h2>By rule</h2>") : page.index("<h2>Distributions</h2>")]
    games = games_table(load_results(spread_run))
    dealt = games["rule_name"].where(games["rule_name"].notna(), games["rule"]).nunique()
    assert by_rule.count("<tr>") == 1 + dealt
    assert by_rule.count('<td class="num">') == 3 * dealt


def interval(value, low, high) -> str:
    return f"{value:+.2f} [{low:+.2f}, {high:+.2f}]"


def markdown_table(text: str, title: str) -> list[list[str]]:
    """The rows (header first) of the Markdown table after ``**title.**``."""
    lines = text[text.index(f"**{title}.**") :].splitlines()[2:]
    table = lines[: lines.index("")] if "" in lines else lines
    rows = [line.strip("|").split(" | ") for line in table]
    rows = [[cell.strip() for cell in row] for row in rows]
    return [rows[0], *rows[2:]]  # without the |---| line


def test_the_answer_agrees_with_the_analysis_functions(spread_run, spread_report, tmp_path):
    from eleusis_lab.analysis import POOLED, complexity_correlations, complexity_regression

    path = tmp_path / "answer.md"
    write_report(spread_run, out=tmp_path / "web", example_game=False, markdown=path)
    text = path.read_text(encoding="utf-8")
    assert text.startswith(MARKDOWN_BEGIN + "\n") and text.endswith(MARKDOWN_END + "\n")
    results = load_results(spread_run)
    games = len(games_table(results))
    assert f"From the {games} games of tiny-spread (2 line-ups): " in text

    correlations = complexity_correlations(results)
    table = markdown_table(text, "Rank correlations")
    assert table[0] == ["measure", "mixed (4 games)", "pair (4 games)", f"{POOLED} (8 games)"]
    for row in table[1:]:
        mine = correlations[correlations["measure"] == row[0]]
        expected = [
            "–" if r.rho != r.rho else interval(r.rho, r.ci_low, r.ci_high)
            for r in mine.itertuples()
        ]
        assert row[1:] == expected
    assert [row[0] for row in table[1:]] == list(dict.fromkeys(correlations["measure"]))

    regression = complexity_regression(results)
    if regression.empty:
        assert "**Regression.**" not in text
        assert (
            "No regression of the dealer's score on the measures:"
            f" {regression.attrs['notes'][-1].removesuffix(': no regression')}." in text
        )
    else:
        table = markdown_table(text, "Regression")
        assert len(table) == 1 + len(regression)
        for row, r in zip(table[1:], regression.itertuples(), strict=True):
            assert row[0].startswith(("intercept", f"line-up {r.term}", f"{r.term} (per SD"))
            assert row[1] == interval(r.coef, r.ci_low, r.ci_high)

    # the page says the same as the Markdown: each finding and each table cell
    page = html.unescape(spread_report.read_text(encoding="utf-8"))
    answer = page[page.index("<h2>The answer") : page.index("<h2>The dealer's score against")]
    findings = [line[2:] for line in text.splitlines() if line.startswith("- ")]
    assert findings and all(f"<li>{finding}</li>" in answer for finding in findings)
    assert answer.count('<td class="num">') == sum(
        len(row) - 1
        for title in ("Rank correlations", "Regression")
        if f"**{title}.**" in text
        for row in markdown_table(text, title)[1:]
    )


def test_the_answer_goes_between_the_marked_lines_of_an_existing_file(adaptive_run, tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"# Study\n\nBefore.\n\n{MARKDOWN_BEGIN}\nold\n{MARKDOWN_END}\n\nAfter.\n")
    write_report(adaptive_run, out=tmp_path / "web", example_game=False, markdown=readme)
    text = readme.read_text(encoding="utf-8")
    expected = answer_markdown(load_results(adaptive_run))
    assert text == f"# Study\n\nBefore.\n\n{MARKDOWN_BEGIN}\n{expected}{MARKDOWN_END}\n\nAfter.\n"
    write_report(adaptive_run, out=tmp_path / "web", example_game=False, markdown=readme)
    assert readme.read_text(encoding="utf-8") == text  # the same again

    unmarked = tmp_path / "notes.md"
    unmarked.write_text("mine\n")
    with pytest.raises(ConfigError, match="no place marked for the answer"):
        write_report(adaptive_run, out=tmp_path / "other", markdown=unmarked)
    assert unmarked.read_text() == "mine\n" and not (tmp_path / "other").exists()


def test_warnings_list_the_games_at_the_turn_cap_and_the_faults_per_agent_and_kind(tmp_path):
    out = tmp_path / "capped"
    spec = {
        "name": "capped",
        "games": 6,
        "seed": 4,  # deals both games that end at the cap and games that do not
        "dealer": {"kind": "spread", "measure": "bits", "bins": 2, **POOL},
        "config": {"max_turns": 1, "hand_size": 5},
        "agents": ["random", "tests.runner_agents:Faulty"],
    }
    run_experiment(spec, out=out, progress=False)
    results = load_results(out)
    games = games_table(results)
    capped = games[games["end"] == "turn_cap"]
    assert len(capped) and len(capped) < len(games)  # the test needs both kinds of game
    page = html.unescape(write_report(out, example_game=False).read_text(encoding="utf-8"))
    warnings = page[page.index('<h2 id="warnings">') : page.index("<h2>Run</h2>")]
    ended = f"{len(capped)} game{'s' * (len(capped) > 1)} of {len(games)} ended at the turn cap"
    assert ended in warnings
    for row in capped.itertuples():
        rule = row.rule_name if isinstance(row.rule_name, str) else row.rule
        assert f'<td>{rule}</td><td class="num">{row.game}</td>' in warnings
    faulty = results[results["agent"] == "tests.runner_agents:Faulty"]
    faults = int(faulty["faults"].sum())
    assert faults > 0 and results.loc[results["agent"] == "random", "faults"].sum() == 0
    row = (
        f'<td>tests.runner_agents:Faulty</td><td class="num">{(faulty["faults"] > 0).sum()}</td>'
        f'<td class="num">{faults}</td><td class="num">raised {faults}</td>'
    )
    assert row in warnings
    answer = page[page.index("<h2>The answer") : page.index("<h2>Leaderboard")]
    assert ended in answer


def test_the_command_line_defaults_are_the_reports():
    from eleusis_lab.report import BINS, MIN_BIN_GAMES

    args = build_parser().parse_args(["report", "results/x"])
    assert (args.bins, args.min_games, args.markdown, args.quiet) == (
        BINS,
        MIN_BIN_GAMES,
        None,
        False,
    )


def test_the_readmes_answer_is_a_generated_section():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert readme.count(MARKDOWN_BEGIN) == readme.count(MARKDOWN_END) == 1
    answer = readme[readme.index(MARKDOWN_BEGIN) : readme.index(MARKDOWN_END)]
    lead, *_ = answer.splitlines()[1:]
    assert lead.startswith("From the 10,000 games of rule_complexity (4 line-ups)")
    assert "**Rank correlations.**" in answer and "**Regression.**" in answer
    assert "--markdown README.md" in readme[: readme.index(MARKDOWN_BEGIN)]


def test_the_regression_caption_names_the_standard_errors_it_reports():
    # Two line-ups dealt the same ten deals: clustered by deal; every game its own deal:
    # the classical errors.
    rng = np.random.default_rng(5)
    bits = rng.normal(size=10)
    one = pd.DataFrame({"game": range(10), "seed": range(10), "rule_bits": bits})
    shared = pd.concat([one.assign(lineup=name, cell=name) for name in "ab"], ignore_index=True)
    shared["dealer_score"] = shared["rule_bits"] + rng.normal(size=20)
    clustered = answer_markdown(shared)
    assert "standard errors clustered by deal and 95% normal intervals" in clustered
    assert "classical" not in clustered
    assert "or of whole deals where games share one" in clustered
    alone = answer_markdown(shared.assign(seed=range(20)))
    assert "classical standard errors and 95% t intervals" in alone
    assert "clustered" not in alone


def _two_seats(scores, game_type="classic"):
    """Two classic games of random (seat 0) and tree (seat 1), and their phase-1 plays:
    random wrong on its 1st and 4th plays, tree right on its first two, wrong after."""
    results = pd.DataFrame(
        {
            "experiment": "e",
            "cell": "c",
            "lineup": "x",
            "game": [0, 0, 1, 1],
            "seat": [0, 1, 0, 1],
            "game_type": game_type,
            "agent": ["random", "tree"] * 2,
            "score": scores,
            "sees_rule": False,
        }
    )
    events = pd.DataFrame(
        {
            "experiment": "e",
            "cell": "c",
            "game": 0,
            "phase": 1,
            "seat": [0, 1] * 4,
            "index": range(8),
            "right": [False, True, True, True, True, False, False, False],
        }
    )
    return results, events


def test_a_learner_below_random_is_explained_with_its_early_and_late_wrong_plays():
    note = below_random_note(*_two_seats([5.0, 1.0, 4.0, 2.0]))
    # the window is half the phase's 8 plays; by hand: tree 0/2 then 2/2, random 1/2, 1/2
    assert note.startswith("Random ranks above tree. In phase 1 every card")
    assert "over the first 4 plays of the phase, then later, is tree 0% then 100%," in note
    assert "random 50% then 50%" in note
    assert below_random_note(*_two_seats([1.0, 5.0, 2.0, 4.0])) is None  # random last
    assert below_random_note(*_two_seats([5.0, 1.0, 4.0, 2.0], "delphi")) is None


def test_a_trial_says_so_above_its_answer_and_in_its_markdown(tmp_path):
    spec = {
        "name": "trial",
        "games": 8,
        "dealer": {"kind": "spread", "measure": "bits", "bins": 2, **POOL},
        "agents": ["random", "oracle"],
    }
    out = tmp_path / "run"
    run_experiment(spec, out=out, progress=False, games=2)
    page = write_report(out, example_game=False, markdown=tmp_path / "answer.md")
    text = page.read_text(encoding="utf-8")
    assert "(a trial)</h2>" in text
    assert "A trial of 2 games (2 per cell), not the study: the spec plays 8 per cell" in text
    assert (tmp_path / "answer.md").read_text().count("**A trial of 2 games") == 1
    run_experiment(spec, out=tmp_path / "full", progress=False)
    assert "a trial" not in write_report(tmp_path / "full", example_game=False).read_text()
