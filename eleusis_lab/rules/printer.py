"""Print a syntax tree: back to rule text, with only the parentheses it needs (`to_text`,
which the nodes' ``str`` is), or drawn one node a line (`to_tree`).

The printer is the parser's inverse: ``parse_expr(to_text(node)) == node``.
"""

from __future__ import annotations

from eleusis_lab.rules.ast import BinOp, Call, If, In, Neg, Node, Not, precedence, to_text

__all__ = ["precedence", "to_text", "to_tree"]


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
