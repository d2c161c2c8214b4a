from math import comb

import numpy as np
import pytest

torch = pytest.importorskip("torch")
stats = pytest.importorskip("scipy.stats")

from fairkit_viashap._coalitions import sample_coalitions, shapley_size_probabilities  # noqa: E402


def draw(n_samples, n_features, n_coalitions, seed=0):
    return sample_coalitions(n_samples, n_features, n_coalitions, torch.Generator().manual_seed(seed))


def test_shape_dtype_and_pairing():
    S = draw(7, 5, 6)
    assert S.shape == (7, 6, 5) and S.dtype == torch.bool
    assert torch.equal(S[:, 1::2], ~S[:, 0::2])
    sizes = S.sum(-1)
    assert int(sizes.min()) >= 1 and int(sizes.max()) <= 4  # never empty, never full


def test_size_probabilities_are_the_shapley_kernel():
    d = 5
    k = np.arange(1, d)
    # the Shapley kernel weight of a size-k coalition, (d-1) / (C(d,k) k (d-k)), times C(d,k) subsets
    kernel = np.array([(d - 1) / (comb(d, j) * j * (d - j)) * comb(d, j) for j in k])
    np.testing.assert_allclose(shapley_size_probabilities(d).numpy(), kernel / kernel.sum())


@pytest.mark.parametrize("d", [2, 3, 6])
def test_sizes_follow_the_kernel(d):
    S = draw(2000, d, 10, seed=d)
    sizes = S[:, 0::2].sum(-1).flatten().numpy()
    observed = np.bincount(sizes, minlength=d)[1:]
    expected = shapley_size_probabilities(d).numpy() * sizes.size
    if d == 2:
        assert observed.tolist() == [sizes.size]  # the only proper size
    else:
        assert stats.chisquare(observed, expected).pvalue > 1e-3


def test_subset_is_uniform_given_its_size():
    d = 4
    S = draw(6000, d, 4, seed=3)[:, 0::2].reshape(-1, d).numpy()
    of_size_two = S[S.sum(1) == 2]
    codes = of_size_two @ (2 ** np.arange(d))
    observed = np.unique(codes, return_counts=True)[1]
    assert observed.size == comb(d, 2)
    assert stats.chisquare(observed).pvalue > 1e-3
    # every player equally often in coalitions of each size
    for k in (1, 3):
        members = S[S.sum(1) == k].sum(0)
        assert stats.chisquare(members).pvalue > 1e-3


def test_seeded_generator_is_reproducible_and_leaves_global_rng_alone():
    state = torch.random.get_rng_state()
    assert torch.equal(draw(5, 6, 8, seed=4), draw(5, 6, 8, seed=4))
    assert not torch.equal(draw(5, 6, 8, seed=4), draw(5, 6, 8, seed=5))
    assert torch.equal(torch.random.get_rng_state(), state)


def test_rows_draw_independently():
    S = draw(2, 8, 32, seed=0)
    assert not torch.equal(S[0], S[1])


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        ((4, 5, 3), ValueError, "n_coalitions must be even.*use 4"),
        ((4, 5, 0), ValueError, "n_coalitions must be an integer >= 2"),
        ((4, 1, 2), ValueError, "n_features must be an integer >= 2"),
        ((0, 5, 2), ValueError, "n_samples must be an integer >= 1"),
        ((4, 5.0, 2), ValueError, "n_features must be an integer"),
        ((4, 5, True), ValueError, "n_coalitions must be an integer"),
    ],
)
def test_bad_arguments_are_refused(args, error, match):
    with pytest.raises(error, match=match):
        sample_coalitions(*args)


def test_bad_generator_is_refused():
    with pytest.raises(TypeError, match="generator must be a torch.Generator"):
        sample_coalitions(2, 3, 2, generator=0)
