"""Tests of make_subgroup_shift: each design plants what its docstring says, with the stated truth."""

import pickle

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import linprog
from scipy.special import expit
from scipy.stats import ks_2samp, norm
from sklearn.utils.validation import check_is_fitted

from fairkit_shift._datasets import make_subgroup_shift

N = 200_000  # rows per domain in the Monte Carlo checks
DESIGNS = ["none", "sub_tolerance", "covariate", "outcome", "conditional_covariate", "conditional_outcome"]
# the rise each design plants at the defaults (rise=0.2, tolerance=0.05), from the design table
PLANTED_RISE = {"none": 0.0, "sub_tolerance": 0.025, "covariate": 0.2, "outcome": 0.2,
                "conditional_covariate": 0.2, "conditional_outcome": 0.2}
Z_90 = 1.2815515655446004  # Φ⁻¹(0.9): G = {x1 > Z_90} at prevalence 0.1


@pytest.fixture(scope="module")
def large():
    """One large draw of every design, made once (about 0.2 s each)."""
    return {design: make_subgroup_shift(design, n_samples=N, random_state=7) for design in DESIGNS}


def zero_one_loss(data, domain):
    """The model's 0-1 loss on a domain, as a bool array."""
    X, y = data[f"X_{domain}"], data[f"y_{domain}"]
    return np.asarray(data.model.predict(X) != y)


def mean_and_se(values):
    return values.mean(), values.std() / np.sqrt(values.size)


def assert_rate(values, expected, name):
    """The mean of ``values`` is ``expected`` within 4 standard errors."""
    mean, se = mean_and_se(values.astype(float))
    assert abs(mean - expected) <= 4 * se + 1e-12, f"{name}: {mean:.4f} ± {se:.4f}, expected {expected}"


def cells(data, domain):
    """Masks of G ∩ A, G without A and outside G, computed from the features."""
    X = data[f"X_{domain}"]
    in_g, in_a = X.x1.to_numpy() > Z_90, X.x3.to_numpy() > 0
    return {"G&A": in_g & in_a, "G-A": in_g & ~in_a, "not G": ~in_g}


def test_fields_and_types():
    data = make_subgroup_shift("conditional_outcome", n_samples=500, random_state=0)
    for domain in ("source", "target"):
        X, y = data[f"X_{domain}"], data[f"y_{domain}"]
        assert list(X.columns) == ["x1", "x2", "x3", "x4", "x5"] and (X.dtypes == np.float64).all()
        assert isinstance(y, pd.Series) and y.dtype == np.int64 and set(y.unique()) <= {0, 1}
        assert y.index.equals(X.index) and y.name == "y"
        mask = data[f"subgroup_{domain}"]
        assert mask.dtype == bool and mask.shape == (500,)
        np.testing.assert_array_equal(mask, X.x1.to_numpy() > Z_90)
    assert data.decomposition == "outcome"
    assert data.planted_subset == ["x3"] and data.unrelated_subset == ["x4"]
    assert "conditional_outcome" in data.description
    for design, decomposition in [("none", None), ("sub_tolerance", None), ("covariate", "covariate"),
                                  ("outcome", "outcome"), ("conditional_covariate", "covariate")]:
        data = make_subgroup_shift(design, n_samples=500, n_features=7, random_state=0)
        assert data.decomposition == decomposition
        assert data.X_source.shape == (500, 7)
        assert (data.planted_subset is None) == (not design.startswith("conditional"))


def test_model_is_the_fixed_sigmoid_and_pickles():
    data = make_subgroup_shift("covariate", n_samples=1000, random_state=1)
    model = pickle.loads(pickle.dumps(data.model))
    check_is_fitted(model)
    X = data.X_target
    np.testing.assert_allclose(model.predict_proba(X)[:, 1], expit(3 * X.x2.to_numpy()), rtol=1e-12)
    np.testing.assert_array_equal(model.predict(X), (X.x2.to_numpy() > 0).astype(int))
    np.testing.assert_array_equal(model.classes_, [0, 1])


@pytest.mark.parametrize("design", DESIGNS)
def test_prevalence_of_the_subgroup(large, design):
    data = large[design]
    for domain in ("source", "target"):
        assert_rate(data[f"subgroup_{domain}"], 0.1, f"P(G) in the {domain}")
    data = make_subgroup_shift(design, n_samples=N, prevalence=0.3, rise=0.1, random_state=3)
    for domain in ("source", "target"):
        assert_rate(data[f"subgroup_{domain}"], 0.3, f"P(G) at prevalence 0.3 in the {domain}")


@pytest.mark.parametrize("design", DESIGNS)
def test_empirical_rise_matches_the_true_rise(large, design):
    data = large[design]
    assert data.true_rise == pytest.approx(PLANTED_RISE[design], abs=1e-12)
    source = zero_one_loss(data, "source")[data.subgroup_source].astype(float)
    target = zero_one_loss(data, "target")[data.subgroup_target].astype(float)
    (mean_s, se_s), (mean_t, se_t) = mean_and_se(source), mean_and_se(target)
    assert abs(mean_t - mean_s - data.true_rise) <= 4 * np.hypot(se_s, se_t)


@pytest.mark.parametrize("design", ["covariate", "conditional_covariate", "sub_tolerance"])
def test_covariate_designs_move_x_only(large, design):
    data = large[design]
    rise = PLANTED_RISE[design]
    # P(loss | x) is unchanged: the same error rate in each cell of (G, A) in both domains
    for domain in ("source", "target"):
        loss = zero_one_loss(data, domain)
        for cell, expected in zip(cells(data, domain).items(), (0.9, 0.1, 0.1), strict=True):
            name, mask = cell
            assert_rate(loss[mask], expected, f"error rate on {name} in the {domain}")
    # x3 moves inside G only, to N(μ, 1) with Φ(μ) = 1/2 + rise/0.8
    mu = norm.ppf(0.5 + rise / 0.8)
    x3_target_g = data.X_target.x3[data.subgroup_target].to_numpy()
    assert_rate(x3_target_g, mu, "mean of x3 in G in the target")
    assert ks_2samp(x3_target_g - mu, data.X_source.x3[data.subgroup_source]).pvalue > 1e-4  # N(μ, 1)
    outside_g = data.X_source.x3[~data.subgroup_source], data.X_target.x3[~data.subgroup_target]
    assert ks_2samp(*outside_g).pvalue > 1e-4
    for column in ("x1", "x2", "x4", "x5"):
        assert ks_2samp(data.X_source[column], data.X_target[column]).pvalue > 1e-4, column
    np.testing.assert_array_equal(data.error_source, np.where(cells(data, "source")["G&A"], 0.9, 0.1))
    np.testing.assert_array_equal(data.error_target, np.where(cells(data, "target")["G&A"], 0.9, 0.1))


def test_default_covariate_shift_is_the_hand_computed_mean(large):
    # rise 0.2 = 0.8·(Φ(μ) − 1/2) → Φ(μ) = 0.75 → μ = 0.6745 (table value)
    x3 = large["covariate"].X_target.x3[large["covariate"].subgroup_target].to_numpy()
    assert_rate(x3, 0.6745, "mean of x3 in G in the target")
    assert "0.6745" in large["covariate"].description


@pytest.mark.parametrize("design", ["outcome", "conditional_outcome", "none"])
def test_outcome_designs_keep_x(large, design):
    data = large[design]
    for column in data.X_source.columns:
        assert ks_2samp(data.X_source[column], data.X_target[column]).pvalue > 1e-4, column


def test_outcome_design_moves_the_error_rate_in_g_only(large):
    data = large["outcome"]
    for domain, in_g in (("source", 0.1), ("target", 0.3)):
        loss, mask = zero_one_loss(data, domain), data[f"subgroup_{domain}"]
        assert_rate(loss[mask], in_g, f"error rate in G in the {domain}")
        assert_rate(loss[~mask], 0.1, f"error rate outside G in the {domain}")
    outside_g = ~data.subgroup_target
    np.testing.assert_allclose(data.error_target, np.where(outside_g, 0.1, 0.3), rtol=1e-12)


def test_conditional_outcome_design_moves_the_error_rate_in_g_and_a(large):
    data = large["conditional_outcome"]
    for domain, expected in (("source", (0.1, 0.1, 0.1)), ("target", (0.5, 0.1, 0.1))):
        loss = zero_one_loss(data, domain)
        for (name, mask), rate in zip(cells(data, domain).items(), expected, strict=True):
            assert_rate(loss[mask], rate, f"error rate on {name} in the {domain}")


def test_none_design_is_the_source_again(large):
    data = large["none"]
    for domain in ("source", "target"):
        loss = zero_one_loss(data, domain)
        for (name, mask), rate in zip(cells(data, domain).items(), (0.9, 0.1, 0.1), strict=True):
            assert_rate(loss[mask], rate, f"error rate on {name} in the {domain}")


# --- the sub_tolerance null: no admissible subgroup rises by more than τ ---------------------------

TAU, PREVALENCE, ERROR = 0.05, 0.1, 0.1


def population_cells(rise, prevalence, n_bins=200):
    """P_S, P_T and Z₀ of the cells (G, x3-bin) and the cell outside G, in closed form."""
    mu = norm.ppf(0.5 + rise / (0.9 - ERROR))
    edges = np.linspace(-7, 7, n_bins + 1)  # 0 is an edge: each bin lies in A or outside it
    source = np.append(prevalence * np.diff(norm.cdf(edges)), 1 - prevalence)
    target = np.append(prevalence * np.diff(norm.cdf(edges - mu)), 1 - prevalence)
    z0 = np.append(np.where(edges[1:] > 0, 0.9, ERROR), ERROR)
    return source, target, z0


def largest_rise_over_intervals(rise, eps):
    """max of E_T[Z₀ | d] − E_S[Z₀ | d] over d = G ∩ {t1 < x3 < t2} with P_S(d), P_T(d) ≥ eps."""
    mu = norm.ppf(0.5 + rise / (0.9 - ERROR))
    t = np.concatenate([[-np.inf], np.linspace(-4, 4, 161), [np.inf]])
    t1, t2 = t[:, None], t[None, :]

    def mean_z0(shift):
        mass = PREVALENCE * (norm.cdf(t2 - shift) - norm.cdf(t1 - shift))
        in_a = PREVALENCE * (norm.cdf(t2 - shift) - norm.cdf(np.maximum(t1, 0) - shift))
        with np.errstate(invalid="ignore", divide="ignore"):
            return mass, ERROR + (0.9 - ERROR) * np.clip(in_a, 0, None) / mass

    p_s, z_s = mean_z0(0.0)
    p_t, z_t = mean_z0(mu)
    admissible = (p_s >= eps) & (p_t >= eps)
    return np.max((z_t - z_s)[admissible])


def largest_rise_over_all_subgroups(rise, eps, prevalence=PREVALENCE, n_grid=12):
    """max of E_T[Z₀ | d] − E_S[Z₀ | d] over every d with P_S(d), P_T(d) ≥ eps, by linear programs.

    Z₀ and the density ratio depend on x only through (1[G], x3), and the other features have the
    same law given (1[G], x3) in both domains, so a subgroup acts through its share u ∈ [0, 1] of each
    cell. For fixed P_S(d) = a and P_T(d) = b the objective Σ u z (t/b − s/a) is linear in u.
    """
    s, t, z = population_cells(rise, prevalence)
    bounds, best = [(0, 1)] * s.size, -np.inf
    for a in np.linspace(eps, 0.99, n_grid):
        b_range = [sign * linprog(sign * t, A_eq=s[None], b_eq=[a], bounds=bounds, method="highs").fun
                   for sign in (1, -1)]
        for b in np.linspace(max(b_range[0], eps), b_range[1], n_grid):
            result = linprog(-z * (t / b - s / a), A_eq=np.vstack([s, t]), b_eq=[a, b], bounds=bounds,
                             method="highs")
            if result.status == 0:
                best = max(best, -result.fun)
    return best


def test_sub_tolerance_plants_half_the_tolerance(large):
    data = large["sub_tolerance"]
    assert data.true_rise == pytest.approx(TAU / 2)
    x3 = data.X_target.x3[data.subgroup_target].to_numpy()
    assert_rate(x3, norm.ppf(0.5 + TAU / 2 / 0.8), "mean of x3 in G in the target")
    data = make_subgroup_shift("sub_tolerance", n_samples=N, tolerance=0.2, random_state=2)
    assert data.true_rise == pytest.approx(0.1)


def test_sub_tolerance_null_over_intervals_of_x3():
    # G itself (t1 = -inf, t2 = inf) rises by τ/2; no admissible interval of x3 inside G rises by more than τ
    assert largest_rise_over_intervals(TAU / 2, eps=0.05) == pytest.approx(TAU / 2, abs=1e-3)
    assert largest_rise_over_intervals(TAU / 2, eps=0.05) <= TAU
    # the scan can fail: the planted covariate design does exceed τ
    assert largest_rise_over_intervals(0.2, eps=0.05) > TAU


def test_sub_tolerance_null_over_all_subgroups():
    # the documented values: 0.040 at ε = 0.05, 0.049 at ε = 0.03 (both ≤ τ), above τ at ε = 0.025
    assert largest_rise_over_all_subgroups(TAU / 2, eps=0.05) == pytest.approx(0.040, abs=1e-3)
    assert largest_rise_over_all_subgroups(TAU / 2, eps=0.03) == pytest.approx(0.049, abs=1e-3)
    assert largest_rise_over_all_subgroups(TAU / 2, eps=0.025) == pytest.approx(0.052, abs=1e-3)  # > τ
    # the largest rise depends on ε only through ε / prevalence
    assert largest_rise_over_all_subgroups(TAU / 2, eps=0.1, prevalence=0.2) == pytest.approx(0.040, abs=1e-3)


# --- randomness ------------------------------------------------------------------------------------

def test_reproducible_with_a_seed():
    first, second = (make_subgroup_shift("outcome", n_samples=300, random_state=5) for _ in range(2))
    for key in ("X_source", "X_target"):
        pd.testing.assert_frame_equal(first[key], second[key])
    for key in ("y_source", "y_target"):
        pd.testing.assert_series_equal(first[key], second[key])
    third = make_subgroup_shift("outcome", n_samples=300, random_state=6)
    assert not first.X_source.equals(third.X_source)


def test_draws_are_independent():
    rng = np.random.RandomState(0)
    first, second = (make_subgroup_shift("none", n_samples=300, random_state=rng) for _ in range(2))
    assert not first.X_source.equals(second.X_source)  # the instance advanced
    state = np.random.get_state()[1].copy()  # noqa: NPY002
    fresh = [make_subgroup_shift("none", n_samples=300) for _ in range(2)]
    np.testing.assert_array_equal(np.random.get_state()[1], state)  # noqa: NPY002 (global state untouched)
    assert not fresh[0].X_source.equals(fresh[1].X_source)
    data = make_subgroup_shift("none", n_samples=N, random_state=0)
    for column in data.X_source.columns:  # source and target rows are independent draws
        assert abs(np.corrcoef(data.X_source[column], data.X_target[column])[0, 1]) < 4 / np.sqrt(N)
    loss = zero_one_loss(data, "source").astype(float)
    assert abs(np.corrcoef(loss, data.X_source.x4)[0, 1]) < 4 / np.sqrt(N)  # labels ignore x4


# --- arguments -----------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, match", [
    ({"design": "Covariate"}, "design must be one of"),
    ({"design": None}, "design must be one of"),
    ({"prevalence": 0.0}, "prevalence"),
    ({"prevalence": 1.0}, "prevalence"),
    ({"n_samples": 199}, r"n_samples >= 200"),
    ({"n_samples": 399, "prevalence": 0.05}, r"n_samples >= 400"),
    ({"n_features": 3}, "n_features"),
    ({"error_rate": 0.5}, "error_rate"),
    ({"error_rate": -0.1}, "error_rate"),
    ({"rise": -0.1}, "rise"),
    ({"tolerance": 0.0}, "tolerance"),
    ({"design": "covariate", "rise": 0.4}, r"rise < 0\.4"),
    ({"design": "conditional_covariate", "rise": 0.35, "error_rate": 0.2}, r"rise < 0\.35"),
    ({"design": "outcome", "rise": 0.91}, r"rise <= 0\.9"),
    ({"design": "conditional_outcome", "rise": 0.46}, r"rise <= 0\.45"),
    ({"design": "sub_tolerance", "tolerance": 0.8}, r"tolerance < 0\.8"),
])
def test_bad_arguments_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_subgroup_shift(**kwargs)


def test_bad_types_are_refused():
    with pytest.raises(TypeError, match="n_samples"):
        make_subgroup_shift(n_samples=4000.0)
    with pytest.raises(TypeError, match="rise"):
        make_subgroup_shift(rise="0.2")
    with pytest.raises(ValueError):
        make_subgroup_shift(random_state=np.random.default_rng(0))


@pytest.mark.parametrize("design, rise, largest_error", [
    ("covariate", 0.399, 0.9), ("outcome", 0.9, 1.0), ("conditional_outcome", 0.45, 1.0)])
def test_largest_feasible_rise_is_accepted(design, rise, largest_error):
    data = make_subgroup_shift(design, n_samples=2000, rise=rise, random_state=0)
    assert data.error_target.max() == pytest.approx(largest_error)
    assert data.true_rise == pytest.approx(rise)
