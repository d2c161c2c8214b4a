"""Packaging promises: a light import, no torch unless a network is trained, a working console script."""

import subprocess
import sys

import pytest


def _run(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize(
    "code",
    [
        "import fairkit",
        "import fairkit.metrics, fairkit.datasets, fairkit.utils.estimator_checks, fairkit.cli",
        # discovering every estimator imports every family, still without torch
        "from fairkit.registry import all_estimators, all_demos; all_estimators(); all_demos()",
    ],
)
def test_imports_never_import_torch(code):
    assert _run(f"{code}\nimport sys\nprint('torch' in sys.modules)").strip() == "False"


def test_import_fairkit_is_light():
    heavy = ["sklearn", "scipy", "pandas", "pluggy"]
    loaded = _run(f"import sys, fairkit\nprint([m for m in {heavy!r} if m in sys.modules])").strip()
    assert loaded == "['pluggy']"


def test_lazy_subpackages_and_version():
    import fairkit

    assert fairkit.registry.__name__ == "fairkit.registry"
    assert fairkit.__version__.count(".") >= 2
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        fairkit.nope  # noqa: B018


def test_console_script_and_module_entry_point():
    out = subprocess.run([sys.executable, "-m", "fairkit", "--version"], capture_output=True, text=True,
                         check=True).stdout
    assert out.startswith("fairkit ")
