"""M^Shap and M0: budget balance, reciprocity, utilities, and the paper's formula where a(0) is not 0."""

import itertools
from math import factorial

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairkit_mshap import NoPaymentMechanism, PowerLawAccuracy, ShapleyPaymentMechanism


class AgentAccuracy:
    """Agent-specific concave accuracies ``a_i(s) = 1 − α_i (w_i · s + 1)^(−β)``: agents value data unlike."""

    def __init__(self, alpha, weights, beta=0.5):
        self.alpha, self.weights, self.beta = np.asarray(alpha), np.asarray(weights), beta

    def __call__(self, S):
        return 1 - self.alpha * (np.atleast_2d(S) @ self.weights.T + 1) ** -self.beta


def brute_force_shapley(accuracy, s):
    """Shapley values of ``v(X) = Σ_k a_k(s[X])``, ``v(∅) = A(0)`` included, over all orders of the agents."""
    n = len(s)
    value = {}
    for members in itertools.product([False, True], repeat=n):
        value[members] = accuracy(np.where(members, s, 0.0)[None, :])[0].sum()
    phi = np.zeros(n)
    for order in itertools.permutations(range(n)):
        members = [False] * n
        for agent in order:
            before = value[tuple(members)]
            members[agent] = True
            phi[agent] += value[tuple(members)] - before
    return phi / factorial(n)


contributions = st.floats(0.0, 50.0, allow_nan=False)


@st.composite
def power_law_games(draw):
    n = draw(st.integers(1, 6))
    alpha = draw(st.floats(0.05, 1.0))
    beta = draw(st.floats(0.1, 2.0))
    return PowerLawAccuracy(alpha, beta), np.array(draw(st.lists(contributions, min_size=n, max_size=n)))


@st.composite
def agent_specific_games(draw):
    n = draw(st.integers(1, 6))
    alpha = draw(st.lists(st.floats(0.05, 1.0), min_size=n, max_size=n))
    weights = draw(st.lists(st.lists(st.floats(0.0, 2.0), min_size=n, max_size=n), min_size=n, max_size=n))
    s = np.array(draw(st.lists(contributions, min_size=n, max_size=n)))
    return AgentAccuracy(alpha, weights, beta=draw(st.floats(0.1, 2.0))), s


def check_balanced_and_reciprocal(accuracy, s):
    mechanism = ShapleyPaymentMechanism(accuracy)
    assert abs(mechanism.payments(s).sum()) <= 1e-10
    assert mechanism.is_budget_balanced(s)
    phi = brute_force_shapley(accuracy, s)
    # a ratio: where a share is tiny (a contribution of 1e-7) rounding in its numerator is magnified
    sizeable = np.abs(phi) >= 1e-5
    np.testing.assert_allclose(mechanism.reciprocity(s)[sizeable], 1.0, rtol=0, atol=1e-10)
    # the payoff, accuracy gain plus payment, is the Shapley share
    gain = accuracy(s[None, :])[0] - accuracy(np.zeros((1, len(s))))[0]
    np.testing.assert_allclose(gain + mechanism.payments(s), phi, rtol=0, atol=1e-10)


@settings(max_examples=40, deadline=None)
@given(power_law_games())
def test_power_law_payments_balance_and_are_reciprocal(game):
    check_balanced_and_reciprocal(*game)


@settings(max_examples=40, deadline=None)
@given(agent_specific_games())
def test_agent_specific_payments_balance_and_are_reciprocal(game):
    check_balanced_and_reciprocal(*game)


def test_reciprocity_is_undefined_for_an_agent_who_contributes_nothing():
    reciprocity = ShapleyPaymentMechanism(PowerLawAccuracy(0.7, 0.5)).reciprocity([0.0, 3.0, 5.0])
    assert np.isnan(reciprocity[0])
    np.testing.assert_allclose(reciprocity[1:], 1.0, atol=1e-12)


@pytest.mark.parametrize("n", [2, 5, 8])
def test_a_symmetric_profile_with_a_shared_accuracy_needs_no_payment(n):
    payments = ShapleyPaymentMechanism(PowerLawAccuracy(0.6, 0.8)).payments(np.full(n, 7.5))
    np.testing.assert_allclose(payments, 0.0, atol=1e-12)


def test_utilities_under_both_mechanisms():
    weights = np.array([[1, 0.5, 0.2, 1], [0.3, 1, 1, 0.1], [1, 1, 1, 1], [0.0, 2, 0.5, 1]])
    accuracy = AgentAccuracy([0.9, 0.6, 1.0, 0.8], weights)
    s, rates = np.array([2.0, 10.0, 0.5, 4.0]), np.array([0.01, 0.002, 0.03, 0.005])
    a, a0 = accuracy(s)[0], accuracy(np.zeros(4))[0]
    phi = brute_force_shapley(accuracy, s)
    np.testing.assert_allclose(ShapleyPaymentMechanism(accuracy).utilities(s, rates), a0 + phi - rates * s,
                               atol=1e-12)
    np.testing.assert_allclose(NoPaymentMechanism(accuracy).utilities(s, rates), a - rates * s, atol=1e-15)
    np.testing.assert_array_equal(NoPaymentMechanism(accuracy).payments(s), 0.0)


def test_the_papers_verbatim_payments_would_sum_to_minus_the_accuracy_of_no_data():
    # The paper (second-hand notes) pays p_i = φ_i − a_i with φ of v(X) = A(s[X]), so v(∅) = A(0). The
    # Shapley values sum to v(N) − v(∅) = A(s) − A(0): those payments sum to −A(0), zero only when a(0) = 0.
    # fairkit pays φ_i − (a_i − a_i(0)) instead: balanced, and the same incentives (a_i(0) is a constant).
    alpha, n = 0.7, 4
    accuracy, s = PowerLawAccuracy(alpha, 0.5), np.array([1.0, 4.0, 9.0, 0.5])
    phi = brute_force_shapley(accuracy, s)
    verbatim = phi - accuracy(s)[0]
    np.testing.assert_allclose(verbatim.sum(), -n * (1 - alpha), atol=1e-12)
    mechanism = ShapleyPaymentMechanism(accuracy)
    np.testing.assert_allclose(mechanism.shapley(s).values, phi, atol=1e-12)  # a constant shift of v: same φ
    np.testing.assert_allclose(mechanism.payments(s) - verbatim, 1 - alpha, atol=1e-12)
    assert abs(mechanism.payments(s).sum()) <= 1e-12


@pytest.mark.parametrize(("n", "shapley"), [(5, "exact"), (5, "permutation"), (17, "auto")])
def test_an_agents_utility_at_her_options_is_her_utility_at_those_profiles(n, shapley):
    rng = np.random.default_rng(n)
    accuracy = PowerLawAccuracy(0.8, 0.5)
    s, rates = rng.uniform(0, 20, n), rng.uniform(1e-3, 1e-2, n)
    mechanism = ShapleyPaymentMechanism(accuracy, shapley=shapley, n_permutations=40, random_state=1)
    expected_method = "exact" if shapley == "exact" else "permutation"
    assert mechanism.shapley(s).method == expected_method
    options = np.array([0.0, s[2], 3.0, 40.0])
    got = mechanism.agent_utilities(2, options, s, rates)
    for option, utility in zip(options, got, strict=True):
        profile = s.copy()
        profile[2] = option
        np.testing.assert_allclose(utility, mechanism.utilities(profile, rates)[2], rtol=0, atol=1e-12)


def test_no_payment_agent_utilities_match_utilities():
    accuracy = AgentAccuracy([0.9, 0.6, 1.0], np.array([[1, 0.5, 0.2], [0.3, 1, 1], [1, 1, 1]]))
    s, rates = np.array([2.0, 10.0, 0.5]), np.array([0.01, 0.002, 0.03])
    mechanism = NoPaymentMechanism(accuracy)
    for option, utility in zip([0.0, 1.0, 30.0], mechanism.agent_utilities(1, [0.0, 1.0, 30.0], s, rates),
                               strict=True):
        np.testing.assert_allclose(utility, mechanism.utilities([2.0, option, 0.5], rates)[1], atol=1e-15)


def test_no_payment_reciprocity_is_the_accuracy_gain_over_the_shapley_share():
    accuracy, s = PowerLawAccuracy(0.9, 0.5), np.array([1.0, 4.0, 16.0])
    gain = accuracy(s)[0] - accuracy(np.zeros(3))[0]
    reciprocity = NoPaymentMechanism(accuracy).reciprocity(s)
    np.testing.assert_allclose(reciprocity, gain / brute_force_shapley(accuracy, s), rtol=1e-12)
    assert reciprocity[0] > 1 > reciprocity[2]  # the small contributor free-rides on the large one


def test_summary():
    accuracy, s, rates = PowerLawAccuracy(1.0, 0.5), np.array([1.0, 4.0, 16.0]), np.array([0.01, 0.02, 0.005])
    a = 1 - 22.0**-0.5
    keys = {"total_contribution", "mean_accuracy", "welfare", "min_reciprocity", "payment_sum"}
    for mechanism, reciprocity in ((ShapleyPaymentMechanism(accuracy), 1.0),
                                   (NoPaymentMechanism(accuracy), None)):
        summary = mechanism.summary(s, rates)
        assert set(summary) == keys
        assert summary["total_contribution"] == 21.0
        np.testing.assert_allclose(summary["mean_accuracy"], a, rtol=1e-15)
        np.testing.assert_allclose(summary["welfare"], 3 * a - rates @ s, rtol=1e-14)
        assert abs(summary["payment_sum"]) <= 1e-12
        if reciprocity is not None:
            np.testing.assert_allclose(summary["min_reciprocity"], reciprocity, atol=1e-12)
        else:
            assert summary["min_reciprocity"] < 1


def test_callable_costs_are_each_agents_cost_of_her_own_contribution():
    accuracy, s = PowerLawAccuracy(1.0, 0.5), np.array([1.0, 4.0, 16.0])
    quadratic = [1e-3, 2e-3, 5e-4]

    def costs(S):
        return S**2 * quadratic

    mechanism = ShapleyPaymentMechanism(accuracy)
    phi = brute_force_shapley(accuracy, s)
    np.testing.assert_allclose(mechanism.utilities(s, costs), phi - quadratic * s**2, atol=1e-12)
    np.testing.assert_allclose(mechanism.agent_utilities(0, [3.0], s, costs),
                               mechanism.utilities([3.0, 4.0, 16.0], costs)[0], atol=1e-12)


@pytest.mark.parametrize("costs", [[0.01, 0.02], [0.01, -0.02, 0.03], [0.01, np.nan, 0.03],
                                   [[0.01, 0.02, 0.03]]])
@pytest.mark.parametrize("mechanism", [NoPaymentMechanism, ShapleyPaymentMechanism])
def test_bad_costs_are_refused(mechanism, costs):
    with pytest.raises(ValueError, match="costs must be 3 finite rates >= 0"):
        mechanism(PowerLawAccuracy()).utilities([1.0, 2.0, 3.0], costs)


@pytest.mark.parametrize("mechanism", [NoPaymentMechanism, ShapleyPaymentMechanism])
def test_bad_profiles_and_accuracy_functions_are_refused(mechanism):
    with pytest.raises(ValueError, match="s must be finite contributions"):
        mechanism(PowerLawAccuracy()).payments([1.0, -2.0])
    with pytest.raises(ValueError, match="accuracy_fn must be callable"):
        mechanism(0.5)
    with pytest.raises(ValueError, match="method must be"):
        mechanism(PowerLawAccuracy(), shapley="sampling")
    with pytest.raises(ValueError, match="accuracy_fn must map profiles of shape"):
        mechanism(lambda S: np.ones((len(S), 2))).accuracies([1.0, 2.0, 3.0])


@pytest.mark.parametrize("mechanism", [NoPaymentMechanism, ShapleyPaymentMechanism])
@pytest.mark.parametrize("agent", [3, -1, 1.0, True])
def test_agent_utilities_refuse_an_agent_that_is_not_one(mechanism, agent):
    with pytest.raises(ValueError, match="agent must be an int from 0 to 2"):
        mechanism(PowerLawAccuracy()).agent_utilities(agent, [1.0], [1.0, 2.0, 3.0], [0.01] * 3)
