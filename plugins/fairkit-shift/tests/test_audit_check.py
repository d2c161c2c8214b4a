"""The shift check of ``fairkit audit --target-csv``: end to end through the audit, and its boundary."""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.utils import Bunch

from fairkit.audit import audit
from fairkit_shift import make_subgroup_shift
from fairkit_shift._audit import DEFAULT_TOLERANCE, _ModelOnDomains, _tolerance, shift_check
from fairkit_shift._diagnoser import _SUMMARY_COLUMNS
from fairkit_shift._rules import SubgroupRule


def _csv(X, y, path, seed):
    """The rows of one domain as a CSV file, with a sensitive column (random groups) and the label."""
    frame = X.assign(group=np.random.default_rng(seed).choice(["a", "b"], len(X)), outcome=y.to_numpy())
    frame.to_csv(path, index=False)
    return path


def test_the_audit_finds_a_planted_outcome_shift_between_two_files(tmp_path):  # through the registered check
    # the error rate rises by 0.4 on G = {x1 > 1.28} (10 %) in the target only: far above τ = 0.05. With
    # 4,000 held-out source rows it is found at 20 seeds out of 20 (with 2,000: at 9 out of 10)
    data = make_subgroup_shift("outcome", n_samples=8000, rise=0.4, random_state=0)
    source = _csv(data.X_source, data.y_source, tmp_path / "source.csv", seed=1)
    target = _csv(data.X_target, data.y_target, tmp_path / "target.csv", seed=2)
    # RandomizedFairBOC predicts by group: it gets each domain's groups
    result = audit(source, target="outcome", sensitive="group", methods=["RandomizedFairBOC"], metrics=[],
                   test_size=0.5, checks={"shift": 0.05}, target_data=target, random_state=0)
    assert not result.failures
    assert (result.info["target_source"], result.info["n_target_rows"]) == (str(target), 8000)
    table = result.checks["shift"]
    assert table.index.names == ["model", "level", "decomposition", "subset"]
    summary_columns = [c for c in _SUMMARY_COLUMNS if c not in {"level", "decomposition", "subset"}]
    assert list(table.columns) == [*summary_columns, "subgroup", "subgroup_fidelity"]
    rows = table.reset_index()
    # where: an outcome shift, not a covariate one; how: through x1, the variable that defines G (stage 2
    # tests one subset per preprocessed column); for the baseline, at 12 seeds out of 12
    assert rows.loc[rows["reject"], ["model", "level", "decomposition", "subset"]].to_numpy().tolist() == [
        [model, *test] for model in ("baseline", "RandomizedFairBOC")
        for test in (["where", "outcome", "all"], ["how", "outcome", "numeric__x1"])]
    for model in ("baseline", "RandomizedFairBOC"):
        where = table.xs((model, "where", "all"), level=["model", "level", "subset"])
        assert where.loc["outcome", "estimate"] > 0 and where.loc["outcome", "p_value"] <= 0.05
        # the rule reads in the audit's preprocessed columns and names the planted subgroup's variable
        assert "numeric__x1 >" in where.loc["outcome", "subgroup"]
        assert where.loc["outcome", "subgroup_fidelity"] > 0.7
    assert "Check shift (option 0.05)" in result.to_text()


class _Recorder:
    """A fitted classifier whose probabilities depend on the sensitive features it is given."""

    classes_ = np.array([0, 1])

    def __init__(self):
        self.calls = []

    def predict_proba(self, X, sensitive_features=None):
        self.calls.append((type(X), sensitive_features))
        positive = np.full(len(X), 0.5 if sensitive_features is None else 0.9)
        return np.column_stack([1 - positive, positive])


def test_a_model_that_predicts_by_group_gets_the_groups_of_the_domain_it_scores():
    rng = np.random.default_rng(0)
    X_source, X_target = rng.normal(size=(5, 2)), rng.normal(size=(7, 2))
    groups_source, groups_target = pd.DataFrame({"g": list("aabba")}), pd.DataFrame({"g": list("bbbbaaa")})
    model = _Recorder()
    scored = _ModelOnDomains(model, [(X_source, groups_source), (X_target, groups_target)])
    scored.predict_proba(pd.DataFrame(X_target, columns=["u", "v"]))
    scored.predict_proba(X_source)
    assert [(kind, groups["g"].tolist()) for kind, groups in model.calls] == [
        (np.ndarray, list("bbbbaaa")), (np.ndarray, list("aabba"))]  # arrays, as the audit fitted it
    with pytest.raises(ValueError, match="needs the sensitive features of the rows it scores"):
        scored.predict_proba(X_target[:3])
    assert scored.classes_.tolist() == [0, 1]


def test_a_model_without_groups_gets_arrays_so_no_feature_name_warning():
    X = np.random.default_rng(0).normal(size=(40, 2))
    model = LogisticRegression().fit(X, X[:, 0] > 0)  # fitted on an array, as in the audit
    scored = _ModelOnDomains(model, [(X, None)])
    proba = scored.predict_proba(pd.DataFrame(X[:10], columns=["a", "b"]))  # warnings are errors here
    np.testing.assert_allclose(proba, model.predict_proba(X[:10]))


class _FakeDiagnoser:
    """Stands for SubgroupShiftDiagnoser: records its parameters and what fit got; a hand-made summary."""

    made = []

    def __init__(self, **params):
        self.params = params
        _FakeDiagnoser.made.append(self)

    def fit(self, X_source, y_source, X_target, y_target, model):
        self.fitted = (X_source, y_source, X_target, y_target, model)
        rule = SubgroupRule(decomposition="outcome", terms=(), feature_names=("a", "b"), names_given=True)
        self.subgroups_ = [rule]
        return self

    def summary(self):
        return pd.DataFrame({"level": ["where", "where", "how", "how"],
                             "decomposition": ["covariate", "outcome", "outcome", "outcome"],
                             "subset": ["all", "all", "a", "b"], "reject": [False, True, True, False]})


@pytest.fixture
def fake_diagnoser(monkeypatch):
    _FakeDiagnoser.made = []
    monkeypatch.setattr("fairkit_shift._audit.SubgroupShiftDiagnoser", _FakeDiagnoser)
    return _FakeDiagnoser


def _target(n=6):
    rng = np.random.default_rng(1)
    return Bunch(X=rng.normal(size=(n, 2)), y=np.arange(n) % 2, sensitive_features=None)


def test_the_check_runs_the_diagnoser_on_the_two_domains_and_labels_each_test(fake_diagnoser):
    X, y, target = np.arange(8.0).reshape(4, 2), np.array([0, 1, 0, 1]), _target()
    table = shift_check(LogisticRegression().fit(X, y), X, y, None, option=0.1, random_state=7, target=target,
                        feature_names=["numeric__a", "categorical__b_x"])
    (diagnoser,) = fake_diagnoser.made
    assert diagnoser.params == {"tolerance": 0.1, "random_state": 7}
    X_source, y_source, X_target, y_target, model = diagnoser.fitted
    assert list(X_source.columns) == list(X_target.columns) == ["numeric__a", "categorical__b_x"]
    np.testing.assert_array_equal(X_source, X)
    np.testing.assert_array_equal(X_target, target.X)
    assert y_source.tolist() == y.tolist() and y_target.tolist() == target.y.tolist()
    assert isinstance(model, _ModelOnDomains)
    assert table.index.tolist() == [("where", "covariate", "all"), ("where", "outcome", "all"),
                                    ("how", "outcome", "a"), ("how", "outcome", "b")]
    # the outcome rule on its "where" row only; no rule for the covariate test, which did not reject
    assert [None if pd.isna(text) else text for text in table["subgroup"]] == [None, "none", None, None]
    assert table["reject"].tolist() == [False, True, True, False]


def test_without_feature_names_the_diagnoser_gets_arrays(fake_diagnoser):
    X, y = np.arange(8.0).reshape(4, 2), np.array([0, 1, 0, 1])
    shift_check(LogisticRegression().fit(X, y), X, y, None, option=None, random_state=0, target=_target())
    (diagnoser,) = fake_diagnoser.made
    assert diagnoser.params["tolerance"] == DEFAULT_TOLERANCE
    assert isinstance(diagnoser.fitted[0], np.ndarray) and isinstance(diagnoser.fitted[2], np.ndarray)


@pytest.mark.parametrize(("option", "tolerance"), [(None, 0.05), ("default", 0.05), (0, 0.0), (0.2, 0.2),
                                                   (np.float32(0.5), 0.5), (1, 1.0)])
def test_the_option_is_the_tolerance(option, tolerance):
    assert _tolerance(option) == pytest.approx(tolerance) and isinstance(_tolerance(option), float)


@pytest.mark.parametrize("option", [-0.01, float("nan"), float("inf"), "abc", "0.1", True, [0.1]])
def test_an_option_that_is_not_a_tolerance_is_refused_before_any_fit(option, fake_diagnoser):
    X, y = np.zeros((4, 2)), np.array([0, 1, 0, 1])
    message = (r"^the shift check's option is the tolerance TOL, the rise of a subgroup's loss that is "
               r"tolerated: a number of at least 0 \(such as --check shift=0.05\), or 'default' \(0.05\); "
               r"got ")
    with pytest.raises(ValueError, match=message):
        shift_check(LogisticRegression().fit(X + y[:, None], y), X, y, None, option=option, random_state=0,
                    target=_target())
    assert fake_diagnoser.made == []


def test_without_target_data_or_probabilities_the_check_fails_with_the_reason(fake_diagnoser):
    X, y = np.arange(8.0).reshape(4, 2), np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match=r"none was given: add --target-csv PATH \(audit\(\.\.\., "
                                         r"target_data=\.\.\.\)\)"):
        shift_check(LogisticRegression().fit(X, y), X, y, None, option=None, random_state=0)

    class PredictOnly:
        classes_ = np.array([0, 1])

        def predict(self, X):
            return np.zeros(len(X), dtype=int)

    with pytest.raises(TypeError, match="needs the model's probabilities to measure its loss, and "
                                        "PredictOnly has no predict_proba"):
        shift_check(PredictOnly(), X, y, None, option=None, random_state=0, target=_target())
    assert fake_diagnoser.made == []


def test_the_check_is_registered_as_shift():
    from fairkit.registry import all_audit_checks

    assert all_audit_checks().get("shift") is shift_check
