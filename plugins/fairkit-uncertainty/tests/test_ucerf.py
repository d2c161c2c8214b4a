"""UCerF and desirability: known answers, a direct oracle, and the errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import entropy

from fairkit_uncertainty import desirability, ucerf_score


@st.composite
def predictions(draw, n_classes=None):
    """Random labels, probabilities (some one-hot, some uniform) and three groups."""
    n = 2 * draw(st.integers(2, 30))
    k = n_classes or draw(st.integers(2, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    proba = rng.dirichlet(np.full(k, draw(st.sampled_from([0.2, 1.0, 5.0]))), size=n)
    proba[: n // 4] = np.eye(k)[rng.integers(0, k, n // 4)]
    proba[n // 4: n // 3] = 1.0 / k
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)  # every class appears
    groups = rng.integers(0, 3, n)
    groups[:3] = [0, 1, 2]
    return y, proba, groups


def certainty_oracle(p):
    k = len(p)
    return (k - np.exp(entropy(p))) / (k - 1)


@settings(max_examples=100, deadline=None)
@given(predictions())
def test_desirability_is_signed_normalised_certainty(prediction):
    y, proba, _ = prediction
    expected = [certainty_oracle(p) * (1 if p.argmax() == t else -1) for t, p in zip(y, proba, strict=True)]
    np.testing.assert_allclose(desirability(y, proba), expected, atol=1e-12)


def test_desirability_known_answers():
    # certain and right, certain and wrong, uniform, and (0.5, 0.25, 0.25): PPL = 2 * sqrt(2)
    proba = [[1, 0, 0], [0, 1, 0], [1 / 3, 1 / 3, 1 / 3], [0.5, 0.25, 0.25]]
    np.testing.assert_allclose(desirability([0, 0, 2, 0], proba, labels=[0, 1, 2]),
                               [1, -1, 0, (3 - 2 * np.sqrt(2)) / 2], atol=1e-12)


def test_pairwise_known_answers():
    sf = ["a", "b"]
    assert ucerf_score([1, 1], [[0, 1], [0, 1]], sensitive_features=sf, pair_ids=[7, 7]) == 1.0
    assert ucerf_score([1, 1], [[0, 1], [1, 0]], sensitive_features=sf, pair_ids=[7, 7]) == 0.0
    assert ucerf_score([1, 0], [[0.5, 0.5]] * 2, sensitive_features=sf, pair_ids=[7, 7]) == 1.0
    # certain and right against uniform: U = 1 - 1/2
    assert ucerf_score([1, 1], [[0, 1], [0.5, 0.5]], sensitive_features=sf, pair_ids=[7, 7]) == 0.5


@settings(max_examples=100, deadline=None)
@given(predictions(), st.integers(0, 2**32 - 1))
def test_pairwise_form_matches_a_loop_over_pairs(prediction, seed):
    y, proba, _ = prediction
    n = len(y)
    rng = np.random.default_rng(seed)
    pair_ids = rng.permutation(np.repeat(rng.choice(10 * n, n // 2, replace=False), 2))
    groups = np.zeros(n, dtype=int)
    for pair in np.unique(pair_ids):
        groups[np.flatnonzero(pair_ids == pair)[1]] = 1
    labels = np.arange(proba.shape[1])
    d = desirability(y, proba, labels=labels)
    expected = np.mean([1 - abs(np.subtract(*d[pair_ids == pair])) / 2 for pair in np.unique(pair_ids)])
    score = ucerf_score(y, proba, sensitive_features=groups, pair_ids=pair_ids, labels=labels)
    assert score == pytest.approx(expected, abs=1e-12)
    order = rng.permutation(n)
    assert ucerf_score(y[order], proba[order], sensitive_features=groups[order], pair_ids=pair_ids[order],
                       labels=labels) == pytest.approx(score, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(predictions())
def test_group_form_is_the_worst_pair_of_groups(prediction):
    y, proba, groups = prediction
    d = desirability(y, proba)
    means = [d[groups == g].mean() for g in range(3)]
    expected = min(1 - abs(a - b) / 2 for a in means for b in means)
    assert ucerf_score(y, proba, sensitive_features=groups) == pytest.approx(expected, abs=1e-12)
    assert 0 <= expected <= 1


def test_binary_probabilities_as_one_column_and_string_labels():
    y = np.array(["no", "yes", "yes", "no"])
    p_yes = np.array([0.2, 0.9, 0.4, 0.5])
    two_columns = np.column_stack([1 - p_yes, p_yes])
    sf = [0, 0, 1, 1]
    assert ucerf_score(y, p_yes, sensitive_features=sf) == ucerf_score(y, two_columns, sensitive_features=sf)
    # the columns in the other order, declared so by labels=, mean the same predictions
    flipped = ucerf_score(y, two_columns[:, ::-1], sensitive_features=sf, labels=["yes", "no"])
    assert flipped == ucerf_score(y, two_columns, sensitive_features=sf)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"pair_ids": [0, 0, 0, 1]}, "exactly two samples"),
        ({"pair_ids": [0, 0, 1]}, "pair_ids has 3 entries"),
        ({"pair_ids": [0, 0, 1, 1], "sensitive_features": ["a", "a", "b", "b"]}, "same sensitive group"),
        ({"sensitive_features": ["a", "b"]}, "sensitive_features has 2 rows"),
        ({"y_proba": [[0.5, 0.6]] * 4}, "rows sum to 1"),
        ({"y_true": ["x", "y"] * 2, "y_proba": [[0.5, 0.5, 0.0]] * 4}, "3 columns but there are 2 distinct"),
        ({"labels": [0, 2]}, "labels not in labels="),
    ],
)
def test_bad_input_raises_a_clear_error(kwargs, message):
    arguments = {"y_true": [0, 1, 0, 1], "y_proba": [[0.5, 0.5]] * 4, "sensitive_features": ["a", "b"] * 2}
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=message):
        ucerf_score(arguments.pop("y_true"), arguments.pop("y_proba"), **arguments)
