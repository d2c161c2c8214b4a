import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse
from sklearn.utils import check_symmetric

from fairkit.metrics import balance, normalized_cut, ratio_cut
from fairkit.metrics._clustering import _is_symmetric


def test_balance_by_hand():
    labels = [0, 0, 0, 1, 1, 1, 1, 2, 2]
    groups = ["a", "b", "b", "a", "a", "b", "b", "a", "a"]
    # cluster 0: a=1, b=2 -> 1/2; cluster 1: 2/2 -> 1; cluster 2: b missing -> 0
    assert balance(labels, groups) == 0.0
    assert balance(labels, groups, agg="mean") == pytest.approx(0.5)
    assert balance(labels[:7], groups[:7]) == 0.5


def test_balance_counts_every_group_and_intersections():
    labels = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    sex = np.array(["F", "M", "F", "M", "F", "M", "F", "M"])
    race = np.array([1, 1, 2, 2, 1, 1, 1, 1])
    assert balance(labels, sex) == 1.0
    # intersectional groups (F,1),(F,2),(M,1),(M,2): cluster 1 has no (F,2) or (M,2)
    assert balance(labels, np.c_[sex, race]) == 0.0
    assert balance(labels, np.c_[sex, race], agg="mean") == 0.5


def _brute_balance(labels, groups, agg):
    values = []
    for cluster in np.unique(labels):
        counts = [np.sum((labels == cluster) & (groups == g)) for g in np.unique(groups)]
        ratios = [cs / ct if ct else np.inf for cs in counts for ct in counts]
        values.append(min(ratios))
    return min(values) if agg == "min" else np.mean(values)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2)), min_size=1, max_size=40),
       st.sampled_from(["min", "mean"]))
def test_balance_matches_definition(pairs, agg):
    labels, groups = map(np.array, zip(*pairs, strict=True))
    assert balance(labels, groups, agg=agg) == pytest.approx(_brute_balance(labels, groups, agg))


def test_balance_rejects_bad_input():
    with pytest.raises(ValueError, match="agg"):
        balance([0, 1], [0, 1], agg="max")
    with pytest.raises(ValueError, match="rows"):
        balance([0, 1, 1], [0, 1])


def test_balance_length_mismatch_names_labels():
    with pytest.raises(ValueError, match="2 rows but labels has 3 samples"):
        balance([0, 1, 1], [0, 1])


def _random_graph(rng, n, density=0.3):
    W = rng.random((n, n)) * (rng.random((n, n)) < density)
    return np.triu(W, 1) + np.triu(W, 1).T


def test_cuts_by_hand():
    W = np.zeros((5, 5))
    for i, j, w in [(0, 1, 2.0), (1, 2, 1.0), (2, 3, 3.0), (3, 4, 1.0), (0, 4, 0.5)]:
        W[i, j] = W[j, i] = w
    labels = [0, 0, 1, 1, 1]
    # cut = 1.0 (edge 1-2) + 0.5 (edge 0-4) = 1.5
    # vol(C0) = 2.5 + 3 = 5.5, vol(C1) = 4 + 4 + 1.5 = 9.5
    assert ratio_cut(W, labels) == pytest.approx(1.5 / 2 + 1.5 / 3)
    assert normalized_cut(W, labels) == pytest.approx(1.5 / 5.5 + 1.5 / 9.5)


def test_cuts_equal_the_spectral_relaxation_objective():
    rng = np.random.default_rng(0)
    W = _random_graph(rng, 30)
    labels = rng.integers(0, 4, 30)
    L = np.diag(W.sum(1)) - W
    onehot = np.eye(4)[labels]
    H_ratio = onehot / np.sqrt(onehot.sum(0))
    H_ncut = onehot / np.sqrt(onehot.T @ W.sum(1))
    assert ratio_cut(W, labels) == pytest.approx(np.trace(H_ratio.T @ L @ H_ratio))
    assert normalized_cut(W, labels) == pytest.approx(np.trace(H_ncut.T @ L @ H_ncut))
    assert ratio_cut(sparse.csr_matrix(W), labels) == pytest.approx(ratio_cut(W, labels))
    assert normalized_cut(sparse.coo_matrix(W), labels) == pytest.approx(normalized_cut(W, labels))


def test_isolated_cluster_adds_nothing_to_ncut():
    W = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]], dtype=float)
    assert normalized_cut(W, [0, 0, 1]) == 0.0
    assert ratio_cut(W, [0, 1, 1]) == pytest.approx(1 / 1 + 1 / 2)


def test_cuts_reject_bad_input():
    with pytest.raises(ValueError, match="square"):
        ratio_cut(np.ones((3, 2)), [0, 1, 0])
    with pytest.raises(ValueError, match="labels has 2"):
        normalized_cut(np.ones((3, 3)), [0, 1])


# --- the symmetry check of a dense affinity, tile by tile (issue 26) -------------------------

@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 23), tile=st.integers(1, 8), seed=st.integers(0, 2**16),
       scale=st.sampled_from([0.0, 1e-11, 1e-10, 5e-6, 1e-5, 1e-3]), n_changed=st.integers(0, 3))
def test_dense_symmetry_check_answers_as_scikit_learns(n, tile, seed, scale, n_changed):
    # The oracle is scikit-learn's whole-matrix check_symmetric (np.allclose(W, W.T, atol=1e-10)).
    # Perturbations around both tolerances, in any tile, including the ragged last one.
    rng = np.random.default_rng(seed)
    W = rng.uniform(0, rng.choice([1e-9, 1.0, 1e4]), (n, n))
    W = (W + W.T) / 2
    rows, cols = rng.integers(0, n, n_changed), rng.integers(0, n, n_changed)
    W[rows, cols] += scale * W[rows, cols] + rng.choice([0, scale], n_changed)
    try:
        check_symmetric(W, raise_exception=True, raise_warning=False)
        expected = True
    except ValueError:
        expected = False
    assert _is_symmetric(W, tile=tile) is expected


@pytest.mark.parametrize("entry", [(0, 5), (5, 0), (2, 3)])
@pytest.mark.parametrize("relative, symmetric", [(1e-5 * (1 - 1e-6), True), (1e-5 * (1 + 1e-6), False)])
def test_dense_symmetry_check_tests_allclose_in_both_directions(entry, relative, symmetric):
    # One entry raised by just under / just over 1e-5 of its weight: np.allclose(W, W.T) holds
    # only if the difference is within 1e-5 of the *smaller* of the two weights, whichever
    # tile (upper, lower or diagonal) holds it.
    W = np.full((6, 6), 1e4)
    W[entry] *= 1 + relative
    assert _is_symmetric(W, tile=2) is symmetric
    assert np.allclose(W, W.T, atol=1e-10) is symmetric
