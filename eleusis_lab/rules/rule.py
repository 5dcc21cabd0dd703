"""`Rule`: a parsed, checked rule that judges cards, with a verdict cache."""

from __future__ import annotations

import numpy as np

from eleusis_lab.cards import FACES, N_FACES, Card, face_card
from eleusis_lab.rules.ast import Node
from eleusis_lab.rules.check import check, slots_read
from eleusis_lab.rules.context import Context
from eleusis_lab.rules.evaluate import compile_rule
from eleusis_lab.rules.parser import RuleSyntaxError, parse_expr  # noqa: F401 (doctest)

_ALL_FACES = FACES[np.newaxis, :]


class Rule:
    """A rule of the game: which cards are right in a context.

    Build one with `parse`. Rules compare equal when their syntax trees are equal;
    ``str(rule)`` is the canonical text, and ``parse(str(rule)) == rule``.

    Examples
    --------
    >>> from eleusis_lab.cards import parse_card, parse_cards
    >>> rule = parse("color(card) != color(last)")
    >>> ctx = Context(tuple(parse_cards("7S")))
    >>> rule.accepts(parse_card("QH"), ctx), rule.accepts(parse_card("2C"), ctx)
    (True, False)
    >>> int(rule.legal_faces(ctx).sum())
    26
    """

    __slots__ = ("expr", "text", "name", "slots", "_evaluate", "_cache")

    def __init__(self, expr: Node, name: str | None = None):
        self.expr = expr
        self.text = str(expr)
        self.name = name
        self.slots = slots_read(expr)
        self._evaluate = compile_rule(expr)
        self._cache: dict[tuple[int, ...], int] = {}

    # -- judging ---------------------------------------------------------------------

    def key(self, context: Context) -> tuple[int, ...]:
        """The values of the slots this rule reads: equal keys, equal verdicts."""
        return tuple(context.slot(slot) for slot in self.slots)

    def legal_mask(self, context: Context) -> int:
        """The right faces in ``context`` as bits of an int (bit ``face`` set = right)."""
        key = self.key(context)
        mask = self._cache.get(key)
        if mask is None:
            mask = self._cache[key] = _to_bits(self.evaluate_keys(self.slots, [key])[0])
        return mask

    def legal_faces(self, context: Context) -> np.ndarray:
        """A boolean array over the 52 faces: which are right in ``context``."""
        mask = self.legal_mask(context)
        return np.array([(mask >> face) & 1 for face in range(N_FACES)], dtype=bool)

    def legal_cards(self, context: Context) -> list[Card]:
        """The copy-0 cards of the right faces, clubs first."""
        mask = self.legal_mask(context)
        return [face_card(face) for face in range(N_FACES) if (mask >> face) & 1]

    def accepts(self, card: Card, context: Context) -> bool:
        """Whether ``card`` is right when played in ``context``."""
        return bool((self.legal_mask(context) >> card.face) & 1)

    def evaluate_keys(self, slots: tuple[str, ...], keys) -> np.ndarray:
        """Verdicts for many contexts at once: one row of 52 per key of ``slots`` values.

        ``slots`` may name more slots than the rule reads (as when two rules are
        compared); the extra ones are ignored.
        """
        columns = np.asarray(keys, dtype=np.int64)
        # A rule that reads no slot ("red(card)") has empty keys: reshape(-1, 0) is ambiguous.
        columns = columns.reshape(len(columns) if not slots else -1, len(slots))
        env = {slot: columns[:, [i]] for i, slot in enumerate(slots)}
        env["card"] = _ALL_FACES
        verdict = self._evaluate(env)
        return np.broadcast_to(verdict, (len(columns), N_FACES))

    # -- identity --------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rule) and self.expr == other.expr

    def __hash__(self) -> int:
        return hash(self.expr)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        label = f", name={self.name!r}" if self.name else ""
        return f"parse({self.text!r}{label})"

    def __reduce__(self):
        # Pickle as text: the compiled closures and the cache are rebuilt on load.
        return (parse, (self.text, self.name))


def _to_bits(row: np.ndarray) -> int:
    return int.from_bytes(np.packbits(row, bitorder="little").tobytes(), "little")


def parse(text: str, name: str | None = None) -> Rule:
    """Parse and check rule text; raises `RuleSyntaxError` with a caret on bad input.

    Examples
    --------
    >>> str(parse("if odd(last)then red(card)else black(card)"))
    'if odd(last) then red(card) else black(card)'
    >>> try:
    ...     parse("rank(card) > rank(lsat)")
    ... except RuleSyntaxError as error:
    ...     print(error)
    line 1, column 19: unknown name 'lsat'; did you mean 'last'?
      rank(card) > rank(lsat)
                        ^
    """
    expr = parse_expr(text)
    check(expr, text)
    return Rule(expr, name)
