import numpy as np
import pytest

from fairkit.datasets import make_fair_sbm


def test_structure():
    A, groups, clusters = make_fair_sbm(303, n_clusters=3, n_groups=2, random_state=0)
    assert A.shape == (303, 303) and A.format == "csr"
    assert (A != A.T).nnz == 0 and A.diagonal().sum() == 0
    assert set(np.unique(A.data)) == {1.0}
    counts = np.bincount(clusters * 2 + groups)
    assert counts.max() - counts.min() <= 1 and counts.sum() == 303


def test_extreme_probabilities_give_exact_blocks():
    A, groups, clusters = make_fair_sbm(60, 3, 2, probabilities=(1, 0, 0, 0), random_state=0)
    block = clusters * 2 + groups
    expected = (block[:, None] == block[None, :]) & ~np.eye(60, dtype=bool)
    np.testing.assert_array_equal(A.toarray(), expected)


@pytest.mark.parametrize("probabilities", [(0.4, 0.3, 0.2, 0.1), (0.05, 0.02, 0.5, 0.01)])
def test_edge_frequencies_match_probabilities(probabilities):
    n = 600
    A, groups, clusters = make_fair_sbm(n, 3, 3, probabilities=probabilities, random_state=1)
    same_cluster = clusters[:, None] == clusters[None, :]
    same_group = groups[:, None] == groups[None, :]
    upper = np.triu(np.ones((n, n), dtype=bool), 1)
    dense = A.toarray().astype(bool)
    classes = [same_cluster & same_group, ~same_cluster & same_group,
               same_cluster & ~same_group, ~same_cluster & ~same_group]
    for p, mask in zip(probabilities, classes, strict=True):
        pairs = np.sum(mask & upper)
        edges = np.sum(dense & mask & upper)
        assert abs(edges - pairs * p) < 5 * np.sqrt(pairs * p * (1 - p)), (p, edges, pairs)


def test_reproducible():
    A1, *_ = make_fair_sbm(200, 2, 2, random_state=3)
    A2, *_ = make_fair_sbm(200, 2, 2, random_state=3)
    A3, *_ = make_fair_sbm(200, 2, 2, random_state=4)
    assert (A1 != A2).nnz == 0 and (A1 != A3).nnz > 0


def test_bad_input():
    with pytest.raises(ValueError, match="probabilities"):
        make_fair_sbm(100, 2, 2, probabilities=(0.5, 0.2, 1.2, 0.1))
    with pytest.raises(ValueError, match="probabilities"):
        make_fair_sbm(100, 2, 2, probabilities=(0.5, 0.2))
    with pytest.raises(ValueError, match="every"):
        make_fair_sbm(5, 3, 2)
