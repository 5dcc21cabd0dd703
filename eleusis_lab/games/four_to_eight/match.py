"""A match of the 4-8 player variant: every participant deals once, the deal passing left."""

from __future__ import annotations

from collections.abc import Sequence

from eleusis_lab.agent import Agent
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.classic.record import GameRecord
from eleusis_lab.games.four_to_eight.engine import (
    GAME,
    PLAYERS,
    FourToEightConfig,
    play_four_to_eight,
)
from eleusis_lab.games.match import MatchResult, check_deals, rotate_deal
from eleusis_lab.rules import Rule


class FourToEightMatch(MatchResult):
    """The games of a four-to-eight match and the participants' totals.

    A `eleusis_lab.games.match.MatchResult` whose games have ``game="four-to-eight"``:
    the same fields, JSON (`to_json`, `from_json`) and ``winners``.
    """

    record_type = GameRecord
    title = "four-to-eight Eleusis"
    game = GAME


def play_four_to_eight_match(
    agents: Sequence[Agent],
    seed: int,
    rules: Rule | str | Sequence[Rule | str],
    deals_per_player: int = 1,
    config: FourToEightConfig | None = None,
) -> FourToEightMatch:
    """Play a four-to-eight match: every participant deals once, the deal passing left.

    Participant ``k`` deals game ``k``; the others play, seat 0 being participant
    ``k + 1``. The dealer scores the game's dealer score, each player his player score.
    Seeds and rule draws derive from ``seed`` as in `eleusis_lab.games.match.rotate_deal`.

    Parameters
    ----------
    agents : sequence of Agent
        The participants: 4, 6, 7, 8 or 9 (the dealer and 3, 5, 6, 7 or 8 players, the
        hands of a row of the seed-004 table). The same objects play every game.
    seed : int
        The match seed.
    rules : Rule, str or sequence of them
        One rule for every game, or rules from which each deal draws uniformly.
    deals_per_player : int
        How many times each participant deals (RULES.md section 2: once).
    config : FourToEightConfig, optional
        Options of every game.

    Returns
    -------
    FourToEightMatch

    Raises
    ------
    ConfigError
        For a number of participants the table cannot deal, no rules, or
        ``deals_per_player < 1``.

    Examples
    --------
    >>> from eleusis_agents.simple import OracleAgent, RandomAgent
    >>> agents = [OracleAgent(), RandomAgent(), RandomAgent(), RandomAgent()]
    >>> result = play_four_to_eight_match(agents, seed=0, rules="red(card)")
    >>> result.dealers, result.seats[1]
    ((0, 1, 2, 3), (2, 3, 0))
    >>> sum(result.totals) == sum(g.dealer_score + sum(g.player_scores) for g in result.games)
    True
    """
    p = len(agents)
    if p - 1 not in PLAYERS:
        counts = ", ".join(str(players + 1) for players in sorted(PLAYERS))
        raise ConfigError(
            f"a four-to-eight match needs {counts} participants (a dealer and a hand of the"
            f" seed-004 table for each other participant), got {p}"
        )
    return rotate_deal(
        lambda rule, seated, game_seed: play_four_to_eight(rule, seated, game_seed, config),
        agents,
        seed,
        rules,
        p * check_deals(deals_per_player),
        FourToEightMatch,
    )
