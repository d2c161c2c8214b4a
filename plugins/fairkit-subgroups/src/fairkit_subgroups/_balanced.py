"""GroupBalancedClassifier: fit any classifier with every subgroup given the same total weight.

A. Alloula, C. Jones, B. Glocker, B. W. Papież, "Subgroups Matter for Robust Bias Mitigation",
ICML 2025 (arXiv:2505.21363): the resampling baseline of the paper, which draws each training
sample with probability proportional to 1/n_g (n_g the size of its group), and its reweighting
counterpart, which gives each sample the weight 1/n_g instead.
"""

from numbers import Integral, Number

import numpy as np
from scipy import sparse
from sklearn import get_config
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone, is_classifier
from sklearn.utils import check_array, get_tags
from sklearn.utils.metadata_routing import MetadataRouter, MethodMapping, process_routing
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    check_consistent_length,
    check_is_fitted,
    column_or_1d,
    has_fit_parameter,
    validate_data,
)

from fairkit.utils import check_2d, drop_sensitive_cols, fit_groups, local_random_state

__all__ = ["GroupBalancedClassifier"]

MODES = ("reweight", "resample")
BALANCES = ("group", "group_and_class")


def _estimator_has(name):
    """Whether the fitted estimator (or, before fit, the given one) has the method ``name``."""

    def check(self):
        return hasattr(self.estimator_ if hasattr(self, "estimator_") else self.estimator, name)

    return check


def cell_weights(cells, n_cells, sample_weight=None):
    """The balancing weight of each cell: every cell with samples gets the same total weight.

    Parameters
    ----------
    cells : ndarray of int of shape (n_samples,)
        The cell (group, or group and class) of each sample, in ``range(n_cells)``.
    n_cells : int
        Number of cells.
    sample_weight : ndarray of shape (n_samples,), default=None
        Non-negative weights; a sample of weight ``s`` counts as ``s`` samples.

    Returns
    -------
    weights : ndarray of shape (n_cells,)
        ``Σ s / (k · S_c)`` for a cell of total weight ``S_c > 0`` (its size ``n_c`` without
        ``sample_weight``), ``k`` the number of such cells, and 0 for the others. A sample of
        cell ``c`` gets the weight ``s · weights[c]``: each of the ``k`` cells then weighs
        ``Σ s / k``, and the weights average 1 without ``sample_weight``.

    Examples
    --------
    >>> import numpy as np
    >>> cell_weights(np.array([0, 1, 1, 1]), 3).tolist()  # 4 / (2 · 1), 4 / (2 · 3), empty
    [2.0, 0.6666666666666666, 0.0]
    """
    totals = np.bincount(cells, weights=sample_weight, minlength=n_cells)
    present = totals > 0
    weights = np.zeros(n_cells)
    weights[present] = totals.sum() / (np.count_nonzero(present) * totals[present])
    return weights


def _take_rows(values, rows):
    """The rows ``rows`` of an array, list, sparse matrix, Series or DataFrame (keeping its kind)."""
    if hasattr(values, "iloc"):
        return values.iloc[rows]
    if sparse.issparse(values):
        return values.tocsr()[rows]
    return np.asarray(values)[rows]


def _check_feature_values(X):
    """Refuse an object array holding a value that is neither a string nor a number.

    In ``mode="resample"`` the estimator sees only the rows drawn, so its own check would
    miss such a value in a row left out; this looks at every row. Strings are left to the
    estimator (a pipeline may encode them).
    """
    if isinstance(X, np.ndarray) and X.dtype == object:
        valid = np.vectorize(lambda value: value is None or isinstance(value, (str, Number)),
                             otypes=[bool])(X)
        if not valid.all():
            row, column = np.argwhere(~valid)[0]
            raise TypeError(f"X[{row}, {column}] is {X[row, column]!r}: every value of X must be a string or "
                            "a number (argument must be a string or a number). Encode it as one.")


def _rows_of_param(value, rows, n_samples):
    """A fit parameter's rows ``rows`` if it holds one value per sample, else the parameter as it is.

    The rule scikit-learn's cross-validation follows when it splits fit parameters.
    """
    shape = getattr(value, "shape", None)
    length = shape[0] if shape else len(value) if isinstance(value, list | tuple) else None
    return _take_rows(value, rows) if length == n_samples else value


def _check_sample_weight(sample_weight, n_samples):
    """Validated weights as float64, or None."""
    if sample_weight is None:
        return None
    weights = check_array(sample_weight, ensure_2d=False, dtype=np.float64, input_name="sample_weight")
    if weights.shape != (n_samples,):
        raise ValueError(f"sample_weight has shape {weights.shape} but X has {n_samples} samples; give "
                         "one weight per sample.")
    if (weights < 0).any():
        raise ValueError(f"sample_weight holds {np.count_nonzero(weights < 0)} negative value(s); "
                         "weights must be non-negative.")
    if not weights.sum() > 0:
        raise ValueError("sample_weight is zero for every sample; give at least one sample a positive "
                         "weight.")
    return weights


class GroupBalancedClassifier(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Fit a classifier on data balanced over subgroups, by reweighting or by resampling.

    Each training sample of a group of size ``n_g`` gets the weight ``1 / n_g``
    (``balance="group"``), or ``1 / n_gy`` for its group and class
    (``balance="group_and_class"``), so that every group (or group-and-class cell) carries
    the same total weight. Alloula et al. (ICML 2025) show that which subgroups are balanced
    decides whether this helps; their resampling baseline draws a training set of the same
    size with replacement, with probabilities proportional to these weights (the reference
    code's ``WeightedRandomSampler``). This estimator offers that (``mode="resample"``,
    for any classifier) and passing the weights, scaled to average 1, as ``sample_weight``
    (``mode="reweight"``, the default, for a classifier whose ``fit`` takes them).

    Parameters
    ----------
    estimator : classifier
        The classifier to fit (a clone of it is fitted). ``mode="reweight"`` needs its
        ``fit`` to take ``sample_weight``.
    mode : {"reweight", "resample"}, default="reweight"
        ``"reweight"``: fit on all samples, weighted ``n / (k · n_g)`` (``k`` groups, ``n``
        samples). ``"resample"``: fit on ``n`` samples drawn with replacement, each with
        probability proportional to ``1 / n_g``, without weights; the rows not drawn never
        reach ``estimator`` (nor its input checks).
    balance : {"group", "group_and_class"}, default="group"
        ``"group"``: every group weighs the same. ``"group_and_class"``: every observed
        combination of group and class does (the reference code's ``resample_which="balanced"``);
        without sensitive features, every class does.
    sensitive_cols : str, int or list of them, default=None
        Columns of ``X`` holding the sensitive features, instead of passing
        ``sensitive_features`` to :meth:`fit`. They are removed from ``X`` before
        ``estimator`` sees it, in :meth:`fit` and at prediction.
    random_state : int, RandomState instance or None, default=None
        Seeds the draws of ``mode="resample"`` (fairkit's one policy: never numpy's
        global generator); not used by ``mode="reweight"``.

    Attributes
    ----------
    estimator_ : classifier
        The fitted clone of ``estimator``.
    classes_ : ndarray of shape (n_classes,)
        The class labels (``estimator_.classes_``).
    groups_ : ndarray of shape (n_groups,)
        The sensitive groups seen during fit (intersections for several columns).
    group_weights_ : ndarray of shape (n_groups,) or (n_groups, n_classes)
        The weight of a training sample of group ``groups_[g]`` (and, for
        ``balance="group_and_class"``, class ``classes_[c]``): ``n / (k · n_g)``; with
        ``sample_weight``, the factor it is multiplied by (group sizes are then sums of
        weights). 0 for a cell without samples. ``mode="resample"`` draws samples with
        probabilities proportional to these weights.
    n_features_in_ : int
        Number of features seen during fit (the sensitive columns included).
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the features seen during fit, when ``X`` has string column names.

    References
    ----------
    A. Alloula, C. Jones, B. Glocker, B. W. Papież. Subgroups Matter for Robust Bias
    Mitigation. ICML 2025 (arXiv:2505.21363).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from fairkit_subgroups import GroupBalancedClassifier
    >>> rng = np.random.default_rng(0)
    >>> group = np.array(["a"] * 90 + ["b"] * 10)
    >>> X = rng.normal(size=(100, 2))
    >>> y = (X[:, 0] > 0).astype(int)
    >>> clf = GroupBalancedClassifier(LogisticRegression()).fit(X, y, sensitive_features=group)
    >>> clf.groups_.tolist(), clf.group_weights_.round(3).tolist()  # 100 / (2 · 90), 100 / (2 · 10)
    (['a', 'b'], [0.556, 5.0])
    >>> clf.predict(X[:3]).tolist()
    [1, 1, 0]

    Resampling works with any classifier, also one whose ``fit`` takes no weights:

    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> knn = GroupBalancedClassifier(KNeighborsClassifier(), mode="resample", random_state=0)
    >>> knn.fit(X, y, sensitive_features=group).predict_proba(X[:2]).shape
    (2, 2)
    """

    def __init__(self, estimator, *, mode="reweight", balance="group", sensitive_cols=None,
                 random_state=None):
        self.estimator = estimator
        self.mode = mode
        self.balance = balance
        self.sensitive_cols = sensitive_cols
        self.random_state = random_state

    @classmethod
    def get_test_params(cls):
        """Small parameter sets for the common checks: each mode and each balance."""
        from sklearn.linear_model import LogisticRegression

        return [{"estimator": LogisticRegression()},
                {"estimator": LogisticRegression(), "mode": "resample", "random_state": 0},
                {"estimator": LogisticRegression(), "balance": "group_and_class"}]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = get_tags(self.estimator)
        tags.input_tags.sparse = inner.input_tags.sparse
        tags.input_tags.allow_nan = inner.input_tags.allow_nan
        if inner.classifier_tags is not None:
            tags.classifier_tags.multi_class = inner.classifier_tags.multi_class
        return tags

    def get_metadata_routing(self):
        """Route further ``fit`` metadata to ``estimator.fit``.

        ``sensitive_features`` and ``sample_weight`` are this estimator's own:
        ``sample_weight`` is multiplied into the balancing weights (``estimator`` gets the
        product in ``mode="reweight"``), and ``sensitive_features`` also reaches
        ``estimator.fit`` when it requests them.

        Returns
        -------
        routing : MetadataRouter
        """
        return MetadataRouter(owner=type(self).__name__).add_self_request(self).add(
            estimator=self.estimator, method_mapping=MethodMapping().add(caller="fit", callee="fit"))

    def _check_params(self):
        """Refuse bad hyper-parameters before anything is fitted; return the random generator."""
        if not (hasattr(self.estimator, "fit") and is_classifier(self.estimator)):
            raise ValueError(f"estimator must be a scikit-learn classifier, got {self.estimator!r}. "
                             f"{type(self).__name__} balances the training of a classifier "
                             "(e.g. LogisticRegression()).")
        for name, value, allowed in (("mode", self.mode, MODES), ("balance", self.balance, BALANCES)):
            if not (isinstance(value, str) and value in allowed):
                raise ValueError(f"{name} must be one of {list(allowed)}, got {value!r}.")
        cols = self.sensitive_cols
        if not (cols is None or isinstance(cols, str | Integral) or (
                np.ndim(cols) == 1 and all(isinstance(c, str | Integral) for c in cols))):
            raise ValueError(f"sensitive_cols must be None, a column name, a column position or a list of "
                             f"them, got {cols!r}.")
        if self.mode == "reweight" and not has_fit_parameter(self.estimator, "sample_weight"):
            raise ValueError(
                f"mode='reweight' passes the balancing weights as sample_weight, but "
                f"{type(self.estimator).__name__}.fit takes no sample_weight. Use mode='resample', which "
                "works with any classifier (for a Pipeline, wrap its final step instead).")
        return local_random_state(self.random_state)  # refuses a bad random_state; draws nothing

    def fit(self, X, y, *, sensitive_features=None, sample_weight=None, **fit_params):
        """Fit a clone of ``estimator`` on the training data balanced over the groups.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
            Training samples; ``estimator`` gets them without the ``sensitive_cols``.
        y : array-like of shape (n_samples,)
            Class labels.
        sensitive_features : array-like of shape (n_samples,) or (n_samples, n_columns), default=None
            Group of each sample; several columns form intersectional groups. Without them
            (nor ``sensitive_cols``) all samples form one group (a ``FairkitWarning`` says so):
            ``balance="group"`` is then the unweighted fit, ``"group_and_class"`` balances
            the classes.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; a sample of weight ``s`` counts as ``s`` samples: group
            sizes are sums of weights, and each sample's balancing weight is multiplied by
            its own, so the total weight stays ``Σ s`` (``mode="resample"`` draws with
            probabilities proportional to the products). Fitting with integer weights is
            fitting on the samples repeated that many times.
        **fit_params : dict
            Further parameters of ``estimator.fit`` (with metadata routing: those it
            requests). In ``mode="resample"`` those with one value per sample are resampled
            with ``X``.

        Returns
        -------
        self : GroupBalancedClassifier
        """
        rng = self._check_params()
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None.")
        check_2d(self, X)
        y = column_or_1d(check_array(y, ensure_2d=False, dtype=None, input_name="y"), warn=True)
        check_consistent_length(X, y)
        check_classification_targets(y)
        groups, codes = fit_groups(self, X, sensitive_features)
        sample_weight = _check_sample_weight(sample_weight, len(y))
        X_inner = drop_sensitive_cols(self, X)
        params = self._inner_fit_params(sensitive_features, fit_params)

        classes, labels = np.unique(y, return_inverse=True)
        if self.balance == "group":
            cells, n_cells = codes, len(groups)
        else:
            cells, n_cells = codes * len(classes) + labels, len(groups) * len(classes)
        weights = cell_weights(cells, n_cells, sample_weight)
        row_weights = weights[cells] if sample_weight is None else weights[cells] * sample_weight

        estimator = clone(self.estimator)
        if self.mode == "reweight":
            estimator.fit(X_inner, y, sample_weight=row_weights, **params)
        else:
            _check_feature_values(X_inner)
            rows = rng.choice(len(y), size=len(y), replace=True, p=row_weights / row_weights.sum())
            _check_every_class_drawn(classes, labels, rows, row_weights)
            estimator.fit(_take_rows(X_inner, rows), y[rows],
                          **{key: _rows_of_param(value, rows, len(y)) for key, value in params.items()})

        validate_data(self, X, skip_check_array=True)  # n_features_in_, feature_names_in_
        self.estimator_, self.groups_ = estimator, groups
        self.group_weights_ = weights if self.balance == "group" else weights.reshape(len(groups), -1)
        return self

    def _inner_fit_params(self, sensitive_features, fit_params):
        """The parameters of ``estimator.fit`` beyond ``X``, ``y`` and the balancing ``sample_weight``."""
        if not get_config()["enable_metadata_routing"]:
            return fit_params
        metadata = dict(fit_params)
        if sensitive_features is not None:
            metadata["sensitive_features"] = sensitive_features
        return process_routing(self, "fit", **metadata).estimator.fit

    def _inner_X(self, X):
        """New samples as ``estimator_`` takes them: checked against fit, without the sensitive columns."""
        check_is_fitted(self)
        check_2d(self, X)
        validate_data(self, X, reset=False, skip_check_array=True)
        return drop_sensitive_cols(self, X)

    @property
    def classes_(self):
        """The class labels of the fitted estimator."""
        return self.estimator_.classes_

    @available_if(_estimator_has("predict"))
    def predict(self, X):
        """Predict classes with the fitted estimator.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
            Samples, with the columns seen in fit (``sensitive_cols`` included).

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        X = self._inner_X(X)  # checks that it is fitted first
        return self.estimator_.predict(X)

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, X):
        """Class probabilities of the fitted estimator.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
            Samples, with the columns seen in fit.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            In ``classes_`` order.
        """
        X = self._inner_X(X)  # checks that it is fitted first
        return self.estimator_.predict_proba(X)

    @available_if(_estimator_has("predict_log_proba"))
    def predict_log_proba(self, X):
        """Logarithm of the fitted estimator's class probabilities.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
            Samples, with the columns seen in fit.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
        """
        X = self._inner_X(X)  # checks that it is fitted first
        return self.estimator_.predict_log_proba(X)

    @available_if(_estimator_has("decision_function"))
    def decision_function(self, X):
        """Decision function of the fitted estimator.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
            Samples, with the columns seen in fit.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
        """
        X = self._inner_X(X)  # checks that it is fitted first
        return self.estimator_.decision_function(X)

    @available_if(_estimator_has("score"))
    def score(self, X, y, sample_weight=None):
        """The fitted estimator's score (accuracy for most classifiers) on ``X`` and ``y``.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
            Samples, with the columns seen in fit.
        y : array-like of shape (n_samples,)
            True labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the samples in the score.

        Returns
        -------
        score : float
        """
        weights = {} if sample_weight is None else {"sample_weight": sample_weight}
        X = self._inner_X(X)
        return self.estimator_.score(X, y, **weights)


def _check_every_class_drawn(classes, labels, rows, row_weights):
    """Refuse a resample without some class: the classifier could never predict it."""
    drawn = np.bincount(labels[rows], minlength=len(classes)) > 0
    if not drawn.all():
        share = np.bincount(labels, weights=row_weights, minlength=len(classes)) / row_weights.sum()
        missing = ", ".join(f"{c!r} (probability {p:.3g} per draw)"
                            for c, p in zip(classes[~drawn].tolist(), share[~drawn], strict=True))
        raise ValueError(f"mode='resample' drew no sample of class {missing} in {len(rows)} draws, so the "
                         "classifier could not learn it. Use balance='group_and_class' (every class of every "
                         "group gets an equal share) or mode='reweight'.")
