"""Kernel partial correlation and the ICP equalized-odds test."""

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import cdist, pdist
from sklearn.linear_model import LogisticRegression

from fairkit.metrics import equalized_odds_test, kernel_partial_correlation
from fairkit.metrics._independence import EqualizedOddsTestResult, _nearest_neighbors


def brute_force_kpc(y_pred, a, y):
    """KPCgraph(Ŷ, Y, A, Knn=1) with a Gaussian median-bandwidth kernel, by full distance matrices."""
    y_pred = y_pred.reshape(len(y_pred), -1)
    bandwidth = np.median(pdist(y_pred))

    def mean_kernel(W):
        distance = cdist(W, W)
        np.fill_diagonal(distance, np.inf)
        neighbor = distance.argmin(axis=1)
        return np.mean(np.exp(-np.sum((y_pred - y_pred[neighbor]) ** 2, axis=1) / (2 * bandwidth**2)))

    t_y, t_ya = mean_kernel(y[:, None]), mean_kernel(np.column_stack([y, a]))
    return (t_ya - t_y) / (1 - t_y)


def test_kpc_equals_the_brute_force_graph_estimator_without_ties():
    rng = np.random.default_rng(0)
    n = 300
    y = rng.normal(size=n)
    a = rng.normal(size=(n, 2))
    y_pred = y + a[:, 0] + 0.5 * rng.normal(size=n)
    standardized_a = (a - a.mean(axis=0)) / a.std(axis=0)
    standardized_y = (y - y.mean()) / y.std()
    expected = brute_force_kpc(y_pred, standardized_a, standardized_y)
    assert kernel_partial_correlation(y_pred, a, y) == pytest.approx(expected, rel=1e-12)


def test_kpc_is_near_zero_under_conditional_independence():
    rng = np.random.default_rng(1)
    values = []
    for _ in range(10):
        y, a = rng.integers(0, 2, 1000), rng.integers(0, 3, 1000)
        y_pred = np.column_stack([0.3 + 0.4 * y + 0.1 * rng.random(1000)])
        values.append(kernel_partial_correlation(y_pred, a.astype(str), y, random_state=0))
    assert abs(np.mean(values)) < 0.03


def test_kpc_is_large_when_predictions_follow_the_attributes():
    rng = np.random.default_rng(2)
    y, a = rng.integers(0, 2, 2000), rng.normal(size=2000)
    assert kernel_partial_correlation(a + 0.05 * rng.normal(size=2000), a, y, random_state=0) > 0.8
    # the continuous-target path: Ŷ depends on A beyond Y
    y_real = rng.normal(size=2000)
    assert kernel_partial_correlation(y_real + 2 * a, a, y_real, random_state=0) > 0.3


def test_kpc_is_zero_when_predictions_are_a_function_of_the_label():
    y = np.repeat([0, 1], 50)
    assert kernel_partial_correlation(0.2 + 0.5 * y, np.arange(100) % 3, y, random_state=0) == 0.0


def test_kpc_handles_mixed_attributes_and_probability_matrices():
    rng = np.random.default_rng(3)
    n = 500
    frame = pd.DataFrame({"race": rng.choice(["a", "b", "c"], n), "age": rng.normal(40, 10, n)})
    y = rng.integers(0, 2, n)
    p = 1 / (1 + np.exp(-(y + (frame["race"] == "a") - 0.5)))
    proba = np.column_stack([1 - p, p])
    # rows of a binary probability matrix lie on a line: the same estimate as the 1-D scores
    assert kernel_partial_correlation(proba, frame, y, random_state=0) == pytest.approx(
        kernel_partial_correlation(p, frame, y, random_state=0))
    assert kernel_partial_correlation(p, frame, y, random_state=0) > 0.2


def test_neighbors_break_ties_uniformly_over_samples():
    W = np.array([[0.0], [0.0], [2.0], [1.0], [5.0], [5.0], [5.0]])
    rng = np.random.default_rng(0)
    picks = np.array([_nearest_neighbors(W, rng) for _ in range(1500)])
    # value 1 is at distance 1 from values 0 (two samples) and 2 (one sample): 2/3 vs 1/3
    assert np.isin(picks[:, 3], [0, 1]).mean() == pytest.approx(2 / 3, abs=0.05)
    assert set(picks[:, 3]) == {0, 1, 2}
    # duplicates take another duplicate, each equally often
    assert set(picks[:, 4]) == {5, 6}
    assert (picks[:, 4] == 5).mean() == pytest.approx(0.5, abs=0.05)
    np.testing.assert_array_equal(picks[:, 0], 1)
    np.testing.assert_array_equal(picks[:, 2], 3)


def test_kpc_validates_its_input():
    with pytest.raises(ValueError, match="sensitive_features has 3 rows but y_true has 4"):
        kernel_partial_correlation(np.zeros(4), [0, 1, 0], [0, 1, 0, 1])
    with pytest.raises(ValueError, match="y_pred has 3 and y_true has 4 samples"):
        kernel_partial_correlation(np.zeros(3), [0, 1, 0, 1], [0, 1, 0, 1])
    with pytest.raises(ValueError, match="NaN"):
        kernel_partial_correlation([0.1, np.nan, 0.3, 0.2], [0, 1, 0, 1], [0, 1, 0, 1])
    with pytest.raises(ValueError, match="y_true contains NaN"):
        kernel_partial_correlation([0.1, 0.2, 0.3, 0.2], [0, 1, 0, 1], [0.5, np.nan, 1.5, 2.5])


def test_equalized_odds_test_rejects_clear_dependence():
    rng = np.random.default_rng(0)
    y, a = rng.integers(0, 2, 600), rng.integers(0, 2, 600)
    result = equalized_odds_test(y + a + rng.normal(size=600), y, sensitive_features=a,
                                 n_permutations=30, random_state=0)
    assert isinstance(result, EqualizedOddsTestResult)
    assert result.pvalue == pytest.approx(1 / 31)
    assert result.statistic == pytest.approx(
        kernel_partial_correlation(y + a + rng.normal(size=600), a, y, random_state=0), abs=0.1)


def test_equalized_odds_test_is_calibrated_under_the_null():
    """Ŷ ⊥ A | Y but A depends on Y: p-values are roughly uniform (rejections at 10% stay rare)."""
    rng = np.random.default_rng(1)
    pvalues = []
    for seed in range(40):
        y = rng.integers(0, 2, 150)
        a = (rng.random(150) < np.where(y == 1, 0.7, 0.3)).astype(int)
        y_pred = y + rng.normal(size=150)
        pvalues.append(equalized_odds_test(y_pred, y, sensitive_features=a, n_permutations=9,
                                           density_estimator=LogisticRegression(),
                                           random_state=seed).pvalue)
    pvalues = np.array(pvalues)
    assert np.mean(pvalues <= 0.1) <= 0.25
    assert 0.3 < pvalues.mean() < 0.7


def test_equalized_odds_test_for_real_targets_and_reproducibility():
    rng = np.random.default_rng(2)
    a = rng.normal(size=(300, 2))
    y = a[:, 0] + rng.normal(size=300)
    y_pred = y + a[:, 1]
    first = equalized_odds_test(y_pred, y, sensitive_features=a, n_permutations=9, random_state=3)
    assert first == equalized_odds_test(y_pred, y, sensitive_features=a, n_permutations=9,
                                        random_state=3)
    assert first.pvalue == pytest.approx(0.1)
    with pytest.raises(ValueError, match="n_permutations"):
        equalized_odds_test(y_pred, y, sensitive_features=a, n_permutations=0)


@pytest.mark.parametrize("n_sweeps", [0, -3])
def test_equalized_odds_test_refuses_a_chain_that_does_not_move(n_sweeps):
    # without sweeps every copy is A itself and the p-value would be decided by tie-breaking
    y, a = np.repeat([0, 1], 10), np.tile([0, 1], 10)
    with pytest.raises(ValueError, match="n_sweeps"):
        equalized_odds_test(y + a, y, sensitive_features=a, n_permutations=5, n_sweeps=n_sweeps)
