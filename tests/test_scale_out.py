"""GridSearchCV with metadata routing of sensitive_features on joblib's loky and Dask backends.

Every registered estimator whose ``fit`` takes ``sensitive_features`` is searched over (the
first two of) its ``get_test_params()`` with ``n_jobs=2``; every fold's scores, including those of a
fairness scorer that reads the fold's own sensitive features, must equal those of a
sequential search, to within a relative 1e-8 (a routing or seeding error moves a score by far
more; FairICPRegressor's fit on a Dask worker that had run other fits before has been seen to
differ from the sequential one by 2e-10, float rounding whose cause was not found). The Dask
case starts a ``distributed.LocalCluster`` with two worker processes on loopback (``-m dask``
selects it), the Ray case a local Ray instance on loopback (``-m ray``); the test extra installs
both, so neither is skipped.
"""

import inspect

import joblib
import numpy as np
import pytest
from sklearn import config_context
from sklearn.base import clone, is_classifier
from sklearn.model_selection import GridSearchCV, KFold

from fairkit.metrics import make_fairness_scorer
from fairkit.registry import all_estimators

SEARCHABLE = [cls for _, cls in all_estimators()
              if "sensitive_features" in inspect.signature(cls.fit).parameters]


def _search(cls, search_case):
    """A sequential GridSearchCV over ``cls.get_test_params()``, its data and fit params."""
    case = search_case(cls)
    # two candidates and two folds: four fits to spread over two workers
    grid = [{key: [value] for key, value in params.items()} for params in cls.get_test_params()[:2]]
    if "random_state" in case.estimator.get_params():
        grid = [{**g, "random_state": [0]} for g in grid]
    scoring, fit_params = {"default": case.scoring}, case.fit_params
    if is_classifier(case.estimator) and case.groups is not None:
        # a fairness scorer, which gets each fold's own sensitive features
        scoring["dp"] = make_fairness_scorer("demographic_parity_difference")
        fit_params = {"sensitive_features": case.groups}
    search = GridSearchCV(case.estimator, grid, cv=case.cv or FOLDS, scoring=scoring, refit="default")
    return search, case.X, case.y, fit_params


FOLDS = KFold(2, shuffle=True, random_state=0)


def _check_parallel_matches_sequential(cls, backend, search_case):
    with config_context(enable_metadata_routing=True):
        search, X, y, fit_params = _search(cls, search_case)
        sequential = search.fit(X, y, **fit_params).cv_results_
        with joblib.parallel_backend(backend):
            parallel = clone(search).set_params(n_jobs=2).fit(X, y, **fit_params).cv_results_
    scores = [key for key in sequential if key.startswith("split") and "_test_" in key]
    assert scores
    for key in scores:
        np.testing.assert_allclose(parallel[key], sequential[key], rtol=1e-8, atol=0, err_msg=key)


@pytest.mark.parametrize("cls", SEARCHABLE, ids=lambda cls: cls.__name__)
def test_grid_search_on_loky(cls, search_case):
    _check_parallel_matches_sequential(cls, "loky", search_case)


@pytest.fixture(scope="module")
def dask_client():
    import distributed

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        yield client


@pytest.mark.dask
@pytest.mark.parametrize("cls", SEARCHABLE, ids=lambda cls: cls.__name__)
def test_grid_search_on_dask(cls, dask_client, search_case):
    _check_parallel_matches_sequential(cls, "dask", search_case)


@pytest.mark.dask
def test_plugin_estimator_on_dask(install_plugin, tmp_path, dask_client, search_case):
    """A plugin's estimator runs on workers that were given its module (here by upload_file)."""
    from pathlib import Path

    source = Path(__file__).resolve().parents[1] / "docs" / "plugin_example" / "src" / "fairkit_reweighing"
    install_plugin("fairkit_reweighing", (source / "__init__.py").read_text())
    dask_client.upload_file(str(tmp_path / "fairkit_reweighing.py"))
    from fairkit.registry import get_estimator

    _check_parallel_matches_sequential(get_estimator("ReweighingClassifier"), "dask", search_case)


@pytest.fixture(scope="module")
def ray_backend():
    """A local Ray instance on loopback only: two CPUs, no dashboard, shut down after the module."""
    import ray  # on loopback: tests/conftest.py sets RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0
    from ray.util.joblib import register_ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        assert ray.util.get_node_ip_address() == "127.0.0.1", "the Ray instance is not on loopback"
        register_ray()
        yield
    finally:
        ray.shutdown()


@pytest.mark.ray
@pytest.mark.parametrize("cls", SEARCHABLE, ids=lambda cls: cls.__name__)
def test_grid_search_on_ray(cls, ray_backend, search_case):
    _check_parallel_matches_sequential(cls, "ray", search_case)
