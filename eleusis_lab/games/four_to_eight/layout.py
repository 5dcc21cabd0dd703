"""The table at the end of a four-to-eight game, as its players lay it out."""

from __future__ import annotations

from eleusis_lab.games.classic.record import (
    GameRecord,
    format_main_line_layout,
)
from eleusis_lab.games.four_to_eight.engine import PLAYERS, deck_plan


def format_four_to_eight_layout(record: GameRecord, columns: int = 13, max_rows: int = 12) -> str:
    """The table at the end of a four-to-eight game, then the scores and the faults.

    As `eleusis_lab.record.format_layout` (the main line in blocks of ``columns`` cards,
    the wrong cards under the card they were played on, ``*`` for phase 2), with the
    row of the seed-004 table the deck came from.

    Examples
    --------
    >>> from eleusis_lab.games.four_to_eight import play_four_to_eight
    >>> from eleusis_agents.simple import RandomAgent
    >>> record = play_four_to_eight("red(card)", [RandomAgent() for _ in range(3)], seed=0)
    >>> print(format_four_to_eight_layout(record))  # doctest: +ELLIPSIS
    four-to-eight Eleusis, seed 0, rule: red(card)
    deck: 52 cards (the 4-participant row of the seed-004 table), the starter and 3 hands of 17
    ...
    dealer score: -2
    phase 2 ended after 0 turns: no player held a card the rule accepts
    """
    text = format_main_line_layout(record, columns, max_rows)
    n = len(record.deal)
    if n not in PLAYERS:
        return text
    plan = deck_plan(n)
    size = len(record.deal[0]) if record.deal else 0
    deck = (
        f"deck: {len(plan.cards)} cards (the {plan.participants}-participant row of the"
        f" seed-004 table), the starter and {n} hands of {size}"
    )
    if record.unused:
        deck += f", {len(record.unused)} cards unused"
    first, rest = text.split("\n", 1)
    return f"{first}\n{deck}\n{rest}"
