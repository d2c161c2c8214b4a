"""Best-response dynamics: closed-form equilibria, the first-order conditions, and the deviation check."""

import itertools
from math import factorial

import numpy as np
import pytest
from scipy.optimize import fsolve
from sklearn.datasets import make_classification
from sklearn.naive_bayes import GaussianNB

from fairkit_mshap import (
    LearningAccuracy,
    NoPaymentMechanism,
    PowerLawAccuracy,
    ShapleyPaymentMechanism,
    best_response_dynamics,
    deviation_gains,
)


def power_law_slope(total, alpha, beta):
    """``a'(S) = αβ (S + 1)^(−β−1)`` for ``a(S) = 1 − α (S + 1)^(−β)``."""
    return alpha * beta * (total + 1) ** (-beta - 1)


@pytest.mark.parametrize(("alpha", "beta", "rates"), [(1.0, 0.5, [0.004, 0.007, 0.01]),
                                                      (0.8, 1.0, [0.006, 0.002, 0.009, 0.004])])
def test_without_payments_only_the_cheapest_agent_contributes_the_closed_form_total(alpha, beta, rates):
    # u_i = a(S) − γ_i s_i: ∂u_i/∂s_i = a'(S) − γ_i, so only argmin γ can have a'(S) = γ_i at S > 0
    rates = np.array(rates)
    mechanism = NoPaymentMechanism(PowerLawAccuracy(alpha, beta))
    result = best_response_dynamics(mechanism, rates, np.ones(len(rates)), random_state=0)
    total = (alpha * beta / rates.min()) ** (1 / (beta + 1)) - 1
    assert result.converged
    np.testing.assert_allclose(result.contributions.sum(), total, rtol=1e-6)
    others = np.arange(len(rates)) != np.argmin(rates)
    np.testing.assert_array_equal(result.contributions[others], 0.0)


def test_two_agents_under_mshap_meet_the_first_order_conditions():
    # n = 2, α = 1 (a(0) = 0): v(X) = 2 a(s[X]), so φ_1 = a(s_1) + a(s_1 + s_2) − a(s_2) and
    # u_1 = φ_1 − γ_1 s_1 is maximised where a'(s_1) + a'(s_1 + s_2) = γ_1 (likewise for agent 2)
    rates = np.array([0.004, 0.007])

    def first_order(s):
        return power_law_slope(s, 1.0, 0.5) + power_law_slope(s.sum(), 1.0, 0.5) - rates

    expected = fsolve(first_order, [10.0, 10.0], xtol=1e-14)
    np.testing.assert_allclose(expected, [31.85492, 18.84678], atol=1e-5)  # the plan's numbers (§5)
    result = best_response_dynamics(ShapleyPaymentMechanism(PowerLawAccuracy(1.0, 0.5)), rates, [1.0, 1.0],
                                     random_state=0)
    assert result.converged
    np.testing.assert_allclose(result.contributions, expected, rtol=1e-6)


@pytest.mark.parametrize(("alpha", "beta"), [(1.0, 0.5), (0.7, 1.0)])
@pytest.mark.parametrize("mechanism", [NoPaymentMechanism, ShapleyPaymentMechanism])
def test_six_agents_reach_a_profile_where_nobody_gains_by_deviating(mechanism, alpha, beta):
    rates = np.random.default_rng(0).uniform(1e-3, 1e-2, 6)
    game = mechanism(PowerLawAccuracy(alpha, beta))
    result = best_response_dynamics(game, rates, np.ones(6), random_state=0)
    assert result.converged
    gains = deviation_gains(game, rates, result.contributions)
    assert (gains >= 0).all() and gains.max() <= 1e-6
    np.testing.assert_allclose(result.utilities, game.utilities(result.contributions, rates), rtol=1e-15)


def test_mshap_collects_more_data_than_no_payments():
    rates = np.random.default_rng(0).uniform(1e-3, 1e-2, 6)
    totals = [best_response_dynamics(mechanism(PowerLawAccuracy()), rates, np.ones(6), random_state=0)
              .contributions.sum() for mechanism in (NoPaymentMechanism, ShapleyPaymentMechanism)]
    assert totals[1] > 2 * totals[0]


def test_deviation_gain_away_from_equilibrium_has_the_closed_form():
    # M0 at s = (1, 1, 1): agent 0's best response makes the total S0 = (αβ/γ_0)^(1/(β+1)) − 1 = 24
    rates = np.array([0.004, 0.007, 0.01])
    accuracy = PowerLawAccuracy(1.0, 0.5)

    def utility(own, total):
        return 1 - (total + 1) ** -0.5 - rates[0] * own

    gains = deviation_gains(NoPaymentMechanism(accuracy), rates, [1.0, 1.0, 1.0])
    np.testing.assert_allclose(gains[0], utility(22.0, 24.0) - utility(1.0, 3.0), rtol=1e-9)
    assert (gains > 0).all()


def test_gradient_steps_approach_the_best_response_equilibrium():
    # a step of 2000 against a curvature of ~1e-4 contracts; the stop rule (moves < 1e-6 s_i) leaves
    # ~2e-6 relative error, so the tolerance is 1e-5
    rates = np.array([0.004, 0.007])
    mechanism = ShapleyPaymentMechanism(PowerLawAccuracy(1.0, 0.5))
    exact = best_response_dynamics(mechanism, rates, [1.0, 1.0], random_state=0).contributions
    for n_movers in (1, 2):
        result = best_response_dynamics(mechanism, rates, [1.0, 1.0], step=2000.0, n_movers=n_movers,
                                        n_iter=3000, random_state=0)
        assert result.converged
        np.testing.assert_allclose(result.contributions, exact, rtol=1e-5)


@pytest.mark.parametrize("step", [None, 500.0])
def test_same_random_state_same_trajectory(step):
    rates = [0.004, 0.007, 0.01]
    mechanism = ShapleyPaymentMechanism(PowerLawAccuracy())
    first, again, other = (best_response_dynamics(mechanism, rates, [1.0, 5.0, 2.0], step=step, n_movers=2,
                                                  n_iter=40, random_state=seed) for seed in (3, 3, 4))
    np.testing.assert_array_equal(first.trajectory, again.trajectory)
    assert not np.array_equal(first.trajectory[:5], other.trajectory[:5])


# The discrete game of a real learner: three agents, three levels

X, y = make_classification(n_samples=200, n_features=5, n_informative=3, n_redundant=0, flip_y=0.1,
                           random_state=1)
PARTITIONS = [(X[:30], y[:30]), (X[30:50], y[30:50]), (X[50:100], y[50:100])]
LEVELS = (0.0, 0.5, 1.0)
RATES = np.array([0.05, 0.2, 0.1])


def learning_accuracy():
    return LearningAccuracy(GaussianNB(), PARTITIONS, X[100:], y[100:], test_agents=np.arange(100) % 3,
                            levels=LEVELS, random_state=0)


def brute_force_utilities(accuracy, s, *, shapley):
    """Each agent's utility at ``s``: ``a_i(0) + φ_i − γ_i s_i`` (M^Shap) or ``a_i − γ_i s_i`` (M0).

    φ averages over all orders the marginal gain ``Σ_k a_k(s[X ∪ {i}]) − a_k(s[X])``.
    """
    n = len(s)
    if not shapley:
        return accuracy([s])[0] - RATES * s
    phi = np.zeros(n)
    for order in itertools.permutations(range(n)):
        joined = np.zeros(n)
        for agent in order:
            before = accuracy([joined])[0].sum()
            joined[agent] = s[agent]
            phi[agent] += accuracy([joined])[0].sum() - before
    return accuracy([np.zeros(n)])[0] + phi / factorial(n) - RATES * s


@pytest.mark.parametrize(("mechanism", "shapley"), [(NoPaymentMechanism, False),
                                                    (ShapleyPaymentMechanism, True)])
def test_learning_game_converges_where_no_agent_gains_by_another_level(mechanism, shapley):
    accuracy = learning_accuracy()
    result = best_response_dynamics(mechanism(accuracy), RATES, [1.0, 1.0, 1.0], random_state=0)
    assert result.converged and set(result.contributions) <= set(LEVELS)
    s = result.contributions
    now = brute_force_utilities(accuracy, s, shapley=shapley)
    np.testing.assert_allclose(result.utilities, now, atol=1e-12)
    for agent, level in itertools.product(range(3), LEVELS):
        deviation = s.copy()
        deviation[agent] = level
        assert brute_force_utilities(accuracy, deviation, shapley=shapley)[agent] <= now[agent] + 1e-12


# Bad input

@pytest.mark.parametrize("n_movers", [0, 4, 1.5, True, None])
def test_bad_n_movers_is_refused(n_movers):
    with pytest.raises(ValueError, match=r"n_movers must be an int from 1 to the number of agents \(3\)"):
        best_response_dynamics(NoPaymentMechanism(PowerLawAccuracy()), [0.01] * 3, [1.0] * 3,
                               n_movers=n_movers)


@pytest.mark.parametrize("step", [0.0, -1.0, "1", True])
def test_a_step_must_be_positive(step):
    with pytest.raises(ValueError, match="step must be a positive number"):
        best_response_dynamics(NoPaymentMechanism(PowerLawAccuracy()), [0.01] * 3, [1.0] * 3, step=step)


def test_a_step_is_refused_for_finite_levels():
    with pytest.raises(ValueError, match="step needs a continuous contribution interval"):
        best_response_dynamics(ShapleyPaymentMechanism(learning_accuracy()), RATES, [1.0] * 3, step=0.1)


@pytest.mark.parametrize("n_iter", [0, 2.5, True])
def test_bad_n_iter_is_refused(n_iter):
    with pytest.raises(ValueError, match="n_iter must be a positive int"):
        best_response_dynamics(NoPaymentMechanism(PowerLawAccuracy()), [0.01] * 3, [1.0] * 3, n_iter=n_iter)


def test_a_bad_start_is_refused():
    with pytest.raises(ValueError, match="s0 must be finite contributions"):
        best_response_dynamics(NoPaymentMechanism(PowerLawAccuracy()), [0.01] * 3, [1.0, -1.0, 1.0])


@pytest.mark.parametrize("beta", [0.5, 1.0])
def test_mshap_collects_at_least_the_welfare_optimal_data_and_m0_less_over_cost_draws(beta):
    # Power law, linear costs. Welfare n a(S) − γ_min S (the cheapest agent giving all) peaks at
    # S* = (n α β / γ_min)^(1/(β+1)) − 1. Under M^Shap ∂φ_i/∂s_i = Σ_X w_X n a'(S_X + s_i) ≥ n a'(S),
    # so where the cheapest agent contributes, a'(S) ≤ γ_min / n, i.e. S ≥ S*; M0 stops at S0 < S*.
    n = 6
    for seed in range(5):
        rates = np.random.default_rng(seed).uniform(1e-3, 1e-2, n)
        optimum = (n * beta / rates.min()) ** (1 / (beta + 1)) - 1
        totals = {}
        for mechanism in (NoPaymentMechanism, ShapleyPaymentMechanism):
            result = best_response_dynamics(mechanism(PowerLawAccuracy(1.0, beta)), rates, np.ones(n),
                                            random_state=seed)
            assert result.converged
            totals[mechanism] = result.contributions
        assert totals[ShapleyPaymentMechanism][np.argmin(rates)] > 0
        assert totals[ShapleyPaymentMechanism].sum() >= optimum * (1 - 1e-9)
        assert totals[NoPaymentMechanism].sum() < optimum
