"""Confidence intervals and noise floors of the group metrics (issue 15)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from fairkit.metrics import (
    Estimate,
    demographic_parity_difference,
    demographic_parity_ratio,
    equalized_odds_deviation,
    equalized_odds_difference,
    fairness_floor,
    group_summary,
    resampled_interval,
    true_positive_rate_difference,
)
from fairkit.metrics._confusion import confusion
from fairkit.metrics._uncertainty import (
    _deviation_bounds,
    _gap_bounds,
    _ratio_bounds,
    fair_rule_cells,
)


def sample(rng, sizes, selection, base=0.5):
    """Labels of groups of ``sizes`` whose population selection rates are ``selection``."""
    group = np.repeat(np.arange(len(sizes)), sizes)
    y_true = (rng.random(group.size) < base).astype(int)
    y_pred = (rng.random(group.size) < np.asarray(selection)[group]).astype(int)
    return y_true, y_pred, group


def coverage(metric, truth, sizes, rates, n_replications, seed, weighted=False, **kwargs):
    """Share of replications whose 95% interval holds the population value ``truth``."""
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(n_replications):
        y_true, y_pred, group = sample(rng, sizes, rates)
        weight = np.ones(group.size) + (1e-9 * rng.random(group.size) if weighted else 0)
        result = metric(y_true, y_pred, sensitive_features=group, sample_weight=weight, ci=0.95, **kwargs)
        hits += result.low <= truth <= result.high
    return hits / n_replications


# Where a percentile bootstrap of the gap fails (near ties at the extremes, parity, tiny groups)
# as well as where it works: the simultaneous interval covers at least its level everywhere.
SCENARIOS = [
    (demographic_parity_difference, [300, 300], [0.30, 0.45], 0.15),
    (demographic_parity_difference, [150, 600, 900], [0.2, 0.5, 0.35], 0.3),
    (demographic_parity_difference, [100] * 10, [0.3] * 8 + [0.25, 0.35], 0.1),
    (demographic_parity_difference, [300, 300], [0.3, 0.3], 0.0),
    (demographic_parity_difference, [5, 8, 400], [0.2, 0.5, 0.4], 0.3),
    (demographic_parity_ratio, [400, 400], [0.3, 0.5], 0.6),
    (true_positive_rate_difference, [500, 500], [0.3, 0.5], 0.2),  # predictions ignore labels
    (equalized_odds_difference, [200, 200, 50], [0.3, 0.4, 0.3], 0.1),
]


@pytest.mark.parametrize("metric, sizes, rates, truth", SCENARIOS)
def test_intervals_cover_at_least_their_level_quick(metric, sizes, rates, truth):
    # 60 replications: a 95% interval may miss about 3
    assert coverage(metric, truth, sizes, rates, 60, seed=1) >= 0.9


@pytest.mark.slow
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("metric, sizes, rates, truth", SCENARIOS)
def test_intervals_cover_at_least_their_level(metric, sizes, rates, truth, weighted):
    assert coverage(metric, truth, sizes, rates, 500, seed=2, weighted=weighted) >= 0.95 - 0.02


@given(rates=st.lists(st.floats(0, 1), min_size=2, max_size=5), data=st.data())
@settings(max_examples=50, deadline=None)
def test_the_interval_holds_the_metric_of_every_rate_inside_the_rate_intervals(rates, data):
    # The guarantee: when every group rate lies in its interval, the metric lies in its interval.
    low = np.array([data.draw(st.floats(0, r)) for r in rates])
    high = np.array([data.draw(st.floats(r, 1)) for r in rates])
    grid = np.array(np.meshgrid(*[np.linspace(lo, hi, 5) for lo, hi in zip(low, high, strict=True)])
                    ).reshape(len(rates), -1).T
    gaps = grid.max(axis=1) - grid.min(axis=1)
    lower, upper = _gap_bounds(low, high, None)
    assert lower <= gaps.min() + 1e-12 and gaps.max() <= upper + 1e-12
    # the lower end is reached: every rate clipped to one level between the intervals
    level = np.clip(high.min(), None, low.max())
    closest = np.clip(level, low, high)
    assert closest.max() - closest.min() == pytest.approx(lower, abs=1e-12)
    top = grid.max(axis=1)
    ratios = np.where(top > 0, grid.min(axis=1) / np.where(top > 0, top, 1), 1.0)
    lower, upper = _ratio_bounds(low, high, None)
    assert lower <= ratios.min() + 1e-12 and ratios.max() <= upper + 1e-12
    weights = np.arange(1.0, len(rates) + 1)
    deviations = np.abs(grid - (grid @ weights / weights.sum())[:, None]).sum(axis=1)
    lower, upper = _deviation_bounds(low, high, weights)
    assert lower <= deviations.min() + 1e-12 and deviations.max() <= upper + 1e-12


def test_interval_of_two_groups_by_hand():
    # 30 of 100 and 45 of 100 selected; each rate's interval at level sqrt(0.95)
    y_pred = np.r_[np.ones(30), np.zeros(70), np.ones(45), np.zeros(55)].astype(int)
    group = np.repeat(["a", "b"], 100)
    result = demographic_parity_difference(y_pred, y_pred, sensitive_features=group, ci=0.95)
    a = stats.binomtest(30, 100).proportion_ci(np.sqrt(0.95), method="exact")
    b = stats.binomtest(45, 100).proportion_ci(np.sqrt(0.95), method="exact")
    assert result.value == pytest.approx(0.15)
    assert result.low == pytest.approx(max(0.0, b.low - a.high), abs=1e-12)
    assert result.high == pytest.approx(b.high - a.low, abs=1e-12)


def exact_gap_distribution(n, p):
    """Exact law of |X1 − X2| / n for independent X1, X2 ~ Binomial(n, p): values and probabilities."""
    pmf = stats.binom.pmf(np.arange(n + 1), n, p)
    joint = np.outer(pmf, pmf)
    gaps = np.abs(np.subtract.outer(np.arange(n + 1), np.arange(n + 1)))
    probabilities = np.bincount(gaps.ravel(), joint.ravel(), minlength=n + 1)
    return np.arange(n + 1) / n, probabilities


def test_floor_of_two_equal_groups_matches_the_difference_of_two_binomials():
    rng = np.random.default_rng(0)
    n = 60
    y_pred = (rng.random(2 * n) < 0.3).astype(int)
    group = np.repeat([0, 1], n)
    floor = fairness_floor("demographic_parity_difference", None, y_pred, sensitive_features=group,
                           n_draws=40_000, quantile=0.9, random_state=0)
    values, probabilities = exact_gap_distribution(n, y_pred.mean())
    mean = values @ probabilities
    assert floor.mean == pytest.approx(mean, abs=4 * np.sqrt(values ** 2 @ probabilities - mean ** 2
                                                             ) / np.sqrt(40_000))
    cdf = np.cumsum(probabilities)
    assert floor.quantile == values[np.searchsorted(cdf, 0.9 - 1e-9)]
    exact_pvalue = probabilities[values >= floor.observed - 1e-12].sum()
    assert floor.pvalue == pytest.approx(exact_pvalue, abs=4 * np.sqrt(exact_pvalue / 40_000) + 1e-3)


def test_floor_tells_a_real_gap_from_noise():
    rng = np.random.default_rng(1)
    y_true, fair, group = sample(rng, [30, 500, 12], [0.3, 0.3, 0.3])
    _, unfair, _ = sample(rng, [30, 500, 12], [0.1, 0.3, 0.6])
    noise = fairness_floor(demographic_parity_difference, y_true, fair, sensitive_features=group,
                           random_state=0)
    real = fairness_floor(demographic_parity_difference, y_true, unfair, sensitive_features=group,
                          random_state=0)
    assert noise.pvalue > 0.05 and noise.observed < noise.quantile
    assert real.pvalue < 0.01 and real.observed > real.quantile
    assert noise.mean > 0.1  # small groups: a fair rule shows a large gap


def test_floor_of_a_ratio_looks_at_the_lower_tail():
    rng = np.random.default_rng(2)
    y_true, y_pred, group = sample(rng, [200, 200], [0.2, 0.4])
    floor = fairness_floor("demographic_parity_ratio", y_true, y_pred, sensitive_features=group,
                           random_state=0)
    assert floor.quantile < floor.mean < 1
    assert floor.pvalue == pytest.approx(np.mean(floor.draws <= floor.observed))
    assert floor.pvalue < 0.01


@pytest.mark.parametrize("metric", [true_positive_rate_difference, equalized_odds_difference,
                                    equalized_odds_deviation])
def test_floor_of_error_rates_keeps_the_label_counts(metric):
    rng = np.random.default_rng(3)
    y_true, y_pred, group = sample(rng, [100, 300], [0.4, 0.4])
    data = confusion(y_true, y_pred, group, None, None, uses_y_true=True)
    draws = fair_rule_cells(data, 50, np.random.default_rng(0))
    observed = data.cells()
    np.testing.assert_array_equal(draws[..., 0] + draws[..., 1], np.broadcast_to(
        observed[:, 0] + observed[:, 1], draws.shape[:2]))  # positives per group
    floor = fairness_floor(metric, y_true, y_pred, sensitive_features=group, random_state=0)
    assert 0 <= floor.pvalue <= 1 and floor.mean > 0


def test_interval_holds_the_value_and_widens_with_the_level():
    rng = np.random.default_rng(6)
    y_true, y_pred, group = sample(rng, [80, 120], [0.3, 0.5])
    first = demographic_parity_difference(y_true, y_pred, sensitive_features=group, ci=0.9)
    assert isinstance(first, Estimate) and first.low <= first.value <= first.high
    assert first.value == demographic_parity_difference(y_true, y_pred, sensitive_features=group)
    wider = demographic_parity_difference(y_true, y_pred, sensitive_features=group, ci=0.99)
    assert wider.low <= first.low and wider.high >= first.high


def test_fair_rule_draws_with_weights_agree_with_the_binomial_shortcut():
    # Equal weights draw binomial counts; weights that differ by 1e-9 draw every sample.
    rng = np.random.default_rng(4)
    y_true, y_pred, group = sample(rng, [40, 90, 25], [0.2, 0.5, 0.7])
    shortcut = confusion(y_true, y_pred, group, None, None, uses_y_true=True)
    by_sample = confusion(y_true, y_pred, group, 1 + 1e-9 * rng.random(group.size), None,
                          uses_y_true=True)
    fast = fair_rule_cells(shortcut, 20_000, np.random.default_rng(0))
    slow = fair_rule_cells(by_sample, 20_000, np.random.default_rng(1))
    np.testing.assert_allclose(fast.mean(axis=0), slow.mean(axis=0), rtol=0.02, atol=0.05)
    np.testing.assert_allclose(fast.std(axis=0), slow.std(axis=0), rtol=0.05, atol=0.05)
    np.testing.assert_allclose(slow.sum(axis=-1), np.broadcast_to(by_sample.cells().sum(-1),
                                                                  slow.shape[:2]))


def test_group_summary_intervals_are_clopper_pearson():
    summary = group_summary([1] * 10 + [0] * 10, [1] * 7 + [0] * 3 + [0] * 10,
                            sensitive_features=["a"] * 20, ci=0.95)
    low, high = stats.binomtest(7, 10).proportion_ci(0.95, method="exact")
    assert summary.loc["a", "true_positive_rate_low"] == pytest.approx(low, abs=1e-12)
    assert summary.loc["a", "true_positive_rate_high"] == pytest.approx(high, abs=1e-12)
    assert summary.loc["a", "false_positive_rate_low"] == 0.0
    assert summary.loc["a", "false_positive_rate_high"] == pytest.approx(
        stats.binomtest(0, 10).proportion_ci(0.95, method="exact").high, abs=1e-12)


def test_group_summary_intervals_with_weights_use_the_effective_count():
    # 10 samples of weight 1 and 10 of weight 3: Kish's effective count is 40**2 / 100 = 16
    weights = np.r_[np.ones(10), 3 * np.ones(10)]
    y_pred = np.r_[np.ones(5), np.zeros(5), np.ones(5), np.zeros(5)].astype(int)
    summary = group_summary(np.ones(20, int), y_pred, sensitive_features=["a"] * 20,
                            sample_weight=weights, ci=0.95)
    low = stats.beta.ppf(0.025, 0.5 * 16, 16 - 0.5 * 16 + 1)
    assert summary.loc["a", "true_positive_rate_low"] == pytest.approx(low, abs=1e-12)
    assert np.isnan(summary.loc["a", "false_positive_rate_low"])  # no negatives: undefined


def test_bad_interval_level():
    with pytest.raises(ValueError, match="ci == 1.5, must be < 1"):
        demographic_parity_difference([0, 1], [0, 1], sensitive_features=["a", "b"], ci=1.5)
    with pytest.raises(ValueError, match="n_draws == 0, must be >= 1"):
        fairness_floor("demographic_parity_difference", [0, 1], [0, 1], sensitive_features=["a", "b"],
                       n_draws=0)


def test_floor_names_the_metrics_it_knows():
    with pytest.raises(ValueError, match="metric must be one of the group metrics"):
        fairness_floor("accuracy", [0, 1], [0, 1], sensitive_features=["a", "b"])


def test_floor_of_an_error_rate_requires_y_true():
    # Before: y_pred stood in for the missing y_true (every TPR 1, observed gap 0, no error).
    with pytest.raises(ValueError, match=r"y_true is required \(got None\)"):
        fairness_floor("true_positive_rate_difference", None, [0, 1, 1, 0],
                       sensitive_features=["a", "a", "b", "b"])
    floor = fairness_floor("demographic_parity_difference", None, [0, 1, 1, 1],
                           sensitive_features=["a", "a", "b", "b"], n_draws=10, random_state=0)
    assert floor.observed == 0.5


# --- resampled_interval: the corrected resampled t interval over splits -------------------------------


def test_resampled_interval_is_the_t_interval_with_the_corrected_variance():
    scores = np.array([0.71, 0.74, 0.69, 0.75, 0.72, 0.70])
    k, fraction = len(scores), 0.25
    half = stats.t.ppf(0.975, k - 1) * np.sqrt((1 / k + fraction) * scores.var(ddof=1))
    estimate = resampled_interval(scores, test_fraction=fraction)
    assert estimate.value == pytest.approx(scores.mean())
    assert (estimate.low, estimate.high) == pytest.approx((scores.mean() - half, scores.mean() + half))
    plain = resampled_interval(scores, test_fraction=0.0, ci=0.9)  # independent data sets: 1/k only
    assert plain.high - plain.value == pytest.approx(
        stats.t.ppf(0.95, k - 1) * scores.std(ddof=1) / np.sqrt(k))


def test_resampled_interval_covers_the_mean_of_independent_scores():
    # with test_fraction=0 and independent normal scores, the interval is exact: coverage 0.95
    rng = np.random.default_rng(0)
    draws = rng.normal(0.3, 0.05, size=(2000, 5))
    covered = [resampled_interval(row, test_fraction=0.0).low <= 0.3 <= resampled_interval(
        row, test_fraction=0.0).high for row in draws]
    assert abs(np.mean(covered) - 0.95) < 4 * np.sqrt(0.95 * 0.05 / len(draws))


def test_resampled_interval_of_one_split_has_no_width_and_bad_input_is_refused():
    assert np.isnan(resampled_interval([0.5], test_fraction=0.2).low)
    with pytest.raises(ValueError, match="values must be a non-empty 1-D array"):
        resampled_interval([0.5, np.nan], test_fraction=0.2)
    with pytest.raises(ValueError, match="test_fraction"):
        resampled_interval([0.5, 0.6], test_fraction=-1)
    with pytest.raises(ValueError, match="ci"):
        resampled_interval([0.5, 0.6], test_fraction=0.2, ci=1.5)
