"""The plugin as fairkit sees it once the distribution is installed."""

import pytest

import fairkit_uncertainty
from fairkit import registry
from fairkit_uncertainty._demo import demo


@pytest.fixture
def fresh_registry(monkeypatch):
    monkeypatch.delenv("FAIRKIT_DISABLE_PLUGINS", raising=False)
    registry.reload_plugins()
    yield monkeypatch
    registry.reload_plugins()


def test_fairkit_discovers_the_metrics_and_the_demo(fresh_registry):
    plugin = next(p for p in registry.list_plugins() if p["name"] == "uncertainty")
    assert plugin["distribution"] == "fairkit-uncertainty" and plugin["status"] == "loaded"
    metrics = registry.all_metrics()
    for name in ("ucerf_score", "expected_calibration_error", "max_calibration_error", "reliability_table",
                 "calibration_audit"):
        assert metrics[name] is getattr(fairkit_uncertainty, name)
    assert "mirage_calibration_audit" in registry.all_demos()


def test_the_plugin_can_be_disabled(fresh_registry):
    fresh_registry.setenv("FAIRKIT_DISABLE_PLUGINS", "uncertainty")
    registry.reload_plugins()
    assert next(p for p in registry.list_plugins() if p["name"] == "uncertainty")["status"] == "disabled"
    assert "ucerf_score" not in registry.all_metrics()


def test_demo_audit_passes_the_honest_model_and_flags_the_mirage(torch):
    result = demo(quick=True)
    assert result["before"] <= 0.15 < result["after"]
    assert result["note"].startswith("audit passed -> flagged")
