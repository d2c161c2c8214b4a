"""The fairness checks pass on a well-behaved estimator and catch each kind of broken one."""

import sys
from functools import partial
from unittest import SkipTest

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, ClusterMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from fairkit.utils import local_generator
from fairkit.utils.estimator_checks import (
    check_fit_leaves_no_state_on_bad_sensitive_features,
    check_no_global_rng_mutation,
    check_pickle_roundtrip,
    check_reproducible,
    check_routing_pipeline_gridsearch,
    check_skops_roundtrip,
    check_unseen_group_raises,
    parametrize_with_checks,
)
from fairkit.utils.validation import fit_groups, predict_groups


class GroupMeanClassifier(ClassifierMixin, BaseEstimator):
    """Predicts 1 when the first feature exceeds its group's mean, with a few random flips."""

    def __init__(self, flip_rate=0.1, sensitive_cols=None, random_state=None):
        self.flip_rate = flip_rate
        self.sensitive_cols = sensitive_cols
        self.random_state = random_state

    def fit(self, X, y, *, sensitive_features=None):
        groups, codes = fit_groups(self, X, sensitive_features)
        X, y = validate_data(self, X, y)
        self.classes_ = np.unique(y)
        self.means_ = np.bincount(codes, X[:, 0]) / np.bincount(codes)
        self.groups_ = groups
        return self

    def predict(self, X, *, sensitive_features=None):
        check_is_fitted(self)
        codes = predict_groups(self, X, sensitive_features)
        X = validate_data(self, X, reset=False)
        flips = self._coins(len(X)) < self.flip_rate
        return self.classes_[((X[:, 0] > self.means_[codes]) ^ flips).astype(int)]

    def _coins(self, n):
        return local_generator(self.random_state).random(n)

    @classmethod
    def get_test_params(cls):
        return [{"random_state": 0}]


class SeedsGlobalState(GroupMeanClassifier):
    def fit(self, X, y, *, sensitive_features=None):
        np.random.seed(0)
        return super().fit(X, y, sensitive_features=sensitive_features)


class DrawsFromGlobalStateWhenUnseeded(GroupMeanClassifier):
    """Passes with its pinned test seed; with random_state=None, draws from numpy's global generator."""

    def _coins(self, n):
        return check_random_state(self.random_state).random_sample(n)


class IgnoresRandomStateInstances(GroupMeanClassifier):
    def _coins(self, n):
        seed = self.random_state if isinstance(self.random_state, int) else None
        return local_generator(seed).random(n)


class IgnoresGroupsAtPredict(GroupMeanClassifier):
    def predict(self, X, *, sensitive_features=None):
        return super().predict(X, sensitive_features=np.zeros(len(X), dtype=int))


class ValidatesLate(GroupMeanClassifier):
    """Stores fitted state before checking the sensitive features."""

    def fit(self, X, y, *, sensitive_features=None):
        self.classes_ = np.unique(y)
        return super().fit(X, y, sensitive_features=sensitive_features)


class FreshCoinsEachFit(GroupMeanClassifier):
    def predict(self, X, *, sensitive_features=None):
        self.random_state = None
        return super().predict(X, sensitive_features=sensitive_features)


class KeepsAFrame(GroupMeanClassifier):
    """Keeps a DataFrame as fitted state, which skops.io cannot save."""

    def fit(self, X, y, *, sensitive_features=None):
        super().fit(X, y, sensitive_features=sensitive_features)
        self.means_by_group_ = pd.DataFrame({"mean": self.means_}, index=list(self.groups_))
        return self


class KeepsAPartial(GroupMeanClassifier):
    """Keeps a functools.partial, which a user loading it with skops.io would have to trust."""

    def fit(self, X, y, *, sensitive_features=None):
        super().fit(X, y, sensitive_features=sensitive_features)
        self.coins_ = partial(local_generator, self.random_state)
        return self


class SavesRoundedMeans(GroupMeanClassifier):
    """Saves its means to 2 decimals, as a lossy ``__getstate__`` would: the copy predicts otherwise."""

    def __getstate__(self):
        state = dict(super().__getstate__())
        if "means_" in state:
            state["means_"] = state["means_"].round(2)
        return state


class ForgetsTheGroupsWhenSaved(GroupMeanClassifier):
    def __getstate__(self):
        state = dict(super().__getstate__())
        state.pop("groups_", None)
        return state


class GroupCluster(ClusterMixin, BaseEstimator):
    """Labels each sample by its group."""

    def __init__(self, sensitive_cols=None):
        self.sensitive_cols = sensitive_cols

    def fit(self, X, y=None, *, sensitive_features=None):
        groups, self.labels_ = fit_groups(self, X, sensitive_features)
        validate_data(self, X)
        self.groups_ = groups
        return self


ALL_CHECKS = [
    check_fit_leaves_no_state_on_bad_sensitive_features,
    check_unseen_group_raises,
    check_reproducible,
    check_pickle_roundtrip,
    check_skops_roundtrip,
    check_no_global_rng_mutation,
    check_routing_pipeline_gridsearch,
]


@pytest.mark.parametrize("check", ALL_CHECKS, ids=lambda c: c.__name__)
def test_checks_pass_on_a_well_behaved_estimator(check):
    check("GroupMeanClassifier", GroupMeanClassifier(random_state=0))


@pytest.mark.parametrize(
    ("estimator", "check", "match"),
    [
        (SeedsGlobalState(), check_no_global_rng_mutation, "global random state of \\['numpy'\\]"),
        (DrawsFromGlobalStateWhenUnseeded(random_state=0), check_no_global_rng_mutation,
         "random_state=None\\) changed the global random state of \\['numpy'\\]"),
        (IgnoresRandomStateInstances(random_state=0), check_reproducible, "RandomState\\(0\\)"),
        (IgnoresGroupsAtPredict(), check_unseen_group_raises, "accepted a group not seen"),
        (ValidatesLate(), check_fit_leaves_no_state_on_bad_sensitive_features, "looks fitted"),
        (FreshCoinsEachFit(random_state=0), check_reproducible, "differs"),
        (SavesRoundedMeans(random_state=0), check_pickle_roundtrip, "unpickled: means_ differs"),
        (SavesRoundedMeans(random_state=0), check_skops_roundtrip, "loaded by skops.io: means_ differs"),
        (ForgetsTheGroupsWhenSaved(random_state=0), check_pickle_roundtrip,
         "unpickled changed the attributes"),
        (KeepsAFrame(random_state=0), check_skops_roundtrip,
         "skops.io cannot save it .*the attributes it cannot save: \\['means_by_group_'\\]"),
        (KeepsAPartial(random_state=0), check_skops_roundtrip,
         "needs foreign types trusted: \\['functools.partial'\\]"),
    ],
    ids=lambda value: getattr(type(value), "__name__", ""),
)
def test_checks_catch_broken_estimators(estimator, check, match):
    with pytest.raises(AssertionError, match=match):
        check(type(estimator).__name__, estimator)


def test_skops_check_skips_naming_the_extra_without_skops(monkeypatch):
    monkeypatch.setitem(sys.modules, "skops.io", None)  # import skops.io raises ImportError
    with pytest.raises(SkipTest, match='skops is not installed.*pip install "fairkit\\[skops\\]"'):
        check_skops_roundtrip("GroupMeanClassifier", GroupMeanClassifier(random_state=0))


def test_clusterer_routing_through_pipeline():
    check_routing_pipeline_gridsearch("GroupCluster", GroupCluster())


def test_parametrize_with_checks_adds_fairness_checks_and_expected_failures():
    reasons = {"check_classifiers_train": "not accurate", "check_reproducible": "coins"}
    mark = parametrize_with_checks([GroupMeanClassifier()], expected_failed_checks=lambda e: reasons)
    params = mark.args[1]
    names = [getattr(p, "values", p)[1].func.__name__ for p in params]
    assert "check_estimators_dtypes" in names and set(names) >= {c.__name__ for c in ALL_CHECKS}
    xfailed = {getattr(p, "values", p)[1].func.__name__ for p in params if getattr(p, "marks", ())}
    assert xfailed == set(reasons)
