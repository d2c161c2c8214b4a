"""Subgroup detectors of SHIFT: the covariate-shift family d_{ω,λ} and the outcome-shift residual detector.

H. Singh, F. Xia, A. Gossmann, A. Chuang, J. C. Hong, J. Feng, "'Who experiences large model decay
and why?' A hierarchical framework for diagnosing heterogeneous performance drift", ICML 2025
(arXiv:2506.00756).

Covariate shift. With Z₀(x) = E_S[L | X = x], the density ratio w = p_T / p_S and a baseline ratio
b (1 for the aggregate test, the ratio w₋ₛ of X₋ₛ for a stage-2 test), the detectors are

    d_{ω,λ}(x) = 1[r_{ω,λ}(x) > 0],   r_{ω,λ}(x) = (Z₀(x) − λ)(ω w(x) − b(x)) − τ b(x).

For ω = P_S(d) / P_T(d) the constraint E_S[d (ω w − 1)] = 0 makes E_S[d r] / P_S(d) the subgroup's
rise θ_X(d) for every λ, and λ is the multiplier of that constraint: λ*(ω) minimises
Σ_{S-tr} max(0, r_{ω,λ}). Deviations from the reference code (``jjfeng/shift``, ``detectors.py``,
``estimate_datashifter.py``), each exact where the reference approximates:

* λ*(ω) is the exact left-most minimiser (a weighted quantile, :func:`optimal_lambda`), not the best
  of 500 points of [−5, 5];
* ω runs over a log-spaced grid on [ε, 1/ε] and 1 (ε = ``min_prevalence``: any subgroup of
  prevalence ≥ ε in both domains has P_S(d) / P_T(d) there), not 2,000 points of [0, 100];
* candidates are ranked by the direct training estimate of θ_X, not by the dual score, and
  identical masks are kept once (the reference's top 5 are often one subgroup).

As in the reference, λ* is fitted on the source training half, and the prevalence filter
(≥ ε in both domains) and the ranking use the training halves of both domains.

Outcome shift. A regression of the residual L − Z₀(X) − τ on X over the target training half; the
detector is 1[prediction > 0] (the reference's gradient boosting regressor of depth 2, 200 trees).
"""

import numbers
from dataclasses import dataclass

import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.utils import check_array, check_consistent_length, check_scalar

from fairkit_shift._nuisance import _seed, _with_seed

__all__ = ["CovariateDetectors", "covariate_candidates", "detect_outcome", "fit_outcome_detector",
           "omega_grid", "optimal_lambda"]

# ω values per chunk times rows stays below this many elements (a few float arrays of 8 MB each).
_CHUNK_ELEMENTS = 2**20


def _vector(values, name, n_samples=None, positive=False):
    """A finite 1-D float array, refused with a message naming ``name`` otherwise."""
    array = check_array(values, ensure_2d=False, dtype=np.float64, input_name=name)
    if array.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one value per sample); got shape {array.shape}.")
    if n_samples is not None and len(array) != n_samples:
        raise ValueError(f"{name} has {len(array)} values; it must have one per sample ({n_samples}).")
    if positive and not (array > 0).all():
        raise ValueError(f"{name} must be positive (a density ratio); its smallest value is {array.min()}.")
    return array


def optimal_lambda(z0, a, b, tolerance):
    """The exact minimiser λ* of f(λ) = Σᵢ max(0, aᵢ (z0ᵢ − λ) − τ bᵢ), for each row of ``a``.

    f is convex and piecewise linear with knots kᵢ = z0ᵢ − τ bᵢ / aᵢ (aᵢ ≠ 0); its right slope at λ
    is −A₊ + Σ_{kᵢ ≤ λ} |aᵢ|, A₊ = Σ_{aᵢ > 0} aᵢ. The left-most minimiser is therefore the smallest
    knot at which the cumulative |a| (knots sorted) reaches A₊: a weighted quantile, O(N log N).
    When no aᵢ is positive the minimisers form a half-line (−∞, min_{aᵢ<0} kᵢ] (all of ℝ when every
    aᵢ is 0); min z0 is returned, a minimiser at which no residual is positive (the detector is
    empty, exactly). At a knot λ* the samples of that knot have r = 0, up to rounding.

    Parameters
    ----------
    z0 : array-like of shape (n_samples,)
        Expected source losses Z₀.
    a : array-like of shape (n_omegas, n_samples) or (n_samples,)
        Slopes ω w − b, one row per ω.
    b : array-like of shape (n_samples,) or float
        Baseline ratio (1 for the aggregate test).
    tolerance : float
        τ.

    Returns
    -------
    lambdas : ndarray of shape (n_omegas,), or float for a 1-D ``a``

    Examples
    --------
    >>> from fairkit_shift._detectors import optimal_lambda
    >>> # f(λ) = max(0, 0.9 - λ) + 2 max(0, λ - 0.1): slope -1 up to 0.1, +1 from 0.1 to 0.9
    >>> float(optimal_lambda([0.9, 0.1], [1.0, -2.0], 1.0, 0.0))
    0.1
    """
    z0 = np.asarray(z0, dtype=np.float64)
    a = np.asarray(a, dtype=np.float64)
    one_row = a.ndim == 1
    a = np.atleast_2d(a)
    b = np.broadcast_to(np.asarray(b, dtype=np.float64), z0.shape)
    if a.ndim != 2 or a.shape[1] != len(z0):
        raise ValueError(f"a must have shape (n_omegas, {len(z0)}) to match z0; got {a.shape}.")
    nonzero = a != 0
    shift = np.divide(tolerance * b, a, out=np.zeros_like(a), where=nonzero)
    knots = np.where(nonzero, z0 - shift, np.inf)
    order = np.argsort(knots, axis=1, kind="stable")
    sorted_knots = np.take_along_axis(knots, order, axis=1)
    cumulative = np.cumsum(np.take_along_axis(np.abs(a), order, axis=1), axis=1)
    positive_mass = np.where(a > 0, a, 0.0).sum(axis=1)
    # rounding of the running sum must not push the crossing past a knot where it is reached exactly
    slack = a.shape[1] * np.finfo(np.float64).eps * cumulative[:, -1]
    first = np.argmax(cumulative >= (positive_mass - slack)[:, None], axis=1)
    lambdas = np.where(positive_mass > 0, sorted_knots[np.arange(len(a)), first], z0.min())
    return float(lambdas[0]) if one_row else lambdas


def omega_grid(min_prevalence, n_omegas):
    """The ω grid: ``n_omegas`` log-spaced points on [ε, 1/ε], and 1.

    A subgroup with prevalence at least ε in both domains has ω = P_S(d) / P_T(d) in [ε, 1/ε].

    Parameters
    ----------
    min_prevalence : float in (0, 1)
        ε.
    n_omegas : int >= 2
        Number of log-spaced points.

    Returns
    -------
    omegas : ndarray, sorted

    Examples
    --------
    >>> from fairkit_shift._detectors import omega_grid
    >>> omega_grid(0.1, 2).tolist()
    [0.1, 1.0, 10.0]
    """
    check_scalar(min_prevalence, "min_prevalence", numbers.Real, min_val=0, max_val=1,
                 include_boundaries="neither")
    check_scalar(n_omegas, "n_omegas", numbers.Integral, min_val=2)
    return np.union1d(np.geomspace(min_prevalence, 1 / min_prevalence, n_omegas), [1.0])


def _residuals(z0, lambdas, omegas, ratio, baseline, tolerance):
    """r of shape (n_samples, K): (z0 − λ)(ω ratio − b) − τ b."""
    baseline = baseline[:, None]
    return (z0[:, None] - lambdas) * (omegas * ratio[:, None] - baseline) - tolerance * baseline


@dataclass(frozen=True, eq=False)
class CovariateDetectors:
    """K covariate-shift detectors d_k(x) = 1[(Z₀(x) − λ_k)(ω_k w(x) − b(x)) − τ b(x) > 0].

    Made by :func:`covariate_candidates`.

    Attributes
    ----------
    omegas, lambdas : ndarray of shape (K,)
        ω_k and λ_k.
    tolerance : float
        τ.
    train_estimates : ndarray of shape (K,)
        The direct training estimate of each subgroup's rise (its ranking score), descending.
    """

    omegas: np.ndarray
    lambdas: np.ndarray
    tolerance: float
    train_estimates: np.ndarray

    def __len__(self):
        return len(self.omegas)

    def detect(self, z0, ratio, baseline_ratio=None):
        """Which samples each detector selects.

        Parameters
        ----------
        z0 : array-like of shape (n_samples,)
            Expected source losses Z₀.
        ratio : array-like of shape (n_samples,)
            Density ratio w (positive).
        baseline_ratio : array-like of shape (n_samples,), default=None
            The stage-2 baseline w₋ₛ (positive); None: 1 (the aggregate test).

        Returns
        -------
        detected : ndarray of bool, shape (n_samples, K)
        """
        z0 = _vector(z0, "z0")
        ratio = _vector(ratio, "ratio", len(z0), positive=True)
        baseline = (np.ones_like(z0) if baseline_ratio is None
                    else _vector(baseline_ratio, "baseline_ratio", len(z0), positive=True))
        return _residuals(z0, self.lambdas, self.omegas, ratio, baseline, self.tolerance) > 0


def covariate_candidates(z0_source, ratio_source, z0_target, ratio_target, *, tolerance, min_prevalence,
                         max_candidates=5, n_omegas=200, baseline_ratio_source=None,
                         baseline_ratio_target=None):
    """Search the covariate-shift detector family on the training halves and keep the best subgroups.

    For each ω of :func:`omega_grid`, λ*(ω) is solved exactly on the source training half
    (:func:`optimal_lambda`, as the reference fits λ on the source training data); the detector is
    evaluated on both training halves; detectors with prevalence below ε in either half are dropped;
    identical masks are kept once (the smallest ω); the rest are ranked by the direct training
    estimate of the rise, mean_{T,d} Z₀ − mean_{S,d} Z₀ − τ (with the baseline ratio, the source mean
    is weighted by b: the hybrid distribution of the stage-2 test), and the top ``max_candidates``
    are returned. ω is processed in chunks, vectorised within each.

    Parameters
    ----------
    z0_source, ratio_source : array-like of shape (n_source,)
        Z₀ and the density ratio w on the source training half.
    z0_target, ratio_target : array-like of shape (n_target,)
        The same on the target training half.
    tolerance : float >= 0
        τ.
    min_prevalence : float in (0, 1)
        ε.
    max_candidates : int >= 1, default=5
        Number of detectors kept.
    n_omegas : int >= 2, default=200
        Log-spaced points of the ω grid.
    baseline_ratio_source, baseline_ratio_target : array-like, default=None
        The stage-2 baseline ratio w₋ₛ on each training half (both or neither); None: 1.

    Returns
    -------
    CovariateDetectors
        K <= ``max_candidates`` detectors, best first (K = 0 when none is admissible).

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit_shift._detectors import covariate_candidates
    >>> rng = np.random.default_rng(0)
    >>> x_source, x_target = rng.normal(size=4000), rng.normal(0.5, 1.0, size=4000)
    >>> def z0(x):
    ...     return 0.1 + 0.8 * (x > 1)
    >>> def ratio(x):
    ...     return np.exp(0.5 * x - 0.125)
    >>> found = covariate_candidates(z0(x_source), ratio(x_source), z0(x_target), ratio(x_target),
    ...                              tolerance=0.05, min_prevalence=0.05)
    >>> len(found), bool(found.train_estimates[0] > 0.1)
    (5, True)
    """
    check_scalar(tolerance, "tolerance", numbers.Real, min_val=0)
    check_scalar(max_candidates, "max_candidates", numbers.Integral, min_val=1)
    omegas = omega_grid(min_prevalence, n_omegas)
    z0_source = _vector(z0_source, "z0_source")
    z0_target = _vector(z0_target, "z0_target")
    ratio_source = _vector(ratio_source, "ratio_source", len(z0_source), positive=True)
    ratio_target = _vector(ratio_target, "ratio_target", len(z0_target), positive=True)
    if (baseline_ratio_source is None) != (baseline_ratio_target is None):
        raise ValueError("give baseline_ratio_source and baseline_ratio_target together (stage 2), "
                         "or neither.")
    if baseline_ratio_source is None:
        base_source, base_target = np.ones_like(z0_source), np.ones_like(z0_target)
    else:
        base_source = _vector(baseline_ratio_source, "baseline_ratio_source", len(z0_source), positive=True)
        base_target = _vector(baseline_ratio_target, "baseline_ratio_target", len(z0_target), positive=True)

    kept_omegas, kept_lambdas, kept_estimates, kept_masks = [], [], [], []
    chunk = max(1, _CHUNK_ELEMENTS // (len(z0_source) + len(z0_target)))
    for start in range(0, len(omegas), chunk):
        omega = omegas[start:start + chunk]
        slopes = omega[:, None] * ratio_source - base_source
        lambdas = optimal_lambda(z0_source, slopes, base_source, tolerance)
        in_source = _residuals(z0_source, lambdas, omega, ratio_source, base_source, tolerance).T > 0
        in_target = _residuals(z0_target, lambdas, omega, ratio_target, base_target, tolerance).T > 0
        admissible = (in_source.mean(axis=1) >= min_prevalence) & (in_target.mean(axis=1) >= min_prevalence)
        in_source, in_target = in_source[admissible], in_target[admissible]
        estimates = (in_target @ z0_target / in_target.sum(axis=1)
                     - in_source @ (base_source * z0_source) / (in_source @ base_source) - tolerance)
        kept_omegas.append(omega[admissible])
        kept_lambdas.append(lambdas[admissible])
        kept_estimates.append(estimates)
        kept_masks.append(np.packbits(np.hstack([in_source, in_target]), axis=1))

    omegas, lambdas, estimates = map(np.concatenate, (kept_omegas, kept_lambdas, kept_estimates))
    _, first = np.unique(np.vstack(kept_masks), axis=0, return_index=True)
    first = np.sort(first)
    best = first[np.argsort(-estimates[first], kind="stable")][:max_candidates]
    return CovariateDetectors(omegas[best], lambdas[best], float(tolerance), estimates[best])


def fit_outcome_detector(X_target, residual, estimator=None, random_state=None):
    """Fit the outcome-shift detector: a regression of the residual L − Z₀(X) − τ on target covariates.

    Parameters
    ----------
    X_target : array-like or DataFrame of shape (n_samples, n_features)
        Covariates of the target training half.
    residual : array-like of shape (n_samples,)
        L − Z₀(X) − τ on those rows.
    estimator : regressor or None, default=None
        A clone is fitted (its ``random_state``, if any, set from ``random_state``). None:
        ``HistGradientBoostingRegressor(max_depth=2, max_iter=200)``, the reference's depth-2,
        200-tree boosting.
    random_state : int, RandomState instance or None, default=None
        Seed of the regressor.

    Returns
    -------
    regressor : fitted regressor

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit_shift._detectors import detect_outcome, fit_outcome_detector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(2000, 2))
    >>> residual = np.where(X[:, 0] > 0.7, 0.3, -0.1) + 0.1 * rng.normal(size=2000)
    >>> regressor = fit_outcome_detector(X, residual, random_state=0)
    >>> detect_outcome(regressor, [[0.9, 0.5], [0.2, 0.5]]).ravel().tolist()
    [True, False]
    """
    residual = _vector(residual, "residual")
    check_consistent_length(X_target, residual)
    if estimator is None:
        regressor = HistGradientBoostingRegressor(max_depth=2, max_iter=200,
                                                  categorical_features="from_dtype",
                                                  random_state=_seed(random_state))
    else:
        regressor = _with_seed(estimator, random_state)
    return regressor.fit(X_target, residual)


def detect_outcome(regressor, X):
    """The outcome-shift detector: 1[predicted residual > 0].

    Parameters
    ----------
    regressor : fitted regressor
        From :func:`fit_outcome_detector`.
    X : array-like or DataFrame of shape (n_samples, n_features)
        Covariates.

    Returns
    -------
    detected : ndarray of bool, shape (n_samples, 1)
    """
    return (np.asarray(regressor.predict(X)) > 0)[:, None]
