"""Every registered search space drives a short RandomizedSearchCV (and an Optuna study)."""

import numpy as np
import pytest
from sklearn import config_context
from sklearn.model_selection import RandomizedSearchCV

from fairkit.registry import all_estimators, all_search_spaces, get_estimator, search_space

NAMES = [name for name, _ in all_estimators()]

SPACE_PLUGIN = '''
from scipy.stats import loguniform, randint
from sklearn.linear_model import LogisticRegression

from fairkit import hookimpl


@hookimpl
def fairkit_estimators():
    return [LogisticRegression]


@hookimpl
def fairkit_search_spaces():
    return {"LogisticRegression": {"C": loguniform(1e-2, 1e2), "fit_intercept": [True, False],
                                   "max_iter": randint(50, 60)}}
'''


def _in_space(value, space):
    if isinstance(space, list | tuple):
        return any(value is choice or value == choice for choice in space)
    low, high = space.support()
    return low <= value <= high


def _randomized_search(name, search_case):
    space = search_space(name)
    with config_context(enable_metadata_routing=True):
        case = search_case(get_estimator(name))
        search = RandomizedSearchCV(case.estimator, space, n_iter=3, cv=case.cv or 2, random_state=0,
                                    error_score="raise", scoring=case.scoring)
        search.fit(case.X, case.y, **case.fit_params)
    assert len(search.cv_results_["params"]) == 3
    for params in search.cv_results_["params"]:
        assert all(_in_space(value, space[key]) for key, value in params.items()), params
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))


@pytest.mark.parametrize("name", NAMES)
def test_randomized_search_from_the_registered_space(name, search_case):
    if name not in all_search_spaces():
        pytest.skip(f"{name} registers no search space")
    _randomized_search(name, search_case)


def _optuna_study(name, search_case, n_trials=3):
    import optuna
    from sklearn.model_selection import cross_val_score

    from fairkit.integrations.optuna import suggest

    def objective(trial):
        with config_context(enable_metadata_routing=True):
            case = search_case(get_estimator(name))
            case.estimator.set_params(**suggest(trial, name))
            return cross_val_score(case.estimator, case.X, case.y, cv=case.cv or 2, params=case.fit_params,
                                   scoring=case.scoring, error_score="raise").mean()

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(objective, n_trials=n_trials)
    assert len(study.trials) == n_trials
    space = search_space(name)
    for trial in study.trials:
        assert trial.state == optuna.trial.TrialState.COMPLETE
        assert set(trial.params) == set(space)
    return study


@pytest.mark.parametrize("name", NAMES)
def test_optuna_study_from_the_registered_space(name, search_case):
    if name not in all_search_spaces():
        pytest.skip(f"{name} registers no search space")
    _optuna_study(name, search_case)


def test_search_and_study_on_a_plugin_search_space(install_plugin, search_case):
    install_plugin("spaceplug", SPACE_PLUGIN)
    _randomized_search("LogisticRegression", search_case)
    study = _optuna_study("LogisticRegression", search_case, n_trials=4)
    for trial in study.trials:
        assert 1e-2 <= trial.params["C"] <= 1e2 and 50 <= trial.params["max_iter"] <= 59


def test_every_search_space_names_real_parameters():
    for name, space in all_search_spaces().items():
        cls = get_estimator(name)
        parameters = cls(**cls.get_test_params()[0]).get_params()
        assert set(space) <= set(parameters), f"{name}: unknown parameters {set(space) - set(parameters)}"
        for key, values in space.items():
            assert isinstance(values, list | tuple) or hasattr(values, "rvs"), f"{name}.{key}"
