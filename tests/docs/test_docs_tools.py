"""The documentation's helpers and the plugin package shown in the plugin-authoring guide."""

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

pytest.importorskip("sphinx", reason="the docs extra is not installed (CI installs it)")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
import fairkit_docs  # noqa: E402

PLUGIN_SOURCE = (ROOT / "docs" / "plugin_example" / "src" / "fairkit_reweighing" / "__init__.py").read_text()


def _executed(pattern, names):
    return [name for name in names if re.search(pattern, f"/repo/examples/{name}")]


def test_gallery_budget_runs_the_fastest_measured_examples(tmp_path):
    names = ["plot_a.py", "plot_b.py", "plot_c.py", "plot_new.py"]
    for name in names:
        (tmp_path / name).write_text("")
    times = tmp_path / "times.json"
    times.write_text(json.dumps({"plot_a.py": 50.0, "plot_b.py": 5.0, "plot_c.py": 20.0,
                                 "plot_gone.py": 1.0}))
    assert _executed(fairkit_docs.gallery_filename_pattern(tmp_path, times, None), names) == names
    assert _executed(fairkit_docs.gallery_filename_pattern(tmp_path, times, "30"), names) == [
        "plot_b.py", "plot_c.py"]
    assert _executed(fairkit_docs.gallery_filename_pattern(tmp_path, times, "0"), names) == []
    assert _executed(fairkit_docs.gallery_filename_pattern(tmp_path, tmp_path / "none.json", "99"),
                     names) == []


def test_api_page_documents_each_object_once_under_its_shortest_path():
    modules = fairkit_docs.public_modules()
    assert "fit_groups" in modules["fairkit.utils"]
    assert "fairkit.utils.validation" not in modules  # everything there is re-exported by fairkit.utils
    assert not any(name.split(".")[-1].startswith("_") for name in modules)
    pairs = [(module, member) for module, members in modules.items() for member in members]
    objects = [id(getattr(sys.modules[module], member)) for module, member in pairs]
    assert len(objects) == len(set(objects))


def test_intersphinx_prefers_local_inventories_and_leaves_out_unreachable_ones(tmp_path, monkeypatch):
    (tmp_path / "sklearn.inv").write_bytes(b"# Sphinx inventory version 2\n")
    monkeypatch.setenv("FAIRKIT_DOCS_OFFLINE", "1")
    monkeypatch.delenv("FAIRKIT_INTERSPHINX_DIR", raising=False)
    monkeypatch.setattr(fairkit_docs, "_INTERSPHINX", {
        "sklearn": ("https://scikit-learn.org/stable/", []),
        "numpy": ("https://numpy.org/doc/stable/", [str(tmp_path / "absent.inv")]),
    })
    mapping = fairkit_docs.intersphinx_mapping(tmp_path)
    assert mapping == {"sklearn": ("https://scikit-learn.org/stable/", str(tmp_path / "sklearn.inv"))}


class _RecordWeights(ClassifierMixin, BaseEstimator):
    def fit(self, X, y, sample_weight=None):
        self.sample_weight_ = sample_weight
        self.classes_ = np.unique(y)
        return self


@pytest.fixture
def reweighing(install_plugin):
    install_plugin("fairkit_reweighing", PLUGIN_SOURCE)
    from fairkit.registry import get_estimator

    return get_estimator("ReweighingClassifier")


def test_plugin_example_weights_make_group_and_label_independent(reweighing):
    rng = np.random.default_rng(0)
    group = rng.choice(["a", "b", "c"], size=300, p=[0.5, 0.3, 0.2])
    y = (rng.random(300) < np.where(group == "a", 0.7, 0.2)).astype(int)
    X = rng.standard_normal((300, 2))
    weights = reweighing(_RecordWeights()).fit(X, y, sensitive_features=group).estimator_.sample_weight_
    total = weights.sum()
    for g in np.unique(group):
        for label in (0, 1):
            cell = weights[(group == g) & (y == label)].sum() / total
            assert cell == pytest.approx(np.mean(group == g) * np.mean(y == label))


def test_plugin_example_passes_the_fairness_checks(reweighing):
    from fairkit.utils.estimator_checks import fairness_checks

    ran = 0
    for estimator, check in fairness_checks(reweighing()):
        try:
            check(estimator)
        except Exception as exc:
            if type(exc).__name__ != "SkipTest":
                raise
        else:
            ran += 1
    assert ran >= 5


def test_fitted_names_in_parameter_types_are_quoted():
    lines = ["feature_names_in_ : ndarray of shape (n_features_in_,)",
             "    Seen during fit, like groups_.",
             "coef_ : ndarray of shape (`n_features_in_`,)",
             "X : array-like of shape (n_samples, n_features)"]
    fairkit_docs.quote_fitted_names_in_types(None, "class", "C", None, {}, lines)
    assert lines == ["feature_names_in_ : ndarray of shape (``n_features_in_``,)",
                     "    Seen during fit, like groups_.",
                     "coef_ : ndarray of shape (`n_features_in_`,)",
                     "X : array-like of shape (n_samples, n_features)"]


def test_numpydoc_glossary_links_stay_text_without_their_inventories():
    aliases = fairkit_docs.offline_numpydoc_aliases({"python": ("https://docs.python.org/3/", None)})
    assert aliases["array-like"] == "array-like"  # numpy's glossary is not there
    assert "bool" not in aliases  # python's labels are
