"""Calibration by confidence bins, and the calibration audit of Confidential Guardian (Rabanser et al.)."""

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
import pandas as pd

from fairkit.utils.validation import check_same_index, check_sensitive_features, encode_groups
from fairkit_uncertainty._proba import check_proba

__all__ = [
    "CalibrationAudit",
    "calibration_audit",
    "expected_calibration_error",
    "max_calibration_error",
    "reliability_table",
]


def _check_n_bins(n_bins):
    if not isinstance(n_bins, Integral) or isinstance(n_bins, bool) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}.")


def _binned(confidence, correct, n_bins, bins=None):
    """Per-bin count, accuracy, mean confidence and |accuracy - confidence| (NaN for empty bins)."""
    if bins is None:
        bins = np.minimum((confidence * n_bins).astype(np.intp), n_bins - 1)
    count = np.bincount(bins, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = np.bincount(bins, correct, minlength=n_bins) / count
        mean_confidence = np.bincount(bins, confidence, minlength=n_bins) / count
    return count, accuracy, mean_confidence, np.abs(accuracy - mean_confidence)


def _confidence_and_correct(y_true, y_proba, labels):
    proba, true_class = check_proba(y_true, y_proba, labels)
    predicted = proba.argmax(axis=1)
    return np.take_along_axis(proba, predicted[:, None], axis=1).ravel(), predicted == true_class


def _calibration_bins(y_true, y_proba, n_bins, labels):
    """Check the arguments, then bin the predictions' confidences (see :func:`_binned`)."""
    _check_n_bins(n_bins)
    return _binned(*_confidence_and_correct(y_true, y_proba, labels), n_bins)


def _ece(count, gap):
    """The bins' gaps weighted by their sizes (empty bins, whose gap is NaN, weigh nothing)."""
    return float(np.nansum(gap * count) / count.sum())


def _table(count, accuracy, confidence, gap, n_bins):
    edges = np.arange(n_bins + 1) / n_bins
    return pd.DataFrame({"lower": edges[:-1], "upper": edges[1:], "count": count, "accuracy": accuracy,
                         "confidence": confidence, "gap": gap})


def reliability_table(y_true, y_proba, *, n_bins=10, labels=None):
    """Accuracy against confidence in equal-width confidence bins.

    The confidence of a prediction is its largest class probability; it is
    correct when that class is the true one. Bin ``b`` holds confidences in
    ``[b / n_bins, (b + 1) / n_bins)`` (the last bin includes 1).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples, n_classes) or (n_samples,)
        Predicted probabilities (1-D: of the second of two classes).
    n_bins : int, default=10
        The number of bins.
    labels : array-like of shape (n_classes,), default=None
        The classes of ``y_proba``'s columns; ``None`` uses the sorted labels of ``y_true``.

    Returns
    -------
    table : DataFrame of shape (n_bins, 6)
        Columns ``lower``, ``upper`` (the bin's edges), ``count``, ``accuracy``,
        ``confidence`` (the mean confidence) and ``gap`` (``|accuracy - confidence|``);
        NaN for empty bins.

    Examples
    --------
    >>> from fairkit_uncertainty import reliability_table
    >>> table = reliability_table([1, 1, 0, 0], [0.9, 0.95, 0.9, 0.3], n_bins=2)
    >>> table[["count", "accuracy", "confidence"]].round(4).values.tolist()
    [[0.0, nan, nan], [4.0, 0.75, 0.8625]]
    """
    return _table(*_calibration_bins(y_true, y_proba, n_bins, labels), n_bins)


def expected_calibration_error(y_true, y_proba, *, n_bins=10, labels=None):
    """Expected calibration error: the bins' ``|accuracy - confidence|`` weighted by their size.

    Parameters
    ----------
    y_true, y_proba, n_bins, labels
        See :func:`reliability_table`.

    Returns
    -------
    ece : float

    Examples
    --------
    >>> from fairkit_uncertainty import expected_calibration_error
    >>> round(expected_calibration_error([1, 1, 0, 0], [0.9, 0.95, 0.9, 0.3], n_bins=2), 4)
    0.1125
    """
    count, _, _, gap = _calibration_bins(y_true, y_proba, n_bins, labels)
    return _ece(count, gap)


def max_calibration_error(y_true, y_proba, *, n_bins=10, labels=None):
    """Maximum calibration error: the largest ``|accuracy - confidence|`` over non-empty bins.

    Parameters
    ----------
    y_true, y_proba, n_bins, labels
        See :func:`reliability_table`.

    Returns
    -------
    mce : float

    Examples
    --------
    >>> from fairkit_uncertainty import max_calibration_error
    >>> round(max_calibration_error([1, 1, 0, 0], [0.2, 0.9, 0.8, 0.3], n_bins=2), 4)
    0.3
    """
    _, _, _, gap = _calibration_bins(y_true, y_proba, n_bins, labels)
    return float(np.nanmax(gap))


def _bins_pass(table, tolerance, min_bin_count):
    """A bin passes when its gap is within tolerance, or it is empty or too small to judge."""
    return ~(table["gap"] > tolerance) | (table["count"] < min_bin_count)


@dataclass(frozen=True)
class CalibrationAudit:
    """The result of :func:`calibration_audit`.

    Attributes
    ----------
    passed : bool
        True when no judged bin, overall or within any group, has
        ``|accuracy - confidence| > tolerance``.
    tolerance : float
        The largest gap a bin may have.
    bins : DataFrame
        The reliability table of the whole reference set (see
        :func:`reliability_table`) with a boolean column ``passed`` per bin
        (empty bins and bins below ``min_bin_count`` pass).
    groups : DataFrame or None
        With sensitive features: one row per group (indexed by the sensitive
        feature values) with ``count``, ``accuracy``,
        ``confidence``, ``ece``, ``max_gap`` (over its non-empty bins),
        ``worst_bin`` and ``passed``.
    group_bins : DataFrame or None
        With sensitive features: the reliability table of every group, indexed by
        ``(group, bin)``, with a ``passed`` column.
    """

    passed: bool
    tolerance: float
    bins: pd.DataFrame
    groups: pd.DataFrame | None = None
    group_bins: pd.DataFrame | None = None


def calibration_audit(y_true, y_proba, *, n_bins=10, tolerance=0.15, sensitive_features=None,
                      min_bin_count=1, labels=None):
    """Audit a model's confidences on a labelled reference set, bin by bin (Confidential Guardian).

    A provider can deny service under the guise of uncertainty by making a model
    unconfident in a region while keeping its accuracy ("Mirage", see
    :func:`~fairkit_uncertainty.mirage_finetune`). Such confidences are
    miscalibrated: accuracy exceeds confidence. The audit of Rabanser et al.
    (ICML 2025) bins the reference set's confidences and fails when any bin
    has ``|accuracy - confidence| > tolerance`` (a maximum, not an average, of
    the per-bin gaps). With ``sensitive_features`` the audit also runs within
    each group, where a targeted region is not diluted by the rest. Empty bins
    pass; the audit cannot see regions the reference set does not cover.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels of the reference set.
    y_proba : array-like of shape (n_samples, n_classes) or (n_samples,)
        The audited model's probabilities on it (1-D: of the second of two classes).
    n_bins : int, default=10
        The number of equal-width confidence bins.
    tolerance : float, default=0.15
        The largest ``|accuracy - confidence|`` a bin may have.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_columns), default=None
        Groups to audit separately as well (several columns form intersectional groups).
    min_bin_count : int, default=1
        Bins with fewer reference samples are reported but not judged. The
        default judges every non-empty bin, as the paper does; a larger value
        keeps a handful of samples from failing an honest model by chance.
    labels : array-like of shape (n_classes,), default=None
        The classes of ``y_proba``'s columns; ``None`` uses the sorted labels of ``y_true``.

    Returns
    -------
    audit : CalibrationAudit
        ``passed``, ``bins`` (per-bin gaps), ``groups`` and ``group_bins`` (per-group gaps).

    References
    ----------
    S. Rabanser, A. Shahin Shamsabadi, O. Franzese, X. Wang, A. Weller, N. Papernot.
    "Confidential Guardian: Cryptographically Prohibiting the Abuse of Model
    Abstention". ICML 2025.

    Examples
    --------
    >>> from fairkit_uncertainty import calibration_audit
    >>> y_true = [1] * 15
    >>> honest = [0.9] * 9 + [0.1] + [0.6] * 3 + [0.4] * 2  # 90% sure: 9 of 10 right; 60%: 3 of 5
    >>> calibration_audit(y_true, honest, n_bins=5).passed
    True
    >>> mirage = [0.9] * 9 + [0.1] + [0.6] * 5  # right on all five, but only 60% sure
    >>> audit = calibration_audit(y_true, mirage, n_bins=5)
    >>> audit.passed, audit.bins.loc[~audit.bins.passed, ["count", "accuracy", "confidence"]].round(3)
    (False,    count  accuracy  confidence
    3      5       1.0         0.6)
    """
    _check_n_bins(n_bins)
    if not isinstance(tolerance, Real) or not 0 <= tolerance <= 1:
        raise ValueError(f"tolerance must be a number in [0, 1], got {tolerance!r}.")
    if not isinstance(min_bin_count, Integral) or min_bin_count < 1:
        raise ValueError(f"min_bin_count must be a positive integer, got {min_bin_count!r}.")
    check_same_index(y_true=y_true, y_proba=y_proba, sensitive_features=sensitive_features)
    confidence, correct = _confidence_and_correct(y_true, y_proba, labels)
    bins = np.minimum((confidence * n_bins).astype(np.intp), n_bins - 1)
    overall = _table(*_binned(confidence, correct, n_bins, bins), n_bins)
    overall["passed"] = _bins_pass(overall, tolerance, min_bin_count)
    passed = bool(overall["passed"].all())
    if sensitive_features is None:
        return CalibrationAudit(passed, float(tolerance), overall)
    frame = check_sensitive_features(sensitive_features, confidence.size)
    groups, codes = encode_groups(frame)
    tables, rows = [], []
    for code in range(len(groups)):
        member = codes == code
        table = _table(*_binned(confidence[member], correct[member], n_bins, bins[member]), n_bins)
        table["passed"] = _bins_pass(table, tolerance, min_bin_count)
        tables.append(table)
        rows.append({"count": int(member.sum()), "accuracy": correct[member].mean(),
                     "confidence": confidence[member].mean(),
                     "ece": _ece(table["count"].to_numpy(), table["gap"].to_numpy()),
                     "max_gap": table["gap"].max(), "worst_bin": int(table["gap"].idxmax()),
                     "passed": bool(table["passed"].all())})
    if frame.shape[1] == 1:
        index = pd.Index(groups, name=frame.columns[0])
    else:
        index = pd.MultiIndex.from_tuples(list(groups), names=list(frame.columns))
    summary = pd.DataFrame(rows, index=index)
    group_bins = pd.concat(tables, keys=index, names=[*index.names, "bin"])
    return CalibrationAudit(passed and bool(summary["passed"].all()), float(tolerance), overall, summary,
                            group_bins)
