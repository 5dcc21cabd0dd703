"""Agent parameters are checked when the agent is made: one line, exit 2, before play."""

import time

import pytest

from eleusis_lab.cli import main
from eleusis_lab.errors import ConfigError
from eleusis_lab.registry import AgentSpecError, make_agent, parse_agent_list, split_params
from eleusis_lab.rules.enumerate import MAX_HYPOTHESES_LIMIT, build_space
from eleusis_lab.spec import load_spec

BAD = [
    ("bayes(grammar=standrd)", "unknown grammar 'standrd'"),
    ("bayes(noise=-1)", "noise must be in (0, 0.5), got -1"),
    ("bayes(noise='x')", "wrong type (noise='x')"),
    ("bayes(max_hypotheses=-5)", "max_hypotheses must be a whole number from 1 to 10**7"),
    ("bayes(max_hypotheses=True)", "max_hypotheses must be a whole number from 1 to 10**7"),
    ("bayes(max_hypotheses=1.5)", "max_hypotheses must be a whole number from 1 to 10**7"),
    ("bayes(max_hypotheses=1000000000000)", "got 1000000000000"),
    ("bayes-context(max_hypotheses=True)", "got True"),
    ("bayes-context(plain=2)", "plain must be in (0, 1), got 2"),
    ("oracle(choice=worst)", "choice must be 'random' or 'first', got 'worst'"),
    ('tree(max_depth="deep")', "max_depth must be None or an int >= 1, got 'deep'"),
    ("tree(max_depth=True)", "max_depth must be None or an int >= 1, got True"),
    ("tree(criterion=best)", "criterion must be one of gini, entropy, log_loss"),
    ("sklearn(refit_every=True)", "refit_every must be an int >= 1, got True"),
    ("sklearn(estimator=3)", "estimator must be a scikit-learn classifier, got 3"),
    ("human(window=0)", "window must be a whole number >= 1, got 0"),
]


@pytest.mark.parametrize("spec, message", BAD)
def test_a_bad_value_is_refused_when_the_agent_is_made(spec, message):
    with pytest.raises(AgentSpecError) as error:
        parse_agent_list(f"random, {spec}")
    text = str(error.value)
    assert message in text and "\n" not in text
    assert text.startswith(f"agent {split_params(spec)[0]!r}: ")


def test_the_limit_is_checked_before_any_building():
    start = time.perf_counter()
    with pytest.raises(ValueError, match="10\\*\\*7"):
        build_space("colours_suits", max_hypotheses=MAX_HYPOTHESES_LIMIT + 1, cache=False)
    with pytest.raises(ValueError, match="got True"):
        build_space("colours_suits", max_hypotheses=True, cache=False)
    assert time.perf_counter() - start < 1


def test_good_values_still_make_agents():
    assert make_agent("bayes", max_hypotheses=MAX_HYPOTHESES_LIMIT).max_hypotheses == 10**7
    assert make_agent("tree(max_depth=3, criterion=gini)").max_depth == 3
    assert make_agent("oracle(choice=first)").choice == "first"


@pytest.mark.parametrize("spec, message", BAD[:1] + BAD[9:11])
def test_the_command_line_stops_before_the_first_game(capsys, spec, message):
    code = main(["play", "--agents", f"random,{spec}", "--rule", "red(card)", "--seed", "1"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith("eleusis-lab: agent ") and message in err and err.count("\n") == 1


def test_a_spec_stops_before_the_first_game(capsys, tmp_path):
    spec = tmp_path / "bad.toml"
    spec.write_text(
        f'games = 2\ndealer = "red(card)"\nout = "{tmp_path / "out"}"\n'
        'agents = ["random", {name = "bayes", max_hypotheses = true}]\n'
    )
    code = main(["run", str(spec)])
    _, err = capsys.readouterr()
    assert code == 2 and not (tmp_path / "out").exists()
    assert err == (
        f"eleusis-lab: {spec}: agents[1]: agent 'bayes': max_hypotheses must be a whole"
        " number from 1 to 10**7, got True\n"
    )


SPELLINGS = [
    "oracle(choice=first)",
    {"name": "oracle", "choice": "first"},
    {"name": "oracle(choice=first)"},
    '{name = "oracle", choice = "first"}',
]


@pytest.mark.parametrize("entry", SPELLINGS)
def test_both_spellings_in_a_spec(entry):
    spec = load_spec({"games": 2, "dealer": "red(card)", "agents": [entry, "random"]})
    reference = load_spec({"games": 2, "dealer": "red(card)", "agents": [SPELLINGS[1], "random"]})
    agent = spec.cells[0].lineup.agents[0]
    assert (agent.name, agent.params) == ("oracle", {"choice": "first"})
    assert spec.cells[0].key == reference.cells[0].key  # the same cell, the same rows


def test_a_bad_value_in_a_spec_names_the_entry():
    with pytest.raises(ConfigError, match=r"^spec: agents\[0\]: agent 'oracle': .*'worst'$"):
        load_spec({"games": 2, "dealer": "red(card)", "agents": ["oracle(choice=worst)", "random"]})


@pytest.mark.parametrize("text", [s for s in SPELLINGS if isinstance(s, str)])
def test_both_spellings_on_the_command_line(text):
    agents = parse_agent_list(f"random, {text}, random")
    assert [type(a).__name__ for a in agents] == ["RandomAgent", "OracleAgent", "RandomAgent"]
    assert agents[1].choice == "first"


@pytest.mark.parametrize(
    "text, message",
    [("{name = oracle}", "not a TOML table"), ("{choice = 'first'}", "a table needs a name")],
)
def test_a_bad_table_on_the_command_line(text, message):
    with pytest.raises(AgentSpecError, match=message):
        parse_agent_list(text)
