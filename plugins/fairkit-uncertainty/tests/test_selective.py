"""SelectiveClassifier: thresholds on out-of-fold confidences, equal coverage by group, learned confidence,
routing, abstention labels, input validation."""

import math

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_predict
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import LinearSVC

from fairkit.exceptions import FairkitWarning
from fairkit_uncertainty import SelectiveClassifier


def noisy_problem(n, seed):
    """Two groups; group b's rows lie nearer the decision boundary, so its confidences are lower."""
    rng = np.random.default_rng(seed)
    group = rng.choice(np.array(["a", "b"]), size=n, p=[0.6, 0.4])
    X = rng.normal(size=(n, 3)) * np.where(group == "b", 0.3, 1.0)[:, None]
    y = (X[:, 0] - 0.5 * X[:, 1] + 0.4 * rng.normal(size=n) > 0).astype(int)
    return X, y, group


def pocket_problem(n, seed):
    """Labels follow x0 > 0, except in a pocket (x1 > 1.2) where they are reversed: a linear model is
    confidently wrong there, which its probabilities cannot show and a learned confidence can."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
    pocket = X[:, 1] > 1.2
    y[pocket] = 1 - y[pocket]
    return X, y, pocket


def test_threshold_meets_the_coverage_on_out_of_fold_confidences():
    X, y, _ = noisy_problem(1000, 0)
    clf = SelectiveClassifier(confidence="max_proba", coverage=0.73).fit(X, y)
    oof = cross_val_predict(LogisticRegression(), X, y, cv=5, method="predict_proba").max(axis=1)
    assert clf.coverage_ == math.ceil(0.73 * 1000) / 1000  # distinct confidences: exactly ceil(c n) rows
    assert clf.coverage_ == np.mean(oof >= clf.thresholds_[0])
    assert np.sum(oof > clf.thresholds_[0]) == math.ceil(0.73 * 1000) - 1  # the threshold is the next row's


def test_coverage_carries_over_to_new_data_where_in_sample_thresholds_would_not():
    # a forest fits its training rows closely: in-sample confidences are near 1
    X, y, _ = noisy_problem(2000, 1)
    X_new, y_new, _ = noisy_problem(20_000, 2)
    forest = RandomForestClassifier(n_estimators=50, random_state=0)
    clf = SelectiveClassifier(forest, confidence="max_proba", coverage=0.8).fit(X, y)
    assert abs(clf.accepts(X_new).mean() - 0.8) < 0.03
    in_sample = clf.estimator_.predict_proba(X).max(axis=1)
    naive = np.quantile(in_sample, 0.2)  # the threshold from in-sample confidences
    assert np.mean(clf.estimator_.predict_proba(X_new).max(axis=1) >= naive) < 0.7


def test_equal_group_coverage_on_new_data():
    X, y, group = noisy_problem(4000, 3)
    X_new, _, group_new = noisy_problem(40_000, 4)
    shared = SelectiveClassifier(confidence="max_proba", coverage=0.8).fit(X, y, sensitive_features=group)
    equal = clone(shared).set_params(group_coverage="equal").fit(X, y, sensitive_features=group)
    assert shared.groups_.tolist() == ["a", "b"] and shared.thresholds_[0] == shared.thresholds_[1]
    assert shared.group_coverage_[0] - shared.group_coverage_[1] > 0.2  # the noisy group is rejected more
    np.testing.assert_allclose(equal.group_coverage_, 0.8, atol=1e-3)
    accepted = equal.accepts(X_new, sensitive_features=group_new)
    for g in ("a", "b"):
        assert abs(accepted[group_new == g].mean() - 0.8) < 0.02
    # the shared threshold's coverage gap is there on new data too
    accepted = shared.accepts(X_new)
    assert accepted[group_new == "a"].mean() - accepted[group_new == "b"].mean() > 0.2


def test_learned_confidence_finds_where_the_model_is_confidently_wrong():
    X, y, _ = pocket_problem(4000, 5)
    X_new, y_new, pocket_new = pocket_problem(20_000, 6)
    accuracy = {}
    for kind in ("learned", "max_proba"):
        clf = SelectiveClassifier(confidence=kind, coverage=0.8, random_state=0).fit(X, y)
        accepted = clf.accepts(X_new)
        accuracy[kind] = np.mean(clf.predict(X_new)[accepted] == y_new[accepted])
        if kind == "learned":
            assert accepted[pocket_new].mean() < 0.2  # the pocket is rejected
    assert accuracy["learned"] > accuracy["max_proba"] + 0.05


def test_the_confidence_model_learns_from_out_of_fold_correctness():
    # one nearest neighbour is right on every training row: in-sample correctness is all True, and a
    # confidence model trained on it would be a constant; out of fold there are errors to learn from
    X, y, _ = noisy_problem(600, 7)
    clf = SelectiveClassifier(KNeighborsClassifier(n_neighbors=1), coverage=0.8, random_state=0).fit(X, y)
    assert isinstance(clf.confidence_estimator_, HistGradientBoostingClassifier)
    assert np.unique(clf.predict_confidence(X)).size > 10


def test_a_model_right_on_every_row_gets_a_constant_confidence_and_answers_everything():
    X = np.repeat([[-5.0], [-4.0], [4.0], [5.0]], 25, axis=0)  # right on every row, out of fold too
    y = (X[:, 0] > 0).astype(int)
    clf = SelectiveClassifier(coverage=0.8, random_state=0).fit(X, y)
    assert clf.coverage_ == 1.0 and np.all(clf.predict_confidence(X) == 1.0)


def test_fallback_answers_the_rejected_rows_only():
    class CountingLogisticRegression(LogisticRegression):
        rows = []

        def predict(self, X):
            CountingLogisticRegression.rows.append(len(X))
            return super().predict(X)

    X, y, _ = noisy_problem(800, 8)
    clf = SelectiveClassifier(LogisticRegression(C=1e-3), confidence="margin", coverage=0.7,
                              fallback=CountingLogisticRegression()).fit(X, y)
    CountingLogisticRegression.rows.clear()
    accepted = clf.accepts(X)
    expected = np.where(accepted, clf.estimator_.predict(X), clf.fallback_.predict(X))
    CountingLogisticRegression.rows.clear()
    np.testing.assert_array_equal(clf.predict(X), expected)
    assert CountingLogisticRegression.rows == [int((~accepted).sum())]


def test_fallback_must_know_the_same_classes():
    X, y, _ = noisy_problem(200, 9)

    class Shifted(LogisticRegression):
        def fit(self, X, y):
            return super().fit(X, y + 1)

    with pytest.raises(ValueError, match="both must predict the same classes"):
        SelectiveClassifier(fallback=Shifted(), confidence="max_proba").fit(X, y)


def test_abstentions_get_the_reject_label():
    X, y, _ = noisy_problem(400, 10)
    clf = SelectiveClassifier(confidence="max_proba", coverage=0.5).fit(X, y)
    prediction = clf.predict(X)
    assert set(np.unique(prediction)) == {-1, 0, 1}
    np.testing.assert_array_equal(prediction == -1, ~clf.accepts(X))
    assert clf.score(X, y) == np.mean(prediction == y) < 0.55  # an abstention is an error
    words = np.array(["no", "yes"])[y]
    as_words = SelectiveClassifier(confidence="max_proba", coverage=0.5).fit(X, words).predict(X)
    assert as_words.dtype == object and set(as_words.tolist()) == {-1, "no", "yes"}
    named = SelectiveClassifier(confidence="max_proba", coverage=0.5, reject_label="abstain").fit(X, words)
    assert named.predict(X).dtype.kind == "U" and "abstain" in named.predict(X)


def test_a_reject_label_that_is_a_class_is_refused_only_where_it_could_be_predicted():
    X, y, _ = noisy_problem(200, 11)
    y = 2 * y - 1  # classes -1 and 1
    with pytest.raises(ValueError, match="reject_label=-1 is one of the classes"):
        SelectiveClassifier(confidence="max_proba", coverage=0.9).fit(X, y)
    SelectiveClassifier(confidence="max_proba", coverage=1.0).fit(X, y)
    SelectiveClassifier(confidence="max_proba", coverage=0.9, fallback=LogisticRegression()).fit(X, y)


def test_full_coverage_answers_every_new_row():
    X, y, _ = noisy_problem(300, 12)
    clf = SelectiveClassifier(confidence="max_proba", coverage=1.0).fit(X, y)
    far = np.array([[0.0, 0.0, 0.0], [1e-6, 0.0, 0.0]])  # at the decision boundary: least confident
    assert clf.accepts(far).all() and clf.thresholds_[0] == -np.inf


def test_ties_raise_the_coverage():
    X = np.repeat([[0.0], [1.0], [2.0], [3.0]], 25, axis=0)
    y = np.tile([0, 1], 50)
    y[75:] = 1  # the last block is sure
    clf = SelectiveClassifier(confidence="max_proba", coverage=0.3).fit(X, y)
    assert clf.coverage_ >= 0.3
    confidence = cross_val_predict(LogisticRegression(), X, y, cv=5, method="predict_proba").max(axis=1)
    assert clf.coverage_ == np.mean(confidence >= clf.thresholds_[0])


def test_multiclass_and_decision_function_confidences():
    rng = np.random.default_rng(13)
    X = rng.normal(size=(600, 2))
    y = np.digitize(X[:, 0] + 0.3 * rng.normal(size=600), [-0.5, 0.5])  # three classes
    for confidence in ("max_proba", "margin", "learned"):
        clf = SelectiveClassifier(confidence=confidence, coverage=0.6, random_state=0).fit(X, y)
        assert clf.classes_.tolist() == [0, 1, 2] and abs(clf.coverage_ - 0.6) < 0.01
    svc = SelectiveClassifier(LinearSVC(), confidence="margin", coverage=0.6).fit(X, y)
    scores = np.sort(svc.estimator_.decision_function(X), axis=1)
    np.testing.assert_allclose(svc.predict_confidence(X), scores[:, -1] - scores[:, -2])
    binary = (y == 2).astype(int)
    svc = SelectiveClassifier(LinearSVC(), confidence="margin", coverage=0.6).fit(X, binary)
    np.testing.assert_allclose(svc.predict_confidence(X), 2 * np.abs(svc.estimator_.decision_function(X)))
    with pytest.raises(ValueError, match="confidence='max_proba' needs predict_proba"):
        SelectiveClassifier(LinearSVC(), confidence="max_proba").fit(X, y)


def test_a_frozen_model_is_used_as_it_is():
    X, y, _ = noisy_problem(1000, 14)
    model = LogisticRegression().fit(X[:500], y[:500])
    clf = SelectiveClassifier(FrozenEstimator(model), confidence="max_proba", coverage=0.8)
    clf.fit(X[500:], y[500:])
    np.testing.assert_array_equal(clf.estimator_.predict(X), model.predict(X))
    expected = np.quantile(model.predict_proba(X[500:]).max(axis=1), 0.2, method="higher")
    assert clf.thresholds_[0] == pytest.approx(expected)


def test_sensitive_cols_are_not_features():
    X, y, group = noisy_problem(500, 15)
    frame = pd.DataFrame(X, columns=["x0", "x1", "x2"]).assign(group=group)
    clf = SelectiveClassifier(confidence="max_proba", coverage=0.8, group_coverage="equal",
                              sensitive_cols="group").fit(frame, y)
    assert clf.estimator_.n_features_in_ == 3 and clf.groups_.tolist() == ["a", "b"]
    direct = SelectiveClassifier(confidence="max_proba", coverage=0.8, group_coverage="equal")
    direct.fit(X, y, sensitive_features=group)
    np.testing.assert_array_equal(clf.predict(frame), direct.predict(X, sensitive_features=group))


def test_groups_at_prediction():
    X, y, group = noisy_problem(500, 16)
    equal = SelectiveClassifier(confidence="max_proba", group_coverage="equal")
    equal.fit(X, y, sensitive_features=group)
    with pytest.raises(ValueError, match="give them here too"):
        equal.predict(X)
    with pytest.raises(ValueError, match="not seen"):
        equal.predict(X, sensitive_features=np.where(group == "a", "c", group))
    shared = SelectiveClassifier(confidence="max_proba").fit(X, y, sensitive_features=group)
    np.testing.assert_array_equal(shared.predict(X), shared.predict(X, sensitive_features=group))
    with pytest.raises(ValueError, match="not seen"):
        shared.predict(X, sensitive_features=np.where(group == "a", "c", group))
    for group_coverage in (None, "equal"):
        with pytest.warns(FairkitWarning, match="no sensitive features"):
            alone = SelectiveClassifier(confidence="max_proba", group_coverage=group_coverage).fit(X, y)
        with pytest.raises(ValueError, match="fitted without sensitive features"):
            alone.predict(X, sensitive_features=group)


@pytest.mark.parametrize("params, message", [
    ({"coverage": 0}, "coverage must be a number in \\(0, 1\\]"),
    ({"coverage": 1.5}, "coverage must be a number in \\(0, 1\\]"),
    ({"confidence": "entropy"}, "confidence must be one of"),
    ({"group_coverage": "same"}, "group_coverage must be None or 'equal'"),
    ({"reject_label": None}, "reject_label must be a number or a string"),
    ({"fallback": "boosting"}, "fallback must be a scikit-learn classifier"),
    ({"confidence_estimator": LinearSVC()}, "confidence_estimator must have predict_proba"),
    ({"n_jobs": 1.5}, "n_jobs must be None or an int"),
])
def test_bad_parameters_are_refused_before_fitting(params, message):
    X, y, _ = noisy_problem(100, 17)
    clf = SelectiveClassifier(**params)
    with pytest.raises(ValueError, match=message):
        clf.fit(X, y)
    assert not hasattr(clf, "estimator_")
