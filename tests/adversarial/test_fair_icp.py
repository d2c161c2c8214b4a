"""FairICPClassifier and FairICPRegressor: fairness effect, API, reproducibility, errors."""

import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
import torch
from joblib import Parallel, delayed
from scipy import sparse
from sklearn.base import clone
from sklearn.linear_model import BayesianRidge, LinearRegression, LogisticRegression
from sklearn.model_selection import GridSearchCV

from fairkit.adversarial import FairICPClassifier, FairICPRegressor
from fairkit.exceptions import FairkitWarning
from fairkit.metrics import kernel_partial_correlation

FAST = {"max_epochs": 3, "batch_size": 32, "icp_sweeps": 5, "random_state": 0}


def proxy_classification(n, seed):
    """y and A independent; X has y's signal and a proxy mixing y with A: unfair if used."""
    rng = np.random.default_rng(seed)
    y, a = rng.integers(0, 2, n), rng.integers(0, 2, n)
    X = np.column_stack([y + rng.normal(size=n), a + 0.8 * y + 0.5 * rng.normal(size=n),
                         rng.normal(size=n)])
    return X, y, a


def proxy_regression(n, seed):
    """y = x₁ + e; the second feature is e plus the sum of two continuous attributes."""
    rng = np.random.default_rng(seed)
    a, x1 = rng.normal(size=(n, 2)), rng.normal(size=n)
    y = x1 + rng.normal(size=n)
    X = np.column_stack([x1, (y - x1) + 0.7 * a.sum(axis=1), rng.normal(size=n)])
    return X, y, a


def equalized_odds_gap(y_pred, y, a):
    """Largest difference between the two groups' true- or false-positive rates."""
    return max(abs(y_pred[(a == 0) & (y == label)].mean() - y_pred[(a == 1) & (y == label)].mean())
               for label in (0, 1))


def test_mu_brings_the_classifier_towards_equalized_odds():
    X, y, a = proxy_classification(1000, 0)
    X_test, y_test, a_test = proxy_classification(3000, 1)
    params = {"max_epochs": 40, "batch_size": 64, "lr": 3e-3, "lr_discriminator": 1e-3,
              "random_state": 0}
    gaps, kpcs = [], []
    for mu in (0.0, 0.9):
        model = FairICPClassifier(mu=mu, **params).fit(X, y, sensitive_features=a)
        gaps.append(equalized_odds_gap(model.predict(X_test), y_test, a_test))
        kpcs.append(kernel_partial_correlation(model.predict_proba(X_test), a_test, y_test,
                                               random_state=0))
    assert gaps[0] > 0.25  # the unconstrained network is clearly unfair here
    assert gaps[1] < 0.6 * gaps[0]
    assert kpcs[1] < 0.6 * kpcs[0]


def test_mu_brings_the_regressor_towards_equalized_odds_with_continuous_attributes():
    X, y, a = proxy_regression(1000, 0)
    X_test, y_test, a_test = proxy_regression(2000, 1)
    params = {"max_epochs": 40, "batch_size": 64, "lr": 1e-2, "lr_discriminator": 1e-3,
              "random_state": 0}
    kpcs = [kernel_partial_correlation(
        FairICPRegressor(mu=mu, **params).fit(X, y, sensitive_features=a).predict(X_test),
        a_test, y_test, random_state=0) for mu in (0.0, 0.9)]
    assert kpcs[0] > 0.3
    assert kpcs[1] < 0.5 * kpcs[0]


def test_same_random_state_same_predictions_after_clone_and_in_a_joblib_worker():
    X, y, a = proxy_classification(200, 0)
    model = FairICPClassifier(mu=0.5, **FAST)

    def fit_predict(estimator):
        return estimator.fit(X, y, sensitive_features=a).predict_proba(X)

    reference = fit_predict(clone(model))
    np.testing.assert_array_equal(reference, fit_predict(clone(model)))
    [in_worker] = Parallel(n_jobs=2, backend="loky")([delayed(fit_predict)(clone(model))])
    np.testing.assert_array_equal(reference, in_worker)
    assert not np.array_equal(reference, fit_predict(clone(model).set_params(random_state=1)))


def test_sensitive_cols_are_taken_from_X_and_hidden_from_the_predictor():
    X, y, a = proxy_classification(200, 0)
    sex = np.where(a == 1, "F", "M")
    age = np.random.default_rng(0).normal(40, 10, 200)
    frame = pd.DataFrame({"x0": X[:, 0], "sex": sex, "x1": X[:, 1], "age": age})
    by_cols = FairICPClassifier(sensitive_cols=["sex", "age"], **FAST).fit(frame, y)
    explicit = FairICPClassifier(**FAST).fit(frame[["x0", "x1"]], y,
                                             sensitive_features=frame[["sex", "age"]])
    np.testing.assert_array_equal(by_cols.predict_proba(frame), explicit.predict_proba(frame[["x0", "x1"]]))
    assert by_cols.n_features_in_ == 4
    assert list(by_cols.feature_names_in_) == ["x0", "sex", "x1", "age"]
    assert by_cols.net_.module_.layers[0].in_features == 2
    # the discriminator sees the logits (2), sex one-hot (2), standardized age (1) and one-hot y (2)
    assert by_cols.net_.discriminator_.layers[0].in_features == 7
    with pytest.raises(ValueError, match="every column"):
        FairICPClassifier(sensitive_cols=[0, 1], **FAST).fit(X[:, :2], y)


def test_predict_ignores_the_values_of_the_sensitive_cols():
    # the predictor never reads them: a missing attribute at prediction time does not matter
    X, y, a = proxy_classification(100, 0)
    frame = pd.DataFrame({"x0": X[:, 0], "sex": np.where(a == 1, "F", "M"), "x1": X[:, 1]})
    model = FairICPClassifier(sensitive_cols="sex", **FAST).fit(frame, y)
    unknown = frame.assign(sex=None)
    np.testing.assert_array_equal(model.predict_proba(unknown), model.predict_proba(frame))
    with pytest.raises(ValueError, match="feature names"):
        model.predict(frame.drop(columns="sex"))


def test_sparse_X_is_refused_with_or_without_sensitive_cols():
    X, y, a = proxy_classification(50, 0)
    with pytest.raises(TypeError, match="dense data is required"):
        FairICPClassifier(**FAST).fit(sparse.csr_matrix(X), y, sensitive_features=a)
    # it used to be densified whole here, and fitted
    model = FairICPClassifier(sensitive_cols=[3], **FAST)
    with pytest.raises(TypeError, match="dense data is required"):
        model.fit(sparse.csr_matrix(np.column_stack([X, a])), y)
    assert not hasattr(model, "n_features_in_")


def test_without_sensitive_features_it_warns_and_trains_the_unconstrained_network():
    X, y, _ = proxy_classification(200, 0)
    with pytest.warns(FairkitWarning, match="no sensitive features"):
        fair = FairICPClassifier(mu=0.9, **FAST).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FairkitWarning)
        plain = FairICPClassifier(mu=0.0, **FAST).fit(X, y)
    np.testing.assert_array_equal(fair.predict_proba(X), plain.predict_proba(X))
    assert "discriminator_loss" not in fair.history_[-1]


def test_a_group_named_like_the_no_group_marker_is_still_a_sensitive_feature():
    # the estimator knew "no sensitive features" by groups_ == [NO_GROUP], a value users can have
    X, y, _ = proxy_classification(100, 0)
    model = FairICPClassifier(mu=0.5, **FAST).fit(X, y, sensitive_features=["all samples"] * 100)
    assert "discriminator_loss" in model.history_[-1]  # trained against the adversary, not as mu=0


def test_history_records_the_losses_of_every_epoch():
    X, y, a = proxy_classification(200, 0)
    model = FairICPClassifier(mu=0.5, **FAST).fit(X, y, sensitive_features=a)
    assert [epoch["epoch"] for epoch in model.history_] == [1, 2, 3]
    last = model.history_[-1]
    assert {"train_loss", "train_task_loss", "discriminator_loss", "dur"} <= set(last)
    # combined = (1 - mu) task + mu adversarial, and the adversarial part is a BCE near log 2
    assert last["train_loss"] != last["train_task_loss"]
    assert 0.3 < last["discriminator_loss"] < 1.0


def test_multiclass_labels_and_mixed_attributes():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = np.array(["low", "mid", "high"])[np.digitize(X[:, 0], [-0.5, 0.5])]
    attributes = pd.DataFrame({"race": rng.choice(["a", "b", "c"], 300),
                               "income": rng.lognormal(size=300)})
    model = FairICPClassifier(mu=0.5, **FAST).fit(X, y, sensitive_features=attributes)
    proba = model.predict_proba(X)
    assert list(model.classes_) == ["high", "low", "mid"]
    np.testing.assert_allclose(proba.sum(axis=1), 1, rtol=1e-6)
    assert set(model.predict(X)) <= set(model.classes_)
    assert len(model.groups_) == 300  # distinct (race, income) pairs


@pytest.mark.parametrize("estimator, data, density", [
    (FairICPClassifier, proxy_classification, LogisticRegression()),
    (FairICPRegressor, proxy_regression, BayesianRidge()),
])
def test_custom_density_estimators_are_the_ones_icp_uses(estimator, data, density):
    X, y, a = data(200, 0)

    def output(model):  # probabilities for the classifier: labels alone rarely change
        model.fit(X, y, sensitive_features=a)
        return model.predict_proba(X) if hasattr(model, "predict_proba") else model.predict(X)

    custom = output(estimator(density_estimator=density, **FAST))
    default = output(estimator(**FAST))
    # same seeds everywhere: only another q(y | a), hence other ICP copies, changes the fit
    assert not np.array_equal(custom, default)


def test_regressor_predicts_on_the_scale_of_the_target():
    X, y, a = proxy_regression(300, 0)
    model = FairICPRegressor(mu=0.0, max_epochs=30, lr=1e-2, random_state=0)
    predictions = model.fit(X, 1000 + 50 * y, sensitive_features=a).predict(X)
    assert abs(predictions.mean() - 1000) < 10
    assert model.score(X, 1000 + 50 * y) > 0.5


def test_the_skorch_net_exposes_discriminator_parameters():
    X, y, a = proxy_classification(100, 0)
    model = FairICPClassifier(discriminator_hidden=(8, 4), lr_discriminator=3e-4, **FAST)
    net = model.fit(X, y, sensitive_features=a).net_
    params = net.get_params()
    assert params["discriminator__hidden_layer_sizes"] == (8, 4)
    assert params["discriminator_optimizer__lr"] == 3e-4
    assert net.discriminator_optimizer_.param_groups[0]["lr"] == 3e-4
    widths = [layer.out_features for layer in net.discriminator_.layers if hasattr(layer, "out_features")]
    assert widths == [8, 4, 1]
    assert net.sensitive_sampler is None  # not kept after training


def test_net_params_reach_the_skorch_net_and_grid_search_tunes_them():
    X, y, a = proxy_classification(120, 0)
    grid = {"net_params": [{"optimizer__weight_decay": 0.5, "discriminator__hidden_layer_sizes": (4,)},
                           {"optimizer__weight_decay": 0.0, "discriminator_optimizer__betas": (0.5, 0.9)}]}
    with sklearn.config_context(enable_metadata_routing=True):
        model = FairICPClassifier(**FAST).set_fit_request(sensitive_features=True)
        search = GridSearchCV(model, grid, cv=2, refit=True).fit(X, y, sensitive_features=a)
    net = search.best_estimator_.net_
    chosen = search.best_params_["net_params"]
    assert net.optimizer_.param_groups[0]["weight_decay"] == chosen["optimizer__weight_decay"]
    if "discriminator_optimizer__betas" in chosen:
        assert net.discriminator_optimizer_.param_groups[0]["betas"] == (0.5, 0.9)
    else:
        assert [layer.out_features for layer in net.discriminator_.layers
                if hasattr(layer, "out_features")] == [4, 1]


def test_a_misspelt_net_param_is_named_and_leaves_the_estimator_unfitted():
    X, y, a = proxy_classification(60, 0)
    model = FairICPClassifier(net_params={"optimiser__lr": 0.1}, **FAST)
    with pytest.raises(ValueError, match="optimiser__lr"):
        model.fit(X, y, sensitive_features=a)
    assert not hasattr(model, "net_")


@pytest.mark.parametrize("params, message", [
    ({"mu": 1.0}, "mu"),
    ({"hidden_layer_sizes": (0,)}, "hidden_layer_sizes"),
    ({"discriminator_hidden": (8, -1)}, "discriminator_hidden"),
    ({"density_estimator": "flow"}, "density_estimator"),
    ({"adversary_weights": "cell"}, r"'adversary_weights' parameter .* among \{.*'sqrt_cells'.*\}. Got"),
    ({"validation_fraction": 1.0}, r"'validation_fraction' parameter .* must be None or a float in the"),
    ({"validation_fraction": 0}, r"'validation_fraction' parameter .* must be None or a float in the"),
])
def test_invalid_parameters_raise_and_leave_no_state(params, message):
    X, y, a = proxy_classification(50, 0)
    model = FairICPClassifier(**{**FAST, **params})
    with pytest.raises(ValueError, match=message):
        model.fit(X, y, sensitive_features=a)
    assert not any(key.endswith("_") and not key.startswith("_") for key in vars(model))


def test_a_fit_that_fails_late_leaves_the_previous_fit_untouched():
    # the density model is fitted after X, y and the classes were validated and stored
    X, y, a = proxy_classification(60, 0)
    model = FairICPClassifier(**FAST).fit(X[:, :2], y, sensitive_features=a)
    fitted = dict(vars(model))
    model.set_params(density_estimator=LinearRegression())
    with pytest.raises(TypeError, match="predict_proba"):
        model.fit(X, np.where(y == 1, "yes", "no"), sensitive_features=a)
    assert model.n_features_in_ == 2 and list(model.classes_) == [0, 1]
    assert all(vars(model)[key] is value for key, value in fitted.items() if key.endswith("_"))


def test_single_class_is_refused():
    with pytest.raises(ValueError, match="1 class"):
        FairICPClassifier(**FAST).fit(np.zeros((10, 2)), np.ones(10), sensitive_features=np.arange(10) % 2)


def test_missing_torch_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "fairkit.adversarial._net", None)
    X, y, a = proxy_classification(50, 0)
    with pytest.raises(ImportError, match=r"fairkit\[nn\]"):
        FairICPClassifier(**FAST).fit(X, y, sensitive_features=a)


def test_importing_the_estimators_and_metrics_does_not_import_torch():
    code = ("import sys, fairkit, fairkit.adversarial, fairkit.metrics; "
            "assert 'torch' not in sys.modules and 'skorch' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


# Bad input (issue 14)

@pytest.mark.parametrize("net_params, message", [
    ({"optimizer__lrr": 0.1},
     r"'optimizer__lrr': Adam takes no argument 'lrr' \(did you mean 'optimizer__lr'\?\); it takes amsgrad"),
    ({"discriminator_optimizer__betass": (0.5, 0.9)}, "'discriminator_optimizer__betass': Adam takes no"),
    ({"module__hidden": (4,)}, "'module__hidden': MLP takes no argument 'hidden'"),
    ({"iterator_train__shufle": False}, "'iterator_train__shufle': Minibatches takes no argument"),
    ({"optimizr__lr": 0.1}, r"'optimizr__lr': the net has no component 'optimizr' \(did you mean"),
])
def test_a_misspelt_component_argument_in_net_params_is_named_before_training(net_params, message):
    X, y, a = proxy_classification(60, 0)
    model = FairICPClassifier(**FAST, net_params=net_params)
    with pytest.raises(ValueError, match="net_params holds parameters the skorch net cannot use: " + message):
        model.fit(X, y, sensitive_features=a)
    assert not any(key.endswith("_") and not key.startswith("_") for key in vars(model))


def test_net_params_that_components_take_are_accepted():
    X, y, a = proxy_classification(60, 0)
    params = {"optimizer": torch.optim.SGD, "optimizer__momentum": 0.5,
              "optimizer__param_groups": [("layers.0.*", {"lr": 0.01})],
              "criterion__label_smoothing": 0.1, "iterator_train__shuffle": False}
    net = FairICPClassifier(**FAST, net_params=params).fit(X, y, sensitive_features=a).net_
    assert net.optimizer_.param_groups[0]["momentum"] == 0.5
    assert net.criterion_.label_smoothing == 0.1


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a torch that cannot use CUDA")
@pytest.mark.parametrize("device", ["cuda", "no-such-device"])
def test_a_device_torch_cannot_use_is_refused_when_fit_starts(device):
    X, y, a = proxy_classification(60, 0)
    model = FairICPClassifier(**FAST, device=device)
    with pytest.raises(ValueError, match=f"device='{device}' cannot be used by this torch"):
        model.fit(X, y, sensitive_features=a)
    assert not any(key.endswith("_") and not key.startswith("_") for key in vars(model))


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a torch that cannot use CUDA")
def test_a_device_set_through_net_params_is_checked_too():
    # Before: torch's AssertionError ("Torch not compiled with CUDA enabled") once training started
    X, y, a = proxy_classification(60, 0)
    model = FairICPClassifier(**FAST, net_params={"device": "cuda"})
    with pytest.raises(ValueError, match="device='cuda' cannot be used by this torch"):
        model.fit(X, y, sensitive_features=a)
    assert not any(key.endswith("_") and not key.startswith("_") for key in vars(model))


def test_regressor_names_y_when_it_holds_strings():
    X, y, a = proxy_regression(60, 0)
    model = FairICPRegressor(**FAST)
    with pytest.raises(ValueError, match="y holds values that are not numbers .*FairICPRegressor needs real "
                                         "targets.*FairICPClassifier"):
        model.fit(X, np.where(y > 0, "high", "low"), sensitive_features=a)
    assert not any(key.endswith("_") and not key.startswith("_") for key in vars(model))
