"""The rule language as a player who declares is told it: what a rule can read, with
examples (the text `eleusis_agents.prompts` keeps in ``language.txt``). A person at the
terminal (`eleusis_agents.human`) and a language model (`eleusis_agents.llm`) read the
same text.
"""

from __future__ import annotations

from importlib.resources import files

__all__ = ["rule_language"]


def rule_language() -> str:
    """The rule language's vocabulary and examples, as a few lines of text.

    >>> text = rule_language()
    >>> text.splitlines()[0], "run(color)" in text, "empty" in text
    ('THE RULE LANGUAGE', True, True)
    """
    text = files("eleusis_agents").joinpath("prompts", "language.txt")
    return text.read_text(encoding="utf-8").strip()
