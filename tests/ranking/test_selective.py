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
from fairkit.metrics import disagreement_rate
from fairkit.ranking import SelectiveRanker, borda, copeland, kemeny, pairwise_counts
from fairkit.utils._preferences import profile_counts


def rankable(X):
    """Some judge ranks each item together with another (the ranking functions refuse X otherwise)."""
    ranked = ~np.isnan(X)
    if X.shape[1] == 1:
        return bool(ranked.any())
    return bool((ranked & (ranked.sum(axis=1, keepdims=True) > 1)).any(axis=0).all())


def profiles(max_judges=9, max_items=5, missing=False):
    """Small rank profiles with many ties (few distinct values), and NaN if ``missing``."""
    values = st.sampled_from([1.0, 2.0, 3.0, 4.0] + [np.nan] * missing)
    shape = st.tuples(st.integers(1, max_judges), st.integers(2, max_items))
    return shape.flatmap(lambda s: arrays(np.float64, s, elements=values)).filter(rankable)


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


def test_compare_by_index_and_by_name():
    X = pd.DataFrame([[1, 2, 3], [1, 2, 3], [2, 1, 3]], columns=["a", "b", "c"])
    ranker = SelectiveRanker(tau=0.34).fit(X)
    assert ranker.feature_names_in_.tolist() == ["a", "b", "c"]
    assert ranker.compare([[0, 1], [2, 0], [1, 1]]).tolist() == [1, -1, 0]
    assert ranker.compare([["a", "b"], ["c", "a"]]).tolist() == [1, -1]
    with pytest.raises(ValueError, match="unknown items"):
        ranker.compare([["a", "z"]])
    with pytest.raises(ValueError, match=r"indices in \[0, 3\)"):
        ranker.compare([[0, 3]])
    with pytest.raises(ValueError, match="Reshape your data"):
        ranker.compare([0, 1])


def test_compare_gives_what_predict_gave_on_the_docstring_example():
    # SelectiveRanker.predict(pairs) before the redesign: tiers [0], [1], [2, 3] and
    # predict([[0, 1], [3, 2]]) == [1, 0] (its doctest).
    X = np.array([[1, 2, 3, 4], [1, 3, 2, 4], [2, 1, 3, 4], [1, 2, 4, 3], [1, 2, 4, 3]])
    ranker = SelectiveRanker(tau=0.2).fit(X)
    pairs = [[0, 1], [3, 2], [2, 3], [1, 0], [0, 3], [3, 1]]
    assert ranker.compare(pairs).tolist() == [1, 0, 0, -1, 1, -1]
    assert not hasattr(ranker, "predict")


def test_score_samples_is_each_judges_agreement_counted_by_hand():
    X = np.array([[1, 2, 3], [1, 3, 2], [2, 1, 3], [1, 2, 2]])
    ranker = SelectiveRanker(tau=0.25).fit(X)  # 0 above 1 and 2; abstains on (1, 2)
    judges = np.array([
        [1, 2, 3],  # agrees on (0, 1) and (0, 2); (1, 2) strict but abstained: (2 - 0) / 3
        [3, 1, 2],  # disagrees on both claims: (0 - 2) / 3
        [2, 1, 1],  # disagrees on (0, 1) and (0, 2), ties (1, 2): (0 - 2) / 2
        [1, 1, 1],  # no strict preference: 0
        [1, np.nan, 2],  # answers (0, 2) only, and agrees: 1 / 1
        [np.nan, 3, 1],  # answers (1, 2) only, which the ranking does not compare: 0 / 1
        [np.nan] * 3,  # skipped everything: 0
    ])
    np.testing.assert_allclose(ranker.score_samples(judges), [2 / 3, -2 / 3, -1, 0, 1, 0, 0])


@settings(max_examples=40, deadline=None)
@given(X=profiles(missing=True), data=st.data(), tau=taus,
       input_type=st.sampled_from(["ranks", "ratings"]))
def test_score_samples_matches_a_judge_by_judge_count(X, data, tau, input_type):
    ranker = SelectiveRanker(tau=tau, input_type=input_type).fit(X)
    tier = ranker.tier_of_item_
    values = st.sampled_from([1.0, 2.0, 3.0, np.nan])
    judges = data.draw(arrays(np.float64, (data.draw(st.integers(1, 6)), X.shape[1]),
                              elements=values).filter(lambda X: not np.isnan(X).all()))
    sign = 1 if input_type == "ranks" else -1
    expected = []
    for row in judges:
        prefers = [(i, j) for i, j in itertools.permutations(range(len(row)), 2)
                   if sign * row[i] < sign * row[j]]  # NaN comparisons are False
        agree = sum(tier[i] < tier[j] for i, j in prefers)
        disagree = sum(tier[i] > tier[j] for i, j in prefers)
        expected.append((agree - disagree) / len(prefers) if prefers else 0.0)
    np.testing.assert_allclose(ranker.score_samples(judges), expected)


def test_score_is_the_mean_of_score_samples_weighted_by_strict_preferences():
    rng = np.random.default_rng(3)
    X = rng.integers(1, 4, size=(30, 5)).astype(float)
    X[rng.random(X.shape) < 0.2] = np.nan
    ranker = SelectiveRanker(tau=0.4).fit(X)
    strict = [sum(a < b for a, b in itertools.permutations(row[~np.isnan(row)], 2)) for row in X]
    assert ranker.score(X) == pytest.approx(np.average(ranker.score_samples(X), weights=strict))


def test_score_samples_takes_ratings_and_checks_the_items():
    X = np.array([[5.0, 3.0, 1.0], [4.0, 4.0, 2.0], [5.0, 1.0, 2.0]])
    ratings = SelectiveRanker(tau=0.34, input_type="ratings").fit(X)
    ranks = SelectiveRanker(tau=0.34).fit(-X)
    np.testing.assert_array_equal(ratings.score_samples(X), ranks.score_samples(-X))
    with pytest.raises(ValueError, match="X has 2 features, but SelectiveRanker is expecting 3"):
        ratings.score_samples(X[:, :2])


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


def test_a_failed_refit_leaves_the_fitted_ranker_as_it_was():
    ranker = SelectiveRanker().fit(np.array([[1, 2, 3], [2, 1, 3]]))
    state = {key: value for key, value in vars(ranker).items() if key.endswith("_")}
    bad = pd.DataFrame([[1.0, np.inf], [2.0, 1.0]], columns=["a", "b"])
    with pytest.raises(ValueError, match="infinity"):
        ranker.fit(bad)
    assert {key: value for key, value in vars(ranker).items() if key.endswith("_")} == state


# Bad input (issue 14)

RAGGED = {
    "list of lists": [[1, 2, 3], [2, 1]],
    "list of arrays": [np.array([1.0, 2.0, 3.0]), np.array([2.0, 1.0])],
    "tuple of tuples": ((1, 2), (2, 1, 3)),
    "object array": np.array([[1, 2, 3], [2, 1]], dtype=object),
}
ALL_NAN = {
    "every judge skipped every item": np.full((3, 4), np.nan),
    "a single missing value": [[np.nan]],
}
# Every function that takes a profile, through the one validation (check_profile).
TAKES_PROFILES = {
    "fit": lambda X: SelectiveRanker().fit(X),
    "path": lambda X: SelectiveRanker().path(X),
    "profile_counts": profile_counts,
    "borda": borda,
    "copeland": copeland,
    "kemeny": kemeny,
    "disagreement_rate": lambda X: disagreement_rate(X, np.arange(np.shape(X[0])[0])),
}
RANKS_ITEMS = {name: TAKES_PROFILES[name] for name in ("fit", "path", "borda", "copeland", "kemeny")}


def fitted_attributes(estimator):
    return [key for key in vars(estimator) if key.endswith("_")]


@pytest.mark.parametrize("X", RAGGED.values(), ids=RAGGED.keys())
@pytest.mark.parametrize("function", TAKES_PROFILES.values(), ids=TAKES_PROFILES.keys())
def test_a_ragged_profile_is_named_with_the_fix(function, X):
    with pytest.raises(ValueError, match=r"preference profile X is ragged: its rows have different "
                                         r"lengths \(row 0 has \d values, row 1 has \d\).*NaN"):
        function(X)


@pytest.mark.parametrize("X", ALL_NAN.values(), ids=ALL_NAN.keys())
@pytest.mark.parametrize("function", TAKES_PROFILES.values(), ids=TAKES_PROFILES.keys())
def test_an_all_nan_profile_is_refused(function, X):
    with pytest.raises(ValueError, match="preference profile X holds no preferences: all its"):
        function(X)


@pytest.mark.parametrize("X", [*RAGGED.values(), *ALL_NAN.values()])
def test_new_judges_are_validated_like_the_fitted_ones(X):
    ranker = SelectiveRanker().fit([[1, 2, 3], [2, 1, 3]])
    for method in (ranker.score, ranker.score_samples):
        with pytest.raises(ValueError, match="preference profile X (is ragged|holds no preferences)"):
            method(X)


@pytest.mark.parametrize("X", [*RAGGED.values(), *ALL_NAN.values()])
def test_a_failed_first_fit_leaves_no_fitted_attribute(X):
    ranker = SelectiveRanker()
    with pytest.raises(ValueError, match="preference profile X"):
        ranker.fit(X)
    assert fitted_attributes(ranker) == []


@pytest.mark.parametrize("function", RANKS_ITEMS.values(), ids=RANKS_ITEMS.keys())
def test_an_item_nobody_ranked_cannot_be_ranked(function):
    X = pd.DataFrame([[1, 2, np.nan], [2, 1, np.nan]], columns=["a", "b", "c"])
    with pytest.raises(ValueError, match=r"X gives no preference about 1 of its 3 items \(c\): no "
                                         r"judge compares them.*Drop these items from X"):
        function(X)


@pytest.mark.parametrize("function", RANKS_ITEMS.values(), ids=RANKS_ITEMS.keys())
def test_judges_who_each_rank_one_item_say_nothing_about_any(function):
    X = [[1, np.nan, np.nan], [np.nan, 2, np.nan], [np.nan, np.nan, 1], [1, np.nan, 2]]
    with pytest.raises(ValueError, match=r"no preference about 1 of its 3 items \(1\)"):
        function(X)


def test_counts_that_never_compare_an_item_cannot_be_ranked():
    counts = pairwise_counts([["ann", 0, 1, 1], ["bob", 0, 1, 0]], n_items=4)
    ranker = SelectiveRanker()
    with pytest.raises(ValueError, match=r"no preference about 2 of its 4 items \(2, 3\)"):
        ranker.fit(counts)
    assert fitted_attributes(ranker) == []
    with pytest.raises(ValueError, match="no preference about 2 of its 4 items"):
        borda(counts)


def test_with_dissent_an_item_nobody_ranked_is_compared_with_nothing():
    # Every judge dissents about item c, so no comparison involving it is backed: c shares a
    # tier with every item, hence one tier; the path says the same at every level.
    X = pd.DataFrame([[1, 2, np.nan], [1, 2, np.nan], [1, 2, np.nan]], columns=["a", "b", "c"])
    ranker = SelectiveRanker(tau=0.2, missing="dissent").fit(X)
    assert [tier.tolist() for tier in ranker.tiers_] == [[0, 1, 2]]
    assert all((ranking == 0).all() for ranking in ranker.path(X).rankings)
    assert [tier.tolist() for tier in SelectiveRanker(tau=0.2, missing="dissent").fit(X[["a", "b"]]).tiers_
            ] == [[0], [1]]


def test_an_item_nobody_ranked_fails_fit_before_any_state_is_set():
    ranker = SelectiveRanker()
    with pytest.raises(ValueError, match="no preference about"):
        ranker.fit(pd.DataFrame([[1, 2, np.nan]], columns=["a", "b", "c"]))
    assert fitted_attributes(ranker) == []


def test_a_failed_refit_on_a_ragged_profile_keeps_the_old_fit():
    ranker = SelectiveRanker().fit(pd.DataFrame([[1, 2, 3], [2, 1, 3]], columns=["a", "b", "c"]))
    state = {key: getattr(ranker, key) for key in fitted_attributes(ranker)}
    with pytest.raises(ValueError, match="ragged"):
        ranker.fit([[1, 2], [1, 2, 3, 4]])
    assert fitted_attributes(ranker) == list(state)
    assert all(getattr(ranker, key) is value for key, value in state.items())


def test_judges_and_items_without_answers_are_legitimate_where_nothing_is_ranked():
    # A judge who skipped every item counts (as missing on every pair); held-out judges
    # who skipped an item are scored on the rest.
    X = np.array([[1, 2, 3], [1, 2, 3], [np.nan, np.nan, np.nan]])
    assert SelectiveRanker(missing="dissent").fit(X).n_judges_ == 3
    ranker = SelectiveRanker().fit(X)
    held_out = np.array([[1, 2, np.nan], [2, 1, np.nan]])
    np.testing.assert_array_equal(ranker.score_samples(held_out), [1, -1])
    assert ranker.score(held_out) == 0.0
    assert disagreement_rate(held_out, ranker.tier_of_item_) == pytest.approx(1 / 6)


def test_score_samples_refuses_pairwise_counts():
    ranker = SelectiveRanker().fit([[1, 2], [1, 2]])
    with pytest.raises(TypeError, match=r"score_samples needs the profile X.*Use score\(counts\)"):
        ranker.score_samples(profile_counts([[1, 2]]))


@pytest.mark.parametrize(("comparisons", "message"), [
    ([[0, 0, 1, 1], [1, 0, 1]], r"comparisons is ragged: .*row 0 has 4 values, row 1 has 3.*NaN as "
                                r"the preference"),
    ([(0, 0, 1, 1), (1, 0, 1, 1, 0)], r"comparisons is ragged"),
    ([], "comparisons holds no records"),
    ([[0, 0, 1, np.nan], [1, 0, 1, np.nan]], r"comparisons holds no preferences: the preference "
                                            r"\(4th value\) of all its 2 records is NaN"),
])
def test_pairwise_counts_refuses_ragged_or_empty_records(comparisons, message):
    with pytest.raises(ValueError, match=message):
        pairwise_counts(comparisons, n_items=2, n_judges=2)


@pytest.mark.parametrize("function", TAKES_PROFILES.values(), ids=TAKES_PROFILES.keys())
def test_a_profile_of_strings_names_x_and_says_ranks_must_be_numbers(function):
    X = [["a", "b", "c"], ["b", "a", "c"]]  # each judge's items in order: not ranks
    # Before: numpy's "could not convert string to float: 'a'", naming no argument.
    with pytest.raises(ValueError, match=r"X holds values that are not numbers \(could not convert "
                                         r"string to float: 'a'\); ranks and ratings must be numbers"):
        function(X)


def test_a_profile_of_strings_leaves_no_fitted_attribute():
    ranker = SelectiveRanker()
    with pytest.raises(ValueError, match="X holds values that are not numbers"):
        ranker.fit(pd.DataFrame({"a": ["1", "x"], "b": ["2", "1"]}))
    assert fitted_attributes(ranker) == []


def test_item_names_for_a_ranker_fitted_without_names_are_refused():
    ranker = SelectiveRanker().fit(np.array([[1, 2, 3], [2, 1, 3]]))
    # Before: "could not convert string to float: 'a'".
    with pytest.raises(ValueError, match=r"pairs holds item names, but SelectiveRanker was fitted "
                                         r"without item names.*give item indices in \[0, 3\)"):
        ranker.compare([["a", "b"]])
    named = SelectiveRanker().fit(pd.DataFrame([[1, 2, 3], [2, 1, 3]], columns=["a", "b", "c"]))
    assert named.compare([["a", "c"]]).tolist() == ranker.compare([[0, 2]]).tolist() == [1]
