"""Name, type and range checking of a parsed rule, and what the rule reads.

Besides names and types, `check` bounds the numbers a rule computes: every number
(literal, feature, ``length``, run, and every sum, product, ...) must stay within
``MAX_VALUE`` (2**62) in size, taking a main line or a run to hold at most
``MAX_LINE`` (1,000,000) cards. Rules are judged with 64-bit integers, so this is what
keeps arithmetic exact: a rule that could wrap around is refused, never misjudged.

>>> from eleusis_lab.rules.parser import parse_expr
>>> text = "length * length * length * length > 0"
>>> try:
...     check(parse_expr(text), text)
... except RuleSyntaxError as error:
...     print(error.column, error.message)
26 '*' here can reach 1e+24, beyond 2**62, the largest number a rule may compute
"""

from __future__ import annotations

import difflib

from eleusis_lab.cards import FEATURES as FACE_FEATURES
from eleusis_lab.rules.ast import (
    ARITHMETIC,
    CONSTANTS,
    INT_FEATURES,
    INT_FUNCTIONS,
    MAX_LINE,
    MAX_VALUE,
    PREDICATES,
    RUN_FEATURES,
    VARIABLES,
    BinOp,
    Call,
    Const,
    If,
    In,
    Neg,
    Node,
    Not,
    Num,
    Run,
    Var,
)
from eleusis_lab.rules.parser import RuleSyntaxError, check_height

FUNCTIONS = (*INT_FEATURES, *PREDICATES, *INT_FUNCTIONS, "run")


def check(node: Node, text: str) -> None:
    """Raise `RuleSyntaxError` unless ``node`` is a well-typed rule (a ``bool``) whose
    numbers stay within ``MAX_VALUE``."""
    check_height(node, text)  # trees built by hand, too, before the recursive walks
    kind = type_of(node, text)
    if kind != "bool":
        raise RuleSyntaxError(
            f"a rule must be true or false for a card, but this is {_article(kind)}"
            " (compare it, e.g. 'rank(card) > rank(last)')",
            text,
            node.pos,
        )
    largest(node, text)


def largest(node: Node, text: str) -> int:
    """The largest size a number computed by ``node`` can have (1 for a true/false);
    raises `RuleSyntaxError` where a number could exceed ``MAX_VALUE``.

    ``node`` must be well typed. ``x mod m`` lies in ``0..m-1`` and ``if`` is the larger
    of its branches.

    >>> from eleusis_lab.rules.parser import parse_expr
    >>> largest(parse_expr("abs(rank(card) - 20) * 3"), "")
    99
    """
    sizes = [largest(child, text) for child in node.children()]
    if isinstance(node, Num):
        size = node.value
    elif isinstance(node, Const):
        size = CONSTANTS[node.name][1]
    elif isinstance(node, Var):
        size = MAX_LINE if node.name == "length" else 1
    elif isinstance(node, Run):
        size = MAX_LINE
    elif isinstance(node, Call) and node.func in INT_FEATURES:
        size = int(FACE_FEATURES[node.func].max())
    elif (isinstance(node, Call) and node.func in INT_FUNCTIONS) or isinstance(node, Neg):
        size = max(sizes)
    elif isinstance(node, If):
        size = max(sizes[1:])
    elif isinstance(node, BinOp) and node.op in ("+", "-"):
        size = sizes[0] + sizes[1]
    elif isinstance(node, BinOp) and node.op == "*":
        size = sizes[0] * sizes[1]
    elif isinstance(node, BinOp) and node.op == "mod":
        size = sizes[1] - 1
    else:  # predicates, comparisons, logic: true or false
        size = 1
    if size > MAX_VALUE:
        what = f"{node.op!r}" if isinstance(node, BinOp) else "this"
        raise RuleSyntaxError(
            f"{what} here can reach {size:.3g}, beyond 2**62, the largest number a rule"
            " may compute",
            text,
            node.pos,
        )
    return size


def _article(kind: str) -> str:
    return {"int": "a number", "card": "a card", "bool": "true/false"}[kind]


def _unknown(name: str, known, what: str, text: str, pos: int):
    close = difflib.get_close_matches(name, list(known), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise RuleSyntaxError(f"unknown {what} {name!r}{hint}", text, pos)


def type_of(node: Node, text: str) -> str:
    """The type of ``node`` ('bool', 'int' or 'card'); raises on any error below it."""

    def expect(child: Node, *kinds: str) -> str:
        kind = type_of(child, text)
        if kind not in kinds:
            wanted = " or ".join(_article(k) for k in kinds)
            raise RuleSyntaxError(f"expected {wanted} here, not {_article(kind)}", text, child.pos)
        return kind

    if isinstance(node, Num):
        return "int"
    if isinstance(node, Const):
        return CONSTANTS[node.name][0]
    if isinstance(node, Var):
        if node.name not in VARIABLES:
            _unknown(node.name, [*VARIABLES, *CONSTANTS], "name", text, node.pos)
        return VARIABLES[node.name]
    if isinstance(node, Run):
        if node.feature not in RUN_FEATURES:
            _unknown(node.feature, RUN_FEATURES, "feature", text, node.pos)
        return "int"
    if isinstance(node, Call):
        return _call_type(node, text, expect)
    if isinstance(node, Neg):
        expect(node.operand, "int")
        return "int"
    if isinstance(node, Not):
        expect(node.operand, "bool")
        return "bool"
    if isinstance(node, In):
        expect(node.item, "int")
        for value in node.values:
            expect(value, "int")
        return "bool"
    if isinstance(node, If):
        expect(node.cond, "bool")
        kind = expect(node.then, "int", "bool")
        expect(node.orelse, kind)
        return kind
    if isinstance(node, BinOp):
        if node.op in ("and", "or"):
            expect(node.left, "bool")
            expect(node.right, "bool")
            return "bool"
        if node.op in ("==", "!="):
            kind = expect(node.left, "int", "bool")
            expect(node.right, kind)
            return "bool"
        expect(node.left, "int")
        if node.op == "mod" and not (isinstance(node.right, Num) and node.right.value > 0):
            raise RuleSyntaxError(
                "'mod' takes a positive whole number on its right, e.g. 'mod 13'",
                text,
                node.right.pos,
            )
        expect(node.right, "int")
        return "int" if node.op in ARITHMETIC else "bool"
    raise TypeError(f"not a rule node: {node!r}")


def _call_type(node: Call, text: str, expect) -> str:
    func, args = node.func, node.args
    if func not in FUNCTIONS:
        _unknown(func, FUNCTIONS, "function", text, node.pos)
    arity = INT_FUNCTIONS.get(func, 1)
    if len(args) != arity:
        raise RuleSyntaxError(
            f"{func}() takes {arity} argument{'s' if arity > 1 else ''}, got {len(args)}",
            text,
            node.pos,
        )
    if func in INT_FEATURES:
        expect(args[0], "card")
        return "int"
    if func in PREDICATES:
        expect(args[0], *PREDICATES[func])
        return "bool"
    for arg in args:
        expect(arg, "int")
    return "int"


def result_type(node: Node) -> str:
    """The type of a node of a checked rule, without re-checking what is below it."""
    if isinstance(node, Var):
        return VARIABLES[node.name]
    if isinstance(node, Const):
        return CONSTANTS[node.name][0]
    if isinstance(node, If):
        return result_type(node.then)
    if isinstance(node, Not | In) or (isinstance(node, BinOp) and node.op not in ARITHMETIC):
        return "bool"
    if isinstance(node, Call) and node.func in PREDICATES:
        return "bool"
    return "int"


def slots_read(node: Node) -> tuple[str, ...]:
    """The context slots a rule reads, in a fixed order.

    Slots are ``last``, ``prev``, ``length``, ``outcome`` (the previous verdict) and
    ``run:FEATURE``. ``empty`` is read through ``length``.
    """
    names = set()
    for sub in node.walk():
        if isinstance(sub, Var) and sub.name != "card":
            names.add({"empty": "length", "last_play_right": "outcome"}.get(sub.name, sub.name))
        elif isinstance(sub, Run):
            names.add("run:" + sub.feature)
    order = ["last", "prev", "length", "outcome", *("run:" + f for f in RUN_FEATURES)]
    return tuple(slot for slot in order if slot in names)
