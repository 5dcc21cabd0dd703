"""Scoring of classic Eleusis (RULES.md 1.4), as pure functions of the final counts.

The engine calls these functions and the tests check them against the worked examples
of RULES.md, so a formula is written once, here, and nowhere else.

>>> classic_dealer_score([10, 5, 3])
9
>>> classic_player_scores([2, 3, 10, 0])
[7.0, 3.0, 0.0, 21.0]
"""

from __future__ import annotations

from collections.abc import Sequence

from eleusis_lab.engines import check_counts

#: Bonus of a player who has no cards left at the end of classic Eleusis.
CLASSIC_OUT_BONUS = 6


def classic_dealer_score(wrong_counts: Sequence[int]) -> int:
    """The dealer's score at the end of phase 1 of classic Eleusis (RULES.md 1.4).

    The leader is the player with the fewest wrong cards, ``m`` of them; ``S`` is the
    total of the other ``N - 1`` players' wrong cards; the score is ``S - (N - 1) * m``.
    No floor is applied; since ``m`` is the smallest count the score is in fact never
    negative, and it is 0 exactly when every player has as many wrong cards.

    Parameters
    ----------
    wrong_counts : sequence of int
        Each active player's number of wrong cards after phase 1 (N >= 2 players).

    Returns
    -------
    int
        The dealer's score.

    Examples
    --------
    The worked example of RULES.md (N=3, counts 10, 5, 3): S = 15, m = 3.

    >>> classic_dealer_score([10, 5, 3])
    9

    With two players the score is the difference:

    >>> classic_dealer_score([4, 9])
    5
    """
    counts = check_counts(wrong_counts, "wrong-card counts", "classic Eleusis", 2)
    fewest = min(counts)
    others = sum(counts) - fewest
    return others - (len(counts) - 1) * fewest


def classic_player_scores(cards_left: Sequence[int]) -> list[float]:
    """The active players' scores at the end of classic Eleusis (RULES.md 1.6).

    With ``c_i`` the cards player i still holds, score_i = max(0, sum of the others'
    ``c_j`` - (N - 1) * ``c_i``). Every player with no cards left gets a bonus of 6; if
    nobody went out, the bonus goes to the player(s) with the fewest cards, split
    equally.

    Parameters
    ----------
    cards_left : sequence of int
        Each active player's number of cards at the end of the game (N >= 2 players).

    Returns
    -------
    list of float
        One score per player, in seat order (floats because a split bonus can be 1.5).

    Examples
    --------
    The worked example of RULES.md (N=4, cards 2, 3, 10, 0):

    >>> classic_player_scores([2, 3, 10, 0])
    [7.0, 3.0, 0.0, 21.0]

    Nobody went out and two players tie for fewest: they split the bonus.

    >>> classic_player_scores([1, 1, 4])
    [6.0, 6.0, 0.0]
    """
    counts = check_counts(cards_left, "card counts", "classic Eleusis", 2)
    n, total = len(counts), sum(counts)
    scores = [float(max(0, (total - c) - (n - 1) * c)) for c in counts]
    fewest = min(counts)
    winners = [i for i, c in enumerate(counts) if c == fewest]
    # A player who went out earns the whole bonus; otherwise the fewest share one bonus.
    bonus = CLASSIC_OUT_BONUS if fewest == 0 else CLASSIC_OUT_BONUS / len(winners)
    for i in winners:
        scores[i] += bonus
    return scores
