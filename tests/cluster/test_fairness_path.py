from contextlib import nullcontext

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import linalg, sparse
from sklearn.base import clone
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score
from sklearn.neighbors import kneighbors_graph
from sklearn.utils import check_random_state

from fairkit.cluster import FairSpectralClustering, fairness_path
from fairkit.cluster._solvers import FairProblem, fairness_penalty, solve_dense, solve_eigsh
from fairkit.datasets import make_fair_sbm
from fairkit.metrics import balance, normalized_cut, ratio_cut


def _sbm(n=200, k=4, h=2, seed=0):
    """The modified SBM whose groups dominate the clusters (unconstrained balance near 0)."""
    W, groups, _ = make_fair_sbm(n, k, h, probabilities=(0.4, 0.3, 0.2, 0.1), random_state=seed)
    return W, groups


def _blobs(n=600, centers=10, h=3):
    """A kNN graph of separated blobs: 10 connected components, eigenvalue 0 repeated."""
    X, blob = make_blobs(n, n_features=10, centers=centers, cluster_std=2.0, random_state=0)
    groups = np.where(np.random.default_rng(0).random(n) < 0.7, blob % h, np.arange(n) % h)
    knn = kneighbors_graph(X, 10)
    return sparse.csr_matrix(0.5 * (knn + knn.T)), groups


def _oracle(W, groups, fairness, k, normalized=True):
    """Sum of the k smallest eigenvalues of L + mu Q Q^T, built from scratch with dense scipy."""
    W = np.asarray(W.todense() if sparse.issparse(W) else W, dtype=float)
    d = W.sum(axis=1)
    values = np.unique(groups)
    F = np.column_stack([(groups == g) - np.mean(groups == g) for g in values[:-1]])
    if normalized:
        L, C, sigma = np.eye(len(d)) - W / np.sqrt(np.outer(d, d)), F / np.sqrt(d)[:, None], 2.0
    else:
        L, C, sigma = np.diag(d) - W, F, 2 * d.max()
    Q = linalg.orth(C)
    mu = sigma * fairness / (1 - fairness)
    return linalg.eigvalsh(L + mu * Q @ Q.T)[:k].sum(), mu


@pytest.mark.parametrize("solver", ["dense", "eigsh"])
@pytest.mark.parametrize("graph", ["sbm", "blobs"])
def test_fairness_zero_is_unconstrained_spectral_clustering(solver, graph):
    # 12 clusters of 10 blobs: all 10 null vectors of A, not only the 5 fair ones, and 2 more
    (W, groups), k = (_sbm(), 4) if graph == "sbm" else (_blobs(h=6), 12)
    model = FairSpectralClustering(k, affinity="precomputed", fairness=0.0, solver=solver,
                                   n_init=1, random_state=0)
    with pytest.warns(UserWarning, match="connected components") if graph == "blobs" else nullcontext():
        model.fit(W, sensitive_features=groups)
    expected, _ = _oracle(W, groups, 0.0, k)
    assert model.objective_ == pytest.approx(expected, rel=1e-8, abs=1e-10)
    if graph == "sbm":  # the groups dominate: unconstrained clusters miss a group
        assert model.balance_ < 0.2


@pytest.mark.parametrize("solver", ["dense", "eigsh"])
@pytest.mark.parametrize("fairness", [0.1, 0.5, 0.9])
@pytest.mark.parametrize("laplacian", ["normalized", "unnormalized"])
def test_intermediate_fairness_reaches_the_penalised_optimum(solver, fairness, laplacian):
    W, groups = _sbm(h=3)
    model = FairSpectralClustering(4, affinity="precomputed", laplacian=laplacian, solver=solver,
                                   tol=0, n_init=1, random_state=0)
    path = fairness_path(model, W, sensitive_features=groups, fairness=[fairness])
    expected, mu = _oracle(W, groups, fairness, 4, normalized=laplacian == "normalized")
    row = path.iloc[0]
    assert row["penalty"] == pytest.approx(mu)
    penalised = row["objective"] + mu * row["constraint_residual"] ** 2
    assert penalised == pytest.approx(expected, rel=1e-9)


def test_dense_and_eigsh_agree_at_intermediate_fairness_on_a_disconnected_graph():
    # the null vectors of A that are not fair are no eigenvectors of A + mu Q Q^T: Lanczos
    # must find the low eigenvalues they turn into, besides the deflated fair null vectors
    W, groups = _blobs(h=6)
    problem = FairProblem.from_graph(W, groups)
    for fairness in (0.001, 0.05, 0.25, 0.75):
        mu = fairness_penalty(fairness, problem.spectral_bound)
        dense = solve_dense(problem, 12, penalty=mu)
        lanczos, _ = solve_eigsh(problem, 12, penalty=mu, tol=1e-6, random_state=check_random_state(0))
        penalised = [problem.objective(X) + mu * np.linalg.norm(problem.constraint.T @ X) ** 2
                     for X in (dense, lanczos)]
        assert penalised[1] == pytest.approx(penalised[0], rel=1e-9)
        assert penalised[0] == pytest.approx(_oracle(W, groups, fairness, 12)[0], rel=1e-9)


def test_fairness_one_is_the_exact_constraint_and_the_limit_of_the_penalty():
    W, groups = _sbm(h=3)
    exact = FairSpectralClustering(4, affinity="precomputed", random_state=0).fit(
        W, sensitive_features=groups)
    path = fairness_path(exact, W, sensitive_features=groups, fairness=[0.999999, 1.0])
    assert path["penalty"].iloc[1] == np.inf
    assert path["objective"].iloc[1] == pytest.approx(exact.objective_, rel=1e-8)
    assert path["fairness_residual"].iloc[1] < 1e-10
    # mu = 2e6: the penalised optimum is within O(1 / mu) of the constrained one
    assert path["objective"].iloc[0] == pytest.approx(exact.objective_, rel=1e-5)
    assert 0 < path["constraint_residual"].iloc[0] < 1e-4


@st.composite
def _small_graphs(draw):
    n = draw(st.integers(10, 24))
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    W = rng.random((n, n)) * (rng.random((n, n)) < 0.6)
    W = np.triu(W, 1)
    W = W + W.T
    W[np.arange(n - 1), np.arange(1, n)] += 0.05  # a path keeps it connected
    W[np.arange(1, n), np.arange(n - 1)] += 0.05
    h = draw(st.integers(2, 3))
    groups = np.arange(n) % h
    rng.shuffle(groups)
    levels = np.sort(draw(st.lists(st.floats(0, 0.999), min_size=2, max_size=5)))
    return W, groups, draw(st.integers(2, 4)), levels, draw(st.booleans())


@settings(max_examples=40, deadline=None)
@given(_small_graphs())
def test_cut_grows_and_residual_shrinks_with_the_penalty(case):
    W, groups, k, levels, normalized = case
    problem = FairProblem.from_graph(sparse.csr_matrix(W), groups, normalized=normalized)
    objectives, residuals = [], []
    for fairness in levels:
        X = solve_dense(problem, k, penalty=fairness_penalty(fairness, problem.spectral_bound))
        objectives.append(problem.objective(X))
        residuals.append(np.linalg.norm(problem.constraint.T @ X))
    scale = problem.spectral_bound * k
    assert np.all(np.diff(objectives) >= -1e-9 * scale)
    assert np.all(np.diff(residuals) <= 1e-7)


@pytest.mark.parametrize("graph", ["sbm", "blobs"])
def test_warm_and_cold_starts_reach_the_same_optimum(graph):
    W, groups = _sbm(n=400, k=5, h=3) if graph == "sbm" else _blobs()
    problem = FairProblem.from_graph(W, groups)
    start = None
    for fairness in (0.0, 0.25, 0.5, 0.9, 1.0):
        mu = fairness_penalty(fairness, problem.spectral_bound)
        cold, _ = solve_eigsh(problem, 12, penalty=mu, random_state=check_random_state(0))
        warm, _ = solve_eigsh(problem, 12, penalty=mu, start=start, random_state=check_random_state(0))
        assert problem.objective(warm) == pytest.approx(problem.objective(cold), rel=1e-8)
        np.testing.assert_allclose(warm.T @ warm, np.eye(12), atol=1e-10)
        start = warm


@pytest.mark.parametrize("laplacian", ["normalized", "unnormalized"])
def test_path_rows_equal_separate_fits(laplacian):
    W, groups = _sbm(n=300, k=3, h=2)
    model = FairSpectralClustering(3, affinity="precomputed", laplacian=laplacian, random_state=0)
    path = fairness_path(model, W, sensitive_features=groups, fairness=[0, 0.2, 0.6, 1])
    cut = normalized_cut if laplacian == "normalized" else ratio_cut
    assert list(path.columns) == ["fairness", "penalty", "objective", "constraint_residual",
                                  "fairness_residual", "balance_min", "balance_mean", cut.__name__,
                                  "seconds", "n_iter", "labels"]
    for row in path.itertuples():
        fit = FairSpectralClustering(3, affinity="precomputed", laplacian=laplacian,
                                     fairness=row.fairness, random_state=0).fit(
            W, sensitive_features=groups)
        assert row.objective == pytest.approx(fit.objective_, rel=1e-7)
        assert row.fairness_residual == pytest.approx(fit.fairness_residual_, rel=1e-4, abs=1e-9)
        assert adjusted_rand_score(row.labels, fit.labels_) == 1.0
        assert row.balance_min == pytest.approx(fit.balance_)
        assert row.balance_mean == pytest.approx(balance(fit.labels_, groups, agg="mean"))
        assert getattr(row, cut.__name__) == pytest.approx(cut(W, fit.labels_))
    if laplacian == "normalized":  # the groups dominate the graph; the constraint balances it
        assert path["balance_min"].iloc[0] < 0.2 < 0.8 < path["balance_min"].iloc[-1]
    assert model.get_params()["fairness"] == 1.0 and not hasattr(model, "labels_")


def test_levels_are_sorted_deduplicated_and_default():
    W, groups = _sbm(n=60, k=2)
    model = FairSpectralClustering(2, affinity="precomputed", n_init=1, random_state=0)
    path = fairness_path(model, W, sensitive_features=groups, fairness=[1, 0, 0.5, 0.5])
    assert path["fairness"].tolist() == [0, 0.5, 1]
    default = fairness_path(model, W, sensitive_features=groups)
    assert default["fairness"].tolist() == [0, 0.02, 0.05, 0.1, 0.15, 0.25, 0.5, 1]


@pytest.mark.parametrize("fairness, match", [
    ([0, 1.5], "in \\[0, 1\\].*1.5"),
    ([-0.1, 1], "in \\[0, 1\\].*-0.1"),
    ([0, np.nan], "in \\[0, 1\\].*nan"),
    ([], "non-empty 1-D"),
    ([[0, 1]], "non-empty 1-D"),
    (["low", "high"], "non-empty 1-D"),
])
def test_bad_levels_are_named(fairness, match):
    W, groups = _sbm(n=60, k=2)
    with pytest.raises(ValueError, match=f"fairness.*{match}"):
        fairness_path(FairSpectralClustering(2, affinity="precomputed"), W,
                      sensitive_features=groups, fairness=fairness)


def test_admm_refuses_a_penalty_before_any_work():
    W, groups = _sbm(n=60, k=2)
    model = FairSpectralClustering(2, affinity="precomputed", solver="admm", fairness=0.5)
    with pytest.raises(ValueError, match="solver='admm'.*fairness=1.*fairness=0.5.*'eigsh'"):
        model.fit(W, sensitive_features=groups)
    assert not [name for name in vars(model) if name.endswith("_")]
    with pytest.raises(ValueError, match="solver='admm'.*fairness=0.0"):
        fairness_path(model, W, sensitive_features=groups)
    path = fairness_path(model.set_params(tol=1e-3), W, sensitive_features=groups, fairness=[1])
    assert path["fairness_residual"].iloc[0] < 1e-8


def test_bad_estimator_and_bad_fairness_parameter_are_named():
    W, groups = _sbm(n=60, k=2)
    with pytest.raises(TypeError, match="estimator must be a FairSpectralClustering, got KMeans"):
        fairness_path(KMeans(2), W, sensitive_features=groups)
    with pytest.raises(ValueError, match="'fairness' parameter"):
        FairSpectralClustering(2, affinity="precomputed", fairness=1.5).fit(W, sensitive_features=groups)
    with pytest.raises(ValueError, match="'fairness' parameter"):
        fairness_path(FairSpectralClustering(2, affinity="precomputed", fairness=-1), W,
                      sensitive_features=groups)


def test_path_on_features_with_sensitive_cols_builds_the_graph_as_fit_does():
    X, blob = make_blobs(150, n_features=3, centers=3, cluster_std=4.0, random_state=0)
    data = np.column_stack([X, blob % 2])  # the last column is the sensitive one
    model = FairSpectralClustering(3, affinity="nearest_neighbors", sensitive_cols=[3], random_state=0)
    path = fairness_path(model, data, fairness=[0.3])
    fit = clone(model).set_params(fairness=0.3).fit(data)
    assert path["objective"].iloc[0] == pytest.approx(fit.objective_, rel=1e-7)
    assert path["balance_min"].iloc[0] == pytest.approx(fit.balance_)
