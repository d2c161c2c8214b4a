"""Attribution disparity: which features drive the predictions, and how differently, for each group.

With Shapley values for every prediction, such as those ViaSHAP returns (A. Alkhatib, R. Bresson,
H. Boström, M. Vazirgiannis, "Prediction via Shapley Value Regression", ICML 2025,
arXiv:2505.04775), a model can be asked per group how much each feature moves its decisions.
"""

import numpy as np
import pandas as pd
from scipy.stats import t as student_t
from sklearn.utils import check_array

from fairkit.metrics._uncertainty import check_level
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


def attribution_disparity(shap_values, sensitive_features, feature_names=None, *, ci=None):
    """Mean absolute attribution per group and feature, its share, and the largest gap between groups.

    For group ``g`` and feature ``j``: ``mean_abs = mean over the group's rows of |φ_j(x)|`` and
    ``share = mean_abs / Σ_j mean_abs`` (the part of the group's total attribution that feature
    ``j`` carries; NaN for a group whose attributions are all zero). The gaps are, per feature,
    the largest minus the smallest of these over the groups (groups with an undefined share are
    left out of the share gap).

    With ``ci``, each group's ``mean_abs`` gets a Student t interval, at a level raised
    (Bonferroni) so that the intervals of every group and feature hold at once with probability
    at least ``ci`` (approximately: the t interval of a mean is asymptotic), and each feature's
    gap the range of largest-minus-smallest values when every group's mean lies in its
    interval, as fairkit's group metrics do. A gap whose lower end is above 0 is larger than
    the sampling of the rows explains; the model, and so φ, is taken as fixed. A group of one
    row has no interval (NaN); shares get none.

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
    ci : float in (0, 1), default=None
        Add simultaneous intervals of ``mean_abs`` and its gap at this level.

    Returns
    -------
    DataFrame of shape (n_features, 2 * n_groups + 2), or (n_features, 4 * n_groups + 4) with ``ci``
        Indexed by feature (index name ``"feature"``), with two column levels
        ``("statistic", "group")``: ``("mean_abs", g)`` and ``("share", g)`` for each group ``g``
        (sorted as :func:`fairkit.utils.validation.encode_groups` sorts them), then
        ``("gap", "mean_abs")`` and ``("gap", "share")``. ``frame["share"]`` is the table of shares.
        With ``ci``, also ``("mean_abs_low", g)`` and ``("mean_abs_high", g)`` after the shares, and
        ``("gap", "mean_abs_low")`` and ``("gap", "mean_abs_high")`` at the end (2 * n_groups + 2 more).

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
    if ci is not None:
        check_level(ci, "ci")
    frame = check_sensitive_features(sensitive_features, phi.shape[0], samples_of="shap_values")
    groups, codes = encode_groups(frame)

    sizes = np.bincount(codes, minlength=len(groups))[:, None]
    mean_abs = _group_sums(np.abs(phi), codes, len(groups)) / sizes  # (n_groups, n_features)
    totals = mean_abs.sum(axis=1, keepdims=True)
    share = np.divide(mean_abs, totals, out=np.full_like(mean_abs, np.nan), where=totals > 0)
    per_group, gaps = [mean_abs.T, share.T], [_gap(mean_abs), _gap(share)]
    if ci is not None:
        low, high = _mean_intervals(np.abs(phi), codes, mean_abs, sizes, ci)
        per_group += [low.T, high.T]
        gaps += list(np.array([_gap_bounds(low[:, j], high[:, j]) for j in range(phi.shape[1])]).T)
    return pd.DataFrame(
        np.column_stack(per_group + gaps),
        index=pd.Index(names, dtype=object, name="feature", tupleize_cols=False),
        columns=_columns(list(groups), ci is not None),
    )


def _group_sums(values, codes, n_groups):
    sums = np.zeros((n_groups, values.shape[1]))
    np.add.at(sums, codes, values)
    return sums


def _mean_intervals(values, codes, means, sizes, ci):
    """Student t intervals of each group's mean of ``values``, Bonferroni over groups and features."""
    level = 1 - (1 - ci) / means.size
    squares = _group_sums((values - means[codes]) ** 2, codes, len(means))
    with np.errstate(invalid="ignore", divide="ignore"):  # a group of one row: no interval
        half = student_t.ppf((1 + level) / 2, sizes - 1) * np.sqrt(squares / (sizes - 1) / sizes)
    return means - half, means + half


def _gap_bounds(low, high):
    """Bounds of the largest minus the smallest group mean when each lies in [low, high] (NaN if any is)."""
    if np.isnan(low).any():
        return np.nan, np.nan
    return max(0.0, low.max() - high.min()), high.max() - low.min()


def _columns(groups, with_intervals):
    """The (statistic, group) columns, built from levels and codes so that tuple groups stay whole.

    Each statistic has a column per group, then the gap (level "gap") of each statistic.
    """
    statistics = ["mean_abs", "share", *(["mean_abs_low", "mean_abs_high"] if with_intervals else [])]
    labels = groups + [name for name in statistics if name not in groups]
    position = {label: i for i, label in enumerate(labels)}
    n, m = len(groups), len(statistics)
    return pd.MultiIndex(
        levels=[pd.Index([*statistics, "gap"]), pd.Index(labels, dtype=object, tupleize_cols=False)],
        codes=[[i for i in range(m) for _ in range(n)] + [m] * m,
               [*range(n)] * m + [position[name] for name in statistics]],
        names=["statistic", "group"],
    )


def _gap(per_group):
    """Per feature, the largest minus the smallest value over the groups (rows), leaving out NaN."""
    frame = pd.DataFrame(per_group)
    return (frame.max() - frame.min()).to_numpy()
