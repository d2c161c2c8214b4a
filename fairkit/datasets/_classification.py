"""A synthetic binary classification problem whose features and labels depend on a group."""

import numbers

import numpy as np
import pandas as pd
from scipy.special import expit

from fairkit.utils._random import local_random_state
from fairkit.utils._sklearn_compat import Interval, validate_params

__all__ = ["make_fair_classification"]


@validate_params(
    {
        "n_samples": [Interval(numbers.Integral, 1, None, closed="left")],
        "n_features": [Interval(numbers.Integral, 1, None, closed="left")],
        "n_groups": [Interval(numbers.Integral, 1, None, closed="left")],
        "group_weights": ["array-like", None],
        "label_bias": [Interval(numbers.Real, None, None, closed="neither")],
        "feature_bias": [Interval(numbers.Real, None, None, closed="neither")],
        "class_sep": [Interval(numbers.Real, 0, None, closed="left")],
        "random_state": ["random_state"],
        "as_frame": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def make_fair_classification(n_samples=1000, n_features=10, *, n_groups=2, group_weights=None,
                             label_bias=0.5, feature_bias=0.5, class_sep=2.0, random_state=None,
                             as_frame=False):
    """Generate a binary classification problem with a tunable dependence on a group.

    Each sample gets a group ``A`` in ``{0, ..., n_groups - 1}`` and a group score
    ``s_A``: the groups' scores are evenly spaced in [-1, 1] (``s_0 = -1``,
    ``s_{n_groups-1} = 1``; ``s = 0`` for a single group). With ``u`` a random unit
    vector in feature space and ``Z ~ N(0, I)``,

    .. math::

        X = Z + \\text{feature_bias} \\cdot s_A \\, u, \\qquad
        P(Y = 1 \\mid X, A) = \\sigma(\\text{class_sep} \\cdot u^\\top X
        + \\text{label_bias} \\cdot s_A).

    So ``feature_bias`` moves the groups apart in feature space along the
    informative direction (the features become proxies of the group, and the
    group changes ``Y`` through them: with ``label_bias=0``, ``Y`` is independent
    of ``A`` given ``X``), and ``label_bias`` adds a direct effect of the group on
    the label (with ``feature_bias=0``, ``X`` is independent of ``A``). With both
    at 0 the groups are identically distributed. The true posterior above is a
    logistic model in ``(X, s_A)``, so the Bayes-optimal classifier is known.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of samples.
    n_features : int, default=10
        Number of features.
    n_groups : int, default=2
        Number of groups.
    group_weights : array-like of shape (n_groups,), default=None
        Probability of each group (normalised to sum to 1); ``None`` is uniform.
    label_bias : float, default=0.5
        Direct effect of the group on the log-odds of ``Y = 1``.
    feature_bias : float, default=0.5
        Shift of the group means along ``u``; the two outermost groups' means are
        ``2 * feature_bias`` apart.
    class_sep : float, default=2.0
        Weight of the informative direction in the log-odds (larger is easier).
    random_state : int, RandomState instance or None, default=None
        Seed for reproducible output.
    as_frame : bool, default=False
        Return a DataFrame (columns ``x0, x1, ...``) and Series (``y``, ``group``).

    Returns
    -------
    X : ndarray or DataFrame of shape (n_samples, n_features)
        The features.
    y : ndarray or Series of shape (n_samples,)
        Binary labels in {0, 1}.
    sensitive_features : ndarray or Series of shape (n_samples,)
        The group of each sample, in {0, ..., n_groups - 1}.

    Examples
    --------
    >>> from fairkit.datasets import make_fair_classification
    >>> X, y, group = make_fair_classification(500, 3, label_bias=2.0, random_state=0)
    >>> X.shape, y.shape, group.shape
    ((500, 3), (500,), (500,))
    >>> bool(y[group == 1].mean() > y[group == 0].mean())
    True
    """
    rng = local_random_state(random_state)
    if group_weights is None:
        group_weights = np.full(n_groups, 1.0 / n_groups)
    else:
        group_weights = np.asarray(group_weights, dtype=float)
        if group_weights.shape != (n_groups,) or (group_weights < 0).any() or \
                not group_weights.sum() > 0:
            raise ValueError(f"group_weights must hold {n_groups} non-negative numbers with a "
                             f"positive sum (one per group), got {group_weights.tolist()}.")
        group_weights = group_weights / group_weights.sum()
    scores = np.linspace(-1.0, 1.0, n_groups) if n_groups > 1 else np.zeros(1)

    direction = rng.standard_normal(n_features)
    direction /= np.linalg.norm(direction)
    group = rng.choice(n_groups, size=n_samples, p=group_weights)
    shift = scores[group]
    X = rng.standard_normal((n_samples, n_features)) + feature_bias * shift[:, None] * direction
    logits = class_sep * (X @ direction) + label_bias * shift
    y = (rng.random(n_samples) < expit(logits)).astype(np.int64)

    if as_frame:
        X = pd.DataFrame(X, columns=[f"x{j}" for j in range(n_features)])
        return X, pd.Series(y, name="y"), pd.Series(group, name="group")
    return X, y, group
