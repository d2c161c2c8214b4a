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
``y_pred`` alone, and accept ``y_true=None``): one label per sample (a 1-D array, not a
``predict_proba`` matrix), at most two distinct values, no NaN, and no probabilities or
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

import numpy as np
import pandas as pd

from fairkit.metrics._confusion import (
    DEFINITIONS,
    FN,
    RATE_CELLS,
    TP,
    check_inputs,
    confusion,
    positive,
    rate,
    warn_undefined,
)
from fairkit.metrics._uncertainty import Estimate, check_level, metric_interval, rate_intervals

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


def _measure(name, y_true, y_pred, sensitive_features, sample_weight, pos_label, ci, **params):
    """The metric ``name`` on the data; with ``ci``, an :class:`Estimate` with its interval."""
    definition = DEFINITIONS[name]
    data = confusion(y_true, y_pred, sensitive_features, sample_weight, pos_label,
                     uses_y_true=definition.uses_y_true)
    cells = data.cells()
    warn_undefined(definition, cells, data.groups)
    value = float(definition.compute(cells, **params))
    if ci is None:
        return value
    return Estimate(value, *metric_interval(name, cells, data.cells(power=2), ci, **params))


# ---------------------------------------------------------------------------------------------
# public metrics


def selection_rate(y_true, y_pred, *, sensitive_features=None, pos_label=1, sample_weight=None):
    """Fraction of predictions equal to ``pos_label``, overall or by group.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        True labels (ignored; kept for a uniform signature, as in fairlearn; ``None`` is accepted).
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
    if sensitive_features is None:
        _, y_pred, weights, _, _ = check_inputs(y_true, y_pred, None, sample_weight, uses_y_true=False,
                                                grouped=False)
        [selected] = positive([y_pred], pos_label, ["y_pred"])
        return float(np.average(selected, weights=weights)) if weights.sum() > 0 else float("nan")
    data = confusion(y_true, y_pred, sensitive_features, sample_weight, pos_label, uses_y_true=False)
    return pd.Series(rate(data.cells(), "selection_rate"), index=data.groups, name="selection_rate")


def demographic_parity_difference(y_true, y_pred, *, sensitive_features, pos_label=1,
                                  sample_weight=None, ci=None):
    """Largest minus smallest group selection rate, max_g P(Ŷ=1|A=g) − min_g P(Ŷ=1|A=g).

    0 means demographic parity (statistical parity) holds exactly.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        True labels (ignored, as in fairlearn; ``None`` is accepted).
    y_pred : array-like of shape (n_samples,)
        Predicted labels.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_columns)
        Several columns form intersectional groups.
    pos_label : scalar, default=1
        The label counted as selected.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    ci : float in (0, 1), default=None
        Also give an interval that holds the population value with probability at least
        ``ci`` (e.g. 0.95): the range of the metric when each group rate lies in its
        exact binomial interval, all of them at once (see the user guide on uncertainty,
        and :func:`fairness_floor` for the gap that noise alone makes).

    Returns
    -------
    difference : float or Estimate
        The metric; with ``ci``, an ``Estimate(value, low, high)``.

    Examples
    --------
    >>> from fairkit.metrics import demographic_parity_difference
    >>> demographic_parity_difference(None, [1, 0, 1, 1], sensitive_features=["a", "a", "b", "b"])
    0.5
    """
    return _measure("demographic_parity_difference", y_true, y_pred, sensitive_features,
                    sample_weight, pos_label, ci)


def demographic_parity_ratio(y_true, y_pred, *, sensitive_features, pos_label=1,
                             sample_weight=None, ci=None):
    """Smallest over largest group selection rate, min_g P(Ŷ=1|A=g) / max_g P(Ŷ=1|A=g).

    1 means demographic parity holds exactly; when no group is ever selected the
    rates are all equal and the ratio is 1 (fairlearn returns NaN, from 0/0).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        True labels (ignored, as in fairlearn; ``None`` is accepted).
    y_pred : array-like of shape (n_samples,)
        Predicted labels.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_columns)
        Several columns form intersectional groups.
    pos_label : scalar, default=1
        The label counted as selected.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    ci : float in (0, 1), default=None
        Also give an interval that holds the population value with probability at least
        ``ci`` (e.g. 0.95): the range of the metric when each group rate lies in its
        exact binomial interval, all of them at once (see the user guide on uncertainty,
        and :func:`fairness_floor` for the gap that noise alone makes).

    Returns
    -------
    ratio : float or Estimate
        The metric; with ``ci``, an ``Estimate(value, low, high)``.
        In [0, 1].

    Examples
    --------
    >>> from fairkit.metrics import demographic_parity_ratio
    >>> demographic_parity_ratio([0, 0, 0, 0], [1, 0, 1, 1],
    ...                          sensitive_features=["a", "a", "b", "b"])
    0.5
    """
    return _measure("demographic_parity_ratio", y_true, y_pred, sensitive_features,
                    sample_weight, pos_label, ci)


def true_positive_rate_difference(y_true, y_pred, *, sensitive_features, pos_label=None,
                                  sample_weight=None, ci=None):
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
    ci : float in (0, 1), default=None
        Also give an interval that holds the population value with probability at least
        ``ci`` (e.g. 0.95): the range of the metric when each group rate lies in its
        exact binomial interval, all of them at once (see the user guide on uncertainty,
        and :func:`fairness_floor` for the gap that noise alone makes).

    Returns
    -------
    difference : float or Estimate
        The metric; with ``ci``, an ``Estimate(value, low, high)``.

    Examples
    --------
    >>> from fairkit.metrics import true_positive_rate_difference
    >>> true_positive_rate_difference([1, 1, 1, 1], [1, 0, 1, 1],
    ...                               sensitive_features=["a", "a", "b", "b"])
    0.5
    """
    return _measure("true_positive_rate_difference", y_true, y_pred, sensitive_features,
                    sample_weight, pos_label, ci)


def false_positive_rate_difference(y_true, y_pred, *, sensitive_features, pos_label=None,
                                   sample_weight=None, ci=None):
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
    ci : float in (0, 1), default=None
        Also give an interval that holds the population value with probability at least
        ``ci`` (e.g. 0.95): the range of the metric when each group rate lies in its
        exact binomial interval, all of them at once (see the user guide on uncertainty,
        and :func:`fairness_floor` for the gap that noise alone makes).

    Returns
    -------
    difference : float or Estimate
        The metric; with ``ci``, an ``Estimate(value, low, high)``.

    Examples
    --------
    >>> from fairkit.metrics import false_positive_rate_difference
    >>> false_positive_rate_difference([0, 0, 0, 0], [1, 0, 0, 0],
    ...                                sensitive_features=["a", "a", "b", "b"])
    0.5
    """
    return _measure("false_positive_rate_difference", y_true, y_pred, sensitive_features,
                    sample_weight, pos_label, ci)


def equalized_odds_difference(y_true, y_pred, *, sensitive_features, agg="worst_case",
                              pos_label=None, sample_weight=None, ci=None):
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
    ci : float in (0, 1), default=None
        Also give an interval that holds the population value with probability at least
        ``ci`` (e.g. 0.95): the range of the metric when each group rate lies in its
        exact binomial interval, all of them at once (see the user guide on uncertainty,
        and :func:`fairness_floor` for the gap that noise alone makes).

    Returns
    -------
    difference : float or Estimate
        The metric; with ``ci``, an ``Estimate(value, low, high)``.

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
    return _measure("equalized_odds_difference", y_true, y_pred, sensitive_features,
                    sample_weight, pos_label, ci, agg=agg)


def equalized_odds_deviation(y_true, y_pred, *, sensitive_features, pos_label=None,
                             sample_weight=None, ci=None):
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
    ci : float in (0, 1), default=None
        Also give an interval that holds the population value with probability at least
        ``ci`` (e.g. 0.95): the range of the metric when each group rate lies in its
        exact binomial interval, all of them at once (see the user guide on uncertainty,
        and :func:`fairness_floor` for the gap that noise alone makes).

    Returns
    -------
    deviation : float or Estimate
        The metric; with ``ci``, an ``Estimate(value, low, high)``.
        0 exactly when every group has the overall true and false positive rates.

    Examples
    --------
    >>> from fairkit.metrics import equalized_odds_deviation
    >>> equalized_odds_deviation([0, 1, 0, 1], [0, 1, 1, 1],
    ...                          sensitive_features=["a", "a", "b", "b"])
    1.0
    """
    return _measure("equalized_odds_deviation", y_true, y_pred, sensitive_features,
                    sample_weight, pos_label, ci)


def group_summary(y_true, y_pred, *, sensitive_features, pos_label=None, sample_weight=None, ci=None):
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
    ci : float in (0, 1), default=None
        Also give each rate's exact binomial (Clopper–Pearson) interval at this level,
        in columns ``<rate>_low`` and ``<rate>_high``. With sample weights the binomial
        count is the Kish effective size (Σw)²/Σw² of the samples the rate conditions on.

    Returns
    -------
    summary : DataFrame
        Indexed by group, with columns ``count``, ``count_positive`` and
        ``count_negative`` (samples with Y=1 and Y=0), ``weight`` (their total
        weight), and the weighted rates ``base_rate`` P(Y=1), ``selection_rate``
        P(Ŷ=1), ``true_positive_rate``, ``false_positive_rate``,
        ``false_negative_rate``, ``true_negative_rate`` and ``accuracy`` (each followed
        by its interval with ``ci``). A rate whose condition has no weight in the group
        is NaN.

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
    >>> summary = group_summary([1] * 20, [1] * 19 + [0], sensitive_features=["a"] * 20, ci=0.95)
    >>> summary.loc["a", ["true_positive_rate", "true_positive_rate_low", "true_positive_rate_high"]
    ...             ].round(3).tolist()  # 19 of 20 positives found: the rate and its 95% interval
    [0.95, 0.751, 0.999]
    """
    if ci is not None:
        check_level(ci, "ci")
    data = confusion(y_true, y_pred, sensitive_features, sample_weight, pos_label, uses_y_true=True)
    cells, counts = data.cells(), data.cells(power=0).astype(np.int64)
    count_positive = counts[:, TP] + counts[:, FN]
    summary = pd.DataFrame({"count": counts.sum(axis=1), "count_positive": count_positive,
                            "count_negative": counts.sum(axis=1) - count_positive,
                            "weight": cells.sum(axis=1)}, index=data.groups)
    squares = None if ci is None else data.cells(power=2)
    for name in RATE_CELLS:
        summary[name] = rate(cells, name)
        if ci is not None:
            summary[f"{name}_low"], summary[f"{name}_high"], _ = rate_intervals(cells, squares, name, ci)
    return summary
