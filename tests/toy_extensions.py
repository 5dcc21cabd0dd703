"""A measure and a dealer kind from outside the toolkit, for tests/test_extending.py.

Nothing in ``eleusis_lab`` names them: the tests register the measure (or declare it
as an entry point) and name the dealer by ``toy_extensions:Reds`` or an entry point.
"""

from eleusis_lab.dealers import ChosenRule, Dealer
from eleusis_lab.errors import ConfigError
from eleusis_lab.rules import parse
from eleusis_lab.rules.complexity import Measure


def text_length(rule):
    """How many characters the rule's text has."""
    return len(rule.text)


TEXT_LENGTH = Measure(
    "text_length", text_length, "int64", label="length of the rule's text (characters)"
)


class Reds(Dealer):
    """Deals the rule of one colour, every game: ``red(card)`` or ``black(card)``."""

    name = "reds"

    def __init__(self, colour: str = "red"):
        self.colour = colour
        if colour not in ("red", "black"):
            raise ConfigError(f"dealer.colour: red or black, got {colour!r}")

    def choose_rule(self, rng):
        return ChosenRule(parse(f"{self.colour}(card)"), arm=self.colour)


class NotADealer:
    """A class that is no `Dealer`."""
