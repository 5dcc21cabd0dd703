"""A rule of the rule language read aloud: `to_english`, the English a participant sees
beside the rule he types (the browser's checker, `eleusis_lab.web.checker`).

The words follow the syntax tree one node at a time, so they say what the rule says,
not what it means: ``rank(card) > rank(last)`` reads "the card's rank is greater than
the last card's rank". Parentheses are kept where ``and`` and ``or`` mix.

Examples
--------
>>> from eleusis_lab.rules import parse
>>> to_english(parse("color(card) != color(last)"))
"a card is right when the card's color differs from the last card's color"
>>> to_english(parse("if odd(last) then red(card) else black(card)"))
'a card is right when: if the last card is odd, the card is red; otherwise the card is black'
>>> to_english(parse("(rank(card) - rank(last)) mod 13 in {1, 2, 3}"))
"a card is right when (the card's rank minus the last card's rank) modulo 13 is one of 1, 2, 3"
>>> to_english(parse("run(color) < 2 or suit(card) == hearts"))
"a card is right when the run of cards of one color at the end of the main line is less than \
2, or the card's suit is hearts"
"""

from __future__ import annotations

from eleusis_lab.rules import Rule
from eleusis_lab.rules.ast import BinOp, Call, Const, If, In, Neg, Node, Not, Num, Run, Var

__all__ = ["to_english"]

_VARIABLES = {
    "card": "the card",
    "last": "the last card",
    "prev": "the card before the last",
    "length": "the number of cards on the main line",
    "empty": "the main line is empty",
    "last_play_right": "the previous play was right",
}
_CONSTANTS = {"true": "always", "false": "never"}
_FEATURES = {"rank": "rank", "suit": "suit", "color": "color", "parity": "parity"}
_PREDICATES = {
    "red": "is red",
    "black": "is black",
    "odd": "is odd",
    "even": "is even",
    "face": "is a face card (J, Q, K)",
    "number": "is a number card (A to 10)",
    "low": "is low (A to 7)",
    "high": "is high (8 to K)",
    "prime": "is prime (2, 3, 5, 7, J, K)",
}
_RUNS = {
    "color": "cards of one color",
    "suit": "cards of one suit",
    "rank": "cards of one rank",
    "parity": "cards of one parity",
    "face": "face cards or non-face cards",
    "high": "high cards or low cards",
    "prime": "prime cards or non-prime cards",
}
_COMPARE = {
    "==": "is",
    "!=": "differs from",
    "<": "is less than",
    "<=": "is at most",
    ">": "is greater than",
    ">=": "is at least",
}
_ARITHMETIC = {"+": "plus", "-": "minus", "*": "times", "mod": "modulo"}


def to_english(rule: Rule | Node) -> str:
    """``rule`` (a `eleusis_lab.rules.Rule` or a syntax tree) in English: "a card is
    right when ...".

    >>> from eleusis_lab.rules import parse
    >>> to_english(parse("not (face(card) and empty)"))
    'a card is right when it is not so that (the card is a face card (J, Q, K) and the \
main line is empty)'
    """
    expr = rule.expr if isinstance(rule, Rule) else rule
    said = _say(expr)
    return f"a card is right when{':' if isinstance(expr, If) else ''} {said}"


def _say(node: Node) -> str:
    if isinstance(node, Num):
        return str(node.value)
    if isinstance(node, Const):
        return _CONSTANTS.get(node.name, node.name)
    if isinstance(node, Var):
        return _VARIABLES.get(node.name, node.name)
    if isinstance(node, Run):
        kind = _RUNS.get(node.feature, f"cards of one {node.feature}")
        return f"the run of {kind} at the end of the main line"
    if isinstance(node, Call):
        return _call(node)
    if isinstance(node, Neg):
        return f"minus {_term(node.operand)}"
    if isinstance(node, Not):
        return f"it is not so that {_grouped(node.operand)}"
    if isinstance(node, In):
        values = ", ".join(_say(value) for value in node.values)
        return f"{_say(node.item)} is {'not ' if node.negated else ''}one of {values}"
    if isinstance(node, If):
        return f"if {_say(node.cond)}, {_say(node.then)}; otherwise {_say(node.orelse)}"
    if isinstance(node, BinOp):
        if node.op in ("and", "or"):
            return f"{_operand(node.left, node.op)}{',' * (node.op == 'or')} {node.op}" + (
                f" {_operand(node.right, node.op)}"
            )
        if node.op in _COMPARE:
            return f"{_say(node.left)} {_COMPARE[node.op]} {_say(node.right)}"
        return f"{_term(node.left)} {_ARITHMETIC.get(node.op, node.op)} {_term(node.right)}"
    return str(node)


def _call(node: Call) -> str:
    func, args = node.func, node.args
    if func in _FEATURES and len(args) == 1:
        return f"{_possessive(_say(args[0]))} {_FEATURES[func]}"
    if func in _PREDICATES and len(args) == 1:
        subject = args[0]
        if isinstance(subject, Var) and subject.name in ("card", "last", "prev"):
            return f"{_say(subject)} {_PREDICATES[func]}"
        return f"{_say(subject)} is {func}"  # a number: odd, even, prime
    if func == "abs" and len(args) == 1:
        return f"the size of {_term(args[0])}"
    if func in ("min", "max") and len(args) == 2:
        least = "smaller" if func == "min" else "larger"
        return f"the {least} of {_say(args[0])} and {_say(args[1])}"
    return str(node)


def _possessive(noun: str) -> str:
    return f"{noun}'s"


def _term(node: Node) -> str:
    """An operand of arithmetic: in parentheses when it is arithmetic itself."""
    said = _say(node)
    nested = isinstance(node, BinOp) and node.op in _ARITHMETIC or isinstance(node, If)
    return f"({said})" if nested else said


def _operand(node: Node, op: str) -> str:
    """An operand of ``and``/``or``: in parentheses when it is the other one, or an if."""
    said = _say(node)
    other = isinstance(node, BinOp) and node.op in ("and", "or") and node.op != op
    return f"({said})" if other or isinstance(node, If) else said


def _grouped(node: Node) -> str:
    """What ``not`` applies to: in parentheses unless it is one plain statement."""
    said = _say(node)
    plain = isinstance(node, Call | Var | Const) or (
        isinstance(node, BinOp) and node.op in _COMPARE
    )
    return said if plain else f"({said})"
