"""Nuisance models of SHIFT: the source outcome model μ₀ and the density ratio w = p_T / p_S.

H. Singh, F. Xia, A. Gossmann, A. Chuang, J. C. Hong, J. Feng, "'Who experiences large model decay
and why?' A hierarchical framework for diagnosing heterogeneous performance drift", ICML 2025
(arXiv:2506.00756). The reference code (``jjfeng/shift``) grid-searches random forests, boosting and
logistic regressions; the defaults here are histogram gradient boosting models, which handle
categorical columns (``categorical_features="from_dtype"``) and missing values, and are fast on a
couple of cores.
"""

import numbers

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from sklearn.utils import check_consistent_length, check_scalar, column_or_1d

from fairkit.utils import local_random_state

__all__ = ["DensityRatio", "default_classifier", "default_regressor", "fit_density_ratio",
           "fit_outcome_model", "predict_positive"]

_MAX_SEED = np.iinfo(np.int32).max
_CALIBRATION_FOLDS = 3
# Small trees and early stopping (on a 10 % validation split, at every sample size): with
# scikit-learn's defaults (31 leaves, no early stopping below 10,000 rows) the domain classifier
# overfits noise features on a few thousand rows and the calibrated ratio shrinks towards 1.
_BOOSTING = {"max_iter": 200, "learning_rate": 0.1, "max_leaf_nodes": 8, "min_samples_leaf": 40,
             "early_stopping": True, "categorical_features": "from_dtype"}


def _seed(random_state):
    """An int seed drawn under fairkit's random_state policy (never numpy's global generator)."""
    return int(local_random_state(random_state).randint(_MAX_SEED))


def _with_seed(estimator, random_state):
    """A clone of ``estimator`` whose ``random_state`` parameter, if it has one, is a drawn seed."""
    estimator = clone(estimator)
    if "random_state" in estimator.get_params(deep=False):
        estimator.set_params(random_state=_seed(random_state))
    return estimator


def default_classifier(random_state=None):
    """The default classifier of the nuisance models: histogram gradient boosting.

    Parameters
    ----------
    random_state : int, RandomState instance or None, default=None
        Seed of the model (fairkit's random_state policy).

    Returns
    -------
    HistGradientBoostingClassifier
        Unfitted; at most 200 iterations of trees with 8 leaves (at least 40 samples each),
        learning rate 0.1, early stopping on a 10 % validation split, categorical columns taken
        from a DataFrame's dtypes.

    Examples
    --------
    >>> from fairkit_shift._nuisance import default_classifier
    >>> default_classifier(0).max_iter
    200
    """
    return HistGradientBoostingClassifier(**_BOOSTING, random_state=_seed(random_state))


def default_regressor(random_state=None):
    """The default regressor of the nuisance models: histogram gradient boosting.

    Parameters
    ----------
    random_state : int, RandomState instance or None, default=None
        Seed of the model (fairkit's random_state policy).

    Returns
    -------
    HistGradientBoostingRegressor
        Unfitted, with the settings of :func:`default_classifier`.

    Examples
    --------
    >>> from fairkit_shift._nuisance import default_regressor
    >>> default_regressor(0).categorical_features
    'from_dtype'
    """
    return HistGradientBoostingRegressor(**_BOOSTING, random_state=_seed(random_state))


def fit_outcome_model(estimator, X, y, random_state=None):
    """Fit a clone of ``estimator`` to binary labels: an outcome model such as μ₀(x) = P_S(Y = 1 | x).

    Parameters
    ----------
    estimator : classifier or None
        Any classifier with ``predict_proba``; its ``random_state``, if it has one, is set to a
        seed drawn from ``random_state``. None: :func:`default_classifier`.
    X : array-like or DataFrame of shape (n_samples, n_features)
        Covariates.
    y : array-like of shape (n_samples,)
        Labels 0 and 1, both present.
    random_state : int, RandomState instance or None, default=None
        Seed of the model.

    Returns
    -------
    model : classifier
        The fitted clone.

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit_shift._nuisance import fit_outcome_model, predict_positive
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 2))
    >>> y = (X[:, 0] + 0.5 * rng.normal(size=400) > 0).astype(int)
    >>> model = fit_outcome_model(None, X, y, random_state=0)
    >>> bool(predict_positive(model, [[2.0, 0.0]])[0] > 0.9)
    True
    """
    y = column_or_1d(y, warn=True)
    check_consistent_length(X, y)
    labels = np.unique(y)
    if len(labels) != 2 or not np.isin(labels, [0, 1]).all():
        raise ValueError(f"y must hold the labels 0 and 1, both present; got the labels {labels.tolist()}. "
                         "Encode the positive class as 1 and the other as 0.")
    model = default_classifier(random_state) if estimator is None else _with_seed(estimator, random_state)
    return model.fit(X, y)


def predict_positive(model, X):
    """P(Y = 1 | X) from a fitted classifier's ``predict_proba`` (the column of label 1).

    Parameters
    ----------
    model : fitted classifier
        With ``classes_`` containing 1 and ``predict_proba``.
    X : array-like or DataFrame of shape (n_samples, n_features)
        Covariates.

    Returns
    -------
    proba : ndarray of shape (n_samples,)

    Examples
    --------
    >>> from sklearn.dummy import DummyClassifier
    >>> from fairkit_shift._nuisance import predict_positive
    >>> model = DummyClassifier(strategy="prior").fit([[0], [0], [0], [0]], [0, 1, 1, 1])
    >>> predict_positive(model, [[0], [1]])
    array([0.75, 0.75])
    """
    positive = np.flatnonzero(np.asarray(model.classes_) == 1)
    if len(positive) == 0:
        raise ValueError(f"the model's classes_ {list(model.classes_)} do not contain the positive label 1; "
                         "fit it to labels 0 and 1.")
    return np.asarray(model.predict_proba(X))[:, positive[0]]


def _n_columns(X):
    return X.shape[1] if hasattr(X, "shape") and len(X.shape) == 2 else None


def _check_domains(X_source, X_target):
    """Refuse covariates of the two domains that do not describe the same columns, or too few rows."""
    for name, X in (("X_source", X_source), ("X_target", X_target)):
        if _n_columns(X) is None:
            raise ValueError(f"{name} must be 2-D (an array or DataFrame of shape (n_samples, n_features)); "
                             f"got {type(X).__name__} of shape {getattr(X, 'shape', None)}.")
        if X.shape[0] < _CALIBRATION_FOLDS:
            raise ValueError(f"{name} has {X.shape[0]} rows; the density ratio's {_CALIBRATION_FOLDS}-fold "
                             f"calibration needs at least {_CALIBRATION_FOLDS} rows of each domain.")
    if isinstance(X_source, pd.DataFrame) != isinstance(X_target, pd.DataFrame):
        raise ValueError("X_source and X_target must both be DataFrames or both be arrays; got "
                         f"{type(X_source).__name__} and {type(X_target).__name__}.")
    if isinstance(X_source, pd.DataFrame):
        if list(X_source.columns) != list(X_target.columns):
            raise ValueError("X_source and X_target must have the same columns in the same order; got "
                             f"{list(X_source.columns)} and {list(X_target.columns)}.")
        differ = [c for c in X_source.columns if X_source[c].dtype != X_target[c].dtype]
        if differ:
            raise ValueError(f"the columns {differ} have different dtypes in X_source and X_target (e.g. "
                             "categoricals with different categories); give both the same dtypes.")
        return pd.concat([X_source, X_target], ignore_index=True)
    if X_source.shape[1] != X_target.shape[1]:
        raise ValueError(f"X_source has {X_source.shape[1]} columns and X_target {X_target.shape[1]}; "
                         "both domains must have the same columns.")
    return np.concatenate([np.asarray(X_source), np.asarray(X_target)])


class DensityRatio:
    """A fitted density ratio w(x) = p_T(x) / p_S(x) from a calibrated domain classifier.

    Made by :func:`fit_density_ratio`.

    Attributes
    ----------
    classifier : CalibratedClassifierCV
        The fitted domain classifier (label 1 = target).
    scale : float
        n_source / n_target of the rows it was fitted on.
    clip : float
        The classifier's probability is clipped to [clip, 1 − clip].
    """

    def __init__(self, classifier, scale, clip):
        self.classifier = classifier
        self.scale = scale
        self.clip = clip

    def ratio(self, X):
        """The density ratio at X: [c / (1 − c)] · n_source / n_target, c = clipped P(target | x).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            The columns the ratio was fitted on.

        Returns
        -------
        ratio : ndarray of shape (n_samples,)
            Positive, within [clip / (1 − clip), (1 − clip) / clip] · n_source / n_target.
        """
        proba = np.clip(predict_positive(self.classifier, X), self.clip, 1 - self.clip)
        return proba / (1 - proba) * self.scale


def fit_density_ratio(X_source, X_target, estimator=None, *, clip=1e-3, random_state=None):
    """Fit the density ratio p_T(x) / p_S(x) by a probabilistic classification of the domain.

    A classifier of the domain (0 = source, 1 = target) is fitted on the rows of both domains and
    calibrated (3-fold, sigmoid), as the reference code; its clipped probability c(x) gives
    w(x) = [c(x) / (1 − c(x))] · n_source / n_target (the odds corrected for the domains' sizes).
    Conditional ratios, such as that of the stage-2 tests on (X₋ₛ, detector indicator), are the
    same computation on those columns.

    Parameters
    ----------
    X_source, X_target : array-like or DataFrame of shape (n_samples_*, n_features)
        Covariates of the two domains (the same columns; for DataFrames the same names, order and
        dtypes), at least 3 rows each.
    estimator : classifier or None, default=None
        The domain classifier before calibration; its ``random_state``, if it has one, is set to a
        seed drawn from ``random_state``. None: :func:`default_classifier`.
    clip : float in (0, 0.5), default=1e-3
        The classifier's probability is clipped to [clip, 1 − clip], bounding the ratio.
    random_state : int, RandomState instance or None, default=None
        Seed of the classifier.

    Returns
    -------
    DensityRatio
        Its ``ratio(X)`` evaluates w.

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit_shift._nuisance import fit_density_ratio
    >>> rng = np.random.default_rng(0)
    >>> X_source, X_target = rng.normal(size=(600, 1)), rng.normal(1.0, 1.0, size=(300, 1))
    >>> w = fit_density_ratio(X_source, X_target, random_state=0)
    >>> left, right = w.ratio([[-1.0], [2.0]])   # true ratios exp(x - 1/2): 0.22 and 4.48
    >>> bool(left < 1 < right)
    True
    """
    check_scalar(clip, "clip", numbers.Real, min_val=0.0, max_val=0.5, include_boundaries="neither")
    X = _check_domains(X_source, X_target)
    n_source, n_target = X_source.shape[0], X_target.shape[0]
    domain = np.r_[np.zeros(n_source, dtype=int), np.ones(n_target, dtype=int)]
    rng = local_random_state(random_state)
    base = default_classifier(rng) if estimator is None else _with_seed(estimator, rng)
    classifier = CalibratedClassifierCV(base, cv=_CALIBRATION_FOLDS, method="sigmoid").fit(X, domain)
    return DensityRatio(classifier, n_source / n_target, clip)
