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
