"""The docstring examples of the agents, run under the package's installed name.

The agents' folder is ``agents/`` but the package installs as ``eleusis_agents``; pytest
would import the folder's files as ``agents.*``, a second copy of every module, so its
doctest collection leaves the folder out and this test runs each module's examples.
"""

import doctest
import importlib
import pkgutil

import pytest

import eleusis_agents

MODULES = sorted(m.name for m in pkgutil.iter_modules(eleusis_agents.__path__, "eleusis_agents."))


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_of_each_agent_module_hold(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=True)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {name} fail"


def test_every_module_is_found():
    assert {"eleusis_agents.bayes", "eleusis_agents.simple", "eleusis_agents.human"} <= set(MODULES)
