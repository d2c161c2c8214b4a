"""SelectiveRanker: safety, finest ranking (brute force), nestedness, and the estimator API."""

import itertools
import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold

from fairkit.exceptions import FairkitWarning
from fairkit.ranking import SelectiveRanker, pairwise_counts
from fairkit.utils._preferences import profile_counts


def profiles(max_judges=9, max_items=5, missing=False):
    """Small rank profiles with many ties (few distinct values), and NaN if ``missing``."""
    values = st.sampled_from([1.0, 2.0, 3.0, 4.0] + [np.nan] * missing)
    shape = st.tuples(st.integers(1, max_judges), st.integers(2, max_items))
    return shape.flatmap(lambda s: arrays(np.float64, s, elements=values))


taus = st.floats(0, 0.499, allow_nan=False)
missing_rules = st.sampled_from(["ignore", "dissent"])


def claims(tier_of_item):
    """Set of (i, j) with i ranked above j."""
    return {(i, j) for i, j in itertools.permutations(range(len(tier_of_item)), 2)
            if tier_of_item[i] < tier_of_item[j]}


def weak_orders(n_items):
    """Every tiered ranking of n items, as tier arrays with tiers 0..k-1 all used."""
    for tiers in itertools.product(range(n_items), repeat=n_items):
        if set(tiers) == set(range(max(tiers) + 1)):
            yield np.array(tiers)


def is_safe(tier_of_item, support, threshold):
    """Every claim i above j is overruled by at most ``threshold`` judges (support[j, i])."""
    return all(support[j, i] <= threshold for i, j in claims(tier_of_item))


@settings(max_examples=40, deadline=None)
@given(X=profiles(max_items=4, missing=True), tau=taus, missing=missing_rules)
def test_the_ranking_is_safe_and_contains_every_safe_ranking(X, tau, missing):
    ranker = SelectiveRanker(tau=tau, missing=missing)
    assume(tau < ranker.path(X).tau_stop)  # past it, pairs may lose support both ways
    ranker.fit(X)
    support = profile_counts(X).support(missing)
    threshold = int(np.floor(round(tau * X.shape[0], 9)))
    assert is_safe(ranker.tier_of_item_, support, threshold)
    ours = claims(ranker.tier_of_item_)
    for other in weak_orders(X.shape[1]):
        if is_safe(other, support, threshold):
            assert claims(other) <= ours


@settings(max_examples=60, deadline=None)
@given(X=profiles(missing=True), tau=st.floats(0, 1), missing=missing_rules)
def test_every_claim_has_dissent_at_most_tau(X, tau, missing):
    ranker = SelectiveRanker(tau=tau, missing=missing).fit(X)  # may warn for tau >= 1/2
    claimed = ranker.comparison_matrix_ == 1
    assert (ranker.dissent_matrix_[claimed] <= tau + 1e-12).all()
    np.testing.assert_array_equal(ranker.comparison_matrix_, -ranker.comparison_matrix_.T)


@settings(max_examples=60, deadline=None)
@given(X=profiles(max_items=7), low=taus, high=taus)
def test_rankings_are_nested_along_tau(X, low, high):
    low, high = sorted([low, high])
    coarse = SelectiveRanker(tau=low).fit(X).tier_of_item_
    fine = SelectiveRanker(tau=high).fit(X).tier_of_item_
    assert claims(coarse) <= claims(fine)


@settings(max_examples=60, deadline=None)
@given(X=profiles(max_items=7, missing=True), tau=taus, missing=missing_rules)
def test_fit_agrees_with_the_path(X, tau, missing):
    ranker = SelectiveRanker(tau=tau, missing=missing)
    path = ranker.path(X)
    assume(tau < path.tau_stop)
    np.testing.assert_array_equal(ranker.fit(X).tier_of_item_, path.at(tau))


def test_tau_is_compared_in_integer_counts():
    # 71 judges prefer item 0, 29 item 1: "0 above 1" has dissent 29/100 = 0.29 exactly,
    # while 0.29 * 100 == 28.999999999999996 in floating point.
    X = np.array([[1, 2]] * 71 + [[2, 1]] * 29)
    assert SelectiveRanker(tau=0.29).fit(X).tiers_[0].tolist() == [0]
    assert len(SelectiveRanker(tau=0.28).fit(X).tiers_) == 1


def test_fitted_attributes():
    X = np.array([[1, 2, 3], [1, 3, 2], [2, 1, 3], [1, 2, 2]])
    ranker = SelectiveRanker(tau=0.25).fit(X)
    assert [t.tolist() for t in ranker.tiers_] == [[0], [1, 2]]
    np.testing.assert_array_equal(ranker.tier_of_item_, [0, 1, 1])
    np.testing.assert_array_equal(ranker.comparison_matrix_, [[0, 1, 1], [-1, 0, 0], [-1, 0, 0]])
    # "1 above 2": judges 0 and 2 prefer 1, judge 1 prefers 2, judge 3 ties: dissent 2/4.
    assert ranker.dissent_matrix_[1, 2] == 0.5 and ranker.dissent_matrix_[0, 1] == 0.25
    assert ranker.n_judges_ == 4 and ranker.n_features_in_ == 3


def test_predict_by_index_and_by_name():
    X = pd.DataFrame([[1, 2, 3], [1, 2, 3], [2, 1, 3]], columns=["a", "b", "c"])
    ranker = SelectiveRanker(tau=0.34).fit(X)
    assert ranker.feature_names_in_.tolist() == ["a", "b", "c"]
    assert ranker.predict([[0, 1], [2, 0], [1, 1]]).tolist() == [1, -1, 0]
    assert ranker.predict([["a", "b"], ["c", "a"]]).tolist() == [1, -1]
    with pytest.raises(ValueError, match="unknown items"):
        ranker.predict([["a", "z"]])
    with pytest.raises(ValueError, match=r"indices in \[0, 3\)"):
        ranker.predict([[0, 3]])
    with pytest.raises(ValueError, match="Reshape your data"):
        ranker.predict([0, 1])


def test_score_counts_agreements_and_disagreements():
    ranker = SelectiveRanker(tau=0.34).fit(np.array([[1, 2, 3], [1, 2, 3], [2, 1, 3]]))
    assert [t.tolist() for t in ranker.tiers_] == [[0], [1], [2]]
    # New judges: 3 strict preferences each; the ranking claims all three pairs.
    assert ranker.score(np.array([[1, 2, 3]])) == 1.0
    assert ranker.score(np.array([[3, 2, 1]])) == -1.0
    assert ranker.score(np.array([[2, 1, 3], [1, 1, 1]])) == pytest.approx((2 - 1) / 3)
    assert ranker.score(np.array([[1, 1, 1]])) == 0.0
    with pytest.raises(ValueError, match="3 features"):
        ranker.score(np.array([[1, 2]]))


def test_grid_search_over_tau_with_folds_of_judges():
    rng = np.random.default_rng(0)
    X = np.argsort(np.argsort(rng.normal(np.arange(6), 2.0, size=(60, 6)), axis=1), axis=1) + 1.0
    search = GridSearchCV(SelectiveRanker(), {"tau": [0.0, 0.2, 0.45]},
                          cv=KFold(3, shuffle=True, random_state=0)).fit(X)
    assert search.best_params_["tau"] == 0.45  # a consistent majority generalizes
    assert search.cv_results_["mean_test_score"][0] == 0.0  # tau=0 abstains everywhere


def test_fit_on_pairwise_counts_equals_fit_on_the_profile():
    X = np.array([[1, 2, 3], [3, 1, 2], [1, 3, 2], [2, 1, 3]], dtype=float)
    records = [(judge, i, j, np.sign(row[j] - row[i]))
               for judge, row in enumerate(X) for i, j in itertools.combinations(range(3), 2)]
    counts = pairwise_counts(records, 3)
    for tau in (0.0, 0.25, 0.49):
        from_counts = SelectiveRanker(tau=tau).fit(counts)
        from_profile = SelectiveRanker(tau=tau).fit(X)
        np.testing.assert_array_equal(from_counts.tier_of_item_, from_profile.tier_of_item_)
        assert from_counts.score(counts) == from_profile.score(X)
    path = SelectiveRanker().path(counts)
    np.testing.assert_array_equal(path.taus, SelectiveRanker().path(X).taus)


def test_ratings_are_reversed_ranks():
    rng = np.random.default_rng(1)
    X = rng.integers(1, 6, size=(40, 5)).astype(float)
    for tau in (0.1, 0.3, 0.45):
        ratings = SelectiveRanker(tau=tau, input_type="ratings").fit(X).tier_of_item_
        ranks = SelectiveRanker(tau=tau).fit(-X).tier_of_item_
        np.testing.assert_array_equal(ratings, ranks)


def test_missing_as_dissent_demands_support_from_all_judges():
    # Judge 2 skipped item 2: with "ignore" the 2 judges who ranked it agree on it; with
    # "dissent" judge 2 dissents from both orders of (0, 2) and (1, 2), so 2 ties with 0
    # and with 1, and, tiers being transitive, everything ties at tau=0.
    X = np.array([[1, 2, 3], [1, 2, 3], [1, 2, np.nan]])
    assert len(SelectiveRanker(missing="ignore").fit(X).tiers_) == 3
    assert [t.tolist() for t in SelectiveRanker(missing="dissent").fit(X).tiers_] == [[0, 1, 2]]
    assert len(SelectiveRanker(tau=1 / 3, missing="dissent").fit(X).tiers_) == 3


def test_unsupported_pairs_warn():
    X = np.array([[1, 2], [2, 1]])  # a 1-1 split: both orders have dissent 1/2
    with pytest.warns(FairkitWarning, match="1 pair"):
        SelectiveRanker(tau=0.5).fit(X)
    X = np.array([[1, 2, np.nan], [np.nan, 1, 2]])  # items 0 and 2 never ranked together
    with pytest.warns(FairkitWarning, match="missing='dissent'"):
        SelectiveRanker(tau=0.0).fit(X)


@pytest.mark.parametrize(("params", "X", "error"), [
    ({"tau": 1.5}, [[1, 2]], "tau"),
    ({"tau": -0.1}, [[1, 2]], "tau"),
    ({"input_type": "scores"}, [[1, 2]], "input_type"),
    ({"missing": "zero"}, [[1, 2]], "missing"),
    ({}, [[1, np.inf]], "infinity"),
    ({}, [["a", "b"]], "could not convert"),
])
def test_bad_input_raises_and_leaves_no_fitted_state(params, X, error):
    ranker = SelectiveRanker(**params)
    with pytest.raises(ValueError, match=error):
        ranker.fit(X)
    assert not hasattr(ranker, "tiers_")


def test_refit_replaces_item_names_and_survives_pickle():
    ranker = SelectiveRanker(tau=0.3).fit(pd.DataFrame([[1, 2]], columns=["a", "b"]))
    ranker.fit(np.array([[1, 2, 3]]))
    assert not hasattr(ranker, "feature_names_in_")
    restored = pickle.loads(pickle.dumps(ranker))
    np.testing.assert_array_equal(restored.comparison_matrix_, ranker.comparison_matrix_)
    assert clone(ranker).get_params() == ranker.get_params()


def test_fit_is_deterministic_and_leaves_the_global_generator_alone():
    # The common checks that call predict on samples do not apply; these are their substance.
    X = np.random.default_rng(5).integers(1, 5, size=(40, 6)).astype(float)
    np.random.random()  # noqa: NPY002 (the global generator is what is checked)
    state = pickle.dumps(np.random.get_state())  # noqa: NPY002
    first = SelectiveRanker(tau=0.3).fit(X)
    again = clone(first).fit(X)
    assert pickle.dumps(np.random.get_state()) == state  # noqa: NPY002
    for name in ("tier_of_item_", "comparison_matrix_", "dissent_matrix_"):
        np.testing.assert_array_equal(getattr(first, name), getattr(again, name))
    np.testing.assert_array_equal(first.predict([[0, 1], [2, 3]]),
                                  pickle.loads(pickle.dumps(first)).predict([[0, 1], [2, 3]]))
