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

Limits
------
Any text gives a syntax tree or a `RuleSyntaxError`, whatever its length or depth,
because the rule language has three limits (the catalog's rules stay far below them:
at most 6 levels, 51 tokens and the number 14):

- a rule is at most `MAX_TOKENS` (2,000) tokens: names, numbers and symbols;
- it nests at most `MAX_DEPTH` (32) levels deep, counting both how the text nests
  (parentheses, calls, sets, ``if``, ``not``, ``-``) and the height of its syntax tree
  (so a chain of 40 ``and`` is too deep, and must be split, e.g. with ``in``); this
  keeps every recursive walk of a tree (printer, checker, evaluator) far from
  Python's recursion limit;
- a number literal is at most `MAX_NUMBER` (1,000,000).

The checker (`eleusis_lab.rules.check`) adds a fourth: no number a rule computes may
exceed ``MAX_VALUE`` (2**62) in size, so 64-bit arithmetic never wraps around.

>>> from eleusis_lab.rules.parser import parse_expr
>>> str(parse_expr("if odd( last ) then red(card) else black(card)"))
'if odd(last) then red(card) else black(card)'
>>> try:
...     parse_expr("(" * 40 + "red(card)" + ")" * 40)
... except RuleSyntaxError as error:
...     print(error.line, error.column, error.message)
1 33 the rule nests more than 32 levels deep (parentheses, calls, sets, if, not, - and operators)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from eleusis_lab.rules.ast import (
    CONSTANTS,
    MAX_DEPTH,
    MAX_NUMBER,
    MAX_TOKENS,
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
        """The error on a single line, for command-line messages; a long text is shown
        as the 60 characters around the error.

        >>> print(RuleSyntaxError("unexpected character '?'", "red(card) " * 20 + "?", 200)
        ...       .one_line())
        line 1, column 201: unexpected character '?' (in '...red(card) red(card) red(card) ?')
        """
        shown = self.text
        if len(self.text) > 80:
            start, stop = max(0, self.pos - 30), self.pos + 30
            head, tail = "..." * (start > 0), "..." * (stop < len(self.text))
            shown = head + self.text[start:stop] + tail
        return f"line {self.line}, column {self.column}: {self.message} (in {shown!r})"


@dataclass(frozen=True)
class Token:
    kind: str  # "num", "name", "op", "end"
    text: str
    pos: int


#: Numbers and names are ASCII: ``\d`` and ``\w`` would read other scripts' digits
#: (``1١`` as 11, an Arabic-Indic one), so a rule's text shows every value it holds.
_TOKEN = re.compile(
    r"(?P<space>\s+|\#[^\n]*)|(?P<num>[0-9]+)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<op>==|!=|<=|>=|[<>+\-*(){},])"
)


def tokenize(text: str) -> list[Token]:
    """The tokens of ``text``, ending with an ``end`` token; at most `MAX_TOKENS`."""
    tokens, pos = [], 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise RuleSyntaxError(f"unexpected character {text[pos]!r}", text, pos)
        kind = match.lastgroup
        if kind != "space":
            if len(tokens) == MAX_TOKENS:
                raise RuleSyntaxError(
                    f"the rule is longer than {MAX_TOKENS:,} tokens (names, numbers, symbols)",
                    text,
                    pos,
                )
            tokens.append(Token(kind, match.group(), pos))
        pos = match.end()
    tokens.append(Token("end", "", len(text)))
    return tokens


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.tokens = tokenize(text)
        self.i = 0
        self.depth = 0  # how deeply the text nests at the current token

    def deeper(self, parse, *args) -> Node:
        """``parse(*args)`` one nesting level deeper, failing past `MAX_DEPTH`."""
        if self.depth == MAX_DEPTH:
            too_deep(self.text, self.tok.pos)
        self.depth += 1
        try:
            return parse(*args)
        finally:
            self.depth -= 1

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
        shown = token.text if len(token.text) <= 30 else token.text[:20] + "..."
        found = "the end of the rule" if token.kind == "end" else repr(shown)
        raise RuleSyntaxError(f"{message}, found {found}", self.text, token.pos)

    # -- grammar -------------------------------------------------------------------

    def parse(self) -> Node:
        if self.tok.kind == "end":
            raise RuleSyntaxError("the rule is empty", self.text, 0)
        node = self.expr()
        if self.tok.kind != "end":
            self.fail("expected the end of the rule")
        check_height(node, self.text)
        return node

    def expr(self) -> Node:
        return self.deeper(self.expr_here)

    def expr_here(self) -> Node:
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
            return Not(self.deeper(self.negation), pos=pos)
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
            return Neg(self.deeper(self.unary), pos=pos)
        return self.atom()

    def atom(self) -> Node:
        token = self.tok
        if token.kind == "num":
            self.take()
            return Num(number(token.text, self.text, token.pos), pos=token.pos)
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


def number(digits: str, text: str, pos: int) -> int:
    """The value of a number literal, at most `MAX_NUMBER` (checked before converting,
    so that thousands of digits are refused as quickly as seven).

    >>> number("007", "007", 0)
    7
    >>> try:
    ...     number("10000001", "length > 10000001", 9)
    ... except RuleSyntaxError as error:
    ...     print(error.line, error.column, error.message)
    1 10 the number 10000001 is over the limit of 1,000,000
    """
    significant = digits.lstrip("0") or "0"
    if len(significant) <= len(str(MAX_NUMBER)) and int(significant) <= MAX_NUMBER:
        return int(significant)
    shown = significant
    if len(significant) > 30:
        shown = f"{significant[:20]}... ({len(significant):,} digits)"
    raise RuleSyntaxError(f"the number {shown} is over the limit of {MAX_NUMBER:,}", text, pos)


def too_deep(text: str, pos: int):
    """Raise the error of a rule nested past `MAX_DEPTH`, pointing at ``pos``."""
    raise RuleSyntaxError(
        f"the rule nests more than {MAX_DEPTH} levels deep"
        " (parentheses, calls, sets, if, not, - and operators)",
        text,
        pos,
    )


def check_height(node: Node, text: str) -> None:
    """Raise `RuleSyntaxError` if the syntax tree is more than `MAX_DEPTH` levels high.

    Chains of operators (``a and b and c ...``) parse in a loop but build a tree one
    level deeper per operator; this walk is iterative, so any tree can be measured.
    """
    stack = [(node, 1)]
    while stack:
        here, depth = stack.pop()
        if depth > MAX_DEPTH:
            too_deep(text, here.pos)
        stack.extend((child, depth + 1) for child in here.children())


def parse_expr(text: str) -> Node:
    """Parse rule text into a syntax tree, without checking names or types.

    Any text gives a tree or a `RuleSyntaxError` (see the limits above).

    >>> try:
    ...     parse_expr("rank(card) == " + "9" * 5000)
    ... except RuleSyntaxError as error:
    ...     print(error.message)
    the number 99999999999999999999... (5,000 digits) is over the limit of 1,000,000
    """
    if not isinstance(text, str):
        raise TypeError(f"rule text must be a string, got {type(text).__name__}")
    return _Parser(text).parse()
