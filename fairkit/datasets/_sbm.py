"""The modified stochastic block model of Kleindessner et al. (2019), generated sparse."""

import numbers

import numpy as np
from scipy import sparse

from fairkit.utils._random import local_random_state
from fairkit.utils._sklearn_compat import Interval, validate_params

__all__ = ["make_fair_sbm"]


def _bernoulli_positions(rng, n_trials, p):
    """Indices of the successes among ``n_trials`` independent Bernoulli(p) trials, in O(successes).

    The gaps between successes of a Bernoulli process are geometric, so their
    cumulative sums are the success positions.
    """
    if p == 0 or n_trials == 0:
        return np.empty(0, dtype=np.int64)
    expected = n_trials * p
    positions = []
    last = -1
    while last < n_trials:
        gaps = rng.geometric(p, size=int(expected + 5 * np.sqrt(expected) + 10))
        steps = last + np.cumsum(gaps)
        positions.append(steps)
        last = steps[-1]
        expected = (n_trials - last) * p
    positions = np.concatenate(positions)
    return positions[positions < n_trials]


@validate_params(
    {
        "n_samples": [Interval(numbers.Integral, 1, None, closed="left")],
        "n_clusters": [Interval(numbers.Integral, 1, None, closed="left")],
        "n_groups": [Interval(numbers.Integral, 1, None, closed="left")],
        "probabilities": ["array-like"],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_fair_sbm(n_samples=1000, n_clusters=5, n_groups=2, *, probabilities=(0.4, 0.3, 0.2, 0.1),
                  random_state=None):
    """Random graph of the modified stochastic block model (Kleindessner et al., 2019).

    The samples are split into ``n_clusters`` clusters and, independently, into
    ``n_groups`` groups, giving ``n_clusters * n_groups`` blocks of (nearly) equal size,
    so every cluster holds every group in the same proportion. Each pair of samples is
    joined by an edge independently with probability

    ========================  ============  =================
    \\                         same group    different group
    ========================  ============  =================
    same cluster              ``a``         ``c``
    different cluster         ``b``         ``d``
    ========================  ============  =================

    With ``a > b > c > d`` the groups form stronger communities than the clusters:
    unconstrained spectral clustering tends to recover the groups, whereas the fair,
    proportionally balanced clustering recovers the true clusters. The graph is
    sampled block by block in time and memory proportional to its edges (no dense
    ``n_samples x n_samples`` matrix).

    Parameters
    ----------
    n_samples : int, default=1000
        Number of vertices.
    n_clusters : int, default=5
        Number of true clusters ``k``.
    n_groups : int, default=2
        Number of groups ``h``.
    probabilities : tuple of 4 floats, default=(0.4, 0.3, 0.2, 0.1)
        The edge probabilities ``(a, b, c, d)`` described above, each in [0, 1].
    random_state : int, RandomState instance or None, default=None
        Seed of the sampling.

    Returns
    -------
    adjacency : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Symmetric 0/1 adjacency matrix without self-loops.
    groups : ndarray of int of shape (n_samples,)
        Group of each vertex, in ``0 .. n_groups - 1``.
    clusters : ndarray of int of shape (n_samples,)
        True cluster of each vertex, in ``0 .. n_clusters - 1``. Vertices are ordered
        by cluster, then by group.

    References
    ----------
    M. Kleindessner, S. Samadi, P. Awasthi, J. Morgenstern. "Guarantees for Spectral
    Clustering with Fairness Constraints." ICML 2019 (Section 5, variant of the SBM).

    Examples
    --------
    >>> from fairkit.datasets import make_fair_sbm
    >>> A, groups, clusters = make_fair_sbm(200, n_clusters=2, n_groups=2, random_state=0)
    >>> A.shape, groups[:6].tolist(), clusters[:3].tolist()
    ((200, 200), [0, 0, 0, 0, 0, 0], [0, 0, 0])
    >>> bool((A != A.T).nnz == 0 and A.diagonal().sum() == 0)
    True
    """
    probs = np.asarray(probabilities, dtype=float)
    if probs.shape != (4,) or not np.all((probs >= 0) & (probs <= 1)):
        raise ValueError("probabilities must be 4 numbers (a, b, c, d) in [0, 1], "
                         f"got {probabilities!r}.")
    a, b, c, d = probs
    n_blocks = n_clusters * n_groups
    if n_samples < n_blocks:
        raise ValueError(f"n_samples={n_samples} is smaller than n_clusters * n_groups = "
                         f"{n_blocks}; every (cluster, group) block needs at least one vertex.")
    rng = local_random_state(random_state)
    sizes = np.full(n_blocks, n_samples // n_blocks)
    sizes[: n_samples % n_blocks] += 1
    starts = np.concatenate([[0], np.cumsum(sizes)])
    block_cluster, block_group = np.divmod(np.arange(n_blocks), n_groups)
    rows, cols = [], []
    for i in range(n_blocks):
        for j in range(i, n_blocks):
            same_cluster = block_cluster[i] == block_cluster[j]
            same_group = block_group[i] == block_group[j]
            p = (a if same_group else c) if same_cluster else (b if same_group else d)
            flat = _bernoulli_positions(rng, sizes[i] * sizes[j], p)
            r, s = np.divmod(flat, sizes[j])
            if i == j:  # a diagonal block: keep each unordered pair once
                r, s = r[r < s], s[r < s]
            rows.append(r + starts[i])
            cols.append(s + starts[j])
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    adjacency = sparse.csr_matrix(
        (np.ones(2 * rows.size), (np.concatenate([rows, cols]), np.concatenate([cols, rows]))),
        shape=(n_samples, n_samples))
    block = np.repeat(np.arange(n_blocks), sizes)
    return adjacency, block_group[block], block_cluster[block]
