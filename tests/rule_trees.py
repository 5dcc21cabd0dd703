"""Test helpers for the rule language: random well-typed syntax trees, and a reference
evaluator written independently of the vectorised one (plain Python, one card at a time).

The strategies build trees of every node kind with the types the checker expects:
``bool_trees(depth)`` for whole rules, ``int_trees(depth)`` for numbers.
"""

from __future__ import annotations

from functools import cache

from hypothesis import strategies as st

from eleusis_lab.cards import Card
from eleusis_lab.rules.ast import (
    ARITHMETIC,
    COMPARISONS,
    CONSTANTS,
    INT_FEATURES,
    PREDICATES,
    RUN_FEATURES,
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
from eleusis_lab.rules.context import Context

# -- strategies -----------------------------------------------------------------------

CARD_VARS = st.sampled_from(["card", "last", "prev"]).map(Var)
INT_CONSTANTS = sorted(name for name, (kind, _) in CONSTANTS.items() if kind == "int")
BOOL_CONSTANTS = sorted(name for name, (kind, _) in CONSTANTS.items() if kind == "bool")
CARD_PREDICATES = sorted(name for name, kinds in PREDICATES.items() if "card" in kinds)
INT_PREDICATES = sorted(name for name, kinds in PREDICATES.items() if "int" in kinds)


def _int_leaves():
    return st.one_of(
        st.integers(0, 30).map(Num),
        st.sampled_from(INT_CONSTANTS).map(Const),
        st.just(Var("length")),
        st.builds(lambda f, c: Call(f, (c,)), st.sampled_from(INT_FEATURES), CARD_VARS),
        st.sampled_from(RUN_FEATURES).map(Run),
    )


def _bool_leaves():
    return st.one_of(
        st.sampled_from(BOOL_CONSTANTS).map(Const),
        st.sampled_from(["empty", "last_play_right"]).map(Var),
        st.builds(lambda p, c: Call(p, (c,)), st.sampled_from(CARD_PREDICATES), CARD_VARS),
    )


def int_trees(depth: int = 3):
    """Well-typed integer expressions, at most ``depth`` levels of operators deep."""
    # deferred: a short repr (hypothesis prints strategies, and these nest deeply)
    return st.deferred(lambda: _int_trees(depth))


def bool_trees(depth: int = 3):
    """Well-typed rules (true/false expressions), at most ``depth`` operators deep."""
    return st.deferred(lambda: _bool_trees(depth))


@cache
def _int_trees(depth: int):
    if depth == 0:
        return _int_leaves()
    sub, cond = _int_trees(depth - 1), _bool_trees(depth - 1)
    arithmetic = [op for op in ARITHMETIC if op != "mod"]
    return st.one_of(
        _int_leaves(),
        st.builds(Neg, sub),
        st.builds(BinOp, st.sampled_from(arithmetic), sub, sub),
        # mod only by a positive literal, as the checker demands
        st.builds(lambda left, n: BinOp("mod", left, Num(n)), sub, st.integers(1, 13)),
        st.builds(lambda a: Call("abs", (a,)), sub),
        st.builds(lambda f, a, b: Call(f, (a, b)), st.sampled_from(["min", "max"]), sub, sub),
        st.builds(If, cond, sub, sub),
    )


@cache
def _bool_trees(depth: int):
    if depth == 0:
        return _bool_leaves()
    # numbers as deep as the rule: int_trees(depth) only nests rules of depth - 1
    sub, num = _bool_trees(depth - 1), _int_trees(depth)
    return st.one_of(
        _bool_leaves(),
        st.builds(lambda p, a: Call(p, (a,)), st.sampled_from(INT_PREDICATES), num),
        st.builds(Not, sub),
        st.builds(BinOp, st.sampled_from(["and", "or"]), sub, sub),
        st.builds(BinOp, st.sampled_from(COMPARISONS), num, num),
        st.builds(BinOp, st.sampled_from(["==", "!="]), sub, sub),
        st.builds(
            In,
            num,
            st.lists(num, min_size=1, max_size=3).map(tuple),
            st.booleans(),
        ),
        st.builds(If, sub, sub, sub),
    )


@st.composite
def contexts(draw, max_length: int = 5):
    """A main line of up to ``max_length`` cards (faces may repeat) and a verdict."""
    faces = draw(st.lists(st.integers(0, 51), max_size=max_length))
    line = tuple(Card(face % 13 + 1, face // 13) for face in faces)
    return Context(line, draw(st.sampled_from([None, True, False])))


# -- reference evaluator --------------------------------------------------------------
# Written from the semantics in evaluate.py's docstring, not from its code: ``None`` is
# "undefined" (a card that is not there yet), and an undefined verdict counts as right.

PRIME_RANKS = {2, 3, 5, 7, 11, 13}
CONSTANT_VALUES = {
    "true": True,
    "false": False,
    "black": 0,
    "red": 1,
    "clubs": 0,
    "diamonds": 1,
    "hearts": 2,
    "spades": 3,
    "ace": 1,
    "jack": 11,
    "queen": 12,
    "king": 13,
}
CARD_FEATURES = {
    "rank": lambda c: c.rank,
    "suit": lambda c: c.suit,
    "color": lambda c: 1 if c.suit in (1, 2) else 0,
    "parity": lambda c: c.rank % 2,
    "face": lambda c: 1 if c.rank >= 11 else 0,
    "high": lambda c: 1 if c.rank >= 8 else 0,
    "prime": lambda c: 1 if c.rank in PRIME_RANKS else 0,
}
ON_CARD = {
    "red": lambda c: c.suit in (1, 2),
    "black": lambda c: c.suit in (0, 3),
    "odd": lambda c: c.rank % 2 == 1,
    "even": lambda c: c.rank % 2 == 0,
    "face": lambda c: c.rank >= 11,
    "number": lambda c: c.rank <= 10,
    "low": lambda c: c.rank <= 7,
    "high": lambda c: c.rank >= 8,
    "prime": lambda c: c.rank in PRIME_RANKS,
}
ON_INT = {
    "odd": lambda x: x % 2 == 1,
    "even": lambda x: x % 2 == 0,
    "prime": lambda x: x in PRIME_RANKS,  # an int is read as a rank
}
COMPARE = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}
ARITH = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "mod": lambda a, b: a % b,  # Python: never negative for a positive divisor
}


def run_length(line: tuple[Card, ...], feature: str) -> int:
    if not line:
        return 0
    value, count = CARD_FEATURES[feature](line[-1]), 0
    for card in reversed(line):
        if CARD_FEATURES[feature](card) != value:
            break
        count += 1
    return count


def reference_verdict(node: Node, card: Card, context: Context) -> bool:
    """Whether ``card`` is right in ``context``, computed one card at a time."""
    line = context.main_line
    env = {
        "card": card,
        "last": line[-1] if line else None,
        "prev": line[-2] if len(line) >= 2 else None,
        "length": len(line),
        "empty": not line,
        "last_play_right": context.last_play_right,
    }
    value = _value(node, env, line)
    return True if value is None else bool(value)


def _value(node, env, line):  # noqa: C901 - one case per node kind
    def value(sub):
        return _value(sub, env, line)

    if isinstance(node, Num):
        return node.value
    if isinstance(node, Const):
        return CONSTANT_VALUES[node.name]
    if isinstance(node, Var):
        return env[node.name]
    if isinstance(node, Run):
        return run_length(line, node.feature)
    if isinstance(node, Call):
        if node.func in ("abs", "min", "max"):
            args = [value(arg) for arg in node.args]
            if None in args:
                return None
            return {"abs": abs, "min": min, "max": max}[node.func](*args)
        arg = value(node.args[0])
        if arg is None:
            return None
        if isinstance(node.args[0], Var) and node.args[0].name in ("card", "last", "prev"):
            if node.func in ON_CARD:
                return ON_CARD[node.func](arg)
            return CARD_FEATURES[node.func](arg)
        return ON_INT[node.func](arg)
    if isinstance(node, Neg | Not):
        operand = value(node.operand)
        if operand is None:
            return None
        return -operand if isinstance(node, Neg) else not operand
    if isinstance(node, In):
        item, values = value(node.item), [value(v) for v in node.values]
        if item is None or None in values:
            return None
        return (item in values) != node.negated
    if isinstance(node, If):
        cond = value(node.cond)
        if cond is None:
            return None
        return value(node.then) if cond else value(node.orelse)
    if isinstance(node, BinOp):
        left = value(node.left)
        if node.op in ("and", "or"):  # left to right: a defined left side may settle it
            if left is None:
                return None
            if (node.op == "and") != bool(left):
                return bool(left)
            return value(node.right)
        right = value(node.right)
        if left is None or right is None:
            return None
        if node.op in ARITH:
            return ARITH[node.op](left, right)
        return COMPARE[node.op](left, right)
    raise TypeError(node)
