"""The support behind each group's rates on the fit data; a warning when it is too small for the tolerance.

A rate counted on ``n`` independent samples has sampling SD ``sqrt(r (1 − r) / n)``. With
weights ``n`` is Kish's effective size ``(Σw)² / Σw²`` of the samples the rate conditions
on: all of the group's for the selection rate, its positives for the true positive
rate, its negatives for the false positive rate. With empirical rates those are the
labelled positives and negatives (weights ``w y`` and ``w (1 − y)``); with plug-in rates
each sample counts as a positive with weight ``w s`` and as a negative with ``w (1 − s)``,
the expectations of the same sums given the scores (for unit weights, ``Σ s`` is the
expected number of positives).
"""


import numpy as np
import pandas as pd

from fairkit.exceptions import FairkitWarning
from fairkit.utils._warnings import warn_user

__all__ = ["NOISE_LIMIT", "check_support", "group_support", "support_frame"]

#: The sampling SD above which a group's rate warns even when the tolerance is smaller (5 points).
NOISE_LIMIT = 0.05

CONSTRAINED_RATES = {
    "demographic_parity": ("selection_rate",),
    "equal_opportunity": ("true_positive_rate",),
    "predictive_equality": ("false_positive_rate",),
    "equalized_odds": ("true_positive_rate", "false_positive_rate"),
}


def group_support(scores, codes, weights, groups, constraint, fitted_rates, labels=None):
    """One row per group: weight, positives, negatives, and each constrained rate's effective size and SD.

    Parameters
    ----------
    scores, codes, weights : ndarray of shape (n_samples,)
        The fit data the rule was solved on (positive weights).
    groups : ndarray of shape (n_groups,)
    constraint : str
        Which rates are constrained (:data:`CONSTRAINED_RATES`).
    fitted_rates : dict
        Rate name → ndarray of shape (n_groups,): the rule's rates on the fit data, at
        which the SD is taken.
    labels : ndarray of shape (n_samples,), default=None
        Binary labels, when the rates are counted from them.

    Returns
    -------
    support : DataFrame
        Indexed by group (a MultiIndex for intersectional groups).
    """
    def total(values):
        return np.bincount(codes, weights=values, minlength=len(groups))

    columns = {"weight": total(weights), "expected_positives": total(weights * scores),
               "expected_negatives": total(weights * (1.0 - scores))}
    if labels is not None:
        columns["positives"], columns["negatives"] = total(weights * labels), total(weights * (1.0 - labels))
    # per rate: each sample's share in the samples it conditions on, and the column summing w * share
    positive, counted = (scores, "expected_") if labels is None else (labels, "")
    conditions = {"selection_rate": (1.0, "weight"),
                  "true_positive_rate": (positive, f"{counted}positives"),
                  "false_positive_rate": (1.0 - positive, f"{counted}negatives")}
    squared = weights ** 2
    for name in CONSTRAINED_RATES[constraint]:
        share, mass = conditions[name]
        effective = columns[mass] ** 2 / total(squared * share)  # > 0: groups without support were refused
        rate = np.clip(np.asarray(fitted_rates[name], dtype=float), 0.0, 1.0)  # an LP's rate may be 1 + 1e-16
        columns[f"{name}_effective_size"] = effective
        columns[f"{name}_sd"] = np.sqrt(rate * (1.0 - rate) / effective)
    return support_frame(columns, groups)


def support_frame(columns, groups):
    """The support table: ``columns`` (name → one value per group) indexed by ``groups``.

    Parameters
    ----------
    columns : dict
        Column name → ndarray of shape (n_groups,).
    groups : ndarray of shape (n_groups,)
        The groups; tuples (intersectional groups) make a MultiIndex.

    Returns
    -------
    support : DataFrame
    """
    if isinstance(groups[0], tuple):
        index = pd.MultiIndex.from_tuples(list(groups))
    else:
        index = pd.Index(groups, name="group", tupleize_cols=False)
    return pd.DataFrame(columns, index=index)


def check_support(support, constraint, tolerance, estimator_name):
    """Warn, naming them, about groups whose constrained rate has sampling SD > ``max(tolerance, 0.05)``."""
    limit = max(float(tolerance), NOISE_LIMIT)
    if len(support) < 2:  # one group: nothing is constrained
        return
    entries = []
    for name in CONSTRAINED_RATES[constraint]:
        sd, effective = support[f"{name}_sd"], support[f"{name}_effective_size"]
        entries += [f"group {group!r}: {name.replace('_', ' ')} SD {sd[group]:.3f} "
                    f"(effective size {effective[group]:.1f})" for group in support.index[sd > limit]]
    if entries:
        warn_user(
            f"{estimator_name}: {len(entries)} group rate(s) rest on too little fit data for "
            f"tolerance={tolerance:g}; their sampling SD exceeds max(tolerance, {NOISE_LIMIT}) = {limit:g}, "
            f"so on new data they may differ by more than the tolerance although they are equal on the "
            f"fit data: {'; '.join(entries)}. See group_support_; merge small groups or collect more "
            "data for them.", FairkitWarning)
