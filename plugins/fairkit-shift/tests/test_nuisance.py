"""Tests of the nuisance models: outcome model, P(Y = 1 | X) and the density ratio."""

import numpy as np
import pandas as pd
import pytest
from sklearn.dummy import DummyClassifier
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from fairkit_shift._nuisance import (
    default_classifier,
    default_regressor,
    fit_density_ratio,
    fit_outcome_model,
    predict_positive,
)


@pytest.fixture(autouse=True)
def one_openmp_thread():
    """Boosting on a loaded 2-core machine is far faster without OpenMP threads competing."""
    with threadpool_limits(limits=1, user_api="openmp"):
        yield


def gaussian_domains(rng, n_source, n_target, shift=0.7):
    """Source N(0, I₂), target N((shift, 0), I₂): true log ratio shift·x₁ − shift²/2."""
    source = rng.normal(size=(n_source, 2))
    target = rng.normal(size=(n_target, 2)) + [shift, 0.0]
    return source, target


def test_density_ratio_recovers_the_gaussian_ratio():
    rng = np.random.default_rng(0)
    X_source, X_target = gaussian_domains(rng, 2000, 1000)  # unequal sizes: the n_source / n_target scale
    ratio = fit_density_ratio(X_source, X_target, random_state=0)
    fresh = rng.normal(size=(4000, 2))
    estimated = ratio.ratio(fresh)
    true_log = 0.7 * fresh[:, 0] - 0.7**2 / 2
    assert np.corrcoef(np.log(estimated), true_log)[0, 1] > 0.9
    # E_S[w] = 1; its sampling sd here is about 0.012
    assert estimated.mean() == pytest.approx(1.0, abs=0.1)
    assert ratio.scale == 2.0


def test_density_ratio_is_clipped():
    # separable domains: the calibrated probability is pushed beyond [clip, 1 − clip] on both sides
    rng = np.random.default_rng(1)
    X_source, X_target = rng.normal(-10, 1, size=(300, 1)), rng.normal(10, 1, size=(100, 1))
    ratio = fit_density_ratio(X_source, X_target, clip=0.1, random_state=0)
    np.testing.assert_allclose(ratio.ratio(X_source), 0.1 / 0.9 * 3)
    np.testing.assert_allclose(ratio.ratio(X_target), 0.9 / 0.1 * 3)
    wide = fit_density_ratio(X_source, X_target, clip=0.001, random_state=0).ratio(X_target)
    assert (wide > 0.9 / 0.1 * 3).all() and (wide <= 0.999 / 0.001 * 3).all()


def test_density_ratio_on_dataframes_with_categories():
    rng = np.random.default_rng(2)
    kinds = pd.CategoricalDtype(["a", "b", "c"])

    def frame(n, p):
        return pd.DataFrame({"x": rng.normal(size=n), "kind": pd.Series(rng.choice(["a", "b", "c"], n, p=p),
                                                                          dtype=kinds)})

    X_source, X_target = frame(1500, [0.6, 0.2, 0.2]), frame(1500, [0.2, 0.2, 0.6])
    ratio = fit_density_ratio(X_source, X_target, random_state=0)
    x = rng.normal(size=1000)
    at = [ratio.ratio(pd.DataFrame({"x": x, "kind": pd.Series([kind] * 1000, dtype=kinds)})).mean()
          for kind in "abc"]
    np.testing.assert_allclose(at, [1 / 3, 1, 3], rtol=0.25)  # the category shares' ratios


def test_conditional_ratio_takes_an_indicator_column():
    # stage 2: the ratio of (X₋ₛ, d) — an extra 0/1 column is just another feature
    rng = np.random.default_rng(3)
    X_source, X_target = gaussian_domains(rng, 1000, 1000)
    d_source, d_target = X_source[:, :1] > 1, X_target[:, :1] > 1
    ratio = fit_density_ratio(np.hstack([X_source[:, 1:], d_source]), np.hstack([X_target[:, 1:], d_target]),
                              random_state=0)
    x2 = rng.normal(size=(2000, 1))
    inside = ratio.ratio(np.hstack([x2, np.ones_like(x2)])).mean()
    outside = ratio.ratio(np.hstack([x2, np.zeros_like(x2)])).mean()
    # the ratio does not depend on x₂: P_T(d) / P_S(d) = Φ(−0.3) / Φ(−1) = 2.41 where d = 1, and
    # (1 − Φ(−0.3)) / (1 − Φ(−1)) = 0.73 where d = 0 (the noise in x₂ attenuates the estimate a little)
    assert inside == pytest.approx(2.41, rel=0.3) and outside == pytest.approx(0.73, rel=0.3)


def test_density_ratio_is_reproducible_and_leaves_global_state_alone():
    rng = np.random.default_rng(4)
    X_source, X_target = gaussian_domains(rng, 300, 300)
    state = np.random.get_state()[1].copy()  # noqa: NPY002 (checks nobody advances it)
    first = fit_density_ratio(X_source, X_target, random_state=7).ratio(X_source)
    again = fit_density_ratio(X_source, X_target, random_state=7).ratio(X_source)
    fresh = fit_density_ratio(X_source, X_target, random_state=None).ratio(X_source)
    np.testing.assert_array_equal(first, again)
    assert fresh.shape == first.shape
    np.testing.assert_array_equal(np.random.get_state()[1], state)  # noqa: NPY002


def test_density_ratio_uses_a_clone_of_the_given_classifier():
    rng = np.random.default_rng(5)
    X_source, X_target = gaussian_domains(rng, 500, 500)
    base = LogisticRegression()
    ratio = fit_density_ratio(X_source, X_target, base, random_state=0)
    assert not hasattr(base, "coef_")
    # a logistic model is exact here: log-odds linear in x₁
    estimated = np.log(ratio.ratio(np.c_[np.linspace(-2, 2, 5), np.zeros(5)]))
    np.testing.assert_allclose(np.diff(estimated), 0.7, atol=0.15)


@pytest.mark.parametrize(("X_source", "X_target", "kwargs", "message"), [
    (np.ones((10, 2)), np.ones((10, 3)), {}, "X_source has 2 columns and X_target 3"),
    (np.ones((2, 2)), np.ones((10, 2)), {}, "X_source has 2 rows; .* at least 3 rows of each domain"),
    (np.ones(10), np.ones((10, 1)), {}, "X_source must be 2-D"),
    (pd.DataFrame({"a": range(5)}), np.ones((5, 1)), {}, "both be DataFrames or both be arrays"),
    (pd.DataFrame({"a": range(5)}), pd.DataFrame({"b": range(5)}), {}, "the same columns in the same order"),
    (pd.DataFrame({"a": pd.Categorical(list("xxyyx"))}), pd.DataFrame({"a": pd.Categorical(list("xxzzx"))}),
     {}, "different dtypes"),
    (np.ones((10, 2)), np.ones((10, 2)), {"clip": 0.5}, "clip"),
    (np.ones((10, 2)), np.ones((10, 2)), {"clip": 0.0}, "clip"),
])
def test_density_ratio_refuses_bad_inputs(X_source, X_target, kwargs, message):
    with pytest.raises(ValueError, match=message):
        fit_density_ratio(X_source, X_target, **kwargs)


def test_outcome_model_default_and_given():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(600, 2))
    y = (rng.random(600) < 1 / (1 + np.exp(-2 * X[:, 0]))).astype(int)
    model = fit_outcome_model(None, X, y, random_state=0)
    assert isinstance(model, HistGradientBoostingClassifier) and model.categorical_features == "from_dtype"
    assert model.early_stopping is True and model.n_iter_ < 200
    proba = predict_positive(model, [[-2.0, 0.0], [2.0, 0.0]])
    assert proba.shape == (2,) and proba[0] < 0.2 < 0.8 < proba[1]
    np.testing.assert_array_equal(predict_positive(fit_outcome_model(None, X, y, random_state=0), X),
                                  predict_positive(model, X))
    base = LogisticRegression()
    fitted = fit_outcome_model(base, X, y, random_state=0)
    assert fitted is not base and not hasattr(base, "coef_")
    assert fitted.coef_[0, 0] == pytest.approx(2.0, abs=0.5)


def test_predict_positive_takes_the_column_of_label_one():
    model = DummyClassifier(strategy="prior").fit(np.zeros((4, 1)), [1, 2, 2, 2])
    np.testing.assert_allclose(predict_positive(model, np.zeros((2, 1))), [0.25, 0.25])
    no_one = DummyClassifier().fit(np.zeros((4, 1)), [0, 2, 2, 2])
    with pytest.raises(ValueError, match=r"do not contain the positive label 1"):
        predict_positive(no_one, np.zeros((1, 1)))


@pytest.mark.parametrize(("y", "message"), [
    ([0, 1, 2, 1], "must hold the labels 0 and 1"),
    ([1, 1, 1, 1], "must hold the labels 0 and 1, both present"),
    ([0, 1, 1], "inconsistent numbers of samples"),
])
def test_outcome_model_refuses_bad_labels(y, message):
    with pytest.raises(ValueError, match=message):
        fit_outcome_model(None, np.zeros((4, 1)), y, random_state=0)


def test_default_models_take_seeds_from_the_random_state_policy():
    assert default_classifier(3).random_state == default_classifier(3).random_state
    assert default_regressor(np.random.RandomState(0)).random_state == default_regressor(
        np.random.RandomState(0)).random_state
    with pytest.raises(ValueError, match="random_state must be None, an int"):
        default_classifier(np.random.default_rng(0))
