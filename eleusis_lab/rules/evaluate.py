"""Vectorised evaluation of a rule over many contexts and cards at once.

`compile_rule` turns a syntax tree into a function of an *environment*: a dict
from slot names (see `eleusis_lab.rules.context`) and ``"card"`` to integer numpy
arrays that broadcast together, typically contexts down the rows and the 52 faces
across the columns. The function returns a boolean array: the card is right.

A rule that reads a card that does not exist yet (``last`` on an empty main line,
``prev`` before the second card, the previous verdict before the first play) is
*undefined* there, and an undefined verdict counts as right: "if a rule needs two or
more cards, the first card is always right". Undefinedness is tracked per element,
and ``and``, ``or`` and ``if`` look only at the operands they need, left to right,
as a card player would.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from eleusis_lab.cards import COLOR, FEATURES, PARITY, PRIME, RANK
from eleusis_lab.rules.ast import (
    CONSTANTS,
    INT_FEATURES,
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
from eleusis_lab.rules.context import NO_CARD, OUTCOME_NONE, OUTCOME_RIGHT

# A compiled node maps an environment to (values, undefined); undefined is None
# when the node is defined everywhere, which keeps the common case cheap.
Compiled = Callable[[dict], tuple[np.ndarray, np.ndarray | None]]

_IS_RANK_PRIME = np.zeros(14, dtype=bool)
_IS_RANK_PRIME[[2, 3, 5, 7, 11, 13]] = True

#: The predicates on a card face, as a table of the 52 faces (``red``, ``odd`` ...).
PREDICATES_ON_FACE = {
    "red": COLOR == 1,
    "black": COLOR == 0,
    "odd": PARITY == 1,
    "even": PARITY == 0,
    "face": RANK >= 11,
    "number": RANK <= 10,
    "low": RANK <= 7,
    "high": RANK >= 8,
    "prime": PRIME == 1,
}
#: The predicates on a number (``odd``, ``even``, ``prime``), reading it as a rank.
PREDICATES_ON_INT = {
    "odd": lambda x: x % 2 == 1,
    "even": lambda x: x % 2 == 0,
    "prime": lambda x: _IS_RANK_PRIME[np.clip(x, 0, 13)] & (x >= 0) & (x <= 13),
}
_ARITH = {"+": np.add, "-": np.subtract, "*": np.multiply, "mod": np.mod}
_COMPARE = {
    "==": np.equal,
    "!=": np.not_equal,
    "<": np.less,
    "<=": np.less_equal,
    ">": np.greater,
    ">=": np.greater_equal,
}


def _either(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a | b


def _card_types(node: Node) -> bool:
    return isinstance(node, Var) and node.name in ("card", "last", "prev")


def compile_rule(node: Node) -> Callable[[dict], np.ndarray]:
    """Compile a checked rule into ``env -> bool array`` (undefined counts as right)."""
    compiled = _compile(node)

    def rule(env: dict) -> np.ndarray:
        value, undefined = compiled(env)
        return value if undefined is None else value | undefined

    return rule


def _compile(node: Node) -> Compiled:  # noqa: C901 - one case per node type
    if isinstance(node, Num | Const):
        value = np.int64(node.value if isinstance(node, Num) else CONSTANTS[node.name][1])
        if isinstance(node, Const) and CONSTANTS[node.name][0] == "bool":
            value = np.bool_(value)
        return lambda env: (value, None)
    if isinstance(node, Var):
        return _compile_var(node.name)
    if isinstance(node, Run):
        slot = "run:" + node.feature
        return lambda env: (env[slot], None)
    if isinstance(node, Call):
        return _compile_call(node)
    if isinstance(node, Neg):
        operand = _compile(node.operand)

        def negate(env):
            value, undefined = operand(env)
            return -value, undefined

        return negate
    if isinstance(node, Not):
        operand = _compile(node.operand)

        def invert(env):
            value, undefined = operand(env)
            return ~value, undefined

        return invert
    if isinstance(node, In):
        item = _compile(node.item)
        values = [_compile(v) for v in node.values]
        negated = node.negated

        def member(env):
            x, undefined = item(env)
            found = False
            for value_fn in values:
                value, value_undefined = value_fn(env)
                found = found | (x == value)
                undefined = _either(undefined, value_undefined)
            return (~found if negated else found), undefined

        return member
    if isinstance(node, If):
        cond, then, orelse = _compile(node.cond), _compile(node.then), _compile(node.orelse)

        def choose(env):
            c, c_undefined = cond(env)
            a, a_undefined = then(env)
            b, b_undefined = orelse(env)
            undefined = c_undefined
            if a_undefined is not None:
                undefined = _either(undefined, c & a_undefined)
            if b_undefined is not None:
                undefined = _either(undefined, ~c & b_undefined)
            return np.where(c, a, b), undefined

        return choose
    if isinstance(node, BinOp):
        return _compile_binop(node)
    raise TypeError(f"not a rule node: {node!r}")


def _compile_var(name: str) -> Compiled:
    if name == "card":
        return lambda env: (env["card"], None)
    if name in ("last", "prev"):
        return lambda env: (env[name], env[name] == NO_CARD)
    if name == "length":
        return lambda env: (env["length"], None)
    if name == "empty":
        return lambda env: (env["length"] == 0, None)
    if name == "last_play_right":
        return lambda env: (env["outcome"] == OUTCOME_RIGHT, env["outcome"] == OUTCOME_NONE)
    raise KeyError(name)


def _compile_call(node: Call) -> Compiled:
    args = [_compile(arg) for arg in node.args]
    func = node.func
    # rank, suit, color, parity of a card face. Not FEATURES: face, high and prime are
    # also predicates, which must give booleans (for `not`) and read an int as a rank.
    if func in INT_FEATURES:
        table, (arg,) = FEATURES[func], args
        return lambda env: _apply(table, arg(env))
    if func in PREDICATES_ON_FACE:
        (arg,) = args
        if _card_types(node.args[0]):
            table = PREDICATES_ON_FACE[func]
            return lambda env: _apply(table, arg(env))
        on_int = PREDICATES_ON_INT[func]

        def predicate(env):
            value, undefined = arg(env)
            return on_int(value), undefined

        return predicate
    if func == "abs":
        (arg,) = args

        def absolute(env):
            value, undefined = arg(env)
            return np.abs(value), undefined

        return absolute
    pick = np.minimum if func == "min" else np.maximum
    left, right = args

    def extreme(env):
        a, a_undefined = left(env)
        b, b_undefined = right(env)
        return pick(a, b), _either(a_undefined, b_undefined)

    return extreme


def _apply(table: np.ndarray, value_undefined):
    faces, undefined = value_undefined
    return table[faces], undefined  # a missing card (-1) reads a dummy face, masked


def _compile_binop(node: BinOp) -> Compiled:
    left, right = _compile(node.left), _compile(node.right)
    op = node.op
    if op == "and":

        def both(env):
            a, a_undefined = left(env)
            b, b_undefined = right(env)
            undefined = a_undefined
            if b_undefined is not None:  # a defined false left side settles it
                undefined = _either(undefined, a & b_undefined)
            return a & b, undefined

        return both
    if op == "or":

        def either(env):
            a, a_undefined = left(env)
            b, b_undefined = right(env)
            undefined = a_undefined
            if b_undefined is not None:  # a defined true left side settles it
                undefined = _either(undefined, ~a & b_undefined)
            return a | b, undefined

        return either
    function = _ARITH.get(op) or _COMPARE[op]

    def binary(env):
        a, a_undefined = left(env)
        b, b_undefined = right(env)
        return function(a, b), _either(a_undefined, b_undefined)

    return binary
