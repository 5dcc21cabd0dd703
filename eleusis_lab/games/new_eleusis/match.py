"""A match of New Eleusis: the deal passes left until every participant has dealt."""

from __future__ import annotations

from collections.abc import Sequence

from eleusis_lab.agent import Agent
from eleusis_lab.engines import (
    is_int,
)
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.match import MatchResult, rotate_deal
from eleusis_lab.games.new_eleusis.engine import NewEleusisConfig, play_new_eleusis
from eleusis_lab.games.new_eleusis.record import (
    GAME,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NewEleusisRecord,
)
from eleusis_lab.games.new_eleusis.scoring import new_eleusis_match_totals
from eleusis_lab.games.new_eleusis.table import (
    check_rule,
)
from eleusis_lab.rules import Rule


class NewEleusisMatch(MatchResult):
    """The rounds of a New Eleusis match and the participants' totals.

    A `eleusis_lab.games.match.MatchResult` whose games are `NewEleusisRecord` s;
    ``totals`` are `eleusis_lab.games.new_eleusis.scoring.new_eleusis_match_totals` (10 for those
    who never dealt when the match stopped early).
    """

    record_type = NewEleusisRecord
    title = "New Eleusis"
    game = GAME

    @classmethod
    def score_totals(cls, n, dealers, seats, games) -> list[float]:
        """The totals of `eleusis_lab.games.new_eleusis.scoring.new_eleusis_match_totals`."""
        dealer_scores = [game.dealer_score for game in games]
        player_scores = [game.player_scores for game in games]
        return new_eleusis_match_totals(n, dealers, seats, dealer_scores, player_scores)


def play_new_eleusis_match(
    agents: Sequence[Agent],
    seed: int,
    rules: Rule | str | Sequence[Rule | str],
    config: NewEleusisConfig | None = None,
    rounds: int | None = None,
) -> NewEleusisMatch:
    """Play a New Eleusis match: every participant deals once, the deal passing left.

    When participant ``k`` deals, the others play, seat 0 being ``k + 1``. The match
    seed feeds one ``numpy.random.SeedSequence``: one child draws the rules (when several
    are given), the other gives every round its own seed, kept in its record.

    Parameters
    ----------
    agents : sequence of Agent
        The 4 to 8 participants; the same objects play every round.
    seed : int
        The match seed.
    rules : Rule, str or sequence of them
        One rule for every round, or rules from which each deal draws uniformly.
    config : NewEleusisConfig, optional
        Options of every round.
    rounds : int, optional
        Stop the match after this many rounds (participants 0, 1, ... deal); those who
        never dealt get 10 points. Default: every participant deals.

    Returns
    -------
    NewEleusisMatch

    Examples
    --------
    >>> from eleusis_lab.registry import parse_agent_list
    >>> agents = parse_agent_list("random,random,oracle,random")
    >>> match = play_new_eleusis_match(agents, seed=0, rules="red(card)", rounds=2)
    >>> match.dealers, match.seats
    ((0, 1), ((1, 2, 3), (2, 3, 0)))
    >>> sum(match.totals) >= 20  # participants 2 and 3 never dealt: 10 each
    True
    """
    n = len(agents)
    if not MIN_PLAYERS + 1 <= n <= MAX_PLAYERS + 1:
        raise ConfigError(f"a New Eleusis match has 4 to 8 participants, got {n}")
    rounds = n if rounds is None else rounds
    if not (is_int(rounds) and 0 <= rounds <= n):
        raise ConfigError(f"rounds must be a whole number from 0 to {n}, got {rounds!r}")
    return rotate_deal(
        lambda rule, seated, game_seed: play_new_eleusis(rule, seated, game_seed, config),
        agents,
        seed,
        rules,
        rounds,
        NewEleusisMatch,
        read_rule=check_rule,
    )
