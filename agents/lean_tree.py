"""scikit-learn's decision tree over small whole-number features, in numpy alone.

`LeanTree` grows the tree `sklearn.tree.DecisionTreeClassifier` grows with the same
settings and ``random_state`` on 0/1 labels: the same tests, thresholds, leaves and
probabilities, bit for bit, ties included. It reproduces what decides them:

- the best split of a node maximises scikit-learn's proxy of the impurity decrease,
  computed with the same floating-point operations (the entropies with the C library's
  ``log``, as scikit-learn's Cython does, tabled once per process);
- scikit-learn draws the features of each node in a random order (a Fisher-Yates
  shuffle with its xorshift generator, seeded by one draw from ``random_state``, over
  a feature array that carries over from node to node and skips known constant
  features) and keeps the first best split it meets: `LeanTree` replays those draws;
- the nodes are grown depth first, left child first; a node is a leaf when it is pure,
  too small, at ``max_depth``, or when no feature takes two values in it.

"The same floats" assumes the C compiler kept scikit-learn's multiplications and
subtractions apart, as its x86-64 wheels do (their baseline has no fused multiply-add);
the tests compare the two trees on random tables wherever they run.

What it saves is scikit-learn's work around the tree: checking and converting the
input, encoding the labels, building the splitter and its arrays. The features of
`eleusis_lab.features` are small integers, so a split search is one count of the
examples per (feature, value) and verdict, whose running sums give every threshold's
two sides at once, without sorting.

Examples
--------
Right exactly when the first feature is at most 2, and when the second is 5: either
feature separates the labels, and the tree takes the one drawn first.

>>> import numpy as np
>>> X = np.array([[0, 5], [1, 5], [2, 5], [3, 7], [4, 7]])
>>> y = [1, 1, 1, 0, 0]
>>> print(LeanTree(random_state=2).fit(X, y))
x[0] <= 2.5
  yes: 1 (3 of 3 right)
  no: 0 (0 of 2 right)
>>> tree = LeanTree(random_state=1).fit(X, y)
>>> print(tree)
x[1] <= 6
  yes: 1 (3 of 3 right)
  no: 0 (0 of 2 right)
>>> tree.predict_proba(np.array([[2, 9], [3, 5]]))[:, 1].tolist()
[0.0, 1.0]

scikit-learn grows the same trees:

>>> from sklearn.tree import DecisionTreeClassifier
>>> [int(DecisionTreeClassifier(random_state=seed).fit(X, y).tree_.feature[0]) for seed in (2, 1)]
[0, 1]
"""

from __future__ import annotations

import math

import numpy as np

from eleusis_lab.engines import is_int

__all__ = ["CRITERIA", "MAX_EXAMPLES", "LeanTree", "splitter_seed"]

#: The split criteria, as scikit-learn names them ("log_loss" is "entropy").
CRITERIA = ("gini", "entropy", "log_loss")

_RAND_R_MAX = 2**31 - 1  # scikit-learn's RAND_R_MAX
_EPSILON = float(np.finfo(np.float64).eps)  # scikit-learn's EPSILON in tree building
_MAX_DEPTH = int(np.iinfo(np.int32).max)  # max_depth=None

#: The most examples `LeanTree` fits: its tables of impurities are square in the number
#: of examples (8 MB each at 1024) and built once per process (0.3 s at 1024).
MAX_EXAMPLES = 1024


class _Impurities:
    """Node impurities by (examples, of them right), computed as scikit-learn does.

    ``tables(criterion, n, leaf)[0]`` is a square array ``T``, ``T[m, k]`` the impurity of a
    node of ``m <= n`` examples, ``k`` of them right: the exact float scikit-learn's
    criterion computes, in the same order of operations (class 0 first). The entropy
    is computed with `math.log` (the C library's ``log``, as in scikit-learn's Cython),
    not `numpy.log`, whose vectorised versions may differ in the last bit. Tables grow
    by doubling and are shared by every tree of the process.
    """

    def __init__(self) -> None:
        self.impurities: dict[str, np.ndarray] = {}
        self.weighted: dict[tuple[str, int], np.ndarray] = {}

    def tables(self, criterion: str, n: int, leaf: int) -> tuple[np.ndarray, np.ndarray]:
        """The impurities ``T`` (``T[m, k]``, for ``m <= n``) and ``m * T[m, k]`` flat.

        In the second, at ``m * len(T) + k``, sides of fewer than ``leaf`` examples
        are ``inf``: no split leaves one.
        """
        criterion = "entropy" if criterion == "log_loss" else criterion
        table = self.impurities.get(criterion)
        if table is None or len(table) <= n:
            size = min(max(128, 2 ** math.ceil(math.log2(n + 1))), MAX_EXAMPLES + 1)
            table = self._entropy(size) if criterion == "entropy" else self._gini(size)
            self.impurities[criterion] = table
            self.weighted = {key: w for key, w in self.weighted.items() if key[0] != criterion}
        weighted = self.weighted.get((criterion, leaf))
        if weighted is None:
            m = np.arange(len(table), dtype=np.float64)[:, None]
            weighted = m * table  # the products scikit-learn computes
            weighted[:leaf] = np.inf
            weighted = self.weighted[criterion, leaf] = weighted.ravel()
        return table, weighted

    @staticmethod
    def _entropy(size: int) -> np.ndarray:
        table = np.zeros((size, size))
        log, ln2 = math.log, math.log(2.0)
        for m in range(2, size):
            row = table[m]
            for k in range(1, m):
                # sklearn.tree._criterion.Entropy: entropy -= p * log2(p), class by class,
                # with log2(p) = log(p) / log(2.0).
                p0, p1 = (m - k) / m, k / m
                entropy = 0.0
                entropy -= p0 * (log(p0) / ln2)
                entropy -= p1 * (log(p1) / ln2)
                row[k] = entropy
        return table

    @staticmethod
    def _gini(size: int) -> np.ndarray:
        m = np.arange(size, dtype=np.float64)[:, None]
        k = np.arange(size, dtype=np.float64)[None, :]
        # sklearn.tree._criterion.Gini: 1 - (c0 * c0 + c1 * c1) / (m * m); IEEE products,
        # sums and quotients are exact to the bit, so numpy computes the same floats.
        with np.errstate(divide="ignore", invalid="ignore"):
            table = 1.0 - ((0.0 + (m - k) * (m - k)) + k * k) / (m * m)
        table[~np.isfinite(table)] = 0.0
        return table


_IMPURITIES = _Impurities()


class LeanTree:
    """A CART decision tree for 0/1 labels, the one scikit-learn grows, without it.

    The parameters are `sklearn.tree.DecisionTreeClassifier`'s of the same names; the
    others are its defaults (``splitter="best"``, ``max_features=None``,
    ``min_samples_split=2``, no weights, no ``max_leaf_nodes``). The features must be
    whole numbers (of any dtype) small enough to count: each feature's values are
    counted from its smallest, so its range is the size of a count array. At most
    `MAX_EXAMPLES` examples: it is for small tables, where scikit-learn's work around a
    fit costs more than the fit.

    Parameters
    ----------
    criterion : {"gini", "entropy", "log_loss"}
        Split quality.
    max_depth : int or None
        Deepest leaf (the root is at depth 0); ``None``: grow until the leaves are pure.
    min_samples_leaf : int
        Fewest examples on each side of a split.
    random_state : int, numpy.random.RandomState or None
        Where the order of the features is drawn from, as in scikit-learn: one integer
        drawn per fit seeds the tree's own generator.

    Attributes
    ----------
    feature_, threshold_, left_, right_ : numpy.ndarray
        Per node, in scikit-learn's order (depth first, left first): the feature tested
        (-2 for a leaf), the threshold (rows with ``x <= threshold`` go left; -2.0 for a
        leaf), and the children (-1 for a leaf): scikit-learn's ``tree_.feature``,
        ``tree_.threshold``, ``tree_.children_left`` and ``tree_.children_right``.
    n_right_, n_examples_ : numpy.ndarray
        Per node: how many of its examples are labelled 1, how many it has.

    Examples
    --------
    >>> X = np.array([[1], [2], [3], [7], [8]])
    >>> tree = LeanTree().fit(X, [1, 1, 0, 0, 0])
    >>> tree.threshold_.tolist(), tree.predict_proba(np.array([[0], [5]]))[:, 1].tolist()
    ([2.5, -2.0, -2.0], [1.0, 0.0])
    """

    def __init__(
        self,
        criterion: str = "gini",
        max_depth: int | None = None,
        min_samples_leaf: int = 1,
        random_state: int | np.random.RandomState | None = None,
    ):
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.random_state = random_state

    def check_params(self) -> None:
        """The parameters are in range (booleans refused)."""
        if self.criterion not in CRITERIA:
            raise ValueError(
                f"criterion must be one of {', '.join(CRITERIA)}, got {self.criterion!r}"
            )
        if not (self.max_depth is None or (is_int(self.max_depth) and self.max_depth >= 1)):
            raise ValueError(f"max_depth must be None or an int >= 1, got {self.max_depth!r}")
        if not (is_int(self.min_samples_leaf) and self.min_samples_leaf >= 1):
            raise ValueError(f"min_samples_leaf must be an int >= 1, got {self.min_samples_leaf!r}")
        state = self.random_state
        if not (state is None or is_int(state) or isinstance(state, np.random.RandomState)):
            raise ValueError(f"random_state must be None, an int or a RandomState, got {state!r}")

    def fit(self, X, y, check_input: bool = True, seed: int | None = None) -> LeanTree:
        """Grow the tree on rows ``X`` (whole numbers) and labels ``y`` (0 and 1).

        ``check_input=False`` skips checking the parameters and data, for a caller that
        knows them good: ``X`` a 2-D array of whole numbers, ``y`` an integer array of 0
        and 1 as long. ``seed``, if given, is used instead of drawing
        ``splitter_seed(random_state)``: a caller that fits many trees with one
        integer ``random_state`` can draw it once.
        """
        if check_input:
            self.check_params()
            X, y = np.asarray(X), np.asarray(y)
            _check_data(X, y)
        if len(X) > MAX_EXAMPLES:
            raise ValueError(f"LeanTree fits at most {MAX_EXAMPLES} examples, got {len(X)}")
        stream = _stream(splitter_seed(self.random_state) if seed is None else seed)
        max_depth = _MAX_DEPTH if self.max_depth is None else self.max_depth
        nodes = _Builder(X, y, self.criterion, max_depth, self.min_samples_leaf, stream).nodes
        feature, threshold, left, right, n_right, n_examples = map(
            np.array, zip(*nodes, strict=True)
        )
        self.feature_, self.threshold_ = feature, threshold.astype(np.float64)
        self.left_, self.right_ = left, right
        self.n_right_, self.n_examples_ = n_right, n_examples
        self.value_ = n_right / n_examples  # scikit-learn's leaf value of class 1
        self.n_features_in_ = X.shape[1]
        return self

    def apply(self, X) -> np.ndarray:
        """The leaf each row of ``X`` falls in (``x <= threshold`` goes left).

        >>> tree = LeanTree().fit(np.array([[1], [2], [3]]), [1, 0, 0])
        >>> tree.threshold_[0], tree.apply(np.array([[0], [1.5], [2]])).tolist()
        (np.float64(1.5), [1, 1, 2])
        """
        X = np.asarray(X)
        node = np.zeros(len(X), dtype=np.intp)
        rows = np.arange(len(X))
        feature, threshold, left, right = self.feature_, self.threshold_, self.left_, self.right_
        while True:
            tested = feature[node]
            inside = tested >= 0
            if not inside.any():
                return node
            at = node[inside]
            goes_left = X[rows[inside], tested[inside]] <= threshold[at]
            node[inside] = np.where(goes_left, left[at], right[at])

    def predict_proba(self, X) -> np.ndarray:
        """Per row of ``X``: the probability of label 0 and of 1 (its leaf's rates).

        The floats scikit-learn's ``predict_proba`` gives: a leaf's count of each label
        divided by its count of examples.
        """
        leaf = self.apply(X)
        n = self.n_examples_[leaf]
        return np.column_stack([(n - self.n_right_[leaf]) / n, self.value_[leaf]])

    def right_probability(self, X) -> np.ndarray:
        """``predict_proba(X)[:, 1]``, without building the column of label 0.

        >>> tree = LeanTree().fit(np.array([[1], [2], [3]]), [1, 0, 0])
        >>> tree.right_probability(np.array([[0], [5]])).tolist()
        [1.0, 0.0]
        """
        return self.value_[self.apply(X)]

    def __str__(self) -> str:
        """The tree, a node a line: its test, or its rate (right of examples) if a leaf."""
        lines: list[str] = []
        self._describe(0, "", "", lines)
        return "\n".join(lines)

    def _describe(self, node: int, indent: str, lead: str, lines: list[str]) -> None:
        feature = self.feature_[node]
        if feature < 0:
            right, n = int(self.n_right_[node]), int(self.n_examples_[node])
            lines.append(f"{indent}{lead}{right / n:.3g} ({right} of {n} right)")
            return
        lines.append(f"{indent}{lead}x[{feature}] <= {self.threshold_[node]:g}")
        self._describe(self.left_[node], indent + "  ", "yes: ", lines)
        self._describe(self.right_[node], indent + "  ", "no: ", lines)


def splitter_seed(random_state: int | np.random.RandomState | None) -> int:
    """The seed of the tree's own generator: one draw from ``random_state``.

    As scikit-learn's splitter draws it at the start of every fit: the same for every
    fit with the same integer ``random_state``.

    >>> splitter_seed(0) == splitter_seed(np.random.RandomState(0))
    True
    """
    if random_state is None:
        random_state = np.random.mtrand._rand  # numpy's global generator, as scikit-learn's
    elif not isinstance(random_state, np.random.RandomState):
        random_state = np.random.RandomState(random_state)
    return int(random_state.randint(0, _RAND_R_MAX))


class _Builder:
    """One fit: grows the nodes as scikit-learn's ``DepthFirstTreeBuilder`` does.

    ``nodes`` lists them depth first, left child first: [feature, threshold, left child,
    right child, examples right, examples], with feature -2, threshold -2.0 and
    children -1 for a leaf.

    Each feature's values are counted from its smallest (its codes), and each (feature,
    code) has a cell, feature after feature, so that one count of a node's examples by
    cell serves every feature at once. A count of ``m`` examples, ``k`` of them right,
    is kept as the one number ``m * width + k`` (``width`` more than any count): its
    running sums within a feature are the counts on the left of each threshold, and an
    index into the tables of impurities.
    """

    def __init__(self, X, y, criterion: str, max_depth: int, leaf: int, stream: _Stream):
        n, n_features = X.shape
        low = X.min(axis=0)
        codes = (X - low).astype(np.intp)
        widths = codes.max(axis=0) + 1
        starts = np.cumsum(widths) - widths
        self.size = int(starts[-1] + widths[-1])
        self.cells = codes + starts
        self.labelled = 2 * self.cells + np.asarray(y, dtype=np.intp)[:, None]
        self.cell_feature = np.repeat(np.arange(n_features), widths)
        self.low, self.starts = low.tolist(), starts.tolist()
        self.impurity, self.weighted = _IMPURITIES.tables(criterion, n, leaf)
        self.width = width = len(self.impurity)
        self.weights = np.array([width, width + 1])  # a wrong example, a right one
        self.n, self.max_depth, self.smallest = n, max_depth, max(2, 2 * leaf)
        self.stream, self.position = stream, 0
        self.features = list(range(n_features))  # the splitter's `features`
        self.constants = [0] * n_features  # and its `constant_features`
        self.nodes: list[list] = []
        rows, right = np.arange(n), int(np.count_nonzero(y))
        impurity = float(self.impurity[n, right])
        if not self.leaf(n, 0, impurity):
            self.grow(rows, right, 0, impurity, 0, self.count(rows))
        else:
            self.nodes.append([-2, -2.0, -1, -1, right, n])

    def leaf(self, n: int, depth: int, impurity: float) -> bool:
        """A node of ``n`` examples at ``depth`` is a leaf before any split is tried."""
        return depth >= self.max_depth or n < self.smallest or impurity <= _EPSILON

    def count(self, rows: np.ndarray) -> np.ndarray:
        """Per cell, the examples of ``rows`` with that value, as one number (see above)."""
        counts = np.bincount(self.labelled[rows].ravel(), minlength=2 * self.size)
        return counts.reshape(-1, 2) @ self.weights

    def grow(self, rows, right: int, depth: int, impurity: float, known: int, counts) -> None:
        """Append the node of ``rows``, which is no leaf before a split is tried, and its
        subtree.

        ``right`` of the rows are labelled 1, ``impurity`` is the node's, ``known``
        features are known constant in it (found so by its ancestors), and ``counts``
        are its counts per cell (`count`).
        """
        n = len(rows)
        record = [-2, -2.0, -1, -1, right, n]
        self.nodes.append(record)
        split = self.split(rows, right, impurity, known, counts)
        if split is None:
            return
        feature, threshold, goes_left, left_right, known = split
        record[0], record[1] = feature, threshold
        sides = []
        for side_rows, side_right in (
            (rows[goes_left], left_right),
            (rows[~goes_left], right - left_right),
        ):
            side_impurity = float(self.impurity[len(side_rows), side_right])
            grows = not self.leaf(len(side_rows), depth + 1, side_impurity)
            sides.append((side_rows, side_right, side_impurity, grows))
        # The counts of a side that grows: of the smaller side counted, or the node's
        # less those (scikit-learn counts both; the numbers are the same).
        (left_rows, _, _, left_grows), (right_rows, _, _, right_grows) = sides
        small = 0 if len(left_rows) <= len(right_rows) else 1
        small_counts = self.count(sides[small][0]) if left_grows or right_grows else None
        for side, (side_rows, side_right, side_impurity, grows) in enumerate(sides):
            record[2 + side] = len(self.nodes)
            if grows:
                side_counts = small_counts if side == small else counts - small_counts
                self.grow(side_rows, side_right, depth + 1, side_impurity, known, side_counts)
            else:
                self.nodes.append([-2, -2.0, -1, -1, side_right, len(side_rows)])

    def split(self, rows: np.ndarray, right: int, impurity: float, known: int, counts):
        """The best split of a node, as scikit-learn's ``node_split_best`` finds it.

        (feature, threshold, which rows go left, how many of those are right, how many
        features the children know constant), or None for a leaf.
        """
        n, width, cell_feature = len(rows), self.width, self.cell_feature
        whole = n * width + right  # the node's count, as one number
        # Every example is counted once per feature, so a feature's counts sum to
        # `whole`: the running sum less that of the features before is the count of the
        # examples at most the cell's value, on the left of a threshold after it.
        left = counts.cumsum() - cell_feature * whole
        constant = np.zeros(len(self.features), dtype=bool)
        constant[cell_feature[counts == whole]] = True  # a feature with one value here
        order, known = self.draw(constant.tolist(), known)
        # proxy_impurity_improvement: - n_right * impurity_right - n_left * impurity_left,
        # -inf where a side has fewer than min_samples_leaf examples, as after a
        # feature's largest value. (Past a value absent from the node, the count is
        # that of the value before it, present, which comes first.)
        weighted = self.weighted
        proxy = -weighted[whole - left] - weighted[left]
        best_proxy = proxy.max()
        if best_proxy == -np.inf:
            return None
        tied = np.flatnonzero(proxy == best_proxy).tolist()
        # The best split met first: that of the first feature drawn among the best,
        # at its lowest threshold.
        best = tied[0]
        if cell_feature[tied[-1]] != cell_feature[best]:
            rank = {feature: i for i, feature in enumerate(order)}
            best = min(tied, key=lambda cell: rank[cell_feature[cell]])
        feature = int(cell_feature[best])
        # Its threshold is halfway to the next value present in the node.
        following = best + 1 + int(np.flatnonzero(counts[best + 1 :])[0])
        # A cell's value: its feature's smallest plus its place among its feature's cells.
        offset = self.low[feature] - self.starts[feature]
        threshold = float(best + offset) / 2.0 + float(following + offset) / 2.0
        # impurity_improvement, for the builder's test: a split that lowers nothing
        # (numerically, less than nothing) makes a leaf, as there.
        n_left, left_right = divmod(int(left[best]), width)
        n_right = n - n_left
        table = self.impurity
        impurity_left = float(table[n_left, left_right])
        impurity_right = float(table[n_right, right - left_right])
        improvement = (n / self.n) * (
            impurity - (n_right / n * impurity_right) - (n_left / n * impurity_left)
        )
        if improvement + _EPSILON < 0.0:
            return None
        return feature, threshold, self.cells[rows, feature] <= best, left_right, known

    def draw(self, constant: list[bool], known: int) -> tuple[list[int], int]:
        """Replay scikit-learn's draws of the features at a node (``node_split_best``).

        ``constant`` says which features take one value in the node; ``known`` is how
        many features the node's ancestors found constant. Returns the non-constant
        features in the order drawn, and how many features the node's children know
        constant. Updates the feature arrays and the generator as scikit-learn does,
        so that the next node draws as there.

        scikit-learn draws ``rand_int(drawn, f_i - found)`` while ``f_i > known +
        found`` and ``visited < n_features`` (or ...): every draw adds one to ``drawn``
        or ``found`` or takes one from ``f_i``, so the second condition holds while the
        first does, and is left out.
        """
        features, constants = self.features, self.constants
        values, position = self.stream.values, self.position
        f_i = n_features = len(features)
        size = n_features  # of the range drawn from: f_i - found - drawn
        found = drawn = 0
        total = known
        if position + size > len(values):
            values = self.stream.grow(max(256, position + size))
        while f_i > total:
            f_j = drawn + values[position] % size
            position += 1
            size -= 1
            if f_j < known:
                features[drawn], features[f_j] = features[f_j], features[drawn]
                drawn += 1
                continue
            f_j += found
            if constant[features[f_j]]:
                features[f_j], features[total] = features[total], features[f_j]
                found += 1
                total += 1
                continue
            f_i -= 1
            features[f_i], features[f_j] = features[f_j], features[f_i]
        self.position = position
        order = features[: f_i - 1 : -1] if f_i else features[::-1]  # drawn to the end
        features[:known] = constants[:known]
        constants[known:total] = features[known:total]
        return order, total


class _Stream:
    """The values of scikit-learn's ``our_rand_r`` from one seed, in a list grown on demand.

    (A 32-bit xorshift, 0 replaced by 1, its values taken modulo 2**31.)

    >>> _Stream(1).grow(3)
    [270369, 67634689, 499951813]
    """

    def __init__(self, seed: int):
        self.state = seed
        self.values: list[int] = []

    def grow(self, more: int) -> list[int]:
        """Draw ``more`` values more; the list of all the values drawn."""
        state, values = self.state, self.values
        for _ in range(more):
            if state == 0:
                state = 1
            state ^= (state << 13) & 0xFFFFFFFF
            state ^= state >> 17
            state ^= (state << 5) & 0xFFFFFFFF
            values.append(state & 0x7FFFFFFF)
        self.state = state
        return values


_STREAMS: dict[int, _Stream] = {}


def _stream(seed: int) -> _Stream:
    """The stream of ``seed``; those of the last few seeds are kept (a game's fits share one)."""
    stream = _STREAMS.get(seed)
    if stream is None:
        if len(_STREAMS) >= 8:
            del _STREAMS[next(iter(_STREAMS))]
        stream = _STREAMS[seed] = _Stream(seed)
    return stream


def _check_data(X: np.ndarray, y: np.ndarray) -> None:
    if X.ndim != 2 or y.shape != (len(X),) or len(X) == 0 or X.shape[1] == 0:
        raise ValueError(f"expected n rows of features and n labels, got {X.shape}, {y.shape}")
    if not (np.isfinite(X).all() and (np.round(X) == X).all()):
        raise ValueError("the features must be whole numbers")
    if not ((y == 0) | (y == 1)).all():
        raise ValueError("the labels must be 0 and 1")
