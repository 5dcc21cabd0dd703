"""Scoring of the games, as pure functions of the final counts (RULES.md).

The engines call these functions and the tests check them against the worked
examples of RULES.md, so a formula is written once, here, and nowhere else.

>>> classic_dealer_score([10, 5, 3])
9
>>> classic_player_scores([2, 3, 10, 0])
[7.0, 3.0, 0.0, 21.0]
"""

from __future__ import annotations

from collections.abc import Sequence

#: Bonus of a player who has no cards left at the end of classic Eleusis.
CLASSIC_OUT_BONUS = 6


def _check_counts(counts: Sequence[int], what: str) -> list[int]:
    values = [int(count) for count in counts]
    if len(values) < 2:
        raise ValueError(f"classic Eleusis needs at least 2 players' {what}, got {len(values)}")
    if any(value < 0 for value in values):
        raise ValueError(f"{what} cannot be negative, got {values}")
    return values


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
    counts = _check_counts(wrong_counts, "wrong-card counts")
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
    counts = _check_counts(cards_left, "card counts")
    n, total = len(counts), sum(counts)
    scores = [float(max(0, (total - c) - (n - 1) * c)) for c in counts]
    fewest = min(counts)
    winners = [i for i, c in enumerate(counts) if c == fewest]
    # A player who went out earns the whole bonus; otherwise the fewest share one bonus.
    bonus = CLASSIC_OUT_BONUS if fewest == 0 else CLASSIC_OUT_BONUS / len(winners)
    for i in winners:
        scores[i] += bonus
    return scores


# -- the 4-8 player variant (RULES.md section 2) ------------------------------------------

#: Bonus of the player who goes out in the 4-8 player variant.
FOUR_TO_EIGHT_OUT_BONUS = 6


def _check_player_counts(counts: Sequence[int], what: str, game: str, minimum: int) -> list[int]:
    values = [int(count) for count in counts]
    if len(values) < minimum:
        raise ValueError(f"{game} needs at least {minimum} players' {what}, got {len(values)}")
    if any(value < 0 for value in values):
        raise ValueError(f"{what} cannot be negative, got {values}")
    return values


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
    counts = _check_player_counts(wrong_counts, "wrong-card counts", "the 4-8 player variant", 2)
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
    counts = _check_player_counts(cards_left, "card counts", "the 4-8 player variant", 2)
    fewest = min(counts)
    winners = [i for i, c in enumerate(counts) if c == fewest]
    # (sum of the others' cards) - own, for any one of the tied players, plus the bonus.
    value = sum(counts) - 2 * fewest + (FOUR_TO_EIGHT_OUT_BONUS if fewest == 0 else 0)
    share = value / len(winners)
    return [share if c == fewest else 0.0 for c in counts]


# -- Delphi (RULES.md section 3) ------------------------------------------------------------


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
    counts = _check_player_counts(chips, "chip counts", "Delphi", 1)
    n, total = len(counts), sum(counts)
    players = [n * c - total for c in counts]
    ordered = sorted(counts)
    # Sum over pairs of |c_i - c_j|: the k-th smallest is larger than k others.
    oracle = sum((2 * k - n + 1) * c for k, c in enumerate(ordered))
    return players, oracle


# -- New Eleusis (RULES.md section 5) ------------------------------------------------------

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
    sizes = _check_player_counts(hand_sizes, "hand sizes", "New Eleusis", 1)
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
    scores = _check_player_counts(player_scores, "scores", "New Eleusis", 1)
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
