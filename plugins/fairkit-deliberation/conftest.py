"""Test configuration: the shared data sets (FAIRKIT_DATA) for the tests and the doctests."""

import os
from pathlib import Path

import pytest

os.environ.setdefault("FAIRKIT_DATA", str(Path(__file__).resolve().parents[3] / "shared" / "data"))


def _has_data():
    return Path(os.environ["FAIRKIT_DATA"], "deliberation").is_dir()


@pytest.fixture(scope="session")
def data_home():
    """The folder of the shared data sets; tests that need it skip when it is absent."""
    if not _has_data():
        pytest.skip(f"shared data sets not found at {os.environ['FAIRKIT_DATA']} (set FAIRKIT_DATA)")
    return Path(os.environ["FAIRKIT_DATA"])


@pytest.fixture(autouse=True)
def _doctests_need_data(request):
    """The loader's doctest reads the shared data: skip it, like the tests, when the data is absent."""
    if request.node.name.endswith(".load_deliberation") and not _has_data():
        pytest.skip("shared data sets not found (set FAIRKIT_DATA)")
