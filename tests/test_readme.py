"""The README's agent example is the real module, so the doctested class cannot drift."""

import inspect
from pathlib import Path

from eleusis_agents.examples import ColourPairs

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_shows_the_example_agent_verbatim():
    assert inspect.getsource(ColourPairs).rstrip() in README.read_text(encoding="utf-8")


def test_example_agent_fits_in_twenty_lines():
    assert len(inspect.getsource(ColourPairs).rstrip().splitlines()) <= 20
