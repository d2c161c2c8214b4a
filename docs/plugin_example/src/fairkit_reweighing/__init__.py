"""Reweighing (Kamiran & Calders, 2012) as a fairkit plugin."""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.linear_model import LogisticRegression
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from fairkit import hookimpl
from fairkit.utils import fit_groups


class ReweighingClassifier(ClassifierMixin, BaseEstimator):
    """Weight each (group, label) cell as if group and label were independent, then fit."""

    def __init__(self, estimator=None):
        self.estimator = estimator

    def fit(self, X, y, *, sensitive_features=None):
        groups, codes = fit_groups(self, X, sensitive_features)
        X, y = validate_data(self, X, y)
        check_classification_targets(y)
        self.classes_, labels = np.unique(y, return_inverse=True)
        cells = codes * len(self.classes_) + labels  # weight = P(group) P(label) / P(group, label)
        count = [np.bincount(c)[c] for c in (codes, labels, cells)]
        weights = count[0] * count[1] / (len(y) * count[2])
        self.estimator_ = clone(self.estimator or LogisticRegression()).fit(X, y, sample_weight=weights)
        self.groups_ = groups
        return self

    def predict(self, X):
        check_is_fitted(self)
        return self.estimator_.predict(validate_data(self, X, reset=False))

    @classmethod
    def get_test_params(cls):
        return [{}]


@hookimpl
def fairkit_estimators():
    return [ReweighingClassifier]
