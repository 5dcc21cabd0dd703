"""LeanTree grows scikit-learn's decision tree: the same nodes and probabilities, ties too."""

import math
import pickle

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from eleusis_agents import lean_tree
from eleusis_agents.lean_tree import _IMPURITIES, LeanTree, _Stream, splitter_seed
from eleusis_agents.learners import DecisionTreeAgent
from eleusis_agents.simple import RandomAgent
from eleusis_lab.games.classic import play_classic


def assert_same_tree(X, y, seed, **params):
    """LeanTree and scikit-learn's tree (through all its checks) agree to the bit."""
    sklearn_tree = DecisionTreeClassifier(random_state=seed, **params).fit(X, y).tree_
    lean = LeanTree(random_state=seed, **params).fit(X, y)
    assert lean.feature_.tolist() == sklearn_tree.feature.tolist()
    assert lean.threshold_.tolist() == sklearn_tree.threshold.tolist()
    assert lean.left_.tolist() == sklearn_tree.children_left.tolist()
    assert lean.right_.tolist() == sklearn_tree.children_right.tolist()
    assert lean.n_examples_.tolist() == sklearn_tree.n_node_samples.tolist()
    # Rows it has not seen, values between and beyond those of the examples included.
    rows = np.random.default_rng(seed).integers(X.min() - 1, X.max() + 2, size=(50, X.shape[1]))
    expected = DecisionTreeClassifier(random_state=seed, **params).fit(X, y).predict_proba(rows)
    assert np.array_equal(lean.predict_proba(rows), expected)
    return lean


def random_table(rng):
    """Small whole-number features and labels, often with exact ties between splits."""
    n, n_features = int(rng.integers(4, 90)), int(rng.integers(1, 25))
    X = rng.integers(-2, int(rng.integers(1, 7)), size=(n, n_features))
    half = n_features // 2
    kind = rng.integers(3)
    if kind >= 1:  # copies of columns: the same best split in several features
        X[:, half : 2 * half] = X[:, :half]
    if kind == 2 and half:  # mirrored: the same split at other thresholds
        X[:, :half] = -X[:, :half]
    y = (X[:, 0] == X[:, -1]).astype(int) if rng.random() < 0.5 else rng.integers(0, 2, n)
    y[rng.random(n) < 0.1] ^= 1
    y[:2] = 0, 1  # both labels (scikit-learn's probabilities have a column per label seen)
    return X, y


@pytest.mark.parametrize("criterion", ["gini", "entropy", "log_loss"])
def test_the_trees_of_random_tables_are_scikit_learns(criterion):
    rng = np.random.default_rng(["gini", "entropy", "log_loss"].index(criterion))
    for _ in range(150):
        X, y = random_table(rng)
        params = {
            "min_samples_leaf": int(rng.choice([1, 1, 2, 3])),
            "max_depth": [None, None, 1, 3][int(rng.integers(4))],
        }
        assert_same_tree(X, y, int(rng.integers(2**31 - 1)), criterion=criterion, **params)


def test_the_trees_of_a_game_are_scikit_learns():
    # Every fit of one agent's game: the feature table the agent grows its trees on.
    agents = [DecisionTreeAgent(), RandomAgent(), DecisionTreeAgent()]
    play_classic("suit(card) == (suit(last) + 1) mod 4", agents, seed=3)
    X, y = agents[0].examples_[: len(agents[0].labels_)], np.array(agents[0].labels_)
    assert len(y) > 40
    for n in range(4, len(y) + 1, 3):
        if 0 < y[:n].sum() < n:
            assert_same_tree(X[:n], y[:n], agents[0].seed_, criterion="entropy")


def test_a_separating_threshold_by_hand():
    X = np.array([[1], [2], [3], [7], [8]])
    tree = LeanTree().fit(X, [1, 1, 0, 0, 0])
    assert tree.feature_.tolist() == [0, -2, -2] and tree.threshold_[0] == 2.5
    assert tree.left_.tolist() == [1, -1, -1] and tree.right_.tolist() == [2, -1, -1]
    assert tree.predict_proba(np.array([[2], [3], [100]])).tolist() == [[0, 1], [1, 0], [1, 0]]


def test_leaf_rates_and_min_samples_leaf_by_hand():
    # Values 0 0 1 1 2 2, right 1 1 1 0 0 0. Gini, weighted by the sides' sizes:
    # x <= 0.5 leaves 2 * 0 + 4 * (1 - 1/16 - 9/16) = 1.5, x <= 1.5 leaves
    # 4 * (1 - 9/16 - 1/16) + 2 * 0 = 1.5 as well: equal, the first threshold wins.
    X = np.array([[0], [0], [1], [1], [2], [2]])
    y = [1, 1, 1, 0, 0, 0]
    tree = LeanTree(max_depth=1).fit(X, y)
    assert tree.threshold_[0] == 0.5
    assert tree.predict_proba(np.array([[0], [2]]))[:, 1].tolist() == [1.0, 1 / 4]
    # Leaves of 3 examples at least: both thresholds leave a side of 2, so no split.
    tree = LeanTree(min_samples_leaf=3).fit(X, y)
    assert tree.feature_.tolist() == [-2] and tree.value_.tolist() == [0.5]


def test_equal_splits_go_to_the_feature_drawn_first_by_hand():
    # Two copies of one column: the split is the same in both. With two features and
    # none known constant, scikit-learn's first draw is rand_int(0, 2): its generator's
    # first value mod 2 is the feature it meets first, and keeps.
    X = np.array([[0, 0], [0, 0], [1, 1], [1, 1]])
    y = [0, 0, 1, 1]
    for seed in (1, 2, 3, 4):
        first = _Stream(seed).grow(1)[0] % 2
        tree = LeanTree().fit(X, y, seed=seed)
        assert tree.feature_[0] == first
    # xorshift from 1: 1 ^ 1 << 13 = 8193; 8193 ^ 8193 >> 17 = 8193; 8193 ^ 8193 << 5.
    assert _Stream(1).grow(1) == [8193 ^ (8193 << 5)] == [270369]
    # So from seed 1 the second feature is drawn first and taken.
    assert LeanTree().fit(X, y, seed=1).feature_[0] == 1
    # The seed is a draw from random_state, as scikit-learn draws it.
    assert splitter_seed(5) == np.random.RandomState(5).randint(0, 2**31 - 1)


def test_the_impurities_by_hand():
    # Entropy in bits, as scikit-learn's: 4 examples, 3 right; 2 examples, 1 right.
    entropy = _IMPURITIES.tables("entropy", 4, 1)[0]
    assert entropy[4, 3] == pytest.approx(-(0.25 * math.log2(0.25) + 0.75 * math.log2(0.75)))
    assert entropy[2, 1] == 1.0 and entropy[3, 0] == entropy[3, 3] == 0.0
    assert _IMPURITIES.tables("log_loss", 4, 1)[0] is entropy
    gini = _IMPURITIES.tables("gini", 4, 1)[0]
    assert gini[4, 3] == 1 - (1 / 16 + 9 / 16) and gini[2, 1] == 0.5
    # Sides of fewer than min_samples_leaf examples are never taken.
    weighted = _IMPURITIES.tables("gini", 4, 2)[1].reshape(len(gini), -1)
    assert np.isinf(weighted[1]).all() and weighted[4, 3] == 4 * gini[4, 3]


def test_a_pure_or_constant_table_is_one_leaf():
    tree = LeanTree().fit(np.array([[1, 2], [3, 4]]), [1, 1])
    assert tree.feature_.tolist() == [-2] and tree.value_.tolist() == [1.0]
    tree = LeanTree().fit(np.array([[1, 2], [1, 2], [1, 2]]), [1, 0, 0])
    assert tree.feature_.tolist() == [-2] and tree.value_.tolist() == [1 / 3]


def test_floats_holding_whole_numbers_give_the_same_tree():
    rng = np.random.default_rng(7)
    X, y = random_table(rng)
    as_ints = LeanTree(random_state=3).fit(X, y)
    as_floats = LeanTree(random_state=3).fit(X.astype(np.float64), y)
    assert str(as_ints) == str(as_floats)
    assert np.array_equal(as_ints.threshold_, as_floats.threshold_)


def test_pickles_and_predicts_the_same():
    X, y = random_table(np.random.default_rng(2))
    tree = LeanTree(random_state=1).fit(X, y)
    copy = pickle.loads(pickle.dumps(tree))
    assert np.array_equal(copy.predict_proba(X), tree.predict_proba(X))
    assert np.array_equal(tree.right_probability(X), tree.predict_proba(X)[:, 1])


@pytest.mark.parametrize(
    "params, message",
    [
        ({"criterion": "gain"}, "criterion must be one of"),
        ({"max_depth": 0}, "max_depth must be None or an int >= 1"),
        ({"max_depth": True}, "max_depth must be None or an int >= 1"),
        ({"min_samples_leaf": 0}, "min_samples_leaf must be an int >= 1"),
        ({"random_state": "seven"}, "random_state must be None, an int or a RandomState"),
    ],
)
def test_bad_parameters_are_named(params, message):
    with pytest.raises(ValueError, match=message):
        LeanTree(**params).fit(np.array([[0], [1]]), [0, 1])


@pytest.mark.parametrize(
    "X, y, message",
    [
        ([[0.5], [1]], [0, 1], "whole numbers"),
        ([[np.nan], [1]], [0, 1], "whole numbers"),
        ([[0], [1]], [0, 2], "labels must be 0 and 1"),
        ([0, 1], [0, 1], "expected n rows"),
        ([[0], [1]], [0], "expected n rows"),
    ],
)
def test_bad_data_is_named(X, y, message):
    with pytest.raises(ValueError, match=message):
        LeanTree().fit(X, y)


def test_past_max_examples_the_agent_grows_scikit_learns_tree_and_plays_the_same(monkeypatch):
    def game():
        agents = [DecisionTreeAgent(), RandomAgent(), DecisionTreeAgent()]
        record = play_classic("suit(card) == (suit(last) + 1) mod 4", agents, seed=3)
        return record, agents[0]

    lean_record, lean = game()
    assert isinstance(lean.estimator_, LeanTree)
    monkeypatch.setattr(lean_tree, "MAX_EXAMPLES", 10)
    with pytest.raises(ValueError, match="at most 10 examples"):
        LeanTree().fit(np.zeros((11, 1)), [0, 1] * 5 + [0])
    record, agent = game()
    assert isinstance(agent.estimator_, DecisionTreeClassifier)
    assert record.events == lean_record.events
