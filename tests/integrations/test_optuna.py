import numpy as np
import pytest
from scipy.stats import beta, loguniform, norm, poisson, randint, uniform
from sklearn.linear_model import LogisticRegression

from fairkit.integrations.optuna import suggest, suggest_params

optuna = pytest.importorskip("optuna")


def _sample(space, n_trials=40):
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    drawn = []

    def objective(trial):
        drawn.append(suggest_params(trial, space))
        return 0.0

    study.optimize(objective, n_trials=n_trials)
    return study, drawn


def test_each_kind_of_entry_becomes_the_matching_suggestion():
    models = [LogisticRegression(C=0.1), LogisticRegression(C=10.0)]
    space = {"C": loguniform(1e-3, 1e3), "alpha": uniform(2.0, 3.0), "k": randint(1, 4),
             "penalty": ["l1", "l2", None], "model": models, "share": beta(2, 5)}
    study, drawn = _sample(space)
    distributions = study.trials[0].distributions
    assert distributions["C"] == optuna.distributions.FloatDistribution(1e-3, 1e3, log=True)
    assert distributions["alpha"] == optuna.distributions.FloatDistribution(2.0, 5.0)
    assert distributions["k"] == optuna.distributions.IntDistribution(1, 3)
    assert distributions["penalty"] == optuna.distributions.CategoricalDistribution(["l1", "l2", None])
    assert distributions["model"] == optuna.distributions.CategoricalDistribution([0, 1])
    assert distributions["share"] == optuna.distributions.FloatDistribution(0.0, 1.0)
    assert {params["k"] for params in drawn} == {1, 2, 3}  # randint(1, 4) excludes 4
    assert all(any(params["model"] is m for m in models) for params in drawn)
    assert all(1e-3 <= params["C"] <= 1e3 and 2.0 <= params["alpha"] <= 5.0 for params in drawn)
    assert np.median([np.log10(params["C"]) for params in drawn]) == pytest.approx(0, abs=1.5)


@pytest.mark.parametrize(("space", "error", "message"), [
    ({"x": norm(0, 1)}, TypeError, "unbounded"),
    ({"x": poisson(3)}, TypeError, "no Optuna counterpart"),
    ({"x": []}, ValueError, "empty"),
    ({"x": 3}, TypeError, "expected a list or a scipy.stats distribution"),
])
def test_unusable_entries_are_named(space, error, message):
    trial = optuna.trial.FixedTrial({"x": 0})
    with pytest.raises(error, match=message):
        suggest_params(trial, space)


def test_suggest_needs_a_registered_space():
    with pytest.raises(ValueError, match="No search space named 'NoSuchEstimator'"):
        suggest(optuna.trial.FixedTrial({}), "NoSuchEstimator")


# ---------------------------------------------------------------------------------------------
# OptunaSearchCV (optuna-integration): routed sensitive features, and where it stops


def _search_case():
    import pandas as pd
    from sklearn.model_selection import KFold

    from fairkit.datasets import make_fair_classification
    from fairkit.metrics import make_fairness_scorer
    from fairkit.registry import search_space

    X, y, group = make_fair_classification(600, random_state=0)
    X = pd.DataFrame(X).add_prefix("x").assign(group=group)
    space = {"tolerance": optuna.distributions.CategoricalDistribution(
        search_space("RandomizedFairBOC")["tolerance"])}
    return X, y, group, space, KFold(3), make_fairness_scorer("demographic_parity_difference")


def _optuna_search_cv(estimator, space, cv, **params):
    from optuna_integration import OptunaSearchCV

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    return OptunaSearchCV(estimator, space, cv=cv, n_trials=3, random_state=0, **params)


# OptunaSearchCV is experimental, optuna-integration imports the deprecated optuna.terminator, and
# scikit-learn 1.6 warns that OptunaSearchCV declares its tags the pre-1.6 way (_more_tags)
_SEARCH_CV_WARNINGS = pytest.mark.filterwarnings(
    "ignore::optuna.exceptions.ExperimentalWarning", "ignore:`optuna.terminator` module:FutureWarning",
    "ignore:The OptunaSearchCV or classes from which it inherits use `_get_tags`:DeprecationWarning")


@_SEARCH_CV_WARNINGS
def test_optuna_search_cv_routes_sensitive_features_to_each_fold():
    import sklearn
    from sklearn.model_selection import cross_validate

    from fairkit.postprocessing import RandomizedFairBOC

    X, y, group, space, cv, dp = _search_case()
    with sklearn.config_context(enable_metadata_routing=True):
        estimator = RandomizedFairBOC(sensitive_cols="group", random_state=0)
        estimator.set_fit_request(sensitive_features=False)  # it reads X's column; the scorer needs them
        search = _optuna_search_cv(estimator, space, cv, scoring=dp, refit=False)
        search.fit(X, y, sensitive_features=group)
        for trial in search.trials_:
            assert trial.state == optuna.trial.TrialState.COMPLETE
            expected = cross_validate(estimator.set_params(**trial.params), X, y, cv=cv, scoring=dp,
                                      params={"sensitive_features": group})["test_score"]
            scores = [trial.user_attrs[f"split{i}_test_score"] for i in range(3)]
            np.testing.assert_array_equal(scores, expected)
            assert np.all(np.asarray(scores) < 0)  # a difference, negated: the scorer got them


@_SEARCH_CV_WARNINGS
def test_optuna_search_cv_splits_fit_parameters_with_the_rows():
    import sklearn

    X, y, group, space, cv, _ = _search_case()
    seen = []

    class Recording(LogisticRegression):
        def fit(self, X, y, sensitive_features=None):
            seen.append(np.asarray(sensitive_features))
            return super().fit(X, y)

    space = {"C": optuna.distributions.FloatDistribution(0.1, 10.0, log=True)}
    with sklearn.config_context(enable_metadata_routing=True):
        estimator = Recording().set_fit_request(sensitive_features=True)
        _optuna_search_cv(estimator, space, cv).fit(X, y, sensitive_features=group)
    folds = [group[train] for train, _ in cv.split(X)]
    assert len(seen) == 3 * 3 + 1  # three trials of three folds, and the refit
    for i, received in enumerate(seen[:-1]):
        np.testing.assert_array_equal(received, folds[i % 3])
    np.testing.assert_array_equal(seen[-1], group)


@_SEARCH_CV_WARNINGS
def test_optuna_search_cv_refit_passes_every_fit_parameter_to_fit():
    import sklearn

    from fairkit.postprocessing import RandomizedFairBOC

    X, y, group, space, cv, dp = _search_case()
    with sklearn.config_context(enable_metadata_routing=True):
        estimator = RandomizedFairBOC(sensitive_cols="group", random_state=0)
        estimator.set_fit_request(sensitive_features=False)
        search = _optuna_search_cv(estimator, space, cv, scoring=dp)
        with pytest.raises(ValueError, match="RandomizedFairBOC got sensitive features twice"):
            search.fit(X, y, sensitive_features=group)  # requested by the scorer only, yet given to fit


@_SEARCH_CV_WARNINGS
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy, on the failed trials' NaN scores
def test_optuna_search_cv_records_a_routing_error_as_a_failed_trial():
    import sklearn

    from fairkit.postprocessing import RandomizedFairBOC

    X, y, group, space, cv, dp = _search_case()
    with sklearn.config_context(enable_metadata_routing=True):
        estimator = RandomizedFairBOC(sensitive_cols="group", random_state=0)  # no fit request set
        search = _optuna_search_cv(estimator, space, cv, scoring=dp, refit=False)
        search.fit(X, y, sensitive_features=group)  # scikit-learn's UnsetMetadataPassedError, swallowed
    assert {trial.state for trial in search.trials_} == {optuna.trial.TrialState.FAIL}
    with pytest.raises(ValueError, match="No trials are completed yet"):
        search.best_params_  # noqa: B018


@_SEARCH_CV_WARNINGS
def test_optuna_search_cv_cannot_be_nested_in_a_router_or_pruned():
    import sklearn
    from sklearn.model_selection import cross_validate

    from fairkit.postprocessing import RandomizedFairBOC

    X, y, group, space, cv, dp = _search_case()
    estimator = RandomizedFairBOC(sensitive_cols="group", random_state=0)
    with sklearn.config_context(enable_metadata_routing=True):
        estimator.set_fit_request(sensitive_features=False)
        search = _optuna_search_cv(estimator, space, cv, scoring=dp, refit=False)
        with pytest.raises(TypeError, match=r"unexpected argument\(s\) \{'sensitive_features'\}"):
            cross_validate(search, X, y, cv=2, params={"sensitive_features": group})
    with pytest.raises(ValueError, match="estimator must support partial_fit"):
        _optuna_search_cv(estimator, space, cv, enable_pruning=True).fit(X, y)
