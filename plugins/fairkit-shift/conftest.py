"""Test configuration: the shared data sets (FAIRKIT_DATA)."""

import os
from pathlib import Path

import pytest

os.environ.setdefault("FAIRKIT_DATA", str(Path(__file__).resolve().parents[3] / "shared" / "data"))


@pytest.fixture(scope="session")
def data_home():
    """The folder of the shared data sets; tests that need it skip when it is absent."""
    home = Path(os.environ["FAIRKIT_DATA"])
    if not home.is_dir():
        pytest.skip(f"shared data sets not found at {home} (set FAIRKIT_DATA)")
    return home


@pytest.fixture(scope="session", autouse=True)
def one_openmp_thread():
    """Gradient boosting on a few thousand rows: one OpenMP thread is faster than two that contend."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1, "openmp"):
        yield
