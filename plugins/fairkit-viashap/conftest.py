"""Test configuration: the shared data sets (FAIRKIT_DATA) and a single-threaded torch."""

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


@pytest.fixture
def torch():
    """torch with one intra-op thread: the networks here are tiny, and threads only add overhead."""
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield torch
    torch.set_num_threads(threads)
