"""The torch core of the attacks: the soft group gap and projected gradient ascent."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

from fairkit_robust._pgd import _random_start, projected_gradient_ascent, soft_gap  # noqa: E402

NOTIONS = ["demographic_parity", "equal_opportunity", "equalized_odds"]
CONDITIONS = {"demographic_parity": [None], "equal_opportunity": [1], "equalized_odds": [0, 1]}


def groupby_gap(scores, y, groups, notion):
    """The gap by brute force: pandas group means per condition, largest minus smallest, summed."""
    frame = pd.DataFrame({"score": scores, "y": y, "group": groups})
    total = 0.0
    for label in CONDITIONS[notion]:
        cell = frame if label is None else frame[frame.y == label]
        means = cell.groupby("group").score.mean()
        total += means.max() - means.min() if len(means) >= 2 else 0.0
    return total


@settings(max_examples=60, deadline=None)
@given(n_groups=st.sampled_from([2, 3]), n_samples=st.integers(1, 12), seed=st.integers(0, 2**31),
       notion=st.sampled_from(NOTIONS))
def test_soft_gap_matches_a_groupby(n_groups, n_samples, seed, notion):
    # small samples, so that empty (group, label) cells and conditions with one group occur often
    rng = np.random.default_rng(seed)
    scores, y = rng.random(n_samples), rng.integers(0, 2, n_samples)
    groups = rng.integers(0, n_groups, n_samples)
    gap = soft_gap(torch.tensor(scores), torch.tensor(y), torch.tensor(groups), notion)
    assert np.isfinite(gap.item())
    assert gap.item() == pytest.approx(groupby_gap(scores, y, groups, notion), abs=1e-12)


def test_soft_gap_by_hand_with_three_groups():
    scores = torch.tensor([0.9, 0.1, 0.5, 0.3, 0.2, 0.8])
    y = torch.tensor([1, 0, 1, 0, 1, 0])
    groups = torch.tensor([0, 0, 1, 1, 2, 2])
    # y = 1: means 0.9, 0.5, 0.2 -> 0.7; y = 0: means 0.1, 0.3, 0.8 -> 0.7; all: 0.5, 0.4, 0.5 -> 0.1
    assert soft_gap(scores, y, groups, "equal_opportunity").item() == pytest.approx(0.7)
    assert soft_gap(scores, y, groups, "equalized_odds").item() == pytest.approx(1.4)
    assert soft_gap(scores, y, groups, "demographic_parity").item() == pytest.approx(0.1)


def test_an_empty_cell_is_skipped_not_nan():
    # group 1 has no negative: the forks' mean over the empty (1, 0) cell is 0/0
    scores = torch.tensor([0.9, 0.2, 0.6, 0.7], requires_grad=True)
    y, groups = torch.tensor([1, 0, 1, 1]), torch.tensor([0, 0, 1, 1])
    forks_term = scores[(groups == 1) & (y == 0)].sum() / ((groups == 1) & (y == 0)).sum()
    assert torch.isnan(forks_term)
    gap = soft_gap(scores, y, groups, "equalized_odds")
    assert gap.item() == pytest.approx(abs(0.9 - 0.65))  # the y = 1 term alone
    (gradient,) = torch.autograd.grad(gap, scores)
    np.testing.assert_allclose(gradient.numpy(), [1.0, 0.0, -0.5, -0.5])  # d|m0 - m1| / d score


def test_soft_gap_of_one_group_is_zero_with_zero_gradient():
    scores = torch.tensor([0.9, 0.2, 0.6], requires_grad=True)
    gap = soft_gap(scores, torch.tensor([1, 0, 1]), torch.zeros(3, dtype=torch.int64), "equalized_odds")
    (gradient,) = torch.autograd.grad(gap, scores)
    assert gap.item() == 0.0
    assert torch.equal(gradient, torch.zeros(3))


def test_soft_gap_refuses_an_unknown_notion():
    with pytest.raises(ValueError, match="notion must be one of"):
        soft_gap(torch.rand(3), torch.ones(3), torch.zeros(3, dtype=torch.int64), "parity")


def _smooth_objective(seed, n_features):
    """A smooth, non-separable objective of the whole batch (a coupled, tanh-squashed quadratic)."""
    generator = torch.Generator().manual_seed(seed)
    A = torch.randn(n_features, n_features, generator=generator, dtype=torch.float64)
    return lambda Z: torch.tanh(Z @ A).sum(dim=1).mean() ** 2 + torch.sin(Z).sum()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), norm=st.sampled_from(["linf", "l2"]), eps=st.floats(0.0, 2.0),
       random_start=st.booleans(), bounded=st.booleans())
def test_ascent_stays_in_the_ball_the_bounds_and_the_mask(seed, norm, eps, random_start, bounded):
    rng = np.random.default_rng(seed)
    X = torch.tensor(rng.normal(size=(20, 5)))
    mask = torch.tensor([True, False, True, True, False])
    lower = upper = None
    if bounded:  # bounds around X, some of them tight, one side infinite
        lower = X.min(dim=0).values - torch.tensor(rng.random(5) * 0.1)
        upper = torch.tensor([np.inf, *(X.max(dim=0).values[1:] + 0.05).tolist()], dtype=torch.float64)
    objective = _smooth_objective(seed, 5)
    X_adv = projected_gradient_ascent(objective, X, eps=eps, norm=norm, step=0.3 * eps + 1e-3, n_iter=7,
                                      mask=mask, lower=lower, upper=upper, random_start=random_start,
                                      generator=torch.Generator().manual_seed(seed))
    delta = (X_adv - X).numpy()
    if norm == "linf":
        assert np.abs(delta).max() <= eps + 1e-12
    else:
        assert np.linalg.norm(delta, axis=1).max() <= eps + 1e-12
    assert torch.equal(X_adv[:, ~mask], X[:, ~mask])  # exactly
    if bounded:
        assert (X_adv >= lower).all() and (X_adv <= upper).all()
    assert objective(X_adv).item() >= objective(X).item()  # the best point evaluated, X included
    assert not X_adv.requires_grad


def test_no_blanket_clamp_to_the_unit_interval():
    # standardised features: the forks' clamp(0, 1) moves x = -1.5 by 1.5 whatever eps; without bounds the
    # attack moves it by at most eps, below 0
    X = torch.tensor([[-1.5, 2.0]], dtype=torch.float64)
    X_adv = projected_gradient_ascent(lambda Z: Z.sum(), X, eps=0.1, norm="linf", step=0.05, n_iter=4,
                                      random_start=False)
    np.testing.assert_allclose(X_adv.numpy(), [[-1.4, 2.1]])


def test_bounds_are_per_feature():
    X = torch.tensor([[0.0, 5.0], [0.95, 9.0]], dtype=torch.float64)
    X_adv = projected_gradient_ascent(lambda Z: Z.sum(), X, eps=0.5, norm="linf", step=0.5, n_iter=2,
                                      lower=torch.tensor([0.0, 0.0]), upper=torch.tensor([1.0, 9.2]),
                                      random_start=False)
    np.testing.assert_allclose(X_adv.numpy(), [[0.5, 5.5], [1.0, 9.2]])


def test_l2_steps_are_normalised_per_sample():
    # the gradient of sum(Z @ w) is w for every row: each row moves by step along w / |w|
    w = torch.tensor([3.0, 4.0], dtype=torch.float64)
    X = torch.zeros(2, 2, dtype=torch.float64)
    X_adv = projected_gradient_ascent(lambda Z: (Z @ w).sum(), X, eps=1.0, norm="l2", step=0.25, n_iter=2,
                                      random_start=False)
    np.testing.assert_allclose(X_adv.numpy(), [[0.3, 0.4], [0.3, 0.4]])


def test_the_best_point_is_returned_not_the_last():
    # a sign step of 1 from 0 overshoots the maximum of -(z - 0.3)^2 and oscillates: the best point is 0
    X = torch.zeros(1, 1, dtype=torch.float64)
    values = []

    def objective(Z):
        value = -((Z - 0.3) ** 2).sum()
        values.append(value.item())
        return value

    X_adv = projected_gradient_ascent(objective, X, eps=1.0, norm="linf", step=1.0, n_iter=3,
                                      random_start=False)
    assert values[-1] < values[0]  # the last iterate (z = 1) is worse than the start
    assert X_adv.item() == 0.0


def test_eps_zero_returns_X():
    X = torch.rand(4, 3, dtype=torch.float64)
    assert torch.equal(projected_gradient_ascent(lambda Z: Z.sum(), X, eps=0.0, norm="l2", step=0.1,
                                                 n_iter=3), X)


@pytest.mark.parametrize("norm", ["linf", "l2"])
def test_the_random_start_is_uniform_in_the_ball(norm):
    n_samples, eps = 20000, 0.5
    movable = torch.tensor([1.0, 0.0, 1.0, 1.0], dtype=torch.float64)
    X = torch.zeros(n_samples, 4, dtype=torch.float64)
    delta = _random_start(X, eps, norm, movable, torch.Generator().manual_seed(0)).numpy()
    assert (delta[:, 1] == 0).all()
    delta = delta[:, [0, 2, 3]]
    np.testing.assert_allclose(delta.mean(axis=0), 0, atol=0.01)
    if norm == "linf":  # |delta_j| / eps uniform on [0, 1]
        assert np.abs(delta).max() <= eps
        np.testing.assert_allclose(np.abs(delta).mean(axis=0) / eps, 0.5, atol=0.01)
    else:  # uniform in the 3-d ball: (r / eps)^3 uniform on [0, 1], the direction isotropic
        radius = np.linalg.norm(delta, axis=1)
        assert radius.max() <= eps + 1e-12
        np.testing.assert_allclose(np.quantile((radius / eps) ** 3, [0.25, 0.5, 0.75]), [0.25, 0.5, 0.75],
                                   atol=0.015)
        np.testing.assert_allclose(np.mean((delta / radius[:, None]) ** 2, axis=0), 1 / 3, atol=0.01)


def test_randomness_comes_from_the_generator_only():
    X = torch.rand(30, 3, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    objective = _smooth_objective(0, 3)
    state = torch.random.get_rng_state()
    runs = [projected_gradient_ascent(objective, X, eps=0.3, norm="l2", step=0.05, n_iter=5,
                                      generator=torch.Generator().manual_seed(7)) for _ in range(2)]
    assert torch.equal(runs[0], runs[1])
    projected_gradient_ascent(objective, X, eps=0.3, norm="linf", step=0.05, n_iter=5)  # generator=None
    assert torch.equal(torch.random.get_rng_state(), state)  # torch's global generator untouched
