import json

import numpy as np
import pandas as pd
import pytest
from scipy.stats import beta, loguniform, norm, poisson, randint, uniform
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score

from fairkit.datasets import make_fair_classification
from fairkit.integrations._spaces import parse_entry
from fairkit.integrations.flaml import ConstrainedAccuracy, add_learner, flaml_space
from fairkit.metrics import demographic_parity_difference, true_positive_rate_difference
from fairkit.registry import all_search_spaces

flaml = pytest.importorskip("flaml")
# FLAML's modules warn on import and during a search (deprecations of its dependencies)
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning",
                                        "ignore::UserWarning")


def _frame(n_samples, random_state):
    X, y, group = make_fair_classification(n_samples, random_state=random_state)
    return pd.DataFrame(X).add_prefix("x").assign(group=group), y


def _automl_fit(X, y, name, metric, **settings):
    automl = flaml.AutoML()
    learner = add_learner(automl, name, sensitive_cols="group", random_state=0)
    settings = {"time_budget": 30, "max_iter": 3, "eval_method": "holdout", "split_ratio": 0.3, "seed": 0,
                "n_jobs": 1, "verbose": 0, **settings}
    automl.fit(X, y, task="classification", metric=metric, estimator_list=[learner], **settings)
    return automl


# ---------------------------------------------------------------------------------------------
# the search space


def test_each_kind_of_entry_becomes_the_matching_domain():
    models = [LogisticRegression(C=0.1), LogisticRegression(C=10.0)]
    space = flaml_space({"C": loguniform(1e-3, 1e3), "alpha": uniform(2.0, 3.0), "k": randint(1, 4),
                         "penalty": ["l1", "l2", None], "model": models, "share": beta(2, 5)})
    domains = {name: entry["domain"] for name, entry in space.items()}
    def bounds(domain):
        return domain.lower, domain.upper, str(domain.get_sampler())

    assert bounds(domains["C"]) == (1e-3, 1e3, "LogUniform")
    assert bounds(domains["alpha"]) == (2.0, 5.0, "Uniform")
    assert (domains["share"].lower, domains["share"].upper) == (0.0, 1.0)
    assert domains["penalty"].categories == ["l1", "l2", None]
    assert domains["model"].categories == [0, 1]  # estimators are chosen by index
    # scipy's randint(1, 4) and FLAML's randint(1, 4) both exclude 4
    assert (domains["k"].lower, domains["k"].upper) == (1, 4)
    drawn = domains["k"].sample(size=200, random_state=0)
    assert set(drawn) == {1, 2, 3}
    assert {name: entry["init_value"] for name, entry in space.items()} == {
        "C": 1e-3, "alpha": 2.0, "k": 1, "penalty": "l1", "model": 0, "share": 0.0}


@pytest.mark.parametrize(("entry", "error", "message"), [
    (norm(0, 1), TypeError, "unbounded; FLAML needs bounds"),
    (poisson(3), TypeError, "no FLAML counterpart"),
    ([], ValueError, "empty"),
    (3, TypeError, "expected a list or a scipy.stats distribution"),
])
def test_unusable_entries_are_named(entry, error, message):
    with pytest.raises(error, match=f"parameter 'x': .*{message}"):
        flaml_space({"x": entry})


@pytest.mark.parametrize("name", sorted(all_search_spaces()))
def test_every_registered_space_converts_and_starts_inside_itself(name):
    space = all_search_spaces()[name]
    converted = flaml_space(space)
    assert set(converted) == set(space)
    for key, entry in converted.items():
        domain, start = entry["domain"], entry["init_value"]
        assert domain.is_valid(start), (key, start)
        values = [start, *np.atleast_1d(domain.sample(size=20, random_state=0))]
        kind = parse_entry(key, space[key], "FLAML")
        if hasattr(kind, "values"):  # a choice: the values, or their indexes
            allowed = range(len(kind.values)) if kind.by_index else kind.values
            assert all(value in allowed for value in values), (key, values)
        else:
            assert all(kind.low <= value <= kind.high for value in values), (key, values)


# ---------------------------------------------------------------------------------------------
# the learner


def test_the_search_tries_configurations_besides_the_estimators_defaults(tmp_path):
    """FLAML's default search (CFO) tries only the defaults when no entry has a starting value."""
    X, y = _frame(2000, random_state=0)
    log = tmp_path / "search.log"
    _automl_fit(X, y, "RandomizedFairBOC", ConstrainedAccuracy(0.1, sensitive_cols="group"), max_iter=4,
                log_file_name=str(log), log_type="all")
    configs = [json.loads(line)["config"] for line in log.read_text().splitlines() if '"config"' in line]
    assert len(configs) >= 2
    assert all(set(config) == {"constraint", "tolerance"} for config in configs)
    assert len({json.dumps(config, sort_keys=True) for config in configs}) == len(configs)


@pytest.mark.parametrize("validation", [False, True])
def test_sensitive_features_as_a_fit_argument_are_refused(validation):
    """FLAML passes them whole: with validation rows given, a learner gets all of the training rows,
    shuffled, so the lengths agree and only the rows are wrong."""
    X, y = _frame(600, random_state=0)
    X_val, y_val = (X[400:], y[400:]) if validation else (None, None)
    X_train, y_train = (X[:400], y[:400]) if validation else (X, y)
    metric = ConstrainedAccuracy(0.1, sensitive_cols="group")
    with pytest.raises(ValueError, match="passes such arguments whole to every learner"):
        _automl_fit(X_train, y_train, "RandomizedFairBOC", metric, X_val=X_val, y_val=y_val,
                    sensitive_features=X_train["group"].to_numpy())


def test_a_group_filled_in_by_flaml_is_refused():
    X, y = _frame(600, random_state=0)
    X["group"] = X["group"].map({0: "a", 1: "b"}).astype(object)
    X.loc[::50, "group"] = None  # FLAML's preprocessing fills these with "__NAN__"
    with pytest.raises(ValueError, match="hold '__NAN__'.*fairkit refuses missing sensitive features"):
        _automl_fit(X, y, "RandomizedFairBOC", ConstrainedAccuracy(0.1, sensitive_cols="group"))


@pytest.mark.parametrize(("name", "cols", "message"), [
    ("RandomizedFairBOC", 3, "sensitive_cols must name columns of X"),
    ("RandomizedFairBOC", [], "sensitive_cols must name columns of X"),
    ("FairSpectralClustering", "group", "classifiers and regressors; FairSpectralClustering is neither"),
    ("NoSuchEstimator", "group", "No estimator named 'NoSuchEstimator'"),
])
def test_add_learner_refuses_what_flaml_cannot_tune(name, cols, message):
    automl = flaml.AutoML()
    with pytest.raises(ValueError, match=message):
        add_learner(automl, name, sensitive_cols=cols)
    assert name not in automl._state.learner_classes


def test_fixed_parameters_leave_the_search_space():
    X, y = _frame(1000, random_state=0)
    automl = flaml.AutoML()
    learner = add_learner(automl, "RandomizedFairBOC", sensitive_cols="group", learner_name="fair",
                          constraint="equal_opportunity", random_state=3)
    cls = automl._state.learner_classes[learner]
    assert learner == "fair" and set(cls.search_space(data_size=X.shape, task="binary")) == {"tolerance"}
    automl.fit(X, y, task="classification", metric=ConstrainedAccuracy(0.2, sensitive_cols="group"),
               estimator_list=[learner], max_iter=2, eval_method="holdout", n_jobs=1, verbose=0)
    model = automl.model.estimator
    assert (model.constraint, model.random_state, model.sensitive_cols) == ("equal_opportunity", 3, ["group"])


def test_a_fitted_automl_pickles_and_predicts_the_same(tmp_path):
    X, y = _frame(1000, random_state=0)
    automl = _automl_fit(X, y, "RandomizedFairBOC", ConstrainedAccuracy(0.2, sensitive_cols="group"))
    automl.pickle(str(tmp_path / "automl.pkl"))  # FLAML's own persistence, through pickle
    loaded = flaml.AutoML.load_pickle(str(tmp_path / "automl.pkl"))
    np.testing.assert_array_equal(loaded.predict(X), automl.predict(X))
    assert type(loaded.model).__name__ == "FLAMLRandomizedFairBOC"


def test_string_groups_reach_the_estimator_as_flamls_codes():
    X, y = _frame(1000, random_state=0)
    X["group"] = X["group"].map({0: "a", 1: "b"})
    automl = _automl_fit(X, y, "RandomizedFairBOC", ConstrainedAccuracy(0.2, sensitive_cols="group"))
    assert automl.model.estimator.groups_.tolist() == [0, 1]
    unseen = X.assign(group=X["group"].where(X.index > 2, "c"))
    # FLAML warns and encodes the value as "__NAN__", whose code fairkit refuses
    with (pytest.warns(UserWarning, match="unseen at fit time"),
          pytest.raises(ValueError, match="not seen during fit")):
        automl.predict(unseen)


SPACE_PLUGIN = '''
from sklearn.linear_model import LogisticRegression

from fairkit import hookimpl
from fairkit.postprocessing import RandomizedFairBOC


class ScoredFairBOC(RandomizedFairBOC):
    pass


@hookimpl
def fairkit_estimators():
    return [ScoredFairBOC]


@hookimpl
def fairkit_search_spaces():
    return {"ScoredFairBOC": {"estimator": [LogisticRegression(C=0.01), LogisticRegression(C=100.0)]}}
'''


def test_estimators_in_the_space_are_searched_by_index(install_plugin):
    install_plugin("scoredplug", SPACE_PLUGIN)
    X, y = _frame(1000, random_state=0)
    automl = _automl_fit(X, y, "ScoredFairBOC", ConstrainedAccuracy(0.2, sensitive_cols="group"), max_iter=2)
    index = automl.best_config["estimator"]
    assert index in (0, 1)
    expected = (0.01, 100.0)[index]
    assert automl.model.estimator.estimator_.get_params()["C"] == expected


# ---------------------------------------------------------------------------------------------
# the metric


class _Fixed:
    """A fitted learner that predicts the given labels."""

    def __init__(self, y_pred):
        self.y_pred = np.asarray(y_pred)

    def predict(self, X):
        return self.y_pred


def _call(metric, X, y, y_pred, **kwargs):
    return metric(X, y, _Fixed(y_pred), None, None, None, **kwargs)


def test_the_loss_is_one_minus_accuracy_within_the_bound_and_above_any_such_loss_beyond():
    X, y = _frame(400, random_state=1)
    rng = np.random.default_rng(0)
    gaps, losses = [], []
    for _ in range(30):
        y_pred = (rng.random(400) < rng.uniform(0.2, 0.8, size=2)[X["group"]]).astype(int)
        loss, logged = _call(ConstrainedAccuracy(0.1, sensitive_cols="group"), X, y, y_pred)
        gap = demographic_parity_difference(y, y_pred, sensitive_features=X["group"])
        assert logged == {"accuracy": accuracy_score(y, y_pred), "demographic_parity_difference": gap}
        if gap <= 0.1:
            assert loss == pytest.approx(1 - accuracy_score(y, y_pred))
        else:
            assert loss == pytest.approx(1000 + gap - 0.1)
        gaps.append(gap)
        losses.append(loss)
    feasible = np.array(gaps) <= 0.1
    assert feasible.any() and not feasible.all()
    assert max(np.array(losses)[feasible]) < min(np.array(losses)[~feasible])


def test_under_cross_validation_a_miss_on_one_fold_ranks_below_meeting_the_bound_on_all():
    from flaml.automl.ml import default_cv_score_agg_func

    X, y = _frame(200, random_state=1)
    metric = ConstrainedAccuracy(0.5, sensitive_cols="group")
    # fair but poor on every fold, against right on nine folds and as unfair as can be on the tenth
    fair_everywhere = [_call(metric, X, y, np.zeros_like(y))] * 10
    missed_once = [_call(metric, X, y, y)] * 9 + [_call(metric, X, y, X["group"].to_numpy())]
    assert fair_everywhere[0][0] > missed_once[0][0] == 0 and missed_once[-1][0] > 1
    fair_loss, _ = default_cv_score_agg_func(*zip(*fair_everywhere, strict=True))
    missed_loss, _ = default_cv_score_agg_func(*zip(*missed_once, strict=True))
    assert missed_loss > fair_loss


def test_ci_judges_the_upper_end_of_fairkits_interval():
    X, y = _frame(400, random_state=1)
    y_pred = (X["x0"] > 0).astype(int).to_numpy()
    value, _, high = demographic_parity_difference(y, y_pred, sensitive_features=X["group"], ci=0.9)
    assert value < high
    bound = (value + high) / 2  # the value meets it, the interval's upper end does not
    plain, _ = _call(ConstrainedAccuracy(bound, sensitive_cols="group"), X, y, y_pred)
    loss, logged = _call(ConstrainedAccuracy(bound, sensitive_cols="group", ci=0.9), X, y, y_pred)
    assert plain < 1 and loss == pytest.approx(1000 + high - bound)
    assert logged["demographic_parity_difference"] == value
    assert logged["demographic_parity_difference_high"] == high


def test_weights_and_gap_parameters_reach_fairkits_metrics():
    X, y = _frame(400, random_state=1)
    y_pred = (X["x0"] > 0).astype(int).to_numpy()
    weights = np.random.default_rng(0).uniform(0.1, 2.0, 400)
    metric = ConstrainedAccuracy(1.0, sensitive_cols=["group"], gap="true_positive_rate_difference",
                                 pos_label=0)
    loss, logged = _call(metric, X, y, y_pred, weight_val=weights)
    assert logged["accuracy"] == accuracy_score(y, y_pred, sample_weight=weights)
    assert logged["true_positive_rate_difference"] == true_positive_rate_difference(
        y, y_pred, sensitive_features=X["group"], sample_weight=weights, pos_label=0)
    assert loss == pytest.approx(1 - logged["accuracy"])


def test_an_undefined_gap_is_never_chosen():
    X, y = _frame(400, random_state=1)
    y = np.zeros_like(y)  # no positives: every group's true positive rate is 0/0
    metric = ConstrainedAccuracy(1.0, sensitive_cols="group", gap="true_positive_rate_difference")
    with pytest.warns(UserWarning, match="true positive rate"):
        loss, logged = _call(metric, X, y, y)
    assert loss == np.inf and np.isnan(logged["true_positive_rate_difference"])


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"bound": -0.1}, ValueError, "bound == -0.1, must be >= 0"),
    ({"ci": 1.5}, ValueError, "ci == 1.5, must be < 1"),
    ({"gap": "demographic_parity_ratio"}, ValueError, "is a ratio"),
    ({"gap": "selection_rate"}, ValueError, "cannot be a scorer"),
    ({"gap": "no_such_metric"}, ValueError, "Unknown fairness metric 'no_such_metric'"),
    ({"sensitive_cols": 0}, ValueError, "sensitive_cols must name columns of X"),
])
def test_the_metric_refuses_bad_settings(kwargs, error, message):
    with pytest.raises(error, match=message):
        ConstrainedAccuracy(**{"bound": 0.1, "sensitive_cols": "group", **kwargs})


def test_the_metric_refuses_validation_rows_it_cannot_read():
    X, y = _frame(100, random_state=1)
    metric = ConstrainedAccuracy(0.1, sensitive_cols="group")
    with pytest.raises(ValueError, match=r"sensitive_cols names columns \['group'\] that X does not have"):
        _call(metric, X.drop(columns="group"), y, y)
    with pytest.raises(ValueError, match="X_val and y_val carry different pandas indexes"):
        _call(metric, X, pd.Series(y, index=X.index[::-1]), y)
    with pytest.raises(TypeError, match="not an Estimate"):
        _call(ConstrainedAccuracy(0.1, sensitive_cols="group", ci=0.9,
                                  gap=lambda y_true, y_pred, *, sensitive_features, ci: 0.0), X, y, y)


# ---------------------------------------------------------------------------------------------
# a real search


def test_the_chosen_configuration_meets_the_bound_on_held_out_data(tmp_path):
    X, y = _frame(30000, random_state=1)
    X_train, y_train, X_test, y_test = X[:10000], y[:10000], X[10000:], y[10000:]
    bound = 0.08
    unconstrained = LogisticRegression().fit(X_train, y_train).predict(X_test)
    groups = X_test["group"]
    assert demographic_parity_difference(y_test, unconstrained, sensitive_features=groups) > 4 * bound

    log = tmp_path / "search.log"
    metric = ConstrainedAccuracy(bound, sensitive_cols="group", ci=0.9)
    automl = _automl_fit(X_train, y_train, "RandomizedFairBOC", metric, hpo_method="random", max_iter=12,
                         log_file_name=str(log), log_type="all")
    trials = [json.loads(line) for line in log.read_text().splitlines() if '"config"' in line]
    accuracy = automl.metrics_for_best_config[1]["accuracy"]
    assert automl.best_loss < 1  # it met the bound on the validation rows
    # more accurate configurations were tried, and refused for missing the bound
    assert any(trial["validation_loss"] > 1 and trial["logged_metric"]["accuracy"] > accuracy
               for trial in trials)

    y_pred = automl.predict(X_test)
    assert demographic_parity_difference(y_test, y_pred, sensitive_features=groups) <= bound
    assert accuracy_score(y_test, y_pred) > 0.68
