"""GridSearchCV with metadata routing of sensitive_features on joblib's loky and Dask backends.

Every registered estimator whose ``fit`` takes ``sensitive_features`` is searched over the
grid of its ``get_test_params()`` with ``n_jobs=2``; every fold's scores, including those of a
fairness scorer that reads the fold's own sensitive features, must equal those of a
sequential search. The Dask case starts a ``distributed.LocalCluster`` with two
worker processes on loopback (``-m dask`` selects it).
"""

import inspect

import joblib
import numpy as np
import pytest
from sklearn import config_context
from sklearn.base import clone, is_regressor
from sklearn.model_selection import GridSearchCV, KFold

from fairkit.metrics import make_fairness_scorer
from fairkit.registry import all_estimators
from fairkit.utils.estimator_checks import _data

SEARCHABLE = [cls for _, cls in all_estimators()
              if "sensitive_features" in inspect.signature(cls.fit).parameters]


def _search(cls, n_jobs):
    """A GridSearchCV over ``cls.get_test_params()`` with its data, routed as fairkit documents."""
    estimator = cls(**cls.get_test_params()[0])
    if not hasattr(estimator, "predict"):
        pytest.skip(f"{cls.__name__} has no predict; GridSearchCV scores through predict")
    X, y, groups = _data(estimator)
    grid = [{key: [value] for key, value in params.items()} for params in cls.get_test_params()]
    if "random_state" in estimator.get_params():
        grid = [{**g, "random_state": [0]} for g in grid]
    estimator = clone(estimator).set_fit_request(sensitive_features=True)
    if "sensitive_features" in inspect.signature(estimator.predict).parameters:
        # scorers cannot route metadata to predict: the groups come from a column of X instead
        X = np.column_stack([X, groups])
        estimator.set_params(sensitive_cols=[X.shape[1] - 1]).set_fit_request(sensitive_features=False)
    if is_regressor(estimator):
        scoring = {"default": "r2"}
    else:  # the fairness scorer gets each fold's own sensitive features
        scoring = {"default": "accuracy", "dp": make_fairness_scorer("demographic_parity_difference")}
    search = GridSearchCV(estimator, grid, cv=FOLDS, scoring=scoring, refit="default", n_jobs=n_jobs)
    return search, X, y, groups


FOLDS = KFold(3, shuffle=True, random_state=0)


def _check_parallel_matches_sequential(cls, backend):
    with config_context(enable_metadata_routing=True):
        search, X, y, groups = _search(cls, n_jobs=1)
        sequential = search.fit(X, y, sensitive_features=groups).cv_results_
        search = clone(search).set_params(n_jobs=2)
        with joblib.parallel_backend(backend):
            parallel = search.fit(X, y, sensitive_features=groups).cv_results_
    scores = [key for key in sequential if key.startswith("split") and "_test_" in key]
    assert scores
    for key in scores:
        np.testing.assert_array_equal(parallel[key], sequential[key], err_msg=key)


@pytest.mark.parametrize("cls", SEARCHABLE, ids=lambda cls: cls.__name__)
def test_grid_search_on_loky(cls):
    _check_parallel_matches_sequential(cls, "loky")


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        yield client


@pytest.mark.dask
@pytest.mark.parametrize("cls", SEARCHABLE, ids=lambda cls: cls.__name__)
def test_grid_search_on_dask(cls, dask_client):
    _check_parallel_matches_sequential(cls, "dask")


@pytest.mark.dask
def test_plugin_estimator_on_dask(install_plugin, tmp_path, dask_client):
    """A plugin's estimator runs on workers that were given its module (here by upload_file)."""
    from pathlib import Path

    source = Path(__file__).resolve().parents[1] / "docs" / "plugin_example" / "src" / "fairkit_reweighing"
    install_plugin("fairkit_reweighing", (source / "__init__.py").read_text())
    dask_client.upload_file(str(tmp_path / "fairkit_reweighing.py"))
    from fairkit.registry import get_estimator

    _check_parallel_matches_sequential(get_estimator("ReweighingClassifier"), "dask")


@pytest.fixture(scope="module")
def ray_backend():
    ray = pytest.importorskip("ray", reason="ray is not installed (it is in no extra: large wheels)")
    from ray.util.joblib import register_ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    register_ray()
    yield
    ray.shutdown()


@pytest.mark.ray
@pytest.mark.parametrize("cls", SEARCHABLE, ids=lambda cls: cls.__name__)
def test_grid_search_on_ray(cls, ray_backend):
    _check_parallel_matches_sequential(cls, "ray")
