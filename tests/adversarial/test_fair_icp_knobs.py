"""FairICP's adversary_weights (cell weights of the adversarial loss) and validation_fraction
(the epoch chosen on held-out fairness)."""

import warnings
from collections import Counter
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import torch
from sklearn.metrics import log_loss
from skorch.callbacks import Callback

from fairkit.adversarial import FairICPClassifier, FairICPRegressor
from fairkit.adversarial._fair_icp import _cell_groups, _term_weights
from fairkit.adversarial._net import MLP, AdversarialNet
from fairkit.exceptions import FairkitWarning
from fairkit.metrics import kernel_partial_correlation

FAST = {"max_epochs": 3, "batch_size": 32, "icp_sweeps": 5, "random_state": 0}


def categorical_data(n, seed):
    """Two categorical attributes (one int-coded), a continuous one; a feature that leaks sex given y."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    A = pd.DataFrame({"sex": rng.choice(["F", "M"], n, p=[0.3, 0.7]), "race": rng.choice([0, 1, 2], n),
                      "age": rng.normal(40, 10, n)})
    X = np.column_stack([y + rng.normal(size=n), (A["sex"] == "F") + 0.8 * y + rng.normal(size=n),
                         rng.normal(size=n)])
    return X, y, A


class TermLogits(torch.nn.Module):
    """A stand-in discriminator: one free logit per term of the batch, all 0, whatever it is shown."""

    def __init__(self, n_terms):
        super().__init__()
        self.logits = torch.nn.Parameter(torch.zeros(n_terms))

    def forward(self, inputs):
        assert len(inputs) == len(self.logits)
        return self.logits[:, None]


# A hand-built batch: (sex, race) groups and labels, and an age that is continuous. Each label's
# cells: y = 0: (F,a) 2, (M,a) 1, (M,b) 3, (F,b) 1; y = 1: (F,a) 1, (M,a) 2, (M,b) 1, (F,b) 1.
SEX = ["F", "F", "M", "M", "M", "M", "F", "F", "M", "M", "M", "F"]
RACE = ["a", "a", "a", "b", "b", "b", "b", "a", "a", "a", "b", "b"]
Y = np.array([0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
# Ã: each label's rows reversed, so row k's real term shows another row's group with its own label
ORDER = np.r_[np.arange(7)[::-1], 7 + np.arange(5)[::-1]]


def weights_in_the_loss(adversary_weights, fool):
    """Each term's weight in the adversarial loss of the hand-built batch, read off its gradient.

    With every logit 0, the gradient of the mean weighted binary cross-entropy with respect
    to term t's logit is ``w_t (1/2 - label_t) / n_terms``, so ``w_t = 2 n_terms |gradient|``.
    Returns the weights of the real terms (ŷ, Ã, y) and of the fake terms (ŷ, A, y).
    """
    n = len(Y)
    frame = pd.DataFrame({"sex": SEX, "race": RACE, "age": np.linspace(20, 70, n)})
    net = AdversarialNet(MLP, torch.nn.CrossEntropyLoss, module__n_inputs=1, module__n_outputs=2,
                         discriminator=TermLogits, discriminator__n_terms=2 * n, mu=0.5,
                         sensitive_sampler=SimpleNamespace(sample=lambda n_copies: ORDER[None, :]))
    if adversary_weights != "rows":
        net.term_weights = _term_weights(_cell_groups(frame, n), Y, 2, adversary_weights)
    net.initialize()
    a = np.arange(n, dtype=np.float32)[:, None]  # what the discriminator is shown does not matter here
    net.on_epoch_begin(net, dataset_train=SimpleNamespace(X={"a": a}))
    batch = {"x": torch.zeros(n, 1), "a": torch.as_tensor(a), "index": torch.arange(n)}
    loss = net._discriminator_loss(torch.zeros(n, 2), batch, torch.as_tensor(Y), fool=fool)
    loss.backward()
    weights = 4 * n * net.discriminator_.logits.grad.abs().numpy()
    assert loss.item() == pytest.approx(np.log(2) * weights.mean())
    return weights[:n], weights[n:]


def cell_totals(weights, rows):
    """Total weight of the terms showing the (sex, race) group of ``rows[k]`` with label Y[k]."""
    totals = Counter()
    for k, row in enumerate(rows):
        totals[(SEX[row], RACE[row], Y[k])] += weights[k]
    return totals


@pytest.mark.parametrize("fool", [False, True], ids=["discriminator", "predictor"])
def test_cells_give_each_group_label_cell_the_same_total_weight_in_the_adversarial_loss(fool):
    real, fake = weights_in_the_loss("cells", fool)
    identity = np.arange(len(Y))
    counts = Counter(zip(SEX, RACE, Y, strict=True))
    # the oracle: a term in a cell of c samples weighs n / (number of cells · c), 1 on average
    expected = np.array([len(Y) / (len(counts) * counts[(SEX[r], RACE[r], Y[r])]) for r in identity])
    np.testing.assert_allclose(fake, expected, rtol=1e-6)
    # a real term weighs as the cell it shows (Ã's group, y): that of row ORDER[k], not row k's own
    np.testing.assert_allclose(real, expected[ORDER], rtol=1e-6)
    assert not np.allclose(real, expected)
    for weights, rows in ((fake, identity), (real, ORDER)):
        totals = cell_totals(weights, rows)
        assert len(totals) == 8
        np.testing.assert_allclose(list(totals.values()), len(Y) / 8, rtol=1e-6)


def test_sqrt_cells_weigh_by_the_inverse_square_root_of_the_cell_share_and_rows_weigh_one():
    real, fake = weights_in_the_loss("sqrt_cells", fool=False)
    counts = Counter(zip(SEX, RACE, Y, strict=True))
    raw = np.array([counts[key] ** -0.5 for key in zip(SEX, RACE, Y, strict=True)])
    np.testing.assert_allclose(fake, raw / raw.mean(), rtol=1e-6)
    np.testing.assert_allclose(real, (raw / raw.mean())[ORDER], rtol=1e-6)
    for weights in weights_in_the_loss("rows", fool=False):  # today's unweighted mean
        np.testing.assert_allclose(weights, 1.0, rtol=1e-6)


def test_a_term_showing_a_cell_without_training_samples_weighs_nothing():
    # group 1 never has label 1: the term of the row with label 1 that shows group 1 has no cell
    weights = _term_weights(np.array([0, 0, 1, 0]), np.array([0, 1, 0, 1]), 2, "cells")
    # cells (0, 0), (0, 1), (1, 0) hold 1, 2 and 1 samples: 1 / P̂ is 4, 2, 4; the mean over samples is 3
    np.testing.assert_allclose(weights(np.arange(4)), [4 / 3, 2 / 3, 4 / 3, 2 / 3])
    assert weights(np.array([0, 2, 1, 3]))[1] == 0.0


class CaptureTermWeights(Callback):
    """Keeps the term weights of the first epoch (the net computes them before callbacks run)."""

    def on_epoch_begin(self, net, **kwargs):
        if not hasattr(self, "weights"):
            self.weights = net.term_weights_.numpy().copy()


def test_the_estimator_weighs_cells_of_the_categorical_attributes_and_label():
    # race is int-coded (3 values): a category; age is continuous and forms no cells
    X, y, A = categorical_data(300, 0)
    capture = CaptureTermWeights()
    FairICPClassifier(mu=0.5, adversary_weights="cells", net_params={"callbacks": [("capture", capture)]},
                      **FAST).fit(X, y, sensitive_features=A)
    fake = capture.weights[1]  # row k's term showing its own attributes
    cells = pd.Series(fake).groupby([A["sex"], A["race"], y]).sum()
    assert len(cells) == 12
    np.testing.assert_allclose(cells, 300 / 12, rtol=1e-5)


def test_with_continuous_attributes_only_the_cells_are_the_labels():
    X, y, A = categorical_data(300, 0)
    capture = CaptureTermWeights()
    FairICPClassifier(mu=0.5, adversary_weights="cells", net_params={"callbacks": [("capture", capture)]},
                      **FAST).fit(X, y, sensitive_features=A[["age"]])
    np.testing.assert_allclose(capture.weights[1], 300 / (2 * np.bincount(y)[y]), rtol=1e-5)


def test_mu_zero_is_unchanged_by_adversary_weights():
    X, y, A = categorical_data(200, 0)
    probabilities = [FairICPClassifier(mu=0.0, adversary_weights=weights, **FAST)
                     .fit(X, y, sensitive_features=A).predict_proba(X)
                     for weights in ("rows", "cells", "sqrt_cells")]
    np.testing.assert_array_equal(probabilities[0], probabilities[1])
    np.testing.assert_array_equal(probabilities[0], probabilities[2])
    fair = [FairICPClassifier(mu=0.5, adversary_weights=weights, **FAST)
            .fit(X, y, sensitive_features=A).predict_proba(X) for weights in ("rows", "cells")]
    assert not np.array_equal(*fair)  # with an adversary, the weights do change the fit


def test_the_regressor_weighs_groups_and_refuses_cells_without_a_categorical_attribute():
    X, y, A = categorical_data(200, 0)
    target = X[:, 0] + np.random.default_rng(0).normal(size=200)
    capture = CaptureTermWeights()
    FairICPRegressor(mu=0.5, adversary_weights="cells", net_params={"callbacks": [("capture", capture)]},
                     **FAST).fit(X, target, sensitive_features=A[["sex", "age"]])
    np.testing.assert_allclose(pd.Series(capture.weights[1]).groupby(A["sex"]).sum(), 100, rtol=1e-5)
    model = FairICPRegressor(adversary_weights="sqrt_cells", **FAST)
    with pytest.raises(ValueError, match="adversary_weights='sqrt_cells' weighs FairICPRegressor's .* every "
                                         "sensitive feature is continuous .* so there are no groups"):
        model.fit(X, target, sensitive_features=A[["age"]])
    assert not any(key.endswith("_") and not key.startswith("_") for key in vars(model))


def chosen_in_history(history):
    """The epoch the rule selects, recomputed from the history: the lowest held-out KPC among the
    epochs whose held-out task loss is at most the last one's (ties: the lower loss, the earlier)."""
    last = history[-1]["valid_task_loss"]
    return min((epoch for epoch in history if epoch["valid_task_loss"] <= last),
               key=lambda epoch: (epoch.get("valid_kpc", 0.0), epoch["valid_task_loss"], epoch["epoch"]))


def test_fairness_based_selection_restores_the_epoch_with_the_best_held_out_score():
    X, y, A = categorical_data(600, 0)
    model = FairICPClassifier(mu=0.9, max_epochs=12, batch_size=32, icp_sweeps=5, validation_fraction=0.25,
                              random_state=1).fit(X, y, sensitive_features=A)
    history = model.history_
    assert all({"valid_task_loss", "valid_kpc"} <= set(epoch) for epoch in history)
    chosen = chosen_in_history(history)
    assert model.selected_epoch_ == chosen["epoch"] < len(history)  # a real choice, not the last epoch
    assert chosen["valid_kpc"] < history[-1]["valid_kpc"]
    held_out = model.validation_indices_
    proba = model.predict_proba(X[held_out])  # the restored networks' predictions
    assert kernel_partial_correlation(proba, A.iloc[held_out], y[held_out], random_state=0) == pytest.approx(
        chosen["valid_kpc"], abs=1e-12)
    assert log_loss(y[held_out], proba) == pytest.approx(chosen["valid_task_loss"], rel=1e-9)


def test_the_held_out_samples_are_a_share_of_every_cell_and_train_nothing():
    X, y, A = categorical_data(600, 0)
    params = {**FAST, "mu": 0.5, "validation_fraction": 0.25}
    model = FairICPClassifier(**params).fit(X, y, sensitive_features=A)
    held_out = np.zeros(len(y), bool)
    held_out[model.validation_indices_] = True
    share = pd.Series(held_out).groupby([A["sex"], A["race"], y]).agg(["sum", "size"])
    assert (abs(share["sum"] - 0.25 * share["size"]) < 1).all()
    # other features in the held-out samples: the same training, epoch by epoch (only their scores differ)
    X_other = X.copy()
    X_other[held_out] = 100.0
    other = FairICPClassifier(**params).fit(X_other, y, sensitive_features=A)
    np.testing.assert_array_equal(other.validation_indices_, model.validation_indices_)
    training = ("train_loss", "train_task_loss", "discriminator_loss")
    assert ([[epoch[key] for key in training] for epoch in other.history_]
            == [[epoch[key] for key in training] for epoch in model.history_])
    assert other.history_[-1]["valid_task_loss"] != model.history_[-1]["valid_task_loss"]


def test_without_sensitive_features_the_lowest_held_out_task_loss_is_restored_and_a_refit_resets():
    X, y, _ = categorical_data(400, 0)
    model = FairICPClassifier(max_epochs=8, validation_fraction=0.3, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FairkitWarning)
        model.fit(X, y)
    losses = [epoch["valid_task_loss"] for epoch in model.history_]
    assert "valid_kpc" not in model.history_[-1]
    assert model.selected_epoch_ == 1 + int(np.argmin(losses))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FairkitWarning)
        model.set_params(validation_fraction=None).fit(X, y)
    assert model.validation_indices_ is None and model.selected_epoch_ == 8
    assert "valid_task_loss" not in model.history_[-1]


def test_the_regressor_selects_on_the_held_out_kpc_of_its_predictions():
    X, _, A = categorical_data(400, 0)
    y = X[:, 0] + np.random.default_rng(1).normal(size=400)
    model = FairICPRegressor(mu=0.5, max_epochs=6, validation_fraction=0.25, random_state=0).fit(
        X, y, sensitive_features=A)
    chosen = chosen_in_history(model.history_)
    assert model.selected_epoch_ == chosen["epoch"]
    held_out = model.validation_indices_
    y_pred = model.predict(X[held_out])
    kpc = kernel_partial_correlation(y_pred, A.iloc[held_out], y[held_out], random_state=0)
    assert kpc == pytest.approx(chosen["valid_kpc"], abs=1e-9)


@pytest.mark.parametrize("n_samples, fraction, message", [
    (30, 0.2, r"validation_fraction=0.2 cannot hold out that share of every \(group, label\) cell of "
              "n_samples=30: each needs at least 2 samples, and .* have 1"),
    (200, 0.01, r"validation_fraction=0.01 cannot hold out that share of every \(group, label\) cell of "
                "n_samples=200: The test_size"),
])
def test_a_hold_out_that_cannot_be_stratified_is_refused_and_leaves_no_state(n_samples, fraction, message):
    X, y, A = categorical_data(n_samples, 0)
    model = FairICPClassifier(validation_fraction=fraction, **FAST)
    with pytest.raises(ValueError, match=message):
        model.fit(X, y, sensitive_features=A)
    assert not any(key.endswith("_") and not key.startswith("_") for key in vars(model))
