"""The audit check of fairkit-uncertainty: ``fairkit audit data.csv ... --abstain COVERAGE``.

Each audited model abstains on its least confident test rows (confidence: its largest class
probability) so that it answers a share COVERAGE of them; the check reports, group by group,
the coverage and the selective accuracy that leaves (:func:`selective_report`), and flags a
group whose coverage falls short of the others' (Rabanser et al., "Confidential Guardian",
ICML 2025).
"""

import inspect
import numbers
import warnings

import numpy as np
import pandas as pd

from fairkit.exceptions import FairkitWarning
from fairkit_uncertainty._report import OVERALL, selective_report

__all__ = ["abstain_check"]

#: How far the coverage achieved may be from the one asked before the check warns.
COVERAGE_SLACK = 0.01

#: The columns of the check's table taken from :attr:`SelectiveReport.groups` (then ``aurc``).
_COLUMNS = ["count", *(f"{rate}{end}" for rate in ("coverage", "selective_accuracy", "accuracy")
                       for end in ("", "_low", "_high")),
            "shortfall", "shortfall_low", "shortfall_high", "flagged"]


def abstain_check(model, X, y, sensitive_features, *, option, random_state):
    """Coverage and selective accuracy by group when the model answers only the COVERAGE it is surest of.

    The check behind ``fairkit audit --abstain COVERAGE`` (``fairkit.audit.audit(...,
    checks={"abstain": COVERAGE})``): the model's confidence in a row is its largest class
    probability (``predict_proba``, given the sensitive features when it takes them); it
    answers the rows whose confidence reaches the ``ceil(COVERAGE n)``-th largest and
    abstains on the others. :func:`selective_report` then gives each group's coverage,
    selective accuracy (on the rows answered) and accuracy (on all rows) with intervals that
    hold at once with probability 0.95, the shortfall of its coverage against the other
    groups', and whether that shortfall exceeds 0.05 beyond noise (``flagged``). Rows tied at
    the threshold are answered together, so the coverage achieved (the ``overall`` row) may
    exceed COVERAGE; when it differs by more than 0.01 the check warns. A model without
    ``predict_proba`` fails the check with the reason.

    Parameters
    ----------
    model : fitted classifier with ``predict_proba`` and ``predict``
    X : ndarray of shape (n_samples, n_features)
        The audit's preprocessed test features.
    y : ndarray of shape (n_samples,)
        The test labels.
    sensitive_features : DataFrame
        The test rows' sensitive columns.
    option : float in (0, 1]
        COVERAGE, the share of rows the model answers.
    random_state : int, RandomState instance or None
        Unused: the check draws nothing (a randomized model's ``predict`` uses its own seed).

    Returns
    -------
    table : DataFrame
        Indexed by ``group`` (``"overall"`` first, then each group; intersections joined by
        ``" & "``): ``count``, ``coverage``, ``selective_accuracy`` and ``accuracy`` with
        their intervals (``_low``, ``_high``), ``shortfall`` with its interval, ``flagged``
        and ``aurc`` (the area under the group's risk–coverage curve).

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.linear_model import LogisticRegression
    >>> from fairkit.datasets import make_fair_classification
    >>> from fairkit_uncertainty._audit import abstain_check
    >>> X, y, group = make_fair_classification(1000, 4, random_state=0)
    >>> model = LogisticRegression().fit(X, y)
    >>> table = abstain_check(model, X, y, pd.DataFrame({"group": group}), option=0.8, random_state=0)
    >>> table[["count", "coverage", "selective_accuracy", "flagged"]].round(2)
    ... # doctest: +NORMALIZE_WHITESPACE
             count  coverage  selective_accuracy  flagged
    group
    overall   1000      0.80                0.86    False
    0          519      0.79                0.85    False
    1          481      0.81                0.86    False
    """
    coverage = _coverage(option)
    if not hasattr(model, "predict_proba"):
        raise TypeError(f"the abstain check ranks rows by the model's largest class probability, and "
                        f"{type(model).__name__} has no predict_proba.")
    proba = np.asarray(model.predict_proba(X, **_groups_for(model.predict_proba, sensitive_features)))
    y_pred = np.asarray(model.predict(X, **_groups_for(model.predict, sensitive_features)))
    report = selective_report(y, y_pred, proba.max(axis=1), sensitive_features=sensitive_features,
                              operating_point=coverage)
    if abs(report.operating_coverage - coverage) > COVERAGE_SLACK:
        warnings.warn(f"the abstain check asked {type(model).__name__} to answer {coverage:g} of the rows, "
                      f"and it answers {report.operating_coverage:.3f}: many rows share its largest class "
                      f"probability (such as a probability of 1 from a rule that decides them "
                      f"deterministically), and tied rows are answered or refused together; the table "
                      f"reports the coverage achieved.", FairkitWarning, stacklevel=2)
    groups = report.groups[_COLUMNS].set_axis(pd.Index(map(_label, report.groups.index), name="group"))
    overall = pd.DataFrame([report.overall.reindex(_COLUMNS)], index=pd.Index([OVERALL], name="group"))
    overall["flagged"] = report.flagged
    table = pd.concat([overall, groups])
    table["aurc"] = report.aurc.to_numpy()
    return table.astype({"count": np.int64})

def _coverage(option):
    """The coverage that the check's option gives, or a ValueError that says what the option is."""
    if isinstance(option, bool) or not isinstance(option, numbers.Real) or not 0 < option <= 1:
        raise ValueError(f"the abstain check's option is the coverage COVERAGE, the share of rows the model "
                         f"answers: a number in (0, 1] (such as --abstain 0.8); got {option!r}.")
    return float(option)


def _groups_for(method, sensitive_features):
    """``{"sensitive_features": ...}`` for a method that takes them, else nothing."""
    try:
        takes = "sensitive_features" in inspect.signature(method).parameters
    except (TypeError, ValueError):  # no signature to read
        takes = False
    return {"sensitive_features": sensitive_features} if takes else {}


def _label(group):
    return " & ".join(map(str, group)) if isinstance(group, tuple) else str(group)
