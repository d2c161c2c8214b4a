"""The selective report: risk–coverage curves by group, and who a classifier's abstentions leave out.

A classifier that abstains where it is unsure answers the rows of highest confidence. The
risk–coverage curve (Geifman and El-Yaniv, NeurIPS 2017) gives its error rate among the rows
it answers (the selective risk) against the share it answers (the coverage). Abstention can
also deny service to a group under the cover of uncertainty (Rabanser et al., "Confidential
Guardian", ICML 2025) and widen the accuracy gap between groups (Jones et al., "Selective
Classification Can Magnify Disparities Across Groups", ICLR 2021): the report gives both
figures group by group, with intervals, and flags a group whose coverage falls short of the
others' by more than a tolerance that noise cannot explain.
"""

from dataclasses import dataclass
from numbers import Real

import numpy as np
import pandas as pd
from sklearn.utils import check_array, check_scalar

from fairkit.metrics import clopper_pearson
from fairkit.utils.validation import check_same_index, check_sensitive_features, encode_groups

__all__ = ["OVERALL", "SelectiveReport", "selective_report"]

#: The label of the whole data in :attr:`SelectiveReport.curve` and :attr:`SelectiveReport.aurc`.
OVERALL = "overall"


@dataclass(frozen=True)
class SelectiveReport:
    """The result of :func:`selective_report`.

    Attributes
    ----------
    curve : DataFrame
        The risk–coverage curves, one row per curve and asked coverage: ``group``
        (``"overall"`` or a group), ``coverage`` (asked), ``threshold`` (the confidence a row
        needs), ``achieved_coverage`` (ties at the threshold enter together, so it may exceed
        the asked one), ``accepted`` (rows answered) and ``selective_risk`` (their error rate).
    aurc : Series
        The area under each risk–coverage curve (``"overall"`` first, then each group).
    groups : DataFrame
        One row per group, at the operating point: ``count``, ``accepted``, ``coverage``,
        ``selective_accuracy`` (accuracy among the answered rows) and ``accuracy`` (on every
        row, full coverage), each rate with its interval (``_low``, ``_high``);
        ``rest_coverage`` (of the other groups' rows), ``shortfall`` (``rest_coverage -
        coverage``) with its interval, and ``flagged``. The intervals of each of the three
        rates, and those of the shortfalls, hold at once with probability at least ``ci``.
    overall : Series
        The same figures over all rows (intervals at level ``ci``), the ``threshold`` of the
        operating point (NaN when it was a mask), and the largest differences between groups
        in ``accuracy`` (``accuracy_gap``) and ``selective_accuracy``
        (``selective_accuracy_gap``): abstention widened the accuracy gap when the second
        exceeds the first.
    flagged : bool
        Whether any group is flagged: its coverage falls short of the rest's by more than
        ``tolerance`` even at the favourable end of its interval.
    tolerance : float
        The shortfall of coverage tolerated.
    ci : float
        The level of the intervals.
    operating_coverage : float
        The share of all rows answered at the operating point.
    """

    curve: pd.DataFrame
    aurc: pd.Series
    groups: pd.DataFrame
    overall: pd.Series
    flagged: bool
    tolerance: float
    ci: float
    operating_coverage: float


def selective_report(y_true, y_pred, confidence, *, sensitive_features, coverages=None, operating_point=0.8,
                     tolerance=0.05, ci=0.95):
    """Risk–coverage curves, overall and by group, and each group's coverage and accuracy when abstaining.

    The rows answered are those of highest ``confidence``: at coverage ``c``, those whose
    confidence reaches the ``ceil(c n)``-th largest (rows tied at that threshold are all
    answered, so the coverage achieved may exceed ``c``). Each group's curve comes from its
    own rows. The area under a curve (AURC) is the mean over ``k = 1..n`` of the selective
    risk of the ``k`` most confident rows, rows of equal confidence sharing their block's risk.

    At the operating point, each group's coverage, selective accuracy and accuracy (on every
    row) get exact (Clopper–Pearson) intervals, their level raised (Šidák) so that all the
    groups' intervals of one rate hold at once with probability at least ``ci``; the coverage
    intervals also hold for each group's rest (the other groups' rows). A group is flagged
    when its coverage falls short of the rest's by more than ``tolerance`` even when both
    lie at the favourable ends of their intervals (the Confidential Guardian concern: service
    denied to a group under the guise of uncertainty).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_pred : array-like of shape (n_samples,)
        The classifier's predicted labels for every row (answered or not): labels, not
        probabilities, and no abstention value.
    confidence : array-like of shape (n_samples,)
        Finite confidences, larger for surer predictions (e.g. the largest class probability,
        or :meth:`SelectiveClassifier.predict_confidence`).
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_columns)
        The groups; several columns form intersectional groups.
    coverages : array-like of float in (0, 1], default=None
        Where the curves are evaluated; None: ``np.linspace(0.05, 1, 20)``.
    operating_point : float in (0, 1] or bool array-like of shape (n_samples,), default=0.8
        A coverage (one threshold for all rows, as above), or the answered rows themselves
        (e.g. ``clf.accepts(X, sensitive_features=s)`` of a classifier with per-group thresholds).
    tolerance : float in [0, 1], default=0.05
        The shortfall of a group's coverage against the rest's that is tolerated.
    ci : float in (0, 1), default=0.95
        The joint level of the intervals.

    Returns
    -------
    report : SelectiveReport

    Raises
    ------
    ValueError
        If an argument is invalid: probabilities given as labels, NaN, misaligned pandas
        indexes, arrays of different lengths, a coverage outside (0, 1], a group named
        ``"overall"``.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from fairkit_uncertainty import selective_report
    >>> rng = np.random.default_rng(0)
    >>> group = pd.Series(np.repeat(["a", "b"], 500), name="group")
    >>> confidence = rng.random(1000) - 0.5 * (group == "b")  # b's rows look less sure, yet are as right
    >>> y_true = np.ones(1000, dtype=int)
    >>> y_pred = (rng.random(1000) < 0.8).astype(int)
    >>> report = selective_report(y_true, y_pred, confidence, sensitive_features=group, operating_point=0.6)
    >>> report.groups[["coverage", "selective_accuracy", "shortfall", "shortfall_low", "flagged"]].round(2)
    ... # doctest: +NORMALIZE_WHITESPACE
           coverage  selective_accuracy  shortfall  shortfall_low  flagged
    group
    a          0.86                0.79      -0.52           0.00    False
    b          0.34                0.81       0.52           0.43     True
    >>> report.flagged, round(report.operating_coverage, 2)
    (True, 0.6)
    """
    mask = None if isinstance(operating_point, Real) else operating_point
    check_same_index(y_true=y_true, y_pred=y_pred, confidence=confidence,
                     sensitive_features=sensitive_features, operating_point=mask)
    y_true, y_pred = _check_labels(y_true, "y_true"), _check_labels(y_pred, "y_pred")
    confidence = _check_confidence(confidence)
    _check_same_length(y_true=y_true, y_pred=y_pred, confidence=confidence)
    n_samples = len(y_true)
    frame = check_sensitive_features(sensitive_features, n_samples, samples_of="y_true")
    coverages = _check_coverages(coverages)
    check_scalar(tolerance, "tolerance", Real, min_val=0, max_val=1)
    check_scalar(ci, "ci", Real, min_val=0, max_val=1, include_boundaries="neither")
    accepted = _check_operating_point(operating_point, n_samples)
    labels, codes = encode_groups(frame)
    index = _group_index(labels, frame.columns)
    if OVERALL in set(index):
        raise ValueError(f"sensitive_features holds a group named {OVERALL!r}, the label the report gives "
                         "all rows together; rename that group.")

    correct = _correct(y_true, y_pred)
    threshold = np.nan
    if accepted is None:
        threshold = coverage_threshold(confidence, operating_point)
        accepted = confidence >= threshold
    rows_of = {OVERALL: slice(None), **{label: codes == code for code, label in enumerate(index)}}
    curves, aurc = [], {}
    for label, member in rows_of.items():
        curve, aurc[label] = _curve(label, confidence[member], ~correct[member], coverages)
        curves.append(curve)
    groups = _group_table(codes, len(index), accepted, correct, tolerance, ci).set_index(index)
    overall = _overall(accepted, correct, groups, threshold, ci)
    return SelectiveReport(curve=pd.concat(curves, ignore_index=True), aurc=pd.Series(aurc, name="aurc"),
                           groups=groups, overall=overall, flagged=bool(groups["flagged"].any()),
                           tolerance=float(tolerance), ci=float(ci),
                           operating_coverage=float(accepted.mean()))


# --- the risk–coverage curve ----------------------------------------------------------------------------


def _ranked(confidence, error):
    """For k = 1..n: the k-th largest confidence, and the rows and errors accepted at it as a threshold.

    Sorted once; rows tied with the k-th largest are accepted with it (``accepted >= k``).
    """
    order = np.argsort(-confidence, kind="stable")
    ranked = confidence[order]
    accepted = np.searchsorted(-ranked, -ranked, side="right")  # rows with confidence >= ranked[k - 1]
    return ranked, accepted, np.cumsum(error[order])[accepted - 1]


def _n_accept(coverages, n_samples):
    """How many rows coverage ``c`` asks for: ``ceil(c n)`` (at least 1; a rounding error is not a row)."""
    return np.clip(np.ceil(coverages * n_samples - 1e-9).astype(np.intp), 1, n_samples)


def coverage_threshold(confidence, coverage):
    """The threshold of a coverage: the ``ceil(c n)``-th largest confidence."""
    position = confidence.size - _n_accept(coverage, confidence.size)
    return np.partition(confidence, position)[position]


def _curve(label, confidence, error, coverages):
    """The risk–coverage curve of some rows at ``coverages``, and its area.

    The area (AURC) is the mean over k = 1..n of the selective risk at the k-th largest
    confidence, rows tied with it sharing its risk.
    """
    ranked, accepted, errors = _ranked(confidence, error)
    k = _n_accept(coverages, confidence.size) - 1
    curve = pd.DataFrame({"group": [label] * len(coverages), "coverage": coverages, "threshold": ranked[k],
                          "achieved_coverage": accepted[k] / confidence.size, "accepted": accepted[k],
                          "selective_risk": errors[k] / accepted[k]})
    return curve, float(np.mean(errors / accepted))


# --- the operating point ----------------------------------------------------------------------------------


def _sidak(ci, n_rates):
    """The level of each of ``n_rates`` independent intervals that hold at once with probability ``ci``."""
    return ci ** (1 / max(n_rates, 1))


def _rate(successes, trials, level, name):
    """``{name, name_low, name_high}`` of rates with their Clopper–Pearson intervals (NaN where no trial)."""
    low, high = clopper_pearson(successes, trials, level)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.where(trials > 0, successes / np.maximum(trials, 1), np.nan)
    return {name: value, f"{name}_low": low, f"{name}_high": high}


def _group_table(codes, n_groups, accepted, correct, tolerance, ci):
    """Per group: coverage, selective accuracy, accuracy, each with intervals; the shortfall and flag."""
    count = np.bincount(codes, minlength=n_groups)
    answered = np.bincount(codes, accepted, minlength=n_groups)
    rest_count, rest_answered = count.sum() - count, answered.sum() - answered
    # the coverages compared: each group's and each group's rest (with two groups, the other group's)
    n_coverages = n_groups if n_groups <= 2 else 2 * n_groups
    coverage_level = _sidak(ci, n_coverages)
    table = {"count": count, "accepted": answered.astype(np.intp),
             **_rate(answered, count, coverage_level, "coverage"),
             **_rate(np.bincount(codes, accepted & correct, minlength=n_groups), answered,
                     _sidak(ci, int(np.count_nonzero(answered))), "selective_accuracy"),
             **_rate(np.bincount(codes, correct, minlength=n_groups), count, _sidak(ci, n_groups),
                     "accuracy")}
    rest = _rate(rest_answered, rest_count, coverage_level, "rest_coverage")
    table["rest_coverage"] = rest["rest_coverage"]
    table["shortfall"] = rest["rest_coverage"] - table["coverage"]
    table["shortfall_low"] = np.maximum(0.0, rest["rest_coverage_low"] - table["coverage_high"])
    table["shortfall_high"] = rest["rest_coverage_high"] - table["coverage_low"]
    table["flagged"] = table["shortfall_low"] > tolerance  # NaN (no rest: one group) is never flagged
    return pd.DataFrame(table)


def _overall(accepted, correct, groups, threshold, ci):
    """The figures of all rows at the operating point, and the accuracy gaps between groups."""
    n_samples, answered = len(accepted), int(accepted.sum())
    figures = {"count": n_samples, "accepted": answered,
               **_rate(np.array(answered), np.array(n_samples), ci, "coverage"),
               **_rate(np.array(np.sum(accepted & correct)), np.array(answered), ci, "selective_accuracy"),
               **_rate(np.array(np.sum(correct)), np.array(n_samples), ci, "accuracy"),
               "threshold": threshold}
    figures = {name: float(value) for name, value in figures.items()}
    figures["accuracy_gap"] = float(groups["accuracy"].max() - groups["accuracy"].min())
    figures["selective_accuracy_gap"] = float(groups["selective_accuracy"].max()
                                              - groups["selective_accuracy"].min())
    return pd.Series(figures, name=OVERALL)


# --- validation ---------------------------------------------------------------------------------------


def _check_labels(y, name):
    """``y`` as a 1-D array of labels; refuse missing values, other shapes and probabilities or scores."""
    values = np.asarray(y)
    if values.ndim == 2 and values.shape[1] == 1:
        values = values.ravel()
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of labels, one per row; got shape "
                         f"{values.shape}. For predict_proba's output, give the predicted labels as y_pred "
                         "and the largest probability of each row as confidence.")
    if pd.isna(values).any():
        raise ValueError(f"{name} holds missing values (NaN or None) in {int(pd.isna(values).sum())} rows; "
                         "drop those rows or fill them.")
    if values.dtype.kind == "f":
        fractional = values[values != np.round(values)]
    else:  # object arrays: look at each distinct value
        fractional = [v for v in pd.unique(values) if isinstance(v, float) and not float(v).is_integer()]
    if len(fractional):
        raise ValueError(f"{name} holds non-integer values such as {float(fractional[0])!r}: "
                         "probabilities or scores, not labels. Give the predicted labels (the classifier's "
                         "predict) as y_pred and the scores as confidence.")
    return values


def _check_confidence(confidence):
    values = check_array(confidence, ensure_2d=False, dtype=np.float64, input_name="confidence")
    if values.ndim != 1:
        raise ValueError(f"confidence must be 1-D, one number per row; got shape {values.shape}. For "
                         "predict_proba's output, take each row's largest probability: proba.max(axis=1).")
    return values


def _check_same_length(**arrays):
    if len({len(values) for values in arrays.values()}) > 1:
        sizes = ", ".join(f"{name} has {len(values)}" for name, values in arrays.items())
        raise ValueError(f"{sizes} rows; they must describe the same rows.")


def _check_coverages(coverages):
    """The coverages of the curves as a float array, each in (0, 1]."""
    if coverages is None:
        return np.linspace(0.05, 1, 20)
    values = np.asarray(coverages, dtype=np.float64)
    if values.ndim != 1 or values.size == 0 or not np.all((values > 0) & (values <= 1)):
        raise ValueError(f"coverages must be a non-empty 1-D sequence of shares in (0, 1], such as "
                         f"np.linspace(0.05, 1, 20); got {coverages!r}.")
    return values


def _check_operating_point(operating_point, n_samples):
    """None for a coverage in (0, 1]; the accepted rows for a boolean mask; a ValueError otherwise."""
    if isinstance(operating_point, Real) and not isinstance(operating_point, bool | np.bool_):
        if not 0 < operating_point <= 1:
            raise ValueError(f"operating_point must be a coverage in (0, 1] (such as 0.8) or a boolean "
                             f"mask of the answered rows; got {operating_point!r}.")
        return None
    mask = np.asarray(operating_point)
    if mask.dtype != bool or mask.ndim != 1:
        raise ValueError("operating_point must be a coverage in (0, 1] (such as 0.8) or a 1-D boolean "
                         f"mask of the answered rows (such as clf.accepts(X, sensitive_features=s)); got "
                         f"{type(operating_point).__name__} of dtype {mask.dtype} and shape {mask.shape}.")
    if mask.size != n_samples:
        raise ValueError(f"operating_point is a mask of {mask.size} rows but y_true has {n_samples}; it "
                         "must say for each row whether it is answered.")
    return mask


def _correct(y_true, y_pred):
    """Whether each prediction is right (labels of different kinds, 1 and "1", are not equal)."""
    if y_true.dtype.kind in "biuf" and y_pred.dtype.kind in "biuf":
        return y_true == y_pred
    return y_true.astype(object) == y_pred.astype(object)


def _group_index(labels, columns):
    if len(columns) == 1:
        return pd.Index(labels, name=columns[0], tupleize_cols=False)
    return pd.MultiIndex.from_tuples(list(labels), names=list(columns))
