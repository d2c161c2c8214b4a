"""GroupBalancedClassifier: the weights 1/n_g, the resample's frequencies, routing, refusals, the checks."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import chisquare
from sklearn import config_context
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold, cross_validate
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from fairkit import FairkitWarning
from fairkit.utils.estimator_checks import parametrize_with_checks
from fairkit_subgroups._balanced import GroupBalancedClassifier


class Recorder(ClassifierMixin, BaseEstimator):
    """Keeps what it was fitted on; predicts ``classes_[1]`` where the first column of X is positive."""

    def fit(self, X, y, sample_weight=None, tag=None):
        self.X_, self.y_, self.sample_weight_, self.tag_ = X, np.asarray(y), sample_weight, tag
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return self.classes_[(np.asarray(X, dtype=float)[:, 0] > 0).astype(int)]


class GroupAwareRecorder(Recorder):
    """A Recorder whose fit also takes sensitive features (as a fairkit estimator's does)."""

    def fit(self, X, y, sample_weight=None, sensitive_features=None):
        self.sensitive_features_ = sensitive_features
        return super().fit(X, y, sample_weight=sample_weight)


class NoWeights(Recorder):
    """A Recorder whose fit takes no sample_weight."""

    def fit(self, X, y):
        return super().fit(X, y)


def hand_weights(cells):
    """n / (k · n_c) for each sample of a cell of size n_c, k cells: counted with pandas, not the code."""
    cells = pd.Series([str(c) for c in cells])
    sizes = cells.map(cells.value_counts())
    return (len(cells) / (cells.nunique() * sizes)).to_numpy()


def fitted_state(estimator):
    return {key: value for key, value in vars(estimator).items() if key.endswith("_")}


# Known answers: the weights the inner estimator receives

GROUPS = np.array(["a", "a", "b", "b", "b", "b", "b", "b"])
X8 = np.arange(16.0).reshape(8, 2) - 7
Y8 = np.array([0, 1, 0, 1, 0, 1, 1, 1])


def test_reweight_gives_each_sample_one_over_its_group_size_scaled_to_mean_one():
    clf = GroupBalancedClassifier(Recorder()).fit(X8, Y8, sensitive_features=GROUPS)
    # 8 samples, 2 groups: a (2 samples) gets 8 / (2 · 2) = 2, b (6 samples) 8 / (2 · 6) = 2/3
    np.testing.assert_allclose(clf.estimator_.sample_weight_, [2, 2] + [2 / 3] * 6)
    np.testing.assert_allclose(clf.group_weights_, [2, 2 / 3])
    assert clf.groups_.tolist() == ["a", "b"]
    np.testing.assert_array_equal(clf.estimator_.X_, X8)  # all samples, in order
    assert clf.estimator_.sample_weight_.mean() == pytest.approx(1.0)


def test_several_sensitive_columns_balance_their_intersection():
    sensitive = pd.DataFrame({"sex": ["F"] * 4 + ["M"] * 8, "band": [0, 0, 0, 1, 0] + [1] * 7})
    X, y = np.arange(24.0).reshape(12, 2), np.tile([0, 1], 6)
    clf = GroupBalancedClassifier(Recorder()).fit(X, y, sensitive_features=sensitive)
    # cells (F,0): 3, (F,1): 1, (M,0): 1, (M,1): 7 of 12 samples: 12 / (4 · size)
    assert clf.groups_.tolist() == [("F", 0), ("F", 1), ("M", 0), ("M", 1)]
    np.testing.assert_allclose(clf.group_weights_, [1, 3, 3, 3 / 7])
    np.testing.assert_allclose(clf.estimator_.sample_weight_, [1, 1, 1, 3, 3] + [3 / 7] * 7)


def test_group_and_class_balances_the_observed_cells_of_group_and_label():
    groups = np.array(["a"] * 4 + ["b"] * 4 + ["c"] * 2)
    y = np.array([0, 0, 0, 1, 0, 1, 1, 1, 0, 0])
    clf = GroupBalancedClassifier(Recorder(), balance="group_and_class").fit(
        np.ones((10, 1)), y, sensitive_features=groups)
    # 5 observed cells of 10 samples: (a,0) 3 → 10/15, (a,1) 1 → 2, (b,0) 1 → 2, (b,1) 3 → 10/15,
    # (c,0) 2 → 1; (c,1) is empty → 0
    np.testing.assert_allclose(clf.group_weights_, [[2 / 3, 2], [2, 2 / 3], [1, 0]])
    expected = hand_weights(list(zip(groups, y, strict=True)))
    np.testing.assert_allclose(clf.estimator_.sample_weight_, expected)
    np.testing.assert_allclose(clf.estimator_.sample_weight_[[0, 3, 4, 8]], [2 / 3, 2, 2, 1])


def test_without_sensitive_features_all_samples_are_one_group():
    with pytest.warns(FairkitWarning, match="got no sensitive features"):
        clf = GroupBalancedClassifier(Recorder()).fit(X8, Y8)
    np.testing.assert_array_equal(clf.estimator_.sample_weight_, np.ones(8))
    assert len(clf.groups_) == 1
    with pytest.warns(FairkitWarning, match="got no sensitive features"):
        by_class = GroupBalancedClassifier(Recorder(), balance="group_and_class").fit(X8, Y8)
    # one group split by class: 3 zeros get 8 / (2 · 3), 5 ones 8 / (2 · 5)
    np.testing.assert_allclose(by_class.estimator_.sample_weight_, np.where(Y8 == 0, 4 / 3, 4 / 5))


def test_sample_weight_multiplies_the_balancing_weights_of_weighted_group_sizes():
    groups, s = np.array(["a", "a", "b", "b", "b", "b"]), np.array([1.0, 3.0, 2.0, 2.0, 2.0, 0.0])
    clf = GroupBalancedClassifier(Recorder()).fit(np.ones((6, 1)), [0, 1, 0, 1, 0, 1],
                                                  sensitive_features=groups, sample_weight=s)
    # group weights 4 and 6, total 10: factors 10 / (2 · 4) = 1.25 and 10 / (2 · 6) = 5/6
    np.testing.assert_allclose(clf.group_weights_, [1.25, 5 / 6])
    np.testing.assert_allclose(clf.estimator_.sample_weight_, [1.25, 3.75, 5 / 3, 5 / 3, 5 / 3, 0])
    np.testing.assert_array_equal(s, [1.0, 3.0, 2.0, 2.0, 2.0, 0.0])  # the user's array is untouched


def test_integer_sample_weights_are_repeated_samples():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] + rng.normal(size=40) > 0).astype(int)
    groups = np.where(rng.random(40) < 0.3, "a", "b")
    counts = rng.integers(0, 4, size=40)
    repeated = np.repeat(np.arange(40), counts)
    for balance in ("group", "group_and_class"):
        model = GroupBalancedClassifier(LogisticRegression(tol=1e-10), balance=balance)
        weighted = clone(model).fit(X, y, sensitive_features=groups, sample_weight=counts)
        copies = clone(model).fit(X[repeated], y[repeated], sensitive_features=groups[repeated])
        np.testing.assert_allclose(weighted.predict_proba(X), copies.predict_proba(X), rtol=1e-6)
        np.testing.assert_allclose(weighted.group_weights_, copies.group_weights_)


def test_reweight_is_the_estimator_fitted_with_those_weights():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    groups = np.where(rng.random(120) < 0.2, "minority", "majority")
    y = (X[:, 0] + (groups == "minority") + rng.normal(size=120) > 0.5).astype(int)
    for estimator in (LogisticRegression(C=0.5), LinearSVC(random_state=0)):
        clf = GroupBalancedClassifier(estimator).fit(X, y, sensitive_features=groups)
        direct = clone(estimator).fit(X, y, sample_weight=hand_weights(groups))
        np.testing.assert_allclose(clf.decision_function(X), direct.decision_function(X), rtol=1e-8)
        np.testing.assert_array_equal(clf.predict(X), direct.predict(X))
        assert clf.score(X, y) == direct.score(X, y)


# The resample

def drawn_rows(clf):
    """The training rows the inner Recorder was fitted on (column 0 of X holds the row number)."""
    return clf.estimator_.X_[:, 0].astype(int)


def test_resample_draws_each_group_equally_often_and_rows_uniformly_within_a_group():
    groups = np.array(["a"] * 180 + ["b"] * 20)
    X, y = np.column_stack([np.arange(200.0), np.ones(200)]), np.tile([0, 1], 100)
    counts = np.zeros(200)
    for seed in range(100):
        clf = GroupBalancedClassifier(Recorder(), mode="resample", random_state=seed)
        rows = drawn_rows(clf.fit(X, y, sensitive_features=groups))
        assert len(rows) == 200 and clf.estimator_.sample_weight_ is None
        counts += np.bincount(rows, minlength=200)
    # 20,000 draws, half from each group (share SD 0.0035; bound 5 SD)
    assert abs(counts[180:].sum() / counts.sum() - 0.5) < 0.018
    assert chisquare(counts[:180]).pvalue > 1e-4 and chisquare(counts[180:]).pvalue > 1e-4


def test_resample_by_group_and_class_draws_every_cell_equally_often():
    cells = np.repeat(np.arange(4), [150, 30, 15, 5])
    groups, y = cells // 2, cells % 2
    X = np.column_stack([np.arange(200.0), np.ones(200)])
    counts = np.zeros(4)
    for seed in range(40):
        clf = GroupBalancedClassifier(Recorder(), mode="resample", balance="group_and_class",
                                      random_state=seed)
        counts += np.bincount(cells[drawn_rows(clf.fit(X, y, sensitive_features=groups))], minlength=4)
    np.testing.assert_allclose(counts / counts.sum(), 0.25, atol=0.025)  # SD 0.0048 of 8,000 draws


def test_resample_draws_in_proportion_to_sample_weight_within_a_group():
    groups = np.repeat(["a", "b"], 100)
    s = np.concatenate([np.ones(90), np.zeros(10), np.full(50, 3.0), np.ones(50)])
    X, y = np.column_stack([np.arange(200.0), np.ones(200)]), np.tile([0, 1], 100)
    counts = np.zeros(200)
    for seed in range(40):
        clf = GroupBalancedClassifier(Recorder(), mode="resample", random_state=seed)
        counts += np.bincount(drawn_rows(clf.fit(X, y, sensitive_features=groups, sample_weight=s)),
                              minlength=200)
    assert counts[90:100].sum() == 0  # weight 0: never drawn
    # a: half the draws; b's weight-3 rows three times as often as its weight-1 rows
    shares = [counts[:100].sum(), counts[100:150].sum(), counts[150:].sum()]
    assert chisquare(shares, np.array([0.5, 0.375, 0.125]) * counts.sum()).pvalue > 1e-4


def test_resample_is_reproducible_with_a_seed_and_advances_a_random_state_instance():
    X, y = np.column_stack([np.arange(60.0), np.ones(60)]), np.tile([0, 1], 30)
    groups = np.repeat([0, 1], [45, 15])
    fit = lambda random_state: drawn_rows(GroupBalancedClassifier(  # noqa: E731
        Recorder(), mode="resample", random_state=random_state).fit(X, y, sensitive_features=groups))
    np.testing.assert_array_equal(fit(7), fit(7))
    assert not np.array_equal(fit(7), fit(8))
    state = np.random.RandomState(0)
    assert not np.array_equal(fit(state), fit(state))


def test_resample_works_for_an_estimator_without_sample_weight():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 2))
    y = (X[:, 0] > 0).astype(int)
    groups = np.repeat(["a", "b"], [70, 10])
    clf = GroupBalancedClassifier(KNeighborsClassifier(3), mode="resample", random_state=0)
    assert clf.fit(X, y, sensitive_features=groups).predict_proba(X).shape == (80, 2)
    with pytest.raises(ValueError, match="KNeighborsClassifier.fit takes no sample_weight.*mode='resample'"):
        GroupBalancedClassifier(KNeighborsClassifier(3)).fit(X, y, sensitive_features=groups)


def test_resample_takes_the_rows_of_per_sample_fit_params_with_X():
    X, y = np.column_stack([np.arange(30.0), np.ones(30)]), np.tile([0, 1], 15)
    groups = np.repeat([0, 1], [20, 10])
    tag = np.arange(30) * 10
    clf = GroupBalancedClassifier(Recorder(), mode="resample", random_state=0)
    clf.fit(X, y, sensitive_features=groups, tag=tag)
    np.testing.assert_array_equal(clf.estimator_.tag_, tag[drawn_rows(clf)])
    np.testing.assert_array_equal(clf.estimator_.y_, y[drawn_rows(clf)])
    with config_context(enable_metadata_routing=True):
        inner = GroupAwareRecorder().set_fit_request(sensitive_features=True)
        clf = GroupBalancedClassifier(inner, mode="resample", random_state=0).fit(
            X, y, sensitive_features=groups)
    np.testing.assert_array_equal(clf.estimator_.sensitive_features_, groups[drawn_rows(clf)])


def test_a_resample_without_some_class_is_refused():
    y = np.array(["common"] * 29 + ["rare"])
    s = np.ones(30)
    s[-1] = 1e-12
    clf = GroupBalancedClassifier(Recorder(), mode="resample", random_state=0)
    with pytest.raises(ValueError, match="drew no sample of class 'rare' \\(probability 3.45e-14 per draw\\) "
                                         "in 30 draws.*balance='group_and_class'"):
        clf.fit(np.ones((30, 1)), y, sample_weight=s, sensitive_features=np.zeros(30))
    assert fitted_state(clf) == {}


# sensitive_cols and delegation

def test_sensitive_cols_are_removed_before_the_estimator_sees_X():
    X = pd.DataFrame({"sex": [1.0, 2.0] * 4, "x0": np.arange(8.0) - 3.5, "x1": np.ones(8)})
    clf = GroupBalancedClassifier(Recorder(), sensitive_cols="sex").fit(X, Y8)
    assert list(clf.estimator_.X_.columns) == ["x0", "x1"]
    assert clf.groups_.tolist() == [1.0, 2.0]
    np.testing.assert_allclose(clf.estimator_.sample_weight_, np.ones(8))  # 4 and 4
    assert clf.n_features_in_ == 3 and clf.feature_names_in_.tolist() == ["sex", "x0", "x1"]
    # Recorder predicts from the first column it gets: x0's sign, not sex (always positive)
    np.testing.assert_array_equal(clf.predict(X), (X["x0"] > 0).astype(int))
    by_position = GroupBalancedClassifier(Recorder(), sensitive_cols=[0]).fit(X.to_numpy(), Y8)
    np.testing.assert_array_equal(by_position.estimator_.X_, X[["x0", "x1"]].to_numpy())
    np.testing.assert_array_equal(by_position.predict(X.to_numpy()), (X["x0"] > 0).astype(int))
    with pytest.raises(ValueError, match="X has 2 features, but GroupBalancedClassifier is expecting 3"):
        by_position.predict(X.to_numpy()[:, 1:])


def test_only_the_methods_of_the_estimator_are_offered():
    svc, logistic = GroupBalancedClassifier(LinearSVC()), GroupBalancedClassifier(LogisticRegression())
    assert not hasattr(svc, "predict_proba") and hasattr(svc, "decision_function")
    assert hasattr(logistic, "predict_proba") and hasattr(logistic, "predict_log_proba")
    assert not hasattr(GroupBalancedClassifier(Recorder()), "decision_function")
    X, y = X8, np.array(["no", "yes", "no", "yes", "no", "yes", "yes", "yes"])
    fitted = logistic.fit(X, y, sensitive_features=GROUPS)
    assert fitted.classes_.tolist() == ["no", "yes"]
    np.testing.assert_allclose(fitted.predict_log_proba(X), np.log(fitted.predict_proba(X)))


# Pipeline, cross-validation and GridSearchCV with metadata routing

def test_routed_sensitive_features_and_sample_weight_reach_fit_through_a_pipeline():
    s = np.arange(1.0, 9.0)
    with config_context(enable_metadata_routing=True):
        step = GroupBalancedClassifier(Recorder()).set_fit_request(sensitive_features=True,
                                                                    sample_weight=True)
        scaler = StandardScaler().set_fit_request(sample_weight=False)
        pipe = make_pipeline(scaler, step).fit(X8, Y8, sensitive_features=GROUPS, sample_weight=s)
    # group a weighs 1 + 2 = 3, b 3 + ... + 8 = 33, total 36: factors 36 / 6 = 6 and 36 / 66
    np.testing.assert_allclose(pipe[-1].estimator_.sample_weight_, s * np.repeat([6, 36 / 66], [2, 6]))


def test_each_fold_is_balanced_on_its_own_groups():
    groups = np.array(["a"] * 2 + ["b"] * 6 + ["a"] * 6 + ["b"] * 2)
    X, y = np.column_stack([np.arange(16.0), np.ones(16)]), np.tile([0, 1], 8)
    with config_context(enable_metadata_routing=True):
        clf = GroupBalancedClassifier(Recorder()).set_fit_request(sensitive_features=True)
        folds = cross_validate(clf, X, y, cv=KFold(2), params={"sensitive_features": groups},
                               return_estimator=True)["estimator"]
    # the first fold is fitted on the second half, the second on the first
    np.testing.assert_allclose(folds[0].estimator_.sample_weight_, hand_weights(groups[8:]))
    np.testing.assert_allclose(folds[1].estimator_.sample_weight_, hand_weights(groups[:8]))
    np.testing.assert_allclose(folds[0].group_weights_, [2 / 3, 2])


def test_grid_search_over_mode_and_the_estimators_parameters():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(90, 2))
    groups = np.repeat(["a", "b"], [70, 20])
    y = (X[:, 0] + rng.normal(size=90) > 0).astype(int)
    with config_context(enable_metadata_routing=True):
        clf = GroupBalancedClassifier(LogisticRegression(), random_state=0).set_fit_request(
            sensitive_features=True)
        search = GridSearchCV(clf, {"mode": ["reweight", "resample"], "estimator__C": [0.1, 1.0]}, cv=3)
        search.fit(X, y, sensitive_features=groups)
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()
    assert search.best_estimator_.groups_.tolist() == ["a", "b"]
    np.testing.assert_allclose(search.best_estimator_.group_weights_, [90 / 140, 90 / 40])


# Refusals: a clear error that changes nothing

REFUSALS = [
    ({"mode": "weights"}, {}, r"mode must be one of \['reweight', 'resample'\], got 'weights'"),
    ({"balance": "class"}, {}, r"balance must be one of \['group', 'group_and_class'\], got 'class'"),
    ({"sensitive_cols": 0}, {"sensitive_features": GROUPS}, "got sensitive features twice"),
    ({}, {"sensitive_features": GROUPS[:-1]}, "sensitive_features has 7 rows but X has 8 samples"),
    ({}, {"y": Y8[:-1]}, "inconsistent numbers of samples"),
    ({"estimator": NoWeights()}, {}, "NoWeights.fit takes no sample_weight.*Use mode='resample'"),
    ({"estimator": LinearRegression()}, {}, "estimator must be a scikit-learn classifier"),
    ({}, {"sample_weight": -np.ones(8)}, "sample_weight holds 8 negative value"),
    ({}, {"sample_weight": np.ones(7)}, r"sample_weight has shape \(7,\) but X has 8 samples"),
    ({"sensitive_cols": 2.5}, {"sensitive_features": None}, "sensitive_cols must be None, a column name"),
    ({"sensitive_cols": [5]}, {"sensitive_features": None}, r"sensitive_cols positions \[5\] are out of"),
    ({"random_state": -1}, {}, "random_state must be None, an int"),
]


@pytest.mark.parametrize("params, fit_args, match", REFUSALS,
                         ids=[match.split(" ")[0] + str(i) for i, (_, _, match) in enumerate(REFUSALS)])
def test_bad_input_is_refused_and_changes_nothing(params, fit_args, match):
    fit_args = {"y": Y8, "sensitive_features": GROUPS, **fit_args}
    fresh = GroupBalancedClassifier(Recorder()).set_params(**params)
    with pytest.raises(ValueError, match=match):
        fresh.fit(X8, **fit_args)
    assert fitted_state(fresh) == {}
    fitted = GroupBalancedClassifier(Recorder()).fit(X8, Y8, sensitive_features=GROUPS)
    before = fitted_state(fitted)
    with pytest.raises(ValueError, match=match):
        fitted.set_params(**params).fit(X8, **fit_args)
    after = fitted_state(fitted)
    assert after.keys() == before.keys() and all(after[key] is before[key] for key in before)


# scikit-learn's common checks and fairkit's fairness checks

RESAMPLED = "mode='resample' fits on a random resample of the rows"
NOT_REPEATED = f"{RESAMPLED}, whose draws differ from those from the repeated rows"
RESAMPLE_FAILURES = {
    "check_sample_weight_equivalence_on_dense_data": NOT_REPEATED,
    "check_sample_weight_equivalence_on_sparse_data": NOT_REPEATED,
}


def expected_failures(estimator):
    return RESAMPLE_FAILURES if estimator.mode == "resample" else {}


@parametrize_with_checks([GroupBalancedClassifier(**p) for p in GroupBalancedClassifier.get_test_params()],
                         expected_failed_checks=expected_failures)
def test_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize("seed", range(4))
def test_resample_refuses_a_value_that_is_no_string_or_number_in_any_row(seed):
    """Whether or not the row is drawn (scikit-learn's check_dtype_object passed or failed by the draw)."""
    X = np.random.default_rng(seed).normal(size=(40, 3)).astype(object)
    y = np.arange(40) % 2
    X[seed * 7, 1] = {"foo": "bar"}
    model = GroupBalancedClassifier(LogisticRegression(), mode="resample", random_state=seed)
    with pytest.raises(TypeError, match=rf"X\[{seed * 7}, 1\] is \{{'foo': 'bar'\}}"):
        model.fit(X, y)
