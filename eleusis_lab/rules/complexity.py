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
`eleusis_lab.rules.prior` writes these choices out; a `ProductionPrior` there can give
each alternative its own probability (fitted on rules people write) instead.

Copies (``copies=True``, as in grammars with ``Grammar.copies``): people compare a
feature of the card with *the same* feature of another card far more often than with a
different one. With copies, a comparison, ``+``, ``-`` or true/false equality whose two
operands read one feature or predicate of two different cards (``rank(card) -
rank(last)``, ``red(card) != red(last)``) may write its right operand as a copy of the
left one: 1 bit, then the card. A rule's bits are those of its cheapest writing.
"""

from __future__ import annotations

from dataclasses import dataclass

from eleusis_lab.rules.ast import Node
from eleusis_lab.rules.prior import (
    COPY_BITS,
    UNIFORM,
    ProductionPrior,
    elias_gamma_bits,
    is_copy,
    productions,
)
from eleusis_lab.rules.reach import (
    DEFAULT_BUDGET,
    DEFAULT_MAX_LENGTH,
    Budget,
    random_play_acceptance,
    reachable,
)
from eleusis_lab.rules.rule import Rule
from eleusis_lab.text import plural

__all__ = [
    "COPY_BITS",
    "Complexity",
    "complexity",
    "description_bits",
    "elias_gamma_bits",
    "is_copy",
]


def description_bits(node: Node, copies: bool = False, prior: ProductionPrior = UNIFORM) -> float:
    """``-log2`` of the rule's probability under the grammar prior (module docstring).

    ``copies``: whether operands may be copied (see the module docstring). ``prior``:
    the probabilities of the productions (`eleusis_lab.rules.prior`); by default the
    hand-set one, every alternative equally likely.

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
    return sum(
        prior.bits(*choice) if isinstance(choice, tuple) else choice
        for choice in productions(node, copies)
    )


@dataclass(frozen=True)
class Complexity:
    """The four complexity figures of a rule (see the module docstring)."""

    nodes: int
    bits: float
    acceptance: float
    classes: int

    def __str__(self) -> str:
        classes = plural(self.classes, "context class", "context classes")
        return (
            f"{self.nodes} nodes, {self.bits:.1f} bits, "
            f"{self.acceptance:.0%} of faces right on average, {classes}"
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
