"""The replay of a four-to-eight game: `replay_four_to_eight` re-derives a record from its
seed, its rule and the seed-004 table, without the agents.
"""

from __future__ import annotations

from eleusis_lab.games.classic.record import GameRecord
from eleusis_lab.games.classic.replay import replay_main_line
from eleusis_lab.games.four_to_eight.engine import (
    FOUR_TO_EIGHT,
    GAME,
    PLAYERS,
    deck_plan,
    four_to_eight_deal,
)
from eleusis_lab.rules import RuleSyntaxError, parse


def replay_four_to_eight(rec: GameRecord) -> list[str]:
    """Check a four-to-eight record against the rules, without the agents.

    Re-parses the rule, re-deals from the seed and the table, replays every event (turn
    order, the card comes from the hand, or from the wrong cards once the hand is empty,
    position, verdict), re-derives how phase 2 ended and the scores with
    `eleusis_lab.games.four_to_eight.scoring`, and checks the faults (a substituted play
    is the first card the agent could play). `eleusis_lab.record.replay` calls it for this game.

    Parameters
    ----------
    rec : GameRecord
        A record with ``game="four-to-eight"``.

    Returns
    -------
    list of str
        The discrepancies found, most fundamental first; empty when consistent.

    Examples
    --------
    >>> from eleusis_lab.games.four_to_eight import play_four_to_eight
    >>> from eleusis_agents.simple import RandomAgent
    >>> record = play_four_to_eight("red(card)", [RandomAgent() for _ in range(3)], seed=0)
    >>> replay_four_to_eight(record)
    []
    >>> replay_four_to_eight(record.replace(dealer_score=record.dealer_score + 1))
    ['dealer score: recorded -1, the wrong-card counts after phase 1 give -2']
    """
    if rec.game != GAME:
        return [f"not a {GAME} record: the game is {rec.game!r}"]
    try:
        rule = parse(rec.rule)
    except RuleSyntaxError as error:
        return [f"the rule does not parse: {error.message} ({rec.rule!r})"]
    n = len(rec.deal)
    if n not in PLAYERS or len(rec.agents) != n:
        counts = ", ".join(map(str, sorted(PLAYERS)))
        return [f"{n} hands dealt for {len(rec.agents)} agents; the table deals {counts} hands"]
    plan = deck_plan(n)
    deck = f"the table's {len(plan.cards)}-card deck for {n} players"
    return replay_main_line(rec, rule, (plan.cards, deck, four_to_eight_deal), FOUR_TO_EIGHT)
