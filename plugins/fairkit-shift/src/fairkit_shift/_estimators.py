"""Plug-in and one-step estimates, with influence functions, of the decay of fixed subgroups.

Singh, Xia, Gossmann, Chuang, Hong, Feng, "'Who experiences large model decay and why?' A hierarchical
framework for diagnosing heterogeneous performance drift", ICML 2025 (arXiv:2506.00756). For a subgroup
given by a detector d(x) ∈ {0, 1}, source S and target T (the evaluation halves), loss L = ℓ(X, Y),
Z₀(x) = E_S[L | x] and density ratio w(x) = p_T(x)/p_S(x):

* covariate decay θ_X = E_T[Z₀ | d] − E_S[L | d] − τ,
* outcome decay θ_Y = E_T[L − Z₀ | d] − τ,
* conditional covariate decay θ_s^X = E_T[Z₀ | d] − E_H[Z₀ | d] − τ, H = p_T(x₋ₛ | d) p_S(xₛ | x₋ₛ, d),
* conditional outcome decay θ_s^Y = E_T[L − ℓ̄₋ₛ(X) | d] − τ.

Each estimate is a sum of ratios of sample means (a mean over rows of one domain divided by a subgroup
prevalence); its influence function is the delta method of those ratios, centred within each domain. The
one-step corrections use the efficient influence function of the nuisance μ₀ (and of ν₋ₛ, μ₁,₋ₛ in
stage 2); they are normalised by the prevalence of the domain whose expectation they correct, e.g.
(1/(n_s P̂_T)) Σ_S d ŵ (L − Ẑ₀) for E_T[Z₀ | d] — unlike the reference code jjfeng/shift, whose
correction is normalised by the source subgroup size (off by ω̂ = P̂_S/P̂_T) and whose outcome one-step
averages over both domains' subgroups (about half the decay when n_s = n_t).

Every function is vectorised over K candidate detectors: ``detected_*`` are boolean arrays of shape
(n, K) (or (n,), K = 1); every per-row array is (n,) or (n, K) (one column per candidate). A candidate
that detects no row of a domain the estimate divides by gets NaN estimates and zero influence.
"""

import numbers
from typing import NamedTuple

import numpy as np
from scipy.stats import norm
from sklearn.utils import check_scalar

from fairkit.utils.validation import check_numbers

__all__ = ["ShiftEstimate", "conditional_covariate_estimate", "conditional_outcome_estimate",
           "covariate_shift_estimate", "outcome_shift_estimate"]


class ShiftEstimate(NamedTuple):
    """Estimates of the decay of K candidate subgroups, with their influence functions.

    Attributes
    ----------
    plugin : ndarray of shape (K,)
        Plug-in estimates (reported only: their variance ignores the nuisances' error).
    onestep : ndarray of shape (K,)
        One-step (debiased) estimates; NaN for a candidate with no detected row where one is needed.
    influence_source, influence_target : ndarray of shape (n_s, K) and (n_t, K)
        Influence functions φ_S, φ_T of ``onestep`` on each domain's rows, centred within the domain:
        onestep − θ ≈ Σ φ_S / n_s + Σ φ_T / n_t.
    prevalence_source, prevalence_target : ndarray of shape (K,)
        Share of rows each candidate detects, P̂_S(d) and P̂_T(d).
    """

    plugin: np.ndarray
    onestep: np.ndarray
    influence_source: np.ndarray
    influence_target: np.ndarray
    prevalence_source: np.ndarray
    prevalence_target: np.ndarray

    @property
    def std_error(self):
        """Standard errors of ``onestep``: √(Σ φ_S²/n_s² + Σ φ_T²/n_t²); NaN where ``onestep`` is."""
        variance = _variance_term(self.influence_source) + _variance_term(self.influence_target)
        return np.where(np.isnan(self.onestep), np.nan, np.sqrt(variance))

    def covariance(self):
        """Covariance of the K one-step estimates, Σ = φ_Sᵀφ_S/n_s² + φ_Tᵀφ_T/n_t² (K × K)."""
        source, target = self.influence_source, self.influence_target
        return source.T @ source / len(source) ** 2 + target.T @ target / len(target) ** 2

    def confidence_interval(self, level=0.95):
        """Two-sided normal confidence intervals ``onestep ± z·std_error``, as (lower, upper) arrays.

        Examples
        --------
        >>> import numpy as np
        >>> from fairkit_shift._estimators import outcome_shift_estimate
        >>> est = outcome_shift_estimate([True, True], [True, True, False, False], [0.0, 1.0],
        ...                              [0.5, 0.5], [1.0, 0.0, 0.0, 1.0], [0.5] * 4, [1.0, 1.0], 0.0)
        >>> est.onestep, est.confidence_interval()[0] < 0
        (array([0.]), array([ True]))
        """
        check_scalar(level, "level", numbers.Real, min_val=0, max_val=1, include_boundaries="neither")
        half = norm.ppf(0.5 + level / 2) * self.std_error
        return self.onestep - half, self.onestep + half


def covariate_shift_estimate(detected_source, detected_target, loss_source, z0_source, z0_target,
                             ratio_source, tolerance):
    """Covariate decay θ_X = E_T[Z₀ | d] − E_S[L | d] − τ of K candidate subgroups.

    With a = mean_{T,d} Ẑ₀, b = mean_{S,d} L and c = (1/(n_s P̂_T)) Σ_S d ŵ (L − Ẑ₀), the plug-in is
    a − b − τ and the one-step a + c − b − τ (Singh et al., ICML 2025).

    Parameters
    ----------
    detected_source, detected_target : array-like of bool, shape (n_s, K) or (n_s,); (n_t, K) or (n_t,)
        d(x) of each candidate on the source and target rows.
    loss_source : array-like of shape (n_s,) or (n_s, K)
        Observed losses L = ℓ(x, y) of the source rows.
    z0_source, z0_target : array-like of shape (n_s,) or (n_s, K); (n_t,) or (n_t, K)
        Ẑ₀(x) = μ̂₀ℓ₁ + (1 − μ̂₀)ℓ₀, the source-model expected loss, on each domain's rows.
    ratio_source : array-like of shape (n_s,) or (n_s, K)
        ŵ(x) = p_T(x)/p_S(x), the density ratio, on the source rows (non-negative).
    tolerance : float
        τ, the decay that is tolerated.

    Returns
    -------
    ShiftEstimate
        NaN where a candidate detects no row in a domain.

    Examples
    --------
    >>> from fairkit_shift._estimators import covariate_shift_estimate
    >>> est = covariate_shift_estimate([1, 1, 0], [1, 0], [0.0, 1.0, 1.0], [0.5, 0.5, 1.0], [0.8, 0.1],
    ...                                [1.0, 1.0, 1.0], 0.1)
    >>> est.plugin, est.onestep
    (array([0.2]), array([0.2]))
    """
    rows = _Rows(detected_source, detected_target)
    loss_s, z0_s, ratio_s = rows.source(loss_source, "loss_source"), rows.source(z0_source, "z0_source"), \
        rows.source(ratio_source, "ratio_source", nonnegative=True)
    z0_t = rows.target(z0_target, "z0_target")
    tolerance = _check_tolerance(tolerance)
    d_s, d_t = rows.detected_source, rows.detected_target
    a, phi_t_a = _same_domain_ratio(d_t * z0_t, d_t)
    b, phi_s_b = _same_domain_ratio(d_s * loss_s, d_s)
    c, phi_s_c, phi_t_c = _cross_domain_ratio(d_s * ratio_s * (loss_s - z0_s), d_t)
    return rows.estimate(a - b - tolerance, a + c - b - tolerance, phi_s_c - phi_s_b, phi_t_a + phi_t_c,
                         needs_source=True)


def outcome_shift_estimate(detected_source, detected_target, loss_source, z0_source, loss_target, z0_target,
                           ratio_source, tolerance):
    """Outcome decay θ_Y = E_T[L − Z₀ | d] − τ of K candidate subgroups.

    With e = mean_{T,d} (L − Ẑ₀) and c = (1/(n_s P̂_T)) Σ_S d ŵ (L − Ẑ₀), the plug-in is e − τ and the
    one-step e − c − τ (Singh et al., ICML 2025).

    Parameters
    ----------
    detected_source, detected_target : array-like of bool, shape (n_s, K) or (n_s,); (n_t, K) or (n_t,)
        d(x) of each candidate on the source and target rows.
    loss_source, loss_target : array-like of shape (n_s,) or (n_s, K); (n_t,) or (n_t, K)
        Observed losses L = ℓ(x, y) on each domain's rows.
    z0_source, z0_target : array-like of shape (n_s,) or (n_s, K); (n_t,) or (n_t, K)
        Ẑ₀(x), the source-model expected loss, on each domain's rows.
    ratio_source : array-like of shape (n_s,) or (n_s, K)
        ŵ(x) = p_T(x)/p_S(x) on the source rows (non-negative).
    tolerance : float
        τ.

    Returns
    -------
    ShiftEstimate
        NaN where a candidate detects no target row (no source row is fine: the correction is 0).

    Examples
    --------
    >>> from fairkit_shift._estimators import outcome_shift_estimate
    >>> est = outcome_shift_estimate([1, 0], [1, 1, 0], [1.0, 0.0], [0.5, 0.5], [1.0, 1.0, 0.0],
    ...                              [0.5, 0.25, 0.5], [1.0, 1.0], 0.05)
    >>> est.plugin, est.onestep
    (array([0.575]), array([0.2]))
    """
    rows = _Rows(detected_source, detected_target)
    loss_s, z0_s, ratio_s = rows.source(loss_source, "loss_source"), rows.source(z0_source, "z0_source"), \
        rows.source(ratio_source, "ratio_source", nonnegative=True)
    loss_t, z0_t = rows.target(loss_target, "loss_target"), rows.target(z0_target, "z0_target")
    tolerance = _check_tolerance(tolerance)
    d_s, d_t = rows.detected_source, rows.detected_target
    e, phi_t_e = _same_domain_ratio(d_t * (loss_t - z0_t), d_t)
    c, phi_s_c, phi_t_c = _cross_domain_ratio(d_s * ratio_s * (loss_s - z0_s), d_t)
    return rows.estimate(e - tolerance, e - c - tolerance, -phi_s_c, phi_t_e - phi_t_c, needs_source=False)


def conditional_covariate_estimate(detected_source, detected_target, loss_source, z0_source, z0_target,
                                   ratio_source, nu_source, nu_target, conditional_ratio_source, tolerance):
    """Conditional covariate decay θ_s^X = E_T[Z₀ | d] − E_H[Z₀ | d] − τ of K candidate subgroups.

    H = p_T(x₋ₛ | d) p_S(xₛ | x₋ₛ, d) shifts only X₋ₛ, so θ_s^X is the decay due to the shift of Xₛ given
    X₋ₛ inside the subgroup, and E_H[Z₀ | d] = E_T[ν₋ₛ(X₋ₛ) | d] with ν₋ₛ(x₋ₛ) = E_S[L | x₋ₛ, d = 1]
    (Singh et al., ICML 2025). Plug-in: mean_{T,d}(Ẑ₀ − ν̂₋ₛ) − τ; one-step adds
    (1/(n_s P̂_T)) Σ_S d ŵ (L − Ẑ₀) − mean_{S,d} ŵ₋ₛ|d (L − ν̂₋ₛ).

    Parameters
    ----------
    detected_source, detected_target : array-like of bool, shape (n_s, K) or (n_s,); (n_t, K) or (n_t,)
        d(x) of each candidate on the source and target rows.
    loss_source : array-like of shape (n_s,) or (n_s, K)
        Observed losses L on the source rows.
    z0_source, z0_target : array-like of shape (n_s,) or (n_s, K); (n_t,) or (n_t, K)
        Ẑ₀(x) on each domain's rows.
    ratio_source : array-like of shape (n_s,) or (n_s, K)
        ŵ(x) = p_T(x)/p_S(x) on the source rows.
    nu_source, nu_target : array-like of shape (n_s,) or (n_s, K); (n_t,) or (n_t, K)
        ν̂₋ₛ(x₋ₛ) = Ê_S[L | X₋ₛ = x₋ₛ, d = 1] of each candidate, on each domain's rows.
    conditional_ratio_source : array-like of shape (n_s,) or (n_s, K)
        ŵ₋ₛ|d(x₋ₛ) = p_T(x₋ₛ | d = 1)/p_S(x₋ₛ | d = 1) of each candidate on the source rows.
    tolerance : float
        τ.

    Returns
    -------
    ShiftEstimate
        NaN where a candidate detects no row in a domain.

    Examples
    --------
    >>> from fairkit_shift._estimators import conditional_covariate_estimate
    >>> est = conditional_covariate_estimate([1, 1], [1, 0], [1.0, 0.0], [0.5, 0.5], [0.75, 0.5],
    ...                                      [1.0, 1.0], [0.5, 0.5], [0.25, 0.5], [1.0, 1.0], 0.0)
    >>> est.plugin, est.onestep
    (array([0.5]), array([0.5]))
    """
    rows = _Rows(detected_source, detected_target)
    loss_s, z0_s, nu_s = (rows.source(loss_source, "loss_source"), rows.source(z0_source, "z0_source"),
                          rows.source(nu_source, "nu_source"))
    ratio_s = rows.source(ratio_source, "ratio_source", nonnegative=True)
    conditional_ratio_s = rows.source(conditional_ratio_source, "conditional_ratio_source", nonnegative=True)
    z0_t, nu_t = rows.target(z0_target, "z0_target"), rows.target(nu_target, "nu_target")
    tolerance = _check_tolerance(tolerance)
    d_s, d_t = rows.detected_source, rows.detected_target
    a, phi_t_a = _same_domain_ratio(d_t * (z0_t - nu_t), d_t)
    c, phi_s_c, phi_t_c = _cross_domain_ratio(d_s * ratio_s * (loss_s - z0_s), d_t)
    h, phi_s_h = _same_domain_ratio(d_s * conditional_ratio_s * (loss_s - nu_s), d_s)
    return rows.estimate(a - tolerance, a + c - h - tolerance, phi_s_c - phi_s_h, phi_t_a + phi_t_c,
                         needs_source=True)


def conditional_outcome_estimate(detected_source, detected_target, loss_target, conditional_loss_target,
                                 labels_target, mu1_target, kappa_target, tolerance):
    """Conditional outcome decay θ_s^Y = E_T[L − ℓ̄₋ₛ(X) | d] − τ of K candidate subgroups.

    ℓ̄₋ₛ(x) = μ₁,₋ₛ(v)ℓ₁(x) + (1 − μ₁,₋ₛ(v))ℓ₀(x) with μ₁,₋ₛ(v) = P_T(Y = 1 | V = v), V = (X₋ₛ, bin of
    logit μ₀): θ_s^Y is the decay due to the target's Y | X depending on Xₛ beyond V (Singh et al.,
    ICML 2025). Plug-in: mean_{T,d}(L − ℓ̄₋ₛ) − τ; one-step: mean_T[d(L − ℓ̄₋ₛ) − e₂]/P̂_T − τ with
    e₂ = (y − μ̂₁,₋ₛ(v)) κ̂(v), κ(v) = E_T[d(X)(ℓ₁ − ℓ₀)(X) | V = v] (for binary y this is the reference's
    e₂ = E_T[d(X)(ℓ(X, y) − ℓ̄₋ₛ(X)) | V = v], without its O(n_t²) loop).

    Parameters
    ----------
    detected_source, detected_target : array-like of bool, shape (n_s, K) or (n_s,); (n_t, K) or (n_t,)
        d(x) of each candidate on the source and target rows (the source only gives its prevalence).
    loss_target : array-like of shape (n_t,) or (n_t, K)
        Observed losses L on the target rows.
    conditional_loss_target : array-like of shape (n_t,) or (n_t, K)
        ℓ̄₋ₛ(x) on the target rows (``expected_loss(mu1_target, loss0, loss1)``).
    labels_target : array-like of shape (n_t,) or (n_t, K)
        Target labels y, encoded 0/1.
    mu1_target : array-like of shape (n_t,) or (n_t, K)
        μ̂₁,₋ₛ(v) on the target rows.
    kappa_target : array-like of shape (n_t,) or (n_t, K)
        κ̂(v) of each candidate on the target rows.
    tolerance : float
        τ.

    Returns
    -------
    ShiftEstimate
        NaN where a candidate detects no target row; the source influence is 0.

    Examples
    --------
    >>> from fairkit_shift._estimators import conditional_outcome_estimate
    >>> est = conditional_outcome_estimate([0, 0], [1, 1], [1.0, 0.0], [0.5, 0.5], [1, 0], [0.5, 0.5],
    ...                                    [0.5, 0.5], 0.0)
    >>> est.plugin, est.onestep
    (array([0.]), array([0.]))
    """
    rows = _Rows(detected_source, detected_target)
    loss_t = rows.target(loss_target, "loss_target")
    conditional_loss_t = rows.target(conditional_loss_target, "conditional_loss_target")
    mu1_t, kappa_t = rows.target(mu1_target, "mu1_target"), rows.target(kappa_target, "kappa_target")
    labels = rows.target(labels_target, "labels_target")
    if not np.isin(labels, (0, 1)).all():
        raise ValueError("labels_target must hold the target labels encoded 0/1; got values "
                         f"{np.unique(labels)[:5].tolist()}.")
    tolerance = _check_tolerance(tolerance)
    d_t = rows.detected_target
    excess = d_t * (loss_t - conditional_loss_t)
    plugin, _ = _same_domain_ratio(excess, d_t)
    correction = (labels - mu1_t) * kappa_t
    onestep, phi_t = _same_domain_ratio(excess - correction, d_t)
    return rows.estimate(plugin - tolerance, onestep - tolerance, np.zeros_like(rows.detected_source, float),
                         phi_t, needs_source=False)


class _Rows:
    """The detected masks of both domains, and checks of per-row arrays against their shapes."""

    def __init__(self, detected_source, detected_target):
        self.detected_source = _check_detected(detected_source, "detected_source")
        self.detected_target = _check_detected(detected_target, "detected_target")
        (self.n_source, k_source), (self.n_target, k_target) = (self.detected_source.shape,
                                                               self.detected_target.shape)
        if k_source != k_target:
            raise ValueError(f"detected_source has {k_source} candidates (columns) and detected_target "
                             f"{k_target}; give both domains the same candidates.")
        self.n_candidates = k_source

    def source(self, values, name, nonnegative=False):
        return self._check(values, name, self.n_source, "source", nonnegative)

    def target(self, values, name):
        return self._check(values, name, self.n_target, "target", False)

    def _check(self, values, name, n_rows, domain, nonnegative):
        values = check_numbers(values, input_name=name, ensure_2d=False, ensure_min_features=0,
                               expected=f"{name} must hold one number per {domain} row.")
        if values.ndim == 1 and len(values) == n_rows:
            values = values[:, None]
        if values.ndim != 2 or values.shape[0] != n_rows or values.shape[1] not in (1, self.n_candidates):
            raise ValueError(f"{name} must have shape ({n_rows},) or ({n_rows}, {self.n_candidates}): one "
                             f"value per {domain} row (and per candidate); got shape {values.shape}.")
        if nonnegative and np.any(values < 0):
            raise ValueError(f"{name} must be non-negative (a density ratio); got a minimum of "
                             f"{values.min():g}.")
        return values

    def estimate(self, plugin, onestep, influence_source, influence_target, *, needs_source):
        """Assemble a ShiftEstimate: NaN and zero influence where a needed domain has no detected row."""
        prevalence_source = self.detected_source.mean(axis=0)
        prevalence_target = self.detected_target.mean(axis=0)
        missing = (prevalence_target == 0) | ((prevalence_source == 0) & needs_source)
        influence_source = np.where(missing, 0.0, influence_source)
        influence_target = np.where(missing, 0.0, influence_target)
        influence_source = influence_source - influence_source.mean(axis=0)  # guards against rounding only
        influence_target = influence_target - influence_target.mean(axis=0)
        return ShiftEstimate(np.where(missing, np.nan, plugin), np.where(missing, np.nan, onestep),
                             influence_source, influence_target, prevalence_source, prevalence_target)


def _check_detected(detected, name):
    detected = np.asarray(detected)
    if detected.ndim == 1:
        detected = detected[:, None]
    if detected.ndim != 2 or detected.shape[0] == 0:
        raise ValueError(f"{name} must be a boolean array of shape (n_samples,) or (n_samples, n_candidates) "
                         f"with at least one row; got shape {detected.shape}.")
    if detected.dtype != bool and not np.isin(detected, (0, 1)).all():
        raise ValueError(f"{name} must hold booleans (or 0/1): whether each row is in each candidate "
                         f"subgroup; got values such as {np.unique(detected)[:5].tolist()}.")
    return detected.astype(bool)


def _check_tolerance(tolerance):
    check_scalar(tolerance, "tolerance", numbers.Real)
    if not np.isfinite(tolerance):
        raise ValueError(f"tolerance must be a finite number (τ, the decay tolerated); got {tolerance}.")
    return float(tolerance)


def _same_domain_ratio(numerator, detected):
    """R = mean(numerator)/mean(detected) over one domain, and its influence (numerator − R·detected)/P̂."""
    prevalence = _prevalence(detected)
    ratio = numerator.mean(axis=0) / prevalence
    return ratio, (numerator - ratio * detected) / prevalence


def _cross_domain_ratio(numerator, detected):
    """R = mean(numerator over one domain)/mean(detected over the other), and its influence on each."""
    prevalence = _prevalence(detected)
    mean = numerator.mean(axis=0)
    ratio = mean / prevalence
    return ratio, (numerator - mean) / prevalence, -ratio * (detected - prevalence) / prevalence


def _prevalence(detected):
    """The share of detected rows per candidate; NaN (never 0, so no division warning) when none is."""
    prevalence = detected.mean(axis=0)
    return np.where(prevalence > 0, prevalence, np.nan)


def _variance_term(influence):
    """Σ φ² / n² per candidate: one domain's share of the variance of the estimate."""
    return np.sum(influence**2, axis=0) / len(influence) ** 2
