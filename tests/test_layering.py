"""The one-way dependencies of DESIGN.md, read from every import in fairkit/ (lazy ones too)."""

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "fairkit"
FAMILIES = {"postprocessing", "adversarial", "cluster", "ranking", "scheduling"}
TOP = {"_builtin", "cli", "audit", "integrations", "registry"}  # what may know the families
# {layer: the parts of fairkit it must not import}
FORBIDDEN = {
    "utils": {"metrics", "datasets"} | FAMILIES | TOP,
    "metrics": FAMILIES | TOP,
    "datasets": FAMILIES | TOP,
    "hookspecs": FAMILIES | TOP,
    "registry": FAMILIES | {"_builtin", "cli", "audit", "integrations"},
    **{family: (FAMILIES - {family}) | TOP for family in FAMILIES},
}
# The single upward import: a scorer is made from a metric's registered name.
EXCEPTIONS = {("metrics/_scorer.py", "registry")}


def imported_parts(path):
    """The parts of fairkit (first component after ``fairkit.``) and the top-level packages it imports."""
    module = path.relative_to(PACKAGE.parent).with_suffix("").parts
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this module's package
                base = module[:len(module) - node.level]
                names = [".".join([*base, node.module] if node.module else base)]
            else:
                names = [node.module]
        else:
            continue
        yield from (name.split(".") for name in names)


def test_dependencies_run_one_way():
    violations = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        layer = relative.split("/")[0].removesuffix(".py")
        for parts in imported_parts(path):
            if parts[0].startswith("fairkit_"):
                violations.append(f"{relative} imports the plugin {parts[0]}")
            if parts[0] != "fairkit" or len(parts) < 2:
                continue
            if parts[1] in FORBIDDEN.get(layer, ()) and (relative, parts[1]) not in EXCEPTIONS:
                violations.append(f"{relative} imports fairkit.{parts[1]}")
    assert not violations, "\n".join(violations)


def test_every_part_of_the_package_has_a_place():
    parts = {path.name.removesuffix(".py") for path in PACKAGE.iterdir()
             if path.suffix == ".py" or (path / "__init__.py").exists()}
    placed = set(FORBIDDEN) | TOP | {"__init__", "__main__", "exceptions"}
    assert parts <= placed, f"new parts of fairkit need a layer in this test: {sorted(parts - placed)}"


def test_the_checker_sees_a_violation(tmp_path, monkeypatch):
    family = tmp_path / "fairkit" / "cluster"
    family.mkdir(parents=True)
    (family / "_bad.py").write_text("def f():\n    from ..ranking import SelectiveRanker\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", tmp_path / "fairkit")
    try:
        test_dependencies_run_one_way()
    except AssertionError as error:
        assert "cluster/_bad.py imports fairkit.ranking" in str(error)
    else:
        raise AssertionError("a lazy relative import of another family went unnoticed")
