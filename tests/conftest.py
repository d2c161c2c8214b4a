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
