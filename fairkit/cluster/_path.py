"""The fairness-quality path of fair spectral clustering: from unconstrained to exactly fair."""

import time

import numpy as np
import pandas as pd
from sklearn.base import clone

from fairkit.cluster._fair_spectral import FairSpectralClustering, _kmeans
from fairkit.cluster._solvers import fairness_penalty
from fairkit.metrics import balance, normalized_cut, ratio_cut
from fairkit.utils._random import local_random_state

__all__ = ["fairness_path"]

#: Denser below 0.25, where the measured paths change most (see the user guide).
DEFAULT_FAIRNESS = (0.0, 0.02, 0.05, 0.1, 0.15, 0.25, 0.5, 1.0)


def _check_fairness_grid(fairness):
    """The levels as a sorted float array without repeats; ``ValueError`` naming the problem."""
    grid = np.asarray(DEFAULT_FAIRNESS if fairness is None else fairness)
    if grid.ndim != 1 or grid.size == 0 or not np.issubdtype(grid.dtype, np.number) \
            or np.issubdtype(grid.dtype, np.complexfloating):
        raise ValueError(f"fairness must be a non-empty 1-D sequence of numbers in [0, 1], "
                         f"e.g. (0, 0.5, 1); got {fairness!r}.")
    grid = grid.astype(np.float64)
    bad = grid[~((grid >= 0) & (grid <= 1))]  # NaN fails both comparisons
    if bad.size:
        raise ValueError(f"fairness levels must lie in [0, 1] (0 unconstrained, 1 exactly fair); "
                         f"got {bad[0]!r}.")
    return np.unique(grid)


def fairness_path(estimator, X, *, sensitive_features=None, fairness=None):
    """Fit a :class:`FairSpectralClustering` along levels of ``fairness``, from off to fully on.

    The graph and the problem are built once; each level ``t`` solves the penalised
    problem ``min tr(X^T A X) + mu ||Q^T X||_F^2`` over orthonormal ``X`` (``mu = sigma t
    / (1 - t)``, see the estimator's ``fairness``), warm-started (``solver="eigsh"``) from
    the previous level's solution, then runs k-means as :meth:`FairSpectralClustering.fit`
    does. Each row equals a separate fit with that ``fairness`` and ``random_state`` (the
    embedding to the solver's tolerance).

    The relaxed cut (``objective``) never decreases and ``constraint_residual`` never
    increases along the path. Proof: let ``X1, X2`` minimise ``f + mu1 g`` and ``f + mu2 g``
    with ``mu1 < mu2``, ``f = tr(X^T A X)`` and ``g = ||Q^T X||^2``. Adding
    ``f1 + mu1 g1 <= f2 + mu1 g2`` and ``f2 + mu2 g2 <= f1 + mu2 g1`` gives
    ``(mu2 - mu1)(g2 - g1) <= 0``, so ``g2 <= g1``, and then the first inequality gives
    ``f2 - f1 >= mu1 (g1 - g2) >= 0``. The cut and balance of the k-means labels need
    not be monotone.

    Parameters
    ----------
    estimator : FairSpectralClustering
        Its settings (graph, Laplacian, solver, ``tol``, k-means, ``random_state``) are
        used; its own ``fairness`` is ignored, and it is not fitted or changed.
    X : {array-like, sparse matrix} of shape (n_samples, n_features) or (n_samples, n_samples)
        As in :meth:`FairSpectralClustering.fit`.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_cols), default=None
        As in :meth:`FairSpectralClustering.fit`.
    fairness : sequence of float in [0, 1], default=None
        The levels; ``None`` means ``(0, 0.02, 0.05, 0.1, 0.15, 0.25, 0.5, 1)``, denser
        where the cut changed most on the graphs measured. They are sorted and repeats
        dropped: the warm starts go from off to fully on.

    Returns
    -------
    path : pandas.DataFrame
        One row per level: ``fairness``; ``penalty`` (``mu``, ``inf`` at 1);
        ``objective`` (the relaxed cut ``tr(H^T L H)``); ``constraint_residual``
        (``||Q^T X||_F``, the penalised quantity); ``fairness_residual``
        (``||F^T H||_F``, as ``fairness_residual_``); ``balance_min`` and
        ``balance_mean`` (:func:`~fairkit.metrics.balance` of the labels, ``agg="min"``
        and ``"mean"``); ``normalized_cut`` (normalized Laplacian) or ``ratio_cut``
        (unnormalized) of the labels; ``seconds`` (the eigen-solve, without k-means);
        ``n_iter``; ``labels`` (an array of the cluster of each sample). The embeddings
        (``n x k`` per level) are not kept.

    Examples
    --------
    >>> from fairkit.cluster import FairSpectralClustering, fairness_path
    >>> from fairkit.datasets import make_fair_sbm
    >>> A, groups, _ = make_fair_sbm(300, n_clusters=3, n_groups=2, random_state=0)
    >>> model = FairSpectralClustering(n_clusters=3, affinity="precomputed", random_state=0)
    >>> path = fairness_path(model, A, sensitive_features=groups, fairness=[0, 0.5, 1])
    >>> bool(path["objective"].is_monotonic_increasing)
    True
    >>> bool(path["constraint_residual"].is_monotonic_decreasing)
    True
    >>> float(path["fairness_residual"].iloc[-1]) < 1e-10
    True
    """
    if not isinstance(estimator, FairSpectralClustering):
        raise TypeError(f"estimator must be a FairSpectralClustering, got {type(estimator).__name__}.")
    grid = _check_fairness_grid(fairness)
    model = clone(estimator)
    model._validate_params()
    groups, codes, affinity, problem = model._problem(X, sensitive_features, grid)
    cut = normalized_cut if problem.normalized else ratio_cut
    rows, start = [], None
    for level in grid:
        rng = local_random_state(model.random_state)  # as a separate fit draws it
        tic = time.perf_counter()
        solution, n_iter, _ = model._solve(problem, level, rng, start=start)
        seconds = time.perf_counter() - tic
        start = solution
        embedding = problem.embedding(solution)
        labels = _kmeans(embedding, model.n_clusters, model.n_init, rng).labels_
        rows.append({
            "fairness": level,
            "penalty": fairness_penalty(level, problem.spectral_bound),
            "objective": problem.objective(solution),
            "constraint_residual": float(np.linalg.norm(problem.constraint.T @ solution)),
            "fairness_residual": float(np.linalg.norm(problem.group_matrix.T @ embedding)),
            "balance_min": balance(labels, codes),
            "balance_mean": balance(labels, codes, agg="mean"),
            cut.__name__: cut(affinity, labels),
            "seconds": seconds,
            "n_iter": n_iter,
            "labels": labels,
        })
    return pd.DataFrame(rows)
