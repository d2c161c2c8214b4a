"""SHIFT: where a model's loss rises under a distribution shift, and why.

H. Singh, F. Xia, A. Gossmann, A. Chuang, J. C. Hong, J. Feng, "'Who experiences large model decay
and why?' A hierarchical framework for diagnosing heterogeneous performance drift", ICML 2025
(arXiv:2506.00756), and its reference code (``jjfeng/shift``).
"""

import numbers

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.model_selection import train_test_split
from sklearn.utils import check_consistent_length, column_or_1d
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_is_fitted

from fairkit.utils import local_random_state
from fairkit.utils._sklearn_compat import HasMethods, Interval, StrOptions, _fit_context
from fairkit.utils.validation import all_or_nothing, check_2d, check_same_index
from fairkit_shift._bootstrap import holm, max_multiplier_test
from fairkit_shift._conditional import conditional_covariate_test, conditional_outcome_test, subset_positions
from fairkit_shift._detectors import covariate_candidates, detect_outcome, fit_outcome_detector
from fairkit_shift._domain import Domain
from fairkit_shift._estimators import covariate_shift_estimate, outcome_shift_estimate
from fairkit_shift._losses import expected_loss, per_sample_losses
from fairkit_shift._nuisance import fit_density_ratio, fit_outcome_model, predict_positive
from fairkit_shift._rules import fit_rule, subgroup_losses

__all__ = ["SubgroupShiftDiagnoser"]

#: The columns of :meth:`SubgroupShiftDiagnoser.summary`, in order.
_SUMMARY_COLUMNS = ["level", "decomposition", "subset", "estimate", "estimate_plugin", "std_error",
                    "critical_value", "p_value", "p_value_adjusted", "reject", "n_candidates",
                    "prevalence_source", "prevalence_target"]

class SubgroupShiftDiagnoser(BaseEstimator):
    """Which subgroups lose performance between a source and a target domain, and why (SHIFT).

    The hierarchical test of Singh et al., "'Who experiences large model decay and why?' A
    hierarchical framework for diagnosing heterogeneous performance drift", ICML 2025
    (arXiv:2506.00756). Stage 1 ("where") asks whether some subgroup of prevalence at least
    ``min_prevalence`` in both domains sees the model's expected loss rise by more than
    ``tolerance`` because of covariate shift (the target's X reaches regions where the source
    loss is high), or because of outcome shift (Y given X changed). Each answer is a one-step
    (debiased) estimate over the subgroups a detector family proposes, tested with a Gaussian
    multiplier bootstrap of the maximum over candidates, which accounts for the search.

    Each domain is split once (``test_size``): nuisance models and detectors are fitted on the
    training halves, estimates and tests are computed on the test halves (as the reference code;
    swapping the halves would test other subgroups, so nothing is averaged).

    Parameters
    ----------
    loss : {"zero_one", "brier"} or callable, default="zero_one"
        The per-sample loss of the model: ``loss(y_true, proba)`` for labels 0/1 and the
        probability of the positive class, returning one value per sample.
    tolerance : float >= 0, default=0.05
        τ: a rise of the subgroup's expected loss up to τ is tolerated.
    min_prevalence : float in (0, 0.5], default=0.05
        ε: the smallest share of each domain a subgroup may have.
    alpha : float in (0, 1), default=0.05
        Level of each stage-1 test (covariate, outcome).
    n_bootstrap : int, default=10000
        Draws of the multiplier bootstrap.
    n_bins : int, default=40
        Stage 2, outcome shift: the bins of the logit of μ₀ that stand for the source's risk
        level in the conditioning set (the reference's case study uses 40).
    outcome_model : classifier, default=None
        μ₀ = P(Y = 1 | X) in the source domain (a clone is fitted); None: a histogram gradient
        boosting classifier.
    density_model : classifier, default=None
        The domain classifier behind the density ratio (calibrated by 3-fold sigmoid); None: a
        histogram gradient boosting classifier.
    variable_groups : dict of str to list, default=None
        Stage 2: the variable subsets s to test, by name, each a list of columns (names of a
        DataFrame's columns, or positions). None: one subset per column. Each subset is tested
        given all the other columns.
    max_candidates : int, default=5
        Covariate-shift subgroups kept from the search (the reference's 5).
    n_omegas : int, default=200
        Points of the ω grid of the covariate detectors (log-spaced on [ε, 1/ε], and 1). The
        reference searches 2,000 ω on [0, 100] and 500 λ; here λ is solved exactly.
    clip : float in (0, 0.5), default=1e-3
        The domain classifier's probabilities are clipped to [clip, 1 − clip].
    test_size : float in (0, 1), default=0.5
        Share of each domain held out for estimation and testing.
    n_jobs : int, default=None
        Stage-2 subsets tested in parallel (joblib; None: 1 unless in a ``parallel_backend``).
    random_state : int, RandomState or None, default=None
        Seed of the splits, the nuisance models and the bootstrap.

    Attributes
    ----------
    results_ : DataFrame
        One row per test (see :meth:`summary`).
    subgroups_ : list of SubgroupRule
        The subgroup of each decomposition whose test rejected (the candidate with the largest
        estimate), as a readable rule: a depth-3 decision tree fitted to its detector on the
        training halves (both domains for covariate shift, the target for outcome shift), with
        ``text``, ``predicate(X)``, its agreement with the detector (``fidelity``) and its
        prevalence in each domain's test half.
    subgroup_losses_ : DataFrame
        The model's mean loss with its standard error in each domain's test half, overall and
        in each rule's subgroup (columns ``decomposition``, ``subgroup``, ``domain``,
        ``mean_loss``, ``std_error``, ``n``); what :func:`plot_subgroup_losses` draws.
    covariate_detectors_ : CovariateDetectors
        The candidate covariate-shift detectors (their ω and λ), best training estimate first.
    outcome_detector_ : regressor
        The outcome-shift detector: a regressor of the loss residual on the target's X.
    classes_ : ndarray of shape (2,)
        The labels; ``classes_[1]`` is the positive class of ``model.predict_proba``.
    n_features_in_ : int
        Number of columns of X.
    feature_names_in_ : ndarray of str
        Column names of X, when they are all strings.
    """

    _parameter_constraints = {
        "loss": [StrOptions({"zero_one", "brier"}), callable],
        "tolerance": [Interval(numbers.Real, 0, None, closed="left")],
        "min_prevalence": [Interval(numbers.Real, 0, 0.5, closed="right")],
        "alpha": [Interval(numbers.Real, 0, 1, closed="neither")],
        "n_bootstrap": [Interval(numbers.Integral, 1, None, closed="left")],
        "n_bins": [Interval(numbers.Integral, 1, None, closed="left")],
        "variable_groups": [None, dict],
        "outcome_model": [None, HasMethods(["fit", "predict_proba"])],
        "density_model": [None, HasMethods(["fit", "predict_proba"])],
        "max_candidates": [Interval(numbers.Integral, 1, None, closed="left")],
        "n_omegas": [Interval(numbers.Integral, 2, None, closed="left")],
        "clip": [Interval(numbers.Real, 0, 0.5, closed="neither")],
        "test_size": [Interval(numbers.Real, 0, 1, closed="neither")],
        "n_jobs": [None, numbers.Integral],
        "random_state": ["random_state"],
    }

    def __init__(self, loss="zero_one", *, tolerance=0.05, min_prevalence=0.05, alpha=0.05, n_bootstrap=10000,
                 n_bins=40, outcome_model=None, density_model=None, variable_groups=None, max_candidates=5,
                 n_omegas=200, clip=1e-3, test_size=0.5, n_jobs=None, random_state=None):
        self.loss = loss
        self.tolerance = tolerance
        self.min_prevalence = min_prevalence
        self.alpha = alpha
        self.n_bootstrap = n_bootstrap
        self.n_bins = n_bins
        self.outcome_model = outcome_model
        self.density_model = density_model
        self.variable_groups = variable_groups
        self.max_candidates = max_candidates
        self.n_omegas = n_omegas
        self.clip = clip
        self.test_size = test_size
        self.n_jobs = n_jobs
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X_source, y_source, X_target, y_target, model):
        """Test where the loss rises (stage 1), then why (stage 2), and describe the subgroups found.

        Parameters
        ----------
        X_source, X_target : array-like or DataFrame of shape (n_source, n_features), (n_target, n_features)
            The samples of each domain, with the same columns (what ``model`` takes).
        y_source, y_target : array-like of shape (n_source,), (n_target,)
            Their binary labels.
        model : fitted classifier
            The deployed model: ``model.predict_proba(X)[:, 1]`` is the probability of
            ``model.classes_[1]``.

        Returns
        -------
        self : object
            The fitted diagnoser.
        """
        with all_or_nothing(self):
            rng = local_random_state(self.random_state)
            source, target = self._domains(X_source, y_source, X_target, y_target, model, rng)
            subsets = self._subsets(X_source)
            seeds = rng.randint(np.iinfo(np.int32).max, size=6)
            mu0 = fit_outcome_model(self.outcome_model, source.rows(source.X, "train"),
                                    source.rows(source.y, "train"), random_state=seeds[0])
            ratio = fit_density_ratio(source.rows(source.X, "train"), target.rows(target.X, "train"),
                                      self.density_model, clip=self.clip, random_state=seeds[1])
            for domain in (source, target):
                domain.mu0 = predict_positive(mu0, domain.X)
                domain.z0 = expected_loss(domain.mu0, domain.loss0, domain.loss1)
                domain.ratio = ratio.ratio(domain.X)
            tests = {"covariate": self._covariate_test(source, target, seeds[2]),
                     "outcome": self._outcome_test(source, target, seeds[3])}
            rows = [row for row, _ in tests.values()]
            rejected = [name for name, (_, chosen) in tests.items() if chosen is not None]
            rows += self._stage_two(source, target, rejected, subsets, seeds[4])
            self.results_ = pd.DataFrame(rows, columns=_SUMMARY_COLUMNS)
            self.subgroups_ = [self._rule(name, tests[name][1], source, target, seeds[5])
                               for name in rejected]
            self.subgroup_losses_ = subgroup_losses(
                self.subgroups_, source.rows(source.X, "test"), source.rows(source.loss, "test"),
                target.rows(target.X, "test"), target.rows(target.loss, "test"))
        return self

    def summary(self):
        """The tests: stage 1 per decomposition, then stage 2 per rejected decomposition and subset.

        Returns
        -------
        DataFrame
            Columns: ``level`` ("where" for stage 1, "how" for stage 2), ``decomposition``
            ("covariate" or "outcome"), ``subset`` ("all" at stage 1, the subset's name at
            stage 2), ``estimate`` (the one-step estimate of the largest rise beyond the
            tolerance over the candidate subgroups), ``estimate_plugin``, ``std_error`` (of that
            candidate), ``critical_value`` and ``p_value`` of the bootstrap test of the maximum,
            ``p_value_adjusted`` (stage 2: Holm's adjustment over the decomposition's subsets;
            NaN at stage 1), ``reject`` (stage 1: p ≤ alpha; stage 2: adjusted p ≤ alpha),
            ``n_candidates`` and the chosen subgroup's prevalence in each domain's test half.
            Stage 2 runs only for a decomposition whose stage-1 test rejected.
        """
        check_is_fitted(self)
        return self.results_.copy()

    def _domains(self, X_source, y_source, X_target, y_target, model, rng):
        """Validate the inputs, compute the model's losses and split each domain."""
        for X in (X_source, X_target):
            check_2d(self, X)
        check_same_index(X_source=X_source, y_source=y_source)
        check_same_index(X_target=X_target, y_target=y_target)
        y_source, y_target = column_or_1d(y_source, warn=True), column_or_1d(y_target, warn=True)
        check_consistent_length(X_source, y_source)
        check_consistent_length(X_target, y_target)
        self._check_columns(X_source, X_target)
        if not hasattr(model, "predict_proba"):
            raise TypeError("model must be a fitted classifier with predict_proba; got "
                            f"{type(model).__name__}.")
        self.classes_ = self._classes(model, y_source, y_target)
        domains = []
        for X, y, name in ((X_source, y_source, "source"), (X_target, y_target, "target")):
            labels = (y == self.classes_[1]).astype(int)
            proba = np.asarray(model.predict_proba(X))[:, 1]
            loss0, loss1, observed = per_sample_losses(self.loss, proba, labels)
            self._check_size(labels, name)
            train, test = train_test_split(np.arange(len(labels)), test_size=self.test_size, stratify=labels,
                                           random_state=rng.randint(np.iinfo(np.int32).max))
            domains.append(Domain(name, X, labels, loss0, loss1, observed, np.sort(train), np.sort(test)))
        return domains

    def _check_columns(self, X_source, X_target):
        n_source, n_target = np.shape(X_source)[1], np.shape(X_target)[1]
        if n_source != n_target:
            raise ValueError(f"X_source has {n_source} columns and X_target {n_target}; both domains must "
                             "have the columns the model takes, in the same order.")
        self.n_features_in_ = n_source
        names = [getattr(X, "columns", None) for X in (X_source, X_target)]
        if (names[0] is None) != (names[1] is None) or (
                names[0] is not None and list(names[0]) != list(names[1])):
            raise ValueError("X_source and X_target must both be DataFrames with the same columns in the "
                             f"same order, or both arrays; got columns {_describe(names[0])} and "
                             f"{_describe(names[1])}.")
        if names[0] is not None and all(isinstance(name, str) for name in names[0]):
            self.feature_names_in_ = np.asarray(names[0], dtype=object)

    @staticmethod
    def _classes(model, y_source, y_target):
        labels = pd.unique(np.concatenate([y_source, y_target]))
        classes = getattr(model, "classes_", None)
        if classes is None or len(classes) != 2:
            raise ValueError(f"model must be a fitted binary classifier (classes_ of 2 labels); got classes_ "
                             f"{classes!r}.")
        unknown = sorted(set(labels.tolist()) - set(np.asarray(classes).tolist()), key=str)
        if unknown:
            raise ValueError(f"y_source and y_target hold labels the model does not know: {unknown}; the "
                             f"model's classes are {list(classes)}. Encode y as the model was trained.")
        return np.asarray(classes)

    def _check_size(self, labels, name):
        needed = int(np.ceil(4 / self.min_prevalence))
        if len(labels) < needed or min(labels.sum(), len(labels) - labels.sum()) < 2:
            raise ValueError(f"the {name} domain has {len(labels)} samples ({int(labels.sum())} positive); "
                             f"with min_prevalence={self.min_prevalence} the diagnosis needs at least "
                             f"{needed} and 2 of each class, to find subgroups of that prevalence in each "
                             "half.")

    def _covariate_test(self, S, T, seed):
        """Stage 1, covariate shift: the detectors of every candidate subgroup, and the max test."""
        candidates = covariate_candidates(
            S.rows(S.z0, "train"), S.rows(S.ratio, "train"), T.rows(T.z0, "train"), T.rows(T.ratio, "train"),
            tolerance=self.tolerance, min_prevalence=self.min_prevalence, max_candidates=self.max_candidates,
            n_omegas=self.n_omegas)
        self.covariate_detectors_ = candidates
        detected = {(D.name, half): candidates.detect(D.rows(D.z0, half), D.rows(D.ratio, half))
                    for D in (S, T) for half in ("train", "test")}
        estimate = covariate_shift_estimate(
            detected["source", "test"], detected["target", "test"], S.rows(S.loss, "test"),
            S.rows(S.z0, "test"), T.rows(T.z0, "test"), S.rows(S.ratio, "test"), self.tolerance)
        return self._test("covariate", estimate, detected, seed)

    def _outcome_test(self, S, T, seed):
        """Stage 1, outcome shift: where the target's loss exceeds the source's expected loss; its test."""
        residual = T.rows(T.loss - T.z0, "train") - self.tolerance
        regressor = fit_outcome_detector(T.rows(T.X, "train"), residual, random_state=seed)
        self.outcome_detector_ = regressor
        detected = {(D.name, half): detect_outcome(regressor, D.rows(D.X, half)) for D in (S, T)
                    for half in ("train", "test")}
        if detected["target", "train"].mean() < self.min_prevalence:  # filtered where it was chosen
            detected = {key: mask[:, :0] for key, mask in detected.items()}
        estimate = outcome_shift_estimate(
            detected["source", "test"], detected["target", "test"], S.rows(S.loss, "test"),
            S.rows(S.z0, "test"), T.rows(T.loss, "test"), T.rows(T.z0, "test"), S.rows(S.ratio, "test"),
            self.tolerance)
        return self._test("outcome", estimate, detected, seed)

    def _test(self, decomposition, estimate, detected, seed):
        """The max test of a decomposition's candidates, its summary row and the chosen candidate's masks."""
        test = max_multiplier_test(estimate, alpha=self.alpha, n_bootstrap=self.n_bootstrap,
                                   random_state=seed)
        chosen = {key: mask[:, test.argmax] for key, mask in detected.items()} if test.reject else None
        return _summary_row("where", decomposition, "all", estimate, test), chosen

    def _subsets(self, X):
        """``{name: column positions}`` of the stage-2 subsets, checked before anything is fitted."""
        if self.variable_groups is None:
            names = getattr(self, "feature_names_in_", range(self.n_features_in_))
            return {str(name): [j] for j, name in enumerate(names)}
        if not self.variable_groups:
            raise ValueError("variable_groups is an empty dict; give at least one subset, or None for one "
                             "subset per column.")
        return {str(name): subset_positions(X, subset) for name, subset in self.variable_groups.items()}

    def _stage_two(self, S, T, rejected, subsets, seed):
        """Stage 2 ("how"): each subset's conditional test, for each decomposition whose stage 1 rejected.

        The p-values are adjusted by Holm's method over the subsets of a decomposition.
        """
        jobs = [(decomposition, name, positions) for decomposition in rejected
                for name, positions in subsets.items()]
        if not jobs:
            return []
        seeds = local_random_state(seed).randint(np.iinfo(np.int32).max, size=len(jobs) + 1)
        shared = dict(tolerance=self.tolerance, min_prevalence=self.min_prevalence, alpha=self.alpha,
                      n_bootstrap=self.n_bootstrap)
        covariate = dict(shared, max_candidates=self.max_candidates, n_omegas=self.n_omegas,
                         density_model=self.density_model, clip=self.clip)
        outcome = dict(shared, n_bins=self.n_bins, outcome_model=self.outcome_model)
        if "outcome" in rejected:  # P_T(Y = 1 | X) does not depend on the subset
            outcome["target_model"] = fit_outcome_model(self.outcome_model, T.rows(T.X, "train"),
                                                        T.rows(T.y, "train"), random_state=seeds[-1])
        results = Parallel(n_jobs=self.n_jobs)(
            delayed(conditional_covariate_test if decomposition == "covariate" else conditional_outcome_test)(
                S, T, positions, random_state=job_seed,
                **(covariate if decomposition == "covariate" else outcome))
            for (decomposition, _, positions), job_seed in zip(jobs, seeds[:-1], strict=True))
        rows = [_summary_row("how", decomposition, name, estimate, test)
                for (decomposition, name, _), (estimate, test) in zip(jobs, results, strict=True)]
        for decomposition in rejected:
            mine = [row for row in rows if row["decomposition"] == decomposition]
            for row, value in zip(mine, holm([row["p_value"] for row in mine]), strict=True):
                row["p_value_adjusted"], row["reject"] = value, bool(value <= self.alpha)
        return rows

    def _rule(self, decomposition, chosen, S, T, seed):
        """The chosen subgroup as a readable rule, from a shallow tree fitted on the training halves."""
        if decomposition == "covariate":  # the subgroup lives in both domains
            X_train = _concat(S.rows(S.X, "train"), T.rows(T.X, "train"))
            detected_train = np.concatenate([chosen["source", "train"], chosen["target", "train"]])
        else:  # it is found where the target's loss rose
            X_train, detected_train = T.rows(T.X, "train"), chosen["target", "train"]
        rule = fit_rule(X_train, detected_train, decomposition=decomposition,
                        min_prevalence=self.min_prevalence, random_state=seed,
                        feature_names=getattr(self, "feature_names_in_", None))
        return rule.evaluate(S.rows(S.X, "test"), T.rows(T.X, "test"), chosen["source", "test"],
                             chosen["target", "test"])


def _summary_row(level, decomposition, subset, estimate, test):
    """A row of :meth:`SubgroupShiftDiagnoser.summary`: the max test and its best candidate's figures."""
    best = test.argmax
    pick = (lambda values: float(np.asarray(values)[best])) if best >= 0 else (lambda values: np.nan)
    return {"level": level, "decomposition": decomposition, "subset": subset,
            "estimate": pick(estimate.onestep), "estimate_plugin": pick(estimate.plugin),
            "std_error": pick(estimate.std_error), "critical_value": test.critical_value,
            "p_value": test.p_value, "p_value_adjusted": np.nan, "reject": bool(test.reject),
            "n_candidates": len(estimate.onestep), "prevalence_source": pick(estimate.prevalence_source),
            "prevalence_target": pick(estimate.prevalence_target)}


def _concat(first, second):
    """Rows of ``first`` then ``second`` (two DataFrames with the same columns, or two arrays)."""
    if hasattr(first, "iloc"):
        return pd.concat([first, second], ignore_index=True)
    return np.concatenate([np.asarray(first), np.asarray(second)])


def _describe(columns):
    return "none (an array)" if columns is None else list(columns)
