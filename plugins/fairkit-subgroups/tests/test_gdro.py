"""GroupDROClassifier: the reference LossComputer update, its fix for empty groups, the API."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from fairkit import FairkitWarning
from fairkit.utils.estimator_checks import parametrize_with_checks
from fairkit_subgroups._gdro import GroupDROClassifier

torch = pytest.importorskip("torch")  # the nn extra; the test extra installs it
from fairkit_subgroups._gdro_net import group_dro_step  # noqa: E402

FAST = {"hidden_layer_sizes": (8,), "max_epochs": 3, "batch_size": 16, "lr": 3e-2, "random_state": 0}


def loss_computer_step(losses, groups, q, counts, adj, step_size):
    """``LossComputer.compute_robust_loss`` of the reference (anissa218/subgroups_bias_mit), in numpy.

    Written from the reference: per-group means over a group map (an absent group's mean is 0),
    the size term added to them in place, ``q * exp(step_size * adjusted)`` renormalised, and
    the loss ``adjusted @ q``.
    """
    group_map = (groups == np.arange(len(q))[:, None]).astype(float)
    group_count = group_map.sum(axis=1)
    group_loss = group_map @ losses / (group_count + (group_count == 0))
    group_loss += adj / np.sqrt(counts)
    q = q * np.exp(step_size * group_loss)
    q = q / q.sum()
    return group_loss @ q, q


def fixed_step(losses, groups, q, counts, adj, step_size):
    """The documented fix: the reference step on the groups present in the batch alone.

    Absent groups keep their weight; the present ones share the rest of the mass.
    """
    present = np.unique(groups)
    mass = q[present].sum()
    loss, q_present = loss_computer_step(losses, np.searchsorted(present, groups), q[present] / mass,
                                         counts[present], adj, step_size)
    q = q.copy()
    q[present] = mass * q_present
    return mass * loss, q


def step(losses, groups, q, counts, adj, eta):
    """``group_dro_step`` on numpy inputs; returns the loss, the new q and d loss / d losses."""
    losses = torch.tensor(losses, dtype=torch.float64, requires_grad=True)
    loss, q = group_dro_step(losses, torch.tensor(groups), np.asarray(q, dtype=np.float64),
                             adj / np.sqrt(np.asarray(counts, dtype=np.float64)), eta)
    loss.backward()
    return loss.item(), q, losses.grad.numpy()


# (1) The reference update, on a two-batch example computed by hand

def test_two_batches_match_the_reference_update_and_the_documented_fix_for_an_absent_group():
    counts, adj, eta = np.array([4, 4, 16]), 1.0, 0.5  # size terms 1/√n_g = 0.5, 0.5, 0.25
    # batch 1, every group present: means (0.4, 1.0, 0.3), adjusted (0.9, 1.5, 0.55)
    groups1, losses1 = np.array([0, 0, 1, 2, 2, 2]), np.array([0.2, 0.6, 1.0, 0.3, 0.5, 0.1])
    q1_hand = np.exp([0.45, 0.75, 0.275]) / np.exp([0.45, 0.75, 0.275]).sum()
    loss1_hand = q1_hand @ [0.9, 1.5, 0.55]
    loss1, q1, _ = step(losses1, groups1, np.full(3, 1 / 3), counts, adj, eta)
    np.testing.assert_allclose(q1, q1_hand, rtol=1e-12)
    assert loss1 == pytest.approx(loss1_hand, rel=1e-12)
    loss1_ref, q1_ref = loss_computer_step(losses1, groups1, np.full(3, 1 / 3), counts, adj, eta)
    np.testing.assert_allclose(q1_ref, q1_hand, rtol=1e-12)
    assert loss1_ref == pytest.approx(loss1_hand, rel=1e-12)

    # batch 2, group 2 absent: means (0.8, 0.5, -), adjusted (1.3, 1.0, -)
    groups2, losses2 = np.array([0, 1, 1]), np.array([0.8, 0.4, 0.6])
    grown = q1_hand[:2] * np.exp([0.65, 0.5])
    q2_hand = np.append(grown * (1 - q1_hand[2]) / grown.sum(), q1_hand[2])
    loss2_hand = q2_hand[0] * 1.3 + q2_hand[1] * 1.0
    loss2, q2, grad2 = step(losses2, groups2, q1, counts, adj, eta)
    np.testing.assert_allclose(q2, q2_hand, rtol=1e-12)
    assert loss2 == pytest.approx(loss2_hand, rel=1e-12)
    np.testing.assert_allclose(grad2, [q2_hand[0], q2_hand[1] / 2, q2_hand[1] / 2], rtol=1e-12)
    np.testing.assert_allclose(fixed_step(losses2, groups2, q1_hand, counts, adj, eta)[1], q2_hand,
                               rtol=1e-12)

    # the reference scores absent group 2 as if its loss were 0 (adjusted 0 + 0.25): its weight
    # falls, and its size term enters the loss; the fix keeps its weight and leaves it out
    q2_ref_hand = q1_hand * np.exp(0.5 * np.array([1.3, 1.0, 0.25]))
    q2_ref_hand /= q2_ref_hand.sum()
    loss2_ref, q2_ref = loss_computer_step(losses2, groups2, q1_hand, counts, adj, eta)
    np.testing.assert_allclose(q2_ref, q2_ref_hand, rtol=1e-12)
    assert loss2_ref == pytest.approx(q2_ref_hand @ [1.3, 1.0, 0.25], rel=1e-12)
    assert q2_ref[2] < q1_hand[2] - 0.02
    assert q2[2] == pytest.approx(q1_hand[2], rel=1e-15)


def test_the_estimator_applies_the_update_batch_by_batch_and_carries_q_across_epochs():
    # lr=0 keeps the network at its initial weights, so the per-sample losses are known from
    # predict_proba; batches of 4 in order: the last one, rows 8-9, has no sample of group 2
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(10, 3)), np.array([0, 1, 1, 0, 1, 0, 0, 1, 1, 0])
    groups = np.array([0, 1, 2, 2, 0, 2, 1, 2, 0, 1])
    model = GroupDROClassifier((4,), eta=2.0, size_adjustment=0.5, max_epochs=2, batch_size=4,
                               random_state=0, net_params={"lr": 0.0, "iterator_train__shuffle": False})
    model.fit(X, y, sensitive_features=groups)
    losses = -np.log(model.predict_proba(X)[np.arange(10), y])
    counts = np.bincount(groups)
    q, q_ref, expected_q, batch_losses = np.full(3, 1 / 3), np.full(3, 1 / 3), [], []
    for _ in range(2):
        for rows in (slice(0, 4), slice(4, 8), slice(8, 10)):
            loss, q = fixed_step(losses[rows], groups[rows], q, counts, 0.5, 2.0)
            q_ref = loss_computer_step(losses[rows], groups[rows], q_ref, counts, 0.5, 2.0)[1]
            batch_losses.append(loss)
        expected_q.append(q)
    np.testing.assert_array_equal(model.group_counts_, counts)
    np.testing.assert_allclose(model.group_weights_, expected_q, rtol=1e-5)
    recorded = [batch["train_loss"] for epoch in model.net_.history for batch in epoch["batches"]]
    np.testing.assert_allclose(recorded, batch_losses, rtol=1e-5)
    assert q_ref[2] < q[2] - 0.01  # the reference's update, which lowers absent group 2, differs here


# (2) eta = 0

def test_eta_zero_keeps_the_weights_uniform_and_with_balanced_batches_trains_as_erm():
    rng = np.random.default_rng(0)
    groups = np.tile([0, 1], 40)  # every batch of 16 in order holds 8 of each group
    X = rng.normal(size=(80, 3)) + groups[:, None]
    y = (X[:, 0] + 0.5 * rng.normal(size=80) > 0.5).astype(int)
    params = {**FAST, "max_epochs": 4, "net_params": {"iterator_train__shuffle": False}}
    dro = GroupDROClassifier(eta=0.0, size_adjustment=1.0, **params).fit(X, y, sensitive_features=groups)
    np.testing.assert_array_equal(dro.group_weights_, np.full((4, 2), 0.5))
    with pytest.warns(FairkitWarning, match="no sensitive features"):
        erm = GroupDROClassifier(eta=0.0, size_adjustment=0.0, **params).fit(X, y)  # plain mean loss
    np.testing.assert_allclose(dro.predict_proba(X), erm.predict_proba(X), atol=1e-5)
    # the size term shifts the loss by Σ_g q_g / √n_g = 1/√40 and leaves the gradient alone
    shift = [a["train_loss"] - b["train_loss"] for a, b in zip(dro.history_, erm.history_, strict=True)]
    np.testing.assert_allclose(shift, 1 / np.sqrt(40), atol=1e-5)


# (3) q moves toward the group of higher loss

def test_the_weights_move_toward_the_group_whose_labels_are_noise():
    rng = np.random.default_rng(1)
    groups = np.repeat([0, 1], 100)
    X = rng.normal(size=(200, 2))
    y = np.where(groups == 0, X[:, 0] > 0, rng.integers(0, 2, 200)).astype(int)  # group 1: coin flips
    model = GroupDROClassifier((8,), eta=0.5, size_adjustment=0.0, max_epochs=6, batch_size=32, lr=1e-2,
                               random_state=0).fit(X, y, sensitive_features=groups)
    losses = -np.log(model.predict_proba(X)[np.arange(200), y])
    assert losses[groups == 1].mean() > losses[groups == 0].mean() + 0.05
    noisy = model.group_weights_[:, 1]
    assert noisy[0] > 0.5 and np.all(np.diff(noisy) > 0) and noisy[-1] > 0.8


# (4) scikit-learn's common checks and fairkit's fairness checks

@parametrize_with_checks([GroupDROClassifier(**params) for params in GroupDROClassifier.get_test_params()])
def test_estimator_checks(estimator, check):
    check(estimator)


# Groups, classes and inputs

def test_several_sensitive_columns_form_intersectional_groups_and_predict_needs_only_X():
    rng = np.random.default_rng(0)
    sf = pd.DataFrame({"sex": rng.choice(["F", "M"], 90), "race": rng.choice(["a", "b"], 90)})
    X = rng.normal(size=(90, 3))
    y = rng.integers(0, 3, 90)
    model = GroupDROClassifier(**FAST).fit(X, y, sensitive_features=sf)
    assert list(model.groups_) == [("F", "a"), ("F", "b"), ("M", "a"), ("M", "b")]
    np.testing.assert_array_equal(model.group_counts_, sf.groupby(["sex", "race"]).size().to_numpy())
    assert model.group_weights_.shape == (3, 4)
    np.testing.assert_allclose(model.group_weights_.sum(axis=1), 1.0)
    proba = model.predict_proba(X)
    assert proba.shape == (90, 3) and list(model.classes_) == [0, 1, 2]
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(model.predict(X), model.classes_[proba.argmax(axis=1)])


def test_sensitive_cols_give_the_groups_and_are_hidden_from_the_network():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x0": rng.normal(size=60), "x1": rng.normal(size=60),
                      "group": rng.choice(["u", "v"], 60)})
    y = (X["x0"] > 0).astype(int)
    model = GroupDROClassifier(sensitive_cols="group", **FAST).fit(X, y)
    assert list(model.groups_) == ["u", "v"] and model.net_.module__n_inputs == 2
    flipped = X.assign(group=np.where(X["group"] == "u", "v", "u"))
    np.testing.assert_array_equal(model.predict_proba(X), model.predict_proba(flipped))
    explicit = GroupDROClassifier(**FAST).fit(X[["x0", "x1"]], y, sensitive_features=X["group"])
    np.testing.assert_array_equal(model.group_weights_, explicit.group_weights_)


def test_without_sensitive_features_it_warns_and_keeps_one_group_of_weight_one():
    X, y = np.random.default_rng(0).normal(size=(40, 2)), np.arange(40) % 2
    with pytest.warns(FairkitWarning, match="one group"):
        model = GroupDROClassifier(**FAST).fit(X, y)
    assert len(model.groups_) == 1
    np.testing.assert_array_equal(model.group_weights_, np.ones((3, 1)))


# (5) Bad parameters and inputs

def data(n=40):
    rng = np.random.default_rng(0)
    return rng.normal(size=(n, 2)), np.arange(n) % 2, rng.integers(0, 2, n)


def assert_unfitted(model):
    assert not any(key.endswith("_") and not key.startswith("_") for key in vars(model))


@pytest.mark.parametrize("params, message", [
    ({"eta": -0.1}, r"'eta' parameter .* must be a float in the range \[0.0, inf\)"),
    ({"size_adjustment": -1.0}, r"'size_adjustment' parameter .* must be a float in the range \[0.0, inf\)"),
    ({"hidden_layer_sizes": (8, 0)}, "hidden_layer_sizes must be a sequence of positive integers"),
    ({"max_epochs": 0}, "'max_epochs' parameter"),
    ({"batch_size": 0}, "'batch_size' parameter"),
    ({"lr": 0.0}, "'lr' parameter"),
    ({"net_params": {"optimiser__lr": 0.1}}, r"'optimiser__lr': the net has no component 'optimiser' \(did "),
    ({"net_params": {"module__hidden": (4,)}}, "'module__hidden': MLP takes no argument 'hidden'"),
    ({"net_params": {"criterion__reduction": "mean"}}, "one loss per sample .* reduction='none'"),
    ({"device": "no-such-device"}, "device='no-such-device' cannot be used by this torch"),
])
def test_invalid_parameters_raise_and_leave_no_state(params, message):
    X, y, groups = data()
    model = GroupDROClassifier(**{**FAST, **params})
    with pytest.raises(ValueError, match=message):
        model.fit(X, y, sensitive_features=groups)
    assert_unfitted(model)


def test_a_discriminator_param_is_refused_as_a_component_the_net_lacks():
    X, y, groups = data()
    model = GroupDROClassifier(**FAST, net_params={"discriminator__n_inputs": 3})
    with pytest.raises(ValueError, match="'discriminator__n_inputs': the net has no component"):
        model.fit(X, y, sensitive_features=groups)


def test_single_class_and_wrong_length_sensitive_features_are_refused():
    X, y, groups = data()
    model = GroupDROClassifier(**FAST)
    with pytest.raises(ValueError, match="1 class"):
        model.fit(X, np.zeros(40), sensitive_features=groups)
    with pytest.raises(ValueError, match="sensitive_features"):
        model.fit(X, y, sensitive_features=groups[:-1])
    assert_unfitted(model)


def test_missing_torch_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "fairkit_subgroups._gdro_net", None)
    X, y, groups = data()
    with pytest.raises(ImportError, match=r"fairkit-subgroups\[nn\]"):
        GroupDROClassifier(**FAST).fit(X, y, sensitive_features=groups)


def test_importing_the_estimator_does_not_import_torch():
    code = ("import sys, fairkit_subgroups, fairkit_subgroups._gdro; "
            "assert 'torch' not in sys.modules and 'skorch' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


# (6) Randomness

def test_a_fixed_random_state_repeats_the_fit_and_leaves_the_global_generators_alone():
    X, y, groups = data(80)
    # the global generators are read (and advanced, so a reseed would show) on purpose
    np.random.random()  # noqa: NPY002
    torch.rand(1)
    numpy_before, torch_before = np.random.get_state()[1].copy(), torch.random.get_rng_state()  # noqa: NPY002
    model = GroupDROClassifier(eta=0.5, **FAST)
    first = model.fit(X, y, sensitive_features=groups)
    again = clone(model).fit(X, y, sensitive_features=groups)
    other = clone(model).set_params(random_state=1).fit(X, y, sensitive_features=groups)
    GroupDROClassifier(**{**FAST, "random_state": None}).fit(X, y, sensitive_features=groups)
    np.testing.assert_array_equal(np.random.get_state()[1], numpy_before)  # noqa: NPY002
    assert torch.equal(torch.random.get_rng_state(), torch_before)
    np.testing.assert_array_equal(first.group_weights_, again.group_weights_)
    np.testing.assert_array_equal(first.predict_proba(X), again.predict_proba(X))
    assert not np.array_equal(first.predict_proba(X), other.predict_proba(X))
