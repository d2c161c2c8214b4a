"""Fixtures: a classifier whose scores are the first column of X, and the plug-in quantities of a rule."""

from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin


class ScoreColumn(ClassifierMixin, BaseEstimator):
    """Scores P(Y=1 | x) = x[:, 0]: lets a test hand the fair rule any scores it wants."""

    def fit(self, X, y, sample_weight=None):
        self.classes_ = np.unique(y)
        self.fit_sample_weight_ = sample_weight
        return self

    def predict_proba(self, X):
        s = np.asarray(X, dtype=float)[:, 0]
        return np.column_stack([1.0 - s, s])


def costs(constraint, scores, weights):
    return {"demographic_parity": weights, "equal_opportunity": weights * scores,
            "predictive_equality": weights * (1.0 - scores)}[constraint]


def plugin_accuracy(decision, scores, weights):
    return float(np.sum(weights * (decision * scores + (1 - decision) * (1 - scores))) / weights.sum())


def group_rates(decision, scores, weights, codes, constraint):
    c = costs(constraint, scores, weights)
    return np.array([np.sum(c[codes == a] * decision[codes == a]) / c[codes == a].sum()
                     for a in np.unique(codes)])


@pytest.fixture(scope="session")
def plugin():
    """The helpers above, for tests (test modules cannot import each other here)."""
    return SimpleNamespace(ScoreColumn=ScoreColumn, costs=costs, accuracy=plugin_accuracy,
                           rates=group_rates)
