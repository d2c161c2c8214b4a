"""Accuracy functions: what each agent's model is worth given every agent's contribution.

An accuracy function maps contribution profiles, an array ``S`` of shape ``(m, n_agents)``, to the
accuracy each agent obtains from the model trained on the contributed data, shape ``(m, n_agents)``.
It says which contributions an agent may choose: ``levels`` (a finite set) or ``max_contribution``
(the interval ``[0, max_contribution]``).
"""

from numbers import Real

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone, is_classifier
from sklearn.utils import check_array, check_scalar, column_or_1d
from sklearn.utils.multiclass import type_of_target

from fairkit.utils import check_same_index, local_random_state

__all__ = ["LearningAccuracy", "PowerLawAccuracy"]


def check_profiles(S, n_agents, *, upper, input_name="s"):
    """``S`` as an ``(m, n_agents)`` array of contributions in ``[0, upper]``; a 1-D profile gives m = 1."""
    S = np.asarray(S, dtype=float)
    if S.ndim == 1:
        S = S[None, :]
    if S.ndim != 2 or (n_agents is not None and S.shape[1] != n_agents):
        raise ValueError(f"{input_name} must hold one contribution per agent ({n_agents} agents); "
                         f"got shape {np.shape(S)}.")
    if not np.isfinite(S).all() or (S < 0).any() or (upper < S).any():
        raise ValueError(f"{input_name} must be finite contributions in [0, {upper}]; got values from "
                         f"{np.nanmin(S)} to {np.nanmax(S)}.")
    return S


class PowerLawAccuracy:
    """The paper's analytic accuracy ``a(s) = 1 − α (‖s‖₁ + 1)^(−β)``, the same for every agent.

    Concave and increasing in the total data contributed (Murhekar et al., ICML 2025; the form is
    taken from secondary notes on the paper, see the user guide).

    Parameters
    ----------
    alpha : float, default=1.0
        Error of a model trained on no data, in ``(0, 1]``; with 1, ``a(0) = 0``.
    beta : float, default=0.5
        Decay of the error with data, > 0.
    max_contribution : float, default=1e4
        Largest contribution an agent may choose.

    Examples
    --------
    >>> from fairkit_mshap import PowerLawAccuracy
    >>> PowerLawAccuracy(alpha=1.0, beta=0.5)([[1.0, 2.0]]).round(3).tolist()
    [[0.5, 0.5]]
    """

    def __init__(self, alpha=1.0, beta=0.5, *, max_contribution=1e4):
        self.alpha = check_scalar(alpha, "alpha", Real, min_val=0.0, max_val=1.0, include_boundaries="right")
        self.beta = check_scalar(beta, "beta", Real, min_val=0.0, include_boundaries="neither")
        self.max_contribution = check_scalar(max_contribution, "max_contribution", Real, min_val=0.0,
                                             include_boundaries="neither")
        self.n_agents = None

    def __call__(self, S):
        S = check_profiles(S, None, upper=self.max_contribution)
        shared = 1.0 - self.alpha * (S.sum(axis=1, keepdims=True) + 1.0) ** -self.beta
        return np.broadcast_to(shared, S.shape).copy()

    def __repr__(self):
        return (f"PowerLawAccuracy(alpha={self.alpha}, beta={self.beta}, "
                f"max_contribution={self.max_contribution})")


def _fit_score(estimator, X, y, X_test, y_test, test_agents, n_agents, chance):
    """Accuracy of ``estimator`` fitted on ``(X, y)`` on each agent's test rows; chance level on no data."""
    if len(y) == 0:
        return np.full(n_agents, chance)
    if len(np.unique(y)) < 2:  # one class contributed: the model can only predict it
        correct = (y_test == y[0]).astype(float)
    else:
        correct = (clone(estimator).fit(X, y).predict(X_test) == y_test).astype(float)
    if test_agents is None:
        return np.full(n_agents, correct.mean())
    return np.bincount(test_agents, weights=correct, minlength=n_agents) / np.bincount(test_agents,
                                                                                       minlength=n_agents)


class LearningAccuracy:
    """Accuracy of a scikit-learn classifier trained on the union of the agents' contributed data.

    Agent ``i`` contributing ``s_i ∈ [0, 1]`` gives the first ``round(s_i · m_i)`` of her ``m_i``
    training rows, in an order drawn once from ``random_state`` (so a larger contribution contains a
    smaller one). The model is fitted on the union and scored on the test set: with ``test_agents``,
    each agent scores it on her own test rows (agents with different data value the same model
    differently), otherwise every agent gets the same accuracy. Fits are cached by the numbers of
    rows contributed, and the missing ones run in parallel with joblib.

    With no data the accuracy is chance, ``1 / n_classes``; with one class contributed, the model
    predicts that class.

    Parameters
    ----------
    estimator : classifier
        Cloned for every fit.
    partitions : sequence of (X_i, y_i)
        Each agent's training data.
    X_test, y_test : array-like
        The test set.
    test_agents : array-like of int, default=None
        The agent (0 to n_agents − 1) whose test row each is; every agent needs at least one.
    levels : array-like, default=(0, 0.25, 0.5, 0.75, 1)
        The fractions an agent may contribute (the best-response dynamics search over them).
    n_jobs : int, default=None
        Parallel fits (joblib).
    random_state : int, RandomState instance or None, default=None
        The order of each agent's rows, and the seed of an ``estimator`` whose ``random_state`` is None.

    Attributes
    ----------
    n_agents : int
    n_fits_ : int
        Models fitted so far (cache misses).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.linear_model import LogisticRegression
    >>> from fairkit_mshap import LearningAccuracy
    >>> X, y = load_iris(return_X_y=True)
    >>> acc = LearningAccuracy(LogisticRegression(max_iter=500), [(X[0::3], y[0::3]), (X[1::3], y[1::3])],
    ...                        X[2::3], y[2::3], random_state=0)
    >>> acc([[1.0, 1.0], [0.0, 0.0]]).round(3).tolist()
    [[0.94, 0.94], [0.333, 0.333]]
    """

    def __init__(self, estimator, partitions, X_test, y_test, *, test_agents=None,
                 levels=(0.0, 0.25, 0.5, 0.75, 1.0), n_jobs=None, random_state=None):
        if not is_classifier(estimator):
            raise ValueError(f"estimator must be a scikit-learn classifier (accuracy is scored); "
                             f"got {estimator!r}.")
        if len(partitions) < 1:
            raise ValueError("partitions must hold each agent's (X_i, y_i); got none.")
        rng = local_random_state(random_state)
        blocks, labels, self._orders = [], [], []
        for i, part in enumerate(partitions):
            if len(part) != 2:
                raise ValueError(f"partitions[{i}] must be a pair (X_i, y_i); got {len(part)} items.")
            check_same_index(**{f"partitions[{i}] X": part[0], f"partitions[{i}] y": part[1]})
            X_i = check_array(part[0], input_name=f"partitions[{i}] X")
            y_i = column_or_1d(part[1])
            if len(X_i) != len(y_i) or len(y_i) == 0:
                raise ValueError(f"partitions[{i}] needs as many labels as rows, at least one; got "
                                 f"{len(X_i)} rows and {len(y_i)} labels.")
            blocks.append(X_i)
            labels.append(y_i)
            self._orders.append(rng.permutation(len(y_i)))
        self.n_agents = len(blocks)
        self._X = [X_i[order] for X_i, order in zip(blocks, self._orders, strict=True)]
        self._y = [y_i[order] for y_i, order in zip(labels, self._orders, strict=True)]
        self.sizes = np.array([len(y_i) for y_i in labels])
        check_same_index(X_test=X_test, y_test=y_test, test_agents=test_agents)
        self._X_test = check_array(X_test, input_name="X_test")
        self._y_test = column_or_1d(y_test)
        if len(self._X_test) != len(self._y_test):
            raise ValueError(f"X_test has {len(self._X_test)} rows and y_test {len(self._y_test)} labels.")
        for name, y in (("the partitions' y", np.concatenate(self._y)), ("y_test", self._y_test)):
            if type_of_target(y) not in ("binary", "multiclass"):
                raise ValueError(f"{name} must be class labels (accuracy is scored); got {type_of_target(y)} "
                                 "values. Pass labels, not probabilities or scores.")
        self._test_agents = None
        if test_agents is not None:
            agents = column_or_1d(test_agents)
            if (len(agents) != len(self._y_test) or not np.issubdtype(agents.dtype, np.integer)
                    or np.setdiff1d(np.arange(self.n_agents), agents).size or agents.min() < 0
                    or agents.max() >= self.n_agents):
                raise ValueError(f"test_agents must give each test row's agent, an int in "
                                 f"[0, {self.n_agents - 1}], with at least one row per agent.")
            self._test_agents = agents
        levels = np.unique(np.asarray(levels, dtype=float))
        if levels.ndim != 1 or len(levels) < 2 or levels[0] < 0 or levels[-1] > 1:
            raise ValueError(f"levels must be at least two fractions in [0, 1]; got {levels!r}.")
        self.levels = levels
        self.max_contribution = 1.0
        params = estimator.get_params()
        if "random_state" in params and params["random_state"] is None:
            estimator = clone(estimator).set_params(random_state=int(rng.randint(2**31)))
        self.estimator = estimator
        self.n_jobs = n_jobs
        self._chance = 1.0 / len(np.unique(np.concatenate(self._y)))
        self._cache = {}
        self.n_fits_ = 0

    def counts(self, S):
        """Rows each agent contributes at each profile of ``S``: ``round(s_i · m_i)``."""
        S = check_profiles(S, self.n_agents, upper=1.0)
        return np.rint(S * self.sizes).astype(np.int64)

    def __call__(self, S):
        counts = self.counts(S)
        keys = [tuple(row) for row in counts.tolist()]
        missing = list(dict.fromkeys(key for key in keys if key not in self._cache))
        if missing:
            scores = Parallel(n_jobs=self.n_jobs)(
                delayed(_fit_score)(self.estimator, *self._union(key), self._X_test, self._y_test,
                                    self._test_agents, self.n_agents, self._chance) for key in missing)
            self._cache.update(zip(missing, scores, strict=True))
            self.n_fits_ += sum(1 for key in missing if sum(key) > 0)
        return np.array([self._cache[key] for key in keys])

    def _union(self, key):
        X = np.concatenate([X_i[:k] for X_i, k in zip(self._X, key, strict=True)])
        y = np.concatenate([y_i[:k] for y_i, k in zip(self._y, key, strict=True)])
        return X, y

    def __repr__(self):
        return f"LearningAccuracy({self.estimator!r}, {self.n_agents} agents, levels={self.levels.tolist()})"
