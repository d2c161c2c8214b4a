"""compare_groupings: the paper's study as one call, cross-validated, beside the KL diagnostic.

A. Alloula, C. Jones, B. Glocker, B. W. Papież, "Subgroups Matter for Robust Bias Mitigation",
ICML 2025 (arXiv:2505.21363) run a mitigation method once per grouping of the training
samples, score each model's worst-group accuracy on the evaluation groups, and ask whether
the KL diagnostic orders the groupings as the scores do. :func:`compare_groupings` does
that for any classifier whose ``fit`` takes ``sensitive_features``, on the same folds and
seeds for every grouping, so that groupings are compared pair by pair.
"""

import inspect
import time
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import spearmanr
from sklearn.base import clone, is_classifier
from sklearn.model_selection import check_cv
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_consistent_length, column_or_1d

from fairkit.exceptions import FairkitWarning
from fairkit.metrics import resampled_interval
from fairkit.metrics._uncertainty import check_level
from fairkit.utils import local_random_state
from fairkit.utils._sklearn_compat import _safe_indexing
from fairkit.utils._warnings import warn_user
from fairkit.utils.validation import check_same_index, check_sensitive_features, encode_groups
from fairkit_subgroups._kl import subgroup_kl_diagnostic

__all__ = ["GroupingComparison", "compare_groupings"]

SCORES = ("accuracy", "worst_group_accuracy", "accuracy_gap")
KL_METHODS = ("auto", "resampling", "gdro")


@dataclass
class GroupingComparison:
    """What :func:`compare_groupings` found.

    Attributes
    ----------
    folds : DataFrame
        One row per (grouping, fold): ``accuracy``, ``worst_group_accuracy`` (the lowest
        accuracy of an evaluation group in the test part), ``accuracy_gap`` (highest minus
        lowest), ``worst_group`` (which one), ``kl`` (the diagnostic on the training part),
        ``fit_time`` (seconds).
    summary : DataFrame
        One row per grouping: ``kl`` and ``n_groups`` (mean over folds), and each score's
        mean over folds with the ends of its corrected resampled t interval
        (``<score>_low``, ``<score>_high``; :func:`fairkit.metrics.resampled_interval`),
        clipped to [0, 1]; NaN ends for a single fold.
    spearman : float
        Spearman's rank correlation between −``kl`` and the mean worst-group accuracy over
        the groupings: 1 when a lower KL always goes with a higher worst-group accuracy,
        the paper's claim; NaN for fewer than 3 groupings or constant values.
    spearman_pvalue : float
        Its two-sided p-value (few groupings make it coarse).
    test_fraction : float
        n_test / n_train of the folds (mean), which widens the intervals.
    ci : float
        The level of the intervals.
    """

    folds: pd.DataFrame
    summary: pd.DataFrame
    spearman: float
    spearman_pvalue: float
    test_fraction: float
    ci: float

    def paired(self, reference, score="worst_group_accuracy"):
        """Each grouping minus ``reference`` on the same folds, with the corrected interval.

        Parameters
        ----------
        reference : grouping name
            The grouping to compare with (for example a one-group baseline, which is ERM).
        score : {"accuracy", "worst_group_accuracy", "accuracy_gap"}, default="worst_group_accuracy"

        Returns
        -------
        differences : DataFrame
            Indexed by grouping (``reference`` left out): ``difference`` (mean over folds),
            ``low``, ``high`` (its interval at level ``ci``) and ``verdict``: ``"higher"``
            or ``"lower"`` when the interval excludes 0, else ``"noise"``.
        """
        if score not in SCORES:
            raise ValueError(f"score must be one of {list(SCORES)}, got {score!r}.")
        names = self.summary.index
        if reference not in names:
            raise ValueError(f"reference must be one of the groupings {list(names)}, got {reference!r}.")
        table = self.folds[score].unstack("grouping")
        rows = {}
        for name in names.drop(reference):
            estimate = resampled_interval((table[name] - table[reference]).to_numpy(),
                                          test_fraction=self.test_fraction, ci=self.ci)
            verdict = "higher" if estimate.low > 0 else "lower" if estimate.high < 0 else "noise"
            rows[name] = {"difference": estimate.value, "low": estimate.low, "high": estimate.high,
                          "verdict": verdict}
        return pd.DataFrame.from_dict(rows, orient="index").rename_axis("grouping")

    def plot(self, ax=None):
        """Worst-group accuracy (mean and interval) against the KL diagnostic, one point per grouping.

        Needs matplotlib (``pip install "fairkit-subgroups[plot]"``). Groupings whose KL is
        infinite are left out of the plot. Returns the axes.
        """
        try:
            import matplotlib.pyplot as plt
        except ImportError as error:
            raise ImportError("GroupingComparison.plot needs matplotlib: "
                              'pip install "fairkit-subgroups[plot]"') from error
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4))
        shown = self.summary[np.isfinite(self.summary["kl"])]
        score, low, high = (shown[f"worst_group_accuracy{end}"] for end in ("", "_low", "_high"))
        spread = np.vstack([score - low, high - score])
        ax.errorbar(shown["kl"], score, yerr=np.nan_to_num(spread), fmt="o", capsize=3)
        for name, x, y in zip(shown.index, shown["kl"], score, strict=True):
            ax.annotate(str(name), (x, y), textcoords="offset points", xytext=(4, 4), fontsize=8)
        ax.set_xlabel("KL(target ‖ p_w), nats (lower: predicted better)")
        ax.set_ylabel("worst-group accuracy")
        ax.set_title(f"Spearman(−KL, worst-group accuracy) = {self.spearman:.2f}")
        return ax


def compare_groupings(estimator, X, y, groupings, *, eval_groups, cv=5, kl_method="auto", ci=0.95,
                      random_state=None, n_jobs=None):
    """Fit a mitigation method once per grouping, cross-validated, and score each beside the KL diagnostic.

    The study of Alloula et al., "Subgroups Matter for Robust Bias Mitigation" (ICML 2025,
    arXiv:2505.21363) as one call: for each grouping and fold, ``estimator`` is fitted on
    the training part with the grouping's groups as ``sensitive_features`` and scored on
    the test part by accuracy, worst-group accuracy and the accuracy gap over
    ``eval_groups``; on the same training part, :func:`subgroup_kl_diagnostic` scores the
    grouping with the cells ``y`` × ``eval_groups`` and a uniform target (the balanced
    distribution over those cells). Every grouping sees the same folds and, with
    ``random_state``, the same seeds, so their scores are paired.

    Parameters
    ----------
    estimator : classifier
        A mitigation method whose ``fit`` takes ``sensitive_features``
        (:class:`GroupBalancedClassifier`, :class:`GroupDROClassifier`, or any fairkit
        classifier). It is cloned for each fit.
    X : array-like or DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Class labels.
    groupings : mapping of name to array-like of shape (n_samples,) or (n_samples, n_columns)
        The group of each sample under each grouping (several columns: their intersection),
        for example from :func:`make_groupings`. A constant grouping (one group) fits
        ``estimator`` without mitigation: the ERM baseline.
    eval_groups : array-like of shape (n_samples,) or (n_samples, n_columns)
        The groups on which models are scored (several columns: their intersection); with
        ``y`` they are the cells of the KL diagnostic.
    cv : int, cross-validation generator or iterable of (train, test) index arrays, default=5
        As in scikit-learn's ``cross_validate`` (an int: stratified K-fold on ``y``). To
        train on one distribution and test on another (the paper's balanced test set),
        stack both in ``X`` and give the index pairs, one per seed.
    kl_method : {"auto", "resampling", "gdro"}, default="auto"
        The diagnostic's group masses (see :func:`subgroup_kl_diagnostic`): ``"auto"``
        takes ``"gdro"`` for a :class:`GroupDROClassifier` (or a pipeline ending in one),
        else ``"resampling"``.
    ci : float in (0, 1), default=0.95
        The level of the intervals of the summary and of :meth:`GroupingComparison.paired`.
    random_state : int, RandomState instance or None, default=None
        With a value, each fold draws one seed, set as every ``random_state`` parameter of
        ``estimator`` (nested ones too) for all groupings; ``None`` leaves them as they are.
    n_jobs : int, default=None
        The (grouping, fold) fits run in parallel through joblib (``None``: one job unless in
        a ``joblib.parallel_backend`` context).

    Returns
    -------
    comparison : GroupingComparison
        Per-fold scores, their summary with intervals, the Spearman correlation between the
        KL ranking and the worst-group-accuracy ranking, and :meth:`~GroupingComparison.plot`.

    Raises
    ------
    TypeError
        If ``estimator`` is not a classifier or its ``fit`` takes no ``sensitive_features``.
    ValueError
        If the inputs describe different numbers of samples or carry different pandas
        indexes, ``groupings`` is empty or a grouping has missing values, or a parameter
        is out of range. Nothing is fitted then.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from fairkit_subgroups import GroupBalancedClassifier, compare_groupings
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 600)
    >>> y = np.where(rng.random(600) < 0.9, a, 1 - a)  # the label follows a 90% of the time
    >>> X = np.column_stack([a + rng.normal(0, 0.3, 600), y + rng.normal(0, 1.0, 600)])
    >>> comparison = compare_groupings(GroupBalancedClassifier(LogisticRegression()), X, y,
    ...                                {"ERM": np.zeros(600), "Y": y, "AY": a * 2 + y},
    ...                                eval_groups=a, random_state=0)
    >>> comparison.summary[["kl", "worst_group_accuracy"]].round(2)  # doctest: +NORMALIZE_WHITESPACE
                kl  worst_group_accuracy
    grouping
    ERM       0.64                  0.86
    Y         0.64                  0.86
    AY        0.00                  0.62
    >>> comparison.paired("ERM")["verdict"].tolist()
    ['noise', 'lower']

    Balancing A × Y gives the balanced target exactly (KL 0), yet loses on test folds
    drawn from the training distribution, where the attribute is a fair guide to the
    label: the diagnostic predicts robustness to a shift towards the balanced cells, so
    test on such data (``cv`` as index pairs) when that is the question.
    """
    _check_estimator(estimator)
    if not (isinstance(kl_method, str) and kl_method in KL_METHODS):
        raise ValueError(f"kl_method must be one of {list(KL_METHODS)}, got {kl_method!r}.")
    check_level(ci, "ci")
    if not isinstance(groupings, Mapping) or not groupings:
        raise ValueError("groupings must be a non-empty mapping of name to the group of each sample "
                         f"(e.g. from make_groupings), got {groupings!r}.")
    check_same_index(X=X, y=y, eval_groups=eval_groups,
                     **{f"groupings[{name!r}]": labels for name, labels in groupings.items()})
    y = column_or_1d(y, warn=True)
    check_classification_targets(y)
    check_consistent_length(X, y)
    n_samples = len(y)
    eval_labels, eval_codes = encode_groups(check_sensitive_features(eval_groups, n_samples, samples_of="y"))
    codes = {name: encode_groups(_check_grouping(name, labels, n_samples))[1]
             for name, labels in groupings.items()}
    folds = list(check_cv(cv, y, classifier=True).split(X, y))
    seeds = (local_random_state(random_state).randint(np.iinfo(np.int32).max, size=len(folds))
             if random_state is not None else [None] * len(folds))
    method = _kl_method(estimator, kl_method)

    jobs = [(name, fold) for name in groupings for fold in range(len(folds))]
    results = Parallel(n_jobs=n_jobs)(
        delayed(_fit_and_score)(_seeded(estimator, seeds[fold]), X, y, codes[name], *folds[fold], eval_codes,
                                len(eval_labels))
        for name, fold in jobs)
    cells, cell_codes = encode_groups(pd.concat([pd.Series(y, name="y"), pd.DataFrame(
        {"eval": eval_codes})], axis=1))
    rows = []
    for (name, fold), (accuracy, group_accuracy, fit_time) in zip(jobs, results, strict=True):
        train, test = folds[fold]
        missing = np.isnan(group_accuracy) & (np.bincount(eval_codes, minlength=len(eval_labels)) > 0)
        if missing.any():
            warn_user(f"eval group(s) {eval_labels[missing].tolist()} have no sample in the test part of "
                      f"fold {fold}; its worst-group accuracy is over the groups present. Use fewer folds or "
                      "a split stratified by group.", FairkitWarning)
        worst = int(np.nanargmin(group_accuracy))
        rows.append({"grouping": name, "fold": fold, "accuracy": accuracy,
                     "worst_group_accuracy": group_accuracy[worst],
                     "accuracy_gap": np.nanmax(group_accuracy) - group_accuracy[worst],
                     "worst_group": eval_labels[worst],
                     "kl": _fold_kl(cell_codes, len(cells), codes[name], train, method),
                     "n_groups": len(np.unique(codes[name][train])), "fit_time": fit_time})
    per_fold = pd.DataFrame(rows).set_index(["grouping", "fold"])
    test_fraction = float(np.mean([len(test) / len(train) for train, test in folds]))
    summary = _summary(per_fold, list(groupings), test_fraction, ci)
    rho, pvalue = _spearman(summary)
    return GroupingComparison(per_fold, summary, rho, pvalue, test_fraction, ci)


def _check_estimator(estimator):
    if not is_classifier(estimator):
        raise TypeError(f"estimator must be a scikit-learn classifier, got {estimator!r}.")
    parameters = inspect.signature(estimator.fit).parameters
    if "sensitive_features" not in parameters and not any(
            p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        raise TypeError(f"estimator {type(estimator).__name__}'s fit takes no sensitive_features, so every "
                        "grouping would fit the same model; wrap it in GroupBalancedClassifier(estimator) or "
                        "use a mitigation method such as GroupDROClassifier.")


def _check_grouping(name, labels, n_samples):
    try:
        return check_sensitive_features(labels, n_samples, samples_of="y")
    except ValueError as error:
        raise ValueError(f"groupings[{name!r}]: {error}".replace("sensitive_features ", "")) from error


def _kl_method(estimator, kl_method):
    if kl_method != "auto":
        return kl_method
    from fairkit_subgroups._gdro import GroupDROClassifier

    final = estimator.steps[-1][1] if hasattr(estimator, "steps") else estimator
    return "gdro" if isinstance(final, GroupDROClassifier) else "resampling"


def _seeded(estimator, seed):
    """A clone of ``estimator`` with every ``random_state`` parameter, nested ones too, set to ``seed``."""
    estimator = clone(estimator)
    if seed is not None:
        estimator.set_params(**{key: int(seed) for key in estimator.get_params(deep=True)
                                if key == "random_state" or key.endswith("__random_state")})
    return estimator


def _fit_and_score(estimator, X, y, groups, train, test, eval_codes, n_eval):
    """Fit on ``train`` with ``groups`` as sensitive features; accuracy and each eval group's on ``test``."""
    start = time.perf_counter()
    estimator.fit(_safe_indexing(X, train), y[train], sensitive_features=groups[train])
    fit_time = time.perf_counter() - start
    correct = (estimator.predict(_safe_indexing(X, test)) == y[test]).astype(np.float64)
    counts = np.bincount(eval_codes[test], minlength=n_eval)
    with np.errstate(invalid="ignore", divide="ignore"):
        group_accuracy = np.bincount(eval_codes[test], weights=correct, minlength=n_eval) / counts
    return float(correct.mean()), group_accuracy, fit_time


def _fold_kl(cell_codes, n_cells, groups, train, method):
    """The KL diagnostic of one grouping on a fold: cells from all samples, counts from the training part."""
    n_groups = groups.max() + 1
    joint = np.bincount(cell_codes[train] * n_groups + groups[train], minlength=n_cells * n_groups)
    joint = joint.reshape(n_cells, n_groups).astype(np.float64)
    counts = joint.sum(axis=1)
    # a cell without training samples has no mass, whatever its membership row (uniform here)
    membership = np.divide(joint, counts[:, None], out=np.full_like(joint, 1 / n_groups),
                           where=counts[:, None] > 0)
    cells = pd.DataFrame({"cell": np.arange(n_cells), "count": counts})
    return float(subgroup_kl_diagnostic(cells, {"g": membership}, method=method)["kl"].iloc[0])


def _summary(per_fold, names, test_fraction, ci):
    rows = {}
    for name in names:
        part = per_fold.loc[name]
        row = {"kl": part["kl"].mean(), "n_groups": part["n_groups"].mean()}
        for score in SCORES:
            estimate = resampled_interval(part[score].to_numpy(), test_fraction=test_fraction, ci=ci)
            # scores lie in [0, 1]: the t interval is clipped to it
            row |= {score: estimate.value, f"{score}_low": max(estimate.low, 0.0),
                    f"{score}_high": min(estimate.high, 1.0)}
        rows[name] = row
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("grouping")


def _spearman(summary):
    kl, score = -summary["kl"].to_numpy(), summary["worst_group_accuracy"].to_numpy()
    if len(summary) < 3 or len(np.unique(kl)) == 1 or len(np.unique(score)) == 1:
        return float("nan"), float("nan")
    result = spearmanr(kl, score)
    return float(result.statistic), float(result.pvalue)
