"""A match of Delphi: every participant is the oracle in turn."""

from __future__ import annotations

from collections.abc import Sequence

from eleusis_lab.agent import Agent
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.delphi.engine import DelphiConfig, play_delphi
from eleusis_lab.games.delphi.record import GAME, DelphiRecord
from eleusis_lab.games.match import MatchResult, check_deals, rotate_deal
from eleusis_lab.rules import Rule

# -- match --------------------------------------------------------------------------------


class DelphiMatch(MatchResult):
    """The games of a Delphi match and the participants' totals.

    A `eleusis_lab.games.match.MatchResult` whose games are `DelphiRecord` s; the
    "dealer" of a game is its oracle, whose score is ``DelphiRecord.oracle_score``.
    """

    record_type = DelphiRecord
    title = "Delphi"
    game = GAME

    def summary(self) -> str:
        """A table of the games and the totals, for a terminal."""
        return super().summary().replace("the dealer of the game", "the oracle of the game", 1)


def play_delphi_match(
    agents: Sequence[Agent],
    seed: int,
    rules: Rule | str | Sequence[Rule | str],
    deals_per_player: int = 1,
    config: DelphiConfig | None = None,
) -> DelphiMatch:
    """Play a Delphi match: every participant is the oracle once, in turn.

    Participant ``k`` is the oracle of game ``k``; the others predict, seat 0 being
    participant ``k + 1``. The oracle scores the game's oracle score, each player his
    player score. Seeds and rule draws derive from ``seed`` as in
    `eleusis_lab.games.match.rotate_deal`.

    Parameters
    ----------
    agents : sequence of Agent
        The participants, at least 2 (an oracle and a player per game). The same
        objects play every game.
    seed : int
        The match seed.
    rules : Rule, str or sequence of them
        One rule for every game, or rules from which each oracle draws uniformly.
    deals_per_player : int
        How many times each participant is the oracle (RULES.md section 3: once).
    config : DelphiConfig, optional
        Options of every game.

    Returns
    -------
    DelphiMatch

    Raises
    ------
    ConfigError
        For fewer than 2 participants, no rules, or ``deals_per_player < 1``.

    Examples
    --------
    >>> from eleusis_agents.simple import OracleAgent, RandomAgent
    >>> agents = [OracleAgent(), RandomAgent(), RandomAgent()]
    >>> result = play_delphi_match(agents, seed=0, rules="color(card) != color(last)")
    >>> result.dealers, result.seats
    ((0, 1, 2), ((1, 2), (2, 0), (0, 1)))
    >>> result.winners
    [0]
    """
    p = len(agents)
    if p < 2:
        raise ConfigError(
            f"a Delphi match needs at least 2 participants (each game has an oracle and at"
            f" least 1 player), got {p}"
        )
    return rotate_deal(
        lambda rule, seated, game_seed: play_delphi(rule, seated, game_seed, config),
        agents,
        seed,
        rules,
        p * check_deals(deals_per_player),
        DelphiMatch,
    )
