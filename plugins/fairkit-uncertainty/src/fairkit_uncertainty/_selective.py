"""SelectiveClassifier: answer when sure, abstain or defer to a stronger model otherwise, fairly by group.

Self-REF (J. Chuang et al., "Learning to Route LLMs with Confidence Tokens", ICML 2025) teaches a
model a confidence learned from its own correctness and rejects or routes queries on it; here the
idea is transferred to any scikit-learn classifier. Confidential Guardian (S. Rabanser et al.,
ICML 2025) shows that abstention can deny service to a group under the cover of uncertainty;
``group_coverage="equal"`` gives every group the same coverage, and
:func:`~fairkit_uncertainty.selective_report` audits coverage and selective accuracy by group.
"""

from numbers import Integral, Real

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone, is_classifier
from sklearn.dummy import DummyClassifier
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import check_cv, cross_val_predict
from sklearn.utils import check_array, get_tags
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_consistent_length, check_is_fitted, column_or_1d, validate_data

from fairkit.utils import (
    check_2d,
    drop_sensitive_cols,
    fit_groups,
    local_random_state,
    predict_groups,
)
from fairkit_uncertainty._report import coverage_threshold

__all__ = ["SelectiveClassifier"]

CONFIDENCES = ("learned", "max_proba", "margin")


def _score_method(estimator):
    """The method of class scores: ``predict_proba`` when there is one, else ``decision_function``."""
    for method in ("predict_proba", "decision_function"):
        if hasattr(estimator, method):
            return method
    return None


def _class_scores(scores):
    """Scores of shape (n_samples, n_classes): a binary ``decision_function`` ``d`` becomes ``[-d, d]``."""
    scores = np.asarray(scores, dtype=float)
    return np.column_stack([-scores, scores]) if scores.ndim == 1 else scores


def _confidence_from_scores(scores, kind):
    """The largest score, or the largest minus the second largest (``"margin"``)."""
    if kind == "max_proba":
        return scores.max(axis=1)
    top_two = np.partition(scores, scores.shape[1] - 2, axis=1)[:, -2:]
    return top_two[:, 1] - top_two[:, 0]


def _with_scores(X, scores):
    """``X`` with the base estimator's class scores as further columns: the confidence model's inputs.

    A DataFrame with string column names stays one (its dtypes kept, for a confidence model that
    encodes them); other inputs become a float array (or a sparse matrix).
    """
    if isinstance(X, pd.DataFrame) and all(isinstance(name, str) for name in X.columns):
        extra = pd.DataFrame(scores, index=X.index,
                             columns=[f"estimator_score_{j}" for j in range(scores.shape[1])])
        return pd.concat([X, extra], axis=1)
    if sparse.issparse(X):
        return sparse.hstack([X, sparse.csr_matrix(scores)], format="csr")
    return np.hstack([check_array(X, dtype=np.float64, ensure_all_finite=False, input_name="X"), scores])


def _proba_correct(model, Z):
    """The confidence model's probability that the base estimator is right."""
    proba = model.predict_proba(Z)
    classes = list(model.classes_)
    return proba[:, classes.index(True)] if True in classes else np.zeros(proba.shape[0])


def _fit_confidence(template, Z, correct):
    """The confidence model fitted on ``correct``; a constant where the base estimator was always right
    (or always wrong), which leaves nothing to learn."""
    if np.unique(correct).size == 1:
        template = DummyClassifier(strategy="prior")
    return clone(template).fit(Z, correct)


def _fit_fold(template, Z, correct, train, test):
    """One fold of the cross-fitted confidence: the probability of being right on the ``test`` rows."""
    model = _fit_confidence(template, _rows(Z, train), correct[train])
    return test, _proba_correct(model, _rows(Z, test))


def _rows(values, rows):
    """The rows ``rows`` of an array, list, sparse matrix or DataFrame."""
    if hasattr(values, "iloc"):
        return values.iloc[rows]
    return values.tocsr()[rows] if sparse.issparse(values) else np.asarray(values)[rows]


def _threshold(confidence, coverage):
    """The largest threshold whose rule ``confidence >= threshold`` accepts a share ``coverage`` or more
    (−∞ for a coverage of 1: every row, also on new data)."""
    return -np.inf if coverage == 1 else coverage_threshold(confidence, coverage)


class SelectiveClassifier(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """A classifier that abstains, or defers to a stronger model, where it is unsure; equally by group.

    The rows the classifier answers are those whose confidence reaches a threshold chosen so
    that a share ``coverage`` of the fit data is answered. Confidences are:

    * ``"learned"``: Self-REF's idea (Chuang et al., ICML 2025) transferred from language models
      to any classifier. A confidence model (``confidence_estimator``) learns the probability
      that ``estimator`` is right from ``X`` and ``estimator``'s class scores. It is fitted on
      ``estimator``'s out-of-fold predictions (cross-fitted with ``cv``), so it never learns
      from predictions on the estimator's own training rows.
    * ``"max_proba"``: the largest class probability (the classic softmax-response rule).
    * ``"margin"``: the largest class score minus the second largest.

    The threshold is set on out-of-fold confidences of the fit data (the confidence model is
    cross-fitted too), so that the coverage carries over to new data; in-sample confidences of
    a model that fits its training data closely would be too high. With
    ``group_coverage="equal"`` each group gets its own threshold, so every group is answered
    at the same rate: abstention cannot single a group out (the concern of Confidential
    Guardian, Rabanser et al., ICML 2025). With a ``fallback`` model, rejected rows are routed
    to it instead of abstaining.

    Parameters
    ----------
    estimator : classifier, default=None
        The classifier that answers. ``None``: ``LogisticRegression()``. A fitted model to use
        as it is: wrap it in :class:`sklearn.frozen.FrozenEstimator` (the fit data are then
        a held-out set on which its confidences are measured).
    confidence : {"learned", "max_proba", "margin"}, default="learned"
        How sure ``estimator`` is of a row. ``"max_proba"`` needs ``predict_proba``; the others
        use ``decision_function`` when there is no ``predict_proba``.
    confidence_estimator : classifier, default=None
        With ``confidence="learned"``: the model of P(``estimator`` is right | x, its scores),
        with ``predict_proba``. ``None``: ``HistGradientBoostingClassifier``, seeded from
        ``random_state``. Its inputs are ``X`` (without ``sensitive_cols``) with the class
        scores as extra columns (named ``estimator_score_<j>`` in a DataFrame).
    coverage : float in (0, 1], default=0.9
        The share of rows to answer (on the fit data; ties in confidence can raise it). 1
        answers every row, also on new data.
    fallback : classifier, default=None
        A model for the rejected rows (the "stronger model" of routing), fitted on the same
        data; it must know the same classes. ``None``: rejected rows get ``reject_label``.
    group_coverage : {None, "equal"}, default=None
        ``"equal"``: one threshold per group, each meeting ``coverage`` within its group; it
        needs the sensitive features at prediction too. ``None``: one threshold for all
        rows; sensitive features at prediction are then optional (validated when given).
    reject_label : int, float or str, default=-1
        The prediction for a rejected row without ``fallback``; it must not be a class (unless
        the classifier never abstains: with ``fallback``, or a coverage of 1). Where
        it is a number and the classes are strings (or the other way round), predictions are
        an object array.
    cv : int, cross-validation generator or iterable, default=5
        The folds of the out-of-fold predictions (scikit-learn's ``cv``; an int gives
        stratified folds).
    sensitive_cols : str, int or list of them, default=None
        Columns of ``X`` holding the sensitive features, instead of passing
        ``sensitive_features``. They are removed from ``X`` before the models see it.
    n_jobs : int, default=None
        Parallel jobs over the folds (joblib).
    random_state : int, RandomState instance or None, default=None
        Seeds the default ``confidence_estimator`` (fairkit's policy: never numpy's global
        generator). Given estimators keep their own.

    Attributes
    ----------
    estimator_ : classifier
        ``estimator`` fitted on all the data.
    confidence_estimator_ : classifier or None
        The confidence model fitted on all the out-of-fold correctness (``"learned"`` only; a
        ``DummyClassifier`` when the out-of-fold predictions were all right or all wrong).
    fallback_ : classifier or None
        ``fallback`` fitted on all the data.
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    groups_ : ndarray of shape (n_groups,)
        The sensitive groups seen during fit (a single ``NO_GROUP`` without them).
    thresholds_ : ndarray of shape (n_groups,)
        The confidence a row of each group needs to be answered (all equal unless
        ``group_coverage="equal"``).
    coverage_ : float
        The share of the fit data answered, judged on out-of-fold confidences.
    group_coverage_ : ndarray of shape (n_groups,)
        The same, per group.
    n_features_in_ : int
        Number of features seen during fit (the sensitive columns included).
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the features seen during fit, when ``X`` has string column names.

    References
    ----------
    J. Chuang, H. Zhou, P. K. Sarma, et al. Learning to Route LLMs with Confidence Tokens. ICML 2025.
    S. Rabanser, A. Shahin Shamsabadi, O. Franzese, X. Wang, A. Weller, N. Papernot. Confidential
    Guardian: Cryptographically Prohibiting the Abuse of Model Abstention. ICML 2025.
    Y. Geifman, R. El-Yaniv. Selective Classification for Deep Neural Networks. NeurIPS 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit_uncertainty import SelectiveClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(600, 2))
    >>> y = (X[:, 0] + 0.5 * rng.normal(size=600) > 0).astype(int)
    >>> group = rng.choice(["a", "b"], size=600)
    >>> clf = SelectiveClassifier(confidence="max_proba", coverage=0.8, group_coverage="equal")
    >>> clf = clf.fit(X, y, sensitive_features=group)
    >>> clf.group_coverage_.round(2).tolist()
    [0.8, 0.8]
    >>> clf.predict(X[:6], sensitive_features=group[:6]).tolist()  # -1: abstains
    [-1, 1, 0, 1, 0, 0]
    """

    def __init__(self, estimator=None, *, confidence="learned", confidence_estimator=None, coverage=0.9,
                 fallback=None, group_coverage=None, reject_label=-1, cv=5, sensitive_cols=None,
                 n_jobs=None, random_state=None):
        self.estimator = estimator
        self.confidence = confidence
        self.confidence_estimator = confidence_estimator
        self.coverage = coverage
        self.fallback = fallback
        self.group_coverage = group_coverage
        self.reject_label = reject_label
        self.cv = cv
        self.sensitive_cols = sensitive_cols
        self.n_jobs = n_jobs
        self.random_state = random_state

    @classmethod
    def get_test_params(cls):
        """Small parameter sets for the common checks: each confidence, equal coverage, routing.

        The checks expect every prediction to be a class, so they run without abstention:
        at full coverage, or with a fallback. Three folds: some checks fit on 10 samples.
        """
        return [{"coverage": 1.0, "cv": 3, "random_state": 0},
                {"confidence": "max_proba", "coverage": 1.0, "group_coverage": "equal", "cv": 3},
                {"confidence": "margin", "coverage": 0.8, "fallback": LogisticRegression(C=0.1), "cv": 3}]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = get_tags(self._template())
        tags.input_tags.sparse = inner.input_tags.sparse and self.confidence != "learned"
        tags.input_tags.allow_nan = inner.input_tags.allow_nan
        return tags

    def _template(self):
        return LogisticRegression() if self.estimator is None else self.estimator

    def _confidence_template(self, rng):
        if self.confidence_estimator is not None:
            return self.confidence_estimator
        return HistGradientBoostingClassifier(random_state=int(rng.randint(np.iinfo(np.int32).max)))

    def _check_params(self):
        """Refuse bad hyper-parameters before anything is fitted; return the random generator."""
        for name, value in (("estimator", self._template()), ("fallback", self.fallback),
                            ("confidence_estimator", self.confidence_estimator)):
            if value is not None and not (hasattr(value, "fit") and is_classifier(value)):
                raise ValueError(f"{name} must be a scikit-learn classifier, got {value!r}.")
        if not (isinstance(self.confidence, str) and self.confidence in CONFIDENCES):
            raise ValueError(f"confidence must be one of {list(CONFIDENCES)}, got {self.confidence!r}.")
        if self.confidence_estimator is not None and not hasattr(self.confidence_estimator, "predict_proba"):
            raise ValueError("confidence_estimator must have predict_proba (the probability that estimator "
                             f"is right); {type(self.confidence_estimator).__name__} has none.")
        method = _score_method(self._template())
        if method is None or (self.confidence == "max_proba" and method != "predict_proba"):
            needs = "predict_proba" + ("" if self.confidence == "max_proba" else " or decision_function")
            raise ValueError(f"confidence={self.confidence!r} needs {needs}, which "
                             f"{type(self._template()).__name__} does not have. Use confidence='margin' "
                             "for a classifier with decision_function only.")
        if isinstance(self.coverage, bool) or not isinstance(self.coverage, Real) \
                or not 0 < self.coverage <= 1:
            raise ValueError(f"coverage must be a number in (0, 1], the share of rows to answer; "
                             f"got {self.coverage!r}.")
        if self.group_coverage not in (None, "equal"):
            raise ValueError(f"group_coverage must be None or 'equal', got {self.group_coverage!r}.")
        if isinstance(self.reject_label, bool) or not isinstance(self.reject_label, Real | str):
            raise ValueError(f"reject_label must be a number or a string, got {self.reject_label!r}.")
        if self.n_jobs is not None and (isinstance(self.n_jobs, bool)
                                        or not isinstance(self.n_jobs, Integral)):
            raise ValueError(f"n_jobs must be None or an int, got {self.n_jobs!r}.")
        return local_random_state(self.random_state), method

    def _check_reject_label(self, classes):
        label = self.reject_label
        if label in classes.tolist():
            raise ValueError(f"reject_label={label!r} is one of the classes {classes.tolist()}, so an "
                             "abstention could not be told from a prediction. Give another reject_label.")

    def fit(self, X, y, *, sensitive_features=None):
        """Fit ``estimator``, the confidence and the thresholds (and ``fallback``).

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
            Training samples; the models get them without the ``sensitive_cols``.
        y : array-like of shape (n_samples,)
            Class labels.
        sensitive_features : array-like of shape (n_samples,) or (n_samples, n_columns), default=None
            Group of each sample; several columns form intersectional groups. They set the
            thresholds with ``group_coverage="equal"``, and ``group_coverage_`` always.
            Without them (nor ``sensitive_cols``) all samples form one group (a
            ``FairkitWarning`` says so).

        Returns
        -------
        self : SelectiveClassifier
        """
        rng, method = self._check_params()
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None.")
        check_2d(self, X)
        y = column_or_1d(check_array(y, ensure_2d=False, dtype=None, input_name="y"), warn=True)
        check_consistent_length(X, y)
        check_classification_targets(y)
        groups, codes = fit_groups(self, X, sensitive_features)
        if self.fallback is None and self.coverage < 1:  # else the classifier never abstains
            self._check_reject_label(np.unique(y))
        X_inner = drop_sensitive_cols(self, X)
        folds = list(check_cv(self.cv, y, classifier=True).split(X_inner, y))
        estimator = clone(self._template()).fit(X_inner, y)
        classes = np.asarray(estimator.classes_)
        scores = _class_scores(cross_val_predict(clone(self._template()), X_inner, y, cv=folds, method=method,
                                                 n_jobs=self.n_jobs))
        confidence_estimator = None
        if self.confidence == "learned":
            correct = classes[scores.argmax(axis=1)] == y
            Z = _with_scores(X_inner, scores)
            template = self._confidence_template(rng)
            confidence = np.empty(len(y))
            for test, values in Parallel(n_jobs=self.n_jobs)(
                    delayed(_fit_fold)(template, Z, correct, train, test) for train, test in folds):
                confidence[test] = values
            confidence_estimator = _fit_confidence(template, Z, correct)
        else:
            confidence = _confidence_from_scores(scores, self.confidence)
        fallback = None
        if self.fallback is not None:
            fallback = clone(self.fallback).fit(X_inner, y)
            if not np.array_equal(np.asarray(fallback.classes_), classes):
                raise ValueError(f"fallback knows the classes {np.asarray(fallback.classes_).tolist()}, "
                                 f"estimator {classes.tolist()}; both must predict the same classes.")
        if self.group_coverage == "equal":
            thresholds = np.array([_threshold(confidence[codes == g], self.coverage)
                                   for g in range(len(groups))])
        else:
            thresholds = np.full(len(groups), _threshold(confidence, self.coverage))
        accepted = confidence >= thresholds[codes]

        validate_data(self, X, skip_check_array=True)
        self.estimator_, self.confidence_estimator_ = estimator, confidence_estimator
        self.fallback_ = fallback
        self.classes_, self.groups_, self.thresholds_ = classes, groups, thresholds
        self.coverage_ = float(accepted.mean())
        self.group_coverage_ = np.bincount(codes, accepted, len(groups)) / np.bincount(codes,
                                                                                       minlength=len(groups))
        return self

    def _features(self, X):
        """``X`` checked against the fit, without the sensitive columns: what the models read."""
        check_is_fitted(self)
        check_2d(self, X)
        validate_data(self, X, skip_check_array=True, reset=False)
        return drop_sensitive_cols(self, X)

    def _decide(self, X, sensitive_features):
        """``X`` without the sensitive columns, and whether each row is answered."""
        X_inner = self._features(X)
        codes = 0  # one threshold for all rows; the groups, when given, are validated all the same
        given = sensitive_features is not None or self.sensitive_cols is not None
        if self.group_coverage == "equal" or given:
            codes = predict_groups(self, X, sensitive_features)
        return X_inner, self._confidence(X_inner) >= self.thresholds_[codes]

    def _confidence(self, X_inner):
        scores = _class_scores(getattr(self.estimator_, _score_method(self.estimator_))(X_inner))
        if self.confidence != "learned":
            return _confidence_from_scores(scores, self.confidence)
        return _proba_correct(self.confidence_estimator_, _with_scores(X_inner, scores))

    def predict_confidence(self, X):
        """How sure the classifier is of each row (larger is surer).

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)

        Returns
        -------
        confidence : ndarray of shape (n_samples,)
            P(right) for ``confidence="learned"``, the largest probability or the margin otherwise.
        """
        return self._confidence(self._features(X))

    def accepts(self, X, *, sensitive_features=None):
        """Whether the classifier answers each row itself (its confidence reaches the threshold).

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
        sensitive_features : array-like, default=None
            Groups of the rows (or use ``sensitive_cols``); needed with ``group_coverage="equal"``.

        Returns
        -------
        accepted : ndarray of bool of shape (n_samples,)
        """
        return self._decide(X, sensitive_features)[1]

    def predict(self, X, *, sensitive_features=None):
        """Predict the answered rows with ``estimator``; the others get ``reject_label`` or ``fallback``.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
        sensitive_features : array-like, default=None
            Groups of the rows (or use ``sensitive_cols``); needed with ``group_coverage="equal"``.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Labels; ``reject_label`` where the classifier abstains (without ``fallback``). Under
            ``score`` (accuracy) an abstention counts as an error.
        """
        X_inner, accepted = self._decide(X, sensitive_features)
        prediction = np.asarray(self.estimator_.predict(X_inner))
        if self.fallback_ is not None:
            if not accepted.all():
                prediction = prediction.copy()
                prediction[~accepted] = self.fallback_.predict(_rows(X_inner, np.flatnonzero(~accepted)))
            return prediction
        label = np.asarray(self.reject_label)
        same_kind = (label.dtype.kind in "US") == (prediction.dtype.kind in "USO")
        out = prediction.astype(np.result_type(prediction, label) if same_kind else object)
        out[~accepted] = self.reject_label
        return out

    def score(self, X, y, *, sensitive_features=None, sample_weight=None):
        """Accuracy of :meth:`predict` on ``(X, y)``, an abstention counting as an error.

        At a fixed coverage this ranks models as their selective accuracy does; see
        :func:`~fairkit_uncertainty.selective_report` for accuracy among the answered rows.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sensitive_features : array-like, default=None
            Groups of the rows (or use ``sensitive_cols``); needed with ``group_coverage="equal"``.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        score : float
        """
        return accuracy_score(y, self.predict(X, sensitive_features=sensitive_features),
                              sample_weight=sample_weight)
