"""The rule checker a participant sees as he types: `check_rule` says whether the text
is a rule of the language, where it is not (line, column, message), and reads it back
in English (`eleusis_lab.web.english.to_english`).

The text goes to `eleusis_lab.rules.parse` and nowhere else (the parser never runs
``eval``, and bounds a rule's tokens, depth and numbers); what comes back is plain data.
A text longer than `MAX_RULE_CHARS` is refused unread.

Examples
--------
>>> check_rule("color(card) != color(last)").english
"a card is right when the card's color differs from the last card's color"
>>> checked = check_rule("rank(card) > rank(lsat)")
>>> checked.ok, checked.column, checked.message
(False, 19, "unknown name 'lsat'; did you mean 'last'?")
>>> check_rule("   ").empty, check_rule("x" * 1000).message
(True, 'a rule is at most 300 characters here, this one has 1,000')
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from eleusis_lab.rules import RuleSyntaxError, parse
from eleusis_lab.web.english import to_english

__all__ = ["MAX_RULE_CHARS", "RuleCheck", "check_rule"]

#: The longest rule text a participant may type (the catalog's longest is ~120).
MAX_RULE_CHARS = 300


@dataclass(frozen=True)
class RuleCheck:
    """What the checker says of a text.

    Attributes
    ----------
    text : str
        The text as typed, stripped.
    ok : bool
        It is a rule of the language.
    rule : str or None
        Its canonical text (`eleusis_lab.rules.Rule.text`: comments and spacing gone),
        which the game is given; None when it is not a rule.
    english : str or None
        The rule in English.
    message : str or None
        What is wrong, when it is not a rule.
    line, column : int or None
        Where, counted from 1.
    """

    text: str
    ok: bool
    rule: str | None = None
    english: str | None = None
    message: str | None = None
    line: int | None = None
    column: int | None = None

    @property
    def empty(self) -> bool:
        """No text: nothing stated."""
        return not self.text

    def to_dict(self) -> dict[str, Any]:
        """The check as JSON data (what ``POST /check`` answers)."""
        return {**asdict(self), "empty": self.empty}


def check_rule(text: str) -> RuleCheck:
    """Check ``text`` as a rule; never raises for any string."""
    text = text.strip()
    if not text:
        return RuleCheck(text, ok=False)
    if len(text) > MAX_RULE_CHARS:
        message = f"a rule is at most {MAX_RULE_CHARS} characters here, this one has {len(text):,}"
        return RuleCheck(text[:MAX_RULE_CHARS], ok=False, message=message)
    try:
        rule = parse(text)
    except RuleSyntaxError as error:
        return RuleCheck(text, False, message=error.message, line=error.line, column=error.column)
    except (ValueError, RecursionError, OverflowError) as error:  # any other odd text
        return RuleCheck(text, False, message=str(error).splitlines()[0] if str(error) else "")
    return RuleCheck(text, True, rule=rule.text, english=to_english(rule))
