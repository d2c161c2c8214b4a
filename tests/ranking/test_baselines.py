"""Borda, Copeland and Kemeny against their definitions, and Kemeny against brute force."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from fairkit.datasets import make_preference_profiles
from fairkit.ranking import borda, copeland, kemeny
from fairkit.ranking._baselines import _kemeny_local_search
from fairkit.utils._preferences import profile_counts


def kemeny_cost(order, wins):
    """Judges' strict preferences that the total order (items best first) reverses."""
    ordered = wins[np.ix_(order, order)]  # ordered[a, b]: judges preferring the a-th to the b-th
    return int(np.tril(ordered, -1).sum())


def order_of(tier_of_item):
    assert sorted(tier_of_item) == list(range(len(tier_of_item)))  # a strict total order
    return np.argsort(tier_of_item)


def rankable(X):
    """Some judge ranks each item together with another (the ranking functions refuse X otherwise)."""
    ranked = ~np.isnan(X)
    if X.shape[1] == 1:
        return bool(ranked.any())
    return bool((ranked & (ranked.sum(axis=1, keepdims=True) > 1)).any(axis=0).all())


profiles = st.tuples(st.integers(1, 9), st.integers(1, 6)).flatmap(
    lambda shape: arrays(np.float64, shape, elements=st.sampled_from([1.0, 2.0, 3.0, 4.0, np.nan]))
).filter(rankable)


@settings(max_examples=60, deadline=None)
@given(X=profiles)
def test_kemeny_is_optimal(X):
    wins = profile_counts(X).wins
    best = min(kemeny_cost(order, wins) for order in itertools.permutations(range(X.shape[1])))
    assert kemeny_cost(order_of(kemeny(X)), wins) == best


def test_kemeny_local_search_ends_in_a_local_optimum_no_worse_than_borda():
    X, _ = make_preference_profiles(300, 40, dispersion=0.95, missing_rate=0.1, random_state=0)
    wins = profile_counts(X).wins
    order = order_of(kemeny(X))
    cost = kemeny_cost(order, wins)
    assert cost <= kemeny_cost(np.argsort(borda(X), kind="stable"), wins)
    for position in range(len(order)):  # no single move helps
        rest = np.delete(order, position)
        for target in range(len(order)):
            assert kemeny_cost(np.insert(rest, target, order[position]), wins) >= cost


def test_kemeny_local_search_finds_the_optimum_of_a_clear_profile():
    X, _ = make_preference_profiles(200, 14, dispersion=0.7, random_state=1)
    wins = profile_counts(X).wins
    exact = order_of(kemeny(X, max_exact_items=14))
    searched = _kemeny_local_search(wins, np.arange(14))
    assert kemeny_cost(searched, wins) == kemeny_cost(exact, wins)


def test_borda_is_the_classic_count_on_complete_rankings():
    X, _ = make_preference_profiles(50, 8, dispersion=0.8, random_state=2)
    points = (X.shape[1] - X).sum(axis=0)  # items ranked below, summed over judges
    np.testing.assert_array_equal(borda(X), np.unique(-points, return_inverse=True)[1])


def test_copeland_counts_majority_wins_and_half_draws():
    X = np.array([[1, 2, 3, 4], [2, 3, 1, 4], [3, 1, 2, 4], [1, 2, 3, 4]])
    # Majorities: 0 > 1 (3-1), 1 > 2 (3-1), 0 vs 2 a draw (2-2), all beat item 3.
    # Scores: 0: 1 + 0.5 + 1 = 2.5, 1: 1 + 1 = 2, 2: 0.5 + 1 = 1.5, 3: 0; without the
    # half draws items 0 and 1 would tie.
    assert copeland(X).tolist() == [0, 1, 2, 3]
    assert copeland([[1, 2, 3], [2, 3, 1], [3, 1, 2]]).tolist() == [0, 0, 0]


def test_baselines_take_ratings():
    X = np.array([[5.0, 3.0, 1.0], [4.0, 4.0, 2.0]])
    for rule in (borda, copeland, kemeny):
        np.testing.assert_array_equal(rule(X, input_type="ratings"), rule(-X))


def test_kemeny_rejects_a_huge_exact_size():
    with pytest.raises(ValueError, match="max_exact_items"):
        kemeny([[1, 2]], max_exact_items=30)
