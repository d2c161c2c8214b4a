"""Conditional independence of predictions and sensitive attributes given the label.

Equalized odds is Ŷ ⊥ A | Y. :func:`kernel_partial_correlation` measures how far it
fails with the kernel partial correlation ρ²(Ŷ, A | Y) of Huang, Deb & Sen (JMLR 2022),
estimated on nearest-neighbour graphs (Azadkia & Chatterjee 2021), as the R package
``KPC`` does (``KPCgraph`` with ``Knn = 1``). :func:`equalized_odds_test` turns it into
the permutation test of Lai & Guan (ICML 2025): the null copies of A are drawn by
inverse conditional permutation under a density of Y | A fitted on the evaluation data.
Neither needs torch.
"""

import numbers
from typing import NamedTuple

import numpy as np
from scipy.spatial.distance import pdist
from sklearn.neighbors import KDTree
from sklearn.utils import check_scalar
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_array

from fairkit.metrics._confusion import check_same_length, one_per_sample
from fairkit.utils._conditional_density import fit_log_likelihood, sensitive_encoder
from fairkit.utils._icp import _BLOCK_ENTRIES, ICPSampler
from fairkit.utils._random import local_generator
from fairkit.utils.validation import check_numbers, check_same_index, check_sensitive_features

__all__ = ["EqualizedOddsTestResult", "equalized_odds_test", "kernel_partial_correlation"]

# The bandwidth is the median distance over all pairs of at most this many predictions.
_BANDWIDTH_SAMPLES = 3000
# Relative tolerance under which two neighbour distances count as tied.
_TIE_TOLERANCE = 1e-12


class EqualizedOddsTestResult(NamedTuple):
    """Result of :func:`equalized_odds_test`."""

    statistic: float
    """ρ²(Ŷ, A | Y) on the evaluation data."""
    pvalue: float
    """Permutation p-value of the null hypothesis Ŷ ⊥ A | Y."""


def kernel_partial_correlation(y_pred, sensitive_features, y_true, *, random_state=None):
    """Kernel partial correlation ρ²(Ŷ, A | Y): 0 under equalized odds, up to 1.

    The graph estimator of Huang, Deb & Sen (2022) with 1-nearest-neighbour graphs::

        ρ² = (T(Y, A) − T(Y)) / (1 − T(Y)),   T(W) = mean_i k(Ŷᵢ, Ŷ_N(i)),

    where ``N(i)`` is the nearest neighbour of sample i in W (Euclidean distance, ties
    broken at random), and ``k`` the Gaussian kernel ``exp(−‖u − v‖² / (2 h²))`` with
    ``h`` the median distance between predictions. This is ``KPC::KPCgraph(Ŷ, Y, A,
    Knn = 1)``. Sensitive attributes are encoded numerically (numeric columns
    standardized, others one-hot); a discrete ``y_true`` is matched exactly (neighbours
    share the label), a continuous one is standardized. Finite-sample values can be
    slightly negative.

    Parameters
    ----------
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Predictions: class probabilities (``predict_proba``) or real predictions.
    sensitive_features : array-like or DataFrame of shape (n_samples,) or (n_samples, n_attributes)
        Sensitive attributes A: continuous, categorical or both.
    y_true : array-like of shape (n_samples,)
        True labels (classes) or targets (real).
    random_state : int, RandomState instance or None, default=None
        Seed of the tie-breaking among equidistant neighbours (and of the subsample
        that sets the bandwidth above 3,000 samples).

    Returns
    -------
    rho2 : float
        The estimate; 0 when the predictions are constant within each neighbourhood of Y.

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit.metrics import kernel_partial_correlation
    >>> rng = np.random.default_rng(0)
    >>> y, a = rng.integers(0, 2, 2000), rng.integers(0, 2, 2000)
    >>> fair = y + rng.normal(size=2000)
    >>> unfair = y + 2 * a + rng.normal(size=2000)
    >>> abs(kernel_partial_correlation(fair, a, y, random_state=0)) < 0.05
    True
    >>> kernel_partial_correlation(unfair, a, y, random_state=0) > 0.3
    True
    """
    predictions, a, conditioning = _validate(y_pred, sensitive_features, y_true)
    rng = local_generator(random_state)
    bandwidth = _median_distance(predictions, rng)
    return _kpc(predictions, a, conditioning, bandwidth, rng)


def equalized_odds_test(y_pred, y_true, *, sensitive_features, n_permutations=100,
                        density_estimator="auto", n_sweeps=50, random_state=None):
    """Permutation test of equalized odds, Ŷ ⊥ A | Y, with ICP copies of A.

    Lai & Guan (ICML 2025): fit a density ``q̂(y | a)`` on the evaluation samples, draw
    ``n_permutations`` copies Ãⱼ by inverse conditional permutation (which keep the law
    of (A, Y) and break any dependence of A on Ŷ given Y), and compare::

        p = (1 + #{j : ρ²(Ŷ, Ãⱼ | Y) ≥ ρ²(Ŷ, A | Y)}) / (1 + n_permutations).

    The copies are drawn with Berrett et al.'s star-shaped scheme (all from one
    burnt-in state, independently), which makes them exchangeable with A under the
    null hypothesis, so the p-value is valid when ``q̂`` is the true density.

    Parameters
    ----------
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Predictions: class probabilities (``predict_proba``) or real predictions.
    y_true : array-like of shape (n_samples,)
        True labels (a discrete target fits a classifier as ``q̂``) or real targets
        (a Gaussian ``q̂``).
    sensitive_features : array-like or DataFrame of shape (n_samples,) or (n_samples, n_attributes)
        Sensitive attributes A: continuous, categorical or both.
    n_permutations : int, default=100
        Number of ICP copies.
    density_estimator : "auto" or estimator, default="auto"
        Model of Y | A: a classifier with ``predict_proba``, or a regressor with
        ``predict(a, return_std=True)``. "auto" is a 64-unit one-hidden-layer network
        (scikit-learn's ``MLPClassifier`` with its L2 penalty chosen by held-out
        log-loss, or a heteroscedastic Gaussian network with early stopping for real
        targets): the reference code's choice, without torch. Past 200,000 samples
        it is fitted on a random subsample of about 200,000 (for classes, stratified
        with every class kept) and predicts for all.
    n_sweeps : int, default=50
        Sweeps of the ICP Markov chain (burn-in, and per copy).
    random_state : int, RandomState instance or None, default=None
        Seed of the density model, the chain and the tie-breaking.

    Returns
    -------
    result : EqualizedOddsTestResult
        ``(statistic, pvalue)``.

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit.metrics import equalized_odds_test
    >>> rng = np.random.default_rng(0)
    >>> y, a = rng.integers(0, 2, 500), rng.integers(0, 2, 500)
    >>> unfair = y + a + rng.normal(size=500)
    >>> result = equalized_odds_test(unfair, y, sensitive_features=a, n_permutations=20,
    ...                              random_state=0)
    >>> result.pvalue  # no copy reaches the observed dependence
    0.047619047619047616
    """
    # n_sweeps=0 would make every copy A itself: a p-value decided by tie-breaking alone
    check_scalar(n_permutations, "n_permutations", numbers.Integral, min_val=1)
    check_scalar(n_sweeps, "n_sweeps", numbers.Integral, min_val=1)
    predictions, a, conditioning = _validate(y_pred, sensitive_features, y_true)
    rng = local_generator(random_state)
    density_seed, sampler_seed = rng.integers(np.iinfo(np.int32).max, size=2)
    classification = conditioning.discrete
    log_likelihood = fit_log_likelihood(a, conditioning.codes if classification else conditioning.y,
                                        classification=classification, estimator=density_estimator,
                                        random_state=int(density_seed))
    sampler = ICPSampler(log_likelihood, n_sweeps=n_sweeps, random_state=sampler_seed)
    bandwidth = _median_distance(predictions, rng)
    statistic = _kpc(predictions, a, conditioning, bandwidth, rng)
    block = max(1, _BLOCK_ENTRIES // len(a))  # copies held at once
    exceed = 0
    for start in range(0, n_permutations, block):
        for order in sampler.sample(min(block, n_permutations - start)):
            exceed += _kpc(predictions, a[order], conditioning, bandwidth, rng) >= statistic
    return EqualizedOddsTestResult(float(statistic), (1 + exceed) / (1 + n_permutations))


class _Conditioning(NamedTuple):
    """The label as the KPC graphs use it."""

    y: np.ndarray          # targets (standardized if real)
    codes: np.ndarray      # class codes (discrete labels) or None
    discrete: bool


def _validate(y_pred, sensitive_features, y_true):
    check_same_index(y_pred=y_pred, y_true=y_true, sensitive_features=sensitive_features)
    predictions = check_numbers(y_pred, input_name="y_pred", ensure_2d=False,
                                expected="predictions must be numbers (probabilities, scores or real "
                                         "predictions); encode class labels as numbers first, e.g. "
                                         "with sklearn.preprocessing.LabelEncoder.")
    if predictions.ndim == 1:
        predictions = predictions[:, None]
    y_true = one_per_sample(check_array(y_true, ensure_2d=False, dtype=None, input_name="y_true"),
                            "y_true")
    check_same_length(y_pred=predictions, y_true=y_true)
    frame = check_sensitive_features(sensitive_features, len(y_true), samples_of="y_true")
    if len(y_true) < 3:
        raise ValueError(f"Kernel partial correlation needs at least 3 samples, got {len(y_true)}.")
    a = sensitive_encoder(frame).transform(frame)
    if type_of_target(y_true) in ("binary", "multiclass"):
        codes = np.unique(y_true, return_inverse=True)[1]
        return predictions, a, _Conditioning(y_true, codes, True)
    y = np.asarray(y_true, dtype=np.float64)
    return predictions, a, _Conditioning((y - y.mean()) / (y.std() or 1.0), None, False)


def _median_distance(predictions, rng):
    """Median Euclidean distance between predictions (over a subsample of rows if many)."""
    if len(predictions) > _BANDWIDTH_SAMPLES:
        predictions = predictions[rng.choice(len(predictions), _BANDWIDTH_SAMPLES, replace=False)]
    return float(np.median(pdist(predictions)))


def _kpc(predictions, a, conditioning, bandwidth, rng):
    if conditioning.discrete:
        # labels far apart: nearest neighbours share the label whenever another sample has it
        spread = np.sqrt(np.sum(np.ptp(a, axis=0) ** 2)) + 1.0 if a.size else 1.0
        label = (spread * conditioning.codes)[:, None]
    else:
        label = conditioning.y[:, None]
    t_label = _graph_mean_kernel(predictions, label, bandwidth, rng)
    t_both = _graph_mean_kernel(predictions, np.column_stack([label, a]), bandwidth, rng)
    if t_label >= 1.0:
        return 0.0
    return (t_both - t_label) / (1.0 - t_label)


def _graph_mean_kernel(predictions, W, bandwidth, rng):
    """T(W) = mean_i k(Ŷᵢ, Ŷ_N(i)) over the 1-nearest-neighbour graph of W."""
    neighbors = _nearest_neighbors(W, rng)
    squared = np.sum((predictions - predictions[neighbors]) ** 2, axis=1)
    if bandwidth == 0:  # the limit of the Gaussian kernel: equal or not
        return float(np.mean(squared == 0))
    return float(np.mean(np.exp(-squared / (2 * bandwidth ** 2))))


def _nearest_neighbors(W, rng):
    """Nearest other sample of each row of W, ties broken uniformly at random.

    Rows with exact duplicates take a random duplicate; the others take the nearest
    distinct row (a random one of those at the same distance, weighted by how many
    samples share it) and then a random sample with that value.
    """
    values, group, counts = np.unique(W, axis=0, return_inverse=True, return_counts=True)
    group = group.ravel()
    members = np.argsort(group, kind="stable")  # samples grouped by value
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank = np.empty(len(group), dtype=np.intp)
    rank[members] = np.arange(len(group)) - np.repeat(starts, counts)
    neighbors = np.empty(len(group), dtype=np.intp)

    duplicated = counts[group] > 1
    draw = rng.integers(0, counts[group[duplicated]] - 1)
    draw += draw >= rank[duplicated]  # skip the sample itself
    neighbors[duplicated] = members[starts[group[duplicated]] + draw]

    single = np.flatnonzero(~duplicated)
    if len(single):
        nearest_value = _nearest_other_value(values, group[single], counts, rng)
        pick = rng.integers(0, counts[nearest_value])
        neighbors[single] = members[starts[nearest_value] + pick]
    return neighbors


def _nearest_other_value(values, which, counts, rng):
    """For each distinct value ``values[which[m]]``, the nearest other distinct value (random ties)."""
    tree = KDTree(values)
    k = min(3, len(values))
    distances, indices = tree.query(values[which], k=k)
    nearest = indices[:, 1].copy()
    if k < 3:
        return nearest
    tied = np.flatnonzero(distances[:, 2] <= distances[:, 1] * (1 + _TIE_TOLERANCE))
    for m in tied:  # rare: equidistant distinct values (lattice data)
        radius = distances[m, 1] * (1 + _TIE_TOLERANCE)
        candidates = tree.query_radius(values[which[m]][None, :], r=radius)[0]
        candidates = candidates[candidates != which[m]]
        weights = counts[candidates] / counts[candidates].sum()
        nearest[m] = rng.choice(candidates, p=weights)
    return nearest
