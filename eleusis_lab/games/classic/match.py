"""A match of classic Eleusis (RULES.md 1.7): the deal passes left until all have dealt,
twice round the table.

Seeds and rule draws derive from the match seed as for every game's match
(`eleusis_lab.games.match.rotate_deal`).

Examples
--------
>>> from eleusis_lab.registry import parse_agent_list
>>> result = play_match(parse_agent_list("random,random,oracle"), seed=0, rules="red(card)")
>>> len(result.games), result.dealers
(6, (0, 1, 2, 0, 1, 2))
"""

from __future__ import annotations

from collections.abc import Sequence

from eleusis_lab.agent import Agent
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.classic.engine import GAME, ClassicConfig, play_classic
from eleusis_lab.games.classic.record import GameRecord
from eleusis_lab.games.match import MatchResult, check_deals, rotate_deal
from eleusis_lab.rules import Rule

__all__ = ["ClassicMatch", "play_match"]


class ClassicMatch(MatchResult):
    """The games of a classic match (`GameRecord`) and the participants' totals."""

    record_type = GameRecord
    title = "classic Eleusis"
    game = GAME


def play_match(
    agents: Sequence[Agent],
    seed: int,
    rules: Rule | str | Sequence[Rule | str],
    deals_per_player: int = 2,
    config: ClassicConfig | None = None,
) -> ClassicMatch:
    """Play a classic match: everyone deals ``deals_per_player`` times, the deal passing left.

    Parameters
    ----------
    agents : sequence of Agent
        The participants (at least 3: the dealer and 2 active players per game). The same
        objects play every game; `Agent.start_game` resets them.
    seed : int
        The match seed; the games' seeds and the rule draws derive from it.
    rules : Rule, str or sequence of them
        One rule for every game, or rules from which each deal draws uniformly.
    deals_per_player : int
        How many times each participant deals (RULES.md: twice).
    config : ClassicConfig, optional
        Options of every game.

    Returns
    -------
    ClassicMatch

    Raises
    ------
    ConfigError
        For fewer than 3 participants, no rules, or ``deals_per_player < 1``.

    Examples
    --------
    >>> from eleusis_lab.registry import parse_agent_list
    >>> rules = ["red(card)", "color(card) != color(last)"]
    >>> result = play_match(parse_agent_list("random,random,random"), seed=1, rules=rules)
    >>> sorted({game.rule for game in result.games}) == sorted(rules)
    True
    """
    n = len(agents)
    if n < 3:
        raise ConfigError(
            f"a classic match needs at least 3 participants (each game has a dealer and at"
            f" least 2 active players), got {n}"
        )
    return rotate_deal(
        lambda rule, seated, game_seed: play_classic(rule, seated, game_seed, config),
        agents,
        seed,
        rules,
        n * check_deals(deals_per_player),
        ClassicMatch,
    )
