"""The abstain check (``fairkit audit --abstain COVERAGE``): its table against counts by hand, its refusals,
the warning when ties keep the coverage asked out of reach, and the audit end to end."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.svm import LinearSVC

from fairkit.audit import audit
from fairkit.cli import main
from fairkit.exceptions import FairkitWarning
from fairkit_uncertainty._audit import abstain_check


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    n = 800
    sex, race = rng.choice(["F", "M"], size=n), rng.choice(["p", "q"], size=n)
    X = rng.normal(size=(n, 3)) * np.where(sex == "F", 0.5, 1.0)[:, None]  # F's rows nearer the boundary
    y = (X @ [1.0, -1.0, 0.5] + rng.normal(size=n) > 0).astype(int)
    return X, y, pd.DataFrame({"sex": sex, "race": race})


def test_the_table_of_a_logistic_regression_matches_counts_by_hand(data):
    X, y, groups = data
    model = LogisticRegression().fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FairkitWarning)  # continuous confidences: the coverage asked is met
        table = abstain_check(model, X, y, groups[["sex"]], option=0.75, random_state=0)
    confidence = model.predict_proba(X).max(axis=1)
    answered = confidence >= np.sort(confidence)[::-1][599]  # ceil(0.75 * 800) = 600 rows
    right = model.predict(X) == y
    assert list(table.index) == ["overall", "F", "M"] and table.index.name == "group"
    assert table.loc["overall", "coverage"] == 0.75
    assert table.loc["overall", "selective_accuracy"] == pytest.approx(right[answered].mean())
    for sex in ("F", "M"):
        member = groups["sex"].to_numpy() == sex
        assert table.loc[sex, "count"] == member.sum()
        assert table.loc[sex, "coverage"] == pytest.approx(answered[member].mean())
        assert table.loc[sex, "selective_accuracy"] == pytest.approx(right[answered & member].mean())
        assert table.loc[sex, "accuracy"] == pytest.approx(right[member].mean())
        assert table.loc[sex, "coverage_low"] < table.loc[sex, "coverage"] < table.loc[sex, "coverage_high"]
    shortfall = table.loc["M", "coverage"] - table.loc["F", "coverage"]
    assert table.loc["F", "shortfall"] == pytest.approx(shortfall) and shortfall > 0.1  # F's rows: less sure
    assert table.loc["F", "flagged"] and not table.loc["M", "flagged"] and table.loc["overall", "flagged"]
    assert np.isnan(table.loc["overall", "shortfall"]) and table["aurc"].between(0, 1).all()


def test_intersectional_groups_are_labelled_by_their_values(data):
    X, y, groups = data
    table = abstain_check(LogisticRegression().fit(X, y), X, y, groups, option=0.8, random_state=0)
    assert list(table.index) == ["overall", "F & p", "F & q", "M & p", "M & q"]
    assert table["count"].iloc[1:].sum() == table.loc["overall", "count"] == len(y)


@pytest.mark.parametrize("option", [0, -0.5, 1.2, np.nan, True, "0.8", None])
def test_the_option_must_be_a_coverage(data, option):
    X, y, groups = data
    with pytest.raises(ValueError, match=r"a number in \(0, 1\] \(such as --abstain 0\.8\)"):
        abstain_check(LogisticRegression().fit(X, y), X, y, groups, option=option, random_state=0)


def test_a_model_without_predict_proba_fails_with_the_reason(data):
    X, y, groups = data
    with pytest.raises(TypeError, match="LinearSVC has no predict_proba"):
        abstain_check(LinearSVC().fit(X, y), X, y, groups, option=0.8, random_state=0)


def test_a_model_whose_probabilities_tie_warns_and_reports_the_coverage_achieved(data):
    from fairkit.postprocessing import RandomizedFairBOC

    X, y, groups = data
    model = RandomizedFairBOC(random_state=0).fit(X, y, sensitive_features=groups[["sex"]])
    confidence = model.predict_proba(X, sensitive_features=groups[["sex"]]).max(axis=1)  # takes the groups
    achieved = np.mean(confidence >= np.sort(confidence)[::-1][int(np.ceil(0.5 * len(y))) - 1])
    assert achieved > 0.51  # the rule decides most rows with probability 1: ties
    with pytest.warns(FairkitWarning, match=rf"to answer 0.5 of the rows, and it answers {achieved:.3f}: "
                                            "many rows share its largest class probability"):
        table = abstain_check(model, X, y, groups[["sex"]], option=0.5, random_state=0)
    assert table.loc["overall", "coverage"] == pytest.approx(achieved)


# --- end to end: once the plugin registers the check -----------------------------------------------------


@pytest.fixture
def frame():
    rng = np.random.default_rng(1)
    n = 600
    sex = rng.choice(["F", "M"], size=n)
    x = rng.normal(size=n)
    income = np.where(x + 0.5 * rng.normal(size=n) > 0.3, ">50K", "<=50K")
    return pd.DataFrame({"x": x, "z": rng.normal(size=n), "sex": sex, "income": income})


def test_the_audit_runs_the_abstain_check_on_every_model(frame, tmp_path, capsys):
    result = audit(frame, target="income", sensitive="sex", positive_label=">50K", methods=[], metrics=[],
                   checks={"abstain": 0.8})
    assert not result.failures
    table = result.checks["abstain"]
    assert table.index.names == ["model", "group"]
    assert list(table.loc["baseline"].index) == ["overall", "F", "M"]
    assert table.loc[("baseline", "overall"), "coverage"] == pytest.approx(0.8, abs=0.01)
    assert table.loc[("baseline", "overall"), "accuracy"] == pytest.approx(result.overall.loc["accuracy",
                                                                                              "baseline"])
    path = tmp_path / "people.csv"
    frame.to_csv(path, index=False)
    code = main(["audit", str(path), "--target", "income", "--positive-label", ">50K", "--sensitive", "sex",
                 "--method", "RandomizedFairBOC", "--metric", "demographic_parity_difference",
                 "--abstain", "0.8", "--no-progress"])
    assert code == 0 and "Check abstain (option 0.8)" in capsys.readouterr().out
