"""FairICP's density q̂(y | a): fitted on every sample up to a size, on a subsample past it, and reported."""

import numpy as np
import pytest
from sklearn.linear_model import BayesianRidge, LogisticRegression

from fairkit.adversarial import FairICPClassifier, FairICPRegressor
from fairkit.utils import _conditional_density

FAST = {"max_epochs": 2, "batch_size": 64, "icp_sweeps": 5, "random_state": 0}


def data(n, seed=0):
    """A continuous attribute (distinct values, so each sample's own) that y depends on."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    y = (a + rng.normal(size=n) > 0).astype(int)
    X = np.column_stack([y + rng.normal(size=n), a + rng.normal(size=n)])
    return X, y, a


class _Recorded:
    """A density estimator that records what it was fitted on and predicted for (it is cloned inside)."""

    seen = {}

    def fit(self, X, y):
        _Recorded.seen = {"fit": np.array(X), "y": np.array(y)}
        return super().fit(X, y)


class _RecordedLogistic(_Recorded, LogisticRegression):
    def predict_proba(self, X):
        proba = super().predict_proba(X)
        _Recorded.seen.update(a=np.array(X), proba=proba)
        return proba


class _RecordedBayesianRidge(_Recorded, BayesianRidge):
    def predict(self, X, return_std=False):
        mean, std = super().predict(X, return_std=True)
        _Recorded.seen.update(a=np.array(X), mean=mean, std=std)
        return (mean, std) if return_std else mean


@pytest.mark.parametrize("estimator", [FairICPClassifier, FairICPRegressor])
def test_up_to_the_threshold_the_fit_is_the_one_on_every_sample(monkeypatch, estimator):
    X, y, a = data(300)
    y = y if estimator is FairICPClassifier else X[:, 0] + a
    default = estimator(mu=0.9, **FAST).fit(X, y, sensitive_features=a)
    assert (default.density_n_samples_, default.density_log_loss_) == (300, None)
    monkeypatch.setattr(_conditional_density, "_DENSITY_FIT_ROWS", 150)  # past it: another density
    subsampled = estimator(mu=0.9, **FAST).fit(X, y, sensitive_features=a)
    assert subsampled.density_n_samples_ == 150
    monkeypatch.setattr(_conditional_density, "_DENSITY_FIT_ROWS", 300)  # exactly at it: all, as before
    at_threshold = estimator(mu=0.9, **FAST).fit(X, y, sensitive_features=a)
    output = "predict_proba" if estimator is FairICPClassifier else "predict"
    np.testing.assert_array_equal(getattr(at_threshold, output)(X), getattr(default, output)(X))
    assert not np.array_equal(getattr(subsampled, output)(X), getattr(default, output)(X))


def test_past_the_threshold_the_classifier_reports_the_held_out_log_loss(monkeypatch):
    monkeypatch.setattr(_conditional_density, "_DENSITY_FIT_ROWS", 200)
    X, y, a = data(600)
    model = FairICPClassifier(mu=0.9, density_estimator=_RecordedLogistic(), **FAST)
    model.fit(X, y, sensitive_features=a)
    seen = _Recorded.seen
    assert len(seen["a"]) == 600  # predicted for every sample
    fitted = np.isin(seen["a"][:, 0], seen["fit"][:, 0])
    assert fitted.sum() == len(seen["fit"]) == model.density_n_samples_ == 200
    np.testing.assert_array_equal(np.bincount(seen["y"]), np.rint(np.bincount(y) / 3))  # stratified
    rest = ~fitted
    log_proba = np.log(np.clip(seen["proba"], 1e-12, None))  # in float32, as the attributes' encoding is
    expected = -np.mean(log_proba[rest, y[rest]].astype(float))
    assert model.density_log_loss_ == pytest.approx(expected, rel=1e-12)


def test_past_the_threshold_the_regressor_reports_the_held_out_negative_log_likelihood(monkeypatch):
    from scipy.stats import norm

    monkeypatch.setattr(_conditional_density, "_DENSITY_FIT_ROWS", 200)
    X, _, a = data(600)
    y = 3.0 + 2.0 * (X[:, 0] + a)
    model = FairICPRegressor(mu=0.9, density_estimator=_RecordedBayesianRidge(), **FAST)
    model.fit(X, y, sensitive_features=a)
    seen = _Recorded.seen
    rest = ~np.isin(seen["a"][:, 0], seen["fit"][:, 0])
    assert rest.sum() == 400 and model.density_n_samples_ == 200
    z = (y - model.y_mean_) / model.y_scale_  # the density models the standardized target
    expected = -np.mean(norm.logpdf(z[rest], seen["mean"][rest], seen["std"][rest]))
    assert model.density_log_loss_ == pytest.approx(expected, rel=1e-9)


def test_without_a_density_nothing_is_reported():
    X, y, a = data(200)
    plain = FairICPClassifier(mu=0.0, **FAST).fit(X, y, sensitive_features=a)
    assert (plain.density_n_samples_, plain.density_log_loss_) == (None, None)
