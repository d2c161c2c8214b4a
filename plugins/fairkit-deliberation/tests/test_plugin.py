"""The plugin as fairkit sees it once the distribution is installed."""

import pytest

from fairkit import registry
from fairkit_deliberation import JustifiedRepresentationRanker, coverage, is_justified, load_deliberation
from fairkit_deliberation._demo import demo


@pytest.fixture
def fresh_registry(monkeypatch):
    monkeypatch.delenv("FAIRKIT_DISABLE_PLUGINS", raising=False)
    registry.reload_plugins()
    yield monkeypatch
    registry.reload_plugins()


def test_fairkit_discovers_the_plugin(fresh_registry):
    plugin = next(p for p in registry.list_plugins() if p["name"] == "deliberation")
    assert plugin["distribution"] == "fairkit-deliberation" and plugin["status"] == "loaded"
    assert registry.get_estimator("JustifiedRepresentationRanker") is JustifiedRepresentationRanker
    assert registry.all_metrics()["is_justified"] is is_justified
    assert registry.all_metrics()["coverage"] is coverage
    assert registry.all_datasets()["load_deliberation"] is load_deliberation
    assert "justified_representation" in registry.all_demos()


def test_the_plugin_can_be_disabled(fresh_registry):
    fresh_registry.setenv("FAIRKIT_DISABLE_PLUGINS", "deliberation")
    registry.reload_plugins()
    plugin = next(p for p in registry.list_plugins() if p["name"] == "deliberation")
    assert plugin["status"] == "disabled"
    assert "JustifiedRepresentationRanker" not in dict(registry.all_estimators())


@pytest.mark.parametrize("quick", [True, False])
def test_demo_shows_jr_restoring_a_left_out_minority(quick):
    result = demo(quick=quick)
    assert result["after"] > result["before"]
    assert result["note"].startswith("JR violated -> held")
