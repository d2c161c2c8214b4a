"""Stage 2 of SHIFT ("how"): is the decay due to the variables Xₛ, given the others X₋ₛ?

H. Singh, F. Xia, A. Gossmann, A. Chuang, J. C. Hong, J. Feng, "'Who experiences large model decay
and why?' A hierarchical framework for diagnosing heterogeneous performance drift", ICML 2025
(arXiv:2506.00756). For one variable subset s (the other columns X₋ₛ are the conditioning set) each
decomposition gets its own detectors, nuisance models (fitted on the training halves) and one-step
estimates with a max-statistic multiplier bootstrap (on the test halves):

* conditional covariate shift, θ_s^X(d) = E_T[Z₀ | d] − E_H[Z₀ | d] − τ, with the hybrid distribution
  H = p_T(x₋ₛ | d) p_S(xₛ | x₋ₛ, d): the decay caused by the shift of Xₛ given X₋ₛ inside the subgroup;
* conditional outcome shift, θ_s^Y(d) = E_T[L − ℓ̄₋ₛ(X) | d] − τ, ℓ̄₋ₛ the loss expected under
  P_T(Y = 1 | X₋ₛ, bin of logit μ₀): the decay due to the target's Y | X depending on Xₛ beyond X₋ₛ
  and the source's risk level.

Deviations from the reference code (``jjfeng/shift``, ``estimate_datashifter.py``), each a correction:
the conditional ratio ŵ₋ₛ|d is scaled by the domains' training sizes and the detector's training
prevalences (the reference: the test prevalences only); the one-step uses ν₋ₛ = E_S[L | X₋ₛ, d = 1]
(the reference puts P_S(Y | X₋ₛ, d) into the loss at the full x, whose one-step does not match its
plug-in); the correction term of the conditional outcome one-step is (y − μ₁,₋ₛ(v)) κ(v) with one
regression κ(v) = E_T[d (ℓ₁ − ℓ₀) | V = v], instead of the reference's O(n²) loop.
"""

import numbers

import numpy as np
import pandas as pd
from scipy.special import logit
from sklearn.utils import check_scalar

from fairkit.utils import local_random_state
from fairkit_shift._bootstrap import max_multiplier_test
from fairkit_shift._detectors import covariate_candidates
from fairkit_shift._domain import Domain
from fairkit_shift._estimators import conditional_covariate_estimate, conditional_outcome_estimate
from fairkit_shift._losses import expected_loss
from fairkit_shift._nuisance import (
    _MAX_SEED,
    _with_seed,
    default_regressor,
    fit_density_ratio,
    fit_outcome_model,
    predict_positive,
)

__all__ = ["conditional_covariate_test", "conditional_outcome_test", "logit_bin_centres", "subset_positions"]

# μ₀ is clipped to [_PROBABILITY_CLIP, 1 − _PROBABILITY_CLIP] before its logit, so that a model certain of a
# label (μ₀ = 0 or 1) gives a finite value at the end of the range.
_PROBABILITY_CLIP = 1e-10


def subset_positions(X, subset):
    """The column positions of a variable subset s of X, validated.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_samples, n_features)
        The covariates.
    subset : list of str or int
        Column names (X a DataFrame) or positions (integers are always positions); not empty,
        no repeats.

    Returns
    -------
    positions : ndarray of int
        Sorted.

    Examples
    --------
    >>> import pandas as pd
    >>> from fairkit_shift._conditional import subset_positions
    >>> X = pd.DataFrame({"a": [1.0], "b": [2.0], "c": [3.0]})
    >>> subset_positions(X, ["c", "a"]).tolist(), subset_positions(X, [1]).tolist()
    ([0, 2], [1])
    """
    n_features = np.shape(X)[1]
    if isinstance(subset, (str, bytes)) or not hasattr(subset, "__len__") or len(subset) == 0:
        raise ValueError("subset must be a non-empty list of column names or positions (e.g. ['x3'] or "
                         f"[2]); got {subset!r}.")
    columns = list(X.columns) if isinstance(X, pd.DataFrame) else None
    positions = []
    for column in subset:
        if isinstance(column, numbers.Integral) and not isinstance(column, bool):
            if not 0 <= column < n_features:
                raise ValueError(f"subset has the position {column}, but X has {n_features} columns "
                                 f"(positions 0 to {n_features - 1}).")
            positions.append(int(column))
        elif columns is not None and column in columns:
            positions.append(columns.index(column))
        elif columns is None:
            raise ValueError(f"subset names the column {column!r}, but X is an array without column names; "
                             "give positions (integers) or X as a DataFrame.")
        else:
            raise ValueError(f"subset names the column {column!r}, which X does not have; its columns are "
                             f"{columns}.")
    if len(set(positions)) != len(positions):
        raise ValueError(f"subset {list(subset)} names a column more than once; give each column once.")
    return np.sort(np.asarray(positions, dtype=int))


def logit_bin_centres(mu_reference, mu, n_bins):
    """Bin the logit of probabilities into ``n_bins`` equal-width bins; return each value's bin centre.

    The bins split [min, max] of logit(``mu_reference``) into ``n_bins`` equal parts (the reference
    code's ``Binning`` of type ``"space"``, on logit μ̂₀ over both training halves); a value outside
    that range is put in the nearest end bin, and a value on an inner edge in the upper bin. When all
    reference logits are equal there is one bin, centred on that value.

    Parameters
    ----------
    mu_reference : array-like of shape (n_reference,)
        Probabilities that fix the range (μ̂₀ on the training halves).
    mu : array-like of shape (n_samples,)
        Probabilities to bin.
    n_bins : int >= 2
        Number of bins.

    Returns
    -------
    centres : ndarray of shape (n_samples,)

    Examples
    --------
    >>> from scipy.special import expit
    >>> from fairkit_shift._conditional import logit_bin_centres
    >>> logit_bin_centres(expit([0.0, 4.0]), expit([-1.0, 0.5, 2.5, 3.0, 9.0]), 2)
    array([1., 1., 3., 3., 3.])
    """
    check_scalar(n_bins, "n_bins", numbers.Integral, min_val=2)
    reference, values = (logit(np.clip(np.asarray(p, dtype=float), _PROBABILITY_CLIP, 1 - _PROBABILITY_CLIP))
                         for p in (mu_reference, mu))
    low, high = reference.min(), reference.max()
    if low == high:
        return np.full(len(values), low)
    edges = np.linspace(low, high, n_bins + 1)
    index = np.clip(np.searchsorted(edges, values, side="right") - 1, 0, n_bins - 1)
    return (edges[index] + edges[index + 1]) / 2


def conditional_covariate_test(source, target, subset, *, tolerance, min_prevalence, alpha=0.05,
                               n_bootstrap=10000, max_candidates=5, n_omegas=200, density_model=None,
                               regressor=None, clip=1e-3, random_state=None):
    """Test for a subgroup whose decay is caused by the shift of Xₛ given X₋ₛ (conditional covariate shift).

    θ_s^X(d) = E_T[Z₀ | d] − E_H[Z₀ | d] − τ, H = p_T(x₋ₛ | d) p_S(xₛ | x₋ₛ, d) (Singh et al., ICML
    2025). On the training halves: the density ratio w₋ₛ of X₋ₛ (a domain classifier on X₋ₛ) is the
    baseline of the covariate detector search (:func:`~fairkit_shift._detectors.covariate_candidates`);
    for each candidate d, a domain classifier on (X₋ₛ, d) gives the conditional ratio
    ŵ₋ₛ|d(x₋ₛ) = ratio(x₋ₛ, 1) · P̂_S(d) / P̂_T(d) (training prevalences; the ratio includes the domains'
    training sizes), and a regression of L on (X₋ₛ, d) over the source, evaluated at d = 1, gives
    ν₋ₛ(x₋ₛ) = E_S[L | X₋ₛ, d = 1]. The one-step estimates
    (:func:`~fairkit_shift._estimators.conditional_covariate_estimate`) and the max test are on the test
    halves. When s holds every column (X₋ₛ empty), w₋ₛ = ŵ₋ₛ|d = 1 and ν = E_S[L | d] (the source
    training mean in d): the one-step estimate is then the stage-1 covariate estimate.

    Parameters
    ----------
    source, target : Domain
        The two domains, with ``z0`` and ``ratio`` set.
    subset : list of str or int
        The variables s: column names (X a DataFrame) or positions.
    tolerance : float >= 0
        τ.
    min_prevalence : float in (0, 1)
        ε: candidates detect at least this share of each training half.
    alpha : float in (0, 1), default=0.05
        Level of the test.
    n_bootstrap : int, default=10000
        Draws of the multiplier bootstrap.
    max_candidates : int, default=5
        Candidate subgroups kept from the search.
    n_omegas : int, default=200
        Points of the ω grid of the search.
    density_model : classifier, default=None
        The domain classifier of both ratios (calibrated by 3-fold sigmoid); None: histogram
        gradient boosting.
    regressor : regressor, default=None
        The regression of ν₋ₛ; None: :func:`~fairkit_shift._nuisance.default_regressor`.
    clip : float in (0, 0.5), default=1e-3
        The domain classifiers' probabilities are clipped to [clip, 1 − clip].
    random_state : int, RandomState instance or None, default=None
        Seeds the models and the bootstrap.

    Returns
    -------
    estimate : ShiftEstimate
        Plug-in and one-step estimates of the K candidates (K = 0 when none is admissible).
    test : MaxTest
        The bootstrap test of max_k θ_s^X(d_k) ≤ 0.

    Examples
    --------
    The target's x0 moves from N(0, 1) to N(1, 1), x1 does not; the source loss is 0.9 where x0 > 1
    (true Z₀ and w given):

    >>> import numpy as np
    >>> from fairkit_shift._conditional import conditional_covariate_test
    >>> from fairkit_shift._domain import Domain
    >>> rng = np.random.default_rng(0)
    >>> def domain(name, mean):
    ...     X = rng.normal([mean, 0.0], 1.0, size=(2000, 2))
    ...     z0 = np.where(X[:, 0] > 1, 0.9, 0.1)
    ...     loss = (rng.uniform(size=2000) < z0).astype(float)
    ...     return Domain(name=name, X=X, y=loss.astype(int), loss0=np.zeros(2000), loss1=np.ones(2000),
    ...                   loss=loss, train=np.arange(0, 2000, 2), test=np.arange(1, 2000, 2),
    ...                   mu0=z0, z0=z0, ratio=np.exp(X[:, 0] - 0.5))
    >>> source, target = domain("source", 0.0), domain("target", 1.0)
    >>> [bool(conditional_covariate_test(source, target, [column], tolerance=0.05, min_prevalence=0.05,
    ...                                  max_candidates=2, n_bootstrap=1000, random_state=0)[1].reject)
    ...  for column in (0, 1)]
    [True, False]
    """
    _check_domains(source, target, ("z0", "ratio"))
    keep = _kept_positions(source.X, subset)
    _check_test_parameters(tolerance, min_prevalence, alpha, n_bootstrap)
    rng = local_random_state(random_state)
    S, T = source, target
    others = (_columns(S.X, keep), _columns(T.X, keep))
    z0_s_tr, z0_t_tr = S.rows(S.z0, "train"), T.rows(T.z0, "train")
    if len(keep):
        marginal = fit_density_ratio(S.rows(others[0], "train"), T.rows(others[1], "train"), density_model,
                                     clip=clip, random_state=rng.randint(_MAX_SEED))
        base_s, base_t = (marginal.ratio(X) for X in others)
    else:
        base_s, base_t = np.ones(len(S.y)), np.ones(len(T.y))
    candidates = covariate_candidates(
        z0_s_tr, S.rows(S.ratio, "train"), z0_t_tr, T.rows(T.ratio, "train"), tolerance=tolerance,
        min_prevalence=min_prevalence, max_candidates=max_candidates, n_omegas=n_omegas,
        baseline_ratio_source=S.rows(base_s, "train"), baseline_ratio_target=T.rows(base_t, "train"))
    detected = [candidates.detect(D.z0, D.ratio, base) for D, base in ((S, base_s), (T, base_t))]

    n_s, n_t, k = len(S.test), len(T.test), len(candidates)
    nu_s, nu_t, conditional_ratio_s = np.empty((n_s, k)), np.empty((n_t, k)), np.empty((n_s, k))
    loss_s_tr = S.rows(S.loss, "train")
    others_train = [D.rows(X, "train") for D, X in ((S, others[0]), (T, others[1]))]
    # the test rows' (x₋ₛ, d = 1), where ŵ₋ₛ|d and ν₋ₛ are evaluated
    in_subgroup = [_with_column(D.rows(X, "test"), np.ones(len(D.test)), "subgroup")
                   for D, X in ((S, others[0]), (T, others[1]))]
    for j in range(k):
        d_s_tr, d_t_tr = S.rows(detected[0][:, j], "train"), T.rows(detected[1][:, j], "train")
        if not len(keep):
            conditional_ratio_s[:, j] = 1.0
            nu_s[:, j] = nu_t[:, j] = loss_s_tr[d_s_tr].mean()
            continue
        indicated = [_with_column(X, d, "subgroup") for X, d in ((others_train[0], d_s_tr),
                                                                (others_train[1], d_t_tr))]
        conditional = fit_density_ratio(*indicated, density_model, clip=clip,
                                        random_state=rng.randint(_MAX_SEED))
        # p_T(x₋ₛ, d = 1) / p_S(x₋ₛ, d = 1) · P_S(d) / P_T(d) = p_T(x₋ₛ | d = 1) / p_S(x₋ₛ | d = 1)
        conditional_ratio_s[:, j] = conditional.ratio(in_subgroup[0]) * d_s_tr.mean() / d_t_tr.mean()
        seed = rng.randint(_MAX_SEED)
        model = default_regressor(seed) if regressor is None else _with_seed(regressor, seed)
        model.fit(indicated[0], loss_s_tr)
        nu_s[:, j], nu_t[:, j] = (np.asarray(model.predict(X)) for X in in_subgroup)

    z0_s = S.rows(S.z0, "test")
    estimate = conditional_covariate_estimate(
        S.rows(detected[0], "test"), T.rows(detected[1], "test"), S.rows(S.loss, "test"), z0_s,
        T.rows(T.z0, "test"), S.rows(S.ratio, "test"), nu_s, nu_t, conditional_ratio_s, tolerance)
    test = max_multiplier_test(estimate, alpha=alpha, n_bootstrap=n_bootstrap,
                               random_state=rng.randint(_MAX_SEED))
    return estimate, test


def conditional_outcome_test(source, target, subset, *, tolerance, min_prevalence, n_bins=40, alpha=0.05,
                             n_bootstrap=10000, outcome_model=None, regressor=None, target_model=None,
                             random_state=None):
    """Test for a subgroup whose decay is due to the target's Y | X depending on Xₛ beyond X₋ₛ.

    θ_s^Y(d) = E_T[L − ℓ̄₋ₛ(X) | d] − τ (Singh et al., ICML 2025), where V = (X₋ₛ, B), B the bin centre
    of logit μ̂₀(x) (:func:`logit_bin_centres`, range from both training halves), μ₁,₋ₛ(v) =
    P_T(Y = 1 | V = v) and ℓ̄₋ₛ = μ₁,₋ₛ ℓ₁ + (1 − μ₁,₋ₛ) ℓ₀. On the target training half: μ₁,₋ₛ (a
    classifier on V); the detector d(x) = 1[Ẑ₁(x) − ℓ̄₋ₛ(x) − τ > 0], Ẑ₁ the loss expected under
    μ̂₁ = P_T(Y = 1 | X); kept only if it detects at least ε of the target training half (else no
    candidate: p = 1); κ(v) = E_T[d (ℓ₁ − ℓ₀) | V = v] (one regression). The one-step estimate
    (:func:`~fairkit_shift._estimators.conditional_outcome_estimate`) and the test (K = 1) are on the test
    halves.

    Parameters
    ----------
    source, target : Domain
        The two domains, with ``mu0`` set.
    subset : list of str or int
        The variables s: column names (X a DataFrame) or positions.
    tolerance : float >= 0
        τ.
    min_prevalence : float in (0, 1)
        ε.
    n_bins : int >= 2, default=40
        Bins of logit μ̂₀ (the reference's simulations use 40).
    alpha : float in (0, 1), default=0.05
        Level of the test.
    n_bootstrap : int, default=10000
        Draws of the multiplier bootstrap.
    outcome_model : classifier, default=None
        The classifier of μ₁,₋ₛ, and of μ̂₁ when ``target_model`` is None; None: histogram gradient
        boosting.
    regressor : regressor, default=None
        The regression of κ; None: :func:`~fairkit_shift._nuisance.default_regressor`.
    target_model : fitted classifier, default=None
        μ̂₁ = P_T(Y = 1 | X), fitted on the target training half (it does not depend on s: fit it once,
        ``fit_outcome_model(outcome_model, target.rows(target.X, "train"), target.rows(target.y,
        "train"))``, and pass it to every subset); None: fitted here.
    random_state : int, RandomState instance or None, default=None
        Seeds the models and the bootstrap.

    Returns
    -------
    estimate : ShiftEstimate
        Plug-in and one-step estimates of the detector (K = 1), or of none (K = 0).
    test : MaxTest
        The bootstrap test of θ_s^Y(d) ≤ 0.

    Examples
    --------
    The model predicts 0 everywhere (its loss is y); the labels are 1 with probability 0.1, and in the
    target also wherever x0 > 1:

    >>> import numpy as np
    >>> from fairkit_shift._conditional import conditional_outcome_test
    >>> from fairkit_shift._domain import Domain
    >>> rng = np.random.default_rng(0)
    >>> def domain(name, shifted):
    ...     X = rng.normal(size=(2000, 2))
    ...     y = ((shifted & (X[:, 0] > 1)) | (rng.uniform(size=2000) < 0.1)).astype(int)
    ...     return Domain(name=name, X=X, y=y, loss0=np.zeros(2000), loss1=np.ones(2000),
    ...                   loss=y.astype(float), train=np.arange(0, 2000, 2), test=np.arange(1, 2000, 2),
    ...                   mu0=np.full(2000, 0.1))
    >>> source, target = domain("source", False), domain("target", True)
    >>> [bool(conditional_outcome_test(source, target, [column], tolerance=0.05, min_prevalence=0.05,
    ...                                n_bootstrap=1000, random_state=0)[1].reject) for column in (0, 1)]
    [True, False]
    """
    _check_domains(source, target, ("mu0",))
    keep = _kept_positions(source.X, subset)
    _check_test_parameters(tolerance, min_prevalence, alpha, n_bootstrap)
    check_scalar(n_bins, "n_bins", numbers.Integral, min_val=2)
    rng = local_random_state(random_state)
    S, T = source, target
    mu0_train = np.concatenate([S.rows(S.mu0, "train"), T.rows(T.mu0, "train")])
    views = [_with_column(_columns(D.X, keep), logit_bin_centres(mu0_train, D.mu0, n_bins), "logit_bin")
             for D in (S, T)]
    seeds = rng.randint(_MAX_SEED, size=4)
    if target_model is None:
        target_model = fit_outcome_model(outcome_model, T.rows(T.X, "train"), T.rows(T.y, "train"),
                                         random_state=seeds[0])
    conditional_model = fit_outcome_model(outcome_model, T.rows(views[1], "train"), T.rows(T.y, "train"),
                                          random_state=seeds[1])
    mu1_given_others = [predict_positive(conditional_model, V) for V in views]
    conditional_loss = [expected_loss(mu, D.loss0, D.loss1)
                        for mu, D in zip(mu1_given_others, (S, T), strict=True)]
    z1 = [expected_loss(predict_positive(target_model, D.X), D.loss0, D.loss1) for D in (S, T)]
    # the one candidate d = 1[Ẑ₁ − ℓ̄₋ₛ − τ > 0], as an (n, 1) column
    detected = [(z - ell - tolerance > 0)[:, None] for z, ell in zip(z1, conditional_loss, strict=True)]

    found = T.rows(detected[1], "train").mean() >= min_prevalence
    kappa_t = np.zeros(len(T.test))
    if found:
        model = default_regressor(seeds[2]) if regressor is None else _with_seed(regressor, seeds[2])
        model.fit(T.rows(views[1], "train"), T.rows(detected[1][:, 0] * (T.loss1 - T.loss0), "train"))
        kappa_t = np.asarray(model.predict(T.rows(views[1], "test")))
    n_candidates = int(found)  # the detector, or none
    estimate = conditional_outcome_estimate(
        S.rows(detected[0], "test")[:, :n_candidates], T.rows(detected[1], "test")[:, :n_candidates],
        T.rows(T.loss, "test"), T.rows(conditional_loss[1], "test"), T.rows(T.y, "test"),
        T.rows(mu1_given_others[1], "test"), kappa_t, tolerance)
    test = max_multiplier_test(estimate, alpha=alpha, n_bootstrap=n_bootstrap, random_state=seeds[3])
    return estimate, test


def _check_domains(source, target, needed):
    for name, domain in (("source", source), ("target", target)):
        if not isinstance(domain, Domain):
            raise TypeError(f"{name} must be a Domain (fairkit_shift._domain); got {type(domain).__name__}.")
        missing = [field for field in needed if getattr(domain, field) is None]
        if missing:
            raise ValueError(f"{name} has no {', '.join(missing)}: fit the stage-1 nuisance models and set "
                             "them on both domains before the stage-2 tests.")
    if np.shape(source.X)[1] != np.shape(target.X)[1]:
        raise ValueError(f"source.X has {np.shape(source.X)[1]} columns and target.X "
                         f"{np.shape(target.X)[1]}; both domains must have the same columns.")


def _check_test_parameters(tolerance, min_prevalence, alpha, n_bootstrap):
    check_scalar(tolerance, "tolerance", numbers.Real, min_val=0)
    check_scalar(min_prevalence, "min_prevalence", numbers.Real, min_val=0, max_val=1,
                 include_boundaries="neither")
    check_scalar(alpha, "alpha", numbers.Real, min_val=0, max_val=1, include_boundaries="neither")
    check_scalar(n_bootstrap, "n_bootstrap", numbers.Integral, min_val=1)


def _kept_positions(X, subset):
    """Positions of X₋ₛ, the columns not in ``subset`` (validated)."""
    return np.setdiff1d(np.arange(np.shape(X)[1]), subset_positions(X, subset))


def _columns(X, positions):
    """The columns of X at ``positions``; a DataFrame keeps its dtypes, and gets string column names."""
    if isinstance(X, pd.DataFrame):
        X = X.iloc[:, positions]
        if not all(isinstance(name, str) for name in X.columns):
            X = X.set_axis([f"column_{j}" for j in positions], axis=1)
        return X
    return np.asarray(X)[:, positions]


def _with_column(X, values, name):
    """X with one more column holding ``values`` (last); in a DataFrame under a name X does not use."""
    if isinstance(X, pd.DataFrame):
        while name in X.columns:
            name = "_" + name
        return X.assign(**{name: np.asarray(values, dtype=float)})
    return np.column_stack([X, np.asarray(values, dtype=float)])
