"""The formula graph of an enumeration: operation codes, literal sets, syntax trees.

The enumerator (`eleusis_lab.rules.enumerator`) stores each expression it keeps as one
column of a graph, one graph for numbers and one for true/false values: an operation
code (``I_*`` for numbers, ``B_*`` for true/false), up to three children (columns of a
graph) and an argument (a literal, a constant's or feature's index, a modulus, the
operator of a comparison, a literal set). `formula_node` writes a column back as a
syntax tree; a `HypothesisSpace` keeps the graphs to write its hypotheses' formulas.

Examples
--------
>>> import numpy as np
>>> from eleusis_lab.rules.grammar import GRAMMARS
>>> suit = INT_FEATURES.index("suit")
>>> ints = np.array([[I_FEAT, I_FEAT], [0, 1], [0, 0], [0, 0], [suit, suit]])  # of card, last
>>> bools = np.array([[B_CMP], [1], [0], [0], [CMP_OPS.index("<")]])  # column 1 < column 0
>>> str(formula_node(GRAMMARS["standard"], (ints, bools), "bool", 0))
'suit(card) > suit(last)'
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from eleusis_lab.rules.ast import (
    CONSTANTS,
    INT_FEATURES,
    PREDICATES,
    BinOp,
    Call,
    Const,
    If,
    In,
    Neg,
    Node,
    Not,
    Num,
    Var,
)
from eleusis_lab.rules.grammar import INT_CONSTANT_NAMES, Grammar
from eleusis_lab.rules.prior import CARDS

__all__ = [
    "BEQ_OPS",
    "CMP_OPS",
    "formula_node",
    "literal_sets",
]

# Operation codes of the formula graph (int and bool graphs have their own codes).
I_LIT, I_CONST, I_FEAT, I_ADD, I_SUB, I_MUL, I_MIN, I_MAX, I_MOD, I_NEG, I_ABS = range(11)
B_TRUE, B_FALSE, B_LPR, B_PRED_CARD, B_PRED_INT, B_CMP, B_IN = range(7)
B_NOT, B_AND, B_OR, B_BEQ, B_IF = range(7, 12)
#: The operators of ``B_BEQ``, by its argument.
BEQ_OPS = ("==", "!=")
#: The operators of ``B_CMP``, by its argument: ``>`` and ``>=`` are ``<`` and ``<=``
#: with the operands swapped.
CMP_OPS = ("==", "!=", "<", "<=")


@functools.cache
def literal_sets(grammar: Grammar) -> tuple[list, np.ndarray, dict[int, Node]]:
    """The literal sets of ``x in {...}`` of a grammar, cheapest first: a list of
    (values, negated), their bits (the values' own included), and the node that writes
    each value (a named constant where it is cheaper than the literal).

    >>> from eleusis_lab.rules.grammar import GRAMMARS
    >>> sets, bits, nodes = literal_sets(GRAMMARS["arithmetic"])
    >>> sets[0], str(nodes[11])
    (((0, 1), False), 'jack')
    """
    costs = grammar.prior.costs
    best = {v: (costs.literal(v), Num(v)) for v in grammar.numbers}
    for name in grammar.constants:  # a named constant can be cheaper than the literal
        value = CONSTANTS[name][1]
        if value not in best or best[value][0] > costs.constant(name):
            best[value] = (costs.constant(name), Const(name))
    sets, bits = [], []
    for size in grammar.set_sizes:
        for values in itertools.combinations(sorted(v for v in best if v < 63), size):
            items = sum(best[v][0] for v in values)
            for negated in (False, True):
                sets.append((values, negated))
                bits.append(costs.set_head(size, negated) + items)
    order = np.argsort(bits, kind="stable")
    set_bits = np.array(bits, dtype=float)[order] if sets else np.zeros(0)
    return [sets[i] for i in order], set_bits, {v: node for v, (_, node) in best.items()}


def _reads_card(node: Node) -> bool:
    return any(isinstance(n, Var) and n.name == "card" for n in node.walk())


def _is_constant(node: Node) -> bool:
    return not any(isinstance(n, Var) for n in node.walk())


def _oriented(left: Node, right: Node) -> bool:
    """Whether to swap the operands of a symmetric operator: `card` first, numbers last."""

    def score(node):
        return (_reads_card(node), not _is_constant(node))

    return score(right) > score(left)


def formula_node(grammar: Grammar, graphs, kind: str, index: int) -> Node:
    """The syntax tree of formula ``index`` of kind ``"int"`` or ``"bool"`` in ``graphs``
    (the int and bool graphs of an enumeration, each (5, n) int32: operation code,
    children ``a``, ``b``, ``c`` and argument), operands of symmetric operators in
    reading order (`card` first, numbers last)."""
    graph = graphs[0] if kind == "int" else graphs[1]
    op, a, b, c, arg = (int(x) for x in graph[:, index])

    def sub(kind_, i):
        return formula_node(grammar, graphs, kind_, i)

    if kind == "int":
        if op == I_LIT:
            return Num(arg)
        if op == I_CONST:
            return Const(INT_CONSTANT_NAMES[arg])
        if op == I_FEAT:
            return Call(INT_FEATURES[arg], (Var(CARDS[a]),))
        if op == I_MOD:
            return BinOp("mod", sub("int", a), Num(arg))
        if op == I_NEG:
            return Neg(sub("int", a))
        if op == I_ABS:
            return Call("abs", (sub("int", a),))
        left, right = sub("int", a), sub("int", b)
        if op in (I_ADD, I_MUL, I_MIN, I_MAX) and _oriented(left, right):
            left, right = right, left
        if op in (I_MIN, I_MAX):
            return Call("min" if op == I_MIN else "max", (left, right))
        return BinOp({I_ADD: "+", I_SUB: "-", I_MUL: "*"}[op], left, right)
    if op == B_TRUE:
        return Const("true")
    if op == B_FALSE:
        return Const("false")
    if op == B_LPR:
        return Var("last_play_right")
    if op == B_PRED_CARD:
        return Call(list(PREDICATES)[arg], (Var(CARDS[a]),))
    if op == B_PRED_INT:
        return Call(list(PREDICATES)[arg], (sub("int", a),))
    if op == B_CMP:
        name, left, right = CMP_OPS[arg], sub("int", a), sub("int", b)
        if _oriented(left, right):
            left, right = right, left
            name = {"<": ">", "<=": ">="}.get(name, name)
        return BinOp(name, left, right)
    if op == B_IN:
        return _set_node(grammar, sub("int", a), arg)
    if op == B_NOT:
        return Not(sub("bool", a))
    if op in (B_AND, B_OR):
        return BinOp("and" if op == B_AND else "or", sub("bool", a), sub("bool", b))
    if op == B_BEQ:
        left, right = sub("bool", a), sub("bool", b)
        if _oriented(left, right):
            left, right = right, left
        return BinOp("==" if arg == 0 else "!=", left, right)
    return If(sub("bool", a), sub("bool", b), sub("bool", c))  # B_IF


def _set_node(grammar: Grammar, item: Node, index: int) -> Node:
    sets, _, nodes = literal_sets(grammar)
    values, negated = sets[index]
    return In(item, tuple(nodes[v] for v in values), negated)
