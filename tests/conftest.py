"""Test configuration: the shared data sets and the `data` marker."""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("FAIRKIT_DATA", str(ROOT.parent / "shared" / "data"))
# A local Ray instance listens on loopback only if this is set before ray is first imported,
# which FLAML does on import wherever ray is installed (tests/test_scale_out.py checks the address).
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"


@pytest.fixture(scope="session")
def data_home():
    """The folder of the shared data sets; tests that need it skip when it is absent."""
    home = Path(os.environ["FAIRKIT_DATA"])
    if not home.is_dir():
        pytest.skip(f"shared data sets not found at {home} (set FAIRKIT_DATA)")
    return home


@pytest.fixture(autouse=True)
def _no_download_from_outside(monkeypatch):
    """Make a test fail if it tries to download from anywhere but this machine (loopback servers)."""
    import urllib.parse
    import urllib.request

    urlopen = urllib.request.urlopen

    def loopback_only(url, *args, **kwargs):
        host = urllib.parse.urlsplit(getattr(url, "full_url", url)).hostname
        if host not in {"127.0.0.1", "localhost"}:
            raise AssertionError(f"a test tried to download {url} from outside the machine")
        return urlopen(url, *args, **kwargs)

    monkeypatch.setattr(urllib.request, "urlopen", loopback_only)


@pytest.fixture
def install_plugin(tmp_path, monkeypatch):
    """Install plugin distributions into a fresh site directory, as pip would.

    ``install_plugin(name, source, version)`` writes the module ``name`` and a
    ``name-version.dist-info`` whose entry point in the ``fairkit`` group names it.
    ``entry_points={entry name: value}`` writes those entry points instead (a name
    clash, a malformed value). The registry is rebuilt before and after the test.
    """
    import importlib
    import sys
    import textwrap

    from fairkit import registry

    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("FAIRKIT_STRICT_PLUGINS", raising=False)
    monkeypatch.delenv("FAIRKIT_DISABLE_PLUGINS", raising=False)
    installed = []

    def install(name, source, version="1.0", *, entry_points=None):
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
        info = tmp_path / f"{name}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        lines = "".join(f"{key} = {value}\n" for key, value in (entry_points or {name: name}).items())
        (info / "entry_points.txt").write_text(f"[fairkit]\n{lines}")
        installed.append(name)
        importlib.invalidate_caches()
        registry.reload_plugins()

    yield install
    for name in installed:
        sys.modules.pop(name, None)
    registry.reload_plugins()


@pytest.fixture
def search_case():
    """``search_case(cls)``: an estimator of ``cls`` and data, ready for a search.

    Returns a namespace with ``estimator`` (``cls.get_test_params()[0]``), ``X``, ``y``
    and ``groups`` (data of its kind, as fairkit's estimator checks make them),
    ``fit_params`` (what the search's ``fit`` must get), ``scoring`` and ``cv`` (``None``
    for the search's default). The sensitive features go the documented way: routed to
    ``fit`` as metadata, or, when the estimator also needs them to predict (scorers cannot
    route them there), read from a last column of ``X`` through ``sensitive_cols``. A
    clusterer, which labels only the samples it was fitted on, is scored on those
    (silhouette of ``labels_``, one split whose test set is its training set). Call it with
    metadata routing enabled. Skips an estimator that a search cannot score.
    """
    import inspect
    from types import SimpleNamespace

    import numpy as np
    from sklearn.base import is_classifier, is_clusterer, is_regressor
    from sklearn.metrics import silhouette_score

    from fairkit.utils.estimator_checks import _data

    def takes(method):
        return method is not None and "sensitive_features" in inspect.signature(method).parameters

    def labels_silhouette(estimator, X, y=None):
        labels = estimator.labels_
        return float(silhouette_score(X, labels)) if 1 < len(np.unique(labels)) < len(labels) else -1.0

    def make(cls):
        estimator = cls(**(cls.get_test_params()[0] if hasattr(cls, "get_test_params") else {}))
        X, y, groups = _data(estimator)
        case = SimpleNamespace(estimator=estimator, X=X, y=y, groups=None, fit_params={}, cv=None,
                               scoring="accuracy" if is_classifier(estimator)
                               else "r2" if is_regressor(estimator) else None)
        if case.scoring is None and not hasattr(estimator, "score"):
            if not is_clusterer(estimator):
                pytest.skip(f"{cls.__name__} has neither predict nor score, and is no clusterer, "
                            "so a search cannot score it")
            case.scoring, case.cv = labels_silhouette, [(np.arange(len(X)), np.arange(len(X)))]
        if not takes(estimator.fit):
            return case
        case.groups = groups
        if takes(getattr(estimator, "predict", None)) and "sensitive_cols" in estimator.get_params():
            case.X = np.column_stack([X, groups])
            estimator.set_params(sensitive_cols=[X.shape[1]]).set_fit_request(sensitive_features=False)
            return case
        estimator.set_fit_request(sensitive_features=True)
        if case.scoring is None and takes(estimator.score):
            estimator.set_score_request(sensitive_features=True)
        case.fit_params = {"sensitive_features": groups}
        return case

    return make
