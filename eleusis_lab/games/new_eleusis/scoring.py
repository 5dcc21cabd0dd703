"""Scoring of New Eleusis (RULES.md section 5), as pure functions of the final counts;
the engine calls them and the tests check them against the worked examples of RULES.md.
"""

from __future__ import annotations

from collections.abc import Sequence

from eleusis_lab.engines import check_counts

#: Bonus of a New Eleusis player who has no cards at the end of the round.
NEW_ELEUSIS_OUT_BONUS = 4
#: Points of each participant who never dealt, when a New Eleusis match stops early.
NEW_ELEUSIS_NEVER_DEALT = 10


def new_eleusis_player_scores(
    hand_sizes: Sequence[int],
    prophet: int | None = None,
    main_after_marker: int = 0,
    side_after_marker: int = 0,
) -> list[int]:
    """The players' scores at the end of a round of New Eleusis (RULES.md section 5).

    The high count is the largest hand among all players (the Prophet's hand, set
    aside, and the hands of expelled players included). Each player scores the high
    count minus his own hand size, plus 4 if he has no cards. A Prophet still in
    place at the end also scores 1 per main-line card and 2 per side-line card played
    after his marker.

    Parameters
    ----------
    hand_sizes : sequence of int
        Each player's cards at the end of the round, in seat order (the dealer is not
        a player).
    prophet : int or None
        The seat of the Prophet in place at the end, if any.
    main_after_marker, side_after_marker : int
        The cards played after the Prophet's marker onto the main line and onto the
        side line (ignored without a Prophet).

    Returns
    -------
    list of int
        One score per player, in seat order.

    Examples
    --------
    No Prophet: the high count is 12, seat 0 went out (+4).

    >>> new_eleusis_player_scores([0, 5, 12, 9])
    [16, 7, 0, 3]

    Seat 2 is the Prophet: 6 main-line and 5 side-line cards after his marker.

    >>> new_eleusis_player_scores([3, 7, 10, 15], prophet=2, main_after_marker=6,
    ...                           side_after_marker=5)
    [12, 8, 21, 0]
    """
    sizes = check_counts(hand_sizes, "hand sizes", "New Eleusis", 1)
    high = max(sizes)
    scores = [high - size + (NEW_ELEUSIS_OUT_BONUS if size == 0 else 0) for size in sizes]
    if prophet is not None:
        if not 0 <= prophet < len(sizes):
            raise ValueError(f"there is no seat {prophet} for the Prophet in {len(sizes)}")
        if main_after_marker < 0 or side_after_marker < 0:
            raise ValueError("cards played after the marker cannot be negative")
        scores[prophet] += int(main_after_marker) + 2 * int(side_after_marker)
    return scores


def new_eleusis_dealer_score(
    player_scores: Sequence[int], played_before_marker: int | None = None
) -> int:
    """The dealer's score at the end of a round of New Eleusis (RULES.md section 5).

    The highest player score; with a Prophet in place at the end, at most twice the
    cards played (main and side line, the starter not counted) before his marker.

    Parameters
    ----------
    player_scores : sequence of int
        The players' scores (`new_eleusis_player_scores`).
    played_before_marker : int or None
        With a Prophet in place at the end: the cards played up to his marker (the
        marked card included). ``None`` without a Prophet.

    Returns
    -------
    int

    Examples
    --------
    >>> new_eleusis_dealer_score([16, 7, 0, 3])
    16
    >>> new_eleusis_dealer_score([12, 8, 21, 0], played_before_marker=8)
    16
    >>> new_eleusis_dealer_score([12, 8, 21, 0], played_before_marker=20)
    21
    """
    scores = check_counts(player_scores, "scores", "New Eleusis", 1)
    best = max(scores)
    if played_before_marker is None:
        return best
    if played_before_marker < 0:
        raise ValueError(f"cards played cannot be negative, got {played_before_marker}")
    return min(best, 2 * int(played_before_marker))


def new_eleusis_match_totals(
    n_participants: int,
    dealers: Sequence[int],
    seats: Sequence[Sequence[int]],
    dealer_scores: Sequence[int],
    player_scores: Sequence[Sequence[int]],
) -> list[int]:
    """Each participant's total over the rounds of a New Eleusis match.

    Every participant deals once. Each round adds its dealer score to its dealer and
    each player's score to the participant at that seat. When the match stops early
    (fewer rounds than participants), every participant who never dealt gets 10.

    Parameters
    ----------
    n_participants : int
        The participants of the match (4 to 8 in RULES.md).
    dealers : sequence of int
        The participant who dealt each round played.
    seats : sequence of sequence of int
        For each round, the participant at each seat (seat 0 first).
    dealer_scores, player_scores
        Each round's dealer score, and its players' scores in seat order.

    Returns
    -------
    list of int

    Examples
    --------
    Four participants, the match stopped after two rounds: 2 and 3 never dealt.

    >>> new_eleusis_match_totals(4, [0, 1], [(1, 2, 3), (2, 3, 0)], [9, 6],
    ...                          [(9, 3, 0), (6, 1, 2)])
    [11, 15, 19, 11]
    """
    totals = [0] * n_participants
    rounds = list(zip(dealers, seats, dealer_scores, player_scores, strict=True))
    for dealer, seated, dealer_score, scores in rounds:
        totals[dealer] += int(dealer_score)
        for who, score in zip(seated, scores, strict=True):
            totals[who] += int(score)
    dealt = set(dealers)
    if len(rounds) < n_participants:
        for who in range(n_participants):
            if who not in dealt:
                totals[who] += NEW_ELEUSIS_NEVER_DEALT
    return totals
