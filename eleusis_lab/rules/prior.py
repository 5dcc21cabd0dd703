"""The grammar prior as a probabilistic grammar: what each production of a rule costs.

A rule is written top-down, one choice per node (`eleusis_lab.rules.complexity`): a
``bool`` node is one of 9 kinds, a comparison then one of 6 operators, a card one of
``card``, ``last``, ``prev``, and so on (`CHOICES`). The rule's description length is the
sum of ``-log2 p`` over its choices, plus the Elias-gamma codes of its numbers, set
sizes and moduli and the `COPY_BITS` of its copies, which no choice point prices.

The hand-set prior (`UNIFORM`) makes every alternative of a choice equally likely. A
`ProductionPrior` can instead give each alternative its own probability: `fit_prior`
counts the choices of rules people write (additive smoothing, so nothing becomes
impossible). ``a < b`` is ``b > a``: the two orders of a comparison share one
probability (`MIRRORS`), as they share one enumerated behaviour.

Examples
--------
>>> from eleusis_lab.rules import parse
>>> choices = list(productions(parse("rank(card) > rank(last)").expr))
>>> choices[:3]
[('bool', 'compare'), ('compare', '>'), ('int', 'feature')]
>>> prior = fit_prior([parse("rank(card) > rank(last)"), parse("red(card)")])
>>> prior.bits("card", "card") < UNIFORM.bits("card", "card")  # people read the card
True
>>> round(UNIFORM.bits("bool", "compare"), 3)  # one of 9 kinds
3.17
"""

from __future__ import annotations

import functools
import json
import math
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

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
from eleusis_lab.rules.rule import Rule

__all__ = [
    "CHOICES",
    "COPY_BITS",
    "MIRRORS",
    "UNIFORM",
    "ProductionCosts",
    "ProductionPrior",
    "count_productions",
    "elias_gamma_bits",
    "fit_prior",
    "get_prior",
    "is_copy",
    "load_prior",
    "productions",
]

CARDS = ("card", "last", "prev")

#: Every choice point of the rule language and its alternatives, in a fixed order.
CHOICES: dict[str, tuple[str, ...]] = {
    "bool": ("and", "or", "not", "if", "compare", "bool_equality", "in", "predicate", "atom"),
    "bool_atom": ("true", "false", "empty", "last_play_right"),
    "compare": COMPARISONS,
    "bool_equality": ("==", "!="),
    "in": ("in", "not in"),
    "predicate": tuple(PREDICATES),
    "predicate_argument": ("card", "int"),  # odd, even and prime read either
    "int": ("arithmetic", "mod", "negation", "if", "feature", "function", "atom"),
    "arithmetic": ("+", "-", "*"),
    "function": tuple(INT_FUNCTIONS),
    "int_atom": ("literal", "constant", "length", "run"),
    "constant": tuple(name for name, (kind, _) in CONSTANTS.items() if kind == "int"),
    "feature": INT_FEATURES,
    "run_feature": RUN_FEATURES,
    "card": CARDS,
}

#: Alternatives that write the same rules in two orders share their probability.
MIRRORS: dict[str, tuple[tuple[str, str], ...]] = {"compare": (("<", ">"), ("<=", ">="))}

#: What the copy of an operand costs: 1 bit, then the card (one of three).
COPY_BITS = 1 + math.log2(len(CARDS))


def elias_gamma_bits(n: int) -> int:
    """Bits of the Elias gamma code of a positive integer: ``2 * floor(log2 n) + 1``."""
    return 2 * (n.bit_length() - 1) + 1


@dataclass(frozen=True)
class ProductionPrior:
    """The probability of each alternative at each choice point (`CHOICES`).

    ``probabilities`` pairs a choice point with one probability per alternative, in
    `CHOICES` order; points left out are uniform. Every production with children must
    cost at least one bit (the enumerator builds formulas band by band of one bit, and
    a formula's children must lie in earlier bands).

    >>> ProductionPrior(probabilities=(("card", (0.5, 0.25, 0.25)),)).bits("card", "last")
    2.0
    """

    name: str = "hand-set"
    probabilities: tuple[tuple[str, tuple[float, ...]], ...] = ()

    def __post_init__(self) -> None:
        for point, values in self.probabilities:
            if point not in CHOICES:
                raise ValueError(f"prior {self.name!r}: unknown choice point {point!r}")
            if len(values) != len(CHOICES[point]) or min(values) <= 0:
                raise ValueError(
                    f"prior {self.name!r}: {point!r} needs {len(CHOICES[point])} "
                    f"positive probabilities ({', '.join(CHOICES[point])}), got {values!r}"
                )
            if not math.isclose(sum(values), 1.0, abs_tol=1e-6):
                raise ValueError(f"prior {self.name!r}: {point!r} sums to {sum(values)}, not 1")
        for point, alternative, bits in self._internal_bits():
            if bits < 1:
                raise ValueError(
                    f"prior {self.name!r}: {point} {alternative!r} costs {bits:.2f} bits; "
                    "a production with children must cost at least 1 (smooth more)"
                )

    @functools.cached_property
    def _bits(self) -> dict[tuple[str, str], float]:
        given = dict(self.probabilities)
        table = {}
        for point, alternatives in CHOICES.items():
            values = given.get(point, (1 / len(alternatives),) * len(alternatives))
            for alternative, p in zip(alternatives, values, strict=True):
                table[point, alternative] = -math.log2(p)
        return table

    def bits(self, point: str, alternative: str) -> float:
        """``-log2`` of the probability of ``alternative`` at ``point``."""
        return self._bits[point, alternative]

    @property
    def is_uniform(self) -> bool:
        """Whether this is the hand-set prior (every alternative equally likely)."""
        return all(
            math.isclose(p, 1 / len(values)) for _, values in self.probabilities for p in values
        )

    @functools.cached_property
    def costs(self) -> ProductionCosts:
        """What each production the enumerator builds costs under this prior."""
        return ProductionCosts(self)

    def _internal_bits(self) -> Iterator[tuple[str, str, float]]:
        """The own cost of every production with children (its children excluded)."""
        costs = self.costs
        for kind in ("and", "or", "not"):
            yield "bool", kind, costs.logic(kind)
        yield "bool", "if", costs.conditional
        for op in COMPARISONS:
            yield "compare", op, costs.compare(op)
        for op in CHOICES["bool_equality"]:
            yield "bool_equality", op, costs.bool_equality(op)
        yield "int", "negation", costs.negation
        yield "int", "if", self.bits("int", "if")
        for op in CHOICES["arithmetic"]:
            yield "arithmetic", op, costs.number_op(op)
        for name in CHOICES["function"]:
            yield "function", name, costs.number_op(name)

    def to_json(self) -> dict:
        """The prior as plain data (`load_prior` reads it back)."""
        return {"name": self.name, "probabilities": dict(self.probabilities)}

    def save(self, path: str | Path) -> None:
        """Write the prior as JSON (`load_prior` reads it back)."""
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n")


class ProductionCosts:
    """The bits of each production the enumerator builds, under a prior (its children
    excluded): the sums `productions` writes out, as
    `eleusis_lab.rules.complexity.description_bits` adds them (tests check they agree).

    >>> costs = UNIFORM.costs
    >>> round(costs.predicate("red", "card"), 2)  # log2(9 * 9 * 3): kind, predicate, card
    7.92
    >>> costs.literal(0) == UNIFORM.bits("int", "atom") + UNIFORM.bits("int_atom", "literal") + 1
    True
    """

    def __init__(self, prior: ProductionPrior):
        self.bits = bits = prior.bits
        self.int_atom = bits("int", "atom")
        self.negation = bits("int", "negation")
        self.conditional = bits("bool", "if")

    def literal(self, value: int) -> float:
        return self.int_atom + self.bits("int_atom", "literal") + elias_gamma_bits(value + 1)

    def constant(self, name: str) -> float:
        return self.int_atom + self.bits("int_atom", "constant") + self.bits("constant", name)

    def feature(self, feature: str, card: str) -> float:
        return self.bits("int", "feature") + self.bits("feature", feature) + self.bits("card", card)

    def bool_atom(self, name: str) -> float:
        return self.bits("bool", "atom") + self.bits("bool_atom", name)

    def predicate(self, name: str, argument: str) -> float:
        """A predicate on a card (``argument`` names it) or on a number (``"int"``);
        the card's own bits included, the number's not."""
        bits = self.bits("bool", "predicate") + self.bits("predicate", name)
        if len(PREDICATES[name]) > 1:
            bits += self.bits("predicate_argument", "int" if argument == "int" else "card")
        return bits + (self.bits("card", argument) if argument != "int" else 0.0)

    def number_op(self, name: str) -> float:
        """``+ - *`` or a function (``abs``, ``min``, ``max``)."""
        point = "arithmetic" if name in ("+", "-", "*") else "function"
        return self.bits("int", point) + self.bits(point, name)

    def mod(self, modulus: int) -> float:
        return self.bits("int", "mod") + elias_gamma_bits(modulus)

    def compare(self, op: str) -> float:
        return self.bits("bool", "compare") + self.bits("compare", op)

    def bool_equality(self, op: str) -> float:
        return self.bits("bool", "bool_equality") + self.bits("bool_equality", op)

    def logic(self, op: str) -> float:
        return self.bits("bool", op)

    def set_head(self, size: int, negated: bool) -> float:
        """``x in {...}`` of ``size`` values, its item and values excluded."""
        membership = self.bits("in", "not in" if negated else "in")
        return self.bits("bool", "in") + membership + elias_gamma_bits(size)


UNIFORM = ProductionPrior("hand-set")

#: Fitted priors shipped with the toolkit, by name (``rules/priors/NAME.json``).
PRIORS_DIR = Path(__file__).parent / "priors"


def get_prior(spec: str | Path | ProductionPrior) -> ProductionPrior:
    """A prior by name (``"hand-set"``, or a fitted prior shipped in `PRIORS_DIR`, such
    as ``"people"``), a path to a prior's JSON, or the prior itself.

    >>> get_prior("hand-set") is UNIFORM
    True
    >>> get_prior("people").name
    'people'
    """
    if isinstance(spec, ProductionPrior):
        return spec
    if spec == UNIFORM.name:
        return UNIFORM
    if isinstance(spec, str) and (PRIORS_DIR / f"{spec}.json").is_file():
        return _shipped(spec)
    if Path(spec).is_file():
        return load_prior(spec)
    names = [UNIFORM.name, *sorted(path.stem for path in PRIORS_DIR.glob("*.json"))]
    raise ValueError(f"unknown production prior {spec!r}: give a path or one of {', '.join(names)}")


@functools.cache
def _shipped(name: str) -> ProductionPrior:
    # read once per process: every solo game of the default agents asks for it
    return load_prior(PRIORS_DIR / f"{name}.json")


def load_prior(source: str | Path | dict) -> ProductionPrior:
    """A prior from a JSON file written with `ProductionPrior.to_json`, or its data."""
    try:
        data = source if isinstance(source, dict) else json.loads(Path(source).read_text())
    except (OSError, ValueError) as error:
        raise ValueError(f"cannot read a production prior from {source}: {error}") from None
    try:
        probabilities = tuple(
            (point, tuple(float(p) for p in values))
            for point, values in data["probabilities"].items()
        )
        return ProductionPrior(str(data["name"]), probabilities)
    except (KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"not a production prior ({error}): {source}") from None


# -- the choices of a rule ----------------------------------------------------------------


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


def productions(node: Node, copies: bool = False) -> Iterator[tuple[str, str] | float]:
    """The choices that write ``node`` top-down, as ``(point, alternative)`` pairs, and the
    fixed bits of its codes (numbers, set sizes, moduli, copies) as floats.

    ``copies``: whether the right operand of a comparison, ``+``, ``-`` or equality of
    one feature of two cards is written as a copy (`COPY_BITS`).
    """
    yield from _productions(node, result_type(node), copies)


def _productions(node: Node, kind: str, copies: bool) -> Iterator[tuple[str, str] | float]:
    if kind == "card":
        yield "card", node.name
        return
    if isinstance(node, Num):
        yield from (("int", "atom"), ("int_atom", "literal"))
        yield float(elias_gamma_bits(node.value + 1))
    elif isinstance(node, Const):
        if kind == "bool":
            yield from (("bool", "atom"), ("bool_atom", node.name))
        else:
            yield from (("int", "atom"), ("int_atom", "constant"), ("constant", node.name))
    elif isinstance(node, Var):  # empty, last_play_right, length
        if kind == "bool":
            yield from (("bool", "atom"), ("bool_atom", node.name))
        else:
            yield from (("int", "atom"), ("int_atom", "length"))
    elif isinstance(node, Run):
        yield from (("int", "atom"), ("int_atom", "run"), ("run_feature", node.feature))
    elif isinstance(node, Not):
        yield "bool", "not"
        yield from _productions(node.operand, kind, copies)
    elif isinstance(node, Neg):
        yield "int", "negation"
        yield from _productions(node.operand, kind, copies)
    elif isinstance(node, If):
        yield kind, "if"
        yield from _productions(node.cond, "bool", copies)
        yield from _productions(node.then, kind, copies)
        yield from _productions(node.orelse, kind, copies)
    elif isinstance(node, In):
        yield from (("bool", "in"), ("in", "not in" if node.negated else "in"))
        yield float(elias_gamma_bits(len(node.values)))
        for child in node.children():
            yield from _productions(child, "int", copies)
    elif isinstance(node, Call):
        yield from _call(node, kind, copies)
    elif isinstance(node, BinOp):
        yield from _binop(node, copies)
    else:
        raise TypeError(f"not a rule node: {node!r}")


def _call(node: Call, kind: str, copies: bool) -> Iterator[tuple[str, str] | float]:
    if node.func in PREDICATES:
        yield from (("bool", "predicate"), ("predicate", node.func))
        arg = node.args[0]
        arg_kind = result_type(arg)
        if len(PREDICATES[node.func]) > 1:
            yield "predicate_argument", arg_kind
        yield from _productions(arg, arg_kind, copies)
    elif node.func in INT_FEATURES:
        yield from (("int", "feature"), ("feature", node.func))
        yield from _productions(node.args[0], "card", copies)
    else:
        yield from (("int", "function"), ("function", node.func))
        for arg in node.args:
            yield from _productions(arg, "int", copies)


def _binop(node: BinOp, copies: bool) -> Iterator[tuple[str, str] | float]:
    if node.op in ("and", "or"):
        yield "bool", node.op
        yield from _productions(node.left, "bool", copies)
        yield from _productions(node.right, "bool", copies)
        return
    if node.op == "mod":
        yield "int", "mod"
        yield from _productions(node.left, "int", copies)
        yield float(elias_gamma_bits(node.right.value))
        return
    if node.op in CHOICES["arithmetic"]:
        yield from (("int", "arithmetic"), ("arithmetic", node.op))
        operand_kind = "int"
    else:
        operand_kind = result_type(node.left)
        point = "bool_equality" if operand_kind == "bool" else "compare"
        yield from (("bool", point), (point, node.op))
    yield from _productions(node.left, operand_kind, copies)
    if copies and node.op != "*" and is_copy(node.left, node.right):
        yield COPY_BITS
    else:
        yield from _productions(node.right, operand_kind, copies)


def count_productions(rules: Iterable[Rule | Node], copies: bool = False) -> Counter:
    """How often each ``(point, alternative)`` is chosen in writing ``rules``.

    >>> from eleusis_lab.rules import parse
    >>> count_productions([parse("red(card)"), parse("red(last)")])[("card", "last")]
    1
    """
    counts: Counter = Counter()
    for rule in rules:
        node = rule.expr if isinstance(rule, Rule) else rule
        counts.update(choice for choice in productions(node, copies) if isinstance(choice, tuple))
    return counts


def fit_prior(
    rules: Iterable[Rule | Node], smoothing: float = 1.0, name: str = "fitted"
) -> ProductionPrior:
    """The production probabilities of ``rules``: counts plus ``smoothing`` per alternative.

    Rules are read with copies (a comparison of one feature of two cards is written
    once and copied), as people say them. Mirrored comparisons (`MIRRORS`) pool their
    counts and share them equally.
    """
    if smoothing <= 0:
        raise ValueError(f"smoothing must be > 0, got {smoothing}")
    counts = count_productions(rules, copies=True)
    for point, pairs in MIRRORS.items():
        for a, b in pairs:
            pooled = (counts[point, a] + counts[point, b]) / 2
            counts[point, a] = counts[point, b] = pooled
    probabilities = []
    for point, alternatives in CHOICES.items():
        weights = [counts[point, alternative] + smoothing for alternative in alternatives]
        total = sum(weights)
        probabilities.append((point, tuple(w / total for w in weights)))
    return ProductionPrior(name, tuple(probabilities))
