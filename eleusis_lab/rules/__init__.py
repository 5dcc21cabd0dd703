"""The rule language: parse, print, judge, measure and compare rules.

>>> from eleusis_lab.rules import parse, Context
>>> from eleusis_lab.cards import parse_cards
>>> rule = parse("suit(card) == (suit(last) + 1) mod 4")
>>> rule.legal_cards(Context(tuple(parse_cards("5H"))))[:3]
[Card('AS'), Card('2S'), Card('3S')]
"""

from eleusis_lab.rules.context import Context
from eleusis_lab.rules.parser import RuleSyntaxError
from eleusis_lab.rules.rule import Rule, parse

__all__ = ["Context", "Rule", "RuleSyntaxError", "parse"]
