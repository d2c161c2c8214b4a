"""FairnessAttack and AccuracyAttack: correctness against independent computations, and the boundary."""

import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression, SGDClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from fairkit.exceptions import FairkitWarning
from fairkit.metrics import equalized_odds_difference
from fairkit_robust._attacks import AccuracyAttack, FairnessAttack, _torch_side

torch = pytest.importorskip("torch")

NOTIONS = ["demographic_parity", "equal_opportunity", "equalized_odds"]
CONDITIONS = {"demographic_parity": [None], "equal_opportunity": [1], "equalized_odds": [0, 1]}


def make_data(seed, n_samples=400, n_groups=2, shift=0.0):
    """Features, labels and groups; ``shift`` moves feature 1 with the group (0: a fair-looking model)."""
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, n_groups, n_samples)
    X = rng.normal(size=(n_samples, 4))
    X[:, 1] += shift * groups
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n_samples) > 0).astype(int)
    return X, y, groups


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def numpy_gap(scores, y, groups, notion):
    """The soft gap in numpy: per condition, largest minus smallest group mean, summed."""
    total = 0.0
    for label in CONDITIONS[notion]:
        cell = np.ones(len(y), bool) if label is None else y == label
        means = [scores[cell & (groups == g)].mean() for g in np.unique(groups[cell])]
        total += max(means) - min(means) if len(means) >= 2 else 0.0
    return total


def analytic_gap_gradient(X, weights, intercept, y, groups, notion):
    """d gap / d X of a logistic model, by hand: ±1/n_cell for the top and bottom groups, times s(1-s)w."""
    scores = sigmoid(X @ weights + intercept)
    coefficient = np.zeros(len(X))
    for label in CONDITIONS[notion]:
        cell = np.ones(len(y), bool) if label is None else y == label
        present = np.unique(groups[cell])
        means = np.array([scores[cell & (groups == g)].mean() for g in present])
        top, bottom = cell & (groups == present[means.argmax()]), cell & (groups == present[means.argmin()])
        coefficient[top] += 1 / top.sum()
        coefficient[bottom] -= 1 / bottom.sum()
    return (coefficient * scores * (1 - scores))[:, None] * weights


def attack_gradient(attack, model, X, y, groups):
    """The gradient the attack ascends: autograd of its objective at X."""
    problem = attack._problem(_torch_side(), model, X, y, groups)
    X_model = problem.X_model.clone().requires_grad_(True)
    (gradient,) = torch.autograd.grad(problem.objective(X_model), X_model)
    return gradient.numpy()


@pytest.mark.parametrize("notion", NOTIONS)
@pytest.mark.parametrize("n_groups", [2, 3])
def test_the_fairness_gradient_is_the_analytic_one(notion, n_groups):
    X, y, groups = make_data(0, n_groups=n_groups, shift=0.5)
    model = LogisticRegression().fit(X, y)
    expected = analytic_gap_gradient(X, model.coef_[0], model.intercept_[0], y, groups, notion)
    gradient = attack_gradient(FairnessAttack(notion=notion), model, X, y, groups)
    np.testing.assert_allclose(gradient, expected, rtol=1e-6, atol=1e-12)
    assert np.abs(expected).max() > 1e-4  # not a vacuous comparison


def test_the_gradient_through_a_scaler_pipeline_is_the_analytic_one():
    X, y, groups = make_data(1, shift=0.5)
    X = X * [1.0, 3.0, 0.2, 10.0] + 5.0
    pipeline = make_pipeline(StandardScaler(), LogisticRegression()).fit(X, y)
    scaler, linear = pipeline[0], pipeline[-1]
    weights = linear.coef_[0] / scaler.scale_  # the closed form in the units of X
    intercept = linear.intercept_[0] - weights @ scaler.mean_
    expected = analytic_gap_gradient(X, weights, intercept, y, groups, "equalized_odds")
    gradient = attack_gradient(FairnessAttack(), pipeline, X, y, groups)
    np.testing.assert_allclose(gradient, expected, rtol=1e-6, atol=1e-12)


def test_the_accuracy_gradient_is_the_analytic_one():
    X, y, _ = make_data(2)
    model = LogisticRegression().fit(X, y)
    scores = model.predict_proba(X)[:, 1]
    expected = ((scores - y) / len(y))[:, None] * model.coef_[0]  # d mean cross-entropy / d X
    gradient = attack_gradient(AccuracyAttack(), model, X, y, None)
    np.testing.assert_allclose(gradient, expected, rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("norm", ["linf", "l2"])
def test_the_gap_rises_over_the_iterations(norm):
    torch_side = _torch_side()
    curves = []
    for seed in range(4):
        X, y, groups = make_data(seed, shift=0.5)
        model = LogisticRegression().fit(X, y)
        attack = FairnessAttack(eps=0.2, norm=norm, random_state=seed)
        problem = attack._problem(torch_side, model, X, y, groups)
        values = []

        def recorded(Z, objective=problem.objective, values=values):
            value = objective(Z)
            values.append(value.item())
            return value

        X_adv = torch_side.projected_gradient_ascent(recorded, problem.X_model, **problem.pgd_params)
        clean, iterates = values[0], values[1:-1]  # X, then the iterates from the random start
        assert problem.objective(X_adv).item() >= clean
        curves.append(iterates)
    average = np.mean(curves, axis=0)
    assert np.all(np.diff(average) >= 0)
    assert average[-1] > 2 * average[0]


@pytest.mark.parametrize("norm", ["linf", "l2"])
@pytest.mark.parametrize("bounds", [None, "data", "explicit"])
def test_the_result_lies_in_the_ball_and_the_bounds(norm, bounds):
    X, y, groups = make_data(3, shift=0.5)
    model = LogisticRegression().fit(X, y)
    if bounds == "explicit":  # tight on feature 0, one-sided on feature 1, none on the others
        lower = [X[:, 0].min(), X[:, 1].min(), -np.inf, -np.inf]
        bounds = (lower, [X[:, 0].max(), np.inf, np.inf, np.inf])
    attack = FairnessAttack(eps=0.5, norm=norm, bounds=bounds, random_state=0)
    X_adv = attack.perturb(model, X, y, groups)
    delta = X_adv - X
    size = np.abs(delta).max(axis=1) if norm == "linf" else np.linalg.norm(delta, axis=1)
    assert size.max() <= 0.5 + 1e-12
    assert size.max() > 0.4  # the attack uses the ball
    if bounds == "data":
        assert (X_adv >= X.min(axis=0)).all() and (X_adv <= X.max(axis=0)).all()
        assert (X_adv == X.min(axis=0)).any() and (X_adv == X.max(axis=0)).any()  # the bounds bind
    if isinstance(bounds, tuple):
        assert (X_adv[:, 0] >= X[:, 0].min()).all() and (X_adv[:, 0] <= X[:, 0].max()).all()
        assert (X_adv[:, 1] >= X[:, 1].min()).all()
    if bounds is None:  # standardised features go below 0 and above 1: no blanket clamp to [0, 1]
        assert (X_adv < 0).any() and (X_adv > 1).any()


@pytest.mark.parametrize("feature_mask", [np.array([True, False, True, False]), ["x0", "x2"], [0, -2]])
def test_masked_columns_never_change(feature_mask):
    X, y, groups = make_data(4, shift=0.5)
    X = pd.DataFrame(X, columns=["x0", "x1", "x2", "x3"], index=np.arange(100, 100 + len(X)))
    X["x3"] = (X["x3"] > 0).astype(int)  # an integer (one-hot like) column, left fixed
    model = LogisticRegression().fit(X, y)
    X_adv = FairnessAttack(eps=0.3, feature_mask=feature_mask, random_state=0).perturb(model, X, y, groups)
    assert X_adv.index.equals(X.index) and X_adv.columns.equals(X.columns)
    pd.testing.assert_series_equal(X_adv["x1"], X["x1"])
    pd.testing.assert_series_equal(X_adv["x3"], X["x3"])  # same values and integer dtype
    assert (X_adv["x0"] != X["x0"]).all() and (X_adv["x2"] != X["x2"]).all()


def test_an_empty_cell_gives_a_finite_gap_and_attack():
    X, y, groups = make_data(5, shift=0.5)
    keep = ~((groups == 1) & (y == 0))  # group 1 has no negative at all
    X, y, groups = X[keep], y[keep], groups[keep]
    model = LogisticRegression().fit(X, y)
    X_adv = FairnessAttack(eps=0.2, random_state=0).perturb(model, X, y, groups)
    assert np.isfinite(X_adv).all()
    before = numpy_gap(model.predict_proba(X)[:, 1], y, groups, "equalized_odds")
    after = numpy_gap(model.predict_proba(X_adv)[:, 1], y, groups, "equalized_odds")
    assert np.isfinite(before) and after > before + 0.05


def cell_means(model, X, y, groups):
    """The four group-conditional mean scores m[a, y] of a binary-group problem."""
    scores = model(torch.as_tensor(X, dtype=torch.float32)).softmax(1)[:, 1].detach().numpy() if isinstance(
        model, torch.nn.Module) else model.predict_proba(X)[:, 1]
    return np.array([[scores[(groups == a) & (y == label)].mean() for label in (0, 1)] for a in (0, 1)])


@pytest.mark.parametrize("norm", ["linf", "l2"])
def test_demographic_parity_and_equalized_odds_attacks_are_one_attack(norm):
    """The paper's equivalence of fairness attacks, checked numerically on a logistic model.

    In the unified form each notion's gap is a sum of |m[1, c] - m[0, c]| over its
    conditions c (all samples for demographic parity, y = 0 and y = 1 for equalized odds),
    so the gradient of a gap in the score of sample i is ±1/n_cell with the sign of its
    group's lead in the condition of i. On two groups where the same group leads in every
    condition (here group 1, whose feature 1 is shifted up), the two gradients push every
    sample the same way and differ in size only; PGD steps by per-sample signs (linf) or
    per-sample unit vectors (l2), so the two attacks take the same steps: they move the
    group-conditional means alike, and are one attack. Checked: the precondition, equal
    results (up to rounding), the means moving apart; and, where the precondition fails
    (group 1 behind for y = 0, ahead for y = 1), that the two attacks differ.
    """
    X, y, groups = make_data(6, shift=0.8)
    model = LogisticRegression().fit(X, y)
    means = cell_means(model, X, y, groups)
    assert (means[1] > means[0]).all()  # group 1 leads for y = 0 and y = 1 (hence overall)
    results = {notion: FairnessAttack(notion=notion, eps=0.2, norm=norm, random_state=0).perturb(
        model, X, y, groups) for notion in ("demographic_parity", "equalized_odds")}
    np.testing.assert_allclose(results["demographic_parity"], results["equalized_odds"], rtol=0, atol=1e-12)
    moved = cell_means(model, results["equalized_odds"], y, groups) - means
    assert (moved[1] > 0).all() and (moved[0] < 0).all()

    X[:, 2] = np.where(groups == 1, np.where(y == 1, -1.0, 1.0), 0.0)  # leads that differ by label
    model = LogisticRegression().fit(X, y)
    means = cell_means(model, X, y, groups)
    assert means[1, 0] < means[0, 0] and means[1, 1] > means[0, 1]
    moves = {notion: np.sign(cell_means(model, FairnessAttack(notion=notion, eps=0.2, norm=norm).perturb(
        model, X, y, groups), y, groups) - means) for notion in ("demographic_parity", "equalized_odds")}
    np.testing.assert_array_equal(moves["equalized_odds"], [[1, -1], [-1, 1]])  # each gap widened its way
    assert (moves["demographic_parity"][:, 0] == moves["demographic_parity"][:, 1]).all()  # one way


def test_equal_opportunity_moves_only_the_positives():
    X, y, groups = make_data(7, shift=0.8)
    model = LogisticRegression().fit(X, y)
    attack = FairnessAttack(notion="equal_opportunity", eps=0.2, random_start=False)
    X_adv = attack.perturb(model, X, y, groups)
    np.testing.assert_array_equal(X_adv[y == 0], X[y == 0])  # the gap has no gradient there
    assert (X_adv[y == 1] != X[y == 1]).all()


def test_the_equivalence_on_a_network():
    """On a small MLP the per-sample steps agree in sign too: the group-conditional means move alike."""
    for seed in (0, 2, 3):
        X, y, groups = make_data(seed, n_samples=300, shift=1.5)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            module = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
            optimizer = torch.optim.Adam(module.parameters(), lr=0.05)
            for _ in range(100):
                optimizer.zero_grad()
                loss = torch.nn.functional.cross_entropy(module(torch.as_tensor(X, dtype=torch.float32)),
                                                         torch.as_tensor(y))
                loss.backward()
                optimizer.step()
        means = cell_means(module, X, y, groups)
        assert (means[1] > means[0]).all()
        moves = {notion: cell_means(module, FairnessAttack(notion=notion, eps=0.2, random_state=seed).perturb(
            module, X, y, groups), y, groups) - means for notion in ("demographic_parity", "equalized_odds")}
        assert (np.sign(moves["demographic_parity"]) == np.sign(moves["equalized_odds"])).all()
        assert (moves["equalized_odds"][1] > 0).all() and (moves["equalized_odds"][0] < 0).all()


def test_the_attack_beats_random_noise_on_a_fair_looking_model():
    for seed in range(3):
        X, y, groups = make_data(seed, n_samples=600)  # features independent of the group
        model = LogisticRegression().fit(X, y)
        noise = np.random.default_rng(seed).uniform(-0.1, 0.1, X.shape)
        X_adv = FairnessAttack(eps=0.1, random_state=seed).perturb(model, X, y, groups)
        clean, attacked, noisy = (equalized_odds_difference(y, model.predict(Z), sensitive_features=groups)
                                  for Z in (X, X_adv, X + noise))
        assert clean < 0.1  # fair-looking
        assert attacked - clean > 0.1
        assert attacked - clean > 4 * max(noisy - clean, 0.02)


@pytest.mark.parametrize("model", [GradientBoostingClassifier(n_estimators=30, max_depth=2, random_state=0),
                                   RandomForestClassifier(n_estimators=20, max_depth=4, random_state=0)],
                         ids=["boosting", "forest"])
def test_the_black_box_attack_raises_the_gap_of_trees(model):
    X, y, groups = make_data(8, n_samples=300)
    model.fit(X, y)
    with pytest.warns(FairkitWarning, match="weaker attack"):
        X_adv = FairnessAttack(eps=0.2, n_iter=10, random_state=0).perturb(model, X, y, groups)
    assert np.abs(X_adv - X).max() <= 0.2 + 1e-12
    clean = numpy_gap(model.predict_proba(X)[:, 1], y, groups, "equalized_odds")
    noisy = numpy_gap(model.predict_proba(X + np.random.default_rng(0).uniform(-0.2, 0.2, X.shape))[:, 1],
                      y, groups, "equalized_odds")
    attacked = numpy_gap(model.predict_proba(X_adv)[:, 1], y, groups, "equalized_odds")
    assert attacked - clean > 0.1 and attacked > noisy + 0.1


def test_the_accuracy_attack_lowers_accuracy_more_than_noise():
    X, y, _ = make_data(9, n_samples=600)
    model = LogisticRegression().fit(X, y)
    X_adv = AccuracyAttack(eps=0.3, random_state=0).perturb(model, X, y)
    noisy = X + np.random.default_rng(0).uniform(-0.3, 0.3, X.shape)
    assert model.score(X_adv, y) < model.score(noisy, y) - 0.15


def test_labels_are_the_models_classes():
    X, y, groups = make_data(10, shift=0.5)
    labels = np.where(y == 1, "yes", "no")
    model = LogisticRegression().fit(X, labels)
    attack = FairnessAttack(eps=0.2, random_state=0)
    np.testing.assert_array_equal(attack.perturb(model, X, labels, groups),
                                  attack.perturb(LogisticRegression().fit(X, y), X, y, groups))


def test_the_same_random_state_gives_the_same_result_and_global_generators_are_untouched():
    X, y, groups = make_data(11, shift=0.5)
    model = make_pipeline(StandardScaler(), SGDClassifier(loss="log_loss", random_state=0)).fit(X, y)
    numpy_state, torch_state = np.random.get_state()[1].copy(), torch.random.get_rng_state()  # noqa: NPY002
    runs = [FairnessAttack(eps=0.2, random_state=3).perturb(model, X, y, groups) for _ in range(2)]
    FairnessAttack(eps=0.2).perturb(model, X, y, groups)  # random_state=None
    np.testing.assert_array_equal(runs[0], runs[1])
    assert (np.random.get_state()[1] == numpy_state).all()  # noqa: NPY002
    assert torch.equal(torch.random.get_rng_state(), torch_state)


def test_X_is_left_unchanged_and_the_dtype_kept():
    X, y, groups = make_data(12, shift=0.5)
    X32 = X.astype(np.float32)
    copy = X32.copy()
    X_adv = FairnessAttack(eps=0.1, random_state=0).perturb(LogisticRegression().fit(X, y), X32, y, groups)
    np.testing.assert_array_equal(X32, copy)
    assert X_adv.dtype == np.float32 and X_adv.shape == X.shape
    assert np.abs(X_adv.astype(np.float64) - X32).max() <= 0.1 + 1e-6  # float32 rounding


# The models the attacks take, each seen as the same function as its own predict_proba


def _skorch_nets(X, y):
    skorch = pytest.importorskip("skorch")
    X32 = X.astype(np.float32)
    nets = []
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        for net in [
            skorch.NeuralNetClassifier(torch.nn.Linear(4, 2), criterion=torch.nn.CrossEntropyLoss,
                                       max_epochs=3, train_split=None, verbose=0),
            skorch.NeuralNetClassifier(torch.nn.Sequential(torch.nn.Linear(4, 2), torch.nn.Softmax(dim=-1)),
                                       max_epochs=3, train_split=None, verbose=0),  # NLLLoss: probabilities
            skorch.NeuralNetBinaryClassifier(_Squeeze(), max_epochs=3, train_split=None, verbose=0),
        ]:
            nets.append(net.fit(X32, y.astype(np.float32) if "Binary" in type(net).__name__ else y))
    return nets


class _Squeeze(torch.nn.Module):
    """One logit per sample, as skorch's NeuralNetBinaryClassifier expects."""

    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 1)

    def forward(self, x):
        return self.linear(x).squeeze(-1)


def test_every_adapter_is_the_models_predict_proba():
    X, y, groups = make_data(13, n_samples=200, shift=0.5)
    torch_side = _torch_side()
    scalers = make_pipeline(StandardScaler(), StandardScaler(with_mean=False), LogisticRegression())
    models = [LogisticRegression().fit(X, y), SGDClassifier(loss="log_loss", random_state=0).fit(X, y),
              scalers.fit(X * 3 + 1, y), *_skorch_nets(X, y)]
    for model in models:
        scorer = torch_side.scorer(model)
        assert not scorer.black_box
        probability = torch.sigmoid(scorer.logit(torch.as_tensor(X))).numpy()
        expected = model.predict_proba(X.astype(np.float32) if hasattr(model, "module_") else X)[:, 1]
        np.testing.assert_allclose(probability, expected, rtol=1e-5, atol=1e-6, err_msg=type(model).__name__)


def test_a_torch_module_with_one_or_two_logits():
    X, y, groups = make_data(14, n_samples=100)
    torch_side = _torch_side()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        two, one = torch.nn.Linear(4, 2).double(), torch.nn.Linear(4, 1).double()
    inputs = torch.as_tensor(X)
    with torch.no_grad():
        np.testing.assert_allclose(torch.sigmoid(torch_side.scorer(two).logit(inputs)).numpy(),
                                   two(inputs).softmax(1)[:, 1].numpy(), rtol=1e-12)
        np.testing.assert_allclose(torch_side.scorer(one).logit(inputs).numpy(), one(inputs)[:, 0].numpy())
    log_softmax = torch.nn.Sequential(two, torch.nn.LogSoftmax(dim=1))  # the paper's network returns these
    with torch.no_grad():
        np.testing.assert_allclose(torch.sigmoid(torch_side.scorer(log_softmax).logit(inputs)).numpy(),
                                   two(inputs).softmax(1)[:, 1].numpy(), rtol=1e-12)
    assert two.training  # the user's module is not switched to eval mode
    X_adv = FairnessAttack(eps=0.2, random_state=0).perturb(one, X, y, groups)
    assert np.abs(X_adv - X).max() <= 0.2 + 1e-12


@pytest.fixture(scope="module")
def sensitive_frame():
    X, y, _ = make_data(15, n_samples=200)
    X = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    X.insert(2, "sex", np.random.default_rng(15).choice(["F", "M"], len(X)))
    return X, y


def _fairkit_networks():
    from fairkit.adversarial import FairICPClassifier

    fast = {"hidden_layer_sizes": (8,), "max_epochs": 3, "sensitive_cols": "sex", "random_state": 0}
    networks = [FairICPClassifier(**fast)]
    try:
        from fairkit_subgroups import GroupDROClassifier
    except ImportError:
        return networks
    return [*networks, GroupDROClassifier(**fast)]


@pytest.mark.parametrize("network", _fairkit_networks(), ids=lambda network: type(network).__name__)
def test_fairkit_networks_with_sensitive_columns(network, sensitive_frame):
    X, y = sensitive_frame
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FairkitWarning)
        network.fit(X, y)
    scorer = _torch_side().scorer(network)
    inputs = torch.tensor(X[["a", "b", "c", "d"]].to_numpy())  # the network's columns
    np.testing.assert_allclose(torch.sigmoid(scorer.logit(inputs)).numpy(), network.predict_proba(X)[:, 1],
                               rtol=1e-5, atol=1e-6)
    X_adv = FairnessAttack(eps=0.3, random_state=0).perturb(network, X, y)  # groups from sensitive_cols
    pd.testing.assert_series_equal(X_adv["sex"], X["sex"])
    assert np.abs(X_adv.drop(columns="sex") - X.drop(columns="sex")).to_numpy().max() <= 0.3 + 1e-12
    groups = (X["sex"] == "F").to_numpy().astype(int)
    scores = network.predict_proba(X)[:, 1], network.predict_proba(X_adv)[:, 1]
    assert numpy_gap(scores[1], y, groups, "equalized_odds") > numpy_gap(scores[0], y, groups,
                                                                         "equalized_odds")
    with pytest.raises(ValueError, match="never perturb the sensitive"):
        FairnessAttack(feature_mask=["a", "sex"]).perturb(network, X, y)
    with pytest.raises(ValueError, match="got sensitive features twice"):
        FairnessAttack().perturb(network, X, y, sensitive_features=X["sex"])


# Refused inputs


@pytest.fixture(scope="module")
def problem():
    X, y, groups = make_data(16, n_samples=60, shift=0.5)
    return LogisticRegression().fit(X, y), X, y, groups


@pytest.mark.parametrize(("params", "match"), [
    ({"eps": -0.1}, "'eps' parameter"),
    ({"eps": np.inf}, "'eps' parameter"),
    ({"n_iter": 0}, "'n_iter' parameter"),
    ({"norm": "l1"}, "'norm' parameter"),
    ({"notion": "parity"}, "'notion' parameter"),
    ({"step": 0.0}, "'step' parameter"),
    ({"bounds": "unit"}, "'bounds' parameter"),
    ({"bounds": (0, 1, 2)}, "pair"),
    ({"bounds": (1.0, 0.0)}, "lower > upper"),
    ({"bounds": (0.0, 1.0)}, "X lies outside bounds"),
    ({"bounds": ([0.0, 0.0], None)}, "shape"),
    ({"bounds": (np.nan, None)}, "NaN"),
    ({"feature_mask": [True, False]}, "one entry per feature"),
    ({"feature_mask": [7]}, "out of range"),
    ({"feature_mask": ["age"]}, "names column 'age'"),
    ({"feature_mask": np.zeros(4, bool)}, "no feature"),
])
def test_bad_parameters_are_refused(problem, params, match):
    model, X, y, groups = problem
    with pytest.raises(ValueError, match=match):
        FairnessAttack(**params).perturb(model, X, y, groups)


def test_bad_inputs_are_refused(problem):
    model, X, y, groups = problem
    attack = FairnessAttack()
    with pytest.raises(ValueError, match="needs the sensitive groups"):
        attack.perturb(model, X, y)
    with pytest.raises(ValueError, match="single group"):
        attack.perturb(model, X, y, np.zeros(len(y)))
    with pytest.raises(ValueError, match="sensitive_features has 59 rows"):
        attack.perturb(model, X, y, groups[1:])
    with pytest.raises(ValueError, match="one label per sample"):
        attack.perturb(model, X, y[1:], groups)
    with pytest.raises(ValueError, match="not among the model's classes"):
        attack.perturb(model, X, y + 1, groups)
    with pytest.raises(ValueError, match="needs the labels"):
        attack.perturb(model, X, None, groups)
    with pytest.raises(ValueError, match="NaN"):
        attack.perturb(model, np.where(X > 2, np.nan, X), y, groups)
    with pytest.raises(ValueError, match="4 features"):
        attack.perturb(model, X[:, :3], y, groups)
    with pytest.raises(TypeError, match="sparse"):
        from scipy import sparse
        attack.perturb(model, sparse.csr_matrix(X), y, groups)
    frame = pd.DataFrame(X, index=np.arange(len(X))[::-1])
    with pytest.raises(ValueError, match="different pandas indexes"):
        attack.perturb(model, frame, y, pd.Series(groups))
    with pytest.raises(ValueError, match="different pandas indexes"):
        attack.perturb(model, frame, pd.Series(y), groups)
    with pytest.raises(ValueError, match="sensitive_features has 59 rows"):  # validated, though unused
        AccuracyAttack().perturb(model, X, y, groups[1:])


def test_models_the_attacks_cannot_take_are_refused(problem):
    _, X, y, groups = problem
    multiclass = LogisticRegression().fit(X, np.arange(len(y)) % 3)
    with pytest.raises(ValueError, match="binary classification only"):
        FairnessAttack().perturb(multiclass, X, np.arange(len(y)) % 3, groups)
    with pytest.raises(ValueError, match="binary classification only"):
        FairnessAttack().perturb(torch.nn.Linear(4, 3), X, y, groups)
    with pytest.raises(ValueError, match="could not score X"):
        FairnessAttack().perturb(torch.nn.Linear(5, 2), X, y, groups)
    with pytest.raises(TypeError, match="cannot attack a str"):
        FairnessAttack().perturb("model", X, y, groups)
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        FairnessAttack().perturb(LogisticRegression(), X, y, groups)


def test_demographic_parity_needs_no_labels(problem):
    model, X, y, groups = problem
    attack = FairnessAttack(notion="demographic_parity", random_state=0)
    np.testing.assert_array_equal(attack.perturb(model, X, None, groups), attack.perturb(model, X, y, groups))


def test_importing_the_attacks_does_not_import_torch():
    code = "import sys, fairkit_robust._attacks; assert 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_missing_torch_names_the_extra(monkeypatch, problem):
    model, X, y, groups = problem
    monkeypatch.delitem(sys.modules, "fairkit_robust._pgd")
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch raises ImportError
    with pytest.raises(ImportError, match=r'pip install "fairkit-robust\[nn\]"'):
        FairnessAttack().perturb(model, X, y, groups)
