"""Attribution disparity: which features drive the predictions, and how differently, for each group.

With Shapley values for every prediction, such as those ViaSHAP returns (A. Alkhatib, R. Bresson,
H. Boström, M. Vazirgiannis, "Prediction via Shapley Value Regression", ICML 2025,
arXiv:2505.04775), a model can be asked per group how much each feature moves its decisions.
"""

import numpy as np
import pandas as pd
from sklearn.utils import check_array

from fairkit.utils.validation import check_sensitive_features, encode_groups

__all__ = ["attribution_disparity"]


def _check_feature_names(feature_names, n_features):
    if feature_names is None:
        return [f"feature_{j}" for j in range(n_features)]
    names = list(np.asarray(feature_names, dtype=object).ravel())
    if len(names) != n_features:
        raise ValueError(f"feature_names has {len(names)} names but shap_values has {n_features} features; "
                         "give one name per column of shap_values (or None for feature_0, feature_1, ...).")
    if len(set(names)) != len(names):
        duplicated = sorted({str(name) for name in names if names.count(name) > 1})
        raise ValueError(f"feature_names must be unique; repeated: {', '.join(duplicated)}.")
    return names


def attribution_disparity(shap_values, sensitive_features, feature_names=None):
    """Mean absolute attribution per group and feature, its share, and the largest gap between groups.

    For group ``g`` and feature ``j``: ``mean_abs = mean over the group's rows of |φ_j(x)|`` and
    ``share = mean_abs / Σ_j mean_abs`` (the part of the group's total attribution that feature
    ``j`` carries; NaN for a group whose attributions are all zero). The gaps are, per feature,
    the largest minus the smallest of these over the groups (groups with an undefined share are
    left out of the share gap).

    Parameters
    ----------
    shap_values : array-like of shape (n_samples, n_features)
        One row of Shapley values per prediction, e.g. ``ViaSHAPClassifier.shap_values(X)``. For a
        multiclass model's (n_samples, n_features, n_classes) values pass one class,
        ``shap_values[:, :, k]``: a 3-D array is refused, as attributions of different classes do
        not add up to a meaningful total.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_columns)
        The group of each row; several columns give intersectional groups (tuples).
    feature_names : array-like of str of shape (n_features,), default=None
        Names of the features (e.g. the estimator's ``feature_names_in_``); default
        ``feature_0, feature_1, ...``.

    Returns
    -------
    DataFrame of shape (n_features, 2 * n_groups + 2)
        Indexed by feature (index name ``"feature"``), with two column levels
        ``("statistic", "group")``: ``("mean_abs", g)`` and ``("share", g)`` for each group ``g``
        (sorted as :func:`fairkit.utils.validation.encode_groups` sorts them), then
        ``("gap", "mean_abs")`` and ``("gap", "share")``. ``frame["share"]`` is the table of shares.

    Examples
    --------
    >>> import numpy as np
    >>> phi = np.array([[1.0, -1.0], [3.0, 1.0], [0.0, 2.0], [1.0, -2.0]])
    >>> frame = attribution_disparity(phi, ["a", "a", "b", "b"], feature_names=["age", "income"])
    >>> frame["mean_abs"]  # doctest: +NORMALIZE_WHITESPACE
    group     a    b
    feature
    age     2.0  0.5
    income  1.0  2.0
    >>> frame["share"].round(3)  # doctest: +NORMALIZE_WHITESPACE
    group       a    b
    feature
    age     0.667  0.2
    income  0.333  0.8
    >>> frame["gap"].round(3)  # doctest: +NORMALIZE_WHITESPACE
    group    mean_abs  share
    feature
    age           1.5  0.467
    income        1.0  0.467
    """
    phi = np.asarray(shap_values)
    if phi.ndim == 3:
        raise ValueError(f"shap_values has shape {phi.shape}, a multiclass model's values; pass one class, "
                         "shap_values[:, :, k], to compare the groups' attributions for class k.")
    phi = check_array(phi, dtype=np.float64, input_name="shap_values")
    names = _check_feature_names(feature_names, phi.shape[1])
    frame = check_sensitive_features(sensitive_features, phi.shape[0], samples_of="shap_values")
    groups, codes = encode_groups(frame)

    sums = np.zeros((len(groups), phi.shape[1]))
    np.add.at(sums, codes, np.abs(phi))
    mean_abs = sums / np.bincount(codes, minlength=len(groups))[:, None]  # (n_groups, n_features)
    totals = mean_abs.sum(axis=1, keepdims=True)
    share = np.divide(mean_abs, totals, out=np.full_like(mean_abs, np.nan), where=totals > 0)
    return pd.DataFrame(
        np.column_stack([mean_abs.T, share.T, _gap(mean_abs), _gap(share)]),
        index=pd.Index(names, dtype=object, name="feature", tupleize_cols=False),
        columns=_columns(list(groups)),
    )


def _columns(groups):
    """The (statistic, group) columns, built from levels and codes so that tuple groups stay whole."""
    labels = groups + [name for name in ("mean_abs", "share") if name not in groups]
    position = {label: i for i, label in enumerate(labels)}
    n = len(groups)
    return pd.MultiIndex(
        levels=[pd.Index(["mean_abs", "share", "gap"]), pd.Index(labels, dtype=object, tupleize_cols=False)],
        codes=[[0] * n + [1] * n + [2, 2], [*range(n), *range(n), position["mean_abs"], position["share"]]],
        names=["statistic", "group"],
    )


def _gap(per_group):
    """Per feature, the largest minus the smallest value over the groups (rows), leaving out NaN."""
    frame = pd.DataFrame(per_group)
    return (frame.max() - frame.min()).to_numpy()
