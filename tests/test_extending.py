"""Extending the toolkit from outside: a measure and a dealer kind that no file of
``eleusis_lab`` names (tests/toy_extensions.py) reach the rows, the dealers, the
analysis, the report and the command line."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
import pytest  # noqa: E402

from eleusis_lab.analysis import dealer_score_by_complexity  # noqa: E402
from eleusis_lab.cli import main  # noqa: E402
from eleusis_lab.dealers import DEALERS, BandDealer, make_dealer, rule_pool  # noqa: E402
from eleusis_lab.errors import ConfigError  # noqa: E402
from eleusis_lab.plots import measure_label, plot_dealer_score_panels  # noqa: E402
from eleusis_lab.report import write_report  # noqa: E402
from eleusis_lab.rules import complexity as measures_module  # noqa: E402
from eleusis_lab.rules.complexity import (  # noqa: E402
    Measure,
    complexity_columns,
    get_measure,
    measure_names,
    register_measure,
    unregister_measure,
)
from eleusis_lab.runner import run_experiment  # noqa: E402
from eleusis_lab.shards import row_schema  # noqa: E402
from eleusis_lab.spec import load_spec  # noqa: E402

TESTS = Path(__file__).parent
BUILT_IN_COLUMNS = [
    "rule_nodes",
    "rule_bits",
    "rule_acceptance",
    "rule_classes",
    "rule_learnability",
]
RULES = ["red_only", "suit_cycle", "color_alternation"]


@pytest.fixture
def toys(monkeypatch):
    """The module tests/toy_extensions.py, importable by name (as from a package)."""
    monkeypatch.syspath_prepend(str(TESTS))
    import toy_extensions

    return toy_extensions


@pytest.fixture
def text_length(toys):
    """The toy measure, registered for one test."""
    measure = register_measure(toys.TEXT_LENGTH)
    yield measure
    unregister_measure("text_length")


def forget_entry_points():
    measures_module.MEASURES.reload()
    DEALERS.__dict__.pop("_entries", None)


@pytest.fixture
def installed(toys, tmp_path, monkeypatch):
    """A package installed for one test that declares the toy measure and dealer as
    entry points, as its pyproject.toml would."""
    dist = tmp_path / "site" / "toy_extensions-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-extensions\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        "[eleusis_lab.dealers]\nreds = toy_extensions:Reds\n\n"
        "[eleusis_lab.measures]\ntext_length = toy_extensions:TEXT_LENGTH\n"
    )
    monkeypatch.syspath_prepend(str(dist.parent))
    forget_entry_points()
    yield dist
    forget_entry_points()


def spec(**changes):
    data = {
        "name": "toy",
        "games": 6,
        "shard_size": 3,
        "seed": 1,
        "dealer": {"kind": "catalog", "rules": RULES},
        "agents": ["random", "oracle"],
    }
    return {**data, **changes}


def cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- a measure --------------------------------------------------------------------------


def test_the_built_in_measures_keep_their_columns_and_order():
    assert measure_names() == ("nodes", "bits", "acceptance", "classes", "learnability")
    names = row_schema().names
    at = names.index("rule_name") + 1
    assert names[at : at + 6] == [*BUILT_IN_COLUMNS, "dealer"]
    assert complexity_columns() == (
        "rule_bits",
        "rule_nodes",
        "rule_acceptance",
        "rule_classes",
        "rule_learnability",
    )


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_registered_measure_is_a_column_of_the_rows(text_length, tmp_path, jobs):
    table = run_experiment(spec(), out=tmp_path, jobs=jobs, progress=False)
    names = row_schema().names
    assert names[names.index("rule_learnability") + 1] == "rule_text_length"
    assert list(table.columns) == names
    assert (table["rule_text_length"] == table["rule"].str.len()).all()
    assert pq.read_table(tmp_path / "rows").schema.field("rule_text_length").type == "int64"


def test_a_registered_measure_reaches_the_analysis_the_plots_and_the_report(text_length, tmp_path):
    table = run_experiment(spec(), out=tmp_path / "run", progress=False)
    assert complexity_columns()[-1] == "rule_text_length"
    by_length = dealer_score_by_complexity(table, "text_length", bins=None)
    assert by_length.attrs["measure"] == "rule_text_length"
    lengths = sorted({len(get_rule_text(name)) for name in RULES})
    assert sorted(by_length["low"].unique()) == lengths
    assert measure_label("rule_text_length") == "length of the rule's text (characters)"
    figure = plot_dealer_score_panels(table)
    assert len(figure.axes) == 6
    assert figure.axes[-1].get_xlabel() == "length of the rule's text (characters)"
    plt.close("all")
    write_report(tmp_path / "run", tmp_path / "report")
    assert (tmp_path / "report" / "dealer_score_by_rule_text_length.svg").is_file()


def get_rule_text(name):
    from eleusis_lab.rules.catalog import get_rule

    return get_rule(name).text


def test_a_registered_measure_is_on_the_command_line(text_length, capsys):
    code, out, _ = cli(capsys, "rules", "list")
    header, *lines = out.splitlines()
    assert code == 0 and header.split()[1:7] == [
        "nodes",
        "bits",
        "accept",
        "classes",
        "learn",
        "text_length",
    ]
    red = next(line for line in lines if line.startswith("red_only "))
    assert red.split()[1:8] == ["2", "7.9", "50%", "1", "3.0", "9", "yes"]
    code, out, _ = cli(capsys, "rules", "show", "red_only")
    assert "complexity:  2 nodes, 7.9 bits, 50% of faces right on average, 1 context class," in out
    assert "1 context class, learnt in 3.0 plays, text_length 9\n" in out
    code, out, _ = cli(capsys, "list", "measures")
    assert code == 0 and out.splitlines()[-1].split(None, 1) == [
        "text_length",
        "length of the rule's text (characters), a whole number (column rule_text_length)",
    ]


def test_a_dealer_deals_by_a_registered_measure(text_length):
    pool = rule_pool(size=300)
    assert list(pool.columns)[2:7] == ["nodes", "bits", "acceptance", "classes", "text_length"]
    assert (pool["text_length"] == pool["rule"].str.len()).all()
    dealer = make_dealer({"kind": "band", "measure": "text_length", "low": 9, "high": 10})
    assert isinstance(dealer, BandDealer) and dealer.rules
    assert {len(rule) for rule in dealer.rules} == {9}
    import numpy as np

    chosen = dealer.choose_rule(np.random.default_rng(0))
    assert chosen.arm == "text_length [9, 10)" and len(chosen.rule.text) == 9


def test_a_run_does_not_resume_into_a_folder_of_other_measures(toys, tmp_path):
    run_experiment(spec(), out=tmp_path, progress=False)
    register_measure(toys.TEXT_LENGTH)
    try:
        with pytest.raises(ConfigError) as caught:
            run_experiment(spec(), out=tmp_path, progress=False)
    finally:
        unregister_measure("text_length")
    message = str(caught.value)
    assert len(message.splitlines()) == 1
    assert "written with other columns (without rule_text_length) than this run writes" in message
    assert "the complexity measures registered differ" in message
    again = run_experiment(spec(), out=tmp_path, progress=False)  # as it was written: fine
    assert again.attrs["shards_skipped"] == 2 and "rule_text_length" not in again


def test_measure_mistakes_are_clear(text_length):
    def f(rule):
        return 1

    with pytest.raises(ConfigError, match=r"unknown complexity measure 'txt_length' \(did you"):
        get_measure("txt_length")
    with pytest.raises(ConfigError, match="acceptance, classes, learnability, text_length"):
        make_dealer({"kind": "band", "measure": "text_lenght", "low": 1, "high": 2})
    with pytest.raises(ValueError, match="lower-case letters, digits and _"):
        Measure("Text Length", f)
    with pytest.raises(ValueError, match="dtype must be one of int64, float64"):
        Measure("letters", f, "str")
    with pytest.raises(ValueError, match="'name' cannot name a measure"):
        Measure("name", f)
    with pytest.raises(ValueError, match="'bits' is registered already"):
        register_measure(Measure("bits", f))
    assert register_measure(text_length) is text_length  # the same again: nothing happens
    with pytest.raises(ValueError, match="no measure 'nodes' was registered"):
        unregister_measure("nodes")


# -- a dealer kind ------------------------------------------------------------------------


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_dealer_of_ones_own_is_named_by_module_and_class(toys, tmp_path, jobs):
    dealer = {"kind": "toy_extensions:Reds", "colour": "black"}
    table = run_experiment(spec(dealer=dealer), out=tmp_path, jobs=jobs, progress=False)
    assert len(table) == 12 and (table["rule"] == "black(card)").all()
    assert set(table["dealer"]) == {"reds"} and set(table["arm"]) == {"black"}
    params = json.loads(table["dealer_params"].iloc[0])
    assert params == {"kind": "toy_extensions:Reds", "colour": "black"}
    assert type(make_dealer(params)) is toys.Reds  # get_params gives a spec back


def test_an_installed_dealer_kind_and_measure_are_found_by_name(installed, capsys, tmp_path):
    assert list(DEALERS.available())[-1] == "reds"
    assert DEALERS.available()["reds"] == "toy_extensions:Reds"
    dealer = make_dealer({"kind": "reds"})
    assert dealer.get_params() == {"kind": "reds", "colour": "red"}
    assert measure_names()[-1] == "text_length"
    # (tmp_path holds the installed package: results go in a folder of their own)
    table = run_experiment(spec(dealer={"kind": "reds"}), out=tmp_path / "out", progress=False)
    assert (table["rule"] == "red(card)").all() and (table["rule_text_length"] == 9).all()
    code, out, _ = cli(capsys, "list", "dealers")
    assert code == 0 and out.splitlines()[-1].split(None, 1) == [
        "reds",
        "Deals the rule of one colour, every game: red(card) or black(card).",
    ]
    code, out, _ = cli(capsys, "list", "measures")
    assert out.splitlines()[-1].startswith("text_length ")


def test_a_broken_installed_measure_is_one_line(installed):
    (installed / "entry_points.txt").write_text(
        "[eleusis_lab.measures]\nletters = toy_extensions:Nothing\n"
    )
    forget_entry_points()
    with pytest.raises(ConfigError) as caught:
        measure_names()
    assert str(caught.value).startswith(
        "measure entry point 'letters' (toy_extensions:Nothing): cannot load it:"
    )
    assert len(str(caught.value).splitlines()) == 1


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        (
            "sprad",
            "dealer.kind: unknown kind 'sprad' (did you mean 'spread'?); choose from fixed,"
            " catalog, band, spread, adaptive, or give 'module:Class' (a Dealer subclass)",
        ),
        (
            "toy_extensions:Nope",
            "dealer.kind: dealer kind 'toy_extensions:Nope': module 'toy_extensions' has no 'Nope'",
        ),
        (
            "toy_extensions:NotADealer",
            "dealer.kind: dealer kind 'toy_extensions:NotADealer': 'NotADealer' is not a"
            " Dealer subclass (eleusis_lab.dealers)",
        ),
        ("no_such_module:Reds", "dealer.kind: dealer kind 'no_such_module:Reds': cannot import"),
        (7, "dealer.kind: a dealer kind spec is a name or 'module:Class', got 7"),
    ],
)
def test_an_unknown_dealer_kind_is_one_line(toys, kind, message):
    with pytest.raises(ConfigError) as caught:
        make_dealer({"kind": kind})
    assert str(caught.value).startswith(message), str(caught.value)
    assert len(str(caught.value).splitlines()) == 1


def test_dealer_mistakes_in_a_spec_and_on_the_command_line(toys, tmp_path, capsys):
    with pytest.raises(ConfigError, match=r"^spec: dealer.kind: unknown kind 'sprad' \(did you"):
        load_spec(spec(dealer={"kind": "sprad"}))
    with pytest.raises(ConfigError, match=r"^spec: dealer.color: unknown key for a toy_ext"):
        load_spec(spec(dealer={"kind": "toy_extensions:Reds", "color": "red"}))
    with pytest.raises(ConfigError, match=r"^spec: dealer.colour: red or black, got 'green'"):
        load_spec(spec(dealer={"kind": "toy_extensions:Reds", "colour": "green"}))
    path = tmp_path / "study.toml"
    path.write_text('games = 2\nagents = ["random"]\ndealer = {kind = "toy_extensions:Bleus"}\n')
    code, out, err = cli(capsys, "run", str(path), "--out", str(tmp_path / "out"), "--quiet")
    assert code == 2 and len(err.splitlines()) == 1
    assert "dealer.kind: dealer kind 'toy_extensions:Bleus': module 'toy_extensions' has no" in err
