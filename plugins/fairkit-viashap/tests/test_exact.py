from itertools import permutations

import numpy as np
import pytest

from fairkit_viashap import _exact
from fairkit_viashap._exact import exact_shapley_values


def smooth_function(Z):
    """A non-additive function of 4 features with interactions of every order."""
    return np.tanh(Z[:, 0] * Z[:, 1] - Z[:, 2]) + Z[:, 3] ** 2 * Z[:, 0] + np.sin(Z[:, 1] * Z[:, 2] * Z[:, 3])


def permutation_shapley(f, x, baseline):
    """Brute force from the definition: average marginal contribution over every ordering of the players."""
    d = len(x)
    phi = np.zeros(d)
    orders = list(permutations(range(d)))
    for order in orders:
        z = baseline.copy()
        previous = f(z[None])[0]
        for j in order:
            z[j] = x[j]
            current = f(z[None])[0]
            phi[j] += current - previous
            previous = current
    return phi / len(orders)


def test_matches_permutation_definition():
    rng = np.random.default_rng(0)
    X, baseline = rng.normal(size=(3, 4)), rng.normal(size=4)
    phi = exact_shapley_values(smooth_function, X, baseline)
    expected = np.array([permutation_shapley(smooth_function, x, baseline) for x in X])
    np.testing.assert_allclose(phi, expected, atol=1e-12)


def test_efficiency():
    rng = np.random.default_rng(1)
    X, baseline = rng.normal(size=(5, 4)), rng.normal(size=4)
    phi = exact_shapley_values(smooth_function, X, baseline)
    np.testing.assert_allclose(phi.sum(1), smooth_function(X) - smooth_function(baseline[None]), atol=1e-12)


def test_linear_function():
    rng = np.random.default_rng(2)
    w, X, b = rng.normal(size=6), rng.normal(size=(4, 6)), rng.normal(size=6)
    phi = exact_shapley_values(lambda Z: Z @ w + 3.0, X, b)
    np.testing.assert_allclose(phi, w * (X - b), atol=1e-12)


def test_symmetry_and_dummy():
    f = lambda Z: np.exp(Z[:, 0] * Z[:, 1]) + Z[:, 3]  # noqa: E731 -- features 0, 1 symmetric; 2 a dummy
    X = np.array([[0.7, 0.7, 5.0, -1.0], [1.2, 1.2, -3.0, 2.0]])
    phi = exact_shapley_values(f, X, np.array([0.1, 0.1, 0.0, 0.5]))
    np.testing.assert_allclose(phi[:, 0], phi[:, 1], atol=1e-12)
    np.testing.assert_allclose(phi[:, 2], 0.0, atol=1e-12)
    np.testing.assert_allclose(phi[:, 3], X[:, 3] - 0.5, atol=1e-12)


def test_hand_computed_interaction():
    # f = x1 x2 + x3 at x = (2, 3, 1), baseline (1, 1, 0): v(0)=1, v({1})=2, v({2})=3, v({1,2})=6 for the
    # product; phi1 = ((2-1) + (6-3)) / 2 = 2, phi2 = ((3-1) + (6-2)) / 2 = 3; x3 adds 1 alone.
    phi = exact_shapley_values(lambda Z: Z[:, 0] * Z[:, 1] + Z[:, 2], [[2.0, 3.0, 1.0]], [1.0, 1.0, 0.0])
    np.testing.assert_allclose(phi, [[2.0, 3.0, 1.0]])


def test_multi_output_is_per_output():
    rng = np.random.default_rng(3)
    X, baseline = rng.normal(size=(4, 4)), np.zeros(4)
    stacked = lambda Z: np.column_stack([smooth_function(Z), Z[:, 0] * Z[:, 3]])  # noqa: E731
    phi = exact_shapley_values(stacked, X, baseline)
    assert phi.shape == (4, 4, 2)
    np.testing.assert_allclose(phi[..., 0], exact_shapley_values(smooth_function, X, baseline), atol=1e-12)
    np.testing.assert_allclose(phi[..., 1], exact_shapley_values(lambda Z: Z[:, 0] * Z[:, 3], X, baseline))


def test_calls_are_batched(monkeypatch):
    rng = np.random.default_rng(4)
    X, baseline = rng.normal(size=(3, 4)), rng.normal(size=4)
    calls = []

    def counted(Z):
        calls.append(len(Z))
        return smooth_function(Z)

    whole = exact_shapley_values(counted, X, baseline)
    assert calls == [3 * 16]
    calls.clear()
    monkeypatch.setattr(_exact, "_ROWS_PER_CALL", 15)  # 5 coalitions x 3 rows per call
    np.testing.assert_allclose(exact_shapley_values(counted, X, baseline), whole, atol=1e-12)
    assert calls == [15, 15, 15, 3]


def test_too_many_features_refused():
    with pytest.raises(ValueError, match="13 features.*refused above 12"):
        exact_shapley_values(lambda Z: Z.sum(1), np.zeros((1, 13)), np.zeros(13))


@pytest.mark.parametrize("baseline", [np.zeros(2), np.zeros((1, 3)), [0.0, np.nan, 0.0]])
def test_bad_baseline_refused(baseline):
    with pytest.raises(ValueError, match=r"baseline must be a finite vector of shape \(3,\)"):
        exact_shapley_values(lambda Z: Z.sum(1), np.zeros((2, 3)), baseline)


@pytest.mark.parametrize("f", [lambda Z: Z.sum(), lambda Z: Z[:1, 0], lambda Z: Z[:, :, None]])
def test_bad_value_function_output_refused(f):
    with pytest.raises(ValueError, match=r"value_function must map an array of shape \(m, 3\)"):
        exact_shapley_values(f, np.zeros((2, 3)), np.zeros(3))


def test_bad_inputs_refused():
    with pytest.raises(TypeError, match="value_function must be callable"):
        exact_shapley_values("f", np.zeros((2, 3)), np.zeros(3))
    with pytest.raises(ValueError, match="2D array"):
        exact_shapley_values(lambda Z: Z.sum(1), np.zeros(3), np.zeros(3))
    with pytest.raises(ValueError, match="NaN"):
        exact_shapley_values(lambda Z: Z.sum(1), [[np.nan, 0.0]], np.zeros(2))
