"""The agent registry: entry-point names, module:Class specs and their errors."""

import pytest

from eleusis_agents.simple import OracleAgent, RandomAgent
from eleusis_lab.registry import (
    AgentSpecError,
    UnknownAgentError,
    agent_class,
    available_agents,
    make_agent,
    parse_agent_list,
    split_params,
)


def test_builtin_names_are_registered():
    agents = available_agents()
    assert agents["random"] == "eleusis_agents.simple:RandomAgent"
    assert agents["oracle"] == "eleusis_agents.simple:OracleAgent"
    assert list(agents) == sorted(agents)


def test_make_agent_by_name_with_params():
    assert isinstance(make_agent("random"), RandomAgent)
    oracle = make_agent("oracle", choice="first")
    assert isinstance(oracle, OracleAgent) and oracle.get_params() == {"choice": "first"}
    assert make_agent("random") is not make_agent("random")


def test_make_agent_by_module_class():
    assert type(make_agent("eleusis_agents.simple:RandomAgent")) is RandomAgent
    assert agent_class(" eleusis_agents.simple:OracleAgent ") is OracleAgent


def test_unknown_name_lists_the_known_names():
    with pytest.raises(UnknownAgentError) as caught:
        make_agent("nobody")
    message = str(caught.value)
    assert "'nobody'" in message and "oracle" in message and "random" in message
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_such_module_xyz:Agent", "cannot import module 'no_such_module_xyz'"),
        ("no_such_module_xyz:Agent", "run from its folder with that folder on the path"),
        ("eleusis_agents.simple:NoSuchAgent", "has no 'NoSuchAgent'"),
        ("eleusis_lab.cards:Card", "'Card' is not an Agent subclass"),
        ("eleusis_lab.cards:N_FACES", "is not an Agent subclass"),
        ("eleusis_agents.simple:", "expected 'module:Class'"),
        (":RandomAgent", "expected 'module:Class'"),
        ("", "a name or 'module:Class'"),
    ],
)
def test_bad_specs_name_the_problem(spec, message):
    with pytest.raises(AgentSpecError, match=message) as caught:
        make_agent(spec)
    if spec:
        assert repr(spec.strip()) in str(caught.value)


def test_unknown_parameter():
    with pytest.raises(AgentSpecError, match="takes no parameter 'depth'"):
        make_agent("random", depth=3)


def test_parse_agent_list():
    agents = parse_agent_list("random, oracle,random")
    assert [type(a) for a in agents] == [RandomAgent, OracleAgent, RandomAgent]
    assert len({id(a) for a in agents}) == 3
    assert [type(a) for a in parse_agent_list("eleusis_agents.simple:OracleAgent")] == [OracleAgent]
    with pytest.raises(UnknownAgentError, match="'nobody'"):
        parse_agent_list("random,nobody")
    for bad in ("", "random,,oracle", " , "):
        with pytest.raises(AgentSpecError, match="comma-separated"):
            parse_agent_list(bad)


def test_parameters_in_the_spec():
    agent = make_agent("oracle(choice=first)")
    assert isinstance(agent, OracleAgent) and agent.choice == "first"
    agent = make_agent("eleusis_agents.simple:OracleAgent(choice='first')")
    assert agent.choice == "first"
    assert make_agent("oracle(choice=first)", choice="random").choice == "random"  # given wins
    agents = parse_agent_list("random, oracle(choice=first), oracle")
    assert [type(a) for a in agents] == [RandomAgent, OracleAgent, OracleAgent]
    assert [a.choice for a in agents[1:]] == ["first", "random"]
    assert split_params("m:C(size=3, names=('a', 'b'), on=True, none=None, word=w)") == (
        "m:C",
        {"size": 3, "names": ("a", "b"), "on": True, "none": None, "word": "w"},
    )


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("oracle(first)", "name\\(key=value"),
        ("oracle(choice=first", "name\\(key=value"),
        ("(choice=first)", "name\\(key=value"),
        ("oracle(choice=)", "name\\(key=value"),
        ("oracle(**x)", "name\\(key=value"),
        ("oracle(choice=open('x'))", "the value of 'choice' is not a literal"),
        ("oracle(choice=__import__('os'))", "not a literal"),
        ("oracle(choice=(a, b))", "not a literal"),
        ("oracle(depth=3)", "takes no parameter 'depth'"),
    ],
)
def test_bad_parameters_in_the_spec_are_parsed_not_run(spec, message):
    with pytest.raises(AgentSpecError, match=message):
        make_agent(spec)


# -- issue 26: agent strings an adversary writes ---------------------------------------------


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (".x:X", "the module '.x' is not a module name"),
        ("../etc:passwd", "the module '../etc' is not a module name"),
        ("..eleusis_agents.simple:RandomAgent", "is not a module name"),
        ("/etc/passwd:X", "is not a module name"),
        ("eleusis agents:X", "is not a module name"),
        ("eleusis_agents.simple:Random Agent", "the class 'Random Agent' is not a class name"),
    ],
)
def test_a_module_that_is_no_module_name_is_refused_in_one_line_unimported(spec, message):
    with pytest.raises(AgentSpecError, match=message) as caught:
        make_agent(spec)
    assert "\n" not in str(caught.value) and repr(spec) in str(caught.value)


def test_a_module_that_raises_on_import_is_one_line(tmp_path, monkeypatch):
    (tmp_path / "explodes_on_import.py").write_text("raise RuntimeError('boom')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(AgentSpecError) as caught:
        make_agent("explodes_on_import:Agent")
    assert str(caught.value) == (
        "agent 'explodes_on_import:Agent': cannot import module 'explodes_on_import':"
        " RuntimeError: boom"
    )


@pytest.mark.parametrize(
    "spec", ["bayes(noise=0.1, noise=0.2)", "oracle(choice=first, choice=random)"]
)
def test_a_parameter_given_twice_is_refused(spec):
    name = spec.split("(")[1].split("=")[0]
    with pytest.raises(AgentSpecError, match=f"the parameter '{name}' is given twice"):
        make_agent(spec)
    with pytest.raises(AgentSpecError, match="given twice"):
        split_params(spec)


@pytest.mark.parametrize(
    "argv",
    [
        ["play", "--agents", ".x:X", "--seed", "1"],
        ["play", "--agents", "../etc:passwd", "--seed", "1"],
        ["play", "--agents", ".x:X", "--seed", "1", "--isolate"],
        ["bench", "agents", "--agents", ".x:X"],
        ["bench", "agents", "--agents", "random,../etc:passwd"],
        ["play", "--agents", "bayes(noise=0.1, noise=0.2),random", "--seed", "1"],
        ["bench", "agents", "--agents", "oracle(choice=first, choice=first)"],
    ],
)
def test_the_command_line_says_so_in_one_line_exit_2(capsys, argv):
    from eleusis_lab.cli import main

    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("eleusis-lab: ") and err.count("\n") == 1
    assert "is not a module name" in err or "is given twice" in err
