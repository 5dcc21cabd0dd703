"""Scoring of Delphi (RULES.md section 3), as pure functions of the predictions' hits;
the engine calls them and the tests check them against the worked examples of RULES.md.

>>> delphi_scores(delphi_chips([[True, False], [True, True]]))
([1, -1], 1)
"""

from __future__ import annotations

from collections.abc import Sequence

from eleusis_lab.engines import check_counts


def delphi_chips(hits: Sequence[Sequence[bool]]) -> list[int]:
    """Each player's chips after a game of Delphi, from whether each prediction was right.

    Every player starts with no chips. A right prediction wins one chip from the oracle;
    a wrong one gives all the player's chips to the oracle.

    Parameters
    ----------
    hits : sequence of sequence of bool
        One row per card judged, in deck order: for each player, whether his token
        (right / wrong) matched the oracle's verdict. At least one row.

    Returns
    -------
    list of int
        Each player's chips at the end.

    Examples
    --------
    >>> delphi_chips([[True, True], [True, False], [False, True]])
    [0, 1]
    """
    rows = [list(row) for row in hits]
    if not rows:
        raise ValueError("Delphi chips need at least one card's predictions")
    n = len(rows[0])
    if n < 1 or any(len(row) != n for row in rows):
        raise ValueError("every card needs one prediction per player (at least one player)")
    chips = [0] * n
    for row in rows:
        chips = [c + 1 if hit else 0 for c, hit in zip(chips, row, strict=True)]
    return chips


def delphi_scores(chips: Sequence[int]) -> tuple[list[int], int]:
    """Settlement of a game of Delphi (RULES.md section 3).

    Every pair of players settles the difference of their chips: player i scores
    ``sum over j of (chips_i - chips_j)``, so the players' scores add up to 0; the
    oracle scores the sum of all the positive pairwise differences.

    Parameters
    ----------
    chips : sequence of int
        Each player's chips at the end (N >= 1 players; with one player every score is 0).

    Returns
    -------
    (list of int, int)
        The players' scores in seat order, and the oracle's score.

    Examples
    --------
    The worked example of RULES.md section 3 (chips 19, 16, 3): the oracle wins
    3 + 16 + 13.

    >>> delphi_scores([19, 16, 3])
    ([19, 10, -29], 32)
    """
    counts = check_counts(chips, "chip counts", "Delphi", 1)
    n, total = len(counts), sum(counts)
    players = [n * c - total for c in counts]
    ordered = sorted(counts)
    # Sum over pairs of |c_i - c_j|: the k-th smallest is larger than k others.
    oracle = sum((2 * k - n + 1) * c for k, c in enumerate(ordered))
    return players, oracle
