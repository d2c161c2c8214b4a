"""make_digits_artefact: the paper's MNIST construction (Alloula et al., ICML 2025) on sklearn's digits."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression

from fairkit_subgroups._datasets import _shuffled_rank, make_digits_artefact, stack_draws

ARTEFACT_PIXELS = [48, 49, 56, 57]  # bottom-left 2×2 of the 8×8 image
S_PIXELS = [0, 1, 8, 9]  # top-left 2×2


@pytest.mark.parametrize("correlation", [(0.95, 0.8), (0.3, 0.6)])
def test_train_correlation_within_binomial_tolerance(correlation):
    # pooled over 20 seeds, so 4 standard errors are about 0.01: a wrong probability shows
    frames = pd.concat([make_digits_artefact(correlation=correlation, random_state=seed).attributes_train
                        for seed in range(20)])
    aligned = (frames.A == frames.Y).groupby([frames.S, frames.Y]).agg(["mean", "size"])
    assert len(aligned) == 4
    for (s, _), (rate, n) in aligned.iterrows():
        p = correlation[s]
        assert abs(rate - p) <= 4 * np.sqrt(p * (1 - p) / n), (s, rate, p)
    assert abs(frames.S.mean() - 0.5) <= 4 * np.sqrt(0.25 / len(frames))


def test_extreme_correlations_hold_exactly():
    train = make_digits_artefact(correlation=(1.0, 0.0), random_state=0).attributes_train
    assert (train.A[train.S == 0] == train.Y[train.S == 0]).all()
    assert (train.A[train.S == 1] != train.Y[train.S == 1]).all()


def _stratum_size(test_size):
    """Test images per (Y, S) stratum, by hand: round(test_size * n) per digit, the smaller label, halved."""
    test_per_digit = [round(test_size * n) for n in np.bincount(load_digits().target)]
    return min(sum(test_per_digit[:5]), sum(test_per_digit[5:])) // 2


def test_test_cells_balanced_and_artefact_independent_of_label():
    data = make_digits_artefact(test_size=0.3, random_state=1)
    cells = data.attributes_test.value_counts(["Y", "A", "S"])
    assert len(cells) == 8
    assert (cells == _stratum_size(0.3) // 2).all()
    test = data.attributes_test
    assert test.groupby("Y").A.mean().tolist() == [0.5, 0.5]
    assert test.groupby("S").A.mean().tolist() == [0.5, 0.5]
    assert test.Y.tolist() == data.y_test.tolist()


@pytest.mark.parametrize("test_size, test_correlation", [(0.3, 0.75), (0.5, 0.1)])
def test_test_correlation_sets_exact_counts_per_stratum(test_size, test_correlation):
    test = make_digits_artefact(test_size=test_size, test_correlation=test_correlation,
                                random_state=2).attributes_test
    aligned = (test.A == test.Y).groupby([test.Y, test.S]).agg(["sum", "size"])
    h = _stratum_size(test_size)
    assert len(aligned) == 4
    assert (aligned["sum"] == int(test_correlation * h)).all()
    assert (aligned["size"] - aligned["sum"] == int((1 - test_correlation) * h)).all()


def test_markers_drawn_and_every_other_pixel_is_the_original_digit():
    digits = load_digits()
    marker = np.zeros(64, dtype=bool)
    marker[ARTEFACT_PIXELS + S_PIXELS] = True
    originals = digits.data[:, ~marker]
    assert len(np.unique(originals, axis=0)) == len(originals)  # so each image maps to one original

    data = make_digits_artefact(patch_value=7.5, random_state=3)
    X = np.vstack([data.X_train, data.X_test])
    attributes = pd.concat([data.attributes_train, data.attributes_test])
    keys, inverse = np.unique(np.vstack([originals, X[:, ~marker]]), axis=0, return_inverse=True)
    assert len(keys) == len(originals)  # every image's unmarked pixels are an original digit's
    source = np.argsort(inverse[:len(originals)])[inverse[len(originals):]]
    assert len(np.unique(source)) == len(X)  # no digit used twice: train and test are disjoint

    expected = digits.data[source].copy()
    expected[np.ix_(attributes.A.to_numpy() == 1, ARTEFACT_PIXELS)] = 7.5
    expected[np.ix_(attributes.S.to_numpy() == 1, S_PIXELS)] = 7.5
    np.testing.assert_array_equal(X, expected)
    np.testing.assert_array_equal(attributes.Y, digits.target[source] < 5)
    np.testing.assert_array_equal(np.concatenate([data.y_train, data.y_test]), attributes.Y)

    train_digits = np.bincount(digits.target[source[:len(data.X_train)]], minlength=10)
    per_digit = np.bincount(digits.target)
    np.testing.assert_array_equal(train_digits, per_digit - np.rint(0.3 * per_digit))  # stratified by digit


def test_types_and_shapes():
    data = make_digits_artefact(random_state=4)
    for X, y, attributes in [(data.X_train, data.y_train, data.attributes_train),
                             (data.X_test, data.y_test, data.attributes_test)]:
        assert X.dtype == np.float64 and X.shape == (len(y), 64)
        assert y.dtype == np.int64
        assert list(attributes.columns) == ["Y", "A", "S"]
        assert (attributes.dtypes == np.int64).all() and len(attributes) == len(y)
    assert "arXiv:2505.21363" in data.DESCR


def test_same_seed_same_data_and_different_seeds_differ():
    def flat(data):
        return [data.X_train, data.y_train, data.X_test, data.y_test,
                data.attributes_train.to_numpy(), data.attributes_test.to_numpy()]

    first, again, other = (flat(make_digits_artefact(random_state=seed)) for seed in (5, 5, 6))
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not np.array_equal(first[4], other[4])
    assert not np.array_equal(first[5], other[5])
    from_instance = [flat(make_digits_artefact(random_state=np.random.RandomState(7))) for _ in range(2)]
    assert all(np.array_equal(a, b) for a, b in zip(*from_instance, strict=True))


def test_global_numpy_state_untouched():
    state = np.random.get_state()[1].copy()  # noqa: NPY002
    make_digits_artefact()
    assert np.array_equal(np.random.get_state()[1], state)  # noqa: NPY002


def test_artefact_is_learnable_and_spurious():
    # A linear model leans on the artefact when it predicts the label in training (gap >= 0.28
    # over 100 seeds), and not when it does not (|gap| <= 0.08).
    def gap(correlation, seed):
        data = make_digits_artefact(correlation=correlation, random_state=seed)
        model = LogisticRegression(max_iter=1000).fit(data.X_train / 16, data.y_train)
        correct = model.predict(data.X_test / 16) == data.y_test
        aligned = (data.attributes_test.A == data.attributes_test.Y).to_numpy()
        return correct[aligned].mean() - correct[~aligned].mean()

    for seed in range(3):
        assert gap((0.95, 0.8), seed) > 0.2
        assert abs(gap((0.5, 0.5), seed)) < 0.15


@pytest.mark.parametrize("kwargs, name", [
    ({"correlation": 0.9}, "correlation"),
    ({"correlation": (0.9, 0.8, 0.7)}, "correlation"),
    ({"correlation": (0.9, 1.2)}, "correlation"),
    ({"correlation": (0.9, "a")}, "correlation"),
    ({"test_correlation": -0.1}, "test_correlation"),
    ({"test_correlation": True}, "test_correlation"),
    ({"test_size": 0.0}, "test_size"),
    ({"test_size": 1.0}, "test_size"),
    ({"test_size": "0.3"}, "test_size"),
    ({"test_size": 0.001}, "test_size"),  # no test image of some digit
    ({"test_size": 0.999}, "test_size"),  # no training image of some digit
    ({"test_size": 0.02, "test_correlation": 0.9}, "test_size"),  # a test cell would be empty
    ({"patch_value": float("nan")}, "patch_value"),
    ({"patch_value": None}, "patch_value"),
    ({"random_state": -1}, "random_state"),
])
def test_bad_parameters_raise_and_draw_nothing(kwargs, name):
    rng = np.random.RandomState(0)
    state = rng.get_state()[1].copy()
    kwargs.setdefault("random_state", rng)
    with pytest.raises(ValueError, match=name):
        make_digits_artefact(**kwargs)
    assert np.array_equal(rng.get_state()[1], state)


def test_shuffled_rank_is_a_random_order_within_each_label():
    labels = np.array([2, 0, 2, 2, 0, 1, 2])
    ranks = np.array([_shuffled_rank(labels, np.random.default_rng(seed)) for seed in range(400)])
    for label in range(3):
        members = ranks[:, labels == label]
        assert (np.sort(members, axis=1) == np.arange(members.shape[1])).all()
    # each member of label 2 takes each of its 4 positions about 100 times in 400 draws
    counts = np.array([np.bincount(ranks[:, j], minlength=4) for j in np.flatnonzero(labels == 2)])
    assert counts.min() > 60 and counts.max() < 140


def test_stack_draws_puts_each_draw_back_together_through_its_index_pairs():
    draws = [make_digits_artefact(random_state=seed, test_size=0.4) for seed in (3, 4)]
    stacked = stack_draws(iter(draws))
    assert len(stacked.cv) == 2 and stacked.attributes.index.equals(pd.RangeIndex(len(stacked.y)))
    for draw, (train, test) in zip(draws, stacked.cv, strict=True):
        np.testing.assert_array_equal(stacked.X[train], draw.X_train)
        np.testing.assert_array_equal(stacked.y[test], draw.y_test)
        pd.testing.assert_frame_equal(stacked.attributes.iloc[test].reset_index(drop=True),
                                      draw.attributes_test)
    with pytest.raises(ValueError, match="draws is empty"):
        stack_draws([])
