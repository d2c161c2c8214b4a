"""Tests of the subgroup detectors: the exact λ solver, the covariate candidates, the outcome detector."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from threadpoolctl import threadpool_limits

import fairkit_shift._detectors as detectors
from fairkit_shift._detectors import (
    CovariateDetectors,
    covariate_candidates,
    detect_outcome,
    fit_outcome_detector,
    omega_grid,
    optimal_lambda,
)


@pytest.fixture(autouse=True)
def one_openmp_thread():
    """Boosting on a loaded 2-core machine is far faster without OpenMP threads competing."""
    with threadpool_limits(limits=1, user_api="openmp"):
        yield


def objective(lam, z0, a, b, tolerance):
    """f(λ) = Σ max(0, a (z0 − λ) − τ b) for each λ (brute force)."""
    lam = np.asarray(lam, dtype=float)[..., None]
    return np.maximum(0.0, a * (z0 - lam) - tolerance * b).sum(axis=-1)


# dyadic values: every knot and every value of f is exact in floating point
dyadic_rows = st.integers(2, 12).flatmap(lambda n: st.tuples(
    st.lists(st.integers(-16, 16).map(lambda v: v / 8), min_size=n, max_size=n),
    st.lists(st.lists(st.sampled_from([-4.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 4.0]), min_size=n,
                      max_size=n), min_size=1, max_size=4),
    st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=n, max_size=n),
    st.sampled_from([0.0, 0.25, 0.5]),
))


@settings(max_examples=300, deadline=None)
@given(dyadic_rows)
def test_optimal_lambda_is_the_left_most_minimiser_found_by_brute_force(case):
    z0, a, b, tolerance = (np.asarray(v) for v in case)
    lambdas = optimal_lambda(z0, a, b, tolerance)
    assert lambdas.shape == (len(a),)
    for lam, slopes in zip(lambdas, a, strict=True):
        knots = np.array([z - tolerance * bb / s for z, s, bb in zip(z0, slopes, b, strict=True) if s != 0])
        values = objective(knots, z0, slopes, b, tolerance) if len(knots) else np.zeros(1)
        f_min = values.min()
        assert objective(lam, z0, slopes, b, tolerance) == f_min
        if (slopes > 0).any():  # a left-most minimiser exists: the smallest knot reaching the minimum
            assert lam == knots[values == f_min].min()
        else:  # minimisers form a half-line; the detector is empty there
            assert not (slopes * (z0 - lam) - tolerance * b > 0).any()


def test_optimal_lambda_matches_a_fine_grid_on_random_floats():
    rng = np.random.default_rng(0)
    for _ in range(40):
        n = rng.integers(2, 40)
        z0, b = rng.uniform(0, 1, n), rng.uniform(0.2, 3, n)
        a = rng.normal(size=(3, n)) * rng.integers(0, 2, size=(3, n))  # some slopes exactly 0
        tolerance = rng.uniform(0, 0.2)
        for lam, slopes in zip(optimal_lambda(z0, a, b, tolerance), a, strict=True):
            grid = np.linspace(-6, 7, 60001)
            values = objective(grid, z0, slopes, b, tolerance)
            f_star = objective(lam, z0, slopes, b, tolerance)
            assert f_star <= values.min() + 1e-12
            if (slopes > 0).any():  # strictly larger left of the left-most minimiser
                assert (values[grid < lam - 1e-6] > f_star).all()


def test_optimal_lambda_takes_the_left_end_of_a_flat_minimum():
    # f(λ) = max(0, 1 − λ) + max(0, λ): 1 on [0, 1], larger outside
    assert optimal_lambda([1.0, 0.0], [1.0, -1.0], 1.0, 0.0) == 0.0
    # the tolerance moves each knot by τ b / a: knots 1 − 0.5 and 0 + 0.25
    assert optimal_lambda([1.0, 0.0], [[1.0, -2.0]], 1.0, 0.5).tolist() == [0.25]


def test_optimal_lambda_without_positive_slopes_gives_an_empty_detector():
    z0 = np.array([0.3, 0.6, 0.9])
    for a in ([-1.0, -0.5, 0.0], [0.0, 0.0, 0.0]):
        lam = optimal_lambda(z0, a, 1.0, 0.1)
        assert lam == 0.3  # min z0: left of every knot z0 + τ / |a|
        assert not (np.asarray(a) * (z0 - lam) - 0.1 > 0).any()


def test_optimal_lambda_refuses_mismatched_shapes():
    with pytest.raises(ValueError, match=r"a must have shape \(n_omegas, 3\)"):
        optimal_lambda([0.1, 0.2, 0.3], np.ones((2, 4)), 1.0, 0.0)


def test_omega_grid_is_log_spaced_on_the_prevalence_range_and_holds_one():
    grid = omega_grid(0.05, 5)
    np.testing.assert_allclose(grid, [0.05, 0.05 ** 0.5, 1.0, 20 ** 0.5, 20.0])
    assert 1.0 in omega_grid(0.05, 4) and len(omega_grid(0.05, 4)) == 5


# A design whose worst subgroup is known: x ~ U(0, 1) in the source; regions A1..A4 with
# (Z₀ level, density ratio) = (0.9, 3), (0.1, 1/3), (0.1, 1), (0.9, 1) and source shares 0.05, 0.15,
# 0.4, 0.4. The rise E_T[Z₀|d] − E_S[Z₀|d] of any subgroup is at most 0.8 (3/4 − 1/4) = 0.4, reached by
# A1 ∪ A2 = {x < 0.2}; adding A3 or A4 dilutes it. Z₀ has a slope of 0.02 so that knots are distinct.
EDGES = np.array([0.0, 0.05, 0.2, 0.6, 1.0])
LEVEL, RATIO = np.array([0.9, 0.1, 0.1, 0.9]), np.array([3.0, 1 / 3, 1.0, 1.0])
# θ(A1 ∪ A2) by hand: T shares 0.15, 0.05 (mean x 0.025, 0.125); S shares 0.05, 0.15
THETA = ((0.15 * 0.9005 + 0.05 * 0.1025) - (0.05 * 0.9005 + 0.15 * 0.1025)) / 0.2 - 0.05


def region_z0(x):
    return LEVEL[np.searchsorted(EDGES, x, side="right") - 1] + 0.02 * x


def region_ratio(x):
    return RATIO[np.searchsorted(EDGES, x, side="right") - 1]


def region_samples(rng, n):
    source = rng.uniform(size=n)
    region = rng.choice(4, size=n, p=np.diff(EDGES) * RATIO)
    target = EDGES[region] + rng.uniform(size=n) * np.diff(EDGES)[region]
    return source, target


def region_candidates(rng, n, **kwargs):
    source, target = region_samples(rng, n)
    kwargs = {"tolerance": 0.05, "min_prevalence": 0.05} | kwargs
    found = covariate_candidates(region_z0(source), region_ratio(source), region_z0(target),
                                 region_ratio(target), **kwargs)
    return found, source, target


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_top_candidate_recovers_the_known_worst_subgroup(seed):
    found, _, _ = region_candidates(np.random.default_rng(seed), 20000)
    grid = (np.arange(100000) + 0.5) / 100000  # the source distribution, by quadrature
    top = found.detect(region_z0(grid), region_ratio(grid))[:, 0]
    truth = grid < 0.2
    assert (top & truth).sum() / (top | truth).sum() > 0.9
    assert found.train_estimates[0] == pytest.approx(THETA, abs=0.03)
    assert np.all(np.diff(found.train_estimates) <= 0)


def reference_candidates(z0_s, ratio_s, z0_t, ratio_t, tolerance, min_prevalence, max_candidates, n_omegas,
                         base_s=None, base_t=None, deduplicate=True):
    """The candidate search written as a plain loop over ω (one ω at a time)."""
    base_s = np.ones_like(z0_s) if base_s is None else base_s
    base_t = np.ones_like(z0_t) if base_t is None else base_t
    found, seen = [], set()
    for omega in np.union1d(np.geomspace(min_prevalence, 1 / min_prevalence, n_omegas), [1.0]):
        lam = optimal_lambda(z0_s, omega * ratio_s - base_s, base_s, tolerance)
        d_s = (z0_s - lam) * (omega * ratio_s - base_s) - tolerance * base_s > 0
        d_t = (z0_t - lam) * (omega * ratio_t - base_t) - tolerance * base_t > 0
        if d_s.mean() < min_prevalence or d_t.mean() < min_prevalence:
            continue
        key = np.r_[d_s, d_t].tobytes()
        if deduplicate and key in seen:
            continue
        seen.add(key)
        estimate = z0_t[d_t].mean() - np.average(z0_s[d_s], weights=base_s[d_s]) - tolerance
        found.append((estimate, omega, lam, key))
    found.sort(key=lambda item: -item[0])  # stable: ties keep the smaller ω
    return found[:max_candidates]


@pytest.mark.parametrize("chunk_elements", [2**20, 5000])
def test_candidates_match_a_loop_over_omega(monkeypatch, chunk_elements):
    monkeypatch.setattr(detectors, "_CHUNK_ELEMENTS", chunk_elements)
    rng = np.random.default_rng(3)
    source, target = region_samples(rng, 2000)
    z0_s, z0_t = region_z0(source), region_z0(target)
    ratio_s, ratio_t = region_ratio(source), region_ratio(target)
    base_s, base_t = rng.uniform(0.5, 2, len(source)), rng.uniform(0.5, 2, len(target))
    for base in [(None, None), (base_s, base_t)]:
        found = covariate_candidates(z0_s, ratio_s, z0_t, ratio_t, tolerance=0.05, min_prevalence=0.05,
                                     max_candidates=5, n_omegas=60, baseline_ratio_source=base[0],
                                     baseline_ratio_target=base[1])
        expected = reference_candidates(z0_s, ratio_s, z0_t, ratio_t, 0.05, 0.05, 5, 60, *base)
        assert len(found) == len(expected) == 5
        np.testing.assert_allclose(found.train_estimates, [e[0] for e in expected], rtol=1e-12)
        np.testing.assert_allclose(found.omegas, [e[1] for e in expected], rtol=1e-12)
        np.testing.assert_allclose(found.lambdas, [e[2] for e in expected], rtol=1e-12)


def test_identical_masks_are_kept_once():
    # two loss levels, four ratio levels and τ = 0: λ* is a loss level and the mask changes only where
    # ω crosses 1 / w, so many ω give the same subgroup
    rng = np.random.default_rng(4)
    source, target = region_samples(rng, 2000)
    level = np.searchsorted(EDGES, source, side="right") - 1, np.searchsorted(EDGES, target, side="right") - 1
    arrays = LEVEL[level[0]], RATIO[level[0]], LEVEL[level[1]], RATIO[level[1]]
    every = reference_candidates(*arrays, 0.0, 0.05, 1000, 200, deduplicate=False)
    n_distinct = len({key for *_, key in every})
    assert 1 < n_distinct < len(every)
    found = covariate_candidates(*arrays, tolerance=0.0, min_prevalence=0.05, max_candidates=1000)
    masks = np.vstack([found.detect(arrays[0], arrays[1]), found.detect(arrays[2], arrays[3])]).T
    assert len(found) == n_distinct and len(np.unique(masks, axis=0)) == n_distinct
    expected = reference_candidates(*arrays, 0.0, 0.05, 1000, 200)  # first ω of each mask, ranked
    np.testing.assert_allclose(found.omegas, [e[1] for e in expected], rtol=1e-12)


def test_prevalence_filter_drops_subgroups_rarer_than_min_prevalence():
    # a sharp shift on 2.5 % of each domain (A1: Z₀ 0.9, ratio 4; A2: Z₀ 0.1, ratio 1/4): rise 0.48
    edges, level = np.array([0.0, 0.005, 0.025, 0.5, 1.0]), np.array([0.9, 0.1, 0.1, 0.9])
    ratio = np.array([4.0, 0.25, 1.0, 1.0])
    rng = np.random.default_rng(5)
    source = rng.uniform(size=20000)
    region = rng.choice(4, size=20000, p=np.diff(edges) * ratio)
    target = edges[region] + rng.uniform(size=20000) * np.diff(edges)[region]

    def z0(x):
        return level[np.searchsorted(edges, x, side="right") - 1] + 0.02 * x

    def w(x):
        return ratio[np.searchsorted(edges, x, side="right") - 1]

    found = covariate_candidates(z0(source), w(source), z0(target), w(target), tolerance=0.05,
                                 min_prevalence=0.01)
    prevalence = np.minimum(found.detect(z0(source), w(source)).mean(axis=0),
                            found.detect(z0(target), w(target)).mean(axis=0))
    assert (prevalence >= 0.01).all() and (prevalence < 0.05).all()
    assert found.train_estimates[0] > 0.35  # the sharp rare subgroup: rise 0.8 (0.8 − 0.2) − τ = 0.43
    # the family proposes only parts of that 2.5 % region (ω P_T(d) = P_S(d) at the exact λ*), so with
    # ε = 0.05 nothing is admissible
    found = covariate_candidates(z0(source), w(source), z0(target), w(target), tolerance=0.05,
                                 min_prevalence=0.05)
    assert len(found) == 0


def test_no_admissible_detector_gives_zero_candidates():
    z0 = np.full(500, 0.3)  # constant risk: every λ* sits on z0 and no residual is positive
    found = covariate_candidates(z0, np.ones(500), z0, np.ones(500), tolerance=0.0, min_prevalence=0.05)
    assert len(found) == 0 and found.detect(z0, np.ones(500)).shape == (500, 0)


def test_detect_by_hand_with_and_without_baseline():
    candidates = CovariateDetectors(np.array([1.0]), np.array([0.5]), 0.1, np.array([0.0]))
    z0, ratio = [0.9, 0.1, 0.5], [2.0, 0.5, 4.0]
    # r = (z0 − 0.5)(ratio − b) − 0.1 b: with b = 1: 0.3, 0.1, −0.1; with b = (1, 2, 1): 0.3, 0.4, −0.1
    assert candidates.detect(z0, ratio)[:, 0].tolist() == [True, True, False]
    assert candidates.detect(z0, ratio, baseline_ratio=[1.0, 2.0, 1.0])[:, 0].tolist() == [True, True, False]
    # b = 3 on the second row: (−0.4)(0.5 − 3) − 0.3 = 0.7
    assert candidates.detect(z0, ratio, baseline_ratio=[1.0, 3.0, 10.0])[:, 0].tolist() == [True, True, False]
    z0_flip = [0.9, 0.6, 0.5]  # (0.1)(0.5 − 1) − 0.1 < 0
    assert candidates.detect(z0_flip, ratio)[:, 0].tolist() == [True, False, False]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"z0_source": np.ones(9)}, "ratio_source has 10 values; it must have one per sample \\(9\\)"),
    ({"ratio_target": -np.ones(10)}, "ratio_target must be positive"),
    ({"z0_target": np.r_[np.nan, np.ones(9)]}, "z0_target"),
    ({"z0_source": np.ones((10, 2))}, "z0_source must be 1-D"),
    ({"baseline_ratio_source": np.ones(10)}, "give baseline_ratio_source and baseline_ratio_target together"),
    ({"min_prevalence": 0.0}, "min_prevalence"),
    ({"min_prevalence": 1.0}, "min_prevalence"),
    ({"tolerance": -0.1}, "tolerance"),
    ({"max_candidates": 0}, "max_candidates"),
    ({"n_omegas": 1}, "n_omegas"),
])
def test_covariate_candidates_refuses_bad_inputs(kwargs, message):
    arguments = {"z0_source": np.full(10, 0.5), "ratio_source": np.ones(10), "z0_target": np.full(10, 0.5),
                 "ratio_target": np.ones(10), "tolerance": 0.05, "min_prevalence": 0.05} | kwargs
    with pytest.raises(ValueError, match=message):
        covariate_candidates(**arguments)


def test_detect_refuses_mismatched_lengths():
    candidates = CovariateDetectors(np.array([1.0]), np.array([0.5]), 0.1, np.array([0.0]))
    with pytest.raises(ValueError, match="ratio has 2 values; it must have one per sample"):
        candidates.detect([0.1, 0.2, 0.3], [1.0, 1.0])


def test_outcome_detector_finds_a_planted_region():
    rng = np.random.default_rng(6)
    X = rng.uniform(size=(3000, 2))
    planted = (X[:, 0] > 0.6) & (X[:, 1] > 0.6)
    residual = np.where(planted, 0.3, -0.1) + 0.2 * rng.normal(size=3000)
    regressor = fit_outcome_detector(X, residual, random_state=0)
    X_new = rng.uniform(size=(5000, 2))
    detected = detect_outcome(regressor, X_new)
    truth = (X_new[:, 0] > 0.6) & (X_new[:, 1] > 0.6)
    assert detected.shape == (5000, 1) and detected.dtype == bool
    assert (detected[:, 0] & truth).sum() / (detected[:, 0] | truth).sum() > 0.8
    again = detect_outcome(fit_outcome_detector(X, residual, random_state=0), X_new)
    np.testing.assert_array_equal(detected, again)


def test_outcome_detector_refuses_bad_residuals():
    with pytest.raises(ValueError, match="Found input variables with inconsistent numbers of samples"):
        fit_outcome_detector(np.ones((5, 2)), np.ones(4))
    with pytest.raises(ValueError, match="residual"):
        fit_outcome_detector(np.ones((5, 2)), [0, 1, np.inf, 0, 1])
