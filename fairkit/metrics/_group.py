"""Group fairness metrics for binary classification.

All functions take fairlearn's signature ``(y_true, y_pred, *, sensitive_features,
sample_weight=None)`` and agree with ``fairlearn.metrics`` wherever fairlearn
defines a value and its input is valid. Several sensitive columns form intersectional groups: one group
per observed combination of values. Every rate is a weighted ratio of per-group
sums computed with :func:`numpy.bincount` over group codes, so a call costs
O(n_samples) and no Python loop runs over samples.

Labels
------
Every metric validates its labels the same way (those that ignore ``y_true`` check
``y_pred`` alone): at most two distinct values, no NaN, and no probabilities or
scores (non-integer floats, which would otherwise count as "not selected" and report
perfect parity). ``pos_label`` must be one of the labels, unless the labels are in
{0, 1} or {-1, 1} and so is ``pos_label`` (a model that selects no one is valid);
without ``pos_label`` (the error-rate metrics' default) the labels must be in
{0, 1} or {-1, 1}. Pandas inputs must share one index (rows are paired by position;
see :func:`fairkit.utils.validation.check_same_index`), and a sensitive column that
looks continuous warns (see :func:`fairkit.utils.validation.encode_groups`).

Undefined rates
---------------
A group can lack the samples a rate conditions on: no positives for the true
positive rate, no negatives for the false positive rate (or only zero weights).
Such a rate is 0/0. :func:`group_summary` reports it as NaN. The differences,
ratios and deviations leave that group out of that rate, and warn with
:class:`sklearn.exceptions.UndefinedMetricWarning` naming the group; when no group
defines the rate, the result is NaN. fairlearn instead counts the rate as 0
(scikit-learn's ``confusion_matrix(normalize="true")`` turns 0/0 into 0), which
can report a large gap for a group that was never at risk of the error.
"""

import warnings

import numpy as np
import pandas as pd
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils import check_consistent_length, column_or_1d
from sklearn.utils.validation import _check_sample_weight

from fairkit.utils.validation import check_same_index, check_sensitive_features, encode_groups

__all__ = [
    "demographic_parity_difference",
    "demographic_parity_ratio",
    "equalized_odds_deviation",
    "equalized_odds_difference",
    "false_positive_rate_difference",
    "group_summary",
    "selection_rate",
    "true_positive_rate_difference",
]

_RATE_NAMES = {
    "selection_rate": "selection rate",
    "true_positive_rate": "true positive rate (the group has no positive samples)",
    "false_positive_rate": "false positive rate (the group has no negative samples)",
}


# ---------------------------------------------------------------------------------------------
# input handling


def _check_inputs(y_true, y_pred, sensitive_features, sample_weight, grouped=True):
    """Validate the arrays; return y_true, y_pred, weights and the group labels and codes."""
    check_same_index(y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features,
                     sample_weight=sample_weight)
    y_true = column_or_1d(y_true, warn=True)
    y_pred = column_or_1d(y_pred, warn=True)
    check_consistent_length(y_true, y_pred)
    if y_true.shape[0] == 0:
        raise ValueError("y_true and y_pred are empty.")
    weights = _check_sample_weight(sample_weight, y_true, ensure_non_negative=True)
    if sensitive_features is None:
        if grouped:
            raise ValueError("sensitive_features is required (got None).")
        groups, codes = None, None
    else:
        frame = check_sensitive_features(sensitive_features, y_true.shape[0], samples_of="y_true")
        groups, codes = encode_groups(frame)
        groups = _group_index(groups, frame.columns)
    return y_true, y_pred, weights, groups, codes


def _group_index(groups, columns):
    if len(columns) == 1:
        return pd.Index(groups, name=columns[0], tupleize_cols=False)
    return pd.MultiIndex.from_tuples(list(groups), names=list(columns))


def _label_values(y, name):
    """The distinct values of labels ``y``; refuse missing values and probabilities."""
    values = pd.unique(y)
    missing = pd.isna(values)
    if missing.any():
        raise ValueError(f"{name} holds missing values (NaN or None) in {int(pd.isna(y).sum())} rows; "
                         "drop those samples or fill them.")
    fractional = [v for v in values if isinstance(v, float | np.floating) and not float(v).is_integer()]
    if fractional:
        raise ValueError(
            f"{name} holds non-integer values such as {fractional[0]!r}: probabilities or scores, "
            "not labels. Threshold them into labels first (e.g. (proba >= 0.5).astype(int), or the "
            "estimator's predict), or measure the scores' dependence on the groups with "
            "fairkit.metrics.kernel_partial_correlation.")
    return values


def _positive(labels, pos_label, names):
    """Turn binary labels into booleans (True = positive), as fairlearn's confusion-matrix rates.

    ``labels`` are the label arrays (y_true and y_pred, or y_pred alone) and ``names``
    their names. Without ``pos_label`` the labels must be in {0, 1} (booleans
    included) or {-1, 1}, and 1 is the positive label. A ``pos_label`` must be among
    the labels, unless they are all in {0, 1} or {-1, 1} and so is ``pos_label`` (no
    positive prediction at all is then a valid outcome).
    """
    values = pd.unique(np.array([v for y, name in zip(labels, names, strict=True)
                                 for v in _label_values(y, name)], dtype=object))
    what = " and ".join(names)
    if len(values) > 2:
        holds = "together they hold" if len(names) > 1 else "it holds"
        raise ValueError(f"{what} must hold binary labels; {holds} {len(values)} distinct values "
                         f"({_show(values)}).")
    standard = [s for s in ({0, 1}, {-1, 1}) if set(values) <= s]
    if pos_label is None:
        if not standard:
            raise ValueError(f"Without pos_label the labels must be in {{0, 1}} or {{-1, 1}}; got "
                             f"{_show(values)}. Give pos_label= to name the positive label.")
        pos_label = 1
    elif pos_label not in set(values) and not any(pos_label in s for s in standard):
        raise ValueError(f"pos_label={pos_label!r} is not among the labels of {what} "
                         f"({_show(values)}); give pos_label= one of them.")
    return [y == pos_label for y in labels]


def _show(values):
    return ", ".join(repr(v) for v in list(values)[:5])


# ---------------------------------------------------------------------------------------------
# per-group rates


def _rates(codes, n_groups, weights, condition, hit):
    """Weighted P(hit | condition) per group: NaN where the condition has no weight."""
    denominator = np.bincount(codes, weights * condition, minlength=n_groups)
    numerator = np.bincount(codes, weights * (condition & hit), minlength=n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, numerator / denominator, np.nan)


def _overall_rate(weights, condition, hit):
    return _rates(np.zeros(len(weights), dtype=np.intp), 1, weights, condition, hit)[0]


def _defined(rates, groups, rate_name):
    """The defined rates; warn about the groups whose rate is undefined."""
    undefined = np.isnan(rates)
    if undefined.any():
        warnings.warn(f"The {_RATE_NAMES[rate_name]} is undefined for group(s) "
                      f"{_show(groups[undefined])}; they are left out of its difference.",
                      UndefinedMetricWarning, stacklevel=4)
    return rates[~undefined]


def _difference(rates, groups, rate_name):
    defined = _defined(rates, groups, rate_name)
    return float(defined.max() - defined.min()) if defined.size else float("nan")


def _deviation(rates, overall, groups, rate_name):
    return float(np.abs(_defined(rates, groups, rate_name) - overall).sum())


def _ratio(rates, groups, rate_name):
    defined = _defined(rates, groups, rate_name)
    if not defined.size:
        return float("nan")
    largest = defined.max()
    return 1.0 if largest == 0 else float(defined.min() / largest)


def _selection_rates(y_true, y_pred, sensitive_features, sample_weight, pos_label):
    y_true, y_pred, weights, groups, codes = _check_inputs(y_true, y_pred, sensitive_features,
                                                           sample_weight)
    [selected] = _positive([y_pred], pos_label, ["y_pred"])
    return _rates(codes, len(groups), weights, np.ones(len(y_pred), dtype=bool), selected), groups


def _error_rates(y_true, y_pred, sensitive_features, sample_weight, pos_label):
    """Per-group TPR and FPR, with the validated inputs."""
    y_true, y_pred, weights, groups, codes = _check_inputs(y_true, y_pred, sensitive_features,
                                                           sample_weight)
    positive, predicted = _positive([y_true, y_pred], pos_label, ["y_true", "y_pred"])
    tpr = _rates(codes, len(groups), weights, positive, predicted)
    fpr = _rates(codes, len(groups), weights, ~positive, predicted)
    return tpr, fpr, groups, (weights, positive, predicted)


# ---------------------------------------------------------------------------------------------
# public metrics


def selection_rate(y_true, y_pred, *, sensitive_features=None, pos_label=1, sample_weight=None):
    """Fraction of predictions equal to ``pos_label``, overall or by group.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        True labels (ignored; kept for a uniform signature, as in fairlearn).
    y_pred : array-like of shape (n_samples,)
        Predicted labels.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_columns), default=None
        When given, the rate of each (intersectional) group is returned.
    pos_label : scalar, default=1
        The label counted as selected.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.

    Returns
    -------
    rate : float or Series
        The weighted selection rate; a Series indexed by group when
        ``sensitive_features`` is given.

    Examples
    --------
    >>> from fairkit.metrics import selection_rate
    >>> selection_rate(None, [1, 0, 1, 1])
    0.75
    >>> selection_rate(None, [1, 0, 1, 1], sensitive_features=["a", "a", "b", "b"]).tolist()
    [0.5, 1.0]
    """
    y_true = y_pred if y_true is None else y_true
    if sensitive_features is None:
        _, y_pred, weights, _, _ = _check_inputs(y_true, y_pred, None, sample_weight,
                                                 grouped=False)
        [selected] = _positive([y_pred], pos_label, ["y_pred"])
        return float(_overall_rate(weights, np.ones(len(y_pred), dtype=bool), selected))
    rates, groups = _selection_rates(y_true, y_pred, sensitive_features, sample_weight, pos_label)
    return pd.Series(rates, index=groups, name="selection_rate")


def demographic_parity_difference(y_true, y_pred, *, sensitive_features, pos_label=1,
                                  sample_weight=None):
    """Largest minus smallest group selection rate, max_g P(Ŷ=1|A=g) − min_g P(Ŷ=1|A=g).

    0 means demographic parity (statistical parity) holds exactly.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels (ignored, as in fairlearn).
    y_pred : array-like of shape (n_samples,)
        Predicted labels.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_columns)
        Several columns form intersectional groups.
    pos_label : scalar, default=1
        The label counted as selected.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.

    Returns
    -------
    difference : float

    Examples
    --------
    >>> from fairkit.metrics import demographic_parity_difference
    >>> demographic_parity_difference([0, 0, 0, 0], [1, 0, 1, 1],
    ...                               sensitive_features=["a", "a", "b", "b"])
    0.5
    """
    rates, groups = _selection_rates(y_true, y_pred, sensitive_features, sample_weight, pos_label)
    return _difference(rates, groups, "selection_rate")


def demographic_parity_ratio(y_true, y_pred, *, sensitive_features, pos_label=1,
                             sample_weight=None):
    """Smallest over largest group selection rate, min_g P(Ŷ=1|A=g) / max_g P(Ŷ=1|A=g).

    1 means demographic parity holds exactly; when no group is ever selected the
    rates are all equal and the ratio is 1 (fairlearn returns NaN, from 0/0).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels (ignored, as in fairlearn).
    y_pred : array-like of shape (n_samples,)
        Predicted labels.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_columns)
        Several columns form intersectional groups.
    pos_label : scalar, default=1
        The label counted as selected.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.

    Returns
    -------
    ratio : float
        In [0, 1].

    Examples
    --------
    >>> from fairkit.metrics import demographic_parity_ratio
    >>> demographic_parity_ratio([0, 0, 0, 0], [1, 0, 1, 1],
    ...                          sensitive_features=["a", "a", "b", "b"])
    0.5
    """
    rates, groups = _selection_rates(y_true, y_pred, sensitive_features, sample_weight, pos_label)
    return _ratio(rates, groups, "selection_rate")


def true_positive_rate_difference(y_true, y_pred, *, sensitive_features, pos_label=None,
                                  sample_weight=None):
    """Equal opportunity gap: max_g − min_g of P(Ŷ=1 | Y=1, A=g).

    Groups without positive samples are left out with an
    :class:`~sklearn.exceptions.UndefinedMetricWarning` (see the module notes).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels.
    y_pred : array-like of shape (n_samples,)
        Predicted binary labels.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_columns)
        Several columns form intersectional groups.
    pos_label : scalar, default=None
        The positive label; ``None`` requires labels in {0, 1} or {-1, 1} and takes 1.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.

    Returns
    -------
    difference : float

    Examples
    --------
    >>> from fairkit.metrics import true_positive_rate_difference
    >>> true_positive_rate_difference([1, 1, 1, 1], [1, 0, 1, 1],
    ...                               sensitive_features=["a", "a", "b", "b"])
    0.5
    """
    tpr, _, groups, _ = _error_rates(y_true, y_pred, sensitive_features, sample_weight, pos_label)
    return _difference(tpr, groups, "true_positive_rate")


def false_positive_rate_difference(y_true, y_pred, *, sensitive_features, pos_label=None,
                                   sample_weight=None):
    """Predictive equality gap: max_g − min_g of P(Ŷ=1 | Y=0, A=g).

    Groups without negative samples are left out with an
    :class:`~sklearn.exceptions.UndefinedMetricWarning` (see the module notes).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels.
    y_pred : array-like of shape (n_samples,)
        Predicted binary labels.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_columns)
        Several columns form intersectional groups.
    pos_label : scalar, default=None
        The positive label; ``None`` requires labels in {0, 1} or {-1, 1} and takes 1.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.

    Returns
    -------
    difference : float

    Examples
    --------
    >>> from fairkit.metrics import false_positive_rate_difference
    >>> false_positive_rate_difference([0, 0, 0, 0], [1, 0, 0, 0],
    ...                                sensitive_features=["a", "a", "b", "b"])
    0.5
    """
    _, fpr, groups, _ = _error_rates(y_true, y_pred, sensitive_features, sample_weight, pos_label)
    return _difference(fpr, groups, "false_positive_rate")


def equalized_odds_difference(y_true, y_pred, *, sensitive_features, agg="worst_case",
                              pos_label=None, sample_weight=None):
    """Equalized odds gap: the true and false positive rate differences, aggregated.

    Groups where a rate is undefined are left out of its difference, with a
    warning; if a rate is undefined in every group (no positive, or no negative,
    samples at all), the other difference alone is returned.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels.
    y_pred : array-like of shape (n_samples,)
        Predicted binary labels.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_columns)
        Several columns form intersectional groups.
    agg : {"worst_case", "mean"}, default="worst_case"
        The larger of the two differences, or their mean (as fairlearn).
    pos_label : scalar, default=None
        The positive label; ``None`` requires labels in {0, 1} or {-1, 1} and takes 1.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.

    Returns
    -------
    difference : float

    Examples
    --------
    >>> from fairkit.metrics import equalized_odds_difference
    >>> y_true, y_pred = [0, 1, 0, 1], [0, 1, 1, 1]
    >>> equalized_odds_difference(y_true, y_pred, sensitive_features=["a", "a", "b", "b"])
    1.0
    >>> equalized_odds_difference(y_true, y_pred, sensitive_features=["a", "a", "b", "b"],
    ...                           agg="mean")
    0.5
    """
    if agg not in ("worst_case", "mean"):
        raise ValueError(f"agg must be 'worst_case' or 'mean', got {agg!r}.")
    tpr, fpr, groups, _ = _error_rates(y_true, y_pred, sensitive_features, sample_weight, pos_label)
    gaps = np.array([_difference(tpr, groups, "true_positive_rate"),
                     _difference(fpr, groups, "false_positive_rate")])
    gaps = gaps[~np.isnan(gaps)]  # a rate undefined in every group was warned about
    if not gaps.size:
        return float("nan")
    return float(gaps.max() if agg == "worst_case" else gaps.mean())


def equalized_odds_deviation(y_true, y_pred, *, sensitive_features, pos_label=None,
                             sample_weight=None):
    """Summed deviation from equalized odds, ``Σ_y Σ_g |P(Ŷ=1 | Y=y, A=g) − P(Ŷ=1 | Y=y)|``.

    The DEO measure of Lai & Guan (FairICP, ICML 2025): a sum over both labels
    and all (intersectional) groups of each group's distance to the overall
    rate, not a largest gap. It grows with the number of groups. Groups where a
    rate is undefined are left out of that term, with a warning.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels.
    y_pred : array-like of shape (n_samples,)
        Predicted binary labels.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_columns)
        Several columns form intersectional groups.
    pos_label : scalar, default=None
        The positive label; ``None`` requires labels in {0, 1} or {-1, 1} and takes 1.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.

    Returns
    -------
    deviation : float
        0 exactly when every group has the overall true and false positive rates.

    Examples
    --------
    >>> from fairkit.metrics import equalized_odds_deviation
    >>> equalized_odds_deviation([0, 1, 0, 1], [0, 1, 1, 1],
    ...                          sensitive_features=["a", "a", "b", "b"])
    1.0
    """
    tpr, fpr, groups, (weights, positive, predicted) = _error_rates(
        y_true, y_pred, sensitive_features, sample_weight, pos_label)
    return (_deviation(tpr, _overall_rate(weights, positive, predicted), groups, "true_positive_rate")
            + _deviation(fpr, _overall_rate(weights, ~positive, predicted), groups,
                         "false_positive_rate"))


def group_summary(y_true, y_pred, *, sensitive_features, pos_label=None, sample_weight=None):
    """Counts and rates of each (intersectional) group, one row per group.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels.
    y_pred : array-like of shape (n_samples,)
        Predicted binary labels.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_columns)
        Several columns form intersectional groups (a MultiIndex).
    pos_label : scalar, default=None
        The positive label; ``None`` requires labels in {0, 1} or {-1, 1} and takes 1.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; the rates are weighted, the counts are not.

    Returns
    -------
    summary : DataFrame
        Indexed by group, with columns ``count``, ``count_positive`` and
        ``count_negative`` (samples with Y=1 and Y=0), ``weight`` (their total
        weight), and the weighted rates ``base_rate`` P(Y=1), ``selection_rate``
        P(Ŷ=1), ``true_positive_rate``, ``false_positive_rate``,
        ``false_negative_rate``, ``true_negative_rate`` and ``accuracy``.
        A rate whose condition has no weight in the group is NaN.

    Examples
    --------
    >>> from fairkit.metrics import group_summary
    >>> summary = group_summary([0, 1, 1, 1], [0, 1, 1, 0], sensitive_features=["a", "a", "b", "b"])
    >>> print(summary[["count", "true_positive_rate", "false_positive_rate"]].to_string())
    ... # doctest: +NORMALIZE_WHITESPACE
                         count  true_positive_rate  false_positive_rate
    sensitive_feature_0
    a                        2                 1.0                  0.0
    b                        2                 0.5                  NaN
    """
    y_true, y_pred, weights, groups, codes = _check_inputs(y_true, y_pred, sensitive_features,
                                                           sample_weight)
    positive, predicted = _positive([y_true, y_pred], pos_label, ["y_true", "y_pred"])
    n_groups = len(groups)
    every = np.ones(len(y_true), dtype=bool)
    count_positive = np.bincount(codes, positive, minlength=n_groups).astype(np.int64)
    count = np.bincount(codes, minlength=n_groups)
    tpr = _rates(codes, n_groups, weights, positive, predicted)
    fpr = _rates(codes, n_groups, weights, ~positive, predicted)
    return pd.DataFrame({
        "count": count,
        "count_positive": count_positive,
        "count_negative": count - count_positive,
        "weight": np.bincount(codes, weights, minlength=n_groups),
        "base_rate": _rates(codes, n_groups, weights, every, positive),
        "selection_rate": _rates(codes, n_groups, weights, every, predicted),
        "true_positive_rate": tpr,
        "false_positive_rate": fpr,
        "false_negative_rate": 1 - tpr,
        "true_negative_rate": 1 - fpr,
        "accuracy": _rates(codes, n_groups, weights, every, positive == predicted),
    }, index=groups)
