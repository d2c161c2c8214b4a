"""The plugin as fairkit sees it once the distribution is installed."""

import pytest

import fairkit_subgroups
from fairkit import registry


@pytest.fixture
def fresh_registry(monkeypatch):
    monkeypatch.delenv("FAIRKIT_DISABLE_PLUGINS", raising=False)
    registry.reload_plugins()
    yield monkeypatch
    registry.reload_plugins()


def test_fairkit_discovers_the_estimators_and_their_search_spaces(fresh_registry):
    plugin = next(p for p in registry.list_plugins() if p["name"] == "subgroups")
    assert plugin["distribution"] == "fairkit-subgroups" and plugin["status"] == "loaded"
    for name in ("GroupBalancedClassifier", "GroupDROClassifier"):
        assert registry.get_estimator(name) is getattr(fairkit_subgroups, name)
        assert name in registry.all_search_spaces()
    assert registry.all_datasets()["make_digits_artefact"] is fairkit_subgroups.make_digits_artefact


def test_the_plugin_can_be_disabled(fresh_registry):
    fresh_registry.setenv("FAIRKIT_DISABLE_PLUGINS", "subgroups")
    registry.reload_plugins()
    assert next(p for p in registry.list_plugins() if p["name"] == "subgroups")["status"] == "disabled"
    assert "GroupDROClassifier" not in dict(registry.all_estimators())


def test_importing_the_package_does_not_import_torch():
    import subprocess
    import sys

    code = "import sys, fairkit_subgroups; print('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "False"


def test_the_demo_shows_the_lowest_kl_grouping_beating_erm_where_s_does_not(fresh_registry):
    result = registry.all_demos()["subgroup_choice"](quick=True)
    assert result["after"] > result["before"] + 0.1
    assert "reweighting on YAS" in result["note"]
    s_accuracy = float(result["note"].split("on S: ")[1].split()[0])
    assert abs(s_accuracy - result["before"]) < 0.05
