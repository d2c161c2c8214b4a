import numpy as np
import pandas as pd
import pytest
from scipy import linalg, sparse
from scipy.sparse.csgraph import connected_components
from sklearn.cluster import KMeans, SpectralClustering
from sklearn.datasets import make_blobs
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.neighbors import kneighbors_graph
from sklearn.utils import check_random_state

import fairkit.cluster._fair_spectral as fair_spectral_module
import fairkit.cluster._solvers as solvers_module
from fairkit.cluster import FairSpectralClustering
from fairkit.cluster._solvers import (
    FairProblem,
    _orthonormalizer,
    connected_component_labels,
    solve_admm,
    solve_dense,
    solve_eigsh,
)
from fairkit.datasets import make_fair_sbm
from fairkit.exceptions import FairkitWarning
from fairkit.metrics import balance
from fairkit.utils.estimator_checks import parametrize_with_checks
from fairkit.utils.validation import NO_GROUP

# tests/test_common.py checks the instances of get_test_params(); here a precomputed affinity.
# These checks pass feature matrices or random non-symmetric sparse matrices, which are not
# affinity matrices of a graph.
_NOT_AN_AFFINITY = "the check passes data that is not a symmetric affinity matrix"


@parametrize_with_checks(
    [FairSpectralClustering(2, affinity="precomputed", n_init=2)],
    expected_failed_checks=lambda estimator: {
        "check_estimator_sparse_tag": _NOT_AN_AFFINITY,
        "check_estimator_sparse_array": _NOT_AN_AFFINITY,
        "check_estimator_sparse_matrix": _NOT_AN_AFFINITY,
        "check_clustering": _NOT_AN_AFFINITY,
        "check_clustering(readonly_memmap=True)": _NOT_AN_AFFINITY,
        "check_fit2d_1feature": "a linear kernel of 1 feature leaves a sample without edges",
        **dict.fromkeys(["check_fit_leaves_no_state_on_bad_sensitive_features",
                         "check_reproducible", "check_pickle_roundtrip", "check_skops_roundtrip",
                         "check_no_global_rng_mutation", "check_routing_pipeline_gridsearch"],
                        "fairkit's fairness checks pass a feature matrix, not an affinity"),
    })
def test_precomputed_affinity_is_sklearn_compatible(estimator, check):
    check(estimator)


def _log_scaled(n):
    """The SBM probabilities of the s-FSC experiments: (10, 7, 4, 1) * (log n / n)^(2/3)."""
    return tuple(np.array([10, 7, 4, 1]) * (np.log(n) / n) ** (2 / 3))


def _problem(n, k, h, probabilities=(0.4, 0.3, 0.2, 0.1), normalized=True, seed=0):
    W, groups, _ = make_fair_sbm(n, k, h, probabilities=probabilities, random_state=seed)
    return FairProblem.from_graph(W, groups, normalized=normalized)


def _subspace_distance(X1, X2):
    """Frobenius distance between the orthogonal projectors onto col(X1) and col(X2)."""
    k = X1.shape[1]
    return np.sqrt(max(2 * k - 2 * np.linalg.norm(X1.T @ X2) ** 2, 0))


def _solve_all(problem, k):
    rng = check_random_state(0)
    return {"dense": solve_dense(problem, k),
            "eigsh": solve_eigsh(problem, k, random_state=rng)[0],
            "admm": solve_admm(problem, k, tol=1e-8, max_iter=3000, random_state=rng)[0]}


def _check_solvers_agree(problem, k, admm_rtol=1e-6, admm_subspace=1e-2):
    # objectives agree to 1e-6; subspaces to about sqrt(objective gap / eigengap)
    solutions = _solve_all(problem, k)
    best = problem.objective(solutions["dense"])
    for name, X in solutions.items():
        rtol, distance = (admm_rtol, admm_subspace) if name == "admm" else (1e-6, 1e-2)
        np.testing.assert_allclose(X.T @ X, np.eye(k), atol=1e-8, err_msg=name)
        residual = np.linalg.norm(problem.group_matrix.T @ problem.embedding(X))
        assert residual <= 1e-6, (name, residual)
        assert abs(problem.objective(X) - best) <= rtol * best, (name, problem.objective(X), best)
        assert _subspace_distance(X, solutions["dense"]) <= distance, name


@pytest.mark.parametrize("h", [2, 5])
def test_solvers_reach_the_same_optimum(h):
    _check_solvers_agree(_problem(300, 5, h, _log_scaled(300)), 5)


@pytest.mark.parametrize("h", [3, pytest.param(5, marks=pytest.mark.slow)])
def test_solvers_reach_the_same_optimum_unnormalized(h):
    # DC-ADMM converges slowly on the unnormalized Laplacian: its DC shift, the spectral bound
    # 2 max(d), is wide compared with the eigengap (see the user guide); within 3000
    # iterations it gets the objective to 1e-4 but not yet the subspace
    _check_solvers_agree(_problem(300, 5, h, _log_scaled(300), normalized=False), 5,
                         admm_rtol=1e-4, admm_subspace=0.5)


@pytest.mark.slow
@pytest.mark.parametrize("n", [1000, 2000, 3000])
@pytest.mark.parametrize("h", [2, 5])
def test_solvers_reach_the_same_optimum_large(n, h):
    _check_solvers_agree(_problem(n, 5, h, _log_scaled(n)), 5)


def _generalized_oracle(problem, k):
    """Sum of the k smallest eigenvalues of (Z^T L Z, Z^T D Z), Z = null(F^T) from an SVD."""
    Z = linalg.null_space(problem.group_matrix.T)
    L = (sparse.diags(problem.degrees) - problem.adjacency).toarray()
    return linalg.eigh(Z.T @ L @ Z, Z.T @ np.diag(problem.degrees) @ Z, eigvals_only=True)[:k].sum()


def test_dense_solver_matches_generalized_eigenproblem():
    problem = _problem(120, 3, 3, seed=2)
    X = solve_dense(problem, 3)
    assert problem.objective(X) == pytest.approx(_generalized_oracle(problem, 3), rel=1e-10)


def test_fair_optimum_differs_from_unconstrained():
    problem = _problem(400, 5, 2)
    fair = solve_dense(problem, 5)
    lowest, unfair = linalg.eigh(problem.laplacian.toarray(), subset_by_index=[0, 4])
    assert problem.objective(fair) > lowest.sum() + 0.1
    assert _subspace_distance(fair, unfair) > 0.9


@pytest.mark.parametrize("n", [300, pytest.param(1000, marks=pytest.mark.slow)])
def test_admm_escapes_the_unfair_two_cycle(n):
    # A published re-implementation of DC-ADMM 2-cycles on the sign of the unfair direction
    # on this instance and returns the unconstrained subspace (research note, section 5).
    problem = _problem(n, 5, 2)
    X, n_iter, converged = solve_admm(problem, 5, tol=1e-8, max_iter=3000,
                                      random_state=check_random_state(1))
    _, unfair = linalg.eigh(problem.laplacian.toarray(), subset_by_index=[0, 4])
    best = problem.objective(solve_dense(problem, 5))
    assert abs(problem.objective(X) - best) <= 1e-6 * best
    assert np.linalg.norm(problem.constraint.T @ X) < 1e-10
    assert _subspace_distance(X, unfair) > 0.9


@pytest.mark.parametrize("solver", ["dense", "eigsh", "admm"])
def test_fair_clustering_is_more_balanced(solver):
    A, groups, clusters = make_fair_sbm(500, 5, 2, random_state=0)
    fair = FairSpectralClustering(5, affinity="precomputed", solver=solver, tol=1e-3,
                                  max_iter=3000, random_state=0)
    fair.fit(A, sensitive_features=groups)
    unfair = SpectralClustering(5, affinity="precomputed", random_state=0).fit(A)
    assert fair.balance_ == balance(fair.labels_, groups)
    assert fair.balance_ > balance(unfair.labels_, groups) + 0.5
    assert fair.fairness_residual_ < 1e-6


def test_fitted_attributes_and_objective():
    A, groups, _ = make_fair_sbm(300, 3, 2, random_state=1)
    model = FairSpectralClustering(3, affinity="precomputed", solver="eigsh", random_state=0)
    model.fit(A, sensitive_features=np.where(groups == 0, "x", "y"))
    H = model.embedding_
    D = np.asarray(A.sum(axis=1)).ravel()
    L = sparse.diags(D) - A
    np.testing.assert_allclose(H.T @ (D[:, None] * H), np.eye(3), atol=1e-8)
    assert model.objective_ == pytest.approx(np.trace(H.T @ (L @ H)))
    assert model.groups_.tolist() == ["x", "y"] and model.solver_ == "eigsh"
    assert model.labels_.shape == (300,) and model.n_iter_ >= 1


def test_eigsh_falls_back_to_dense_where_arpack_cannot_run_and_says_so():
    X, _ = make_blobs(60, centers=3, random_state=0)
    for solver in ["auto", "eigsh"]:
        with pytest.warns(FairkitWarning):
            model = FairSpectralClustering(59, solver=solver, n_init=1, random_state=0).fit(X)
        assert model.solver_ == "dense" and model.n_iter_ == 1


def test_unnormalized_embedding_is_orthonormal():
    A, groups, _ = make_fair_sbm(300, 3, 3, random_state=1)
    model = FairSpectralClustering(3, affinity="precomputed", laplacian="unnormalized",
                                   random_state=0).fit(A, sensitive_features=groups)
    np.testing.assert_allclose(model.embedding_.T @ model.embedding_, np.eye(3), atol=1e-8)
    assert model.fairness_residual_ < 1e-8


def test_intersectional_groups_are_all_constrained():
    A, groups, _ = make_fair_sbm(400, 2, 4, random_state=0)
    two_columns = np.c_[groups // 2, groups % 2]
    model = FairSpectralClustering(2, affinity="precomputed", random_state=0)
    model.fit(A, sensitive_features=two_columns)
    F = (groups[:, None] == np.arange(4)) - np.bincount(groups) / 400
    assert len(model.groups_) == 4
    assert np.linalg.norm(F.T @ model.embedding_) < 1e-8


def test_without_sensitive_features_is_unconstrained_spectral_clustering():
    A, _, _ = make_fair_sbm(300, 3, 2, random_state=0)
    with pytest.warns(FairkitWarning, match="no sensitive features"):
        model = FairSpectralClustering(3, affinity="precomputed", random_state=0).fit(A)
    d = np.asarray(A.sum(axis=1)).ravel()
    lowest = linalg.eigh(np.eye(300) - A.toarray() / np.sqrt(np.outer(d, d)),
                         eigvals_only=True, subset_by_index=[0, 2])
    assert model.objective_ == pytest.approx(lowest.sum())
    assert model.groups_.tolist() == [NO_GROUP]


def test_affinities_match_scikit_learn():
    X, _ = make_blobs(60, centers=3, random_state=0)
    groups = np.arange(60) % 2
    for params in [{"affinity": "rbf", "gamma": 0.5}, {"affinity": "nearest_neighbors"}]:
        ours = FairSpectralClustering(3, random_state=0, **params).fit(X, sensitive_features=groups)
        theirs = SpectralClustering(3, random_state=0, **params).fit(X)
        expected = theirs.affinity_matrix_
        diff = ours.affinity_matrix_ - expected
        assert abs(diff).max() < 1e-12


@pytest.mark.parametrize("affinity", ["rbf", "nearest_neighbors"])
def test_n_jobs_parallelizes_the_affinity_without_changing_it(affinity):
    X, _ = make_blobs(80, centers=3, random_state=0)
    groups = np.arange(80) % 2
    serial = FairSpectralClustering(3, affinity=affinity, random_state=0).fit(X, sensitive_features=groups)
    parallel = FairSpectralClustering(3, affinity=affinity, n_jobs=2, random_state=0).fit(
        X, sensitive_features=groups)
    assert abs(parallel.affinity_matrix_ - serial.affinity_matrix_).max() < 1e-12
    np.testing.assert_array_equal(parallel.labels_, serial.labels_)


def test_sensitive_cols_are_found_and_left_out_of_the_affinity():
    X, _ = make_blobs(60, centers=3, random_state=0)
    groups = np.arange(60) % 2
    frame = pd.DataFrame({"a": X[:, 0], "group": groups, "b": X[:, 1]})
    by_cols = FairSpectralClustering(3, sensitive_cols="group", random_state=0).fit(frame)
    by_arg = FairSpectralClustering(3, random_state=0).fit(X, sensitive_features=groups)
    np.testing.assert_allclose(by_cols.affinity_matrix_, by_arg.affinity_matrix_)
    np.testing.assert_array_equal(by_cols.labels_, by_arg.labels_)
    assert by_cols.feature_names_in_.tolist() == ["a", "group", "b"]


@pytest.mark.parametrize("sparse_format", ["csr", "csc", "coo"])
def test_sensitive_cols_of_a_sparse_matrix(sparse_format):
    X, _ = make_blobs(60, centers=3, random_state=0)
    groups = np.arange(60) % 2
    with_groups = sparse.coo_matrix(np.column_stack([X, groups])).asformat(sparse_format)
    by_cols = FairSpectralClustering(3, sensitive_cols=2, random_state=0).fit(with_groups)
    by_arg = FairSpectralClustering(3, random_state=0).fit(X, sensitive_features=groups)
    np.testing.assert_array_equal(by_cols.labels_, by_arg.labels_)


def test_reproducible():
    A, groups, _ = make_fair_sbm(300, 3, 2, probabilities=_log_scaled(300), random_state=0)
    for solver in ["eigsh", "admm"]:
        model = FairSpectralClustering(3, affinity="precomputed", solver=solver, random_state=3)
        first = model.fit(A, sensitive_features=groups).embedding_.copy()
        np.testing.assert_array_equal(first, model.fit(A, sensitive_features=groups).embedding_)


def _ring_with_isolated_node():
    W = sparse.diags([np.ones(5), np.ones(5)], [1, -1], shape=(6, 6)).tolil()
    W[0, 5] = W[5, 0] = 0
    W = W.tocsr()
    W[5, 4] = W[4, 5] = 0
    W.eliminate_zeros()
    return W


@pytest.mark.parametrize(("affinity", "kwargs", "match"), [
    (_ring_with_isolated_node(), {}, "no edge"),
    (np.array([[0, 1, 0], [0, 0, 1], [1, 1, 0]]), {}, "symmetric"),
    (np.array([[0, -1, 1], [-1, 0, 1], [1, 1, 0]]), {}, "Negative"),
    (np.ones((4, 4)), {"n_clusters": 4}, "too large"),
    (np.ones((4, 3)), {}, "square"),
])
def test_bad_input_raises_and_leaves_no_state(affinity, kwargs, match):
    model = FairSpectralClustering(**{"n_clusters": 2, **kwargs}, affinity="precomputed")
    groups = np.arange(affinity.shape[0]) % 2
    with pytest.raises(ValueError, match=match):
        model.fit(affinity, sensitive_features=groups)
    assert not [name for name in vars(model) if name.endswith("_")]


def test_sensitive_features_length_mismatch():
    model = FairSpectralClustering(2, affinity="precomputed")
    with pytest.raises(ValueError, match="rows"):
        model.fit(np.ones((4, 4)), sensitive_features=[0, 1, 0])


def test_disconnected_graph_warns():
    block = np.ones((4, 4)) - np.eye(4)
    W = linalg.block_diag(block, block)
    with pytest.warns(UserWarning, match="2 connected components"):
        FairSpectralClustering(2, affinity="precomputed", random_state=0).fit(
            W, sensitive_features=np.arange(8) % 2)


def test_eigsh_finds_every_null_vector_of_a_disconnected_graph():
    # a kNN graph of 10 separated blobs has 10 components: eigenvalue 0 of the fair problem is
    # repeated, and ARPACK, started from one vector, finds it once (objective 1.57 instead of
    # 0.58 here); the exact null vectors are deflated instead
    X, blob = make_blobs(600, n_features=10, centers=10, cluster_std=2.0, random_state=0)
    groups = np.where(np.random.default_rng(0).random(600) < 0.7, blob % 3, np.arange(600) % 3)
    knn = kneighbors_graph(X, 10)
    problem = FairProblem.from_graph(sparse.csr_matrix(0.5 * (knn + knn.T)), groups)
    null = problem.fair_null_vectors(10)
    assert null.shape[1] == 8  # 10 components minus 2 constraints
    np.testing.assert_allclose(problem.laplacian @ null, 0, atol=1e-12)
    X, _ = solve_eigsh(problem, 10, tol=1e-6, random_state=check_random_state(0))
    assert problem.objective(X) == pytest.approx(problem.objective(solve_dense(problem, 10)), rel=1e-8)
    assert np.linalg.norm(problem.constraint.T @ X) < 1e-10


# Bad input (issue 14)

def _blobs_of_both_signs():
    X, _ = make_blobs(60, n_features=3, centers=[[-3, 0, 0], [3, 0, 0]], random_state=0)
    return X, np.arange(60) % 2


def _assert_unfitted(model):
    assert not [name for name in vars(model) if name.endswith("_")]


@pytest.mark.parametrize("affinity", ["rbf", "precomputed"])
def test_nan_in_X_is_named(affinity):
    X, groups = _blobs_of_both_signs()
    if affinity == "precomputed":
        X = np.exp(-np.square(X[:, None] - X[None]).sum(axis=2))
    X[3, 1] = np.nan
    model = FairSpectralClustering(2, affinity=affinity)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        model.fit(X, sensitive_features=groups)
    _assert_unfitted(model)


@pytest.mark.parametrize("kernel", ["cosine", "linear", "sigmoid"])
def test_a_kernel_that_gives_negative_affinities_is_named_with_the_non_negative_ones(kernel):
    X, groups = _blobs_of_both_signs()
    model = FairSpectralClustering(2, affinity=kernel)
    with pytest.raises(ValueError, match=rf"affinity='{kernel}' gave negative affinities .*"
                                         r"never negative \('rbf', 'laplacian', 'chi2'\).* clip"):
        model.fit(X, sensitive_features=groups)
    _assert_unfitted(model)


def test_the_cosine_kernel_of_non_negative_features_is_accepted():
    X, groups = _blobs_of_both_signs()
    X = np.abs(X)
    model = FairSpectralClustering(2, affinity="cosine", random_state=0).fit(X, sensitive_features=groups)
    norms = np.linalg.norm(X, axis=1)
    np.testing.assert_allclose(model.affinity_matrix_, X @ X.T / np.outer(norms, norms))


def test_the_never_positive_additive_chi2_kernel_is_refused_as_a_parameter():
    X, groups = _blobs_of_both_signs()
    with pytest.raises(ValueError, match="'affinity' parameter of FairSpectralClustering must be"):
        FairSpectralClustering(2, affinity="additive_chi2").fit(np.abs(X), sensitive_features=groups)


def test_a_negative_precomputed_affinity_names_X():
    W = np.array([[0, -1, 1], [-1, 0, 1], [1, 1, 0]])
    with pytest.raises(ValueError, match="Negative values in data passed to X"):
        FairSpectralClustering(2, affinity="precomputed").fit(W, sensitive_features=[0, 1, 0])


def _rbf_with_gamma(X, gamma):
    return rbf_kernel(X, gamma=gamma)


@pytest.mark.parametrize("affinity", [lambda X: rbf_kernel(X, gamma=0.5), _rbf_with_gamma],
                         ids=["callable of X", "callable of X and gamma"])
def test_a_callable_affinity_is_called_on_X_as_documented(affinity):
    X, groups = _blobs_of_both_signs()
    model = FairSpectralClustering(2, affinity=affinity, gamma=0.5, random_state=0)
    model.fit(X, sensitive_features=groups)
    np.testing.assert_array_equal(model.affinity_matrix_, rbf_kernel(X, gamma=0.5))


def test_a_callable_affinity_of_the_wrong_shape_is_named():
    X, groups = _blobs_of_both_signs()
    model = FairSpectralClustering(2, affinity=lambda X: rbf_kernel(X[:5]))
    with pytest.raises(ValueError, match=r"affinity, a callable, must return the \(60, 60\) affinity matrix"):
        model.fit(X, sensitive_features=groups)
    _assert_unfitted(model)


def test_large_embeddings_are_clustered_from_a_subsample_and_refined_on_all_rows(monkeypatch):
    X, _ = make_blobs(3000, n_features=4, centers=6, cluster_std=1.5, random_state=0)
    full = KMeans(6, n_init=10, random_state=0).fit(X)
    module = fair_spectral_module
    monkeypatch.setattr(module, "_KMEANS_FULL_MAX_SAMPLES", 1000)
    monkeypatch.setattr(module, "_KMEANS_SAMPLE", 300)
    fitted = []
    monkeypatch.setattr(module, "KMeans", lambda **params: fitted.append(params) or KMeans(**params))
    two_stage = module._kmeans(X, 6, 10, check_random_state(0))
    assert two_stage.inertia_ == pytest.approx(full.inertia_, rel=1e-6)  # the same local optimum
    assert [params["n_init"] for params in fitted] == [10, 1]  # the starts on 300 rows, one refinement
    assert two_stage.labels_.shape == (3000,)
    again = module._kmeans(X, 6, 10, check_random_state(0))
    np.testing.assert_array_equal(again.labels_, two_stage.labels_)


def test_admm_orthonormalizer_works_from_the_gram_matrix_and_drops_dependent_columns():
    rng = np.random.default_rng(0)
    B = rng.standard_normal((200, 6)) * np.logspace(-4, 2, 6)  # column norms 1e-4 to 1e2
    B = np.hstack([B, B[:, :2] @ [[1.0], [2.0]]])  # a seventh column that depends on the first two
    V = B @ _orthonormalizer(B.T @ B)
    assert V.shape == (200, 6)
    np.testing.assert_allclose(V.T @ V, np.eye(6), atol=1e-10)
    U = linalg.orth(B)  # the oracle: col(B) from an SVD
    np.testing.assert_allclose(V @ V.T, U @ U.T, atol=1e-8)


def test_admm_started_at_the_fair_optimum_stops_at_once():
    # the multiplier starts at Q Q^T K X_0, which makes a fair stationary X_0 a fixed point of
    # the iteration (with a zero multiplier ADMM first drifts away and needs about 20 iterations)
    problem = _problem(300, 5, 3, _log_scaled(300))
    optimum = solve_dense(problem, 5)
    X, n_iter, converged = solve_admm(problem, 5, start=optimum, tol=1e-8,
                                      random_state=check_random_state(0))
    assert converged and n_iter == 1
    assert _subspace_distance(X, optimum) < 1e-6


def test_admm_warm_start_from_a_nearby_problem_reaches_its_optimum_sooner():
    W, groups, _ = make_fair_sbm(300, 5, 3, probabilities=_log_scaled(300), random_state=0)
    changed = np.random.default_rng(0).choice(300, 6, replace=False)  # 2 % of the nodes change group
    new_groups = groups.copy()
    new_groups[changed] = (groups[changed] + 1) % 3
    problem = FairProblem.from_graph(W, new_groups)
    old_optimum = solve_dense(FairProblem.from_graph(W, groups), 5)
    best = problem.objective(solve_dense(problem, 5))
    runs = {start: solve_admm(problem, 5, start=old_optimum if start == "warm" else None, tol=1e-6,
                              max_iter=3000, random_state=check_random_state(0))
            for start in ("cold", "warm")}
    for X, _, converged in runs.values():
        assert converged
        assert abs(problem.objective(X) - best) <= 1e-6 * best
        assert np.linalg.norm(problem.constraint.T @ X) < 1e-10
    # the start saves the first phase only: the multiplier's linear convergence remains
    assert runs["warm"][1] < 0.75 * runs["cold"][1]


def test_admm_path_over_k_starts_from_fewer_columns():
    problem = _problem(300, 5, 3, _log_scaled(300))
    X, _, converged = solve_admm(problem, 5, start=solve_dense(problem, 3), tol=1e-8, max_iter=3000,
                                 random_state=check_random_state(0))
    best = problem.objective(solve_dense(problem, 5))
    assert converged and X.shape == (300, 5)
    assert abs(problem.objective(X) - best) <= 1e-6 * best


# The graph is validated and built once; a dense affinity stays dense (issue 26)

def _disconnected_sbm():
    """Two SBMs and a small clique: a canonical CSR matrix without self-loops, 3 connected components."""
    A, groups, _ = make_fair_sbm(120, 3, 2, random_state=0)
    clique = np.ones((20, 20)) - np.eye(20)
    W = sparse.block_diag([A, A, clique]).tocsr()
    W.eliminate_zeros()
    return W, np.concatenate([groups, groups, np.arange(20) % 2])


def _variants(W):
    """W as canonical CSR, with self-loops and a stored zero, unsorted, and dense (with self-loops)."""
    loops = (W + sparse.identity(W.shape[0])).tocsr()
    rows = np.repeat(np.arange(W.shape[0]), np.diff(loops.indptr))
    loops.data[(loops.indices == rows) & (rows < 5)] = 0.0  # stored zeros
    unsorted = W.copy()
    for row in range(W.shape[0]):
        span = slice(W.indptr[row], W.indptr[row + 1])
        unsorted.indices[span], unsorted.data[span] = W.indices[span][::-1], W.data[span][::-1]
    unsorted.has_sorted_indices = False
    return {"canonical": W, "self-loops": loops, "unsorted": unsorted, "dense": loops.toarray()}


def _state(W):
    return [a.copy() for a in ((W.data, W.indices, W.indptr) if sparse.issparse(W) else (W,))]


@pytest.mark.parametrize("variant", ["canonical", "self-loops", "unsorted", "dense"])
@pytest.mark.parametrize("solver", ["dense", "eigsh", "admm"])
def test_fit_leaves_the_users_affinity_unchanged(variant, solver):
    W = _variants(_disconnected_sbm()[0])[variant]
    groups = np.arange(W.shape[0]) % 2
    before = _state(W)
    with pytest.warns(UserWarning, match="3 connected components"):
        FairSpectralClustering(3, affinity="precomputed", solver=solver, random_state=0, tol=1e-3).fit(
            W, sensitive_features=groups)
    for old, new in zip(before, _state(W), strict=True):
        np.testing.assert_array_equal(old, new)


def test_a_canonical_sparse_affinity_is_used_without_a_copy_and_others_are_cleaned():
    W, _ = _disconnected_sbm()
    for variant, matrix in _variants(W).items():
        if variant == "dense":
            continue
        graph = fair_spectral_module._without_self_loops(matrix)
        assert np.shares_memory(graph.data, matrix.data) == (variant == "canonical"), variant
        assert graph.diagonal().sum() == 0 and graph.data.all(), variant
        np.testing.assert_array_equal(graph.toarray(), W.toarray())
    graph = fair_spectral_module._without_self_loops(sparse.csr_array(W))  # a sparse array, not copied
    assert np.shares_memory(graph.data, W.data)


def test_connected_components_are_computed_once_per_fit(monkeypatch):
    W, groups = _disconnected_sbm()
    calls = []

    def counted(*args, **kwargs):
        calls.append(1)
        return connected_components(*args, **kwargs)

    for module in (solvers_module, fair_spectral_module):  # each ran it once before issue 26
        monkeypatch.setattr(module, "connected_components", counted, raising=False)
    with pytest.warns(UserWarning, match="3 connected components"):
        model = FairSpectralClustering(3, affinity="precomputed", solver="eigsh", random_state=0)
        model.fit(W, sensitive_features=groups)
    assert len(calls) == 1


@pytest.mark.parametrize("normalized", [True, False])
def test_eigsh_finds_the_null_vectors_of_components_that_hold_the_groups_in_proportion(normalized):
    # each component holds the two groups half and half, as the whole graph does: all 3 of its
    # indicators are fair, eigenvalue 0 has 3 fair eigenvectors, and the fair optimum for k = 3
    # is 0 (at HEAD before issue 26, 2 null vectors were found and eigsh stopped at 0.52)
    W, groups = _disconnected_sbm()
    problem = FairProblem.from_graph(W, groups, normalized=normalized)
    null = problem.fair_null_vectors(3)
    assert null.shape[1] == 3
    np.testing.assert_allclose(null.T @ null, np.eye(3), atol=1e-12)
    np.testing.assert_allclose(problem.laplacian @ null, 0, atol=1e-12)
    np.testing.assert_allclose(problem.constraint.T @ null, 0, atol=1e-12)
    X, _ = solve_eigsh(problem, 3, random_state=check_random_state(0))
    assert problem.objective(X) == pytest.approx(problem.objective(solve_dense(problem, 3)), abs=1e-10)


def test_dense_connected_components_are_numbered_as_scipy_numbers_them():
    W, _ = _disconnected_sbm()
    order = np.random.default_rng(0).permutation(W.shape[0])
    W = W[order][:, order].toarray()
    W[7] = W[:, 7] = 0  # an isolated node
    W[7, 7] = 1.0  # with a self-loop, which is no edge
    labels = connected_component_labels(W)
    np.testing.assert_array_equal(labels, connected_components(sparse.csr_matrix(W - np.diag(np.diag(W))))[1])
    assert labels.max() + 1 == 4


@pytest.mark.parametrize("normalized", [True, False])
def test_the_dense_laplacian_operator_applies_the_sparse_laplacian(normalized):
    W, groups = _disconnected_sbm()
    dense = _variants(W)["dense"]  # with self-loops, which the operator ignores
    sparse_problem = FairProblem.from_graph(W, groups, normalized=normalized)
    problem = FairProblem.from_graph(dense, groups, normalized=normalized)
    assert problem.adjacency is dense  # neither copied nor converted
    np.testing.assert_allclose(problem.degrees, sparse_problem.degrees, rtol=1e-14)
    np.testing.assert_array_equal(problem.components, sparse_problem.components)
    Z = np.random.default_rng(0).standard_normal((W.shape[0], 4))
    expected = sparse_problem.laplacian @ Z
    np.testing.assert_allclose(problem.laplacian @ Z, expected, atol=1e-12)
    np.testing.assert_allclose(problem.laplacian @ Z[:, 0], expected[:, 0], atol=1e-12)
    np.testing.assert_allclose(problem.laplacian.toarray(), sparse_problem.laplacian.toarray(), atol=1e-14)
    np.testing.assert_array_equal(dense, _variants(W)["dense"])  # the user's array is unchanged


@pytest.mark.parametrize("laplacian", ["normalized", "unnormalized"])
@pytest.mark.parametrize("solver", ["dense", "eigsh", "admm"])
def test_a_dense_affinity_gives_the_results_of_the_same_sparse_one(solver, laplacian):
    X, blob = make_blobs(150, n_features=4, centers=3, random_state=0)
    groups = np.where(np.random.default_rng(0).random(150) < 0.7, blob % 2, np.arange(150) % 2)
    kernel = rbf_kernel(X, gamma=0.1)  # dense, with self-loops of 1
    fits = [FairSpectralClustering(3, affinity="precomputed", solver=solver, laplacian=laplacian,
                                   random_state=0, tol=1e-8, max_iter=3000).fit(
        affinity, sensitive_features=groups) for affinity in (kernel, sparse.csr_matrix(kernel))]
    assert fits[0].objective_ == pytest.approx(fits[1].objective_, rel=1e-8)
    np.testing.assert_array_equal(fits[0].labels_, fits[1].labels_)
    assert fits[0].affinity_matrix_ is kernel
    rbf = FairSpectralClustering(3, gamma=0.1, solver=solver, laplacian=laplacian, random_state=0,
                                 tol=1e-8, max_iter=3000).fit(X, sensitive_features=groups)
    assert rbf.objective_ == fits[0].objective_
    np.testing.assert_array_equal(rbf.affinity_matrix_, kernel)  # the kernel, self-loops included


def test_a_dense_affinity_with_an_isolated_node_is_refused():
    W = _ring_with_isolated_node().toarray()
    W[5, 5] = 1.0  # a self-loop is no edge
    with pytest.raises(ValueError, match=r"1 sample\(s\) have no edge \(e.g. sample 5\)"):
        FairSpectralClustering(2, affinity="precomputed").fit(W, sensitive_features=np.arange(6) % 2)
