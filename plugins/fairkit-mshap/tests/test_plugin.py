"""The plugin as fairkit sees it once the distribution is installed."""

import json

import numpy as np
import pytest

from fairkit import registry
from fairkit.cli import main


@pytest.fixture
def fresh_registry(monkeypatch):
    monkeypatch.delenv("FAIRKIT_DISABLE_PLUGINS", raising=False)
    registry.reload_plugins()
    yield monkeypatch
    registry.reload_plugins()


def mshap_row(capsys):
    assert main(["plugins", "--json"]) == 0
    return next(p for p in json.loads(capsys.readouterr().out) if p["name"] == "mshap")


def test_fairkit_plugins_lists_the_plugin_and_its_demo(fresh_registry, capsys):
    plugin = mshap_row(capsys)
    assert plugin["distribution"] == "fairkit-mshap" and plugin["status"] == "loaded"
    assert plugin["error"] is None
    assert plugin["demos"] == ["mshap_free_riding"]


def test_the_plugin_can_be_disabled(fresh_registry, capsys):
    fresh_registry.setenv("FAIRKIT_DISABLE_PLUGINS", "mshap")
    registry.reload_plugins()
    assert mshap_row(capsys)["status"] == "disabled"
    assert "mshap_free_riding" not in registry.all_demos()


def test_the_demo_shows_more_data_under_mshap_than_without_payments(fresh_registry):
    result = registry.all_demos()["mshap_free_riding"](quick=True)
    assert result["before"] < result["after"]
    # without payments only the cheapest of the 6 agents contributes: S0 = (αβ/γ_min)^(1/(β+1)) − 1
    rates = np.random.default_rng(0).uniform(1e-3, 1e-2, size=6)
    np.testing.assert_allclose(result["before"], (0.5 / rates.min()) ** (2 / 3) - 1, rtol=1e-6)
    assert "M0 -> M^Shap" in result["note"]
