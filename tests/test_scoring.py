"""Scoring of the games: the worked examples of RULES.md and hand-computed cases."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eleusis_lab.games.classic.scoring import classic_dealer_score, classic_player_scores
from eleusis_lab.games.delphi.scoring import delphi_chips, delphi_scores
from eleusis_lab.games.four_to_eight.scoring import (
    four_to_eight_dealer_score,
    four_to_eight_player_scores,
)


def test_rules_example_dealer_score():
    # RULES.md 1.4: N=3, counts 10, 5, 3 -> S=15, m=3, 15 - 2*3 = 9.
    assert classic_dealer_score([10, 5, 3]) == 9


def test_rules_example_player_scores():
    # RULES.md 1.6: N=4, cards 2, 3, 10, 0 -> 7, 3, 0, 21.
    assert classic_player_scores([2, 3, 10, 0]) == [7, 3, 0, 21]


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        ([4, 9], 5),  # N=2: the difference
        ([9, 4], 5),
        ([0, 7], 7),
        ([3, 3, 7], 4),  # tie for fewest: S = 3 + 7, m = 3
        ([5, 5, 5], 0),  # everyone equal
        ([0, 0, 0, 12], 12),
        ([10, 5, 3, 3], 9),  # N=4, a tie: S = 10 + 5 + 3, m = 3
    ],
)
def test_dealer_score_by_hand(counts, expected):
    assert classic_dealer_score(counts) == expected


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        ([3, 5], [8.0, 0.0]),  # N=2, nobody out: 5 - 3 = 2, plus the bonus
        ([0, 5], [11.0, 0.0]),  # N=2, a player out
        ([2, 2, 5], [6.0, 6.0, 0.0]),  # bonus split in two: 3 each
        ([1, 1, 1, 4], [5.0, 5.0, 5.0, 0.0]),  # split in three: 2 each
        ([2, 2, 2, 2], [1.5, 1.5, 1.5, 1.5]),  # split in four: 1.5 each
        ([0, 0, 4], [10.0, 10.0, 0.0]),  # two players out: each gets the whole bonus
        ([6, 1, 8], [0.0, 18.0, 0.0]),
    ],
)
def test_player_scores_by_hand(cards, expected):
    assert classic_player_scores(cards) == expected


def test_bonus_shares():
    for players in (2, 3, 4):
        shares = classic_player_scores([3] * players)
        assert shares == [6 / players] * players


@given(st.lists(st.integers(0, 30), min_size=2, max_size=8))
def test_dealer_score_formula(counts):
    # The leader has the fewest, so S - (N-1)*m = sum - N*m, never negative: the
    # "may be negative" of RULES.md cannot happen with the classic multiplier N-1.
    score = classic_dealer_score(counts)
    assert score == sum(counts) - len(counts) * min(counts)
    assert score >= 0
    assert (score == 0) == (len(set(counts)) == 1)


@given(st.lists(st.integers(0, 30), min_size=2, max_size=8))
def test_player_scores_formula(cards):
    scores = classic_player_scores(cards)
    n, total = len(cards), sum(cards)
    fewest = [i for i, c in enumerate(cards) if c == min(cards)]
    bonus_total = 6 * len(fewest) if min(cards) == 0 else 6
    assert sum(scores) == pytest.approx(
        sum(max(0, total - c - (n - 1) * c) for c in cards) + bonus_total
    )
    assert all(s >= 0 for s in scores)
    assert max(scores) == pytest.approx(max(scores[i] for i in fewest))


@pytest.mark.parametrize("bad", [[], [3], [2, -1]])
def test_bad_counts_raise(bad):
    with pytest.raises(ValueError):
        classic_dealer_score(bad)
    with pytest.raises(ValueError):
        classic_player_scores(bad)


# -- the 4-8 player variant (RULES.md section 2) -------------------------------------------


def test_rules_example_four_to_eight_dealer_score():
    # RULES.md section 2: N=3, counts 10, 5, 3 -> 15 - 3*3 = 6 (multiplier N, not N-1).
    assert four_to_eight_dealer_score([10, 5, 3]) == 6


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        ([4, 9], 9 - 2 * 4),
        ([3, 3, 3], 6 - 9),  # everyone equal: negative, no floor
        ([0, 5, 7], 12),
        ([3, 3, 7], 10 - 9),  # a tie for fewest: only one of them is left out of the total
        ([10, 5, 3, 3], 18 - 12),
        ([0, 0, 0, 0, 0], 0),
    ],
)
def test_four_to_eight_dealer_score_by_hand(counts, expected):
    assert four_to_eight_dealer_score(counts) == expected


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        ([4, 0, 7], [0.0, 17.0, 0.0]),  # out: 6 + the others' 11 wrong cards
        ([0, 1], [7.0, 0.0]),
        ([2, 5, 4], [7.0, 0.0, 0.0]),  # no card can be played: (5 + 4) - 2, no bonus
        ([2, 2, 5], [2.5, 2.5, 0.0]),  # tie: (7 - 2) split in two
        ([3, 3, 3], [1.0, 1.0, 1.0]),  # (6 - 3) split in three
        ([0, 0, 6], [6.0, 6.0, 0.0]),  # two out at once: 6 + 6 split in two
        ([1, 9, 9, 9, 9, 9], [44.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    ],
)
def test_four_to_eight_player_scores_by_hand(cards, expected):
    assert four_to_eight_player_scores(cards) == expected


@given(st.lists(st.integers(0, 30), min_size=2, max_size=8))
def test_four_to_eight_formulas(counts):
    n, total, fewest = len(counts), sum(counts), min(counts)
    assert four_to_eight_dealer_score(counts) == total - (n + 1) * fewest
    scores = four_to_eight_player_scores(counts)
    winners = [i for i, c in enumerate(counts) if c == fewest]
    value = total - 2 * fewest + (6 if fewest == 0 else 0)
    assert sum(scores) == pytest.approx(value)
    assert all(scores[i] == 0 for i in range(n) if i not in winners)
    assert all(s >= 0 for s in scores)


@pytest.mark.parametrize("bad", [[], [3], [2, -1]])
def test_four_to_eight_bad_counts_raise(bad):
    with pytest.raises(ValueError):
        four_to_eight_dealer_score(bad)
    with pytest.raises(ValueError):
        four_to_eight_player_scores(bad)


# -- Delphi (RULES.md section 3) -----------------------------------------------------------


def test_rules_example_delphi_scores():
    # RULES.md section 3: chips 19, 16, 3 -> players 19, 10, -29; oracle 3 + 16 + 13 = 32.
    assert delphi_scores([19, 16, 3]) == ([19, 10, -29], 32)


@pytest.mark.parametrize(
    ("chips", "players", "oracle"),
    [
        ([5], [0], 0),  # one player: nothing to settle
        ([0, 0], [0, 0], 0),
        ([7, 2], [5, -5], 5),
        ([3, 19, 16], [-29, 19, 10], 32),  # the worked example in another seat order
        ([4, 4, 1, 0], [7, 7, -5, -9], 0 + 3 + 4 + 3 + 4 + 1),
    ],
)
def test_delphi_scores_by_hand(chips, players, oracle):
    assert delphi_scores(chips) == (players, oracle)


@given(st.lists(st.integers(0, 60), min_size=1, max_size=8))
def test_delphi_settlement_formula(chips):
    players, oracle = delphi_scores(chips)
    assert players == [sum(c - d for d in chips) for c in chips]
    assert sum(players) == 0
    assert oracle == sum(max(0, c - d) for c in chips for d in chips)


def test_delphi_chips():
    # A correct token wins a chip; a wrong one gives all the player's chips away.
    hits = [[True, True, False], [True, False, True], [True, True, True], [False, True, True]]
    assert delphi_chips(hits) == [0, 2, 3]
    assert delphi_chips([[True]] * 51) == [51]


@pytest.mark.parametrize("bad", [[], [[]], [[True], [True, False]]])
def test_delphi_bad_input_raises(bad):
    with pytest.raises(ValueError):
        delphi_chips(bad)


def test_delphi_negative_chips_raise():
    with pytest.raises(ValueError):
        delphi_scores([1, -1])
    with pytest.raises(ValueError):
        delphi_scores([])
