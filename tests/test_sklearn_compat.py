"""Private scikit-learn names are imported in one module only: fairkit/utils/_sklearn_compat.py."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
COMPAT = Path("fairkit/utils/_sklearn_compat.py")
SOURCES = ["fairkit", "plugins", "tests", "benchmarks", "docs", "examples"]


def _private(dotted):
    return any(part.startswith("_") and not part.startswith("__") for part in dotted.split("."))


def private_sklearn_names(path):
    """``(line, name)`` for each private scikit-learn module or name the file imports."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module.split(".")[0] == "sklearn":
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names
                      if _private(node.module) or _private(alias.name)]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names
                      if alias.name.split(".")[0] == "sklearn" and _private(alias.name)]
    return found


def violations(root):
    return [f"{path.relative_to(root)}:{line} imports {name}"
            for folder in SOURCES if (root / folder).is_dir()
            for path in sorted((root / folder).rglob("*.py"))
            if "_build" not in path.parts and path.relative_to(root) != COMPAT
            for line, name in private_sklearn_names(path)]


def test_private_sklearn_names_come_from_the_compat_module():
    assert violations(ROOT) == []


@pytest.mark.parametrize("source", [
    "from sklearn.utils._param_validation import Interval\n",
    "from sklearn.base import BaseEstimator, _fit_context\n",
    "import sklearn.utils._testing\n",
])
def test_the_checker_sees_a_violation(tmp_path, source):
    (tmp_path / "fairkit").mkdir()
    (tmp_path / "fairkit" / "_bad.py").write_text(source)
    assert [v.split(" imports ")[0] for v in violations(tmp_path)] == ["fairkit/_bad.py:1"]


def test_importing_fairkit_does_not_import_the_estimator_checks():
    """The compat module imports scikit-learn's estimator checks (and pytest) only when asked."""
    code = ("import sys, fairkit.registry; fairkit.registry.all_estimators(); "
            "print('sklearn.utils.estimator_checks' in sys.modules, 'pytest' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
