"""Ranking metrics: abstention and disagreement by brute force, stability by its definitions."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from fairkit.datasets import make_preference_profiles
from fairkit.metrics import abstention_rate, disagreement_rate, ranking_stability
from fairkit.ranking import SelectiveRanker
from fairkit.utils._preferences import PairwiseCounts

rankings = st.integers(2, 8).flatmap(lambda n: arrays(np.int64, n, elements=st.integers(0, 3)))


@given(ranking=rankings)
def test_abstention_rate_counts_pairs_in_one_tier(ranking):
    pairs = list(itertools.combinations(range(len(ranking)), 2))
    tied = sum(ranking[i] == ranking[j] for i, j in pairs)
    assert abstention_rate(ranking) == pytest.approx(tied / len(pairs))


@settings(deadline=None)
@given(X=st.tuples(st.integers(1, 6), st.integers(2, 5)).flatmap(
    lambda shape: arrays(np.float64, shape, elements=st.sampled_from([1.0, 2.0, 3.0, np.nan]))
).filter(lambda X: not np.isnan(X).all()),
    data=st.data(), input_type=st.sampled_from(["ranks", "ratings"]))
def test_disagreement_rate_counts_reversed_answers(X, data, input_type):
    ranking = data.draw(arrays(np.int64, X.shape[1], elements=st.integers(0, 2)))
    better = (lambda a, b: a < b) if input_type == "ranks" else (lambda a, b: a > b)
    reversed_answers = sum(better(row[j], row[i])  # NaN comparisons are False
                           for row in X for i, j in itertools.permutations(range(X.shape[1]), 2)
                           if ranking[i] < ranking[j])
    n_pairs = X.shape[1] * (X.shape[1] - 1) / 2
    expected = reversed_answers / (n_pairs * X.shape[0])
    assert disagreement_rate(X, ranking, input_type=input_type) == pytest.approx(expected)


def test_disagreement_rate_of_a_full_abstention_is_zero():
    assert disagreement_rate([[1, 2, 3], [3, 2, 1]], [0, 0, 0]) == 0.0
    assert disagreement_rate([[1, 2, 3], [3, 2, 1]], [0, 1, 2]) == 0.5


@pytest.mark.parametrize("ranking", [[0], [[0, 1]], [0, np.nan], ["a", "b"]])
def test_bad_rankings_raise(ranking):
    with pytest.raises(ValueError, match="ranking"):
        abstention_rate(ranking)


def test_ranking_and_profile_must_have_the_same_items():
    with pytest.raises(ValueError, match="ranking has 2 items but the preferences have 3"):
        disagreement_rate([[1, 2, 3]], [0, 1])


class _FixedRankings(SelectiveRanker):
    """Returns the full ranking on the full data and pre-set rankings on subsamples."""

    full = np.array([0, 0, 1, 2])
    resampled = iter([])

    def fit(self, X, y=None):
        super().fit(X)
        if isinstance(X, PairwiseCounts):
            self.tier_of_item_ = next(type(self).resampled)
        else:
            self.tier_of_item_ = self.full
        return self


def test_ranking_stability_counts_each_kind_of_change():
    # Full: {0, 1} > 2 > 3. Subsample: 1 > 0 > 3 > 2 reverses (2, 3), specifies (0, 1).
    # Subsample: {0, 1, 2} > 3 abstains on (0, 2) and (1, 2).
    _FixedRankings.resampled = iter([np.array([1, 0, 3, 2]), np.array([0, 0, 0, 1]),
                                     np.array([1, 0, 3, 2])])
    X = np.array([[1, 2, 3, 4], [2, 1, 3, 4]])
    stability = ranking_stability(_FixedRankings(), X, n_resamples=3, random_state=0)
    assert stability == pytest.approx({"inversions": 1 / 6, "abstentions": 0.0,
                                       "specifications": 1 / 6})


def test_ranking_stability_of_a_consistent_majority():
    X, _ = make_preference_profiles(300, 6, dispersion=0.5, random_state=0)
    estimator = SelectiveRanker(tau=0.3)
    first = ranking_stability(estimator, X, n_resamples=25, random_state=1)
    assert first == ranking_stability(estimator, X, n_resamples=25, random_state=1)
    assert first["inversions"] == 0.0
    assert not hasattr(estimator, "tiers_")  # cloned, not fitted
    assert ranking_stability(estimator, X, n_resamples=3, fraction=1.0) == {
        "inversions": 0.0, "abstentions": 0.0, "specifications": 0.0}


def test_ranking_stability_depends_on_how_dropped_records_count():
    # 52 judges prefer item 0, 48 item 1: at tau=0.48 the ranking says 0 above 1. Dropping
    # 10 of the 100 records leaves at most 48 dissenters when they are ignored (the claim
    # stands), but adds 10 dissenters when missing answers dissent (the ranking abstains).
    X = np.array([[1, 2]] * 52 + [[2, 1]] * 48, dtype=float)
    ignore = ranking_stability(SelectiveRanker(tau=0.48), X, n_resamples=20, random_state=0)
    dissent = ranking_stability(SelectiveRanker(tau=0.48, missing="dissent"), X, n_resamples=20,
                                random_state=0)
    assert ignore == {"inversions": 0.0, "abstentions": 0.0, "specifications": 0.0}
    assert dissent == {"inversions": 0.0, "abstentions": 1.0, "specifications": 0.0}
    with pytest.raises(ValueError, match="fraction"):
        ranking_stability(SelectiveRanker(), X, fraction=1.5)


def test_ranking_stability_names_a_subsample_that_dropped_every_answer_about_an_item():
    # Item 2 is answered by one judge only: a subsample that drops that record leaves it unranked.
    X = np.array([[1, 2, np.nan]] * 30 + [[1, 2, 3]], dtype=float)
    with pytest.raises(ValueError, match=r"ranking_stability: subsample \d+ \(fraction=0.5 of the "
                                         r"records\) could not be ranked: X gives no preference about "
                                         r"1 of its 3 items.*raise fraction"):
        ranking_stability(SelectiveRanker(), X, n_resamples=20, fraction=0.5, random_state=0)
    # with missing answers as dissent the item is compared with nothing: a valid outcome
    stability = ranking_stability(SelectiveRanker(missing="dissent"), X, n_resamples=20, fraction=0.5,
                                  random_state=0)
    assert stability["inversions"] == 0.0
