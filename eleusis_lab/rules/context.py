"""What a rule sees when a card is played: the main line and the previous verdict.

A rule reads a few *slots* of the context (see `slots_read`): ``last`` and ``prev``
(face indices, -1 when missing), ``length``, ``outcome`` (0 before any play,
1 right, 2 wrong) and ``run:FEATURE``. The slot values are the key under which a
rule caches its verdicts, and the columns the vectorised evaluator reads.
"""

from __future__ import annotations

from dataclasses import dataclass

from eleusis_lab.cards import FEATURES, Card, format_cards

NO_CARD = -1
OUTCOME_NONE, OUTCOME_RIGHT, OUTCOME_WRONG = 0, 1, 2
_OUTCOMES = {None: OUTCOME_NONE, True: OUTCOME_RIGHT, False: OUTCOME_WRONG}
#: Sets an attribute of the frozen context while it is made.
_set_attribute = object.__setattr__


@dataclass(frozen=True, init=False)
class Context:
    """The main line so far and the verdict of the previous play.

    Examples
    --------
    >>> from eleusis_lab.cards import parse_cards
    >>> ctx = Context(tuple(parse_cards("3H 7D 9S 2C")), last_play_right=False)
    >>> ctx.run("color"), ctx.slot("last"), ctx.slot("outcome")
    (2, 1, 2)
    """

    main_line: tuple[Card, ...] = ()
    last_play_right: bool | None = None

    def __init__(self, main_line: tuple[Card, ...] = (), last_play_right: bool | None = None):
        # One write of the whole dict, not one frozen write per field: engines and
        # learners make a context at every play.
        _set_attribute(
            self, "__dict__", {"main_line": main_line, "last_play_right": last_play_right}
        )

    def run(self, feature: str) -> int:
        """How many cards at the end of the main line share the last card's ``feature``."""
        values = FEATURES[feature]
        line = self.main_line
        if not line:
            return 0
        target, count = values[line[-1].face], 0
        for card in reversed(line):
            if values[card.face] != target:
                break
            count += 1
        return count

    def slot(self, name: str) -> int:
        line = self.main_line
        if name == "last":
            return line[-1].face if line else NO_CARD
        if name == "prev":
            return line[-2].face if len(line) >= 2 else NO_CARD
        if name == "length":
            return len(line)
        if name == "outcome":
            return _OUTCOMES[self.last_play_right]
        return self.run(name.removeprefix("run:"))

    def describe(self) -> str:
        """A short human description, e.g. ``after 4C 7S (previous play wrong)``."""
        if not self.main_line:
            text = "on an empty main line"
        else:
            shown = self.main_line[-3:]
            more = "... " if len(self.main_line) > len(shown) else ""
            text = f"after {more}{format_cards(shown)}"
        if self.last_play_right is not None:
            text += f" (previous play {'right' if self.last_play_right else 'wrong'})"
        return text
