"""FairAdversarialClassifier: the loss on attacked batches, the attack's limits, its effects, the API."""

import copy
import pickle
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from scipy.special import softmax
from sklearn import config_context
from sklearn.model_selection import GridSearchCV, KFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from fairkit import FairkitWarning
from fairkit.utils.estimator_checks import parametrize_with_checks
from fairkit_robust._training import FairAdversarialClassifier

torch = pytest.importorskip("torch")  # the nn extra; the test extra installs it
from torch.nn import functional as F  # noqa: E402

from fairkit_robust import _training_net  # noqa: E402
from fairkit_robust._pgd import projected_gradient_ascent  # noqa: E402

FAST = {"hidden_layer_sizes": (8,), "max_epochs": 3, "batch_size": 16, "lr": 3e-2, "attack_steps": 2,
        "random_state": 0}


def data(n=48, seed=0):
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, 2, n)
    X = rng.normal(size=(n, 3)) + 0.5 * groups[:, None]
    y = (X[:, 0] + rng.normal(size=n) > 0.3).astype(int)
    return X, y, groups


def hand_gap(p1, y, groups, notion):
    """The soft gap written out: per condition, the largest minus the smallest non-empty group mean of p1."""
    conditions = {"demographic_parity": [y >= 0], "equal_opportunity": [y == 1],
                  "equalized_odds": [y == 1, y == 0]}[notion]
    total = 0.0
    for condition in conditions:
        means = [p1[condition & (groups == g)].mean() for g in np.unique(groups)
                 if (condition & (groups == g)).any()]
        total += max(means) - min(means) if len(means) >= 2 else 0.0
    return total


def cross_entropy(p1, y):
    return -np.mean(np.log(np.where(y == 1, p1, 1 - p1)))


def hard_equalized_odds(y, y_pred, groups):
    """|ΔTPR| + |ΔTNR| between the two groups (the paper's EOd, as a fraction)."""
    return sum(abs(y_pred[(groups == 1) & (y == c)].mean() - y_pred[(groups == 0) & (y == c)].mean())
               for c in (0, 1))


def assert_unfitted(model):
    assert not any(key.endswith("_") and not key.startswith("_") for key in vars(model))


# (1) The loss and the attack's objective, on batches attacked by a fixed perturbation

@pytest.mark.parametrize("attack, notion", [
    ("accuracy", "equalized_odds"), ("fairness", "demographic_parity"), ("both", "equal_opportunity")])
def test_the_training_loss_is_cross_entropy_plus_lambda_times_the_soft_gap_of_the_attacked_batch(
        monkeypatch, attack, notion):
    X, y, groups = data(24, seed=5)
    calls = []

    def shift_by_five_hundredths(objective, X, **kwargs):  # not an attack: a fixed adversarial example
        calls.append((objective(X).item(), kwargs))
        return X + 0.05

    monkeypatch.setattr(_training_net, "projected_gradient_ascent", shift_by_five_hundredths)
    # lr=0 keeps the network at its initial weights, so predict_proba gives the training-time probabilities
    model = FairAdversarialClassifier(
        (4,), notion=notion, eps=0.2, lambda_fair=0.7, attack=attack, attack_steps=4,
        feature_mask=np.array([True, False, True]), max_epochs=1, batch_size=8, random_state=0,
        net_params={"lr": 0.0, "iterator_train__shuffle": False}).fit(X, y, sensitive_features=groups)
    clean, attacked = model.predict_proba(X)[:, 1], model.predict_proba(X + 0.05)[:, 1]
    batches = model.net_.history[-1]["batches"]
    assert len(batches) == len(calls) == 3
    for k, (batch, (objective, _)) in enumerate(zip(batches, calls, strict=True)):
        rows = slice(8 * k, 8 * k + 8)
        ce = cross_entropy(attacked[rows], y[rows])
        gap = hand_gap(attacked[rows], y[rows], groups[rows], notion)
        assert batch["train_task_loss"] == pytest.approx(ce, rel=1e-5)
        assert batch["train_gap"] == pytest.approx(gap, abs=1e-6)
        assert batch["train_loss"] == pytest.approx(ce + 0.7 * gap, rel=1e-5)
        clean_ce = cross_entropy(clean[rows], y[rows])
        clean_gap = hand_gap(clean[rows], y[rows], groups[rows], notion)
        expected = {"accuracy": clean_ce, "fairness": clean_gap, "both": clean_ce + 0.7 * clean_gap}[attack]
        assert objective == pytest.approx(expected, rel=1e-5, abs=1e-6)
    assert max(batch["train_gap"] for batch in batches) > 0.01
    kwargs = calls[0][1]
    x32 = X.astype(np.float32)
    assert kwargs["eps"] == 0.2 and kwargs["norm"] == "linf" and kwargs["n_iter"] == 4
    assert kwargs["step"] == pytest.approx(2.5 * 0.2 / 4)
    assert kwargs["mask"].tolist() == [True, False, True]
    np.testing.assert_array_equal(kwargs["lower"].numpy(), x32.min(axis=0))
    np.testing.assert_array_equal(kwargs["upper"].numpy(), x32.max(axis=0))
    np.testing.assert_array_equal(model.bounds_, [X.min(axis=0), X.max(axis=0)])
    assert isinstance(kwargs["generator"], torch.Generator)


@pytest.mark.parametrize("norm", ["linf", "l2"])
def test_attacked_batches_stay_in_the_ball_and_the_data_bounds_and_masked_columns_stay(monkeypatch, norm):
    X, y, groups = data(64, seed=1)
    X = StandardScaler().fit_transform(X)  # negative values, which the forks' clamp to [0, 1] would destroy
    seen = []

    def recording(objective, X, **kwargs):
        X_adv = projected_gradient_ascent(objective, X, **kwargs)
        seen.append((X.numpy().copy(), X_adv.numpy()))
        return X_adv

    monkeypatch.setattr(_training_net, "projected_gradient_ascent", recording)
    FairAdversarialClassifier(**{**FAST, "attack_steps": 5}, eps=0.3, norm=norm, attack="both",
                              feature_mask=np.array([True, True, False])).fit(X, y, sensitive_features=groups)
    assert len(seen) == 3 * 4
    low, high = X.astype(np.float32).min(axis=0), X.astype(np.float32).max(axis=0)
    for x, x_adv in seen:
        delta = x_adv - x
        size = np.abs(delta).max(axis=1) if norm == "linf" else np.linalg.norm(delta, axis=1)
        assert size.max() <= 0.3 + 1e-6 and size.max() > 0.1
        np.testing.assert_array_equal(x_adv[:, 2], x[:, 2])
        assert (x_adv >= low).all() and (x_adv <= high).all()
        assert (x_adv < 0).any()


@pytest.mark.parametrize("feature_mask, moved", [("auto", [True, False, False, True, False]),
                                                  (None, [True] * 5)])
def test_auto_mask_leaves_one_hot_and_binary_columns_unperturbed_where_none_perturbs_them(
        monkeypatch, feature_mask, moved):
    X, y, groups = data(64, seed=3)
    category = np.random.default_rng(3).integers(0, 2, 64)
    # continuous, one-hot pair, continuous, a binary column coded -1/2
    X = np.column_stack([X[:, 0], category, 1 - category, X[:, 1], np.where(X[:, 2] > 0, 2.0, -1.0)])
    seen = []

    def recording(objective, X, **kwargs):
        X_adv = projected_gradient_ascent(objective, X, **kwargs)
        seen.append(np.abs((X_adv - X).numpy()).max(axis=0) > 0)
        return X_adv

    monkeypatch.setattr(_training_net, "projected_gradient_ascent", recording)
    model = FairAdversarialClassifier(**FAST, eps=0.3, feature_mask=feature_mask)
    model.fit(X, y, sensitive_features=groups)
    assert model.feature_mask_.tolist() == moved
    assert np.any(seen, axis=0).tolist() == moved


def test_a_batch_without_some_group_and_label_cell_trains_with_a_finite_gap():
    X, y, groups = data(48, seed=2)
    y[groups == 1] = 0  # group 1 has no positive: the y = 1 half of equalized odds has one group
    model = FairAdversarialClassifier(**FAST, attack="both").fit(X, y, sensitive_features=groups)
    assert np.isfinite([epoch["train_loss"] for epoch in model.history_]).all()
    assert np.isfinite(model.predict_proba(X)).all()


# (2) Without an attack: fairness-regularised training, and ERM

def test_eps_zero_with_an_attack_trains_exactly_as_no_attack():
    X, y, groups = data()
    attacked = FairAdversarialClassifier(**FAST, attack="both", eps=0.0).fit(X, y, sensitive_features=groups)
    clean = FairAdversarialClassifier(**FAST, attack="none", eps=0.3).fit(X, y, sensitive_features=groups)
    np.testing.assert_array_equal(attacked.predict_proba(X), clean.predict_proba(X))
    assert [e["train_loss"] for e in attacked.history_] == [e["train_loss"] for e in clean.history_]
    real = FairAdversarialClassifier(**FAST, attack="both", eps=0.3).fit(X, y, sensitive_features=groups)
    assert not np.array_equal(real.predict_proba(X), clean.predict_proba(X))


def test_lambda_zero_without_an_attack_is_erm_with_cross_entropy():
    from skorch import NeuralNet

    from fairkit.utils.nn import MLP, Minibatches, forward, seeded

    X, y, groups = data()
    model = FairAdversarialClassifier(**FAST, lambda_fair=0.0, eps=0.0).fit(X, y, sensitive_features=groups)
    # a plain skorch net on the standardised features, seeded by the estimator's first draw from random_state
    mean, scale = (torch.tensor(v, dtype=torch.float32) for v in (X.mean(axis=0), X.std(axis=0)))
    z = ((torch.tensor(X, dtype=torch.float32) - mean) / scale).numpy()
    plain = NeuralNet(MLP, torch.nn.CrossEntropyLoss, module__n_inputs=3, module__n_outputs=2,
                      module__hidden_layer_sizes=(8,), optimizer=torch.optim.Adam, lr=3e-2, max_epochs=3,
                      batch_size=16, train_split=None, iterator_train=Minibatches,
                      iterator_train__shuffle=True)
    with seeded(np.random.RandomState(0).randint(np.iinfo(np.int32).max)):
        plain.fit({"x": z}, y.astype(np.int64))
    expected = softmax(forward(plain, (X - X.mean(axis=0)) / X.std(axis=0)), axis=1)
    np.testing.assert_allclose(model.predict_proba(X), expected, rtol=1e-6, atol=1e-7)
    assert model.history_[-1]["train_gap"] > 0  # the gap was there, with weight 0


# (3) The paper's effects, on small synthetic problems

def biased(seed, n):
    """Labels that depend on the group, and a feature that reveals it: ERM has a large equalized-odds gap."""
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, 2, n)
    x0 = rng.normal(size=n)
    X = np.column_stack([x0, groups + 0.3 * rng.normal(size=n), rng.normal(size=n)])
    y = (rng.random(n) < 1 / (1 + np.exp(-(3 * x0 + 4 * (groups - 0.5))))).astype(int)
    return X, y, groups


def check_lambda_fair_lowers_the_equalized_odds_gap(seed, eps):
    # seen over seeds 0-5 on 4000 held-out rows, λ=0 against λ=1: soft gap 0.18-0.33 against 0.01-0.08
    # (eps 0 and 0.1); hard gap 0.23-0.34 against 0.02-0.11 (eps 0), 0.16-0.30 against 0.06-0.17 (eps 0.1)
    params = {"hidden_layer_sizes": (16,), "max_epochs": 20, "batch_size": 64, "lr": 1e-2, "attack_steps": 3,
              "eps": eps, "random_state": seed}
    X, y, groups = biased(seed, 600)
    X_test, y_test, groups_test = biased(100 + seed, 4000)
    soft, hard = [], []
    for lambda_fair in (0.0, 1.0):
        model = FairAdversarialClassifier(**params, lambda_fair=lambda_fair)
        model.fit(X, y, sensitive_features=groups)
        soft.append(hand_gap(model.predict_proba(X_test)[:, 1], y_test, groups_test, "equalized_odds"))
        hard.append(hard_equalized_odds(y_test, model.predict(X_test), groups_test))
    assert soft[1] < soft[0] - 0.1, (seed, soft)
    assert hard[1] < hard[0] - (0.1 if eps == 0 else 0.0), (seed, hard)


@pytest.mark.parametrize("eps", [0.0, 0.1])
def test_lambda_fair_lowers_the_equalized_odds_gap_against_lambda_zero(eps):
    check_lambda_fair_lowers_the_equalized_odds_gap(0, eps)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
@pytest.mark.parametrize("eps", [0.0, 0.1])
def test_lambda_fair_lowers_the_equalized_odds_gap_over_seeds(seed, eps):
    check_lambda_fair_lowers_the_equalized_odds_gap(seed, eps)


def robust_and_brittle(seed, n):
    """One robust feature (margin 1, noise 0.6) and ten brittle ones (margin 0.4, noise 1), all in units of 1.

    Under an L∞ attack of 0.5 the brittle features flip; a model on the robust one alone keeps an
    accuracy of Φ(0.5 / 0.6) ≈ 0.80.
    """
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    sign = 2 * y - 1
    robust, brittle = sign + 0.6 * rng.normal(size=n), 0.4 * sign[:, None] + rng.normal(size=(n, 10))
    return np.column_stack([robust, brittle]), y


def accuracy_under_attack(model, X, y, eps):
    """Accuracy on X attacked by PGD on the cross-entropy (10 steps) of the fitted network, in float64."""
    module = copy.deepcopy(model.net_.module_).double().eval()
    mean, scale = torch.tensor(model.x_scaler_.mean_), torch.tensor(model.x_scaler_.scale_)
    labels = torch.tensor(y)

    def loss(Z):
        return F.cross_entropy(module((Z - mean) / scale), labels)
    X_adv = projected_gradient_ascent(loss, torch.tensor(X), eps=eps, norm="linf", step=eps / 4, n_iter=10,
                                      generator=torch.Generator().manual_seed(0))
    return np.mean(model.predict(X_adv.numpy()) == y)


def check_adversarial_training_is_more_accurate_under_attack(seed):
    # seen over seeds 0-3: ERM 0.62-0.67 under attack, adversarial training 0.77-0.81
    params = {"hidden_layer_sizes": (16,), "max_epochs": 15, "batch_size": 64, "lr": 1e-2, "attack_steps": 5,
              "lambda_fair": 0.0, "random_state": seed}
    X, y = robust_and_brittle(seed, 600)
    X_test, y_test = robust_and_brittle(100 + seed, 2000)
    with pytest.warns(FairkitWarning, match="no sensitive features"):
        erm = FairAdversarialClassifier(**params, eps=0.0).fit(X, y)
    with pytest.warns(FairkitWarning, match="no sensitive features"):
        robust = FairAdversarialClassifier(**params, eps=0.5, attack="accuracy").fit(X, y)
    under_attack = [accuracy_under_attack(model, X_test, y_test, 0.5) for model in (erm, robust)]
    assert under_attack[1] > under_attack[0] + 0.07, (seed, under_attack)
    assert np.mean(robust.predict(X_test) == y_test) > 0.9


def test_adversarial_training_on_accuracy_is_more_accurate_under_the_accuracy_attack_than_erm():
    check_adversarial_training_is_more_accurate_under_attack(0)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_adversarial_training_is_more_accurate_under_attack_over_seeds(seed):
    check_adversarial_training_is_more_accurate_under_attack(seed)


# (4) scikit-learn's common checks and fairkit's fairness checks

@parametrize_with_checks([FairAdversarialClassifier(**params)
                          for params in FairAdversarialClassifier.get_test_params()])
def test_estimator_checks(estimator, check):
    check(estimator)


# (5) Sensitive features: routed, or columns of X hidden from the network

def test_sensitive_cols_give_the_groups_are_hidden_from_the_network_and_never_perturbed(monkeypatch):
    X, y, groups = data()
    frame = pd.DataFrame({"x0": X[:, 0], "group": np.where(groups == 1, "u", "v"), "x1": X[:, 1],
                          "x2": X[:, 2]})
    masks = []

    def recording(objective, X, **kwargs):
        masks.append(kwargs["mask"].tolist())
        return projected_gradient_ascent(objective, X, **kwargs)

    monkeypatch.setattr(_training_net, "projected_gradient_ascent", recording)
    mask = frame.columns.isin(["x0", "group", "x2"])
    model = FairAdversarialClassifier(**FAST, sensitive_cols="group", feature_mask=mask).fit(frame, y)
    assert list(model.groups_) == ["u", "v"] and model.net_.module__n_inputs == 3
    assert masks[0] == [True, False, True]  # x0, x1, x2: the group column is not the network's
    assert model.feature_mask_.tolist() == [True, False, False, True]
    assert np.isinf(model.bounds_[:, 1]).all() and np.isfinite(model.bounds_[:, [0, 2, 3]]).all()
    flipped = frame.assign(group=np.where(frame["group"] == "u", "v", "u"))
    np.testing.assert_array_equal(model.predict_proba(frame), model.predict_proba(flipped))
    explicit = FairAdversarialClassifier(**FAST, feature_mask=mask[[0, 2, 3]]).fit(
        frame[["x0", "x1", "x2"]], y, sensitive_features=frame["group"])
    np.testing.assert_array_equal(model.predict_proba(frame),
                                  explicit.predict_proba(frame[["x0", "x1", "x2"]]))


def test_the_fitted_mask_and_bounds_set_up_the_plugins_attack_on_the_same_features():
    from fairkit_robust._attacks import AccuracyAttack

    X, y, groups = data(64, seed=4)
    X = np.column_stack([X[:, :2], X[:, 2] > 0, groups])  # a, b, a binary column, the group
    model = FairAdversarialClassifier(**FAST, sensitive_cols=3).fit(X, y)
    assert model.feature_mask_.tolist() == [True, True, False, False]
    attack = AccuracyAttack(eps=0.1, n_iter=5, feature_mask=model.feature_mask_, bounds=tuple(model.bounds_),
                            random_state=0)
    moved = attack.perturb(model, X, y) - X
    assert 0.05 < np.abs(moved[:, :2]).max() <= 0.1 + 1e-12
    assert not moved[:, 2:].any()


def test_routed_sensitive_features_reach_fit_through_a_pipeline():
    X, y, groups = data()
    with config_context(enable_metadata_routing=True):
        step = FairAdversarialClassifier(**FAST).set_fit_request(sensitive_features=True)
        pipe = make_pipeline(StandardScaler(), step).fit(X, y, sensitive_features=groups)
    scaled = StandardScaler().fit_transform(X)
    direct = FairAdversarialClassifier(**FAST).fit(scaled, y, sensitive_features=groups)
    assert list(pipe[-1].groups_) == [0, 1]
    np.testing.assert_array_equal(pipe.predict_proba(X), direct.predict_proba(scaled))


def test_cross_validation_and_grid_search_split_the_routed_sensitive_features_per_fold():
    X, y, groups = data(64)
    with config_context(enable_metadata_routing=True):
        model = FairAdversarialClassifier(**FAST).set_fit_request(sensitive_features=True)
        folds = cross_validate(model, X, y, cv=KFold(2), params={"sensitive_features": groups},
                               return_estimator=True)["estimator"]
        search = GridSearchCV(model, {"lambda_fair": [0.0, 1.0]}, cv=2).fit(X, y, sensitive_features=groups)
    for fitted, train in zip(folds, (slice(32, 64), slice(0, 32)), strict=True):  # fold 1 fits the 2nd half
        alone = FairAdversarialClassifier(**FAST).fit(X[train], y[train], sensitive_features=groups[train])
        np.testing.assert_array_equal(fitted.predict_proba(X), alone.predict_proba(X))
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()
    assert list(search.best_estimator_.groups_) == [0, 1]


def test_without_sensitive_features_it_warns_and_the_gap_is_zero():
    X, y, _ = data()
    with pytest.warns(FairkitWarning, match="one group"):
        model = FairAdversarialClassifier(**FAST, attack="both").fit(X, y)
    assert len(model.groups_) == 1
    assert all(epoch["train_gap"] == 0 for epoch in model.history_)


# (6) Other modules, string labels, persistence

class TwoLayers(torch.nn.Module):
    def __init__(self, n_inputs, n_outputs, width=4):
        super().__init__()
        self.width = width
        self.layers = torch.nn.Sequential(torch.nn.Linear(n_inputs, width), torch.nn.Tanh(),
                                          torch.nn.Linear(width, n_outputs))

    def forward(self, x):
        return self.layers(x)


def test_net_params_module_replaces_the_mlp_and_string_labels_are_kept():
    X, y, groups = data()
    labels = np.where(y == 1, "yes", "no")
    model = FairAdversarialClassifier(**FAST, net_params={"module": TwoLayers, "module__width": 5})
    model.fit(X, labels, sensitive_features=groups)
    assert isinstance(model.net_.module_, TwoLayers) and model.net_.module_.width == 5
    proba = model.predict_proba(X)
    assert list(model.classes_) == ["no", "yes"]
    np.testing.assert_array_equal(model.predict(X), model.classes_[proba.argmax(axis=1)])


def test_pickling_keeps_the_predictions_and_saves_the_network_as_arrays():
    X, y, groups = data()
    model = FairAdversarialClassifier(**FAST).fit(X, y, sensitive_features=groups)
    state = model.__getstate__()
    assert "net_" not in state
    arrays = state["_net_state"]["arrays"]["module"]
    assert arrays and all(isinstance(value, np.ndarray) for value in arrays.values())
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(restored.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(restored.bounds_, model.bounds_)


# (7) Refusals: a clear error that changes nothing

@pytest.mark.parametrize("params, message", [
    ({"notion": "eod"}, "'notion' parameter"),
    ({"attack": "pgd"}, "'attack' parameter"),
    ({"norm": "l1"}, "'norm' parameter"),
    ({"eps": -0.1}, "'eps' parameter"),
    ({"lambda_fair": -1.0}, "'lambda_fair' parameter"),
    ({"attack_steps": 0}, "'attack_steps' parameter"),
    ({"attack_step": 0.0}, "'attack_step' parameter"),
    ({"bounds": "unit"}, "'bounds' parameter"),
    ({"bounds": (0.0,)}, r"bounds must be 'data', None or a pair .*; got \(0.0,\)"),
    ({"bounds": (np.zeros(3), np.ones(2))}, r"bounds must be .* shape \(n_features_in_,\) = \(3,\)"),
    ({"bounds": (1.0, 0.0)}, "lower exceeds upper for 3 column"),
    ({"bounds": (np.nan, np.inf)}, "they hold NaN"),
    ({"bounds": (0.0, np.inf)}, r"training value\(s\) lie outside them"),
    ({"feature_mask": [1, 0, 1]}, "feature_mask must be 'auto', None or an array of bools .* dtype int64"),
    ({"feature_mask": [True, False]}, r"shape \(n_features_in_,\) = \(3,\).* shape \(2,\)"),
    ({"hidden_layer_sizes": (8, 0)}, "hidden_layer_sizes must be a sequence of positive integers"),
    ({"net_params": {"optimiser__lr": 0.1}}, "'optimiser__lr': the net has no component 'optimiser'"),
    ({"net_params": {"criterion__reduction": "none"}}, "one scalar per batch"),
    ({"device": "no-such-device"}, "device='no-such-device' cannot be used by this torch"),
])
def test_invalid_parameters_raise_and_leave_no_state(params, message):
    X, y, groups = data()
    model = FairAdversarialClassifier(**{**FAST, **params})
    with pytest.raises(ValueError, match=message):
        model.fit(X, y, sensitive_features=groups)
    assert_unfitted(model)


def test_multiclass_and_single_class_targets_and_wrong_length_sensitive_features_are_refused():
    X, y, groups = data()
    model = FairAdversarialClassifier(**FAST)
    with pytest.raises(ValueError, match="Only binary classification is supported. The type of the target is "
                                         "multiclass"):
        model.fit(X, np.arange(48) % 3, sensitive_features=groups)
    with pytest.raises(ValueError, match="needs samples of 2 classes; y has 1 class"):
        model.fit(X, np.zeros(48), sensitive_features=groups)
    with pytest.raises(ValueError, match="sensitive_features"):
        model.fit(X, y, sensitive_features=groups[:-1])
    assert_unfitted(model)


def test_missing_torch_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "fairkit_robust._training_net", None)
    X, y, groups = data()
    with pytest.raises(ImportError, match=r"fairkit-robust\[nn\]"):
        FairAdversarialClassifier(**FAST).fit(X, y, sensitive_features=groups)


def test_importing_the_estimator_does_not_import_torch():
    code = ("import sys, fairkit_robust, fairkit_robust._training; "
            "assert 'torch' not in sys.modules and 'skorch' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
