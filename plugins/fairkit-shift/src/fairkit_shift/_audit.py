"""The audit check of fairkit-shift: ``fairkit audit data.csv ... --target-csv shifted.csv``.

It runs SHIFT (H. Singh, F. Xia, A. Gossmann, A. Chuang, J. C. Hong, J. Feng, "'Who experiences
large model decay and why?' A hierarchical framework for diagnosing heterogeneous performance
drift", ICML 2025, arXiv:2506.00756) on each audited model, between the audit's held-out rows of
the source table and the target domain's table.
"""

import inspect
import numbers

import numpy as np
import pandas as pd

from fairkit_shift._diagnoser import SubgroupShiftDiagnoser

__all__ = ["DEFAULT_TOLERANCE", "shift_check"]

#: The tolerance τ of the check when its option is None or ``"default"`` (``--target-csv`` alone).
DEFAULT_TOLERANCE = 0.05


def shift_check(model, X, y, sensitive_features, *, option, random_state, target=None, feature_names=None):
    """Which subgroups lose performance in the target data (--target-csv), and why: SHIFT's tests.

    The check behind ``fairkit audit data.csv ... --target-csv shifted.csv`` (``fairkit.audit.audit(
    ..., checks={"shift": TOL}, target_data=...)``): :class:`SubgroupShiftDiagnoser` with
    tolerance τ = TOL, between the audit's held-out rows of the source table (which the model
    did not train on) and the target table, both as the audit preprocessed them. It tests
    whether a subgroup (of at least 5 % of each domain) sees the model's 0-1 loss rise by more
    than τ because of covariate shift or because of outcome shift ("where"; Singh et al., ICML
    2025, arXiv:2506.00756), describes the subgroup of each test that rejects as a rule over the
    preprocessed columns (``numeric__age > 0.41``: numeric columns are standardised, one-hot
    columns are 0/1), and then tests which preprocessed column explains that shift ("how", one
    subset per column, Holm-adjusted). The loss is computed from ``predict_proba``: a model
    without it fails the check with the reason.

    Parameters
    ----------
    model : fitted binary classifier with ``predict_proba`` and ``classes_``
        When its ``predict_proba`` takes ``sensitive_features``, it gets each domain's.
    X : ndarray of shape (n_samples, n_features)
        The audit's preprocessed test rows of the source table.
    y : ndarray of shape (n_samples,)
        Their labels, 0/1.
    sensitive_features : DataFrame
        Their sensitive columns.
    option : float >= 0, None or "default"
        The tolerance τ; None or ``"default"``: :data:`DEFAULT_TOLERANCE` (0.05).
    random_state : int, RandomState instance or None
        The seed of the diagnosis (its splits, nuisance models and bootstrap).
    target : Bunch, default=None
        The target table as the audit preprocessed it: ``X``, ``y`` (0/1 with the source's
        positive label) and ``sensitive_features``. None (no target data) fails the check.
    feature_names : list of str, default=None
        The names of X's columns, used in the rules; None: the diagnoser's default names.

    Returns
    -------
    table : DataFrame
        :meth:`SubgroupShiftDiagnoser.summary` (one row per test) indexed by ``(level,
        decomposition, subset)``, with the rule of the subgroup each rejecting test found
        (``subgroup``, on its "where" row) and the rule's agreement with the detector it
        describes (``subgroup_fidelity``).

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from fairkit_shift import make_subgroup_shift
    >>> from fairkit_shift._audit import shift_check
    >>> data = make_subgroup_shift("outcome", n_samples=2000, rise=0.4, random_state=0)
    >>> X, X_target = data.X_source.to_numpy(), data.X_target.to_numpy()  # arrays, as the audit has them
    >>> model = LogisticRegression().fit(X, data.y_source)
    >>> target = {"X": X_target, "y": data.y_target.to_numpy(), "sensitive_features": None}
    >>> table = shift_check(model, X, data.y_source.to_numpy(), None, option=0.05, random_state=0,
    ...                     target=target, feature_names=list(data.X_source))
    >>> rows = table.reset_index()
    >>> rows.loc[rows["reject"], ["level", "decomposition", "subset"]].to_numpy().tolist()
    [['where', 'outcome', 'all'], ['how', 'outcome', 'x1']]
    >>> "x1 >" in rows["subgroup"][1]  # where: an outcome shift in G = {x1 > 1.28}; how: through x1
    True
    """
    tolerance = _tolerance(option)
    if target is None:
        raise ValueError("the shift check compares the audited table with a table from a target domain, and "
                         "none was given: add --target-csv PATH (audit(..., target_data=...)).")
    if not hasattr(model, "predict_proba"):
        raise TypeError(f"the shift check needs the model's probabilities to measure its loss, and "
                        f"{type(model).__name__} has no predict_proba.")
    X_target = np.asarray(target["X"])
    if feature_names is not None:
        columns = [str(name) for name in feature_names]
        X, X_target = pd.DataFrame(np.asarray(X), columns=columns), pd.DataFrame(X_target, columns=columns)
    scored = _ModelOnDomains(model, [(X, sensitive_features), (X_target, target["sensitive_features"])])
    diagnoser = SubgroupShiftDiagnoser(tolerance=tolerance, random_state=random_state)
    diagnoser.fit(X, np.asarray(y), X_target, np.asarray(target["y"]), scored)
    table = diagnoser.summary()
    rules = {rule.decomposition: rule for rule in diagnoser.subgroups_}
    where = table["level"] == "where"
    table["subgroup"] = [rules[name].text if found and name in rules else None
                         for name, found in zip(table["decomposition"], where, strict=True)]
    table["subgroup_fidelity"] = [rules[name].fidelity if found and name in rules else np.nan
                                  for name, found in zip(table["decomposition"], where, strict=True)]
    return table.set_index(["level", "decomposition", "subset"])


def _tolerance(option):
    """The tolerance τ that the check's option gives, or a ValueError that says what the option is."""
    if option is None or (isinstance(option, str) and option == "default"):
        return DEFAULT_TOLERANCE
    if isinstance(option, bool) or not isinstance(option, numbers.Real) or not 0 <= option < np.inf:
        raise ValueError(f"the shift check's option is the tolerance TOL, the rise of a subgroup's loss that "
                         f"is tolerated: a number of at least 0 (such as --check shift=0.05), or 'default' "
                         f"({DEFAULT_TOLERANCE}); got {option!r}.")
    return float(option)


class _ModelOnDomains:
    """The audited model as the diagnoser calls it: ``predict_proba`` on the rows of either domain.

    The rows reach the model as an array, as the audit fitted it (a DataFrame's column names are
    for the rules only); a model whose ``predict_proba`` takes ``sensitive_features`` gets those of
    the domain whose rows it is given (recognised by their values).
    """

    def __init__(self, model, domains):
        self.model = model
        self.classes_ = getattr(model, "classes_", None)
        self.domains = [(np.asarray(X, dtype=float), groups) for X, groups in domains]
        try:
            self.grouped = "sensitive_features" in inspect.signature(model.predict_proba).parameters
        except (TypeError, ValueError):  # no signature to read
            self.grouped = False

    def predict_proba(self, X):
        X = np.asarray(X, dtype=float)
        if not self.grouped:
            return self.model.predict_proba(X)
        for rows, groups in self.domains:
            if rows.shape == X.shape and np.array_equal(rows, X, equal_nan=True):
                return self.model.predict_proba(X, sensitive_features=groups)
        raise ValueError(f"{type(self.model).__name__} needs the sensitive features of the rows it scores, "
                         "and the shift check knows them only for the whole of each domain.")
