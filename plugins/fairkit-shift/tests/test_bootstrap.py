"""The max-statistic multiplier bootstrap (against the explicit multiplier bootstrap and the exact normal
quantile, its size under a composite null) and Holm's adjustment (by hand and by brute force)."""

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from scipy.stats import norm

from fairkit_shift._bootstrap import MaxTest, holm, max_multiplier_test
from fairkit_shift._estimators import ShiftEstimate, outcome_shift_estimate

THRESHOLDS = np.array([-1.0, -0.5, 0.0, 0.5, 1.0])  # nested detectors 1[x > t]: correlated candidates


def no_shift_estimate(rng, n_source, n_target, reps=1, thresholds=THRESHOLDS, tolerance=0.0):
    """Outcome estimates of len(thresholds) candidates per replication, source and target identical
    (θ_k = −tolerance for every k); replications are blocks of columns."""
    x_s, x_t = rng.normal(size=(n_source, reps)), rng.normal(size=(n_target, reps))
    z0_s, z0_t = 0.2 + 0.2 * (x_s > 0), 0.2 + 0.2 * (x_t > 0)
    loss_s = (rng.random(x_s.shape) < z0_s).astype(float)
    loss_t = (rng.random(x_t.shape) < z0_t).astype(float)

    def columns(values):
        return np.repeat(values, len(thresholds), axis=1)

    d_s = columns(x_s) > np.tile(thresholds, reps)
    d_t = columns(x_t) > np.tile(thresholds, reps)
    return outcome_shift_estimate(d_s, d_t, columns(loss_s), columns(z0_s), columns(loss_t), columns(z0_t),
                                  np.ones_like(d_s, float), tolerance)


def columns_of(estimate, columns):
    return ShiftEstimate(*(field[..., columns] for field in estimate))


def quantile_se(draws, level, n):
    """Monte Carlo standard error of the level-quantile of n draws, from the order-statistic spread."""
    spread = np.sqrt(level * (1 - level) / n)
    return (np.quantile(draws, level + spread) - np.quantile(draws, level - spread)) / 2


def test_sigma_path_matches_the_explicit_multiplier_bootstrap():
    rng = np.random.default_rng(0)
    estimate = no_shift_estimate(rng, 25, 35)
    n_draws = 40_000
    test = max_multiplier_test(estimate, n_bootstrap=n_draws, random_state=1)
    # the explicit bootstrap: ξ (B × N) multipliers on C = [φ_S / n_s ; φ_T / n_t]
    influence = np.vstack([estimate.influence_source / 25, estimate.influence_target / 35])
    explicit = (rng.standard_normal((n_draws, 60)) @ influence).max(axis=1)
    error = np.sqrt(2) * quantile_se(explicit, 0.95, n_draws)
    assert abs(test.critical_value - np.quantile(explicit, 0.95)) < 4 * error
    p_explicit = np.mean(explicit >= test.statistic)
    assert abs(test.p_value - p_explicit) < 4 * np.sqrt(2 * p_explicit * (1 - p_explicit) / n_draws) + 1e-3
    assert test.statistic == estimate.onestep.max() and test.argmax == np.argmax(estimate.onestep)


def test_one_candidate_is_the_normal_quantile():
    estimate = no_shift_estimate(np.random.default_rng(2), 300, 200, thresholds=np.array([0.0]))
    n_draws = 100_000
    test = max_multiplier_test(estimate, alpha=0.1, n_bootstrap=n_draws, random_state=3)
    se = estimate.std_error[0]
    exact = se * norm.ppf(0.9)
    assert abs(test.critical_value - exact) < 4 * se * np.sqrt(0.9 * 0.1 / n_draws) / norm.pdf(norm.ppf(0.9))
    exact_p = norm.sf(test.statistic / se)
    assert abs(test.p_value - exact_p) < 4 * np.sqrt(exact_p * (1 - exact_p) / n_draws) + 1e-4
    assert test.reject == (test.p_value <= 0.1)


def test_p_value_counts_the_observed_statistic():
    """p = (1 + #{T* ≥ T̂}) / (1 + B): never 0; with B = 10 not even a huge statistic reaches α = 0.05."""
    estimate = no_shift_estimate(np.random.default_rng(4), 200, 200, tolerance=-5.0)  # θ̂ ≈ 5 ≫ se
    test = max_multiplier_test(estimate, n_bootstrap=10, random_state=0)
    assert test.p_value == pytest.approx(1 / 11) and not test.reject
    test = max_multiplier_test(estimate, n_bootstrap=99, random_state=0)
    assert test.p_value == pytest.approx(1 / 100) and test.reject
    small = max_multiplier_test(no_shift_estimate(np.random.default_rng(5), 200, 200), n_bootstrap=7,
                                random_state=0)
    assert (small.p_value * 8) == pytest.approx(round(small.p_value * 8))  # a count over 1 + B


def test_nan_candidates_are_left_out():
    estimate = no_shift_estimate(np.random.default_rng(6), 100, 80, thresholds=np.array([-0.5, 0.0, 9.0]))
    assert np.isnan(estimate.onestep[2])  # no row above 9
    with_nan = columns_of(estimate, [2, 0, 1])
    test = max_multiplier_test(with_nan, n_bootstrap=500, random_state=7)
    reduced = max_multiplier_test(columns_of(estimate, [0, 1]), n_bootstrap=500, random_state=7)
    assert test[:4] == reduced[:4] and test.argmax == reduced.argmax + 1


def test_no_candidate_left():
    estimate = no_shift_estimate(np.random.default_rng(8), 50, 50, thresholds=np.array([9.0, 10.0]))
    expected = MaxTest(np.nan, np.nan, 1.0, False, -1)
    for candidates in (estimate, columns_of(estimate, [])):
        test = max_multiplier_test(candidates, random_state=0)
        np.testing.assert_equal(tuple(test), tuple(expected))


def test_random_state_policy():
    estimate = no_shift_estimate(np.random.default_rng(9), 60, 60)
    assert max_multiplier_test(estimate, n_bootstrap=200, random_state=3) == max_multiplier_test(
        estimate, n_bootstrap=200, random_state=3)
    state = np.random.RandomState(0)
    first = max_multiplier_test(estimate, n_bootstrap=200, random_state=state)
    assert first == max_multiplier_test(estimate, n_bootstrap=200, random_state=np.random.RandomState(0))
    with pytest.raises(ValueError, match="Generator is not accepted"):
        max_multiplier_test(estimate, random_state=np.random.default_rng(0))


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    (dict(alpha=0.0), ValueError, "alpha"),
    (dict(alpha=1.5), ValueError, "alpha"),
    (dict(n_bootstrap=0), ValueError, "n_bootstrap"),
    (dict(n_bootstrap=10.5), TypeError, "n_bootstrap"),
])
def test_bad_parameters(kwargs, error, match):
    estimate = no_shift_estimate(np.random.default_rng(10), 30, 30)
    with pytest.raises(error, match=match):
        max_multiplier_test(estimate, **kwargs)


def test_bad_estimate():
    with pytest.raises(TypeError, match="ShiftEstimate"):
        max_multiplier_test((np.zeros(2), np.zeros(2)))


def null_rates(reps, n, seed, n_draws=1000, alpha=0.05):
    """Rejection rates of the max test and of K unadjusted one-sided z-tests, all θ_k = 0."""
    estimate = no_shift_estimate(np.random.default_rng(seed), n, n, reps=reps)
    k = len(THRESHOLDS)
    max_test = [max_multiplier_test(columns_of(estimate, slice(r * k, (r + 1) * k)), alpha=alpha,
                                    n_bootstrap=n_draws, random_state=r).reject for r in range(reps)]
    any_z = (estimate.onestep / estimate.std_error > norm.ppf(1 - alpha)).reshape(reps, k).any(axis=1)
    return np.mean(max_test), np.mean(any_z)


def test_size_under_the_null_quick():
    rate, unadjusted = null_rates(reps=200, n=800, seed=11)
    assert 0.01 <= rate <= 0.11
    assert unadjusted > rate


@pytest.mark.slow
def test_size_under_the_null_slow():
    rate, unadjusted = null_rates(reps=2000, n=1000, seed=12)
    assert abs(rate - 0.05) <= 3 * np.sqrt(0.05 * 0.95 / 2000)
    assert unadjusted > rate + 0.02  # the max over correlated candidates costs between α and K·α


# --------------------------------------------------------------------------- Holm
def test_holm_by_hand():
    # sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 → running max 0.02, 0.03, 0.06, 0.06
    np.testing.assert_allclose(holm([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(holm([0.5, 0.6]), [1.0, 1.0])
    np.testing.assert_allclose(holm([0.02, 0.02, 0.9]), [0.06, 0.06, 0.9])
    assert holm([]).shape == (0,)


def holm_rejects(p_values, alpha):
    """Holm's step-down procedure at level alpha: which hypotheses it rejects.

    ``p (m - step) > alpha`` rather than ``p > alpha / (m - step)``: the candidate levels are
    products ``p k``, and dividing one back by ``k`` can round below ``p``.
    """
    rejected = np.zeros(len(p_values), bool)
    for step, index in enumerate(np.argsort(p_values, kind="stable")):
        if p_values[index] * (len(p_values) - step) > alpha:
            break
        rejected[index] = True
    return rejected


@given(st.lists(st.sampled_from([0.0, 0.001, 0.01, 0.02, 0.05, 0.2, 1.0]) | st.floats(0, 1), min_size=1,
                max_size=8))
@example([0.001, 0.001, 0.001, 0.001, 1.628782433130984e-06])  # 5 p / 5 < p in floating point
def test_holm_is_the_smallest_level_that_rejects(p_values):
    p_values = np.array(p_values)
    m = len(p_values)
    levels = np.unique(np.r_[np.minimum(1, p_values * np.arange(1, m + 1)[:, None]).ravel(), 1.0])
    adjusted = holm(p_values)
    for index in range(m):
        rejecting = [level for level in levels if holm_rejects(p_values, level)[index]]
        assert adjusted[index] == pytest.approx(min(rejecting) if rejecting else 1.0)


@pytest.mark.parametrize("bad", [[0.1, np.nan], [0.1, 1.2], [[0.1, 0.2]], [-0.1]])
def test_holm_bad_input(bad):
    with pytest.raises(ValueError, match="p-values in"):
        holm(bad)
