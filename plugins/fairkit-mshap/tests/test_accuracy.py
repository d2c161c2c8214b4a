"""Accuracy functions: the power law's closed form, and a scikit-learn model retrained per profile."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import make_classification
from sklearn.linear_model import LinearRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

from fairkit_mshap import LearningAccuracy, PowerLawAccuracy

# PowerLawAccuracy


@pytest.mark.parametrize(("alpha", "beta"), [(1.0, 0.5), (0.3, 1.0), (0.8, 0.1)])
def test_power_law_is_one_minus_alpha_times_total_plus_one_to_the_minus_beta(alpha, beta):
    S = np.array([[0.0, 0.0, 0.0], [1.0, 2.0, 0.0], [3.0, 0.5, 4.5]])
    expected = 1 - alpha * (S.sum(axis=1) + 1) ** -beta
    accuracy = PowerLawAccuracy(alpha, beta)
    np.testing.assert_allclose(accuracy(S), np.repeat(expected[:, None], 3, axis=1), rtol=1e-14)
    np.testing.assert_allclose(accuracy([3.0, 0.5, 4.5]), [expected[[2, 2, 2]]], rtol=1e-14)


def test_power_law_by_hand():
    # 1 - (3 + 1)^(-1/2) = 1/2; 1 - 0.5 (8 + 1)^(-1) = 17/18
    np.testing.assert_allclose(PowerLawAccuracy(1.0, 0.5)([[1.0, 2.0]]), [[0.5, 0.5]], rtol=1e-15)
    np.testing.assert_allclose(PowerLawAccuracy(0.5, 1.0)([[8.0]]), [[17 / 18]], rtol=1e-15)


@pytest.mark.parametrize(("alpha", "beta", "match"), [
    (0.0, 0.5, "alpha"), (1.5, 0.5, "alpha"), (-0.1, 0.5, "alpha"), (0.5, 0.0, "beta"), (0.5, -1.0, "beta")])
def test_power_law_parameters_are_validated(alpha, beta, match):
    with pytest.raises(ValueError, match=match):
        PowerLawAccuracy(alpha, beta)


@pytest.mark.parametrize("S", [[[1.0, -0.5]], [[1.0, 2e4]], [[np.nan, 1.0]], np.ones((2, 2, 2))])
def test_power_law_refuses_negative_too_large_or_malformed_contributions(S):
    with pytest.raises(ValueError, match="s must"):
        PowerLawAccuracy(max_contribution=1e4)(S)


# LearningAccuracy: three agents of a 3-class problem; agent 2 holds a single class

X, y = make_classification(n_samples=240, n_features=4, n_informative=3, n_redundant=0, n_classes=3,
                           n_clusters_per_class=1, random_state=0)
ONE_CLASS = np.flatnonzero(y[110:180] == 2) + 110
PARTITIONS = [(X[:50], y[:50]), (X[50:110], y[50:110]), (X[ONE_CLASS], y[ONE_CLASS])]
X_TEST, Y_TEST = X[180:], y[180:]
TEST_AGENTS = np.arange(60) % 3
OWN_TEST_ROWS = [np.equal(TEST_AGENTS, agent) for agent in range(3)]


class RecordingClassifier(ClassifierMixin, BaseEstimator):
    """Gaussian naive Bayes that records, in a class-level list, the training rows of every fit."""

    fits = []

    def fit(self, X, y):
        RecordingClassifier.fits.append((X.copy(), y.copy()))
        self.model_ = GaussianNB().fit(X, y)
        self.classes_ = self.model_.classes_
        return self

    def predict(self, X):
        return self.model_.predict(X)


@pytest.fixture
def recorder():
    RecordingClassifier.fits = []
    return RecordingClassifier


def learning(estimator=None, **kwargs):
    kwargs = {"test_agents": TEST_AGENTS, "random_state": 0} | kwargs
    estimator = RecordingClassifier() if estimator is None else estimator
    return LearningAccuracy(estimator, PARTITIONS, X_TEST, Y_TEST, **kwargs)


def rows_of(X_part, X_fit):
    """Which rows of ``X_part`` (by position) appear in ``X_fit``."""
    fitted = {row.tobytes() for row in X_fit}
    return {k for k, row in enumerate(X_part) if row.tobytes() in fitted}


def test_the_model_is_fitted_on_round_s_times_m_rows_of_each_agent(recorder):
    acc = learning()
    acc([[0.5, 0.25, 1.0]])
    (X_fit, _), = recorder.fits
    counts = [len(rows_of(X_i, X_fit)) for X_i, _ in PARTITIONS]
    assert counts == [25, 15, len(PARTITIONS[2][1])] and len(X_fit) == sum(counts)


def test_a_larger_contribution_contains_a_smaller_one(recorder):
    acc = learning()
    fractions = [0.1, 0.3, 0.6, 1.0]
    acc([[f, f, 0.0] for f in fractions])
    for agent in (0, 1):
        used = [rows_of(PARTITIONS[agent][0], X_fit) for X_fit, _ in recorder.fits]
        assert [len(u) for u in used] == [round(f * len(PARTITIONS[agent][1])) for f in fractions]
        assert all(small < large for small, large in zip(used, used[1:], strict=False))


def test_the_cache_fits_each_contributed_row_count_once(recorder):
    acc = learning()
    first = acc([[1.0, 0.5, 0.0], [0.5, 0.5, 0.5]])
    assert acc.n_fits_ == len(recorder.fits) == 2
    # the same profiles, and one that rounds to the same rows (0.502 * 50 -> 25 rows, 0.505 * 60 -> 30)
    again = acc([[0.5, 0.5, 0.5], [1.0, 0.5, 0.0], [0.502, 0.505, 0.5]])
    assert acc.n_fits_ == len(recorder.fits) == 2
    np.testing.assert_array_equal(again, first[[1, 0, 1]])


def test_no_data_gives_chance_accuracy_without_a_fit(recorder):
    acc = learning()
    np.testing.assert_allclose(acc([0.0, 0.0, 0.0]), [[1 / 3] * 3], rtol=1e-15)
    assert acc.n_fits_ == 0 and recorder.fits == []


def test_one_contributed_class_gives_that_class_rate_on_each_agent_test_rows(recorder):
    acc = learning()
    expected = [np.mean(Y_TEST[own] == 2) for own in OWN_TEST_ROWS]
    np.testing.assert_allclose(acc([0.0, 0.0, 1.0]), [expected], rtol=1e-15)
    assert recorder.fits == []  # predicting the one class needs no model


def test_each_agent_scores_the_model_on_her_own_test_rows(recorder):
    acc = learning()
    got = acc([0.6, 1.0, 0.5])
    (X_fit, y_fit), = recorder.fits
    predictions = GaussianNB().fit(X_fit, y_fit).predict(X_TEST)
    expected = [np.mean(predictions[own] == Y_TEST[own]) for own in OWN_TEST_ROWS]
    np.testing.assert_allclose(got, [expected], rtol=1e-15)
    assert len(set(expected)) > 1  # the agents do value the model differently here
    shared = learning(test_agents=None)([0.6, 1.0, 0.5])
    np.testing.assert_allclose(shared, [[np.mean(predictions == Y_TEST)] * 3], rtol=1e-15)


def test_the_estimator_random_state_is_seeded_and_reproducible():
    tree = DecisionTreeClassifier(max_features=1)
    profiles = [[1.0, 1.0, 1.0], [0.5, 0.75, 0.25], [1.0, 0.25, 0.0]]
    first, second = learning(tree), learning(tree)
    assert isinstance(first.estimator.random_state, int) and tree.random_state is None
    np.testing.assert_array_equal(first(profiles), second(profiles))


def test_one_and_two_jobs_give_the_same_accuracies():
    tree = DecisionTreeClassifier(max_features=1)
    profiles = [[1.0, 1.0, 1.0], [0.5, 0.75, 0.25], [1.0, 0.25, 0.0], [0.25, 0.5, 1.0]]
    np.testing.assert_array_equal(learning(tree, n_jobs=1)(profiles), learning(tree, n_jobs=2)(profiles))


# Bad input

def test_a_regressor_is_refused():
    with pytest.raises(ValueError, match="estimator must be a scikit-learn classifier"):
        learning(LinearRegression())


def test_probabilities_as_y_test_are_refused():
    with pytest.raises(ValueError, match="y_test must be class labels.*not probabilities"):
        LearningAccuracy(GaussianNB(), PARTITIONS, X_TEST, np.linspace(0.01, 0.99, len(Y_TEST)))


@pytest.mark.parametrize("test_agents", [np.arange(60) % 2, np.arange(60) % 4, np.arange(59) % 3,
                                         (np.arange(60) % 3).astype(float), np.arange(60) % 3 - 1])
def test_bad_test_agents_are_refused(test_agents):
    with pytest.raises(ValueError, match="test_agents must give each test row's agent"):
        learning(test_agents=test_agents)


def test_misaligned_pandas_indexes_of_a_partition_are_refused():
    X_0 = pd.DataFrame(PARTITIONS[0][0])
    y_0 = pd.Series(PARTITIONS[0][1], index=X_0.index[::-1])
    with pytest.raises(ValueError, match=r"partitions\[0\] X and partitions\[0\] y carry different pandas"):
        LearningAccuracy(GaussianNB(), [(X_0, y_0), PARTITIONS[1]], X_TEST, Y_TEST)


@pytest.mark.parametrize("S", [[1.0, 1.0], [[1.0, 1.0, 1.0, 1.0]], [1.0, 1.5, 0.0], [-0.1, 0.0, 0.0]])
def test_profiles_of_the_wrong_shape_or_range_are_refused(recorder, S):
    acc = learning()
    with pytest.raises(ValueError, match="s must"):
        acc(S)
    assert acc.n_fits_ == 0 and recorder.fits == []
