"""Parse rule text into a syntax tree, by recursive descent (never ``eval``).

Grammar, loosest binding first::

    expr    := "if" expr "then" expr "else" expr | or
    or      := and ("or" and)*
    and     := not ("and" not)*
    not     := "not" not | compare
    compare := sum [("==" | "!=" | "<" | "<=" | ">" | ">=") sum | ["not"] "in" set]
    set     := "{" expr ("," expr)* "}"
    sum     := product (("+" | "-") product)*
    product := unary (("*" | "mod") unary)*
    unary   := "-" unary | atom
    atom    := NUMBER | NAME | NAME "(" expr ("," expr)* ")" | "(" expr ")"

``#`` starts a comment that runs to the end of the line. Errors are raised as
`RuleSyntaxError`, which shows the line, the column and a caret under the bad spot.

>>> from eleusis_lab.rules.parser import parse_expr
>>> str(parse_expr("if odd( last ) then red(card) else black(card)"))
'if odd(last) then red(card) else black(card)'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from eleusis_lab.rules.ast import (
    CONSTANTS,
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

KEYWORDS = {"if", "then", "else", "and", "or", "not", "in", "mod"}


class RuleSyntaxError(ValueError):
    """Rule text that cannot be read; ``str()`` shows where, with a caret."""

    def __init__(self, message: str, text: str, pos: int):
        self.message, self.text, self.pos = message, text, max(0, min(pos, len(text)))
        line_start = text.rfind("\n", 0, self.pos) + 1
        line_end = text.find("\n", self.pos)
        self.line = text.count("\n", 0, self.pos) + 1
        self.column = self.pos - line_start + 1
        self.source_line = text[line_start : line_end if line_end >= 0 else len(text)]
        super().__init__(message)

    def __str__(self) -> str:
        caret = " " * (self.column - 1) + "^"
        return (
            f"line {self.line}, column {self.column}: {self.message}\n"
            f"  {self.source_line}\n  {caret}"
        )

    def one_line(self) -> str:
        """The error on a single line, for command-line messages."""
        return f"line {self.line}, column {self.column}: {self.message} (in {self.text!r})"


@dataclass(frozen=True)
class Token:
    kind: str  # "num", "name", "op", "end"
    text: str
    pos: int


_TOKEN = re.compile(
    r"(?P<space>\s+|\#[^\n]*)|(?P<num>\d+)|(?P<name>[A-Za-z_]\w*)"
    r"|(?P<op>==|!=|<=|>=|[<>+\-*(){},])"
)


def tokenize(text: str) -> list[Token]:
    tokens, pos = [], 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise RuleSyntaxError(f"unexpected character {text[pos]!r}", text, pos)
        kind = match.lastgroup
        if kind != "space":
            tokens.append(Token(kind, match.group(), pos))
        pos = match.end()
    tokens.append(Token("end", "", len(text)))
    return tokens


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.tokens = tokenize(text)
        self.i = 0

    # -- helpers -------------------------------------------------------------------

    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def at(self, *texts: str) -> bool:
        return self.tok.kind in ("op", "name") and self.tok.text in texts

    def take(self) -> Token:
        token = self.tok
        self.i += 1
        return token

    def expect(self, text: str) -> Token:
        if not self.at(text):
            self.fail(f"expected {text!r}")
        return self.take()

    def fail(self, message: str, token: Token | None = None):
        token = token or self.tok
        found = "the end of the rule" if token.kind == "end" else repr(token.text)
        raise RuleSyntaxError(f"{message}, found {found}", self.text, token.pos)

    # -- grammar -------------------------------------------------------------------

    def parse(self) -> Node:
        if self.tok.kind == "end":
            raise RuleSyntaxError("the rule is empty", self.text, 0)
        node = self.expr()
        if self.tok.kind != "end":
            self.fail("expected the end of the rule")
        return node

    def expr(self) -> Node:
        if self.at("if"):
            pos = self.take().pos
            cond = self.expr()
            self.expect("then")
            then = self.expr()
            self.expect("else")
            return If(cond, then, self.expr(), pos=pos)
        return self.logic("or", self.logic_and)

    def logic_and(self) -> Node:
        return self.logic("and", self.negation)

    def logic(self, op: str, operand) -> Node:
        node = operand()
        while self.at(op):
            pos = self.take().pos
            node = BinOp(op, node, operand(), pos=pos)
        return node

    def negation(self) -> Node:
        if self.at("not"):
            pos = self.take().pos
            return Not(self.negation(), pos=pos)
        return self.comparison()

    def comparison(self) -> Node:
        left = self.sum()
        if self.at("==", "!=", "<", "<=", ">", ">="):
            op = self.take()
            node = BinOp(op.text, left, self.sum(), pos=op.pos)
        elif self.at("in") or (self.at("not") and self.tokens[self.i + 1].text == "in"):
            pos = self.tok.pos
            negated = self.take().text == "not"
            if negated:
                self.take()
            node = In(left, self.value_set(), negated, pos=pos)
        else:
            return left
        if self.at("==", "!=", "<", "<=", ">", ">=", "in"):
            self.fail("comparisons do not chain; use 'and' or parentheses")
        return node

    def value_set(self) -> tuple[Node, ...]:
        self.expect("{")
        values = [self.expr()]
        while self.at(","):
            self.take()
            values.append(self.expr())
        self.expect("}")
        return tuple(values)

    def sum(self) -> Node:
        node = self.product()
        while self.at("+", "-"):
            op = self.take()
            node = BinOp(op.text, node, self.product(), pos=op.pos)
        return node

    def product(self) -> Node:
        node = self.unary()
        while self.at("*", "mod"):
            op = self.take()
            node = BinOp(op.text, node, self.unary(), pos=op.pos)
        return node

    def unary(self) -> Node:
        if self.at("-"):
            pos = self.take().pos
            return Neg(self.unary(), pos=pos)
        return self.atom()

    def atom(self) -> Node:
        token = self.tok
        if token.kind == "num":
            self.take()
            return Num(int(token.text), pos=token.pos)
        if self.at("("):
            self.take()
            node = self.expr()
            self.expect(")")
            return node
        if token.kind == "name" and token.text not in KEYWORDS:
            self.take()
            if not self.at("("):
                if token.text in CONSTANTS:
                    return Const(token.text, pos=token.pos)
                return Var(token.text, pos=token.pos)
            self.take()
            if token.text == "run":
                feature = self.tok
                if feature.kind != "name":
                    self.fail("expected a feature name such as color")
                self.take()
                self.expect(")")
                return Run(feature.text, pos=token.pos)
            args = [self.expr()]
            while self.at(","):
                self.take()
                args.append(self.expr())
            self.expect(")")
            return Call(token.text, tuple(args), pos=token.pos)
        self.fail("expected a value, a name or '('")


def parse_expr(text: str) -> Node:
    """Parse rule text into a syntax tree, without checking names or types."""
    if not isinstance(text, str):
        raise TypeError(f"rule text must be a string, got {type(text).__name__}")
    return _Parser(text).parse()
