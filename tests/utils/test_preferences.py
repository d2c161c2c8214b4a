"""Pairwise preference counts: against brute force, between input forms, and the record sampler."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from fairkit.utils._preferences import PairwiseCounts, pairwise_counts, profile_counts


def brute_force_counts(X, input_type):
    """Count judge by judge, pair by pair."""
    X = np.asarray(X, dtype=float)
    n_judges, n_items = X.shape
    wins = np.zeros((n_items, n_items), dtype=int)
    ties = np.zeros((n_items, n_items), dtype=int)
    for row in X:
        for i in range(n_items):
            for j in range(n_items):
                if i == j or np.isnan(row[i]) or np.isnan(row[j]):
                    continue
                if row[i] == row[j]:
                    ties[i, j] += 1
                elif (row[i] < row[j]) == (input_type == "ranks"):
                    wins[i, j] += 1
    return wins, ties


def profiles(max_judges=8, max_items=6):
    """Small profiles with ties (few distinct values) and missing entries, not all missing."""
    shape = st.tuples(st.integers(1, max_judges), st.integers(1, max_items))
    values = st.one_of(st.sampled_from([1.0, 2.0, 3.0, -0.5, np.nan]), st.floats(-5, 5))
    return shape.flatmap(lambda s: arrays(np.float64, s, elements=values)).filter(
        lambda X: not np.isnan(X).all())


@settings(max_examples=60, deadline=None)
@given(X=profiles(), input_type=st.sampled_from(["ranks", "ratings"]))
def test_profile_counts_match_brute_force(X, input_type):
    counts = profile_counts(X, input_type)
    wins, ties = brute_force_counts(X, input_type)
    np.testing.assert_array_equal(counts.wins, wins)
    np.testing.assert_array_equal(counts.ties, ties)
    observed = ~np.isnan(X)
    missing = X.shape[0] - observed.T.astype(int) @ observed.astype(int)
    np.fill_diagonal(missing, 0)
    np.testing.assert_array_equal(counts.missing, missing)


def test_profile_counts_across_judge_blocks():
    # 600 items: blocks of 46 judges, so 100 judges span three blocks.
    rng = np.random.default_rng(0)
    X = rng.integers(0, 40, size=(100, 600)).astype(float)
    X[rng.random(X.shape) < 0.05] = np.nan
    counts = profile_counts(X)
    sample = rng.choice(600, size=12, replace=False)
    wins, ties = brute_force_counts(X[:, sample], "ranks")
    np.testing.assert_array_equal(counts.wins[np.ix_(sample, sample)], wins)
    np.testing.assert_array_equal(counts.ties[np.ix_(sample, sample)], ties)


def test_profile_counts_ratings_are_negated_ranks():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 7))
    ratings, ranks = profile_counts(X, "ratings"), profile_counts(-X, "ranks")
    np.testing.assert_array_equal(ratings.wins, ranks.wins)


def test_profile_counts_keeps_item_names():
    pd = pytest.importorskip("pandas")
    counts = profile_counts(pd.DataFrame([[1, 2], [2, 1]], columns=["a", "b"]))
    assert counts.item_names.tolist() == ["a", "b"]


def profile_records(X):
    """The profile as (judge, i, j, preference) records, the pair order shuffled."""
    rng = np.random.default_rng(2)
    records = []
    for judge, row in enumerate(X):
        for i in range(len(row)):
            for j in range(i + 1, len(row)):
                a, b = (i, j) if rng.random() < 0.5 else (j, i)
                pref = np.nan if np.isnan(row[a] - row[b]) else np.sign(row[b] - row[a])
                records.append((f"judge{judge}", a, b, pref))
    return records


@settings(max_examples=40, deadline=None)
@given(X=profiles(max_items=5).filter(lambda X: ((~np.isnan(X)).sum(axis=1) > 1).any()))
def test_pairwise_counts_match_profile_counts(X):  # some judge answers some pair
    counts = pairwise_counts(profile_records(X), X.shape[1], n_judges=X.shape[0])
    expected = profile_counts(X)
    np.testing.assert_array_equal(counts.wins, expected.wins)
    np.testing.assert_array_equal(counts.ties, expected.ties)
    assert counts.n_judges == expected.n_judges


@pytest.mark.parametrize(("records", "message"), [
    ([[0, 0, 3, 1]], r"integers in \[0, 3\)"),
    ([[0, 1, 1, 1]], "with itself"),
    ([[0, 0, 1, 2]], "preferences must be"),
    ([[0, 0, 1, 1], [0, 1, 0, -1]], "twice"),
    ([[0, 0, 1]], "4 columns"),
    ([[0, 0.5, 1, 1]], "integers"),
])
def test_pairwise_counts_rejects_bad_records(records, message):
    with pytest.raises(ValueError, match=message):
        pairwise_counts(records, 3)


def test_pairwise_counts_counts_silent_judges_as_missing():
    counts = pairwise_counts([["a", 0, 1, 1]], 2, n_judges=3)
    assert counts.missing[0, 1] == 2
    with pytest.raises(ValueError, match="fewer than"):
        pairwise_counts([["a", 0, 1, 1], ["b", 0, 1, 1]], 2, n_judges=1)


@pytest.mark.parametrize(("wins", "ties", "n_judges", "message"), [
    ([[0, 1], [0, 0]], [[0, 0], [1, 0]], 2, "symmetric"),
    ([[0, 2], [1, 0]], [[0, 0], [0, 0]], 2, "more answers"),
    ([[1, 0], [0, 0]], [[0, 0], [0, 0]], 2, "diagonal"),
    ([[0, -1], [0, 0]], [[0, 0], [0, 0]], 2, "non-negative"),
    ([[0, 1], [0, 0]], [[0, 0], [0, 0]], 0, "positive"),
])
def test_counts_validation(wins, ties, n_judges, message):
    with pytest.raises(ValueError, match=message):
        PairwiseCounts(np.array(wins), np.array(ties), n_judges)


def test_support_adds_missing_only_when_it_counts_as_dissent():
    counts = PairwiseCounts(np.array([[0, 3], [1, 0]]), np.array([[0, 2], [2, 0]]), 10)
    np.testing.assert_array_equal(counts.support("ignore"), [[0, 5], [3, 0]])
    np.testing.assert_array_equal(counts.support("dissent"), [[0, 9], [7, 0]])
    with pytest.raises(ValueError, match="missing"):
        counts.support("drop")


def test_subsample_keeps_a_fraction_of_records_without_replacement():
    rng = np.random.default_rng(3)
    counts = profile_counts(rng.integers(0, 3, size=(50, 6)).astype(float))
    records = counts.wins.sum() + counts.ties.sum() // 2
    draws = [counts.subsample(0.9, random_state=seed) for seed in range(300)]
    for draw in draws[:20]:
        assert draw.wins.sum() + draw.ties.sum() // 2 == int(0.9 * records)
        assert (draw.wins <= counts.wins).all() and (draw.ties <= counts.ties).all()
        np.testing.assert_array_equal(draw.ties, draw.ties.T)
        assert draw.n_judges == counts.n_judges
    # Each record is kept with probability n_keep / n_records.
    kept = int(0.9 * records) / records
    mean_wins = np.mean([draw.wins for draw in draws], axis=0)
    np.testing.assert_allclose(mean_wins, kept * counts.wins, atol=0.25)
    np.testing.assert_array_equal(counts.subsample(0.9, random_state=7).wins,
                                  counts.subsample(0.9, random_state=7).wins)
    np.testing.assert_array_equal(counts.subsample(1.0).wins, counts.wins)
    with pytest.raises(ValueError, match="fraction"):
        counts.subsample(0.0)
