"""Solvers of the fair spectral embedding problem: FSC (dense), s-FSC (eigsh) and DC-ADMM (admm).

All three solve, for a graph Laplacian ``A`` and an orthonormal basis ``Q`` of the
constraint space ``col(C)``,

    min tr(X^T A X)  subject to  X^T X = I_k,  Q^T X = 0,

whose solution spans the ``k`` lowest eigenvectors of ``A`` restricted to
``null(C^T)``. For the normalized Laplacian ``A = I - D^{-1/2} W D^{-1/2}``,
``C = D^{-1/2} F`` and the fair embedding is ``H = D^{-1/2} X``; for the unnormalized
one ``A = D - W``, ``C = F`` and ``H = X`` (Kleindessner et al., 2019).
"""

from dataclasses import dataclass, replace

import numpy as np
from scipy import linalg, sparse
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import LinearOperator, eigsh

__all__ = ["FairProblem", "connected_component_labels", "fairness_penalty", "solve_admm", "solve_dense",
           "solve_eigsh"]


def connected_component_labels(adjacency):
    """Labels of the connected components of a symmetric affinity, numbered by their first node.

    A sparse matrix goes to :func:`scipy.sparse.csgraph.connected_components`, which numbers
    them the same way. A dense one is searched breadth-first a block of rows at a time
    (``W > 0`` off the diagonal is an edge) instead: scipy would first copy it into a
    sparse matrix of ``n^2`` entries.
    """
    if sparse.issparse(adjacency):
        return connected_components(adjacency, directed=False)[1]
    n = adjacency.shape[0]
    labels = np.full(n, -1)
    rows_per_block = max(1, 2**22 // n)  # 32 MB of rows at a time
    for component in range(n):
        unlabeled = np.flatnonzero(labels < 0)
        if not unlabeled.size:
            break
        frontier = unlabeled[:1]
        labels[frontier] = component
        while frontier.size and (labels < 0).any():  # a complete graph ends after one row
            reached = np.zeros(n, dtype=bool)
            for start in range(0, frontier.size, rows_per_block):
                reached |= np.any(adjacency[frontier[start:start + rows_per_block]] > 0, axis=0)
            frontier = np.flatnonzero(reached & (labels < 0))
            labels[frontier] = component
    return labels


class _DenseLaplacian(LinearOperator):
    """``D - W`` or ``I - D^{-1/2} W D^{-1/2}`` of a dense affinity ``W``, applied without forming it.

    Products are BLAS-3 products with ``W`` itself, which is neither copied nor modified; its
    diagonal (self-loops) is subtracted from them.
    """

    def __init__(self, adjacency, degrees, normalized):
        super().__init__(np.float64, adjacency.shape)
        self.adjacency, self.degrees, self.normalized = adjacency, degrees, normalized
        self.loops = np.diag(adjacency)[:, None]
        self.scale = 1.0 / np.sqrt(degrees) if normalized else None  # D^{-1/2}

    def adjacency_product(self, Z):
        """``W Z`` without the self-loops."""
        return self.adjacency @ Z - self.loops * Z

    def _matmat(self, Z):
        if not self.normalized:
            return self.degrees[:, None] * Z - self.adjacency_product(Z)
        scale = self.scale[:, None]
        return Z - scale * self.adjacency_product(scale * Z)

    def _adjoint(self):
        return self

    def toarray(self):
        """The Laplacian as an ``n x n`` array (a new one)."""
        if self.normalized:
            laplacian = -self.scale[:, None] * self.adjacency
            laplacian *= self.scale[None, :]
            np.fill_diagonal(laplacian, 1.0)
        else:
            laplacian = -self.adjacency
            np.fill_diagonal(laplacian, self.degrees)
        return laplacian


@dataclass
class FairProblem:
    """The fair spectral embedding problem of one graph.

    Attributes
    ----------
    adjacency : sparse matrix or ndarray of shape (n, n)
        Symmetric affinity ``W``: sparse without self-loops, or dense, whose diagonal
        is ignored.
    degrees : ndarray of shape (n,)
    group_matrix : ndarray of shape (n, h - 1)
        ``F``: column ``s`` is ``1[V_s] - |V_s| / n``; the last group is left out
        because the ``h`` centred indicators sum to zero.
    laplacian : sparse matrix or LinearOperator of shape (n, n)
        ``A``: ``D - W``, or ``I - D^{-1/2} W D^{-1/2}`` when normalized; of a dense ``W``,
        an operator applying it with products with ``W``.
    constraint : ndarray of shape (n, h - 1)
        ``Q``, orthonormal basis of ``col(C)``.
    spectral_bound : float
        An upper bound of the largest eigenvalue of ``A`` (2 when normalized,
        the largest absolute column sum ``2 max(d)`` otherwise).
    normalized : bool
    components : ndarray of shape (n,)
        Labels of the connected components of the graph (:func:`connected_component_labels`).
    """

    adjacency: sparse.spmatrix
    degrees: np.ndarray
    group_matrix: np.ndarray
    laplacian: sparse.spmatrix
    constraint: np.ndarray
    spectral_bound: float
    normalized: bool
    components: np.ndarray

    @classmethod
    def from_graph(cls, adjacency, group_codes, normalized=True, components=None):
        """Build the problem from a symmetric affinity and the group codes.

        A sparse ``adjacency`` must have no self-loops; a dense one is kept as it is, its
        diagonal ignored. ``components``, the labels of :func:`connected_component_labels`,
        are computed when not given.
        """
        n = adjacency.shape[0]
        dense = not sparse.issparse(adjacency)
        degrees = np.asarray(adjacency.sum(axis=1)).ravel()
        if dense:
            degrees -= np.diag(adjacency)  # without the self-loops
        n_groups = group_codes.max() + 1
        indicators = group_codes[:, None] == np.arange(n_groups - 1)[None, :]
        group_matrix = indicators - np.bincount(group_codes, minlength=n_groups)[:-1] / n
        if normalized:
            scale = 1.0 / np.sqrt(degrees)
            constraint, bound = scale[:, None] * group_matrix, 2.0
        else:
            constraint, bound = group_matrix, 2.0 * degrees.max()
        if dense:
            laplacian = _DenseLaplacian(adjacency, degrees, normalized)
        elif normalized:
            laplacian = sparse.csr_matrix(sparse.identity(n, format="csr") - (
                sparse.diags(scale) @ adjacency @ sparse.diags(scale)))
        else:
            laplacian = sparse.csr_matrix(sparse.diags(degrees) - adjacency)
        constraint = np.linalg.qr(constraint)[0] if n_groups > 1 else constraint
        if components is None:
            components = connected_component_labels(adjacency)
        return cls(adjacency, degrees, group_matrix, laplacian, constraint, bound, normalized, components)

    @property
    def n_samples(self):
        return self.adjacency.shape[0]

    def project(self, Z):
        """Orthogonal projection of the columns of ``Z`` onto ``null(C^T)``."""
        Q = self.constraint
        return Z - Q @ (Q.T @ Z)

    def fair_null_vectors(self, max_vectors):
        """Orthonormal fair vectors that ``A`` maps to zero (at most about ``max_vectors``).

        ``A`` vanishes on ``D^{1/2} 1_c`` (normalized) or ``1_c`` for every connected
        component ``c``; the combinations orthogonal to ``col(C)`` are exact solutions of
        eigenvalue 0. A disconnected graph has many of them, and Lanczos, started from a
        single vector, finds one copy of a repeated eigenvalue only. Any
        ``max_vectors + h - 1`` components hold ``max_vectors`` of these vectors.

        Both ``E`` (normalized component indicators) and ``Q`` are orthonormal, so the
        singular values of ``E^T Q`` lie in [0, 1]: those below 1e-10 are zeros of
        round-off, e.g. of components that hold the groups exactly in the proportions of
        the whole, whose indicators are all fair (a threshold relative to the largest one
        would miss them when all are).
        """
        n, labels = self.n_samples, self.components
        n_components = labels.max() + 1
        if n_components == 1:
            return np.empty((n, 0))
        keep = min(n_components, max_vectors + self.constraint.shape[1])
        rows = np.flatnonzero(labels < keep)
        weights = np.sqrt(self.degrees[rows]) if self.normalized else np.ones(rows.size)
        E = sparse.csc_matrix((weights, (rows, labels[rows])), shape=(n, keep))
        E = E @ sparse.diags(1 / np.sqrt(np.asarray(E.power(2).sum(axis=0)).ravel()))
        _, singular, vh = linalg.svd(np.asarray((E.T @ self.constraint).T))
        combinations = vh[np.sum(singular > 1e-10):].T
        return np.asarray(E @ combinations)

    def embedding(self, X):
        """The fair embedding ``H`` of a solution ``X``."""
        return X / np.sqrt(self.degrees)[:, None] if self.normalized else X

    def objective(self, X):
        """``tr(X^T A X)``, which equals ``tr(H^T L H)`` (the relaxed RatioCut or NCut)."""
        return float(np.sum(X * (self.laplacian @ X)))


def _polar(G):
    """Polar factor ``U V^T`` of ``G = U S V^T`` (the closest Stiefel point), via its Gram."""
    w, V = np.linalg.eigh(G.T @ G)
    if w[0] <= w[-1] * 1e-10:  # nearly rank-deficient: the Gram route loses accuracy
        U, _, Vt = np.linalg.svd(G, full_matrices=False)
        return U @ Vt
    return G @ ((V / np.sqrt(w)) @ V.T)


def _orthonormalizer(gram):
    """``T`` such that ``B T`` is an orthonormal basis of ``col(B)``, from the Gram matrix ``B^T B``.

    Columns are scaled to unit norm first and nearly dependent directions are dropped; a
    second pass on ``T^T B^T B T`` removes the round-off of the first. Working on the
    Gram matrix costs one ``n``-sized product instead of three; what it loses in accuracy
    (about ``eps cond(B)^2``) only makes a DC step slightly less than the best in the span.
    """
    scale = 1 / np.sqrt(np.maximum(np.diag(gram), np.finfo(float).tiny))
    w, U = np.linalg.eigh(gram * scale[:, None] * scale[None, :])
    keep = w > w[-1] * 1e-10
    T = scale[:, None] * (U[:, keep] / np.sqrt(w[keep]))
    w, U = np.linalg.eigh(T.T @ gram @ T)
    return T @ ((U / np.sqrt(w)) @ U.T)


def fairness_penalty(fairness, spectral_bound):
    """The penalty weight ``mu = sigma t / (1 - t)`` of the fairness level ``t`` in [0, 1].

    ``t = mu / (sigma + mu)`` is the share of the penalised operator's spectral range
    ``[0, sigma + mu]`` that the penalty takes: 0 is off, 0.5 puts the penalty at the
    scale of the whole spectrum of ``A`` (``sigma`` bounds it), and 1 is the exact
    constraint (an infinite penalty).

    Examples
    --------
    >>> from fairkit.cluster._solvers import fairness_penalty
    >>> fairness_penalty(0.0, 2.0), fairness_penalty(0.5, 2.0), fairness_penalty(1.0, 2.0)
    (0.0, 2.0, inf)
    """
    return np.inf if fairness == 1 else float(spectral_bound * fairness / (1 - fairness))


def _unconstrained(problem):
    """The same graph without fairness constraints (a single group)."""
    empty = np.empty((problem.n_samples, 0))
    return replace(problem, group_matrix=empty, constraint=empty)


def solve_dense(problem, n_components, *, penalty=np.inf):
    """FSC: Algorithms 2 and 3 of Kleindessner et al. (2019), with dense linear algebra.

    ``Z`` is an orthonormal basis of ``null(F^T)`` (from a full QR factorisation of
    ``F``); the embedding holds the ``k`` lowest eigenvectors of ``Z^T L Z``, and in the
    normalized case of ``R^{-1} Z^T L Z R^{-1}`` with ``R = (Z^T D Z)^{1/2}``. Time
    O(n^3), memory O(n^2): for small graphs and as the reference optimum.

    A finite ``penalty`` ``mu`` replaces the constraint by the penalty
    ``mu ||Q^T X||_F^2``: the ``k`` lowest eigenvectors of the dense ``A + mu Q Q^T``.

    Returns
    -------
    X : ndarray of shape (n, k)
        Orthonormal, in the coordinates of ``problem.laplacian``.
    """
    if penalty < np.inf:
        Q = problem.constraint
        penalised = problem.laplacian.toarray() + penalty * (Q @ Q.T)
        return linalg.eigh((penalised + penalised.T) / 2, subset_by_index=[0, n_components - 1])[1]
    F, d = problem.group_matrix, problem.degrees
    n = problem.n_samples
    Z = linalg.qr(F, mode="full")[0][:, F.shape[1]:] if F.shape[1] else np.eye(n)
    if sparse.issparse(problem.adjacency):
        reduced = Z.T @ ((sparse.diags(d) - problem.adjacency) @ Z)
    else:  # (D - W) Z with BLAS-3 products with W
        reduced = Z.T @ (d[:, None] * Z - problem.laplacian.adjacency_product(Z))
    if problem.normalized:
        w, U = linalg.eigh((Z.T * d) @ Z)
        root_inv = (U / np.sqrt(w)) @ U.T  # (Z^T D Z)^{-1/2}
        reduced = root_inv @ reduced @ root_inv
        Z = Z @ root_inv
    _, Y = linalg.eigh((reduced + reduced.T) / 2, subset_by_index=[0, n_components - 1])
    H = Z @ Y
    return H * np.sqrt(d)[:, None] if problem.normalized else H


def solve_eigsh(problem, n_components, *, penalty=np.inf, start=None, tol=0.0, max_iter=None,
                random_state=None):
    """s-FSC: Algorithm 3 of Wang, Lu, Davidson and Bai (2023), with ARPACK's Lanczos.

    The ``k`` smallest eigenpairs of the implicit operator
    ``P A P + sigma (I - P)``, ``P = I - Q Q^T``: the ``h - 1`` directions of
    ``col(C)`` are deflated to ``sigma``, above the spectrum of ``P A P``. Only products
    with ``A`` (sparse, or with a dense affinity) and with the ``n x (h-1)`` matrix ``Q``.
    The paper takes ``sigma = ||L_n||_1``; any bound of ``lambda_max(A)`` gives the same
    eigenvectors, and the tighter bound (2 for the normalized Laplacian) keeps the
    spectrum narrower, which Lanczos converges on faster. On a disconnected graph the
    exact solutions of eigenvalue 0 (see :meth:`FairProblem.fair_null_vectors`) are
    computed directly and deflated too: Lanczos would find only one of them.

    A finite ``penalty`` ``mu`` replaces the constraint by the penalty
    ``mu ||Q^T X||_F^2``: the ``k`` lowest eigenvectors of ``A + mu Q Q^T``, applied
    implicitly, with the spectrum bound ``sigma + mu``. Both terms are positive
    semi-definite, so its eigenvalue-0 vectors are the fair null vectors of ``A`` (all
    null vectors when ``mu = 0``): those are deflated as above. The null vectors of
    ``A`` that are not fair are no eigenvectors of it, and are left to Lanczos.

    ``start``, an ``n x k`` orthonormal solution of a nearby problem (e.g. the previous
    step of a fairness path), warm-starts Lanczos from the random combination of its
    columns ``start start^T v0``, where ``v0`` is the cold start.

    Returns
    -------
    X : ndarray of shape (n, k)
    n_iter : int
        Number of operator applications.
    """
    n = problem.n_samples
    if penalty == 0:
        problem = _unconstrained(problem)
    A, sigma, Q = problem.laplacian, problem.spectral_bound, problem.constraint
    null = problem.fair_null_vectors(n_components)
    if null.shape[1] >= n_components:
        return null[:, :n_components], 1
    # the exact null vectors of a disconnected graph are deflated like the constraints
    exact = penalty == np.inf
    deflated = np.hstack([Q, null]) if exact else null
    shift = sigma if exact else sigma + penalty
    count = [0]

    def project(b):
        return b - deflated @ (deflated.T @ b)

    def apply(b):
        count[0] += 1
        b = b.reshape(n, -1)
        pb = project(b)
        Apb = A @ pb if exact else A @ pb + penalty * (Q @ (Q.T @ pb))
        return project(Apb) + shift * (b - pb)

    operator = LinearOperator((n, n), matvec=apply, matmat=apply, dtype=np.float64)
    v0 = random_state.uniform(-1, 1, n)
    if start is not None:
        v0 = start @ (start.T @ v0)
    _, X = eigsh(operator, n_components - null.shape[1], which="SA", tol=tol, maxiter=max_iter,
                 v0=v0)
    return np.hstack([null, X]), count[0]


def solve_admm(problem, n_components, *, start=None, tol=1e-6, max_iter=1000, random_state=None,
               verbose=0):
    """DC-ADMM for fair spectral clustering (Tonin, Lambert, Suykens and Cevher, ICML 2025).

    Fair SC is written as maximising the convex ``f(X) = 1/2 tr(X^T K X)``,
    ``K = sigma I - A`` (positive semi-definite), over the Stiefel manifold: a
    difference-of-convex (DC) problem. The variable augmentation ``X = Y`` puts the
    orthogonality on ``X`` and the fairness on the copy ``Y in null(C^T)``; ADMM on the
    augmented Lagrangian ``-f(X) + <Lambda, X - Y> + alpha/2 ||X - Y||^2`` then
    alternates

    * X-step, a DC problem: maximise ``f(X) + <alpha Y - Lambda, X>`` over the Stiefel
      manifold. Each DC iteration maximises the linearisation, whose solution is the
      polar factor of the gradient ``K X + alpha Y - Lambda`` (a thin n x k
      factorisation, no eigendecomposition). The iterations are accelerated by
      maximising over the span of ``X``, the gradient and the previous step (a
      ``3k``-dimensional subspace holding the plain DC iterate, so never worse), known
      through its Gram matrices ``B^T B`` and ``B^T K B`` (two BLAS-3 products a step);
    * Y-step: ``Y = P(X + Lambda / alpha)``, a projection onto ``null(C^T)``;
    * multiplier step: ``Lambda += alpha (X - Y)``;

    with the penalty ``alpha`` balanced by Boyd et al.'s residual rule (mu = 10,
    tau = 2) and a stop once the primal residual ``||X - Y||`` and the dual residual
    ``alpha ||Y - Y_prev||`` are below ``tol sqrt(k)``. The problem is not convex, and
    ADMM diverges when the penalty is too small for the curvature of ``f``: the rule
    never takes ``alpha`` below its start, ``sigma / 2`` (1 for the normalized
    Laplacian), the scale of the largest eigenvalue of ``K``. The multiplier starts at
    ``Q Q^T K X_0``, the one that makes a fair ``X_0`` stationary (its least-squares
    estimate), so that a warm start near the optimum starts near the optimal multiplier
    too. The returned ``X`` is the orthonormalised ``Y``, so it meets the fairness
    constraint to round-off.

    Parameters
    ----------
    start : ndarray of shape (n, j), j <= k, default=None
        A warm start, e.g. the solution of a nearby problem (the previous step of a path
        over k or a graph that changed a little): the first ``j`` columns of ``X_0``,
        the others random.

    Returns
    -------
    X : ndarray of shape (n, k)
    n_iter : int
        Number of ADMM iterations.
    converged : bool
    """
    n, k = problem.n_samples, n_components
    A, sigma, Q = problem.laplacian, problem.spectral_bound, problem.constraint

    def apply_K(Z):
        return sigma * Z - A @ Z

    X = random_state.standard_normal((n, k))
    if start is not None:
        X[:, :start.shape[1]] = start
    X = _polar(X)
    KX, step, K_step = apply_K(X), None, None
    Y = problem.project(X)
    multiplier = Q @ (Q.T @ KX)
    alpha = floor = sigma / 2
    threshold = tol * np.sqrt(k)
    for n_iter in range(1, max_iter + 1):
        # X-step: DC iterations over span[X, gradient, previous step] = col(B)
        linear = alpha * Y - multiplier
        gradient = KX + linear
        blocks, K_blocks = [X, gradient], [KX, apply_K(gradient)]  # one product with A a step
        if step is not None:
            blocks.append(step)
            K_blocks.append(K_step)
        B, KB = np.hstack(blocks), np.hstack(K_blocks)
        gram, K_gram = B.T @ B, B.T @ KB
        T = _orthonormalizer(gram)
        reduced = T.T @ K_gram @ T
        reduced = (reduced + reduced.T) / 2
        reduced_gradient = T.T @ gram[:, k:2 * k]  # the gradient is the second block of B
        reduced_linear = reduced_gradient - T.T @ K_gram[:k].T  # linear = gradient - K X
        Z = _polar(reduced_gradient)  # the plain DC iterate, in the subspace
        for _ in range(10):  # a few DC iterations: the ADMM step need not be exact
            Z_next = _polar(reduced @ Z + reduced_linear)
            converged = np.linalg.norm(Z_next - Z) <= 1e-3 * tol
            Z = Z_next
            if converged:
                break
        # as in LOBPCG, the step is the part of the move outside X, and K maps it without
        # cancellation; K X is recomputed now and then against the drift of round-off
        TZ = T @ Z
        step, K_step = B[:, k:] @ TZ[k:], KB[:, k:] @ TZ[k:]
        X = X @ TZ[:k] + step
        KX = apply_K(X) if n_iter % 20 == 0 else KX @ TZ[:k] + K_step
        # Y-step and multiplier step
        Y_prev = Y
        Y = problem.project(X + multiplier / alpha)
        multiplier += alpha * (X - Y)
        primal = np.linalg.norm(X - Y)
        dual = alpha * np.linalg.norm(Y - Y_prev)
        if verbose > 1:
            print(f"admm {n_iter}: alpha={alpha:.3g} primal={primal:.2e} dual={dual:.2e}")
        if primal <= threshold and dual <= threshold:
            return _polar(problem.project(Y)), n_iter, True
        if primal > 10 * dual:
            alpha *= 2
        elif dual > 10 * primal:
            alpha = max(alpha / 2, floor)
    return _polar(problem.project(Y)), max_iter, False
