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
