"""Scoring of the 4-8 player variant (RULES.md section 2), as pure functions of the
final counts; the engine calls them and the tests check them against the worked
examples of RULES.md.

>>> four_to_eight_dealer_score([10, 5, 3])
6
"""

from __future__ import annotations

from collections.abc import Sequence

from eleusis_lab.engines import check_counts

#: Bonus of the player who goes out in the 4-8 player variant.
FOUR_TO_EIGHT_OUT_BONUS = 6


def four_to_eight_dealer_score(wrong_counts: Sequence[int]) -> int:
    """The dealer's score in the 4-8 player variant, when every hand is played out.

    RULES.md section 2: (the wrong cards of all players but the one with the fewest) -
    (the fewest) x N, with N the number of players, not counting the dealer. The
    multiplier is N, not N - 1 as in classic Eleusis, so the score is negative whenever
    every player has as many wrong cards; no floor is applied.

    Parameters
    ----------
    wrong_counts : sequence of int
        Each player's number of wrong cards when no player has cards in hand (N >= 2).

    Returns
    -------
    int
        The dealer's score.

    Examples
    --------
    The worked example of RULES.md section 2 (N=3, counts 10, 5, 3): 15 - 3 * 3.

    >>> four_to_eight_dealer_score([10, 5, 3])
    6
    >>> four_to_eight_dealer_score([4, 4, 4])
    -4
    """
    counts = check_counts(wrong_counts, "wrong-card counts", "the 4-8 player variant", 2)
    fewest = min(counts)
    return (sum(counts) - fewest) - len(counts) * fewest


def four_to_eight_player_scores(cards_left: Sequence[int]) -> list[float]:
    """The players' scores at the end of the 4-8 player variant (RULES.md section 2).

    Only the player with the fewest cards scores; everyone else scores 0.

    - If he has none (he went out): 6 + the cards the others still hold.
    - Otherwise (the dealer declared that no card can be played, or the turn cap
      stopped the game): the others' cards - his own, with no bonus.

    Players tied for fewest split that score equally (decision: the same sharing when
    several players go out at once, which can only happen when the hands run out).

    Parameters
    ----------
    cards_left : sequence of int
        Each player's number of wrong cards at the end of the game (N >= 2 players).

    Returns
    -------
    list of float
        One score per player, in seat order.

    Examples
    --------
    >>> four_to_eight_player_scores([4, 0, 7])
    [0.0, 17.0, 0.0]
    >>> four_to_eight_player_scores([2, 5, 4])
    [7.0, 0.0, 0.0]
    >>> four_to_eight_player_scores([2, 2, 5])
    [2.5, 2.5, 0.0]
    """
    counts = check_counts(cards_left, "card counts", "the 4-8 player variant", 2)
    fewest = min(counts)
    winners = [i for i, c in enumerate(counts) if c == fewest]
    # (sum of the others' cards) - own, for any one of the tied players, plus the bonus.
    value = sum(counts) - 2 * fewest + (FOUR_TO_EIGHT_OUT_BONUS if fewest == 0 else 0)
    share = value / len(winners)
    return [share if c == fewest else 0.0 for c in counts]
