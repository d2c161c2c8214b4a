"""RandomizedFairBOC: the randomized fair Bayes-optimal classifier, as group thresholds on scores."""

from numbers import Integral, Real

import numpy as np
from scipy.special import expit
from sklearn import get_config
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone, is_classifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.utils import Bunch, get_tags
from sklearn.utils.metadata_routing import MetadataRouter, MethodMapping, process_routing
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import (
    check_array,
    check_consistent_length,
    check_is_fitted,
    column_or_1d,
    validate_data,
)

from fairkit.postprocessing._curves import group_curves, rule, value
from fairkit.postprocessing._equalized_odds import equalized_odds_rules, roc_curves
from fairkit.postprocessing._lp import lp_rates
from fairkit.postprocessing._support import CONSTRAINED_RATES, check_support, group_support, support_frame
from fairkit.postprocessing._sweep import best_deterministic, best_randomized
from fairkit.utils._random import local_generator
from fairkit.utils._sklearn_compat import HasMethods, Interval, StrOptions, _check_sample_weight, _fit_context
from fairkit.utils.validation import check_2d, check_numeric_features, fit_groups, predict_groups

__all__ = ["RandomizedFairBOC"]

SIMPLE_CONSTRAINTS = ("demographic_parity", "equal_opportunity", "predictive_equality")

#: The fitted dicts keyed by group, saved as lists in ``groups_`` order (see ``__getstate__``).
GROUP_KEYED = ("thresholds_", "randomization_", "mixture_", "group_rates_")


class RandomizedFairBOC(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Randomized fair Bayes-optimal classifier: group thresholds on η that randomize at the threshold.

    Under demographic parity, equal opportunity (true positive rate parity) and
    predictive equality (false positive rate parity), the fair Bayes-optimal
    classifier predicts 1 when η(x) = P(Y=1 | x, a) is above a threshold of the
    group ``a``, 0 below it, and flips a coin exactly at it. Agarwal, Deshpande,
    Rajaraman and Sundaram (ICML 2025) show that this randomized rule is nearly
    deterministic and, unlike the best deterministic fair rule, keeps its accuracy
    when a fraction α of the training distribution is malicious noise.

    The estimator fits ``estimator`` (its scores estimate η) and solves the plug-in
    problem on the fit data exactly: maximize the expected accuracy
    ``Σᵢ wᵢ [fᵢ sᵢ + (1 − fᵢ)(1 − sᵢ)] / Σᵢ wᵢ`` over ``f ∈ [0, 1]ⁿ`` subject to
    ``|rate_a − rate_b| ≤ tolerance`` for every pair of groups, by an O(n log n)
    sweep over the groups' concave gain curves (:ref:`user guide <fair_boc>`). Under
    demographic parity, equal opportunity and predictive equality with plug-in rates
    at most K − 1 blocks of tied fit scores (K groups) get a fractional decision (with
    ``rates="empirical"``, at most K − 1 bands of scores); ``n_randomized_`` counts the
    fit samples that do.

    Parameters
    ----------
    estimator : classifier, default=None
        Binary classifier with ``predict_proba`` or ``decision_function``; its scores
        estimate η. ``None`` uses ``LogisticRegression()``.
    constraint : {"demographic_parity", "equal_opportunity", "predictive_equality", \
            "equalized_odds"}, default="demographic_parity"
        The rates made equal across groups: selection rate, true positive rate, false
        positive rate, or both of the last two (solved exactly as an LP over the
        groups' ROC curves; beyond the paper).
    rates : {"plugin", "empirical"}, default="plugin"
        How the fit data's true and false positive rates are counted. ``"plugin"``:
        from the scores, ``Σ f s / Σ s`` and ``Σ f (1 − s) / Σ (1 − s)``, the rates the
        estimator's definition equalizes (the population's, if the scores are η).
        ``"empirical"``: from the labels, ``Σ f y / Σ y`` and ``Σ f (1 − y) / Σ (1 − y)``,
        as Hardt et al. (2016) and fairlearn do, so that the constraint holds on the
        fit data exactly (within ``tolerance``); the rule is then the most accurate
        (plug-in accuracy) among rules monotone in the score, a mixture of thresholds
        that may randomize a band of scores per group. The selection rate is the same
        either way. Not available with ``randomized=False`` for true or false positive
        rates.
    tolerance : float, default=0.0
        Largest allowed difference δ between the rates of any two groups on the fit data.
        A group whose rate has a sampling SD above ``max(tolerance, 0.05)`` on the fit
        data gets a ``FairkitWarning`` (see ``group_support_``).
    randomized : bool, default=True
        ``False`` gives the best deterministic group-threshold rule within
        ``tolerance`` instead (exact for any number of groups; not available for
        equalized odds), the classifier the paper shows is not robust to noise.
    solver : {"auto", "sweep", "lp"}, default="auto"
        ``"sweep"``: the O(n log n) sweep; ``"lp"``: HiGHS's dual simplex on the LP
        over score blocks (for checking; randomized rules only); ``"auto"``: the
        sweep, and the LP for equalized odds.
    prefit : bool, default=False
        Use ``estimator`` as already fitted instead of fitting a clone. Under
        ``GridSearchCV`` wrap it in :class:`~sklearn.frozen.FrozenEstimator` instead.
    predict_method : {"auto", "predict_proba", "decision_function"}, default="auto"
        Where the scores come from: column 1 of ``predict_proba``, or the logistic
        function of ``decision_function`` (a logit). ``"auto"`` tries them in that order.
        Scores must be probabilities: NaN, or ``predict_proba`` values outside [0, 1],
        raise a ``ValueError`` in :meth:`fit` and at prediction. A margin that is not a
        logit (e.g. ``LinearSVC``'s) gives miscalibrated scores: wrap such an estimator
        in :class:`~sklearn.calibration.CalibratedClassifierCV`.
    sensitive_cols : str, int or list of them, default=None
        Columns of ``X`` holding the sensitive features, instead of passing
        ``sensitive_features`` (works where metadata cannot reach ``predict``, e.g.
        scorers). The columns stay in ``X`` for ``estimator``.
    random_state : int, RandomState instance or None, default=None
        Seeds the coins of :meth:`predict`, drawn on each call: an int gives the same
        predictions on every call, a ``RandomState`` instance is advanced, and None
        draws fresh coins (never from numpy's global generator).

    Attributes
    ----------
    estimator_ : classifier
        The fitted (or prefit) estimator.
    classes_ : ndarray of shape (2,)
        Class labels; ``classes_[1]`` is the positive class.
    groups_ : ndarray of shape (n_groups,)
        The sensitive groups seen during fit.
    thresholds_ : dict
        Group → score threshold of the group's threshold rule, which predicts 1 above
        it and 0 below it. Every score above it is predicted 1.
    randomization_ : dict
        Group → probability that the threshold rule predicts 1 for a score exactly at
        the threshold (0.0 for a deterministic rule).
    mixture_ : dict
        Group → list of ``(weight, threshold, randomization)``: further threshold rules
        that decide a sample instead of the group's threshold rule, each with
        probability ``weight`` (independently per sample), by decreasing threshold.
        Empty under demographic parity, equal opportunity and predictive equality with
        plug-in rates. Under equalized odds, a group whose point lies inside its ROC
        hull mixes two rules and randomizes the band of scores between them: the fewest
        fit samples (by weight) that any rule monotone in the score needs. With
        ``rates="empirical"`` a group may mix two rules (three under equalized odds).
    group_rates_ : dict
        Group → its constrained rate on the fit data in expectation (plug-in or
        empirical, see ``rates``); under equalized odds a ``(true positive rate, false
        positive rate)`` pair.
    group_support_ : DataFrame
        Indexed by group (a MultiIndex for intersectional groups): the fit data behind
        the group's rates. ``weight`` (Σw), ``expected_positives`` (Σw·s) and
        ``expected_negatives`` (Σw(1 − s)); with ``rates="empirical"`` also
        ``positives`` (Σw·y) and ``negatives`` (Σw(1 − y)). For each constrained rate
        (``selection_rate``, ``true_positive_rate``, ``false_positive_rate``),
        ``<rate>_effective_size``, Kish's ``(Σw)²/Σw²`` over the samples the rate
        conditions on (plug-in: a sample is a positive with weight w·s), and
        ``<rate>_sd``, the sampling SD ``sqrt(r(1 − r)/n_eff)`` at the fitted rate r.
    n_randomized_ : int
        Number of fit samples with a fractional decision.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the features seen during fit, when ``X`` has string column names.

    See Also
    --------
    fairlearn.postprocessing.ThresholdOptimizer : Hardt et al.'s post-processing on
        the empirical ROC curves, discretized on a grid.

    References
    ----------
    S. Agarwal, A. Deshpande, R. Rajaraman, R. Sundaram. Optimal Fair Learning Robust to
    Adversarial Distribution Shift. ICML 2025.

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit.postprocessing import RandomizedFairBOC
    >>> rng = np.random.default_rng(0)
    >>> group = rng.integers(0, 2, 400)
    >>> X = rng.normal(size=(400, 2)) + group[:, None]
    >>> y = (X[:, 0] + rng.normal(size=400) > 0.5).astype(int)
    >>> fair = RandomizedFairBOC(random_state=0).fit(X, y, sensitive_features=group)
    >>> rates = fair.group_rates_
    >>> bool(abs(rates[0] - rates[1]) < 1e-12), fair.n_randomized_ <= 1
    (True, True)
    >>> fair.predict(X[:5], sensitive_features=group[:5])
    array([0, 1, 0, 1, 0])
    >>> fair.group_support_[["weight", "selection_rate_sd"]].round(3)  # doctest: +NORMALIZE_WHITESPACE
           weight  selection_rate_sd
    group
    0       179.0              0.037
    1       221.0              0.034
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit"]), None],
        "constraint": [StrOptions({*SIMPLE_CONSTRAINTS, "equalized_odds"})],
        "rates": [StrOptions({"plugin", "empirical"})],
        "tolerance": [Interval(Real, 0, None, closed="left")],
        "randomized": ["boolean"],
        "solver": [StrOptions({"auto", "sweep", "lp"})],
        "prefit": ["boolean"],
        "predict_method": [StrOptions({"auto", "predict_proba", "decision_function"})],
        "sensitive_cols": [None, str, Integral, "array-like"],
        "random_state": ["random_state"],
    }

    def __init__(self, estimator=None, *, constraint="demographic_parity", rates="plugin", tolerance=0.0,
                 randomized=True, solver="auto", prefit=False, predict_method="auto",
                 sensitive_cols=None, random_state=None):
        self.estimator = estimator
        self.constraint = constraint
        self.rates = rates
        self.tolerance = tolerance
        self.randomized = randomized
        self.solver = solver
        self.prefit = prefit
        self.predict_method = predict_method
        self.sensitive_cols = sensitive_cols
        self.random_state = random_state

    @classmethod
    def get_test_params(cls):
        """Small parameter sets for the common checks."""
        return [{}, {"constraint": "equalized_odds", "tolerance": 0.05,
                     "predict_method": "decision_function"}]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        inner = get_tags(self._template()).input_tags
        tags.input_tags.sparse, tags.input_tags.allow_nan = inner.sparse, inner.allow_nan
        return tags

    def _template(self):
        return LogisticRegression() if self.estimator is None else self.estimator

    def get_metadata_routing(self):
        """Route ``fit`` metadata (``sample_weight`` and others) to ``estimator.fit``.

        ``sample_weight`` is also used by this estimator itself, to weight the fit data.

        Returns
        -------
        routing : MetadataRouter
        """
        router = MetadataRouter(owner=self.__class__.__name__).add_self_request(self)
        if not self.prefit:
            router.add(estimator=self._template(),
                       method_mapping=MethodMapping().add(caller="fit", callee="fit"))
        return router

    def _check_options(self):
        if self.constraint == "equalized_odds" and not self.randomized:
            raise ValueError("randomized=False is not available with constraint='equalized_odds'; "
                             "the deterministic rules are only searched for one equalized rate.")
        if self.constraint == "equalized_odds" and self.solver == "sweep":
            raise ValueError("solver='sweep' solves one equalized rate; constraint='equalized_odds' "
                             "needs solver='lp' or 'auto'.")
        if not self.randomized and self.rates == "empirical" and self.constraint != "demographic_parity":
            raise ValueError(f"randomized=False is not available with rates='empirical' and "
                             f"constraint={self.constraint!r}: the best deterministic threshold rule is "
                             "only searched on plug-in rates (use rates='plugin'; the selection rate of "
                             "demographic parity is the same either way).")
        if not self.randomized and self.solver == "lp":
            raise ValueError("solver='lp' solves the randomized problem; randomized=False uses the "
                             "exact threshold enumeration (solver='sweep' or 'auto').")

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, *, sensitive_features=None, sample_weight=None, **fit_params):
        """Fit the estimator (unless ``prefit``) and the fair group thresholds on its scores.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Training samples, passed to ``estimator`` as they are.
        y : array-like of shape (n_samples,)
            Binary labels.
        sensitive_features : array-like of shape (n_samples,) or (n_samples, n_columns), default=None
            Group of each sample; several columns form intersectional groups.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the fit data in the fair problem; also passed to
            ``estimator.fit`` (with metadata routing: when it requests them).
        **fit_params : dict
            Further parameters of ``estimator.fit``.

        Returns
        -------
        self : RandomizedFairBOC
        """
        self._check_options()
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None.")
        check_2d(self, X)
        if not is_classifier(self._template()):
            raise ValueError(f"{type(self).__name__} thresholds a classifier's scores, but estimator is "
                             f"{type(self._template()).__name__}, not a classifier. Give a classifier with "
                             "predict_proba or decision_function (e.g. LogisticRegression).")
        y = column_or_1d(check_array(y, ensure_2d=False, dtype=None, input_name="y"), warn=True)
        check_consistent_length(X, y)  # a prefit estimator never sees y, so it cannot catch this
        y_type = type_of_target(y, input_name="y", raise_unknown=True)
        if y_type not in ("binary", "multiclass"):
            raise ValueError(f"Unknown label type: {y_type!r}; {type(self).__name__} needs binary labels.")
        if y_type != "binary":
            raise ValueError(f"Only binary classification is supported. The type of the target is {y_type}.")
        groups, codes = fit_groups(self, X, sensitive_features)
        if self.estimator is None:  # the default LogisticRegression sees X as it is: it needs numbers
            check_numeric_features(self, X)
        weights = _check_sample_weight(sample_weight, np.empty(len(codes)), ensure_non_negative=True)
        estimator = self._fit_estimator(X, y, sensitive_features, sample_weight, fit_params)
        classes = np.asarray(estimator.classes_)
        if len(classes) != 2:
            raise ValueError(f"The estimator knows {len(classes)} classes ({classes}); "
                             f"{type(self).__name__} needs exactly 2.")
        scores = _scores(estimator, X, self.predict_method)
        keep = weights > 0  # a sample of weight 0 is as good as absent
        present = np.bincount(codes[keep], minlength=len(groups)) > 0
        if not present.all():
            raise ValueError(f"Every sample of group(s) {list(groups[~present])} has weight 0.")
        labels = None
        if self.rates == "empirical":
            unknown = np.setdiff1d(np.unique(y), classes).tolist()
            if unknown:
                raise ValueError(f"y holds labels {unknown} that the estimator does not know "
                                 f"(its classes_ are {classes.tolist()}); rates='empirical' counts the "
                                 "rates from y, so y must use the estimator's classes.")
            labels = (y[keep] == classes[1]).astype(float)
        fit_data = scores[keep], codes[keep], weights[keep]
        rules, rates = self._solve(*fit_data, groups, labels)
        support = group_support(*fit_data, groups, self.constraint, _rates_by_name(self.constraint, rates),
                                labels)

        validate_data(self, X, skip_check_array=True)
        self.estimator_, self.classes_, self.groups_ = estimator, classes, groups
        self.thresholds_ = {g: r[0][1] for g, r in zip(groups, rules, strict=True)}
        self.randomization_ = {g: r[0][2] for g, r in zip(groups, rules, strict=True)}
        self.mixture_ = {g: r[1:] for g, r in zip(groups, rules, strict=True)}
        self.group_rates_ = dict(zip(groups, rates, strict=True))
        self.group_support_ = support
        self.n_randomized_ = int(np.count_nonzero(_is_fractional(self._decision(scores, codes))))
        check_support(support, self.constraint, self.tolerance, type(self).__name__)
        return self

    def __getstate__(self):
        """The state in types that ``skops.io`` can load: no dict keyed by tuples, no pandas.

        The fitted dicts keyed by group are saved as lists in ``groups_`` order, and
        ``group_support_`` as its columns; ``__setstate__`` rebuilds them.
        """
        state = dict(super().__getstate__())
        if "group_support_" in state:
            state["_by_group"] = {}
            for name in GROUP_KEYED:
                values = state.pop(name)
                state["_by_group"][name] = [values[g] for g in self.groups_]
            support = state.pop("group_support_")
            state["_group_support_columns"] = {column: support[column].to_numpy() for column in support}
        return state

    def __setstate__(self, state):
        state = dict(state)
        if "_by_group" in state:
            groups = state["groups_"]
            for name, values in state.pop("_by_group").items():
                state[name] = dict(zip(groups, values, strict=True))
            state["group_support_"] = support_frame(state.pop("_group_support_columns"), groups)
        super().__setstate__(state)

    def _fit_estimator(self, X, y, sensitive_features, sample_weight, fit_params):
        if self.prefit:
            if fit_params:
                raise ValueError(f"prefit=True does not fit the estimator, so the fit parameters "
                                 f"{sorted(fit_params)} have nowhere to go.")
            check_is_fitted(self.estimator)
            return self.estimator
        if get_config()["enable_metadata_routing"]:
            metadata = dict(fit_params, sample_weight=sample_weight, sensitive_features=sensitive_features)
            routed = process_routing(self, "fit", **{k: v for k, v in metadata.items() if v is not None})
        else:
            passed = fit_params if sample_weight is None else dict(fit_params, sample_weight=sample_weight)
            routed = Bunch(estimator=Bunch(fit=passed))
        return clone(self._template()).fit(X, y, **routed.estimator.fit)

    def _solve(self, scores, codes, weights, groups, labels):
        """Each group's rule (a list of ``(weight, threshold, probability at it)``) and rate(s)."""
        delta = float(self.tolerance)
        if self.constraint == "equalized_odds":
            curves = roc_curves(scores, codes, weights, groups, labels)
            return equalized_odds_rules(curves, delta, empirical=labels is not None)
        curves = group_curves(scores, codes, weights, groups, self.constraint, labels)
        if not self.randomized:
            positions = best_deterministic(curves, delta)
        elif self.solver == "lp":
            positions = lp_rates(curves, delta)
        else:
            positions = best_randomized(curves, delta)
        rules = [rule(curve, k, phi) for curve, (k, phi) in zip(curves, positions, strict=True)]
        rates = [float(value(curve, k, phi)[1]) for curve, (k, phi) in zip(curves, positions, strict=True)]
        return rules, rates

    def _decision(self, scores, codes):
        """Probability that the rule predicts the positive class: each group's mixture of threshold rules."""
        n_rules = 1 + max(len(self.mixture_[g]) for g in self.groups_)
        weight, threshold, tie = np.zeros((3, n_rules, len(self.groups_)))  # rule slot x group
        for a, g in enumerate(self.groups_):
            rest = self.mixture_[g]
            rules = [(1.0 - sum(w for w, _, _ in rest), self.thresholds_[g], self.randomization_[g]), *rest]
            weight[:len(rules), a], threshold[:len(rules), a], tie[:len(rules), a] = zip(*rules, strict=True)
        decision = np.zeros(len(scores))
        for w, t, p in zip(weight, threshold, tie, strict=True):  # one pass per slot (at most 3), O(n) each
            t = t[codes]
            step = (scores > t).astype(float)
            at = scores == t
            step[at] = p[codes[at]]
            decision += w[codes] * step
        return decision

    def _decision_on(self, X, sensitive_features):
        check_is_fitted(self)
        check_2d(self, X)
        validate_data(self, X, skip_check_array=True, reset=False)
        codes = predict_groups(self, X, sensitive_features)
        return self._decision(_scores(self.estimator_, X, self.predict_method), codes)

    def predict_proba(self, X, *, sensitive_features=None):
        """Decision probabilities of the fair rule.

        Column 1 is the probability that the rule predicts ``classes_[1]``: the
        rule's own randomization, not a calibrated class probability. On the fit data
        it is fractional for ``n_randomized_`` samples: under demographic parity,
        equal opportunity and predictive equality with plug-in rates, those of at most
        K − 1 fit scores (one score per randomizing group); with ``rates="empirical"``
        at most K − 1 bands of scores; under equalized odds one band per group whose
        point lies inside its ROC hull (see ``mixture_``).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
        sensitive_features : array-like, default=None
            Groups of the samples (or use ``sensitive_cols``).

        Returns
        -------
        proba : ndarray of shape (n_samples, 2)
        """
        decision = self._decision_on(X, sensitive_features)
        return np.column_stack([1.0 - decision, decision])

    def predict(self, X, *, sensitive_features=None):
        """Predict with the fair rule, flipping a coin where its decision is fractional.

        The coins come from ``random_state``, afresh on each call.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
        sensitive_features : array-like, default=None
            Groups of the samples (or use ``sensitive_cols``).

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        decision = self._decision_on(X, sensitive_features)
        coins = np.full(len(decision), 0.5)
        fractional = _is_fractional(decision)
        coins[fractional] = local_generator(self.random_state).random(int(fractional.sum()))
        return self.classes_[(coins < decision).astype(int)]

    def score(self, X, y, *, sensitive_features=None, sample_weight=None):
        """Accuracy of :meth:`predict` on ``(X, y)``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sensitive_features : array-like, default=None
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        score : float
        """
        return accuracy_score(y, self.predict(X, sensitive_features=sensitive_features),
                              sample_weight=sample_weight)


def _scores(estimator, X, predict_method):
    """Estimates of P(Y = classes_[1] | x) from ``estimator``, refused unless probabilities."""
    name = type(estimator).__name__
    if predict_method in ("auto", "predict_proba") and hasattr(estimator, "predict_proba"):
        proba = np.asarray(estimator.predict_proba(X), dtype=float)[:, 1]
        return _check_scores(proba, f"{name}.predict_proba")
    if predict_method in ("auto", "decision_function") and hasattr(estimator, "decision_function"):
        # a logit: any real value (or an infinite one) maps into [0, 1]; only NaN is left to refuse
        logit = np.asarray(estimator.decision_function(X), dtype=float).ravel()
        return _check_scores(expit(logit), f"{name}.decision_function")
    wanted = "predict_proba or decision_function" if predict_method == "auto" else predict_method
    raise AttributeError(f"{type(estimator).__name__} has no {wanted}, which RandomizedFairBOC "
                         "needs for its scores.")


def _check_scores(scores, source):
    """Raise unless every score is a probability: no NaN, nothing outside [0, 1]."""
    nan = np.isnan(scores)
    outside = (scores < 0) | (scores > 1)
    if not (nan.any() or outside.any()):
        return scores
    problems = [f"{np.count_nonzero(nan)} NaN"] if nan.any() else []
    if outside.any():
        problems.append(f"{np.count_nonzero(outside)} outside [0, 1] (scores seen from "
                        f"{np.nanmin(scores):.4g} to {np.nanmax(scores):.4g})")
    cause = " (missing values in X are a common cause: impute them)" if nan.any() else ""
    raise ValueError(f"{source} gave {np.count_nonzero(nan | outside)} of {len(scores)} scores that are "
                     f"not probabilities: {' and '.join(problems)}. RandomizedFairBOC reads them as "
                     f"P(Y=1 | x){cause}. Use a base estimator whose predict_proba gives "
                     "probabilities, or wrap it in sklearn.calibration.CalibratedClassifierCV.")


def _is_fractional(decision):
    return (decision > 0.0) & (decision < 1.0)


def _rates_by_name(constraint, rates):
    """Rate name -> each group's fitted rate (equalized odds: the pairs split)."""
    columns = np.array(rates, dtype=float).reshape(len(rates), -1).T
    return dict(zip(CONSTRAINED_RATES[constraint], columns, strict=True))
