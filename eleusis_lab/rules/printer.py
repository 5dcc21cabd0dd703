"""Print a syntax tree back to rule text, with only the parentheses it needs.

The printer is the parser's inverse: ``parse_expr(to_text(node)) == node``.
"""

from __future__ import annotations

from eleusis_lab.rules.ast import BinOp, Call, Const, If, In, Neg, Node, Not, Num, Run, Var

# Binding strength of each construct, loosest first (the parser's order).
_PRECEDENCE = {"if": 0, "or": 1, "and": 2, "not": 3, "compare": 4, "+": 5, "-": 5, "*": 6}
_PRECEDENCE["mod"] = _PRECEDENCE["*"]
_ATOM = 8


def precedence(node: Node) -> int:
    if isinstance(node, If):
        return _PRECEDENCE["if"]
    if isinstance(node, Not):
        return _PRECEDENCE["not"]
    if isinstance(node, In):
        return _PRECEDENCE["compare"]
    if isinstance(node, BinOp):
        return _PRECEDENCE.get(node.op, _PRECEDENCE["compare"])
    if isinstance(node, Neg):
        return 7
    return _ATOM


def to_text(node: Node) -> str:
    """The rule text of a syntax tree."""
    if isinstance(node, Num):
        return str(node.value)
    if isinstance(node, Const | Var):
        return node.name
    if isinstance(node, Run):
        return f"run({node.feature})"
    if isinstance(node, Call):
        return f"{node.func}({', '.join(to_text(arg) for arg in node.args)})"
    if isinstance(node, Neg):
        return "-" + _wrapped(node.operand, 7)
    if isinstance(node, Not):
        return "not " + _wrapped(node.operand, _PRECEDENCE["not"])
    if isinstance(node, In):
        values = ", ".join(to_text(value) for value in node.values)
        keyword = "not in" if node.negated else "in"
        return f"{_wrapped(node.item, 5)} {keyword} {{{values}}}"
    if isinstance(node, If):
        return f"if {to_text(node.cond)} then {to_text(node.then)} else {to_text(node.orelse)}"
    if isinstance(node, BinOp):
        own = precedence(node)
        # Left-associative: the right operand binds tighter. Comparisons do not chain,
        # so both of their operands must bind tighter.
        left_min = own + 1 if own == _PRECEDENCE["compare"] else own
        return f"{_wrapped(node.left, left_min)} {node.op} {_wrapped(node.right, own + 1)}"
    raise TypeError(f"not a rule node: {node!r}")


def _wrapped(node: Node, min_precedence: int) -> str:
    text = to_text(node)
    return f"({text})" if precedence(node) < min_precedence else text


def to_tree(node: Node, indent: str = "") -> str:
    """The syntax tree drawn with one node a line, children indented.

    >>> from eleusis_lab.rules.parser import parse_expr
    >>> print(to_tree(parse_expr("red(card) or rank(last) > 10")))
    or
      red
        card
      >
        rank
          last
        10
    """
    if isinstance(node, Call):
        label = node.func
    elif isinstance(node, BinOp):
        label = node.op
    elif isinstance(node, In):
        label = "not in" if node.negated else "in"
    else:
        label = {If: "if", Not: "not", Neg: "-"}.get(type(node)) or to_text(node)
    lines = [indent + label]
    lines += [to_tree(child, indent + "  ") for child in node.children()]
    return "\n".join(lines)
