"""robustness_curve, its plot and the audit check: against independent computations, and the boundary."""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

from fairkit import metrics
from fairkit.datasets import make_fair_classification
from fairkit.exceptions import FairkitWarning
from fairkit.postprocessing import RandomizedFairBOC
from fairkit_robust._attacks import FairnessAttack
from fairkit_robust._curve import GAPS, _Ball, plot_robustness_curve, robustness_check, robustness_curve

pytest.importorskip("torch")

EPS_GRID = (0.0, 0.05, 0.1, 0.2)


def make_model(seed, n_samples=400):
    X, y, group = make_fair_classification(n_samples, 4, random_state=seed)
    return LogisticRegression().fit(X, y), X, y, group


def numpy_soft_gap(scores, y, group):
    """The soft equalized-odds gap by hand: |Δ mean score | y=1| + |Δ mean score | y=0| over two groups."""
    return sum(abs(scores[(y == label) & (group == 0)].mean() - scores[(y == label) & (group == 1)].mean())
               for label in (0, 1))


# --- the curve --------------------------------------------------------------------------------------


def test_the_clean_rows_are_the_metrics_of_the_models_own_predictions():
    model, X, y, group = make_model(0)
    curve = robustness_curve(model, X, y, group, eps_grid=[0.0, 0.1], n_iter=5, ci=0.9, random_state=0)
    y_pred = model.predict(X)
    expected = {"accuracy": np.mean(y_pred == y),
                "soft_gap": numpy_soft_gap(model.predict_proba(X)[:, 1], y, group)}
    for gap in GAPS:
        estimate = getattr(metrics, gap)(y, y_pred, sensitive_features=group, ci=0.9)
        expected.update({gap: estimate.value, f"{gap}_low": estimate.low, f"{gap}_high": estimate.high})
    for attack in ("accuracy", "fairness", "random"):
        row = curve.loc[(attack, 0.0)]
        for column, value in expected.items():
            assert row[column] == pytest.approx(value, abs=1e-12), (attack, column)
    # the accuracy's interval is the exact binomial one, here checked for covering and ordering only
    clean = curve.loc[("accuracy", 0.0)]
    assert clean["accuracy_low"] < clean["accuracy"] < clean["accuracy_high"]
    assert list(curve.index.get_level_values("eps")) == [0.0, 0.1] * 3


@pytest.mark.parametrize("seed", range(3))
def test_the_fairness_attack_beats_random_noise_and_the_accuracy_attack_too(seed):
    model, X, y, group = make_model(seed)
    curve = robustness_curve(model, X, y, group, eps_grid=EPS_GRID, random_state=seed)
    for eps in EPS_GRID[1:]:
        fairness, accuracy, noise = (curve.loc[(attack, eps)]
                                     for attack in ("fairness", "accuracy", "random"))
        assert fairness["soft_gap"] >= noise["soft_gap"], eps
        # on a linear model the accuracy attack moves every sample to its worst corner of the ball:
        # any sample that the noise misclassifies, the attack misclassifies too
        assert accuracy["accuracy"] <= noise["accuracy"], eps
    largest = curve.xs(0.2, level="eps")
    assert largest.loc["fairness", "soft_gap"] > 1.5 * largest.loc["random", "soft_gap"]
    assert largest.loc["accuracy", "accuracy"] < largest.loc["random", "accuracy"] - 0.03


def test_the_rows_of_each_attack_are_reproducible_and_do_not_depend_on_the_others():
    model, X, y, group = make_model(1, n_samples=200)
    options = dict(eps_grid=[0.0, 0.1, 0.3], n_iter=5)
    full = robustness_curve(model, X, y, group, **options, random_state=3)
    pd.testing.assert_frame_equal(full, robustness_curve(model, X, y, group, **options, random_state=3))
    subset = robustness_curve(model, X, y, group, **options, attacks=("random", "fairness"), random_state=3)
    assert list(subset.index.get_level_values("attack").unique()) == ["random", "fairness"]
    pd.testing.assert_frame_equal(subset, full.loc[["random", "fairness"]])
    other = robustness_curve(model, X, y, group, **options, attacks="random", random_state=4)
    assert not np.allclose(other.loc["random", "soft_gap"].iloc[1:], full.loc["random", "soft_gap"].iloc[1:])


@pytest.mark.parametrize("norm", ["linf", "l2"])
def test_random_noise_lies_in_the_ball_the_mask_and_the_bounds(norm):
    model, X, y, group = make_model(2, n_samples=300)
    bounds = (X.min(axis=0), [np.inf, X[:, 1].max(), np.inf, np.inf])
    template = FairnessAttack(norm=norm, feature_mask=[0, 1, 3], bounds=bounds)
    noisy = _Ball(template, model, X).noise(X, 0.5, norm, np.random.default_rng(0))
    delta = noisy - X
    size = np.abs(delta).max(axis=1) if norm == "linf" else np.linalg.norm(delta, axis=1)
    assert size.max() <= 0.5 + 1e-12 and size.mean() > 0.1
    assert np.array_equal(noisy[:, 2], X[:, 2])
    assert np.all(noisy >= X.min(axis=0)) and np.all(noisy[:, 1] <= X[:, 1].max())


def test_a_dataframe_keeps_its_columns_and_a_mask_by_name():
    model, X, y, group = make_model(3, n_samples=200)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"], index=np.arange(200) + 1000)
    model = LogisticRegression().fit(frame, y)
    seen = []
    predict = model.predict
    model.predict = lambda X: seen.append(X) or predict(X)  # records what the curve predicts on
    robustness_curve(model, frame, pd.Series(y, index=frame.index), pd.Series(group, index=frame.index),
                     eps_grid=[0.0, 0.2], feature_mask=["a", "b"], n_iter=5, random_state=0)
    assert len(seen) == 4  # the clean samples once, then one perturbation per attack
    for X_adv in seen:
        assert list(X_adv.columns) == ["a", "b", "c", "d"] and X_adv.index.equals(frame.index)
        pd.testing.assert_frame_equal(X_adv[["c", "d"]], frame[["c", "d"]])
    assert not np.allclose(seen[-1][["a", "b"]], frame[["a", "b"]])


def test_a_model_that_needs_the_groups_to_predict_is_attacked_as_a_black_box_given_them():
    X, y, group = make_fair_classification(500, 3, random_state=0)
    model = RandomizedFairBOC(constraint="equalized_odds", random_state=0).fit(X[:300], y[:300],
                                                                               sensitive_features=group[:300])
    X, y, group = X[300:], y[300:], group[300:]
    with pytest.warns(FairkitWarning, match="RandomizedFairBOC has no closed-form gradient"):
        curve = robustness_curve(model, X, y, group, eps_grid=[0.0, 0.3], n_iter=10, random_state=0)
    y_pred = model.predict(X, sensitive_features=group)
    assert curve.loc[("fairness", 0.0), "accuracy"] == np.mean(y_pred == y)
    assert curve.loc[("fairness", 0.0), "equalized_odds_difference"] == pytest.approx(
        metrics.equalized_odds_difference(y, y_pred, sensitive_features=group))
    # the attack keeps its best point, X included: the soft gap never falls; here it rises
    assert curve.loc[("fairness", 0.3), "soft_gap"] > curve.loc[("fairness", 0.0), "soft_gap"] + 0.05


def test_sensitive_cols_are_read_from_X_and_never_moved():
    X, y, group = make_fair_classification(300, 3, random_state=1)
    X = np.column_stack([X, group])
    seen = []

    class Recording(LogisticRegression):
        sensitive_cols = 3  # read by the attacks (and the curve) as the model's sensitive column

        def predict(self, X):
            seen.append(np.array(X))
            return super().predict(X)

    model = Recording().fit(X, y)
    robustness_curve(model, X, y, eps_grid=[0.0, 0.5], n_iter=5, random_state=0)
    assert len(seen) == 4 and all(np.array_equal(X_adv[:, 3], group) for X_adv in seen)
    assert not np.allclose(seen[-1][:, :3], X[:, :3])


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"eps_grid": [0.0, -0.1]}, "eps_grid holds -0.1; every size must be a finite number >= 0"),
    ({"eps_grid": [0.0, np.nan]}, "eps_grid holds nan"),
    ({"eps_grid": [0.1, 0.1]}, "eps_grid repeats a size"),
    ({"eps_grid": []}, "eps_grid must be a non-empty 1-D sequence"),
    ({"eps_grid": [[0.1]]}, "eps_grid must be a non-empty 1-D sequence"),
    ({"eps_grid": ["small"]}, "eps_grid must be a sequence of numbers >= 0"),
    ({"attacks": ["fairness", "fgsm"]}, "'fgsm' is not one"),
    ({"attacks": []}, "it is empty"),
    ({"attacks": ["random", "random"]}, "it repeats one"),
    ({"notion": "equal_odds"}, "notion must be one of"),
    ({"ci": 1.0}, "ci must be a level between 0 and 1"),
    ({"norm": "l1"}, "'norm' parameter"),
    ({"n_iter": 0}, "'n_iter' parameter"),
    ({"feature_mask": ["nope"]}, "feature_mask names column 'nope'"),
    ({"bounds": (0.0, 1.0)}, "X lies outside bounds"),
    ({"sensitive_features": None}, "robustness_curve needs the sensitive groups"),
    ({"y": "three labels"}, "y holds labels that are not among the model's classes"),
])
def test_bad_input_is_refused_before_any_attack(kwargs, message, monkeypatch):
    model, X, y, group = make_model(0, n_samples=100)
    arguments = {"sensitive_features": group, "y": y, **kwargs}
    if isinstance(arguments["y"], str):  # a label the model does not know
        arguments["y"] = np.where(np.arange(100) == 7, 2, y)
    monkeypatch.setattr(FairnessAttack, "perturb", lambda *a, **k: pytest.fail("attacked before validating"))
    with pytest.raises(ValueError, match=message):
        robustness_curve(model, X, arguments.pop("y"), **arguments)


def test_a_model_without_predict_is_refused():
    torch = pytest.importorskip("torch")
    _, X, y, group = make_model(0, n_samples=50)
    with pytest.raises(TypeError, match="robustness_curve needs a classifier with predict; Linear has none"):
        robustness_curve(torch.nn.Linear(4, 1), X, y, group)


# --- the plot ---------------------------------------------------------------------------------------


def test_the_plot_has_one_line_per_attack_and_a_band_per_interval():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    model, X, y, group = make_model(0, n_samples=150)
    curve = robustness_curve(model, X, y, group, eps_grid=[0.0, 0.1, 0.2], attacks=("fairness", "random"),
                             n_iter=5, random_state=0)
    try:
        accuracy_panel, gap_panel = plot_robustness_curve(curve)
        assert [line.get_label() for line in gap_panel.get_lines()] == ["fairness", "random"]
        assert len(accuracy_panel.get_lines()) == 2
        assert len(gap_panel.collections) == 2  # the intervals' bands
        np.testing.assert_allclose(gap_panel.get_lines()[0].get_ydata(),
                                   curve.loc["fairness", "equalized_odds_difference"])
        _, panels = plt.subplots(1, 2)
        drawn = plot_robustness_curve(curve, metric="soft_gap", ax=panels)
        assert drawn[1] is panels[1] and len(panels[1].collections) == 0  # the soft gap has no interval
        with pytest.raises(ValueError, match="metric 'accuracy_low' is not a gap of the curve"):
            plot_robustness_curve(curve, metric="accuracy_low")
        with pytest.raises(ValueError, match="ax must be two Axes"):
            plot_robustness_curve(curve, ax=panels[0])
    finally:
        plt.close("all")


# --- the audit check --------------------------------------------------------------------------------


def audit_frame(n_samples=200, seed=0):
    rng = np.random.default_rng(seed)
    group = rng.choice(["a", "b"], n_samples)
    frame = pd.DataFrame({"x1": rng.normal(size=n_samples) + (group == "a"), "x2": rng.normal(size=n_samples),
                          "kind": rng.choice(["u", "v", "w"], n_samples), "g": group})
    frame["y"] = (frame["x1"] + frame["x2"] + rng.normal(size=n_samples) > 0.5).astype(int)
    return frame


def test_the_check_moves_the_numeric_columns_only_on_a_grid_up_to_eps():
    model, X, y, group = make_model(0, n_samples=120)
    X = np.column_stack([X, np.eye(3)[np.arange(120) % 3]])  # three one-hot columns
    model = LogisticRegression().fit(X, y)
    seen = []
    predict = model.predict
    model.predict = lambda X: seen.append(X) or predict(X)
    names = [f"numeric__x{j}" for j in range(4)] + ["categorical__kind_u", "categorical__kind_v",
                                                      "categorical__kind_w"]
    table = robustness_check(model, X, y, pd.DataFrame({"g": group}), option=0.2, random_state=0,
                             feature_names=names)
    assert list(table.columns) == ["accuracy", "accuracy_low", "accuracy_high", "equalized_odds_difference",
                                   "equalized_odds_difference_low", "equalized_odds_difference_high",
                                   "demographic_parity_difference"]
    assert list(table.index) == [(attack, eps) for attack in ("accuracy", "fairness", "random")
                                 for eps in (0.0, 0.05, 0.1, 0.2)]
    assert len(seen) == 1 + 3 * 3
    for X_adv in seen:
        assert np.array_equal(X_adv[:, 4:], X[:, 4:])  # one-hot columns stay
        assert np.all(X_adv[:, :4] >= X[:, :4].min(axis=0)) and np.all(X_adv[:, :4] <= X[:, :4].max(axis=0))
        assert np.abs(X_adv - X).max() <= 0.2 + 1e-12
    assert np.abs(seen[-1][:, :4] - X[:, :4]).max() > 0.1


@pytest.mark.parametrize("option", [0, -0.1, float("nan"), float("inf"), "abc", True])
def test_the_check_refuses_an_option_that_is_not_a_size(option):
    model, X, y, group = make_model(0, n_samples=50)
    with pytest.raises(ValueError, match="the robustness check's option is the largest attack size EPS"):
        robustness_check(model, X, y, pd.DataFrame({"g": group}), option=option, random_state=0)


def test_the_check_refuses_a_table_without_numeric_features():
    model, X, y, group = make_model(0, n_samples=50)
    with pytest.raises(ValueError, match="every feature is one-hot encoded"):
        robustness_check(model, X, y, group, option=0.1, random_state=0,
                         feature_names=[f"categorical__c_{j}" for j in range(4)])


def test_the_check_is_registered_and_its_first_line_is_what_audit_help_shows():
    from fairkit.registry import all_audit_checks

    assert all_audit_checks()["robustness"] is robustness_check
    assert robustness_check.__doc__.splitlines()[0].startswith("Accuracy and group gaps under accuracy and")


def test_audit_adds_the_robustness_table_for_the_baseline():
    from fairkit.audit import audit

    result = audit(audit_frame(), target="y", sensitive="g", methods=[], checks={"robustness": 0.1})
    assert result.failures == {}
    table = result.checks["robustness"]
    assert table.index.names == ["model", "attack", "eps"]
    assert set(table.index.get_level_values("eps")) == {0.0, 0.025, 0.05, 0.1}
    clean = table.loc[("baseline", "fairness", 0.0)]
    overall = result.overall["baseline"]
    assert clean["accuracy"] == pytest.approx(overall["accuracy"])
    for gap in ("equalized_odds_difference", "demographic_parity_difference"):
        assert clean[gap] == pytest.approx(overall[gap])
    text = result.to_text()
    assert "Check robustness (option 0.1)" in text
    assert "fairness  0.1 " in text


@pytest.mark.slow
def test_audit_with_its_default_fair_method_attacks_it_as_a_black_box():
    from fairkit.audit import audit

    result = audit(audit_frame(), target="y", sensitive="g", checks={"robustness": 0.1})
    assert result.failures == {}
    models = set(result.checks["robustness"].index.get_level_values("model"))
    assert models == {"baseline", "RandomizedFairBOC"}
    assert any("RandomizedFairBOC, robustness: FairkitWarning: RandomizedFairBOC has no closed-form gradient"
               in note for note in result.notes)


@pytest.mark.slow
def test_the_cli_prints_the_robustness_table(tmp_path, capsys):
    from fairkit.cli import main

    path = tmp_path / "data.csv"
    audit_frame(120).to_csv(path, index=False)
    assert main(["audit", str(path), "--target", "y", "--sensitive", "g", "--robustness", "0.1",
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    section = out.split("Check robustness (option 0.1)")[1]
    assert "baseline" in section and "RandomizedFairBOC" in section and "random" in section


def test_the_cli_prints_the_robustness_table_quick(tmp_path, capsys):
    """The quick variant: a network (attacked through its gradient) instead of the black-box default."""
    from fairkit.cli import main

    path = tmp_path / "data.csv"
    audit_frame(120).to_csv(path, index=False)
    assert main(["audit", str(path), "--target", "y", "--sensitive", "g", "--robustness", "0.1",
                 "--method", "FairAdversarialClassifier", "--param", "max_epochs=2", "--param",
                 "hidden_layer_sizes=(4,)", "--metric", "equalized_odds_difference", "--no-progress"]) == 0
    section = capsys.readouterr().out.split("Check robustness (option 0.1)")[1]
    assert "\nbaseline " in section and "\nFairAdversarialClassifier  accuracy  0 " in section
    assert section.count("fairness  0.1 ") == 2  # the largest attack on each model
