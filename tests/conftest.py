"""Test configuration: the shared data sets and the `data` marker."""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("FAIRKIT_DATA", str(ROOT.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def data_home():
    """The folder of the shared data sets; tests that need it skip when it is absent."""
    home = Path(os.environ["FAIRKIT_DATA"])
    if not home.is_dir():
        pytest.skip(f"shared data sets not found at {home} (set FAIRKIT_DATA)")
    return home


@pytest.fixture
def install_plugin(tmp_path, monkeypatch):
    """Install plugin distributions into a fresh site directory, as pip would.

    ``install_plugin(name, source, version)`` writes the module ``name`` and a
    ``name-version.dist-info`` whose entry point in the ``fairkit`` group names it.
    The registry is rebuilt before and after the test.
    """
    import importlib
    import sys
    import textwrap

    from fairkit import registry

    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("FAIRKIT_STRICT_PLUGINS", raising=False)
    monkeypatch.delenv("FAIRKIT_DISABLE_PLUGINS", raising=False)
    installed = []

    def install(name, source, version="1.0"):
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
        info = tmp_path / f"{name}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        (info / "entry_points.txt").write_text(f"[fairkit]\n{name} = {name}\n")
        installed.append(name)
        importlib.invalidate_caches()
        registry.reload_plugins()

    yield install
    for name in installed:
        sys.modules.pop(name, None)
    registry.reload_plugins()
