"""The ICP sampler: its law against exact enumeration, its memory, its log-likelihood objects."""

import itertools
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from fairkit.utils import _icp
from fairkit.utils._icp import ClassLogLikelihood, GaussianLogLikelihood, ICPSampler


class MatrixLogLikelihood:
    """An explicit n×n matrix L[i, j] = log q(yᵢ | aⱼ): the oracle for small n."""

    def __init__(self, matrix):
        self.matrix = matrix
        self.n_samples = len(matrix)

    def __call__(self, i, j):
        return self.matrix[i, j]

    def swap_gain(self, yi, yj, i, j):
        return self(yi, j) + self(yj, i) - self(yi, i) - self(yj, j)


def exact_law(log_lik, n):
    """P(order = σ) ∝ ∏ₖ q(Yₖ | A_σ(k)) over all n! permutations, by enumeration."""
    perms = np.array(list(itertools.permutations(range(n))))
    rows = np.broadcast_to(np.arange(n), perms.shape)
    log_weight = log_lik(rows, perms).sum(axis=1)
    weight = np.exp(log_weight - log_weight.max())
    return perms, weight / weight.sum()


def total_variation(orders, perms, law):
    n = perms.shape[1]
    base = n ** np.arange(n)[::-1]
    index = {code: k for k, code in enumerate(perms @ base)}
    counts = np.bincount([index[code] for code in orders @ base], minlength=len(perms))
    return 0.5 * np.abs(counts / len(orders) - law).sum()


def law_of_sampler(log_lik, n_draws, seed):
    return ICPSampler(log_lik, random_state=seed).sample(n_draws)


def test_law_matches_exact_enumeration_for_any_likelihood():
    seed = 0
    rng = np.random.default_rng(seed)
    log_lik = MatrixLogLikelihood(1.5 * rng.normal(size=(5, 5)))
    perms, law = exact_law(log_lik, 5)
    # the target is far from uniform, so matching it is not an accident
    assert 0.5 * np.abs(law - 1 / len(law)).sum() > 0.3
    assert total_variation(law_of_sampler(log_lik, 100_000, seed), perms, law) <= 0.02


def test_law_matches_exact_enumeration_for_a_classifier_density():
    rng = np.random.default_rng(3)
    proba = rng.dirichlet([0.5, 0.5, 0.5], size=5)
    log_lik = ClassLogLikelihood(np.log(proba), np.array([0, 1, 2, 2, 0]))
    perms, law = exact_law(log_lik, 5)
    assert total_variation(law_of_sampler(log_lik, 100_000, 3), perms, law) <= 0.02


def test_law_matches_exact_enumeration_for_a_gaussian_density():
    rng = np.random.default_rng(4)
    log_lik = GaussianLogLikelihood(rng.normal(size=5), rng.normal(size=5), rng.uniform(0.5, 2, 5))
    perms, law = exact_law(log_lik, 5)
    assert total_variation(law_of_sampler(log_lik, 100_000, 4), perms, law) <= 0.02


def test_a_wrong_acceptance_rule_is_detected():
    """Negative control: the same chain with the gain's sign flipped misses the law by far."""
    rng = np.random.default_rng(0)
    log_lik = MatrixLogLikelihood(1.5 * rng.normal(size=(5, 5)))
    perms, law = exact_law(log_lik, 5)
    flipped = MatrixLogLikelihood(-log_lik.matrix)
    assert total_variation(law_of_sampler(flipped, 20_000, 0), perms, law) > 0.2


def test_classification_memory_is_linear_in_n():
    """n = 200,000: the n×n matrix would take 320 GB; the sampler stays within a few n-vectors."""
    n, n_classes = 200_000, 3
    rng = np.random.default_rng(0)
    log_lik = ClassLogLikelihood(np.log(rng.dirichlet(np.ones(n_classes), size=n)),
                                 rng.integers(0, n_classes, n))
    sampler = ICPSampler(log_lik, n_sweeps=3, random_state=0)
    tracemalloc.start()
    try:
        order = sampler.sample(2)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert order.shape == (2, n)
    assert peak < 100 * 2**20, f"peak {peak / 2**20:.0f} MiB"


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 40), n_copies=st.integers(0, 4), seed=st.integers(0, 2**16))
def test_every_copy_is_a_permutation(n, n_copies, seed):
    rng = np.random.default_rng(seed)
    log_lik = ClassLogLikelihood(np.log(rng.dirichlet([1, 1], size=n)), rng.integers(0, 2, n))
    order = ICPSampler(log_lik, n_sweeps=3, random_state=seed).sample(n_copies)
    assert order.shape == (n_copies, n)
    assert (np.sort(order, axis=1) == np.arange(n)).all()


@settings(max_examples=25, deadline=None)
@given(y=arrays(np.float64, 6, elements=st.floats(-5, 5)),
       mean=arrays(np.float64, 6, elements=st.floats(-5, 5)),
       std=arrays(np.float64, 6, elements=st.floats(0.1, 5)),
       seed=st.integers(0, 2**16))
def test_swap_gain_is_the_four_term_difference(y, mean, std, seed):
    rng = np.random.default_rng(seed)
    yi, yj, i, j = rng.integers(0, 6, size=(4, 10))
    for log_lik in (GaussianLogLikelihood(y, mean, std),
                    ClassLogLikelihood(np.log(rng.dirichlet([1, 1, 1], size=6)), rng.integers(0, 3, 6))):
        expected = log_lik(yi, j) + log_lik(yj, i) - log_lik(yi, i) - log_lik(yj, j)
        np.testing.assert_allclose(log_lik.swap_gain(yi, yj, i, j), expected, atol=1e-9)


def test_gaussian_log_likelihood_is_the_normal_log_density():
    from scipy.stats import norm

    y, mean, std = np.array([0.3, -1.0]), np.array([1.0, 2.0]), np.array([0.5, 2.0])
    log_lik = GaussianLogLikelihood(y, mean, std)
    i, j = np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1])
    expected = norm.logpdf(y[i], mean[j], std[j]) + 0.5 * np.log(2 * np.pi)
    np.testing.assert_allclose(log_lik(i, j), expected)


def test_same_seed_same_copies_and_copies_differ():
    rng = np.random.default_rng(0)
    log_lik = ClassLogLikelihood(np.log(rng.dirichlet([1, 1], size=50)), rng.integers(0, 2, 50))
    first = ICPSampler(log_lik, random_state=7).sample(3)
    np.testing.assert_array_equal(first, ICPSampler(log_lik, random_state=7).sample(3))
    assert len({tuple(row) for row in first}) == 3


def test_independent_labels_give_uniform_attribute_assignment():
    """When q(y | a) does not depend on a, every permutation is equally likely."""
    log_lik = ClassLogLikelihood(np.log(np.full((4, 2), 0.5)), np.array([0, 1, 0, 1]))
    perms = np.array(list(itertools.permutations(range(4))))
    uniform = np.full(len(perms), 1 / len(perms))
    assert total_variation(law_of_sampler(log_lik, 50_000, 0), perms, uniform) <= 0.02


def reference_orders(matrix, n_sweeps, seed, n_copies, block):
    """The chain written out pair by pair, with the sampler's draws, on an explicit matrix.

    Burn-in from the identity; then the copies, ``block`` chains at a time, each from the
    burnt-in state. A sweep permutes each chain's positions (``permuted`` on the block),
    then draws one uniform per pair of every chain, and swaps the pair's Y-assignments
    when the uniform is below ``expit`` of the four-term gain.
    """
    from scipy.special import expit

    rng, n = np.random.default_rng(seed), len(matrix)
    half = n // 2

    def run(states):
        for _ in range(n_sweeps):
            pairs = rng.permuted(np.tile(np.arange(n), (len(states), 1)), axis=1)
            uniform = rng.random(len(states) * half).reshape(len(states), half)
            for state, chain_pairs, chain_uniform in zip(states, pairs, uniform, strict=True):
                first, second = chain_pairs[:half], chain_pairs[half:2 * half]
                for i, j, u in zip(first, second, chain_uniform, strict=True):
                    yi, yj = state[i], state[j]
                    gain = matrix[yi, j] + matrix[yj, i] - matrix[yi, i] - matrix[yj, j]
                    if u < expit(gain):
                        state[i], state[j] = yj, yi
        return states

    center = run(np.arange(n)[None, :])[0]
    states = [run(np.tile(center, (min(block, n_copies - start), 1))) for start in range(0, n_copies, block)]
    return np.argsort(np.concatenate(states), axis=1)


def _full_matrix(log_lik):
    n = log_lik.n_samples
    rows, columns = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    return log_lik(rows.ravel(), columns.ravel()).reshape(n, n)


@pytest.mark.parametrize("kind", ["two classes", "three classes", "gaussian"])
@pytest.mark.parametrize("n", [1, 2, 7, 40])
def test_sampler_draws_exactly_the_reference_chain(kind, n, monkeypatch):
    """For a fixed seed the vectorized sweeps give the copies of the chain written pair by pair.

    Several copies advance together in blocks (here 2 copies per block, so 5 copies take
    3 blocks), each from the same burnt-in state.
    """
    monkeypatch.setattr(_icp, "_BLOCK_ENTRIES", 2 * n)
    rng = np.random.default_rng(n)
    if kind == "gaussian":
        log_lik = GaussianLogLikelihood(rng.normal(size=n), rng.normal(size=n), rng.uniform(0.5, 2, n))
    else:
        k = 2 if kind == "two classes" else 3
        log_lik = ClassLogLikelihood(np.log(rng.dirichlet(np.ones(k), size=n)), rng.integers(0, k, n))
    orders = ICPSampler(log_lik, n_sweeps=6, random_state=11).sample(5)
    np.testing.assert_array_equal(orders, reference_orders(_full_matrix(log_lik), 6, 11, 5, block=2))


def test_two_class_swap_gain_equals_the_four_lookups_exactly():
    """The two-class shortcut (one log-odds per sample) gives the general formula's gains bit for bit."""
    rng = np.random.default_rng(0)
    n = 1000
    log_proba = np.log(rng.dirichlet([0.3, 0.3], size=n))
    y_codes = rng.integers(0, 2, n)
    log_lik = ClassLogLikelihood(log_proba, y_codes)
    yi, yj, i, j = rng.integers(0, n, size=(4, 5000))
    flat, ci, cj = log_proba.reshape(-1), y_codes[yi], y_codes[yj]
    four_lookups = (flat[2 * j + ci] - flat[2 * j + cj]) - (flat[2 * i + ci] - flat[2 * i + cj])
    np.testing.assert_array_equal(log_lik.swap_gain(yi, yj, i, j), four_lookups)


def test_class_codes_outside_the_columns_are_refused():
    """A code past the last column would read the next sample's probabilities: refused, naming y_codes."""
    log_proba = np.log(np.full((3, 2), 0.5))
    for codes in ([0, 1, 2], [0, -1, 1]):
        with pytest.raises(ValueError, match=r"y_codes must be class codes in 0\.\.1"):
            ClassLogLikelihood(log_proba, np.array(codes))
