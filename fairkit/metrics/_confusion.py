"""Every group metric as a function of each group's weighted confusion counts.

A metric of a binary classifier's decisions across groups depends on the data only through
the (weighted) counts of true positives, false negatives, false positives and true
negatives of each group: a ``(..., n_groups, 4)`` array of "cells". The definitions below
take such arrays with any leading axes, so that one function gives the observed value and
each fair-rule draw's (:func:`fairkit.metrics.fairness_floor`), without a loop over draws.
"""

from typing import NamedTuple

import numpy as np
import pandas as pd
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils import column_or_1d

from fairkit.utils._sklearn_compat import _check_sample_weight
from fairkit.utils._warnings import warn_user
from fairkit.utils.validation import check_same_index, check_sensitive_features, encode_groups

TP, FN, FP, TN = range(4)  # the cells, along the last axis

_RATE_NAMES = {
    "selection_rate": "selection rate",
    "true_positive_rate": "true positive rate (the group has no positive samples)",
    "false_positive_rate": "false positive rate (the group has no negative samples)",
}


# ---------------------------------------------------------------------------------------------
# input handling


def check_inputs(y_true, y_pred, sensitive_features, sample_weight, *, uses_y_true=True, grouped=True):
    """Validate the arrays; return y_true, y_pred, weights and the group labels and codes.

    A metric that ignores ``y_true`` (``uses_y_true=False``) accepts ``None`` for it.
    """
    check_same_index(y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features,
                     sample_weight=sample_weight)
    y_pred = one_per_sample(y_pred, "y_pred")
    y_true = y_pred if y_true is None and not uses_y_true else one_per_sample(y_true, "y_true")
    check_same_length(y_true=y_true, y_pred=y_pred)
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


def one_per_sample(y, name):
    """``y`` as a 1-D array (a column vector is raveled, with a warning); other shapes are refused.

    scikit-learn's ``column_or_1d`` says "y should be a 1d array" whatever the argument.
    """
    if y is None:
        raise ValueError(f"{name} is required (got None).")
    shape = np.shape(y)
    if len(shape) == 1 or (len(shape) == 2 and shape[1] == 1):
        return column_or_1d(y, warn=True)
    got = f"an array of shape {shape}" if shape else f"a single {type(y).__name__}"
    hint = (" Probabilities for two classes (predict_proba)? Take column 1 and threshold it, e.g. "
            "(proba[:, 1] >= 0.5).astype(int)." if len(shape) == 2 and shape[1] == 2 else "")
    raise ValueError(f"{name} must be 1-D, one value per sample; got {got}.{hint}")


def check_same_length(**arrays):
    """Refuse arrays (given by name) that describe different numbers of samples, naming them."""
    lengths = [f"{name} has {len(values)}" for name, values in arrays.items()]
    if len({len(values) for values in arrays.values()}) > 1:
        listed = ", ".join(lengths[:-1]) + f" and {lengths[-1]}"
        raise ValueError(f"{listed} samples; they must describe the same samples.")


def _group_index(groups, columns):
    if len(columns) == 1:
        return pd.Index(groups, name=columns[0], tupleize_cols=False)
    return pd.MultiIndex.from_tuples(list(groups), names=list(columns))


#: What to do with probabilities or scores given where the group metrics need labels.
THRESHOLD_THEM = ("Threshold them into labels first (e.g. (proba >= 0.5).astype(int), or the estimator's "
                  "predict), or measure the scores' dependence on the groups with "
                  "fairkit.metrics.kernel_partial_correlation.")


def label_values(y, name, *, fix=THRESHOLD_THEM):
    """The distinct values of labels ``y``; refuse missing values and probabilities.

    ``fix`` says what to do with non-integer floats (probabilities or scores).
    """
    values = pd.unique(y)
    missing = pd.isna(values)
    if missing.any():
        raise ValueError(f"{name} holds missing values (NaN or None) in {int(pd.isna(y).sum())} rows; "
                         "drop those samples or fill them.")
    fractional = next((v for v in values if isinstance(v, float | np.floating) and not float(v).is_integer()),
                      None)
    if fractional is not None:
        raise ValueError(f"{name} holds non-integer values such as {fractional!r}: probabilities or "
                         f"scores, not labels. {fix}")
    return values


def positive(labels, pos_label, names):
    """Turn binary labels into booleans (True = positive), as fairlearn's confusion-matrix rates.

    ``labels`` are the label arrays (y_true and y_pred, or y_pred alone) and ``names``
    their names. Without ``pos_label`` the labels must be in {0, 1} (booleans
    included) or {-1, 1}, and 1 is the positive label. A ``pos_label`` must be among
    the labels, unless they are all in {0, 1} or {-1, 1} and so is ``pos_label`` (no
    positive prediction at all is then a valid outcome).
    """
    values = pd.unique(np.array([v for y, name in zip(labels, names, strict=True)
                                 for v in label_values(y, name)], dtype=object))
    what = " and ".join(names)
    if len(values) > 2:
        holds = "together they hold" if len(names) > 1 else "it holds"
        raise ValueError(f"{what} must hold binary labels; {holds} {len(values)} distinct values "
                         f"({show(values)}).")
    standard = [s for s in ({0, 1}, {-1, 1}) if set(values) <= s]
    if pos_label is None:
        if not standard:
            raise ValueError(f"Without pos_label the labels must be in {{0, 1}} or {{-1, 1}}; got "
                             f"{show(values)}. Give pos_label= to name the positive label.")
        pos_label = 1
    elif pos_label not in set(values) and not any(pos_label in s for s in standard):
        raise ValueError(f"pos_label={pos_label!r} is not among the labels of {what} "
                         f"({show(values)}); give pos_label= one of them.")
    return [y == pos_label for y in labels]


def show(values):
    """The first five values as the user wrote them (1, 'yes'; not np.int64(1), np.str_('yes'))."""
    return ", ".join(repr(v.item() if isinstance(v, np.generic) else v) for v in list(values)[:5])


class Confusion(NamedTuple):
    """Validated samples: each one's group code, confusion cell and weight."""

    groups: pd.Index
    codes: np.ndarray
    cell: np.ndarray
    weights: np.ndarray

    @property
    def n_groups(self):
        return len(self.groups)

    def cells(self, power=1):
        """The ``(n_groups, 4)`` sums of the weights (to ``power``) in each group and cell."""
        return np.bincount(self.codes * 4 + self.cell, self.weights ** power,
                           minlength=4 * self.n_groups).reshape(self.n_groups, 4)


def confusion(y_true, y_pred, sensitive_features, sample_weight, pos_label, *, uses_y_true):
    """Validate the inputs of a group metric and sort each sample into its confusion cell.

    A metric that ignores ``y_true`` (the selection rates) counts every sample as a negative, and
    accepts ``None`` for it.
    """
    y_true, y_pred, weights, groups, codes = check_inputs(y_true, y_pred, sensitive_features,
                                                          sample_weight, uses_y_true=uses_y_true)
    if uses_y_true:
        is_positive, predicted = positive([y_true, y_pred], pos_label, ["y_true", "y_pred"])
    else:
        [predicted] = positive([y_pred], pos_label, ["y_pred"])
        is_positive = np.zeros_like(predicted)
    cell = np.where(is_positive, np.where(predicted, TP, FN), np.where(predicted, FP, TN))
    return Confusion(groups, codes, cell.astype(np.intp), weights)


# ---------------------------------------------------------------------------------------------
# rates and metrics of cells, vectorised over leading axes


def _divide(numerator, denominator):
    """numerator / denominator, NaN where the denominator is 0 (an undefined rate)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, numerator / denominator, np.nan)


#: rate name -> (the cells it conditions on, the cells it counts)
RATE_CELLS = {
    "base_rate": ((TP, FN, FP, TN), (TP, FN)),
    "selection_rate": ((TP, FN, FP, TN), (TP, FP)),
    "true_positive_rate": ((TP, FN), (TP,)),
    "false_positive_rate": ((FP, TN), (FP,)),
    "false_negative_rate": ((TP, FN), (FN,)),
    "true_negative_rate": ((FP, TN), (TN,)),
    "accuracy": ((TP, FN, FP, TN), (TP, TN)),
}


def rate(cells, name):
    """A rate of each group (``cells[..., g, :]``): NaN where its condition has no weight."""
    condition, hit = RATE_CELLS[name]
    return _divide(cells[..., list(hit)].sum(-1), cells[..., list(condition)].sum(-1))


def _extremes(rates):
    """Largest and smallest defined rate over the groups (last axis), and whether any is defined."""
    defined = ~np.isnan(rates)
    return (np.where(defined, rates, -np.inf).max(-1), np.where(defined, rates, np.inf).min(-1),
            defined.any(-1))


def _gap(rates):
    largest, smallest, any_defined = _extremes(rates)
    return np.where(any_defined, largest - smallest, np.nan)


def _min_over_max(rates):
    largest, smallest, any_defined = _extremes(rates)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(largest > 0, smallest / largest, 1.0)
    return np.where(any_defined, ratio, np.nan)


def _deviation(rates, overall):
    return np.where(np.isnan(rates), 0.0, np.abs(rates - overall[..., None])).sum(-1)


def _equalized_odds(cells, agg="worst_case"):
    gaps = np.stack([_gap(rate(cells, "true_positive_rate")), _gap(rate(cells, "false_positive_rate"))],
                    axis=-1)
    defined = ~np.isnan(gaps)
    total = np.where(defined, gaps, 0.0)
    combined = total.max(-1) if agg == "worst_case" else total.sum(-1) / np.maximum(defined.sum(-1), 1)
    return np.where(defined.any(-1), combined, np.nan)


def _equalized_odds_deviation(cells):
    overall = cells.sum(-2)
    return sum(_deviation(rate(cells, name), rate(overall, name))
               for name in ("true_positive_rate", "false_positive_rate"))


class Definition(NamedTuple):
    """A group metric as a function of cells: ``compute(cells, **params)``."""

    compute: object
    uses_y_true: bool
    rates: tuple  # the rates it compares: a group where one is undefined is left out, with a warning
    greater_is_fairer: bool = False


DEFINITIONS = {
    "demographic_parity_difference": Definition(lambda c: _gap(rate(c, "selection_rate")), False,
                                                ("selection_rate",)),
    "demographic_parity_ratio": Definition(lambda c: _min_over_max(rate(c, "selection_rate")), False,
                                           ("selection_rate",), greater_is_fairer=True),
    "true_positive_rate_difference": Definition(lambda c: _gap(rate(c, "true_positive_rate")), True,
                                                ("true_positive_rate",)),
    "false_positive_rate_difference": Definition(lambda c: _gap(rate(c, "false_positive_rate")), True,
                                                 ("false_positive_rate",)),
    "equalized_odds_difference": Definition(_equalized_odds, True,
                                            ("true_positive_rate", "false_positive_rate")),
    "equalized_odds_deviation": Definition(_equalized_odds_deviation, True,
                                           ("true_positive_rate", "false_positive_rate")),
}


def warn_undefined(definition, cells, groups):
    """Warn about each group whose rate is undefined; it is left out of the metric."""
    for name in definition.rates:
        undefined = np.isnan(rate(cells, name))
        if undefined.any():
            warn_user(f"The {_RATE_NAMES[name]} is undefined for group(s) "
                      f"{show(groups[undefined])}; they are left out of its difference.",
                      UndefinedMetricWarning)
