"""The conditional density q̂(y | a) behind ICP, and the numeric encoding of sensitive attributes."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import BayesianRidge, LinearRegression, LogisticRegression

from fairkit.utils._conditional_density import (
    HeteroscedasticMLP,
    fit_log_likelihood,
    sensitive_encoder,
)
from fairkit.utils._icp import ClassLogLikelihood, GaussianLogLikelihood


def test_encoder_standardizes_numbers_and_one_hot_encodes_the_rest():
    frame = pd.DataFrame({"age": [20.0, 30.0, 40.0], "sex": ["F", "M", "F"],
                          "flag": [True, False, True]})
    encoded = sensitive_encoder(frame).transform(frame)
    np.testing.assert_allclose(encoded[:, 0], [-np.sqrt(1.5), 0, np.sqrt(1.5)])
    np.testing.assert_array_equal(encoded[:, 1:], [[1, 0, 0, 1], [0, 1, 1, 0], [1, 0, 0, 1]])


def test_heteroscedastic_mlp_recovers_mean_and_standard_deviation():
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, size=(4000, 1))
    y = 2 * x[:, 0] + 0.5 * np.exp(x[:, 0]) * rng.normal(size=4000)
    grid = np.linspace(-0.8, 0.8, 5)[:, None]
    mean, std = HeteroscedasticMLP(random_state=0).fit(x, y).predict(grid, return_std=True)
    np.testing.assert_allclose(mean, 2 * grid[:, 0], atol=0.1)
    np.testing.assert_allclose(std, 0.5 * np.exp(grid[:, 0]), rtol=0.15)


def test_heteroscedastic_mlp_stops_early_on_the_validation_likelihood():
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(300, 3)), rng.normal(size=300)  # nothing to learn: overfitting starts at once
    model = HeteroscedasticMLP(n_iter_no_change=5, random_state=0).fit(x, y)
    assert model.n_iter_ < model.max_iter


def test_classification_density_matches_class_frequencies_per_group():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 4000)
    y = (rng.random(4000) < np.where(a == 1, 0.8, 0.3)).astype(int)
    log_lik = fit_log_likelihood(a[:, None].astype(float), y, classification=True, random_state=0)
    assert isinstance(log_lik, ClassLogLikelihood)
    proba_one = np.exp(log_lik.log_proba[:, 1])
    assert abs(proba_one[a == 1].mean() - 0.8) < 0.03
    assert abs(proba_one[a == 0].mean() - 0.3) < 0.03


def test_classification_density_does_not_overfit_continuous_attributes():
    """A fixed small L2 penalty gave a mean error of 0.29 here; the held-out choice about 0.09."""
    rng = np.random.default_rng(0)
    a = rng.normal(size=(500, 3))
    p_one = 1 / (1 + np.exp(-(a @ [1.0, -0.5, 0.5])))
    y = (rng.random(500) < p_one).astype(int)
    log_lik = fit_log_likelihood(a, y, classification=True, random_state=0)
    assert np.abs(np.exp(log_lik.log_proba[:, 1]) - p_one).mean() < 0.15


@pytest.mark.parametrize("n_samples", [300, 1000])
def test_the_penalty_is_chosen_on_at_most_a_stratified_cap_of_samples(monkeypatch, n_samples):
    """Beyond the cap the candidate fits see a stratified subsample; the chosen network is fitted on all."""
    from fairkit.utils import _conditional_density

    monkeypatch.setattr(_conditional_density, "_PENALTY_SELECTION_ROWS", 500)
    y = (np.arange(n_samples) % 10 < 3).astype(int)  # 30 % positive
    search = _conditional_density._default_class_density(y, random_state=0)
    (fit_rows, held_out), = search.cv
    rows = np.concatenate([fit_rows, held_out])
    assert len(np.unique(rows)) == len(rows) == min(n_samples, 500)
    assert len(held_out) == round(0.2 * len(rows))
    assert abs(y[rows].mean() - 0.3) < 0.01 and abs(y[held_out].mean() - 0.3) < 0.01
    a = np.random.default_rng(0).normal(size=(n_samples, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # noise to fit: L-BFGS runs to max_iter
        fitted = search.fit(a, y)
    assert fitted.best_estimator_.n_features_in_ == 1
    np.testing.assert_allclose(fitted.predict_proba(a), fitted.best_estimator_.predict_proba(a))


def test_any_classifier_or_gaussian_regressor_can_serve_as_density():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(200, 2))
    y_class = (a[:, 0] > 0).astype(int)
    log_lik = fit_log_likelihood(a, y_class, classification=True, estimator=LogisticRegression())
    assert log_lik.log_proba.shape == (200, 2) and np.isfinite(log_lik.log_proba).all()
    y_real = a[:, 0] + rng.normal(size=200)
    log_lik = fit_log_likelihood(a, y_real, classification=False, estimator=BayesianRidge())
    assert isinstance(log_lik, GaussianLogLikelihood)
    np.testing.assert_allclose(log_lik.mean, BayesianRidge().fit(a, y_real).predict(a))


def test_density_estimator_errors_name_the_problem():
    a, y = np.zeros((20, 1)), np.arange(20.0)
    with pytest.raises(TypeError, match="return_std"):
        fit_log_likelihood(a, y, classification=False, estimator=LinearRegression())
    with pytest.raises(ValueError, match="'auto' or an estimator"):
        fit_log_likelihood(a, y, classification=False, estimator="flow")


class _UnfittableRegressor(LinearRegression):
    def fit(self, X, y):
        raise AssertionError("fitted before its missing predict_proba was noticed")


def test_a_classifier_density_without_predict_proba_is_refused_before_fitting():
    a, y = np.zeros((20, 1)), np.arange(20) % 2
    with pytest.raises(TypeError, match="predict_proba"):
        fit_log_likelihood(a, y, classification=True, estimator=_UnfittableRegressor())


class _UnconvergedRidge(BayesianRidge):
    def fit(self, X, y):
        warnings.warn("stopped early", ConvergenceWarning, stacklevel=2)
        return super().fit(X, y)


def test_an_unconverged_regression_density_is_used_without_warning_as_a_classifier_is():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(50, 1))
    y = a[:, 0] + rng.normal(size=50)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        log_lik = fit_log_likelihood(a, y, classification=False, estimator=_UnconvergedRidge())
    assert isinstance(log_lik, GaussianLogLikelihood)


class _Recorded:
    """Mixin of a density estimator that records the samples of its last fit (it is cloned inside)."""

    fitted = {}

    def fit(self, X, y):
        _Recorded.fitted = {"X": np.array(X), "y": np.array(y)}
        return super().fit(X, y)


class _RecordedLogistic(_Recorded, LogisticRegression):
    pass


class _RecordedBayesianRidge(_Recorded, BayesianRidge):
    pass


@pytest.mark.parametrize("classification", [True, False])
def test_up_to_the_size_threshold_the_density_is_fitted_on_every_sample_as_before(classification):
    from fairkit.utils import _conditional_density

    rng = np.random.default_rng(0)
    a = rng.normal(size=(600, 2))
    y = (a[:, 0] + rng.normal(size=600) > 0).astype(int) if classification else a[:, 0] + rng.normal(size=600)
    log_lik, n_fitted, log_loss = fit_log_likelihood(a, y, classification=classification, random_state=0,
                                                     return_quality=True)
    assert (n_fitted, log_loss) == (600, None)
    if classification:  # the previous code path, by hand: penalty search on all, refit on all
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model = _conditional_density._default_class_density(y, 0).fit(a, y)
        np.testing.assert_array_equal(log_lik.log_proba, np.log(np.clip(model.predict_proba(a), 1e-12, None)))
    else:
        mean, std = HeteroscedasticMLP(random_state=0).fit(a, y).predict(a, return_std=True)
        np.testing.assert_array_equal(log_lik.mean, mean)
        np.testing.assert_array_equal(np.exp(log_lik.log_std), std)


def test_past_the_threshold_a_stratified_subsample_covering_every_class_is_fitted(monkeypatch):
    from fairkit.utils import _conditional_density

    monkeypatch.setattr(_conditional_density, "_DENSITY_FIT_ROWS", 300)
    rng = np.random.default_rng(0)
    n = 1000
    y = np.repeat([0, 1, 2, 3], [597, 300, 100, 3])  # class 3: 3 samples, fewer than the 5 kept of a class
    rng.shuffle(y)
    a = np.column_stack([np.arange(n) / n, rng.normal(size=n)])  # column 0 names the sample
    log_lik, n_fitted, log_loss = fit_log_likelihood(a, y, classification=True, random_state=0,
                                                     estimator=_RecordedLogistic(), return_quality=True)
    fitted = _Recorded.fitted
    rows = np.rint(fitted["X"][:, 0] * n).astype(int)
    assert len(np.unique(rows)) == len(rows) == n_fitted
    np.testing.assert_array_equal(fitted["X"], a[rows])
    np.testing.assert_array_equal(fitted["y"], y[rows])
    # each class its rounded share of 300 (179.1, 90, 30, 0.9), at least 5 or all of it
    np.testing.assert_array_equal(np.bincount(y[rows]), [179, 90, 30, 3])
    # it predicts for every sample, and is measured on those it did not fit
    model = LogisticRegression().fit(a[rows], y[rows])
    np.testing.assert_allclose(log_lik.log_proba, np.log(model.predict_proba(a)), rtol=1e-12)
    rest = np.setdiff1d(np.arange(n), rows)
    proba_rest = model.predict_proba(a[rest])
    assert log_loss == pytest.approx(-np.mean(np.log(proba_rest[np.arange(len(rest)), y[rest]])), rel=1e-12)
    # another seed, another subsample of the same composition
    fit_log_likelihood(a, y, classification=True, random_state=1, estimator=_RecordedLogistic())
    other = np.rint(_Recorded.fitted["X"][:, 0] * n).astype(int)
    assert not np.array_equal(np.sort(other), np.sort(rows))
    np.testing.assert_array_equal(np.bincount(y[other]), [179, 90, 30, 3])


def test_past_the_threshold_the_default_classifier_density_chooses_and_fits_on_the_subsample(monkeypatch):
    from fairkit.utils import _conditional_density

    monkeypatch.setattr(_conditional_density, "_DENSITY_FIT_ROWS", 400)
    monkeypatch.setattr(_conditional_density, "_SUBSAMPLE_PENALTY_SELECTION_ROWS", 200)
    rng = np.random.default_rng(0)
    a = rng.normal(size=(1000, 2))
    y = (a[:, 0] + rng.normal(size=1000) > 0).astype(int)
    log_lik, n_fitted, log_loss = fit_log_likelihood(a, y, classification=True, random_state=0,
                                                     return_quality=True)
    rows = _conditional_density._density_rows(y, True, 0)
    assert n_fitted == len(rows) == 400
    search = _conditional_density._default_class_density(y[rows], 0, 200)
    (fit_rows, held_out), = search.cv  # the penalty is chosen on 200 of the 400
    assert len(fit_rows) + len(held_out) == 200
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = search.fit(a[rows], y[rows])
    proba = np.clip(model.predict_proba(a), 1e-12, None)
    np.testing.assert_array_equal(log_lik.log_proba, np.log(proba))
    rest = np.setdiff1d(np.arange(1000), rows)
    assert log_loss == pytest.approx(-np.mean(np.log(proba[rest, y[rest]])), rel=1e-12)


def test_past_the_threshold_a_regression_density_is_fitted_on_a_random_subsample(monkeypatch):
    from scipy.stats import norm

    from fairkit.utils import _conditional_density

    monkeypatch.setattr(_conditional_density, "_DENSITY_FIT_ROWS", 300)
    rng = np.random.default_rng(0)
    a = np.column_stack([np.arange(1000, dtype=float), rng.normal(size=1000)])
    y = a[:, 1] + rng.normal(size=1000)
    log_lik, n_fitted, log_loss = fit_log_likelihood(a, y, classification=False, random_state=0,
                                                     estimator=_RecordedBayesianRidge(), return_quality=True)
    rows = _Recorded.fitted["X"][:, 0].astype(int)
    assert len(np.unique(rows)) == len(rows) == n_fitted == 300
    mean, std = BayesianRidge().fit(a[rows], y[rows]).predict(a, return_std=True)
    np.testing.assert_allclose(log_lik.mean, mean, rtol=1e-10)
    rest = np.setdiff1d(np.arange(1000), rows)
    assert log_loss == pytest.approx(-np.mean(norm.logpdf(y[rest], mean[rest], std[rest])), rel=1e-9)
