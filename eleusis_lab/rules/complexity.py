"""How complex a rule is, four ways.

- ``nodes``: the number of nodes of its syntax tree.
- ``bits``: its description length under the grammar prior below, ``-log2 P(rule)``.
- ``acceptance``: the mean fraction of the 52 faces that are right over the contexts a
  game reaches, each weighted by how often it is reached: exactly, over a game of 52
  uniformly random plays from a random starter (`random_play_acceptance`).
- ``classes``: the number of different sets of right faces over all reachable
  contexts: how many situations the rule tells apart.

The grammar prior
-----------------
A rule is written top-down; each node is one choice among the productions allowed
for its type, every choice equally likely, so a node costs ``log2`` of the number of
alternatives, and the rule's bits are the sum over its nodes:

- a ``bool`` node is one of 9 kinds: ``and``, ``or``, ``not``, ``if``, an integer
  comparison (then one of 6 operators), an equality of two bools (``==`` or ``!=``),
  a set membership (``in`` or ``not in``, then the set's size in Elias-gamma code),
  a predicate (one of 9; ``odd``, ``even`` and ``prime`` then say in 1 bit whether
  their argument is a card or a number), or an atom (one of ``true``, ``false``,
  ``empty``, ``last_play_right``);
- an ``int`` node is one of 7 kinds: ``+ - *`` (one of 3), ``mod`` (its modulus in
  Elias-gamma code), negation, ``if``, a card feature (one of 4), ``abs``/``min``/
  ``max`` (one of 3), or an atom: a literal (Elias gamma of value + 1), a named
  constant (one of 10), ``length``, or ``run(feature)`` (one of 7 features);
- a ``card`` node is one of ``card``, ``last``, ``prev``.

The same prior serves as the Bayesian agents' prior over hypotheses.

Copies (``copies=True``, as in grammars with ``Grammar.copies``): people compare a
feature of the card with *the same* feature of another card far more often than with a
different one. With copies, a comparison, ``+``, ``-`` or true/false equality whose two
operands read one feature or predicate of two different cards (``rank(card) -
rank(last)``, ``red(card) != red(last)``) may write its right operand as a copy of the
left one: 1 bit, then the card. A rule's bits are those of its cheapest writing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from eleusis_lab.rules.ast import (
    COMPARISONS,
    CONSTANTS,
    INT_FEATURES,
    INT_FUNCTIONS,
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
from eleusis_lab.rules.check import result_type
from eleusis_lab.rules.reach import (
    DEFAULT_BUDGET,
    DEFAULT_MAX_LENGTH,
    Budget,
    random_play_acceptance,
    reachable,
)
from eleusis_lab.rules.rule import Rule

_BOOL_KINDS, _INT_KINDS, _CARD_CHOICES = 9, 7, 3
_INT_ATOMS = 4  # literal, named constant, length, run(feature)
_BOOL_ATOMS = 4  # true, false, empty, last_play_right
_INT_CONSTANTS = sum(1 for kind, _ in CONSTANTS.values() if kind == "int")


def elias_gamma_bits(n: int) -> int:
    """Bits of the Elias gamma code of a positive integer: ``2 * floor(log2 n) + 1``."""
    return 2 * (n.bit_length() - 1) + 1


def description_bits(node: Node, copies: bool = False) -> float:
    """``-log2`` of the rule's probability under the grammar prior (module docstring).

    ``copies``: whether operands may be copied (see the module docstring).

    Examples
    --------
    >>> from eleusis_lab.rules import parse
    >>> # a bool of 9 kinds, a predicate of 9, a card of 3: log2(9 * 9 * 3)
    >>> round(description_bits(parse("red(card)").expr), 2)
    7.92
    >>> alternation = parse("color(card) != color(last)").expr
    >>> round(description_bits(alternation) - description_bits(alternation, copies=True), 2)
    3.81
    """
    return _bits(node, result_type(node), copies)


#: What the copy of an operand costs: 1 bit, then the card.
COPY_BITS = 1 + math.log2(_CARD_CHOICES)


def is_copy(left: Node, right: Node) -> bool:
    """Whether ``right`` reads the feature or predicate ``left`` reads, of another card.

    >>> from eleusis_lab.rules import parse
    >>> is_copy(*parse("suit(card) == suit(last)").expr.children())
    True
    >>> is_copy(*parse("suit(card) == color(last)").expr.children())
    False
    """
    return (
        isinstance(left, Call)
        and isinstance(right, Call)
        and left.func == right.func
        and (left.func in INT_FEATURES or left.func in PREDICATES)
        and all(isinstance(arg, Var) for arg in (*left.args, *right.args))
        and left.args[0].name != right.args[0].name
    )


def _bits(node: Node, kind: str, copies: bool = False) -> float:
    log2 = math.log2
    if kind == "card":
        return log2(_CARD_CHOICES)
    kinds = _BOOL_KINDS if kind == "bool" else _INT_KINDS
    cost = log2(kinds)
    if isinstance(node, Num):
        return cost + log2(_INT_ATOMS) + elias_gamma_bits(node.value + 1)
    if isinstance(node, Const):
        choices = _BOOL_ATOMS if kind == "bool" else _INT_CONSTANTS
        return cost + (log2(_INT_ATOMS) if kind == "int" else 0) + log2(choices)
    if isinstance(node, Var):
        return cost + log2(_INT_ATOMS if kind == "int" else _BOOL_ATOMS)
    if isinstance(node, Run):
        return cost + log2(_INT_ATOMS) + log2(len(RUN_FEATURES))
    if isinstance(node, Not | Neg):
        return cost + _bits(node.operand, kind, copies)
    if isinstance(node, If):
        return (
            cost
            + _bits(node.cond, "bool", copies)
            + _bits(node.then, kind, copies)
            + _bits(node.orelse, kind, copies)
        )
    if isinstance(node, In):
        return (
            cost
            + 1
            + elias_gamma_bits(len(node.values))
            + sum(_bits(child, "int", copies) for child in node.children())
        )
    if isinstance(node, Call):
        if node.func in PREDICATES:
            arg = node.args[0]
            arg_kind = result_type(arg)
            choice = 1 if len(PREDICATES[node.func]) > 1 else 0
            return cost + log2(len(PREDICATES)) + choice + _bits(arg, arg_kind, copies)
        if node.func in INT_FEATURES:
            return cost + log2(len(INT_FEATURES)) + _bits(node.args[0], "card", copies)
        return cost + log2(len(INT_FUNCTIONS)) + sum(_bits(a, "int", copies) for a in node.args)
    if isinstance(node, BinOp):
        if node.op in ("and", "or"):
            return cost + _bits(node.left, "bool", copies) + _bits(node.right, "bool", copies)
        if node.op == "mod":
            return cost + _bits(node.left, "int", copies) + elias_gamma_bits(node.right.value)
        if node.op == "*":
            return (
                cost + log2(3) + _bits(node.left, "int", copies) + _bits(node.right, "int", copies)
            )
        if node.op in ("+", "-"):
            return cost + log2(3) + _operand_bits(node, "int", copies)
        operand_kind = result_type(node.left)
        ops = 2 if operand_kind == "bool" else len(COMPARISONS)
        return cost + log2(ops) + _operand_bits(node, operand_kind, copies)
    raise TypeError(f"not a rule node: {node!r}")


def _operand_bits(node: BinOp, kind: str, copies: bool) -> float:
    left = _bits(node.left, kind, copies)
    if copies and is_copy(node.left, node.right):
        return left + COPY_BITS
    return left + _bits(node.right, kind, copies)


@dataclass(frozen=True)
class Complexity:
    """The four complexity figures of a rule (see the module docstring)."""

    nodes: int
    bits: float
    acceptance: float
    classes: int

    def __str__(self) -> str:
        return (
            f"{self.nodes} nodes, {self.bits:.1f} bits, "
            f"{self.acceptance:.0%} of faces right on average, {self.classes} context classes"
        )


def complexity(
    rule: Rule, max_length: int = DEFAULT_MAX_LENGTH, budget: Budget = DEFAULT_BUDGET
) -> Complexity:
    """All four complexity figures of ``rule``; raises `TooManyContexts` for a rule
    over ``budget`` (see `eleusis_lab.rules.reach`).

    Examples
    --------
    >>> from eleusis_lab.rules import parse
    >>> c = complexity(parse("color(card) != color(last)"))
    >>> c.nodes, c.classes   # after a red card, after a black one, on an empty line
    (5, 3)
    """
    space = reachable(rule, max_length, budget)
    verdicts = space.verdicts[0]
    return Complexity(
        nodes=sum(1 for _ in rule.expr.walk()),
        bits=description_bits(rule.expr),
        acceptance=random_play_acceptance(rule, max_length=max_length, budget=budget),
        classes=len({row.tobytes() for row in verdicts}),
    )
