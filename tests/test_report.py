"""``eleusis-lab report`` (eleusis_lab.report) on tiny real runs: files, inline page, errors."""

from __future__ import annotations

import json
import re
from xml.etree import ElementTree

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from eleusis_lab import load_results, run_experiment  # noqa: E402
from eleusis_lab.analysis import COMPLEXITY_COLUMNS, games_table  # noqa: E402
from eleusis_lab.cli import build_parser  # noqa: E402
from eleusis_lab.errors import ConfigError  # noqa: E402
from eleusis_lab.report import report_command, write_report  # noqa: E402

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
        "leaderboard",
        *(f"dealer_score_by_{measure}" for measure in varying_measures(spread_run)),
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
    assert "No adaptive dealer in this run" in page


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
    assert leaderboard.count("<tr>") == 1 + 6  # the header, 4 + 2 agents
    by_seat = page[page.index("<h2>By seat</h2>") : page.index("<h2>Figures</h2>")]
    assert "<th>seat</th>" in by_seat and by_seat.count("<tr>") > 1 + 6
    for agent in ("random", "oracle (sees the rule)", "tree", "bayes"):
        assert f"<td>{agent}</td>" in leaderboard


def test_report_of_an_adaptive_dealer_without_events(adaptive_run, adaptive_report):
    page = adaptive_report.read_text(encoding="utf-8")
    names = figure_names(page)
    assert names[0] == "leaderboard" and names[-1] == "adaptive_choices"
    assert "learning_curves" not in names and "example_game" not in names
    assert (adaptive_report.parent / "adaptive_choices.svg").is_file()
    assert "No events table (set events = true in the spec)" in page
    assert not (adaptive_run / "report").exists()  # written where it was asked


def test_report_of_a_fixed_dealer_notes_the_constant_complexity(tmp_path):
    out = tmp_path / "fixed"
    spec = {"name": "fixed", "games": 2, "dealer": "suit_cycle", "agents": ["random"] * 2}
    run_experiment(spec, out=out, progress=False)
    page = write_report(out, example_game=False).read_text(encoding="utf-8")
    assert figure_names(page) == ["leaderboard"]
    assert "the same for every rule dealt" in page


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
    assert printed.startswith(f"{tmp_path / 'report.html'} (")
    assert "note: No events table" in printed
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
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
    assert figure_names(page) == ["leaderboard", "prediction_accuracy"]
    assert "in Delphi the oracle places them" in page
    assert "<th>prediction accuracy</th>" in page and "<th>wrong cards</th>" not in page


def test_report_leads_with_the_answer_computed_from_the_games(spread_run, spread_report):
    """The first section is the slope of the dealer's score on bits, per line-up."""
    from eleusis_lab.analysis import complexity_effect

    page = spread_report.read_text(encoding="utf-8")
    sections = re.findall(r"<h2>([^<]+)</h2>", page)
    assert sections[0].startswith("The answer") and sections[1] == "Run"
    answer = page[page.index("<h2>The answer") : page.index("<h2>Run</h2>")]
    effect = complexity_effect(load_results(spread_run), "bits", by="lineup")
    for _, row in effect.iterrows():
        assert f"{row['lineup']} ({int(row['games'])} games of rules of" in answer
        if row["slope"] == row["slope"]:  # not NaN: the fit's figures, as the page says them
            assert f"95% CI {row['slope_low']:+.2f} to {row['slope_high']:+.2f}" in answer


def test_the_answer_without_a_dealer_score_says_so(tmp_path):
    out = tmp_path / "fixed"
    spec = {"name": "fixed", "games": 2, "dealer": "suit_cycle", "agents": ["random"] * 2}
    run_experiment(spec, out=out, progress=False)
    page = write_report(out, example_game=False).read_text(encoding="utf-8")
    assert "every rule dealt had the same description length" in page


def test_report_has_a_row_per_rule_dealt(spread_run, spread_report):
    page = spread_report.read_text(encoding="utf-8")
    by_rule = page[page.index("<h2>By rule</h2>") : page.index("<h2>Figures</h2>")]
    games = games_table(load_results(spread_run))
    dealt = games["rule_name"].where(games["rule_name"].notna(), games["rule"]).nunique()
    assert by_rule.count("<tr>") == 1 + dealt
    assert by_rule.count('<td class="num">') == 3 * dealt
