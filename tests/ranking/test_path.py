"""The O(n²) solution path against the paper's algorithm: drop edges value by value, recompute."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from fairkit.datasets import make_preference_profiles
from fairkit.ranking import SelectiveRanker
from fairkit.ranking._path import selective_path, selective_tiers
from fairkit.utils._preferences import profile_counts


def naive_path(support, n_judges):
    """Algorithm 2 of the paper, step by step: thresholds, tier arrays, and where it stops."""
    off_diagonal = ~np.eye(len(support), dtype=bool)
    candidates = np.unique(support[off_diagonal])
    candidates = candidates[(2 * candidates < n_judges) & (candidates > 0)]
    thresholds, rankings = [0], [selective_tiers(support, 0)[0]]
    for value in [0, *candidates]:
        if ((support <= value) & (support <= value).T & off_diagonal).any():
            return thresholds, rankings, value  # a pair lost both edges: the path stops
        tiers = selective_tiers(support, value)[0]
        if tiers.max() != rankings[-1].max():
            thresholds.append(value)
            rankings.append(tiers)
    return thresholds, rankings, (n_judges + 1) // 2


def check_against_naive(X, missing):
    counts = profile_counts(X)
    support = counts.support(missing)
    path = selective_path(support, counts.n_judges)
    thresholds, rankings, stop = naive_path(support, counts.n_judges)
    np.testing.assert_array_equal(path.thresholds, thresholds)
    np.testing.assert_array_equal(path.taus, np.array(thresholds) / counts.n_judges)
    for ours, expected in zip(path.rankings, rankings, strict=True):
        np.testing.assert_array_equal(ours, expected)
    assert path.tau_stop == stop / counts.n_judges
    # Lookup between recorded levels gives the ranking of the largest level below.
    for threshold, ranking in zip(thresholds, rankings, strict=True):
        np.testing.assert_array_equal(path.at((threshold + 0.5) / counts.n_judges), ranking)


def rankable(X):
    """Some judge ranks each item together with another (the ranking functions refuse X otherwise)."""
    ranked = ~np.isnan(X)
    if X.shape[1] == 1:
        return bool(ranked.any())
    return bool((ranked & (ranked.sum(axis=1, keepdims=True) > 1)).any(axis=0).all())


profiles = st.tuples(st.integers(1, 12), st.integers(1, 8)).flatmap(
    lambda shape: arrays(np.float64, shape,
                         elements=st.sampled_from([1.0, 2.0, 3.0, 4.0, 5.0, np.nan]))).filter(rankable)


@settings(max_examples=150, deadline=None)
@given(X=profiles, missing=st.sampled_from(["ignore", "dissent"]))
def test_path_matches_the_step_by_step_algorithm(X, missing):
    check_against_naive(X, missing)


def test_path_matches_on_mallows_profiles():
    for seed, (n_judges, n_items, missing_rate) in enumerate([(301, 30, 0.0), (200, 40, 0.1),
                                                              (1000, 12, 0.3)]):
        X, _ = make_preference_profiles(n_judges, n_items, dispersion=0.9,
                                        missing_rate=missing_rate, random_state=seed)
        for missing in ("ignore", "dissent"):
            check_against_naive(X, missing)


def test_path_has_at_most_one_ranking_per_item_and_refines_along_tau():
    X, _ = make_preference_profiles(500, 25, dispersion=0.95, random_state=0)
    path = SelectiveRanker().path(X)
    assert len(path) <= 25
    n_tiers = [ranking.max() + 1 for ranking in path.rankings]
    assert n_tiers == sorted(set(n_tiers))
    assert path.to_frame().shape == (len(path), 25)


def test_path_with_a_single_item():
    path = SelectiveRanker().path(np.array([[1.0], [1.0]]))
    assert path.taus.tolist() == [0.0] and path.at(0.3).tolist() == [0]
