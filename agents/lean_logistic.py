"""The `SklearnAgent`'s own pipeline, fitted and asked without scikit-learn's per-call work.

The default estimator of `eleusis_agents.learners.SklearnAgent` is a standard scaler
followed by a logistic regression (lbfgs). It is refitted about 7 times a game (15 when
it refitted whenever due) on a few dozen examples, where scikit-learn's checks, namespace
look-ups and parameter handling around each step cost as much as the fit itself. This
module replays the steps of scikit-learn 1.9 on the same arrays in the same order, with
scikit-learn's own scaler, loss and scipy's optimizer, to the bit
(``tests/test_learners.py`` holds both functions to scikit-learn's on random problems):

- `fit_pipeline`: ``make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000,
  random_state=seed)).fit(X, y)``, in half the pipeline's time on 40 examples; or, given
  the game's previous fit, started from it (a warm start, the agent's default: the same
  optimum within the solver's tolerance, not scikit-learn's floats);
- `right_probabilities`: the column of label 1 of that pipeline's ``predict_proba``,
  in 30 us against 250-480 us.

Another scikit-learn version may do these steps differently: `LEAN` is False there, and
the agent fits through scikit-learn's pipeline.

Examples
--------
>>> rng = np.random.default_rng(0)
>>> X, y = rng.normal(size=(30, 4)), np.arange(30) % 2
>>> pipeline = fit_pipeline(X, y, seed=1)
>>> bool(np.array_equal(right_probabilities(pipeline, X), pipeline.predict_proba(X)[:, 1]))
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["LEAN", "fit_pipeline", "right_column", "right_probabilities"]

MAX_ITER = 1000  # the agent's logistic regression's


def _replayed_version() -> bool:
    from importlib.metadata import version

    return version("scikit-learn").split(".")[:2] == ["1", "9"]


#: Whether the installed scikit-learn is the one whose steps `fit_pipeline` replays.
LEAN = _replayed_version()


def fit_pipeline(X: np.ndarray, y: np.ndarray, seed: int, start: Any = None) -> Any:
    """The agent's pipeline fitted on ``(X, y)`` (labels 0 and 1, both present), as
    scikit-learn fits it: a `sklearn.pipeline.Pipeline` whose steps hold what a fit
    sets (the logistic regression's ``coef_``, ``intercept_``, ``classes_``,
    ``n_iter_``, ``n_features_in_``). A fit that does not converge warns as
    scikit-learn's does. Run under ``config_context(assume_finite=True,
    skip_parameter_validation=True)``, as the agent fits (its features are finite).

    ``start``, a pipeline fitted before (on fewer examples of the same features), is a
    warm start: L-BFGS starts from its decision function, re-expressed in this fit's
    scaling (`_start_coefficients`), instead of from zero. The objective is strictly
    convex, so it converges to the same optimum within the solver's tolerance, in
    fewer iterations.
    """
    from scipy import optimize
    from sklearn._loss.loss import HalfBinomialLoss
    from sklearn.linear_model import LogisticRegression
    from sklearn.linear_model._logistic import _LOGISTIC_SOLVER_CONVERGENCE_MSG
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.utils.optimize import _check_optimize_result

    scaler = StandardScaler().fit(X)
    X = scaler.transform(X)  # a copy, scaled
    logistic = LogisticRegression(max_iter=MAX_ITER, random_state=seed)
    classes = np.unique(y)
    target = np.ones(y.shape, dtype=X.dtype)
    target[~(y == classes[1])] = 0.0
    n_samples, n_features = X.shape
    if start is None:
        x0 = np.zeros(n_features + 1, dtype=X.dtype)
    else:
        x0 = _start_coefficients(start, scaler)
    result = optimize.minimize(
        _loss_gradient,
        x0,
        method="L-BFGS-B",
        jac=True,
        args=(X, target, 1.0 / (logistic.C * n_samples), HalfBinomialLoss()),
        options={
            "maxiter": MAX_ITER,
            "maxls": 50,
            "gtol": logistic.tol,
            "ftol": 64 * np.finfo(float).eps,
        },
    )
    n_iter = _check_optimize_result(
        "lbfgs", result, MAX_ITER, extra_warning_msg=_LOGISTIC_SOLVER_CONVERGENCE_MSG
    )
    logistic.classes_ = classes
    logistic.n_features_in_ = n_features
    logistic.n_iter_ = np.asarray([n_iter], dtype=np.int32)
    logistic.intercept_ = result.x[-1:]
    logistic.coef_ = result.x[:-1][None, :]
    return make_pipeline(scaler, logistic)


def _start_coefficients(start: Any, scaler: Any) -> np.ndarray:
    """The coefficients then intercept, in ``scaler``'s scaling, of the decision
    function of pipeline ``start``: ``sum(w * (x - m) / s) + b`` rewritten with the
    new means and scales ``m'``, ``s'`` as ``w' = w * s' / s``, ``b' = b + sum(w *
    (m' - m) / s)``."""
    (_, old_scaler), (_, logistic) = start.steps
    weights = logistic.coef_[0] / old_scaler.scale_
    x0 = np.empty(len(weights) + 1)
    x0[:-1] = weights * scaler.scale_
    x0[-1] = logistic.intercept_[0] + weights @ (scaler.mean_ - old_scaler.mean_)
    return x0


def _loss_gradient(coef, X, y, l2_reg_strength: float, base_loss) -> tuple[float, np.ndarray]:
    """``LinearModelLoss(base_loss, fit_intercept=True).loss_gradient(coef, X, y, None,
    l2_reg_strength)`` of scikit-learn 1.9 for two classes: the same operations in the
    same order, without the namespace look-ups (which cost more than the arithmetic)."""
    weights, intercept = coef[:-1], coef[-1]
    raw_prediction = X @ weights + intercept
    loss, grad_pointwise = base_loss.loss_gradient(
        y_true=y, raw_prediction=raw_prediction, sample_weight=None, n_threads=1
    )
    n_samples = X.shape[0]
    loss = float(np.sum(loss) / n_samples)
    loss += float(0.5 * l2_reg_strength * (weights @ weights))
    grad_pointwise /= n_samples
    grad = np.empty_like(coef, dtype=weights.dtype)
    grad[:-1] = X.T @ grad_pointwise + l2_reg_strength * weights
    grad[-1] = np.sum(grad_pointwise)
    return loss, grad


def right_probabilities(pipeline: Any, X: np.ndarray) -> np.ndarray:
    """The right column of ``pipeline.predict_proba(X)`` for the agent's own pipeline
    (standard scaling, then a logistic regression of two classes), to the bit.

    The arithmetic scikit-learn 1.9's ``predict_proba`` does, on the same arrays in the
    same order (`StandardScaler.transform` on a copy, ``decision_function``'s product,
    ``expit`` in place, the two columns of a binary model), without the checks and
    namespace look-ups around each step.
    """
    (_, scaler), (_, logistic) = pipeline.steps
    from scipy.special import expit

    X = np.array(X, dtype=np.float64)  # the scaler's copy
    X -= scaler.mean_
    X /= scaler.scale_
    scores = X @ logistic.coef_.T + logistic.intercept_
    prob = scores.reshape(-1)
    expit(prob, out=prob)
    probabilities = np.stack([1 - prob, prob], axis=1)
    return probabilities[:, right_column(logistic)]


def right_column(classifier: Any) -> int:
    """The column of label 1 (right) in the classifier's ``predict_proba``."""
    return int(np.flatnonzero(np.asarray(classifier.classes_) == 1)[0])
