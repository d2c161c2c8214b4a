"""The max-statistic Gaussian multiplier bootstrap over candidate subgroups, and Holm's adjustment.

Singh et al., "'Who experiences large model decay and why?'", ICML 2025 (arXiv:2506.00756) test
H₀: θ(d̂_k) ≤ 0 for all K candidates with T̂ = max_k θ̂_k, calibrated by the multiplier bootstrap of
max_k (θ̂_k − θ_k). With C the N × K matrix of the candidates' influence functions (column k:
[φ_S,k / n_s ; φ_T,k / n_t]), a multiplier draw ξ ~ N(0, I_N) gives ξᵀC ~ N(0, Σ) exactly, Σ = CᵀC; so
the bootstrap draws B × K normals with covariance Σ instead of N × B multipliers (memory O(BK)).
"""

import numbers
from typing import NamedTuple

import numpy as np
from sklearn.utils import check_scalar

from fairkit.utils import local_generator
from fairkit_shift._estimators import ShiftEstimate

__all__ = ["MaxTest", "holm", "max_multiplier_test"]


class MaxTest(NamedTuple):
    """Result of the one-sided max test over candidates.

    Attributes
    ----------
    statistic : float
        T̂ = max_k of the one-step estimates (NaN when no candidate is left).
    critical_value : float
        The 1 − α quantile of the bootstrap max (NaN when no candidate is left).
    p_value : float
        (1 + #{T* ≥ T̂}) / (1 + B); 1 when no candidate is left.
    reject : bool
        ``p_value <= alpha``.
    argmax : int
        Index of the candidate attaining T̂ among all K (NaN ones included); −1 when none is left.
    """

    statistic: float
    critical_value: float
    p_value: float
    reject: bool
    argmax: int


def max_multiplier_test(estimate, *, alpha=0.05, n_bootstrap=10000, random_state=None):
    """Test H₀: θ_k ≤ 0 for every candidate k, by the Gaussian multiplier bootstrap of the max.

    Candidates whose one-step estimate is NaN are left out.

    Parameters
    ----------
    estimate : ShiftEstimate
        One-step estimates and influence functions of the K candidates.
    alpha : float, default=0.05
        Level of the test.
    n_bootstrap : int, default=10000
        Number of bootstrap draws B.
    random_state : int, RandomState instance or None, default=None
        Seeds the draws (``fairkit.utils.local_generator``).

    Returns
    -------
    MaxTest

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit_shift._bootstrap import max_multiplier_test
    >>> from fairkit_shift._estimators import outcome_shift_estimate
    >>> rng = np.random.default_rng(0)
    >>> loss_source, loss_target = rng.binomial(1, [[0.2], [0.4]], size=(2, 400)).astype(float)
    >>> est = outcome_shift_estimate(np.ones(400, bool), np.ones(400, bool), loss_source, np.full(400, 0.2),
    ...                              loss_target, np.full(400, 0.2), np.ones(400), 0.05)
    >>> test = max_multiplier_test(est, random_state=0)
    >>> bool(test.reject), test.argmax
    (True, 0)
    """
    if not isinstance(estimate, ShiftEstimate):
        raise TypeError(f"estimate must be a ShiftEstimate (from fairkit_shift._estimators); got "
                        f"{type(estimate).__name__}.")
    check_scalar(alpha, "alpha", numbers.Real, min_val=0, max_val=1, include_boundaries="neither")
    check_scalar(n_bootstrap, "n_bootstrap", numbers.Integral, min_val=1)
    kept = np.flatnonzero(~np.isnan(estimate.onestep))
    if kept.size == 0:
        return MaxTest(np.nan, np.nan, 1.0, False, -1)
    onestep = estimate.onestep[kept]
    covariance = ShiftEstimate(*(field[..., kept] for field in estimate)).covariance()
    draws = local_generator(random_state).multivariate_normal(
        np.zeros(kept.size), covariance, size=n_bootstrap, method="eigh", check_valid="ignore")
    maxima = draws.max(axis=1)
    best = int(np.argmax(onestep))
    statistic = float(onestep[best])
    p_value = (1 + np.count_nonzero(maxima >= statistic)) / (1 + n_bootstrap)
    return MaxTest(statistic, float(np.quantile(maxima, 1 - alpha)), p_value, bool(p_value <= alpha),
                   int(kept[best]))


def holm(p_values):
    """Holm's step-down adjusted p-values: max_{j ≤ i} min(1, (m − j + 1) p_(j)) for the i-th smallest.

    Rejecting the hypotheses whose adjusted p-value is at most α controls the family-wise error at α.

    Parameters
    ----------
    p_values : array-like of shape (m,)
        Raw p-values in [0, 1].

    Returns
    -------
    ndarray of shape (m,)
        Adjusted p-values, in the input's order.

    Examples
    --------
    >>> from fairkit_shift._bootstrap import holm
    >>> holm([0.01, 0.04, 0.03, 0.005])
    array([0.03, 0.06, 0.06, 0.02])
    """
    p_values = np.asarray(p_values, dtype=float)
    if p_values.ndim != 1 or not np.all((p_values >= 0) & (p_values <= 1)):
        raise ValueError(f"p_values must be a 1-D array of p-values in [0, 1]; got shape {p_values.shape}"
                         f"{'' if p_values.ndim != 1 else f' with values {p_values[:5].tolist()}'}.")
    order = np.argsort(p_values, kind="stable")
    scaled = (len(p_values) - np.arange(len(p_values))) * p_values[order]
    adjusted = np.empty_like(p_values)
    adjusted[order] = np.minimum(1.0, np.maximum.accumulate(scaled))
    return adjusted
