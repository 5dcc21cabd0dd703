"""Questions about rules answered exactly over the contexts a game can reach.

- `check_acceptable`: does the rule leave at least a quarter of the deck (13 of the
  52 faces) right in every reachable context (RULES.md section 1, item 8)?
- `equivalent`: do two rules give the same verdict on every card in every context
  either can reach, and if not, where do they first differ?

Both explore contexts with `eleusis_lab.rules.reach`, under a `Budget` of states and
seconds: a rule over it raises `TooManyContexts`, one line naming the rule and budget.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from eleusis_lab.cards import Card, face_card, format_cards
from eleusis_lab.rules.context import Context
from eleusis_lab.rules.reach import (
    DEFAULT_BUDGET,
    DEFAULT_MAX_LENGTH,
    Budget,
    TooManyContexts,  # noqa: F401 (what a rule over budget raises, imported from here too)
    describe_state,
    explore,
    reachable,
)
from eleusis_lab.rules.rule import Rule

QUARTER_OF_THE_DECK = 13


@dataclass(frozen=True)
class Acceptability:
    """The verdict of `check_acceptable`.

    ``fewest`` is the smallest number of right faces in any reachable context,
    ``context`` a description of one such context and ``legal`` its right faces;
    ``dead_contexts`` counts reachable contexts where no face is right at all.
    """

    acceptable: bool
    fewest: int
    context: str
    legal: tuple[Card, ...]
    dead_contexts: int
    contexts: int

    def __str__(self) -> str:
        if self.acceptable:
            return f"acceptable: at least {self.fewest} of 52 faces right in every context"
        cards = format_cards(self.legal) if self.legal else "none"
        text = f"not acceptable: {self.context} only {self.fewest} cards are legal: {cards}"
        if self.dead_contexts:
            text += f"; {self.dead_contexts} of {self.contexts} contexts have no legal card"
        return text


def check_acceptable(
    rule: Rule,
    min_legal: int = QUARTER_OF_THE_DECK,
    max_length: int = DEFAULT_MAX_LENGTH,
    budget: Budget = DEFAULT_BUDGET,
) -> Acceptability:
    """Check that at least ``min_legal`` faces are right in every reachable context.

    Raises `TooManyContexts` for a rule over ``budget``.

    Examples
    --------
    >>> from eleusis_lab.rules import parse
    >>> print(check_acceptable(parse("(rank(card) - rank(last)) mod 13 == 1")))
    not acceptable: after 7C only 4 cards are legal: 8C 8D 8H 8S
    >>> check_acceptable(parse("color(card) != color(last)")).acceptable
    True
    """
    space = reachable(rule, max_length, budget)
    counts = space.verdicts[0].sum(axis=1)
    # Among the contexts with the fewest right faces, show the one a person reads best.
    worst = np.flatnonzero(counts == counts.min())
    shown = min(worst, key=lambda i: _readability(space.slots, space.states[i]))
    legal = tuple(face_card(f) for f in np.flatnonzero(space.verdicts[0][shown]))
    return Acceptability(
        acceptable=bool(counts.min() >= min_legal),
        fewest=int(counts.min()),
        context=space.describe(shown),
        legal=legal,
        dead_contexts=int((counts == 0).sum()),
        contexts=len(counts),
    )


def _readability(slots, state) -> tuple:
    """Sort key: prefer contexts with no previous verdict, short lines, a 7 on top."""
    values = dict(zip(slots, state, strict=True))
    last = values.get("last", -1)
    return (values.get("outcome", 0), values.get("length", 0), abs(last % 13 - 6), last)


@dataclass(frozen=True)
class Equivalence:
    """The verdict of `equivalent`; when the rules differ, where and on which card."""

    equivalent: bool
    context: str = ""
    card: Card | None = None
    first_accepts: bool = False

    def __bool__(self) -> bool:
        return self.equivalent

    def __str__(self) -> str:
        if self.equivalent:
            return "equivalent: the same verdict on every card in every reachable context"
        first, second = ("right", "wrong") if self.first_accepts else ("wrong", "right")
        return (
            f"not equivalent: {self.context}, {self.card} is {first} under the first rule "
            f"and {second} under the second"
        )


def equivalent(
    first: Rule,
    second: Rule,
    max_length: int = DEFAULT_MAX_LENGTH,
    after: Context | None = None,
    plays: int | None = None,
    budget: Budget = DEFAULT_BUDGET,
) -> Equivalence:
    """Whether two rules judge every card alike in every context either can reach.

    Contexts are explored from the empty main line and every starter; while the two
    rules agree they reach the same contexts, so the first disagreement found is a
    context both can reach. With ``after``, only the continuations of that context
    are compared: the context itself and every line that ``plays - 1`` more cards
    the first rule accepts make of it (the solo benchmark's judge). Raises
    `TooManyContexts` when the comparison would exceed ``budget``.

    Examples
    --------
    >>> from eleusis_lab.cards import parse_cards
    >>> from eleusis_lab.rules import Context, parse
    >>> bool(equivalent(parse("odd(rank(card) + rank(last))"),
    ...                 parse("if odd(last) then even(card) else odd(card)")))
    True
    >>> print(equivalent(parse("red(card)"), parse("not black(card)")))
    equivalent: the same verdict on every card in every reachable context
    >>> start_red = parse("if empty then red(card) else suit(card) == suit(last)")
    >>> bool(equivalent(start_red, parse("suit(card) == suit(last)")))
    False
    >>> after_two = Context(tuple(parse_cards("3H 9H")), True)
    >>> bool(equivalent(start_red, parse("suit(card) == suit(last)"), after=after_two, plays=40))
    True
    """
    exact_length = "length" in first.slots + second.slots
    layers = explore([first, second], max_length, start=after, plays=plays, budget=budget)
    for slots, states, (a, b) in layers:
        differ = a != b
        rows = np.flatnonzero(differ.any(axis=1))
        if len(rows):  # the most readable context, and in it the first card
            row = min(rows.tolist(), key=lambda r: _readability(slots, states[r]))
            face = int(np.flatnonzero(differ[row])[0])
            return Equivalence(
                False,
                describe_state(slots, states[row], exact_length),
                face_card(face),
                bool(a[row, face]),
            )
    return Equivalence(True)
