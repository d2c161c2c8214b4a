"""Plug-in and one-step estimates of subgroup decay: hand-computed cases, influence functions against
numerical differentiation, the decomposition identity, coverage with known truth, the reference's biased
formulas, and the errors of bad input."""

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.special import expit
from scipy.stats import norm

from fairkit_shift._estimators import (
    ShiftEstimate,
    conditional_covariate_estimate,
    conditional_outcome_estimate,
    covariate_shift_estimate,
    outcome_shift_estimate,
)
from fairkit_shift._losses import expected_loss

TAU = 0.05

# --------------------------------------------------------------------------- hand-computed examples
# source: 6 rows, 3 detected by candidate 0; candidate 1 detects 3 source rows and no target row
D_S = np.array([[1, 0], [1, 0], [1, 0], [0, 1], [0, 1], [0, 1]], dtype=bool)
L_S = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 0.0])
Z0_S = np.array([0.5, 0.5, 0.25, 0.5, 0.5, 0.5])
W_S = np.array([2.0, 1.0, 0.5, 1.0, 1.0, 1.0])
D_T = np.array([[1, 0], [1, 0], [1, 0], [1, 0], [0, 0], [0, 0]], dtype=bool)
L_T = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 1.0])
Z0_T = np.array([0.5, 0.25, 0.75, 0.5, 0.0, 0.0])
# by hand: P_S = 3/6, P_T = 4/6; a = mean_{T,d} Z0 = 2/4; b = mean_{S,d} L = 2/3;
# c = (2*0.5 + 1*(-0.5) + 0.5*0.75) / (6 * 4/6) = 0.875/4;
# e = mean_{T,d}(L - Z0) = (0.5 - 0.25 + 0.25 + 0.5)/4
P_S, P_T, A, B, C, E = 0.5, 2 / 3, 0.5, 2 / 3, 0.875 / 4, 0.25


def test_covariate_by_hand():
    est = covariate_shift_estimate(D_S, D_T, L_S, Z0_S, Z0_T, W_S, TAU)
    np.testing.assert_allclose(est.plugin, [A - B - TAU, np.nan])
    np.testing.assert_allclose(est.onestep, [A + C - B - TAU, np.nan])
    # the plan's influence functions, row by row
    phi_t = [(z - A - C) / P_T + C for z in (0.5, 0.25, 0.75, 0.5)] + [C, C]
    ratio_residual = [2 * 0.5, 1 * -0.5, 0.5 * 0.75]
    phi_s = [(r - P_T * C) / P_T - (loss - B) / P_S
             for r, loss in zip(ratio_residual, (1, 0, 1), strict=True)]
    phi_s += [-C] * 3
    np.testing.assert_allclose(est.influence_target[:, 0], phi_t)
    np.testing.assert_allclose(est.influence_source[:, 0], phi_s)
    np.testing.assert_array_equal(est.influence_source[:, 1], 0)
    np.testing.assert_array_equal(est.influence_target[:, 1], 0)
    np.testing.assert_allclose(est.prevalence_source, [0.5, 0.5])
    np.testing.assert_allclose(est.prevalence_target, [2 / 3, 0])
    se = np.sqrt(np.sum(np.square(phi_s)) / 36 + np.sum(np.square(phi_t)) / 36)
    np.testing.assert_allclose(est.std_error, [se, np.nan])


def test_outcome_by_hand():
    est = outcome_shift_estimate(D_S, D_T, L_S, Z0_S, L_T, Z0_T, W_S, TAU)
    np.testing.assert_allclose(est.plugin, [E - TAU, np.nan])
    np.testing.assert_allclose(est.onestep, [E - C - TAU, np.nan])
    residual_t = L_T - Z0_T
    phi_t = [(r - E + C) / P_T - C for r in residual_t[:4]] + [-C, -C]
    phi_s = [-(r - P_T * C) / P_T for r in (2 * 0.5, 1 * -0.5, 0.5 * 0.75)] + [C] * 3
    np.testing.assert_allclose(est.influence_target[:, 0], phi_t)
    np.testing.assert_allclose(est.influence_source[:, 0], phi_s)


def test_outcome_needs_no_source_row():
    est = outcome_shift_estimate(np.zeros(6, bool), D_T[:, 0], L_S, Z0_S, L_T, Z0_T, W_S, TAU)
    np.testing.assert_allclose(est.onestep, [E - TAU])  # no correction: no source row detected
    assert np.isfinite(est.std_error).all()


def test_conditional_covariate_by_hand():
    d_s, d_t = [1, 1, 1, 0], [1, 1, 0, 0]
    loss_s, z0_s, w_s = [1.0, 0.0, 1.0, 0.0], [0.5] * 4, [1.0, 2.0, 2.0, 1.0]
    nu_s, w_cond_s = [0.6, 0.4, 0.5, 0.5], [1.0, 0.5, 1.5, 1.0]
    z0_t, nu_t = [0.8, 0.4, 0.1, 0.1], [0.5] * 4
    est = conditional_covariate_estimate(d_s, d_t, loss_s, z0_s, z0_t, w_s, nu_s, nu_t, w_cond_s, 0.0)
    # a = mean_{T,d}(Z0 - nu) = (0.3 - 0.1)/2; c = (0.5 - 1 + 1)/(4 * 1/2); h = (0.4 - 0.2 + 0.75)/3
    np.testing.assert_allclose(est.plugin, [0.1])
    np.testing.assert_allclose(est.onestep, [0.1 + 0.25 - 0.95 / 3])


def test_conditional_outcome_by_hand():
    est = conditional_outcome_estimate([0, 1], [1, 1, 1, 0], [1.0, 0.0, 1.0, 1.0], [0.5, 0.25, 0.5, 0.5],
                                       [1, 0, 1, 1], [0.5, 0.5, 0.75, 0.5], [0.5, -1.0, 0.5, 0.2], TAU)
    # plug-in: (0.5 - 0.25 + 0.5)/3 - tau; e2 = (y - mu) kappa = 0.25, 0.5, 0.125, 0.1 (all target rows,
    # the undetected one included); one-step: (0.75 - 0.975)/4 / (3/4) - tau
    np.testing.assert_allclose(est.plugin, [0.25 - TAU])
    np.testing.assert_allclose(est.onestep, [-0.075 - TAU])
    np.testing.assert_array_equal(est.influence_source, 0)
    np.testing.assert_allclose(est.prevalence_source, [0.5])


# --------------------------------------------------------------------------- influence functions
def weighted_mean(values, weights):
    return np.sum(weights[:, None] * values, axis=0) / weights.sum()


def empirical_influence(weighted_estimate, n_source, n_target, step=1e-6):
    """n_D ∂θ/∂(weight of row i): the influence function of a smooth function of sample means."""
    influences = []
    for domain, n in enumerate((n_source, n_target)):
        rows = []
        for i in range(n):
            shifts = []
            for sign in (1, -1):
                weights = [np.ones(n_source), np.ones(n_target)]
                weights[domain][i] += sign * step
                shifts.append(weighted_estimate(*weights))
            rows.append(n * (shifts[0] - shifts[1]) / (2 * step))
        influences.append(np.array(rows))
    return influences


def random_rows(rng, n, k):
    return dict(detected=rng.random((n, k)) < 0.5, loss=rng.binomial(1, 0.4, n).astype(float),
                z0=rng.uniform(0.2, 0.6, n), ratio=rng.uniform(0.3, 3, n), nu=rng.uniform(0.2, 0.6, (n, k)),
                conditional_ratio=rng.uniform(0.3, 3, (n, k)), y=rng.binomial(1, 0.5, n),
                mu1=rng.uniform(0.2, 0.8, n), kappa=rng.normal(size=(n, k)))


def weighted_formulas(src, tgt):
    """θ of each estimator written as weighted means (weights of the source and target rows)."""
    d_s, d_t = src["detected"], tgt["detected"]
    res_s = (src["loss"] - src["z0"])[:, None]

    def correction(ws, wt):  # (1/(n_s P_T)) Σ_S d w (L − Z0)
        return weighted_mean(d_s * src["ratio"][:, None] * res_s, ws) / weighted_mean(d_t, wt)

    def covariate(ws, wt):
        return (weighted_mean(d_t * tgt["z0"][:, None], wt) / weighted_mean(d_t, wt)
                - weighted_mean(d_s * src["loss"][:, None], ws) / weighted_mean(d_s, ws)
                + correction(ws, wt) - TAU)

    def outcome(ws, wt):
        return (weighted_mean(d_t * (tgt["loss"] - tgt["z0"])[:, None], wt) / weighted_mean(d_t, wt)
                - correction(ws, wt) - TAU)

    def conditional_covariate(ws, wt):
        hybrid = d_s * src["conditional_ratio"] * (src["loss"][:, None] - src["nu"])
        return (weighted_mean(d_t * (tgt["z0"][:, None] - tgt["nu"]), wt) / weighted_mean(d_t, wt)
                + correction(ws, wt) - weighted_mean(hybrid, ws) / weighted_mean(d_s, ws) - TAU)

    def conditional_outcome(ws, wt):
        lbar = expected_loss(tgt["mu1"], 1 - tgt["loss"], tgt["loss"])  # any ℓ̄ with loss values in [0, 1]
        numerator = d_t * (tgt["loss"] - lbar)[:, None] - (tgt["y"] - tgt["mu1"])[:, None] * tgt["kappa"]
        return weighted_mean(numerator, wt) / weighted_mean(d_t, wt) - TAU

    return dict(covariate=covariate, outcome=outcome, conditional_covariate=conditional_covariate,
                conditional_outcome=conditional_outcome)


def estimates(src, tgt):
    d_s, d_t = src["detected"], tgt["detected"]
    lbar = expected_loss(tgt["mu1"], 1 - tgt["loss"], tgt["loss"])
    return dict(
        covariate=covariate_shift_estimate(d_s, d_t, src["loss"], src["z0"], tgt["z0"], src["ratio"], TAU),
        outcome=outcome_shift_estimate(d_s, d_t, src["loss"], src["z0"], tgt["loss"], tgt["z0"], src["ratio"],
                                       TAU),
        conditional_covariate=conditional_covariate_estimate(
            d_s, d_t, src["loss"], src["z0"], tgt["z0"], src["ratio"], src["nu"], tgt["nu"],
            src["conditional_ratio"], TAU),
        conditional_outcome=conditional_outcome_estimate(d_s, d_t, tgt["loss"], lbar, tgt["y"], tgt["mu1"],
                                                         tgt["kappa"], TAU))


@pytest.mark.parametrize("name", ["covariate", "outcome", "conditional_covariate", "conditional_outcome"])
def test_influence_is_the_derivative_in_the_row_weights(name):
    rng = np.random.default_rng(1)
    src, tgt = random_rows(rng, 13, 3), random_rows(rng, 9, 3)
    est, formula = estimates(src, tgt)[name], weighted_formulas(src, tgt)[name]
    np.testing.assert_allclose(est.onestep, formula(np.ones(13), np.ones(9)))
    phi_s, phi_t = empirical_influence(formula, 13, 9)
    np.testing.assert_allclose(est.influence_source, phi_s, atol=1e-6)
    np.testing.assert_allclose(est.influence_target, phi_t, atol=1e-6)
    np.testing.assert_allclose(est.covariance().diagonal(), est.std_error**2)


# --------------------------------------------------------------------------- a design with known truth
MEAN_T = 0.7  # target covariate mean (source: 0); the density ratio is exp(m x - m²/2)
CUT = -0.2  # the fixed detector d(x) = 1[x > CUT]


def mu_source(x):
    return expit(x)


def mu_target(x):
    return expit(x + 0.5 * (x > 0))  # outcome shift on x > 0


def losses(x):
    """zero-one loss of the model 1[x > 0.3]: ℓ(x, 0), ℓ(x, 1)."""
    loss0 = (x > 0.3).astype(float)
    return loss0, 1 - loss0


def draw(rng, n, reps, target):
    x = rng.normal(MEAN_T if target else 0.0, 1.0, (n, reps))
    y = rng.random((n, reps)) < (mu_target(x) if target else mu_source(x))
    loss0, loss1 = losses(x)
    return dict(x=x, detected=x > CUT, loss=np.where(y, loss1, loss0),
                z0=expected_loss(mu_source(x), loss0, loss1), ratio=np.exp(MEAN_T * x - MEAN_T**2 / 2))


def conditional_mean(f, mean):
    """E[f(X) | X > CUT] for X ~ N(mean, 1)."""
    total = sum(quad(lambda x: f(np.asarray(x)) * norm.pdf(x - mean), lo, hi)[0]
                for lo, hi in ((CUT, 0), (0, 0.3), (0.3, 12)))
    return total / norm.sf(CUT - mean)


def z0(x):
    return expected_loss(mu_source(x), *losses(x))


THETA_X = conditional_mean(z0, MEAN_T) - conditional_mean(z0, 0.0) - TAU
THETA_Y = conditional_mean(lambda x: (mu_target(x) - mu_source(x)) * (losses(x)[1] - losses(x)[0]),
                           MEAN_T) - TAU


def test_decomposition_identity():
    """E_T[L|d] − E_S[L|d] = (θ_X + τ) + (θ_Y + τ), for the estimates and their influence functions."""
    rng = np.random.default_rng(2)
    src, tgt = draw(rng, 3000, 1, False), draw(rng, 2000, 1, True)
    args = src["detected"], tgt["detected"], src["loss"], src["z0"]
    cov = covariate_shift_estimate(*args, tgt["z0"], src["ratio"], TAU)
    out = outcome_shift_estimate(*args, tgt["loss"], tgt["z0"], src["ratio"], TAU)
    mean_s, mean_t = src["loss"][src["detected"]].mean(), tgt["loss"][tgt["detected"]].mean()
    np.testing.assert_allclose(cov.onestep + out.onestep + 2 * TAU, mean_t - mean_s)
    np.testing.assert_allclose(cov.plugin + out.plugin + 2 * TAU, mean_t - mean_s)
    phi_mean_t = tgt["detected"] * (tgt["loss"] - mean_t) / tgt["detected"].mean()
    phi_mean_s = src["detected"] * (src["loss"] - mean_s) / src["detected"].mean()
    np.testing.assert_allclose(cov.influence_target + out.influence_target, phi_mean_t, atol=1e-12)
    np.testing.assert_allclose(cov.influence_source + out.influence_source, -phi_mean_s, atol=1e-12)
    # and in expectation: the truth decomposes the same way
    mean_t = conditional_mean(lambda x: expected_loss(mu_target(x), *losses(x)), MEAN_T)
    assert pytest.approx(mean_t - conditional_mean(z0, 0)) == THETA_X + THETA_Y + 2 * TAU


def coverage_run(reps, n_source, n_target, seed):
    """95 % intervals of θ_X and θ_Y with a wrong μ₀ (Ẑ₀ = Z₀ + 0.1) and the exact density ratio."""
    rng = np.random.default_rng(seed)
    src, tgt = draw(rng, n_source, reps, False), draw(rng, n_target, reps, True)
    args = src["detected"], tgt["detected"], src["loss"], src["z0"] + 0.1
    cov = covariate_shift_estimate(*args, tgt["z0"] + 0.1, src["ratio"], TAU)
    out = outcome_shift_estimate(*args, tgt["loss"], tgt["z0"] + 0.1, src["ratio"], TAU)
    result = {}
    for name, est, theta in (("covariate", cov, THETA_X), ("outcome", out, THETA_Y)):
        lower, upper = est.confidence_interval(0.95)
        mc_se = est.onestep.std() / np.sqrt(reps)
        result[name] = dict(coverage=np.mean((lower <= theta) & (theta <= upper)),
                            bias=(est.onestep.mean() - theta) / mc_se,
                            plugin_bias=(est.plugin.mean() - theta) / mc_se,
                            se_ratio=est.std_error.mean() / est.onestep.std())
    return result


@pytest.mark.parametrize("name", ["covariate", "outcome"])
def test_coverage_quick(name):
    result = coverage_run(reps=300, n_source=1000, n_target=600, seed=3)[name]
    assert 0.90 <= result["coverage"] <= 0.99
    assert abs(result["bias"]) < 3.5
    assert abs(result["plugin_bias"]) > 10  # the wrong μ₀ biases the plug-in; the one-step corrects it
    assert 0.85 < result["se_ratio"] < 1.15


@pytest.mark.slow
@pytest.mark.parametrize("name", ["covariate", "outcome"])
def test_coverage_slow(name):
    result = coverage_run(reps=1000, n_source=2000, n_target=1500, seed=4)[name]
    assert 0.93 <= result["coverage"] <= 0.97  # ±3 binomial SE around 0.95
    assert abs(result["bias"]) < 3.5
    assert 0.93 < result["se_ratio"] < 1.07


# --------------------------------------------------------------------------- the reference's formulas
def test_reference_covariate_onestep_is_biased_under_covariate_shift():
    """D1: the reference's correction mean_{S,d} ŵ(L − Ẑ₀) lacks the factor ω̂ = P̂_S/P̂_T."""
    rng = np.random.default_rng(5)
    reps, n = 400, 2000
    x_s, x_t = rng.normal(0, 1, (n, reps)), rng.normal(1, 1, (n, reps))
    d_s, d_t = x_s > 0.5, x_t > 0.5
    z0_s, z0_t = 0.2 + 0.3 * (x_s > 1), 0.2 + 0.3 * (x_t > 1)  # E_S[L | x]
    loss_s = (rng.random((n, reps)) < z0_s).astype(float)
    ratio_s = np.exp(x_s - 0.5)
    truth = 0.3 * (norm.sf(0) / norm.sf(-0.5) - norm.sf(1) / norm.sf(0.5)) - TAU
    ours = covariate_shift_estimate(d_s, d_t, loss_s, z0_s + 0.2, z0_t + 0.2, ratio_s, TAU).onestep
    mean_d = lambda values, d: np.sum(values * d, axis=0) / d.sum(axis=0)  # noqa: E731
    reference = (mean_d(z0_t + 0.2, d_t) - mean_d(loss_s, d_s)
                 + mean_d(ratio_s * (loss_s - z0_s - 0.2), d_s) - TAU)
    mc_se = reference.std() / np.sqrt(reps)
    assert abs(ours.mean() - truth) < 3 * ours.std() / np.sqrt(reps)
    predicted_bias = 0.2 - 0.2 * norm.sf(-0.5) / norm.sf(0.5)  # a's +0.2 against the correction's −0.2/ω
    assert abs(reference.mean() - truth - predicted_bias) < 4 * mc_se
    assert abs(reference.mean() - truth) > 20 * mc_se


def test_reference_outcome_onestep_is_about_half_the_decay():
    """D2: the reference averages its outcome one-step over both domains' subgroups."""
    rng = np.random.default_rng(6)
    reps, n = 400, 2000
    x_s, x_t = rng.normal(0, 1, (n, reps)), rng.normal(0, 1, (n, reps))
    d_s, d_t = x_s > 0, x_t > 0
    z0_s, z0_t = np.full((n, reps), 0.2), np.full((n, reps), 0.2)
    loss_s = (rng.random((n, reps)) < 0.2).astype(float)
    loss_t = (rng.random((n, reps)) < 0.2 + 0.3 * d_t).astype(float)  # the loss rises by 0.3 in d
    ratio_s = np.ones((n, reps))
    truth = 0.3 - TAU
    ours = outcome_shift_estimate(d_s, d_t, loss_s, z0_s, loss_t, z0_t, ratio_s, TAU).onestep
    reference = (np.sum(d_t * (loss_t - z0_t - TAU), axis=0)
                 - np.sum(d_s * ratio_s * (loss_s - z0_s), axis=0)) / (d_s.sum(axis=0) + d_t.sum(axis=0))
    mc_se = reference.std() / np.sqrt(reps)
    assert abs(ours.mean() - truth) < 3 * ours.std() / np.sqrt(reps)
    assert abs(reference.mean() - truth / 2) < 3 * mc_se
    assert truth - reference.mean() > 20 * mc_se


# --------------------------------------------------------------------------- stage 2 with known truth
def conditional_covariate_run(reps, n, seed):
    """X = (X1, X2) independent; the target shifts X1 by 0.8 and X2 by 0.5; s = {X1}, d = 1[x1 > 0];
    Z0 = 0.2 + 0.3·1[x1 > 1] + 0.2·1[x2 > 0]; wrong Ẑ₀ (+0.1) and ν̂ (−0.1), exact ratios."""
    rng = np.random.default_rng(seed)
    src = rng.normal(0, 1, (2, n, reps))
    tgt = rng.normal(0, 1, (2, n, reps)) + np.array([0.8, 0.5])[:, None, None]

    def z0(x):
        return 0.2 + 0.3 * (x[0] > 1) + 0.2 * (x[1] > 0)

    def nu(x):  # E_S[Z0 | x2, x1 > 0]
        return 0.2 + 0.3 * norm.sf(1) / norm.sf(0) + 0.2 * (x[1] > 0)

    loss_s = (rng.random((n, reps)) < z0(src)).astype(float)
    ratio_s = np.exp(0.8 * src[0] - 0.32 + 0.5 * src[1] - 0.125)
    cond_ratio_s = np.exp(0.5 * src[1] - 0.125)
    est = conditional_covariate_estimate(src[0] > 0, tgt[0] > 0, loss_s, z0(src) + 0.1, z0(tgt) + 0.1,
                                         ratio_s, nu(src) - 0.1, nu(tgt) - 0.1, cond_ratio_s, TAU)
    truth = 0.3 * (norm.sf(1 - 0.8) / norm.sf(-0.8) - norm.sf(1) / norm.sf(0)) - TAU
    return est, truth


def conditional_outcome_run(reps, n, seed):
    """Target X1, X2 ~ N(0, 1); μ₁(x) = 0.2 + 0.5·1[x1 > 0] so μ₁,₋ₛ = 0.45; model 1[x1 + x2 > 0];
    d = 1[x1 > −0.5]; wrong μ̂₁,₋ₛ (0.6), exact κ."""
    rng = np.random.default_rng(seed)
    x1, x2 = rng.normal(0, 1, (2, n, reps))
    y = rng.random((n, reps)) < 0.2 + 0.5 * (x1 > 0)
    loss0 = (x1 + x2 > 0).astype(float)
    loss1 = 1 - loss0
    detected = x1 > -0.5
    mu1 = np.full((n, reps), 0.6)
    kappa = norm.sf(-0.5) - 2 * norm.sf(np.maximum(-0.5, -x2))  # E_T[d (ℓ₁ − ℓ₀) | x2]
    est = conditional_outcome_estimate(rng.random((n, reps)) < 0.5, detected, np.where(y, loss1, loss0),
                                       expected_loss(mu1, loss0, loss1), y, mu1, kappa, TAU)
    # θ + τ = E_T[d (μ₁ − μ₁,₋ₛ)(ℓ₁ − ℓ₀)] / P_T(d), and E[ℓ₁ − ℓ₀ | x1] = 1 − 2Φ(x1)
    excess = sum(quad(lambda t, mu=mu: norm.pdf(t) * (mu - 0.45) * (1 - 2 * norm.cdf(t)), lo, hi)[0]
                 for mu, lo, hi in ((0.2, -0.5, 0), (0.7, 0, 12)))
    return est, excess / norm.sf(-0.5) - TAU


@pytest.mark.parametrize(("run", "reps", "n", "bounds"), [
    (conditional_covariate_run, 300, 1000, (0.90, 0.99)),
    (conditional_outcome_run, 300, 1000, (0.90, 0.99)),
    pytest.param(conditional_covariate_run, 1000, 2000, (0.93, 0.97), marks=pytest.mark.slow),
    pytest.param(conditional_outcome_run, 1000, 2000, (0.93, 0.97), marks=pytest.mark.slow),
])
def test_conditional_coverage(run, reps, n, bounds):
    est, truth = run(reps, n, seed=7)
    lower, upper = est.confidence_interval()
    mc_se = est.onestep.std() / np.sqrt(reps)
    assert bounds[0] <= np.mean((lower <= truth) & (truth <= upper)) <= bounds[1]
    assert abs(est.onestep.mean() - truth) < 3.5 * mc_se
    assert abs(est.plugin.mean() - truth) > 10 * mc_se  # the wrong nuisances bias the plug-in
    assert 0.85 < est.std_error.mean() / est.onestep.std() < 1.15


# --------------------------------------------------------------------------- shapes, empty candidates, errors
def test_one_dimensional_detected_is_one_candidate():
    est = covariate_shift_estimate(D_S[:, 0], D_T[:, 0], L_S, Z0_S, Z0_T, W_S, TAU)
    assert est.onestep.shape == (1,) and est.influence_source.shape == (6, 1)
    np.testing.assert_allclose(est.onestep, [A + C - B - TAU])


def test_no_candidates():
    none = np.zeros((6, 0), bool)
    est = outcome_shift_estimate(none, none, L_S, Z0_S, L_T, Z0_T, W_S, TAU)
    assert est.onestep.shape == (0,) and est.influence_target.shape == (6, 0) and est.std_error.shape == (0,)


def test_candidate_without_target_rows_is_nan_for_every_estimator():
    rng = np.random.default_rng(8)
    src, tgt = random_rows(rng, 10, 2), random_rows(rng, 8, 2)
    tgt["detected"][:, 1] = False
    for est in estimates(src, tgt).values():
        assert np.isfinite(est.onestep[0]) and np.isnan(est.onestep[1]) and np.isnan(est.plugin[1])
        assert not est.influence_target[:, 1].any() and not est.influence_source[:, 1].any()
        assert np.isnan(est.std_error[1]) and np.isfinite(est.std_error[0])


def test_shift_estimate_is_a_named_tuple():
    est = covariate_shift_estimate(D_S, D_T, L_S, Z0_S, Z0_T, W_S, TAU)
    assert isinstance(est, ShiftEstimate) and est._fields == (
        "plugin", "onestep", "influence_source", "influence_target", "prevalence_source", "prevalence_target")


@pytest.mark.parametrize(("change", "match"), [
    (dict(detected_source=D_S[:, :1]), "same candidates"),
    (dict(detected_source=np.where(D_S, 2, 0)), "booleans"),
    (dict(detected_target=np.zeros((0, 2), bool)), "at least one row"),
    (dict(loss_source=L_S[:5]), r"shape \(6,\) or \(6, 2\)"),
    (dict(z0_target=np.ones((6, 3))), r"shape \(6,\) or \(6, 2\)"),
    (dict(ratio_source=-W_S), "non-negative"),
    (dict(loss_source=np.r_[np.nan, L_S[1:]]), "NaN"),
    (dict(z0_source=["a"] * 6), "z0_source holds values that are not numbers"),
    (dict(tolerance=np.nan), "finite"),
])
def test_bad_input(change, match):
    args = dict(detected_source=D_S, detected_target=D_T, loss_source=L_S, z0_source=Z0_S, z0_target=Z0_T,
                ratio_source=W_S, tolerance=TAU) | change
    with pytest.raises(ValueError, match=match):
        covariate_shift_estimate(**args)


def test_bad_labels():
    with pytest.raises(ValueError, match="encoded 0/1"):
        conditional_outcome_estimate([1], [1, 1], [1.0, 0.0], [0.5, 0.5], [1, 2], [0.5, 0.5], [0.1, 0.1], TAU)


def test_bad_tolerance_type():
    with pytest.raises(TypeError, match="tolerance"):
        outcome_shift_estimate(D_S, D_T, L_S, Z0_S, L_T, Z0_T, W_S, "0.05")


def test_bad_level():
    with pytest.raises(ValueError, match="level"):
        covariate_shift_estimate(D_S, D_T, L_S, Z0_S, Z0_T, W_S, TAU).confidence_interval(95)
