"""FairSpectralClustering: spectral clustering with every group represented proportionally."""

import inspect
import numbers

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import KERNEL_PARAMS, pairwise_kernels
from sklearn.neighbors import kneighbors_graph
from sklearn.utils import check_array
from sklearn.utils.validation import validate_data

from fairkit.cluster._solvers import (
    FairProblem,
    connected_component_labels,
    fairness_penalty,
    solve_admm,
    solve_dense,
    solve_eigsh,
)
from fairkit.metrics import balance
from fairkit.metrics._clustering import check_affinity
from fairkit.utils._random import local_random_state
from fairkit.utils._sklearn_compat import Interval, StrOptions, _fit_context
from fairkit.utils._warnings import warn_user
from fairkit.utils.validation import (
    SENSITIVE_COLS_CONSTRAINT,
    check_numeric_features,
    drop_sensitive_cols,
    fit_groups,
)

__all__ = ["FairSpectralClustering"]

#: "auto" uses the dense solver up to this many samples, s-FSC (eigsh) above (see the benchmark).
_DENSE_MAX_SAMPLES = 50
#: Above this many samples k-means runs its ``n_init`` starts on a random subsample of
#: ``_KMEANS_SAMPLE`` rows and refines the best centres on all rows (see :func:`_kmeans`).
_KMEANS_FULL_MAX_SAMPLES = 100_000
_KMEANS_SAMPLE = 20_000


def _kmeans(embedding, n_clusters, n_init, rng):
    """k-means on the rows of the embedding; past ``_KMEANS_FULL_MAX_SAMPLES`` rows in two stages.

    The ``n_init`` k-means++ starts and their Lloyd runs, which dominate the cost at large
    ``n``, run on a random subsample of ``_KMEANS_SAMPLE`` rows; the centres of the best
    run are then refined by Lloyd's iterations on all rows. On the benchmark's graphs
    (200,000 nodes, k = 50) this reached the inertia of ``n_init`` full runs to 5
    digits, 8-10x faster (``benchmarks/bench_fair_spectral.py`` reports both per size); a
    cluster much smaller than ``n / _KMEANS_SAMPLE`` rows can be missed by the subsample.
    """
    n_samples = embedding.shape[0]
    if n_samples <= _KMEANS_FULL_MAX_SAMPLES:
        return KMeans(n_clusters=n_clusters, n_init=n_init, random_state=rng).fit(embedding)
    sample = rng.choice(n_samples, _KMEANS_SAMPLE, replace=False)
    starts = KMeans(n_clusters=n_clusters, n_init=n_init, random_state=rng).fit(embedding[sample])
    return KMeans(n_clusters=n_clusters, init=starts.cluster_centers_, n_init=1,
                  random_state=rng).fit(embedding)


def _without_self_loops(W):
    """A sparse affinity as CSR without self-loops or stored zeros.

    A canonical matrix (sorted indices, no duplicates) without them is returned as it is,
    sharing the arrays of the user's matrix; any other is copied (and left as the copy's
    ``setdiag`` and ``eliminate_zeros`` leave it), so the user's matrix is never modified.
    """
    W = sparse.csr_matrix(W)  # shares the arrays of a CSR array or matrix
    if W.has_canonical_format and not W.diagonal().any() and W.data.all():
        return W
    W = W.copy()
    W.setdiag(0)
    W.eliminate_zeros()
    return W


class FairSpectralClustering(ClusterMixin, BaseEstimator):
    """Spectral clustering under group fairness constraints (FSC, s-FSC, DC-ADMM).

    Every sensitive group should be represented in each cluster in the same proportion
    as in the whole data set. With ``F`` the ``n x (h-1)`` matrix of centred group
    indicators, fair spectral clustering (Kleindessner et al., 2019) adds the linear
    constraint ``F^T H = 0`` to the relaxation of RatioCut (``laplacian="unnormalized"``:
    min tr(H^T L H), H^T H = I) or NCut (``"normalized"``: H^T D H = I), then runs
    k-means on the rows of ``H``. Three solvers give the same optimum:

    - ``"dense"``: FSC (Kleindessner et al., 2019), an eigendecomposition on an
      orthonormal basis of ``null(F^T)``; O(n^3) time, O(n^2) memory.
    - ``"eigsh"``: s-FSC (Wang, Lu, Davidson and Bai, AISTATS 2023), Lanczos
      (``scipy.sparse.linalg.eigsh``) on an implicit deflated operator, with products
      with the Laplacian only (sparse, or with the dense affinity).
    - ``"admm"``: the difference-of-convex ADMM of Tonin, Lambert, Suykens and Cevher
      (ICML 2025): a copy of the embedding carries the fairness constraint, the
      orthogonality is met by polar factors (no eigendecomposition), the penalty is
      balanced by Boyd's rule.
    - ``"auto"``: ``"dense"`` up to 50 samples, ``"eigsh"`` above; the benchmark
      ``benchmarks/bench_fair_spectral.py`` measured it the fastest.

    ``fairness`` below 1 relaxes the constraint into a penalty, from unconstrained
    spectral clustering (0) to the exact constraint (1); :func:`~fairkit.cluster.fairness_path`
    traces it.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters ``k`` (and dimension of the embedding).
    affinity : str or callable, default="rbf"
        How to build the affinity matrix, as in :class:`sklearn.cluster.SpectralClustering`:
        ``"nearest_neighbors"`` (symmetrised k-nearest-neighbour connectivity),
        ``"rbf"`` or another kernel of :func:`sklearn.metrics.pairwise_kernels`,
        ``"precomputed"`` (``X`` is a symmetric affinity matrix, dense or sparse), or a
        callable of ``X`` (and ``gamma``, when it takes it) returning one. Affinities are
        graph weights and must be ``>= 0``: ``"rbf"``, ``"laplacian"`` and ``"chi2"`` always
        are; ``"cosine"``, ``"linear"``, ``"poly"`` and ``"sigmoid"`` are on non-negative
        features (counts, tf-idf) but can be negative otherwise, and ``fit`` then raises a
        ``ValueError`` that says so. ``"additive_chi2"`` (minus a chi-squared distance,
        never positive) is not accepted. A dense affinity (a kernel, or a dense precomputed
        matrix) stays dense: the solvers multiply by it (BLAS-3 products), and it is neither
        copied nor converted to a sparse matrix.
    gamma : float, default=1.0
        Kernel coefficient of the rbf, polynomial, sigmoid, laplacian and chi2 kernels.
    n_neighbors : int, default=10
        Number of neighbours of ``affinity="nearest_neighbors"``.
    laplacian : {"normalized", "unnormalized"}, default="normalized"
        Relax NCut (``H^T D H = I``) or RatioCut (``H^T H = I``).
    fairness : float in [0, 1], default=1.0
        How strongly the constraint holds. 1 is the exact constraint; below 1 the
        embedding minimises ``tr(X^T A X) + mu ||Q^T X||_F^2`` over orthonormal ``X``
        (``Q`` an orthonormal basis of ``col(C)``), with ``mu = sigma t / (1 - t)`` for
        ``t = fairness`` and ``sigma`` the bound of the spectrum of ``A`` (2 for the
        normalized Laplacian): 0 is unconstrained spectral clustering, 0.5 puts the
        penalty at the scale of the whole spectrum. The cut can only grow and
        ``||Q^T X||`` only shrink as ``fairness`` grows. Not with ``solver="admm"``, which
        solves the exact constraint only.
    solver : {"auto", "dense", "eigsh", "admm"}, default="auto"
        See above.
    max_iter : int, default=1000
        Most ADMM iterations (``"admm"``) or ARPACK restarts (``"eigsh"``).
    tol : float, default=1e-6
        Stopping tolerance on the ADMM residuals (``"admm"``, relative to ``sqrt(k)``)
        or on ARPACK's relative eigenvalue accuracy (``"eigsh"``).
    n_init : int, default=10
        Number of k-means runs on the embedding (the papers use 10). They run on
        scikit-learn's OpenMP threads (limit them with ``threadpoolctl``), not on ``n_jobs``.
        Above 100,000 samples they run on a random subsample of 20,000 rows, and the best
        centres are refined on all rows (as accurate on the benchmark's graphs, 8-10x
        faster; see the user guide).
    n_jobs : int, default=None
        Parallel joblib jobs of the affinity: the nearest-neighbour search or the kernel
        matrix, as in :class:`sklearn.cluster.SpectralClustering`. ``None`` means 1 unless
        in a :func:`joblib.parallel_backend` context; -1 means all processors.
    sensitive_cols : str, int or list, default=None
        Columns of ``X`` holding the sensitive features, instead of passing them to
        :meth:`fit` (not with ``affinity="precomputed"``). They are left out of the
        affinity, which is computed from the other columns.
    random_state : int, RandomState instance or None, default=None
        Seeds the solvers' starting points and k-means.
    verbose : int, default=0
        Print the ADMM residuals when above 1.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each sample.
    embedding_ : ndarray of shape (n_samples, n_clusters)
        The fair spectral embedding ``H`` that k-means clusters.
    affinity_matrix_ : {ndarray, sparse matrix} of shape (n_samples, n_samples)
        The affinity matrix used (self-loops are ignored).
    objective_ : float
        ``tr(H^T L H)``, the relaxed RatioCut or NCut of the embedding.
    fairness_residual_ : float
        ``||F^T H||_F``; 0 up to round-off for a fair embedding.
    balance_ : float
        :func:`~fairkit.metrics.balance` (minimum over clusters) of ``labels_``.
    n_iter_ : int
        ADMM iterations, ARPACK operator applications, or 1 (one eigendecomposition)
        for ``"dense"``.
    solver_ : str
        The solver used: what ``"auto"`` chose, and ``"dense"`` where ``"eigsh"``
        cannot run (``n_clusters >= n_samples - 1``).
    groups_ : ndarray
        The sensitive groups.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` has feature names that are all strings.

    References
    ----------
    M. Kleindessner, S. Samadi, P. Awasthi, J. Morgenstern. "Guarantees for Spectral
    Clustering with Fairness Constraints." ICML 2019.

    J. Wang, D. Lu, I. Davidson, Z. Bai. "Scalable Spectral Clustering with Group
    Fairness Constraints." AISTATS 2023.

    F. Tonin, A. Lambert, J. A. K. Suykens, V. Cevher. "Accelerating Spectral Clustering
    under Fairness Constraints." ICML 2025.

    Examples
    --------
    >>> from fairkit.cluster import FairSpectralClustering
    >>> from fairkit.datasets import make_fair_sbm
    >>> from fairkit.metrics import balance
    >>> A, groups, clusters = make_fair_sbm(300, n_clusters=3, n_groups=2, random_state=0)
    >>> model = FairSpectralClustering(n_clusters=3, affinity="precomputed", random_state=0)
    >>> labels = model.fit_predict(A, sensitive_features=groups)
    >>> round(model.objective_, 4), bool(model.fairness_residual_ < 1e-10)
    (1.5846, True)
    >>> balance(labels, groups) > 0.8  # unconstrained spectral clustering: 0.0
    True
    """

    _parameter_constraints = {
        "n_clusters": [Interval(numbers.Integral, 1, None, closed="left")],
        "affinity": [callable, StrOptions({"nearest_neighbors", "precomputed",
                                           *(set(KERNEL_PARAMS) - {"additive_chi2"})})],
        "gamma": [Interval(numbers.Real, 0, None, closed="left")],
        "n_neighbors": [Interval(numbers.Integral, 1, None, closed="left")],
        "laplacian": [StrOptions({"normalized", "unnormalized"})],
        "fairness": [Interval(numbers.Real, 0, 1, closed="both")],
        "solver": [StrOptions({"auto", "dense", "eigsh", "admm"})],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "n_init": [Interval(numbers.Integral, 1, None, closed="left")],
        "n_jobs": [None, numbers.Integral],
        "sensitive_cols": SENSITIVE_COLS_CONSTRAINT,
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(self, n_clusters=8, *, affinity="rbf", gamma=1.0, n_neighbors=10,
                 laplacian="normalized", fairness=1.0, solver="auto", max_iter=1000, tol=1e-6,
                 n_init=10, n_jobs=None, sensitive_cols=None, random_state=None, verbose=0):
        self.n_clusters = n_clusters
        self.affinity = affinity
        self.gamma = gamma
        self.n_neighbors = n_neighbors
        self.laplacian = laplacian
        self.fairness = fairness
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.n_jobs = n_jobs
        self.sensitive_cols = sensitive_cols
        self.random_state = random_state
        self.verbose = verbose

    def _affinity(self, X):
        if self.affinity == "precomputed":
            if X.shape[0] != X.shape[1]:
                raise ValueError("With affinity='precomputed', X must be a square affinity matrix, "
                                 f"got shape {X.shape}.")
            return X
        if self.affinity == "nearest_neighbors":
            connectivity = kneighbors_graph(X, n_neighbors=min(self.n_neighbors, X.shape[0] - 1),
                                            include_self=True, n_jobs=self.n_jobs)
            return 0.5 * (connectivity + connectivity.T)
        if callable(self.affinity):
            return self._callable_affinity(X)
        kernel = pairwise_kernels(X, metric=self.affinity, filter_params=True, n_jobs=self.n_jobs,
                                  gamma=self.gamma)
        smallest = np.min(kernel)
        if smallest < 0:
            raise ValueError(
                f"affinity={self.affinity!r} gave negative affinities (the smallest is {smallest:.3g}), "
                "but they are the weights of a graph and must be >= 0: kernels such as 'cosine', "
                "'linear', 'poly' and 'sigmoid' are negative between dissimilar samples when the "
                "features take both signs. Use a kernel that is never negative ('rbf', 'laplacian', "
                "'chi2') or 'nearest_neighbors', or clip the kernel at 0 and pass it with "
                "affinity='precomputed' (e.g. np.clip(cosine_similarity(X), 0, None)).")
        return kernel

    def _callable_affinity(self, X):
        """The matrix ``affinity(X)`` (with ``gamma=`` when the callable takes it), of the right shape."""
        takes_gamma = "gamma" in inspect.signature(self.affinity).parameters
        matrix = self.affinity(X, **({"gamma": self.gamma} if takes_gamma else {}))
        expected = (X.shape[0], X.shape[0])
        if np.shape(matrix) != expected:
            raise ValueError(f"affinity, a callable, must return the {expected} affinity matrix of X's "
                             f"{X.shape[0]} samples; it returned shape {np.shape(matrix)}.")
        return matrix

    def _graph(self, affinity):
        """The checked affinity and the labels of its connected components.

        A dense affinity stays dense (its self-loops are ignored where it is used); a sparse
        one becomes CSR without self-loops or stored zeros, copied only when that changes it.
        """
        name = "X" if self.affinity == "precomputed" else "affinity"
        W = check_affinity(affinity, input_name=name)
        if sparse.issparse(W):
            W = _without_self_loops(W)
        components = connected_component_labels(W)
        isolated = np.flatnonzero(np.bincount(components)[components] == 1)  # no edge: degree 0
        if isolated.size and self.laplacian == "normalized":
            raise ValueError(
                f"{isolated.size} sample(s) have no edge (e.g. sample {isolated[0]}): their degree "
                "is 0 and the normalized Laplacian is undefined. Drop them (e.g. keep the largest "
                "connected component) or use laplacian='unnormalized'.")
        n_components = components.max() + 1
        if n_components > 1:
            warn_user(f"The affinity graph has {n_components} connected components; spectral "
                          "clustering may split them rather than the data's clusters. Consider "
                          "keeping the largest component.", UserWarning)
        return W, components

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, *, sensitive_features=None):
        """Compute the fair spectral embedding and cluster it.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features) or (n_samples, n_samples)
            Samples, or an affinity matrix when ``affinity="precomputed"``.
        y : None
            Ignored.
        sensitive_features : array-like of shape (n_samples,) or (n_samples, n_cols), default=None
            Sensitive group of each sample; several columns form intersectional groups.
            Without them (nor ``sensitive_cols``) the clustering is unconstrained and a
            :class:`~fairkit.exceptions.FairkitWarning` says so.

        Returns
        -------
        self : FairSpectralClustering
        """
        groups, codes, affinity, problem = self._problem(X, sensitive_features, self.fairness)
        rng = local_random_state(self.random_state)
        solution, n_iter, solver = self._solve(problem, self.fairness, rng)
        embedding = problem.embedding(solution)
        kmeans = _kmeans(embedding, self.n_clusters, self.n_init, rng)
        self.affinity_matrix_ = affinity
        self.embedding_ = embedding
        self.labels_ = kmeans.labels_
        self.objective_ = problem.objective(solution)
        self.fairness_residual_ = float(np.linalg.norm(problem.group_matrix.T @ embedding))
        self.balance_ = balance(self.labels_, codes)
        self.n_iter_ = n_iter
        self.solver_ = solver
        self.groups_ = groups
        validate_data(self, X, skip_check_array=True)  # n_features_in_, feature_names_in_
        return self

    def _problem(self, X, sensitive_features, fairness):
        """Validate the data; return the groups, their codes, the affinity and the :class:`FairProblem`.

        ``fairness``, one level or all levels of a path, is checked against the solver before
        any work.
        """
        if self.solver == "admm" and np.min(fairness) < 1:
            raise ValueError(f"solver='admm' solves the exact constraint only (fairness=1), got "
                             f"fairness={float(np.min(fairness))}; use solver='eigsh', 'dense' or 'auto' for "
                             "fairness < 1.")
        if self.affinity == "precomputed" and self.sensitive_cols is not None:
            raise ValueError("sensitive_cols cannot name columns of a precomputed affinity matrix; "
                             "pass sensitive_features to fit instead.")
        groups, codes = fit_groups(self, X, sensitive_features)
        features = drop_sensitive_cols(self, X)
        check_numeric_features(self, features)
        features = check_array(features, accept_sparse=["csr", "csc"], dtype=np.float64,
                               ensure_min_samples=2, input_name="X")
        n_samples, k = features.shape[0], self.n_clusters
        if k > n_samples - len(groups) + 1:
            raise ValueError(f"n_clusters={k} is too large: with {n_samples} samples and "
                             f"{len(groups)} groups the fair embedding has at most "
                             f"{n_samples - len(groups) + 1} dimensions.")
        affinity = self._affinity(features)
        graph, components = self._graph(affinity)
        problem = FairProblem.from_graph(graph, codes, normalized=self.laplacian == "normalized",
                                         components=components)
        return groups, codes, affinity, problem

    def _solve(self, problem, fairness, rng, start=None):
        """The embedding's solution ``X`` at this ``fairness``, the iterations and the solver used.

        ``start``, a solution at a nearby ``fairness``, warm-starts ``"eigsh"``.
        """
        n_samples, k = problem.n_samples, self.n_clusters
        solver = self.solver
        if solver == "auto":
            solver = "dense" if n_samples <= _DENSE_MAX_SAMPLES else "eigsh"
        if solver == "eigsh" and k >= n_samples - 1:
            solver = "dense"  # ARPACK needs k < n - 1
        penalty = fairness_penalty(fairness, problem.spectral_bound)
        n_iter = 1  # the dense solver: one eigendecomposition
        if solver == "dense":
            solution = solve_dense(problem, k, penalty=penalty)
        elif solver == "eigsh":
            solution, n_iter = solve_eigsh(problem, k, penalty=penalty, start=start, tol=self.tol,
                                           max_iter=self.max_iter, random_state=rng)
        else:
            solution, n_iter, converged = solve_admm(problem, k, tol=self.tol,
                                                     max_iter=self.max_iter, random_state=rng,
                                                     verbose=self.verbose)
            if not converged:
                warn_user(f"DC-ADMM did not reach tol={self.tol} in max_iter={self.max_iter} "
                              "iterations; increase max_iter or tol.", ConvergenceWarning)
        return solution, n_iter, solver

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.pairwise = self.affinity == "precomputed"
        tags.input_tags.positive_only = self.affinity == "precomputed"  # affinities are >= 0
        return tags

    @classmethod
    def get_test_params(cls):
        """Small parameter sets for the common estimator checks."""
        return [
            {"n_clusters": 2, "n_init": 2},
            {"n_clusters": 2, "n_init": 2, "solver": "eigsh"},
            {"n_clusters": 2, "n_init": 2, "solver": "admm", "tol": 1e-3},
        ]


def demo(*, quick=False):
    """Balance of spectral clustering vs. fair spectral clustering on a modified SBM.

    On this graph the groups form stronger communities than the true clusters, so
    unconstrained spectral clustering splits by group (balance near 0).

    Returns
    -------
    result : dict
        ``metric``, ``before`` (scikit-learn's SpectralClustering), ``after``
        (FairSpectralClustering) and ``note``.

    Examples
    --------
    >>> from fairkit.cluster._fair_spectral import demo
    >>> result = demo(quick=True)
    >>> result["after"] > result["before"]
    True
    """
    from sklearn.cluster import SpectralClustering

    from fairkit.datasets import make_fair_sbm

    n = 300 if quick else 1000
    A, groups, _ = make_fair_sbm(n, n_clusters=4, n_groups=2, probabilities=(0.4, 0.3, 0.2, 0.1),
                                 random_state=0)
    unfair = SpectralClustering(4, affinity="precomputed", random_state=0).fit_predict(A)
    fair = FairSpectralClustering(4, affinity="precomputed", random_state=0)
    fair.fit(A, sensitive_features=groups)
    return {"metric": "balance (min over clusters)", "before": balance(unfair, groups),
            "after": fair.balance_,
            "note": f"modified SBM, n={n}, 4 clusters, 2 groups; solver {fair.solver_}"}
