"""Saving and loading with skops.io: the types each estimator asks to trust, and what they restore.

tests/test_common.py runs ``check_skops_roundtrip`` on every registered estimator; this file
checks the documented list of types, the state that the check does not compare (dicts,
DataFrames, torch networks) and the guide's code (docs/workflows/persistence.rst).
"""

import pickle
import runpy
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import skops.io as sio
from skops.io.exceptions import UntrustedTypesFoundException

from fairkit.exceptions import FairkitWarning
from fairkit.postprocessing import RandomizedFairBOC
from fairkit.registry import all_estimators
from fairkit.utils.estimator_checks import _assert_restored, _data, _fit, _fit_takes_sensitive
from fairkit.utils.validation import NO_GROUP

ROOT = Path(__file__).resolve().parents[1]
GUIDE = (ROOT / "docs" / "workflows" / "persistence.rst").read_text()
CODE = ROOT / "docs" / "user_guide" / "code"

# fairkit's types, beyond the estimator's class, that a fitted estimator's file holds
FAIRKIT_TYPES_IN_THE_STATE = {"SelectiveRanker": ["fairkit.utils._preferences.PairwiseCounts"]}
# the trees of scikit-learn's HistGradientBoostingClassifier, which skops does not trust by default
HGB_TREE = "sklearn.ensemble._hist_gradient_boosting.predictor.TreePredictor"


def _types_in_the_state(estimator):
    """The types beyond the estimator's class that its file holds: the guide lists each."""
    if type(estimator).__name__ == "SelectiveClassifier" and estimator.confidence == "learned" \
            and estimator.confidence_estimator is None:  # the default confidence model
        return [HGB_TREE]
    return FAIRKIT_TYPES_IN_THE_STATE.get(type(estimator).__name__, [])

ESTIMATORS = [cls(**params) for _, cls in all_estimators() for params in cls.get_test_params()]
# the single group of an estimator fitted without sensitive features
NO_GROUP_TYPE = "fairkit.utils.validation._NoGroup"


def _saved(estimator):
    X, y, groups = _data(estimator)
    return sio.dumps(_fit(estimator, X, y, groups if _fit_takes_sensitive(estimator) else None))


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda estimator: "".join(repr(estimator).split()))
def test_each_estimator_asks_to_trust_only_the_fairkit_types_the_guide_lists(estimator):
    cls = type(estimator)
    expected = sorted([f"{cls.__module__}.{cls.__qualname__}", *_types_in_the_state(estimator)])
    data = _saved(estimator)
    assert sorted(sio.get_untrusted_types(data=data)) == expected
    missing = [name for name in expected if f"``{name}``" not in GUIDE]
    assert not missing, f"docs/workflows/persistence.rst does not list {missing}"
    with pytest.raises(UntrustedTypesFoundException, match=cls.__qualname__):
        sio.loads(data)  # nothing beyond skops' defaults trusted: refused, not loaded


@pytest.mark.parametrize("cls", [cls for _, cls in all_estimators() if _fit_takes_sensitive(cls)],
                         ids=lambda cls: cls.__name__)
def test_an_estimator_fitted_without_sensitive_features_loads_with_no_group_itself(cls):
    estimator = cls(**cls.get_test_params()[0])
    if "random_state" in estimator.get_params():
        estimator.set_params(random_state=0)
    X, y, _ = _data(estimator)
    with pytest.warns(FairkitWarning, match="got no sensitive features"):
        fitted = _fit(estimator, X, y)
    data = sio.dumps(fitted)
    trusted = [f"{cls.__module__}.{cls.__qualname__}", NO_GROUP_TYPE, *_types_in_the_state(estimator)]
    assert sorted(sio.get_untrusted_types(data=data)) == sorted(trusted)
    assert f"``{NO_GROUP_TYPE}``" in GUIDE
    loaded = sio.loads(data, trusted=trusted)
    assert loaded.groups_[0] is NO_GROUP  # the singleton: predict tells "fitted without" by identity
    _assert_restored(cls.__name__, fitted, loaded, X, None, "loaded by skops.io")


def _intersectional_fit():
    rng = np.random.default_rng(1)
    n = 400
    sensitive = pd.DataFrame({"sex": rng.choice(["F", "M"], n), "band": rng.integers(0, 2, n)})
    X = pd.DataFrame(rng.normal(size=(n, 3)), columns=["x0", "x1", "x2"]) + sensitive[["band"]].to_numpy()
    y = (X["x0"] + rng.normal(size=n) > 0.5).astype(int)
    fair = RandomizedFairBOC(constraint="equalized_odds", rates="empirical", tolerance=0.02, random_state=0)
    return fair.fit(X, y, sensitive_features=sensitive), X, sensitive


def _skops_roundtrip(estimator):
    return sio.loads(sio.dumps(estimator), trusted=["fairkit.postprocessing._fair_boc.RandomizedFairBOC"])


@pytest.mark.parametrize("roundtrip", [_skops_roundtrip, lambda fair: pickle.loads(pickle.dumps(fair))],
                         ids=["skops", "pickle"])
def test_fair_boc_restores_its_group_keyed_state_for_intersectional_groups(roundtrip):
    fair, X, sensitive = _intersectional_fit()
    assert isinstance(fair.groups_[0], tuple) and any(fair.mixture_.values())  # tuple keys, mixed rules
    loaded = roundtrip(fair)
    for name in ("thresholds_", "randomization_", "mixture_", "group_rates_"):
        assert getattr(loaded, name) == getattr(fair, name), name
        assert list(getattr(loaded, name)) == list(fair.groups_), f"{name} keys out of groups_ order"
    pd.testing.assert_frame_equal(loaded.group_support_, fair.group_support_)
    assert isinstance(loaded.group_support_.index, pd.MultiIndex)
    np.testing.assert_array_equal(loaded.feature_names_in_, ["x0", "x1", "x2"])
    np.testing.assert_array_equal(loaded.predict_proba(X, sensitive_features=sensitive),
                                  fair.predict_proba(X, sensitive_features=sensitive))


@pytest.fixture
def torch():
    return pytest.importorskip("torch", reason="FairICP needs torch (the nn extra, which CI installs)")


@pytest.fixture(params=["FairICPClassifier", "FairICPRegressor"])
def fitted_icp(request, torch):
    from fairkit import adversarial

    rng = np.random.default_rng(0)
    a = rng.normal(size=(120, 2))
    X = np.column_stack([a, a.sum(axis=1) + rng.normal(size=120), rng.normal(size=120)])
    y = X[:, 2] + rng.normal(size=120)
    if request.param == "FairICPClassifier":
        y = (y > 0).astype(int)
    estimator = getattr(adversarial, request.param)(
        hidden_layer_sizes=(6,), discriminator_hidden=(5,), sensitive_cols=[0, 1], max_epochs=3,
        icp_sweeps=2, net_params={"optimizer__weight_decay": 1e-3}, random_state=0)
    return estimator.fit(X, y), X


def test_fairicp_saves_its_networks_as_arrays_and_loads_them_into_a_rebuilt_net(fitted_icp, torch, tmp_path):
    fitted, X = fitted_icp
    path = tmp_path / "model.skops"
    sio.dump(fitted, path)
    own = f"fairkit.adversarial._fair_icp.{type(fitted).__name__}"
    assert sio.get_untrusted_types(file=path) == [own]  # no torch, skorch or functools type
    before = torch.random.get_rng_state()
    loaded = sio.load(path, trusted=[own])
    assert torch.equal(torch.random.get_rng_state(), before), "loading changed torch's global generator"
    for name in ("module_", "discriminator_"):
        saved, restored = getattr(fitted.net_, name).state_dict(), getattr(loaded.net_, name).state_dict()
        assert saved.keys() == restored.keys()
        for key in saved:
            assert torch.equal(saved[key], restored[key]), f"{name}{key}"
    assert loaded.net_.module_.layers[0].in_features == 2  # X without its two sensitive columns
    assert loaded.net_.optimizer_.defaults["weight_decay"] == 1e-3  # net_params rebuilt the same net
    assert loaded.history_ == fitted.history_
    np.testing.assert_array_equal(loaded.predict(X), fitted.predict(X))


def test_a_fairicp_model_for_a_device_this_torch_cannot_use_is_refused_on_load(fitted_icp):
    fitted, _ = fitted_icp
    data = sio.dumps(fitted.set_params(device="cuda:7"))  # as if fitted on a GPU machine
    with pytest.raises(ValueError, match="device='cuda:7' cannot be used by this torch"):
        sio.loads(data, trusted=[f"fairkit.adversarial._fair_icp.{type(fitted).__name__}"])


def _run_guide_code(script, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return runpy.run_path(str(CODE / script), run_name="__main__")


def test_the_guides_code_loads_the_fair_boc_trusting_one_type(tmp_path, monkeypatch, capsys):
    namespace = _run_guide_code("persistence.py", tmp_path, monkeypatch)
    assert namespace["TRUSTED"] == ["fairkit.postprocessing._fair_boc.RandomizedFairBOC"]
    assert capsys.readouterr().out == f"{namespace['TRUSTED']}\nidentical predictions: True\n"


def test_the_guides_fairicp_code_saves_and_loads_the_networks(tmp_path, monkeypatch, capsys, torch):
    namespace = _run_guide_code("persistence_fairicp.py", tmp_path, monkeypatch)
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == ["['fairkit.adversarial._fair_icp.FairICPClassifier']", "identical probabilities: True"]
    module = namespace["clf"].net_.module_
    assert namespace["weights"].keys() == module.state_dict().keys()
    assert all(torch.equal(value, module.state_dict()[key]) for key, value in namespace["weights"].items())
