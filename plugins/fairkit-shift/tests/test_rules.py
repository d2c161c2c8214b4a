"""Rules describing detectors: recovery of known subgroups, predicates, missing values, categories."""

import math
import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.tree import DecisionTreeClassifier

from fairkit_shift._rules import SubgroupRule, fit_rule, subgroup_losses

CONDITION = re.compile(r"^(\w+) (<=|>) (-?[\d.e+-]+)$")


def grid_normal(seed, n, p=5, shift=0.0):
    """Normal rows rounded to 0.1: a box with thresholds on the grid is then recovered exactly."""
    return np.round(np.random.default_rng(seed).normal(shift, 1.0, size=(n, p)), 1)


def parse(text):
    """The rule text as a list of terms, each a dict feature -> list of (op, threshold)."""
    terms = []
    for term in text.split("  or  "):
        conditions = {}
        for condition in term.split(" and "):
            name, op, threshold = CONDITION.match(condition).groups()
            conditions.setdefault(name, []).append((op, float(threshold)))
        terms.append(conditions)
    return terms


def box(X):
    return (X[:, 1] > 1) & (X[:, 3] <= 0)


def test_a_box_is_recovered_as_its_rule():
    X = grid_normal(0, 4000)
    rule = fit_rule(X, box(X), decomposition="covariate", min_prevalence=0.05, random_state=0)
    (term,) = parse(rule.text)
    assert set(term) == {"x1", "x3"}
    ((op1, t1),), ((op3, t3),) = term["x1"], term["x3"]
    assert op1 == ">" and 1.0 < t1 < 1.1
    assert op3 == "<=" and 0.0 < t3 < 0.1
    X_source, X_target = grid_normal(1, 3000), grid_normal(2, 3000, shift=0.5)
    np.testing.assert_array_equal(rule.predicate(X_target), box(X_target))
    evaluated = rule.evaluate(X_source, X_target, box(X_source), box(X_target))
    assert evaluated.fidelity == 1.0
    assert evaluated.prevalence_source == box(X_source).mean()
    assert evaluated.prevalence_target == box(X_target).mean()
    assert evaluated.prevalence_target > evaluated.prevalence_source  # the target mean moved up
    assert math.isnan(rule.fidelity)  # evaluate returns a copy: the rule is frozen
    assert rule.decomposition == "covariate" and str(rule) == rule.text


def test_a_union_of_two_boxes_is_two_terms_with_the_tightest_bounds():
    def union(X):
        return ((X[:, 1] > 1) & (X[:, 3] <= 0)) | ((X[:, 1] <= -1) & (X[:, 4] > 0.5))

    X = grid_normal(3, 6000)
    rule = fit_rule(X, union(X), decomposition="outcome", min_prevalence=0.05, random_state=0)
    terms = parse(rule.text)
    assert len(terms) == 2
    # the path to the first box passes x1 > -1.05 then x1 > 1.05: one bound per feature and side is kept
    assert all(len(bounds) == 1 for term in terms for bounds in term.values())
    assert sorted(sorted(term) for term in terms) == [["x1", "x3"], ["x1", "x4"]]
    X_new = grid_normal(4, 4000)
    np.testing.assert_array_equal(rule.predicate(X_new), union(X_new))


def test_a_split_whose_leaves_all_predict_1_is_dropped():
    x = np.linspace(-2, 2, 4001).reshape(-1, 1)
    detected = x[:, 0] > 0
    # purer above 1: the tree splits there, and both sides predict 1
    detected[(x[:, 0] > 0) & (x[:, 0] <= 1) & (np.arange(4001) % 5 == 0)] = False
    rule = fit_rule(x, detected, decomposition="covariate", min_prevalence=0.05, random_state=0)
    (term,) = parse(rule.text)
    assert list(term) == ["x0"] and term["x0"][0][0] == ">" and 0 < term["x0"][0][1] < 0.001


def categorical_frame(seed, n, dtype):
    rng = np.random.default_rng(seed)
    statuses = ["Divorced", "Married", "Never-married", "Separated", "Widowed"]
    status = rng.choice(statuses, n)
    return pd.DataFrame({"age": rng.integers(18, 80, n).astype(float),
                         "marital_status": pd.Categorical(status, categories=statuses) if dtype == "category"
                         else pd.Series(status, dtype=dtype)})


def divorced_or_separated_over_30(frame):
    return (frame["marital_status"].isin(["Divorced", "Separated"]) & (frame["age"] > 30)).to_numpy()


@pytest.mark.parametrize("dtype", ["category", "object"])
def test_a_categorical_condition_is_a_set_of_categories(dtype):
    # Divorced and Separated are not neighbours in the column's order: the codes are ranked by the detector
    frame = categorical_frame(0, 3000, dtype)
    rule = fit_rule(frame, divorced_or_separated_over_30(frame), decomposition="outcome", min_prevalence=0.05,
                    random_state=0)
    age, status = rule.text.split(" and ")
    assert status == "marital_status in {'Divorced', 'Separated'}"
    assert re.fullmatch(r"age > 30\.\d+", age)
    fresh = categorical_frame(1, 2000, dtype)
    np.testing.assert_array_equal(rule.predicate(fresh), divorced_or_separated_over_30(fresh))
    np.testing.assert_array_equal(rule.predicate(fresh[["marital_status", "age"]]),
                                  divorced_or_separated_over_30(fresh))


def test_a_single_category_reads_as_equality_and_unseen_categories_are_outside():
    frame = categorical_frame(0, 3000, "category")
    detected = (frame["marital_status"] == "Widowed").to_numpy()
    rule = fit_rule(frame, detected, decomposition="covariate", min_prevalence=0.05, random_state=0)
    assert rule.text == "marital_status == 'Widowed'"
    fresh = pd.DataFrame({"age": [40.0, 40.0, 40.0], "marital_status": ["Widowed", "Unknown", None]})
    np.testing.assert_array_equal(rule.predicate(fresh), [True, False, False])


def test_the_predicate_takes_a_dataframe_by_name_or_an_array_by_position():
    X = grid_normal(5, 3000, p=3)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    detected = (X[:, 0] > 0.5) & (X[:, 2] <= 0)
    rule = fit_rule(frame, detected, decomposition="covariate", min_prevalence=0.05, random_state=0)
    assert rule.feature_names == ("a", "b", "c") and "a > " in rule.text and "c <= " in rule.text
    fresh = pd.DataFrame(grid_normal(6, 1000, p=3), columns=["a", "b", "c"])
    expected = (fresh["a"] > 0.5).to_numpy() & (fresh["c"] <= 0).to_numpy()
    np.testing.assert_array_equal(rule.predicate(fresh), expected)
    np.testing.assert_array_equal(rule.predicate(fresh.to_numpy()), expected)
    np.testing.assert_array_equal(rule.predicate(fresh[["c", "b", "a"]]), expected)


def test_other_columns_are_refused():
    X = grid_normal(5, 2000, p=3)
    detected = X[:, 0] > 0.5
    rule = fit_rule(pd.DataFrame(X, columns=["a", "b", "c"]), detected, decomposition="covariate",
                    min_prevalence=0.05)
    with pytest.raises(ValueError, match=r"missing \['c'\], unexpected \['d'\]"):
        rule.predicate(pd.DataFrame(X, columns=["a", "b", "d"]))
    with pytest.raises(ValueError, match=r"unexpected \['d'\]"):
        rule.predicate(pd.DataFrame(np.c_[X, X[:, :1]], columns=["a", "b", "c", "d"]))
    with pytest.raises(ValueError, match="X has 2 columns; the rule takes 3"):
        rule.predicate(X[:, :2])
    named = fit_rule(X, detected, decomposition="covariate", min_prevalence=0.05,
                     feature_names=["a", "b", "c"])
    assert named.text.startswith("a > ")
    with pytest.raises(ValueError, match="columns the rule was fitted on"):
        named.predicate(pd.DataFrame(X, columns=["p", "q", "r"]))
    # fitted on an unnamed array, a DataFrame of the same width is read by position
    unnamed = fit_rule(X, detected, decomposition="covariate", min_prevalence=0.05)
    np.testing.assert_array_equal(unnamed.predicate(pd.DataFrame(X, columns=["p", "q", "r"])), detected)


@pytest.mark.parametrize("constant, text", [(False, "none"), (True, "everyone")])
def test_a_constant_detector_is_none_or_everyone(constant, text):
    X = grid_normal(7, 500)
    X[::7, 2] = np.nan
    rule = fit_rule(X, np.full(500, constant), decomposition="outcome", min_prevalence=0.05)
    assert rule.text == text
    np.testing.assert_array_equal(rule.predicate(X), np.full(500, constant))
    detected = np.arange(500) % 4 == 0  # the rule agrees with 3/4 of these rows when none, 1/4 when everyone
    evaluated = rule.evaluate(X[:200], X[200:], detected[:200], detected[200:])
    assert evaluated.fidelity == (0.25 if constant else 0.75)
    assert evaluated.prevalence_source == evaluated.prevalence_target == float(constant)


def test_missing_values_follow_the_split_they_were_fitted_with():
    rng = np.random.default_rng(8)
    X = grid_normal(8, 4000, p=3)
    X[rng.random(4000) < 0.2, 1] = np.nan
    with_missing = np.isnan(X[:, 1]) | (X[:, 1] > 1)
    rule = fit_rule(X, with_missing, decomposition="outcome", min_prevalence=0.05, random_state=0)
    assert re.fullmatch(r"x1 > 1\.\d+ \(or missing\)", rule.text)
    np.testing.assert_array_equal(rule.predicate(X), with_missing)
    without_missing = X[:, 1] > 1  # NaN > 1 is False
    rule = fit_rule(X, without_missing, decomposition="outcome", min_prevalence=0.05, random_state=0)
    assert re.fullmatch(r"x1 > 1\.\d+", rule.text)
    np.testing.assert_array_equal(rule.predicate(X), without_missing)
    only_missing = np.isnan(X[:, 1])
    rule = fit_rule(X, only_missing, decomposition="outcome", min_prevalence=0.05, random_state=0)
    assert rule.text == "x1 is missing"
    np.testing.assert_array_equal(rule.predicate(X), only_missing)
    rule = fit_rule(X, ~only_missing, decomposition="outcome", min_prevalence=0.05, random_state=0)
    assert rule.text == "x1 is not missing"


def test_a_missing_value_of_a_feature_complete_in_training_satisfies_no_condition():
    X = grid_normal(9, 3000, p=2)
    rule = fit_rule(X, X[:, 0] <= 0.5, decomposition="covariate", min_prevalence=0.05)
    assert "missing" not in rule.text
    np.testing.assert_array_equal(rule.predicate(np.array([[0.0, 0.0], [np.nan, 0.0]])), [True, False])


def test_a_nullable_integer_column_with_missing_values():
    frame = pd.DataFrame({"count": pd.array([1, 2, None, 4, 5, 6, 7, 8] * 50, dtype="Int64")})
    detected = frame["count"].isna().to_numpy() | (frame["count"] > 6).to_numpy(dtype=bool, na_value=False)
    rule = fit_rule(frame, detected, decomposition="outcome", min_prevalence=0.05, random_state=0)
    assert rule.text == "count > 6.5 (or missing)"
    np.testing.assert_array_equal(rule.predicate(frame), detected)


@pytest.mark.parametrize("seed", range(6))
def test_the_rule_is_the_tree_it_was_read_from(seed):
    """Brute force: an independently fitted tree predicts the rule on fresh rows, missing values included."""
    rng = np.random.default_rng(seed)

    def rows(n):
        X = rng.normal(size=(n, 4))
        X[rng.random((n, 4)) < 0.1] = np.nan
        return X

    X = rows(3000)
    detected = np.nan_to_num(X[:, 0] + X[:, 1] * X[:, 2], nan=0.7) + rng.normal(0, 0.5, 3000) > 0.5
    rule = fit_rule(X, detected, decomposition="covariate", min_prevalence=0.05, random_state=seed)
    tree = DecisionTreeClassifier(max_depth=3, min_samples_leaf=math.ceil(0.05 * 3000 / 4),
                                  random_state=seed).fit(X, detected)
    X_new = rows(5000)
    np.testing.assert_array_equal(rule.predicate(X_new), tree.predict(X_new))


def test_bad_inputs_are_refused_with_the_argument_named():
    X = grid_normal(10, 200, p=2)
    detected = X[:, 0] > 0
    with pytest.raises(ValueError, match="decomposition must be one of"):
        fit_rule(X, detected, decomposition="both", min_prevalence=0.05)
    with pytest.raises(ValueError, match="min_prevalence == 0.7, must be <= 0.5"):
        fit_rule(X, detected, decomposition="outcome", min_prevalence=0.7)
    with pytest.raises(ValueError, match=r"detected_train must hold booleans \(or 0/1\)"):
        fit_rule(X, detected + 1, decomposition="outcome", min_prevalence=0.05)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        fit_rule(X, detected[:-1], decomposition="outcome", min_prevalence=0.05)
    with pytest.raises(ValueError, match="feature_names must be 2 distinct names"):
        fit_rule(X, detected, decomposition="outcome", min_prevalence=0.05, feature_names=["a"])
    X_inf = X.copy()
    X_inf[0, 0] = np.inf
    with pytest.raises(ValueError, match="X_train contains infinity"):
        fit_rule(X_inf, detected, decomposition="outcome", min_prevalence=0.05)
    rule = fit_rule(X, detected, decomposition="outcome", min_prevalence=0.05)
    with pytest.raises(ValueError, match="detected_target has 9 values for 10 rows of X_target"):
        rule.evaluate(X[:10], X[:10], detected[:10], detected[:9])


def test_subgroup_losses_are_the_means_and_standard_errors_in_each_domain():
    X_source, X_target = grid_normal(11, 400, p=2), grid_normal(12, 300, p=2, shift=0.3)
    rng = np.random.default_rng(11)
    loss_source, loss_target = rng.random(400), rng.random(300)
    rule = fit_rule(X_source, X_source[:, 0] > 0.5, decomposition="covariate", min_prevalence=0.05)
    table = subgroup_losses([rule], X_source, loss_source, X_target, loss_target)
    assert list(table["decomposition"]) == ["all", "all", "covariate", "covariate"]
    assert list(table["subgroup"]) == ["overall", "overall", rule.text, rule.text]
    assert list(table["domain"]) == ["source", "target"] * 2
    in_source, in_target = X_source[:, 0] > 0.5, X_target[:, 0] > 0.5
    for row, values in enumerate([loss_source, loss_target, loss_source[in_source], loss_target[in_target]]):
        assert table.loc[row, "n"] == len(values)
        assert table.loc[row, "mean_loss"] == pytest.approx(values.mean())
        assert table.loc[row, "std_error"] == pytest.approx(stats.sem(values))


def test_subgroup_losses_of_an_empty_or_single_row_subgroup():
    X = np.arange(10.0).reshape(-1, 1)
    rule = SubgroupRule("outcome", (), ("x0",), False)  # "none"
    everyone = fit_rule(X, np.ones(10, bool), decomposition="covariate", min_prevalence=0.05)
    table = subgroup_losses([rule, everyone], X, np.arange(10.0), X[:1], [3.0])
    assert table["n"].tolist() == [10, 1, 0, 0, 10, 1]
    assert table.loc[1, "mean_loss"] == 3.0 and math.isnan(table.loc[1, "std_error"])
    assert math.isnan(table.loc[2, "mean_loss"]) and math.isnan(table.loc[2, "std_error"])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        subgroup_losses([rule], X, np.arange(9.0), X, np.arange(10.0))
