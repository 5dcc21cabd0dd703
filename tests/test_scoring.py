"""Scoring of classic Eleusis: the worked examples of RULES.md and hand-computed cases."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eleusis_lab.games.scoring import classic_dealer_score, classic_player_scores


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
