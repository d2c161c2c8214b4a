"""make_fairness_scorer: names, sign, and routing of per-fold sensitive features."""

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from fairkit.datasets import make_fair_classification
from fairkit.metrics import (
    demographic_parity_difference,
    demographic_parity_ratio,
    equalized_odds_difference,
    make_fairness_scorer,
)


@pytest.fixture(autouse=True)
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


@pytest.fixture
def data():
    return make_fair_classification(200, 4, label_bias=1.0, feature_bias=0.5, random_state=0)


def test_grid_search_scorer_gets_per_fold_sensitive_features(data):
    X, y, group = data
    row = np.arange(len(y))
    received = []

    def recording_dp(y_true, y_pred, *, sensitive_features):
        received.append(np.asarray(sensitive_features)[:, 1].astype(int))
        return demographic_parity_difference(y_true, y_pred,
                                             sensitive_features=np.asarray(sensitive_features)[:, 0])

    cv = KFold(3)
    search = GridSearchCV(
        make_pipeline(StandardScaler(), LogisticRegression()), {"logisticregression__C": [0.1, 10]},
        scoring={"acc": "accuracy", "dp": make_fairness_scorer(recording_dp)}, refit="acc", cv=cv)
    search.fit(X, y, sensitive_features=np.c_[group, row])

    folds = [test for _, test in cv.split(X)]
    assert len(received) == 2 * len(folds)
    for i, rows in enumerate(received):
        np.testing.assert_array_equal(rows, folds[i % len(folds)])
    # the reported score is minus the gap of the model fitted on the other folds
    for c_index, C in enumerate([0.1, 10]):
        for k, (train, test) in enumerate(cv.split(X)):
            model = clone(search.estimator).set_params(logisticregression__C=C)
            model.fit(X[train], y[train])
            gap = demographic_parity_difference(y[test], model.predict(X[test]),
                                                sensitive_features=group[test])
            assert search.cv_results_[f"split{k}_test_dp"][c_index] == pytest.approx(-gap)


def test_scorer_by_name_and_sign(data):
    X, y, group = data
    model = LogisticRegression().fit(X, y)
    y_pred = model.predict(X)
    dp = make_fairness_scorer("demographic_parity_difference")
    ratio = make_fairness_scorer("demographic_parity_ratio")
    assert dp(model, X, y, sensitive_features=group) == -demographic_parity_difference(
        y, y_pred, sensitive_features=group)
    assert ratio(model, X, y, sensitive_features=group) == demographic_parity_ratio(
        y, y_pred, sensitive_features=group)
    assert dp(model, X, y, sensitive_features=group) < 0 < ratio(model, X, y,
                                                                 sensitive_features=group)


def test_scorer_forwards_metric_arguments(data):
    X, y, group = data
    model = LogisticRegression().fit(X, y)
    scorer = make_fairness_scorer(equalized_odds_difference, agg="mean")
    assert scorer(model, X, y, sensitive_features=group) == -equalized_odds_difference(
        y, model.predict(X), sensitive_features=group, agg="mean")


def test_scorer_in_cross_validate(data):
    X, y, group = data
    result = cross_validate(LogisticRegression(), X, y, cv=4, params={"sensitive_features": group},
                            scoring=make_fairness_scorer("equalized_odds_deviation"))
    assert result["test_score"].shape == (4,)
    assert (result["test_score"] <= 0).all()


def test_scorer_can_be_made_without_routing():
    with sklearn.config_context(enable_metadata_routing=False):
        scorer = make_fairness_scorer("true_positive_rate_difference")
    assert scorer.get_metadata_routing().score.requests["sensitive_features"] is True


def test_bad_metrics_raise():
    with pytest.raises(ValueError, match="Unknown fairness metric 'no_such_metric'"):
        make_fairness_scorer("no_such_metric")
    with pytest.raises(ValueError, match="takes no sensitive_features"):
        make_fairness_scorer(lambda y_true, y_pred: 0.0)
    with pytest.raises(ValueError, match="metric name or a function"):
        make_fairness_scorer(3)
