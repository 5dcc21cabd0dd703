"""The rule language's syntax tree: small frozen dataclasses, the vocabulary, and the
tree back to rule text (`to_text`, which a node's ``str`` is).

Every node has a type, one of ``"bool"``, ``"int"`` or ``"card"``; a rule is a
``bool`` expression. Nodes compare by structure only (source positions, kept for
error messages, are left out of equality), so ``parse(str(rule)) == rule``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from eleusis_lab.cards import FEATURES

# -- the limits (see eleusis_lab.rules.parser) ---------------------------------------

#: The most tokens (names, numbers, symbols) a rule may have.
MAX_TOKENS = 2_000
#: The deepest a rule may nest, in its text and in its syntax tree.
MAX_DEPTH = 32
#: The largest number literal a rule may write.
MAX_NUMBER = 1_000_000
#: The largest size of any number a rule computes: 64-bit arithmetic never wraps.
MAX_VALUE = 2**62
#: What the checker takes as the longest main line (and so the longest run).
MAX_LINE = 1_000_000

# -- the vocabulary -----------------------------------------------------------------

#: Variables a rule can read, with their types.
VARIABLES: dict[str, str] = {
    "card": "card",  # the candidate card
    "last": "card",  # the last card of the main line
    "prev": "card",  # the card before it
    "length": "int",  # the number of cards on the main line
    "empty": "bool",  # the main line is empty
    "last_play_right": "bool",  # the verdict of the previous play (right or wrong)
}

#: Named constants and their values.
CONSTANTS: dict[str, tuple[str, int]] = {
    "true": ("bool", 1),
    "false": ("bool", 0),
    "black": ("int", 0),
    "red": ("int", 1),
    "clubs": ("int", 0),
    "diamonds": ("int", 1),
    "hearts": ("int", 2),
    "spades": ("int", 3),
    "ace": ("int", 1),
    "jack": ("int", 11),
    "queen": ("int", 12),
    "king": ("int", 13),
}

#: Integer features of a card, read with ``name(card)``: rank 1..13, suit 0..3 (clubs,
#: diamonds, hearts, spades), color 1 red / 0 black, parity 1 odd / 0 even.
INT_FEATURES = ("rank", "suit", "color", "parity")

#: Features whose run at the end of the main line ``run(feature)`` can read: the int
#: features and face (J Q K), high (8..K) and prime (2 3 5 7 J K).
RUN_FEATURES: tuple[str, ...] = tuple(FEATURES)

#: Predicates: name -> accepted argument types. An int argument is read as a rank.
PREDICATES: dict[str, tuple[str, ...]] = {
    "red": ("card",),
    "black": ("card",),
    "odd": ("card", "int"),
    "even": ("card", "int"),
    "face": ("card",),
    "number": ("card",),
    "low": ("card",),
    "high": ("card",),
    "prime": ("card", "int"),
}

#: Integer functions of integers and their arity.
INT_FUNCTIONS: dict[str, int] = {"abs": 1, "min": 2, "max": 2}

ARITHMETIC = ("+", "-", "*", "mod")
COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
LOGIC = ("and", "or")


# -- nodes --------------------------------------------------------------------------


@dataclass(frozen=True)
class Node:
    pos: int = field(default=-1, compare=False, repr=False, kw_only=True)

    def children(self) -> tuple[Node, ...]:
        return ()

    def walk(self):
        """Yield this node and every node below it, depth first."""
        yield self
        for child in self.children():
            yield from child.walk()

    def __str__(self) -> str:
        return to_text(self)


@dataclass(frozen=True)
class Num(Node):
    value: int

    def __post_init__(self) -> None:
        if not isinstance(self.value, int) or self.value < 0:
            raise ValueError(f"a number literal is a non-negative int, got {self.value!r}")


@dataclass(frozen=True)
class Const(Node):
    name: str


@dataclass(frozen=True)
class Var(Node):
    name: str


@dataclass(frozen=True)
class Call(Node):
    """A feature (``rank(card)``), a predicate (``red(last)``) or ``abs``/``min``/``max``."""

    func: str
    args: tuple[Node, ...]

    def children(self) -> tuple[Node, ...]:
        return self.args


@dataclass(frozen=True)
class Run(Node):
    """``run(color)``: how many cards at the end of the main line share that feature."""

    feature: str


@dataclass(frozen=True)
class Not(Node):
    operand: Node

    def children(self) -> tuple[Node, ...]:
        return (self.operand,)


@dataclass(frozen=True)
class Neg(Node):
    operand: Node

    def children(self) -> tuple[Node, ...]:
        return (self.operand,)


@dataclass(frozen=True)
class BinOp(Node):
    """Arithmetic, comparison or logic: ``op`` is one of ARITHMETIC, COMPARISONS, LOGIC."""

    op: str
    left: Node
    right: Node

    def children(self) -> tuple[Node, ...]:
        return (self.left, self.right)


@dataclass(frozen=True)
class In(Node):
    """``item in {a, b, ...}`` (or ``not in`` when ``negated``)."""

    item: Node
    values: tuple[Node, ...]
    negated: bool = False

    def children(self) -> tuple[Node, ...]:
        return (self.item, *self.values)


@dataclass(frozen=True)
class If(Node):
    cond: Node
    then: Node
    orelse: Node

    def children(self) -> tuple[Node, ...]:
        return (self.cond, self.then, self.orelse)


# -- back to text (the parser's inverse: eleusis_lab.rules.printer) ------------------

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
