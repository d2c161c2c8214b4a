import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression

from fairkit_shift._datasets import make_subgroup_shift
from fairkit_shift._diagnoser import SubgroupShiftDiagnoser


def diagnose(design, n_samples, seed=0, **params):
    data = make_subgroup_shift(design, n_samples=n_samples, rise=0.2, random_state=seed)
    diagnoser = SubgroupShiftDiagnoser(n_bootstrap=2000, random_state=seed, **params)
    return data, diagnoser.fit(data.X_source, data.y_source, data.X_target, data.y_target, data.model)


def rejected(diagnoser):
    summary = diagnoser.summary().query("level == 'where'").set_index("decomposition")
    return {name: bool(summary.loc[name, "reject"]) for name in ("covariate", "outcome")}


@pytest.mark.parametrize("design", ["covariate", "outcome"])
def test_a_planted_shift_is_found_in_its_decomposition_only(design):
    # 2 x 20,000 rows: a rise of 4 tolerances in 10 % of the rows, as the benchmark's power curve
    data, diagnoser = diagnose(design, 20000, variable_groups={"x3": ["x3"], "x4": ["x4"]})
    assert rejected(diagnoser) == {"covariate": design == "covariate", "outcome": design == "outcome"}
    row = diagnoser.summary().query("level == 'where'").set_index("decomposition").loc[design]
    assert row["estimate"] > row["critical_value"] > 0 and row["p_value"] <= 0.05
    assert row["prevalence_source"] >= 0.04 and row["prevalence_target"] >= 0.04
    (rule,) = diagnoser.subgroups_
    assert rule.decomposition == design and rule.fidelity > 0.9
    in_rule, in_g = rule.predicate(data.X_target), data.subgroup_target
    if design == "outcome":  # the loss rose on all of G: the rule is G
        assert (in_rule & in_g).sum() / (in_rule | in_g).sum() > 0.8
    else:  # the rise is where x3 moved in G, and the rule stays in G
        assert (in_rule & in_g).sum() / in_rule.sum() > 0.9
    losses = diagnoser.subgroup_losses_.set_index(["subgroup", "domain"])["mean_loss"]
    assert losses[rule.text, "target"] - losses[rule.text, "source"] > 0.05 + 0.05
    # stage 2 ran for the rejected decomposition only: x3 moved in the covariate design; in the outcome
    # design Y | X changed on G (x1) whatever x3 and x4
    how = diagnoser.summary().query("level == 'how'")
    assert how["decomposition"].eq(design).all() and how["subset"].tolist() == ["x3", "x4"]
    assert how.set_index("subset")["reject"].to_dict() == {"x3": design == "covariate", "x4": False}


def test_no_shift_rejects_nothing():
    _, diagnoser = diagnose("none", 20000)
    assert rejected(diagnoser) == {"covariate": False, "outcome": False}
    assert diagnoser.subgroups_ == [] and diagnoser.subgroup_losses_["subgroup"].eq("overall").all()


def test_summary_layout_and_values():
    _, diagnoser = diagnose("outcome", 4000)
    summary = diagnoser.summary()
    assert summary.columns.tolist() == [
        "level", "decomposition", "subset", "estimate", "estimate_plugin", "std_error", "critical_value",
        "p_value", "p_value_adjusted", "reject", "n_candidates", "prevalence_source", "prevalence_target"]
    assert summary["level"].tolist() == ["where", "where"] and summary["subset"].tolist() == ["all", "all"]
    assert ((summary["p_value"] > 0) & (summary["p_value"] <= 1)).all()
    assert (summary["reject"] == (summary["p_value"] <= 0.05)).all()
    summary.loc[0, "estimate"] = 99.0  # a copy: the fitted results do not change
    assert diagnoser.summary().loc[0, "estimate"] != 99.0


def test_reproducible_and_clonable():
    _, first = diagnose("outcome", 4000, seed=3)
    _, second = diagnose("outcome", 4000, seed=3)
    pd.testing.assert_frame_equal(first.summary(), second.summary())
    assert clone(first).get_params() == first.get_params() and not hasattr(clone(first), "results_")


def test_labels_are_encoded_by_the_models_classes():
    data = make_subgroup_shift("outcome", n_samples=4000, random_state=0)
    words = np.array(["no", "yes"])
    model = clone(data.model)
    model.coef_, model.intercept_, model.classes_ = data.model.coef_, data.model.intercept_, words
    model.n_features_in_, model.feature_names_in_ = data.model.n_features_in_, data.model.feature_names_in_
    encoded = SubgroupShiftDiagnoser(n_bootstrap=500, random_state=0).fit(
        data.X_source, words[data.y_source], data.X_target, words[data.y_target], model)
    plain = SubgroupShiftDiagnoser(n_bootstrap=500, random_state=0).fit(
        data.X_source, data.y_source, data.X_target, data.y_target, data.model)
    pd.testing.assert_frame_equal(encoded.summary(), plain.summary())
    assert encoded.classes_.tolist() == ["no", "yes"]


@pytest.fixture(scope="module")
def data():
    return make_subgroup_shift("none", n_samples=400, random_state=0)


def test_bad_inputs_are_refused(data):
    fit = SubgroupShiftDiagnoser().fit
    Xs, ys, Xt, yt, model = data.X_source, data.y_source, data.X_target, data.y_target, data.model
    with pytest.raises(ValueError, match="X_source has 5 columns and X_target 4"):
        fit(Xs, ys, Xt.iloc[:, :4], yt, model)
    with pytest.raises(ValueError, match="same columns in the same order"):
        fit(Xs, ys, Xt[Xt.columns[::-1]], yt, model)
    with pytest.raises(ValueError, match="different pandas indexes"):
        fit(Xs, ys.iloc[::-1], Xt, yt, model)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        fit(Xs, ys.to_numpy()[:-1], Xt, yt, model)
    with pytest.raises(TypeError, match="predict_proba"):
        fit(Xs, ys, Xt, yt, object())
    with pytest.raises(ValueError, match=r"labels the model does not know: \[2\]"):
        fit(Xs, ys, Xt, yt.replace(1, 2), model)
    with pytest.raises(ValueError, match="binary classifier"):
        fit(Xs, ys, Xt, yt, LogisticRegression().fit(np.arange(6.0).reshape(-1, 1), [0, 1, 2, 0, 1, 2]))
    with pytest.raises(ValueError, match="the target domain has 40 samples"):
        fit(Xs, ys, Xt.iloc[:40], yt.iloc[:40], model)
    with pytest.raises(ValueError, match="tolerance"):
        SubgroupShiftDiagnoser(tolerance=-1).fit(Xs, ys, Xt, yt, model)


def test_a_refused_fit_keeps_the_fitted_results(data):
    _, diagnoser = diagnose("outcome", 4000)
    before, state = diagnoser.summary(), dict(vars(diagnoser))
    with pytest.raises(ValueError, match="labels the model does not know"):  # after the columns are read
        diagnoser.fit(data.X_source, data.y_source, data.X_target, data.y_target + 5, data.model)
    pd.testing.assert_frame_equal(diagnoser.summary(), before)
    assert vars(diagnoser).keys() == state.keys()
    assert diagnoser.covariate_detectors_ is state["covariate_detectors_"]


def test_stage_two_adjusts_by_holm_and_does_not_depend_on_n_jobs():
    data = make_subgroup_shift("conditional_outcome", n_samples=8000, prevalence=0.2, random_state=1)
    fits = [SubgroupShiftDiagnoser(n_bootstrap=2000, random_state=1, n_jobs=n_jobs).fit(
        data.X_source, data.y_source, data.X_target, data.y_target, data.model) for n_jobs in (1, 2)]
    pd.testing.assert_frame_equal(fits[0].summary(), fits[1].summary())
    how = fits[0].summary().query("level == 'how'")
    assert how["subset"].tolist() == ["x1", "x2", "x3", "x4", "x5"]  # one subset per column by default
    p = how["p_value"].to_numpy()
    order = np.argsort(p, kind="stable")
    holm = np.minimum(1, np.maximum.accumulate(p[order] * (len(p) - np.arange(len(p)))))
    np.testing.assert_allclose(how["p_value_adjusted"].to_numpy()[order], holm)
    assert (how["reject"] == (how["p_value_adjusted"] <= 0.05)).all()
    assert how.set_index("subset").loc["x3", "reject"] and not how.set_index("subset").loc["x4", "reject"]


@pytest.mark.parametrize("groups, match", [
    ({}, "variable_groups is an empty dict"),
    ({"a": ["nope"]}, "nope"),
    ({"a": []}, "empty"),
])
def test_bad_variable_groups_are_refused_before_fitting(data, groups, match):
    diagnoser = SubgroupShiftDiagnoser(variable_groups=groups)
    with pytest.raises(ValueError, match=match):
        diagnoser.fit(data.X_source, data.y_source, data.X_target, data.y_target, data.model)
    assert not hasattr(diagnoser, "results_")
