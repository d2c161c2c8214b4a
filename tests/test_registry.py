"""The plugin registry against real entry points: a third-party distribution and a broken one."""

import sys
import warnings

import pytest

from fairkit import registry
from fairkit.exceptions import FairkitPluginWarning

GOOD_PLUGIN = '''
from sklearn.base import BaseEstimator, ClassifierMixin, ClusterMixin

from fairkit import hookimpl


class GoodClassifier(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        return self


class GoodClusterer(ClusterMixin, BaseEstimator):
    def fit(self, X, y=None):
        return self


class NotAnEstimator:
    def fit(self, X, y):
        return self


def score_gap(y_true, y_pred, *, sensitive_features):
    return 0.0


@hookimpl
def fairkit_estimators():
    return [GoodClassifier, GoodClusterer, NotAnEstimator]


@hookimpl
def fairkit_metrics():
    return {"score_gap": score_gap, "not_callable": 3}


@hookimpl
def fairkit_search_spaces():
    return {"GoodClassifier": {"C": [0.1, 1.0]}}


@hookimpl
def fairkit_demos():
    raise RuntimeError("demo data missing")
'''

SHADOW_PLUGIN = '''
from sklearn.base import BaseEstimator

from fairkit import hookimpl


class GoodClassifier(BaseEstimator):
    def fit(self, X, y):
        return self


@hookimpl
def fairkit_estimators():
    return [GoodClassifier]
'''


@pytest.fixture
def site(install_plugin):
    """A good plugin, one that shadows its estimator's name, and one that fails to import."""
    install_plugin("goodplug", GOOD_PLUGIN, "1.2")
    install_plugin("shadowplug", SHADOW_PLUGIN)
    install_plugin("brokenplug", "raise ImportError('needs a package that is not installed')\n")


def _plugin(name):
    return next(p for p in registry.list_plugins() if p["name"] == name)


def test_third_party_plugin_is_discovered(site):
    with pytest.warns(FairkitPluginWarning):
        names = dict(registry.all_estimators())
    assert names["GoodClassifier"].__module__ == "goodplug"
    assert "score_gap" in registry.all_metrics()
    assert registry.search_space("GoodClassifier") == {"C": [0.1, 1.0]}
    info = _plugin("goodplug")
    assert (info["distribution"], info["version"], info["status"]) == ("goodplug", "1.2", "loaded")
    assert info["estimators"] == ["GoodClassifier", "GoodClusterer"]
    assert info["metrics"] == ["score_gap"]


def test_type_filter_uses_mixins(site):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FairkitPluginWarning)
        assert [n for n, _ in registry.all_estimators("cluster") if n.startswith("Good")] == ["GoodClusterer"]
        classifiers = [n for n, _ in registry.all_estimators(["classifier"])]
        with pytest.raises(ValueError, match="Unknown type_filter"):
            registry.all_estimators("ranker")
    assert "GoodClassifier" in classifiers and "GoodClusterer" not in classifiers


def test_invalid_entries_are_skipped_with_reasons(site):
    with pytest.warns(FairkitPluginWarning) as record:
        registry.list_plugins()
    messages = "\n".join(str(w.message) for w in record)
    assert "'brokenplug' skipped: could not load entry point brokenplug = 'brokenplug': ImportError: " \
           "needs a package" in messages
    assert "NotAnEstimator" in messages and "not a scikit-learn estimator" in messages
    assert "'not_callable' must map a str to callable" in messages
    assert "hook fairkit_demos raised RuntimeError: demo data missing" in messages
    # goodplug sorts before shadowplug, so it keeps the name and the later one is refused
    assert "'shadowplug' skipped: estimator 'GoodClassifier' is a duplicate name, already " \
           "registered by plugin 'goodplug'" in messages
    assert _plugin("brokenplug")["status"] == "failed"
    assert _plugin("shadowplug")["estimators"] == []


def test_broken_plugin_does_not_hide_the_others(site):
    with pytest.warns(FairkitPluginWarning):
        assert "goodplug" in {p["name"] for p in registry.list_plugins() if p["status"] == "loaded"}


def test_strict_mode_raises(site, monkeypatch):
    monkeypatch.setenv("FAIRKIT_STRICT_PLUGINS", "1")
    registry.reload_plugins()
    with pytest.raises(ImportError, match="needs a package"):
        registry.all_estimators()


def test_strict_mode_raises_on_an_invalid_entry_of_a_loaded_plugin(site, monkeypatch):
    monkeypatch.setenv("FAIRKIT_STRICT_PLUGINS", "1")
    monkeypatch.setenv("FAIRKIT_DISABLE_PLUGINS", "brokenplug")  # loads; goodplug holds NotAnEstimator
    registry.reload_plugins()
    with pytest.raises(TypeError, match="'goodplug': .*NotAnEstimator.* is not a scikit-learn estimator"):
        registry.all_estimators()


def test_disabled_plugins_are_not_imported(site, monkeypatch):
    monkeypatch.setenv("FAIRKIT_DISABLE_PLUGINS", "brokenplug, shadowplug")
    registry.reload_plugins()
    with pytest.warns(FairkitPluginWarning) as record:  # goodplug's own invalid entries only
        names = dict(registry.all_estimators())
    assert names["GoodClassifier"].__module__ == "goodplug"
    assert not any("brokenplug" in str(w.message) for w in record)
    assert "brokenplug" not in sys.modules and "shadowplug" not in sys.modules
    assert _plugin("brokenplug")["status"] == "disabled"


def test_builtin_plugin_registers_through_its_entry_point():
    registry.reload_plugins()
    builtin = _plugin("fairkit")
    assert builtin["status"] == "loaded" and builtin["distribution"] == "fairkit"
    # every estimator defined in fairkit itself, and none of the installed plugins' (e.g. plugins/*)
    assert set(builtin["estimators"]) == {name for name, cls in registry.all_estimators()
                                          if cls.__module__.split(".")[0] == "fairkit"}


def test_unknown_names_list_the_available_ones():
    with pytest.raises(ValueError, match="No estimator named 'Nope' is registered; available"):
        registry.get_estimator("Nope")
    with pytest.raises(ValueError, match="No search space named 'Nope'"):
        registry.search_space("Nope")


def test_discovery_is_lazy():
    registry.reload_plugins()
    assert registry._registry._manager is None
    registry.all_metrics()
    assert registry._registry._manager is not None


# Bad input (issue 14)

MISSPELT_HOOK_PLUGIN = '''
from fairkit import hookimpl


def gap(y_true, y_pred, *, sensitive_features):
    return 0.0


@hookimpl
def fairkit_estimator():  # the hook is fairkit_estimators
    raise AssertionError("a hook without a specification is never called")


@hookimpl
def fairkit_metrics():
    return {"typo_gap": gap}
'''


def test_a_plugin_named_fairkit_cannot_replace_the_builtin_plugin(install_plugin):
    install_plugin("impostor", SHADOW_PLUGIN, entry_points={"fairkit": "impostor"})
    with pytest.warns(FairkitPluginWarning, match="plugin 'fairkit' skipped: the name 'fairkit' is reserved "
                                                  "for fairkit's built-in plugin .*distribution 'impostor'"):
        names = dict(registry.all_estimators())
    assert "RandomizedFairBOC" in names and "GoodClassifier" not in names
    by_distribution = {p["distribution"]: p for p in registry.list_plugins() if p["name"] == "fairkit"}
    assert by_distribution["fairkit"]["status"] == "loaded"
    assert by_distribution["impostor"]["status"] == "failed"
    assert "reserved for fairkit's built-in plugin" in by_distribution["impostor"]["error"]


def test_a_plugin_named_fairkit_raises_in_strict_mode(install_plugin, monkeypatch):
    install_plugin("impostor", SHADOW_PLUGIN, entry_points={"fairkit": "impostor"})
    monkeypatch.setenv("FAIRKIT_STRICT_PLUGINS", "1")
    registry.reload_plugins()
    with pytest.raises(ValueError, match="'fairkit' is reserved for fairkit's built-in plugin.*'impostor'"):
        registry.all_estimators()


def test_a_misspelt_hook_is_reported_and_the_valid_hooks_register(install_plugin):
    install_plugin("typoplug", MISSPELT_HOOK_PLUGIN)
    with pytest.warns(FairkitPluginWarning, match="'typoplug': hook 'fairkit_estimator' is not a fairkit "
                                                  "hook.*did you mean 'fairkit_estimators'"):
        info = _plugin("typoplug")
    assert info["status"] == "loaded" and info["metrics"] == ["typo_gap"]
    assert "'fairkit_estimator' is not a fairkit hook" in info["error"]


def test_a_misspelt_hook_raises_in_strict_mode(install_plugin, monkeypatch):
    from pluggy import PluginValidationError

    install_plugin("typoplug", MISSPELT_HOOK_PLUGIN)
    monkeypatch.setenv("FAIRKIT_STRICT_PLUGINS", "1")
    registry.reload_plugins()
    with pytest.raises(PluginValidationError, match="hook 'fairkit_estimator' is not a fairkit hook"):
        registry.all_metrics()


def test_sys_exit_at_import_is_a_failed_plugin(install_plugin):
    install_plugin("exitplug", "import sys\nsys.exit(3)\n")
    install_plugin("goodplug", GOOD_PLUGIN)
    with pytest.warns(FairkitPluginWarning, match="'exitplug' skipped: could not load entry point "
                                                  "exitplug = 'exitplug': SystemExit: 3"):
        names = dict(registry.all_estimators())
    assert "GoodClassifier" in names
    assert _plugin("exitplug")["status"] == "failed"


def test_sys_exit_at_import_raises_an_error_in_strict_mode(install_plugin, monkeypatch):
    install_plugin("exitplug", "import sys\nsys.exit(3)\n")
    monkeypatch.setenv("FAIRKIT_STRICT_PLUGINS", "1")
    registry.reload_plugins()
    with pytest.raises(RuntimeError, match="'exitplug': could not load entry point"):
        registry.all_estimators()


def test_sys_exit_in_a_hook_skips_that_hook(install_plugin):
    install_plugin("exithook", "import sys\n\nfrom fairkit import hookimpl\n\n\n"
                               "@hookimpl\ndef fairkit_estimators():\n    sys.exit()\n")
    with pytest.warns(FairkitPluginWarning, match="'exithook' skipped: hook fairkit_estimators raised "
                                                  "SystemExit"):
        names = dict(registry.all_estimators())
    assert "RandomizedFairBOC" in names


def test_keyboard_interrupt_at_import_is_not_swallowed(install_plugin):
    install_plugin("interrupted", "raise KeyboardInterrupt\n")
    with pytest.raises(KeyboardInterrupt):
        registry.all_estimators()


def test_a_malformed_entry_point_is_named(install_plugin):
    install_plugin("attrplug", "x = 1\n", entry_points={"bad": "not a:valid:ref",
                                                       "missing": "attrplug:nothing_here"})
    with pytest.warns(FairkitPluginWarning) as record:
        registry.all_estimators()
    messages = "\n".join(str(w.message) for w in record)
    assert "'bad' skipped: could not load entry point bad = 'not a:valid:ref': ValueError: not an " \
           "object reference" in messages
    assert "'missing' skipped: could not load entry point missing = 'attrplug:nothing_here': " \
           "AttributeError: module 'attrplug' has no attribute 'nothing_here'" in messages


def test_an_optional_hook_of_a_newer_fairkit_is_not_reported(install_plugin):
    install_plugin("futureplug", "from fairkit import hookimpl\n\n\n@hookimpl(optionalhook=True)\n"
                                 "def fairkit_future_hook():\n    return {}\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error", FairkitPluginWarning)
        info = _plugin("futureplug")
    assert (info["status"], info["error"]) == ("loaded", None)


def test_a_name_taken_by_another_distribution_is_reported(install_plugin):
    install_plugin("firstdist", SHADOW_PLUGIN, entry_points={"same": "firstdist"})
    install_plugin("seconddist", GOOD_PLUGIN, entry_points={"same": "seconddist"})
    with pytest.warns(FairkitPluginWarning, match="'same' skipped: the name 'same' is taken by the plugin of "
                                                  "distribution 'firstdist'; distribution 'seconddist' must"):
        names = dict(registry.all_estimators())
    assert names["GoodClassifier"].__module__ == "firstdist" and "GoodClusterer" not in names


def test_an_unknown_name_in_fairkit_disable_plugins_is_reported_with_the_installed_ones(install_plugin,
                                                                                       monkeypatch):
    install_plugin("goodplug", SHADOW_PLUGIN)
    monkeypatch.setenv("FAIRKIT_DISABLE_PLUGINS", "goodplgu, nosuchplugin")
    registry.reload_plugins()
    with pytest.warns(FairkitPluginWarning, match="FAIRKIT_DISABLE_PLUGINS names no installed plugin called "
                                                  "'goodplgu', 'nosuchplugin'.* the installed plugins are "
                                                  r"(\w+, )*fairkit, (\w+, )*goodplug"):
        names = dict(registry.all_estimators())
    assert names["GoodClassifier"].__module__ == "goodplug"  # the misspelt name blocked nothing


def test_an_unknown_name_in_fairkit_disable_plugins_raises_in_strict_mode(install_plugin, monkeypatch):
    install_plugin("goodplug", SHADOW_PLUGIN)
    monkeypatch.setenv("FAIRKIT_DISABLE_PLUGINS", "goodplug,nosuchplugin")
    monkeypatch.setenv("FAIRKIT_STRICT_PLUGINS", "1")
    registry.reload_plugins()
    with pytest.raises(ValueError, match="no installed plugin called 'nosuchplugin'"):
        registry.all_estimators()


# Audit checks (issue 20)

CHECK_PLUGIN = '''
import pandas as pd

from fairkit import hookimpl


def shift(model, X, y, sensitive_features, *, option, random_state):
    return pd.DataFrame({"accuracy": [1.0]})


@hookimpl
def fairkit_audit_checks():
    return {"shift": shift, "not_callable": 3}
'''


def test_audit_checks_register_through_their_hook(install_plugin):
    install_plugin("checkplug", CHECK_PLUGIN)
    install_plugin("secondcheck", CHECK_PLUGIN.replace(', "not_callable": 3', ""))
    with pytest.warns(FairkitPluginWarning) as record:
        checks = registry.all_audit_checks()
    assert checks["shift"].__module__ == "checkplug" and "not_callable" not in checks
    messages = "\n".join(str(w.message) for w in record)
    assert "'checkplug' skipped: audit_checks entry 'not_callable' must map a str to callable" in messages
    assert "'secondcheck' skipped: audit check 'shift' is a duplicate name, already registered by plugin " \
           "'checkplug'" in messages
    assert _plugin("checkplug")["audit_checks"] == ["shift"] and _plugin("secondcheck")["audit_checks"] == []


def test_a_misspelt_audit_checks_hook_is_named(install_plugin):
    install_plugin("typocheck", "from fairkit import hookimpl\n\n\n@hookimpl\ndef fairkit_audit_check():\n"
                                "    return {}\n")
    with pytest.warns(FairkitPluginWarning, match="hook 'fairkit_audit_check' is not a fairkit hook.*did you "
                                                  "mean 'fairkit_audit_checks'"):
        registry.all_audit_checks()
