"""The README's quick start runs as written."""

import re
from pathlib import Path

import pytest
import sklearn

README = Path(__file__).resolve().parents[1] / "README.md"


def _section(title):
    text = README.read_text()
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else None]


def test_quick_start_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", _section("Quick start"), flags=re.S)
    assert blocks, "the quick start has no python block"
    namespace = {}  # the blocks run in order, as a reader would paste them
    try:
        for block in blocks:
            exec(compile(block, str(README), "exec"), namespace)
    finally:
        sklearn.set_config(enable_metadata_routing=False)
    lines = capsys.readouterr().out.splitlines()
    assert 0 <= float(lines[0]) < 0.1  # the fair model's demographic parity difference on test data
    # each candidate's mean demographic parity difference, printed as the metric (not negated)
    differences = [float(value) for value in lines[1].strip("[]").split()]
    assert len(differences) == 2 and all(0 <= value <= 1 for value in differences)
    # the same difference with its interval, and the noise floor
    value, low, floor = re.fullmatch(r"(\S+) \[(\S+), (\S+)\]; an exactly fair rule exceeds (\S+) 5% "
                                          r"of the time", lines[2]).group(1, 2, 4)
    assert float(value) == pytest.approx(float(lines[0]), abs=5e-4)
    assert float(low) <= float(value) and 0 < float(floor) < 0.2


def test_set_up_commands_match_ci():
    commands = re.findall(r"```bash\n(.*?)```", _section("Set up"), flags=re.S)
    ci = (README.parent / ".ci" / "run").read_text()
    ci_unquiet = ci.replace("pip install -q ", "pip install ")
    assert commands[0].strip() in ci_unquiet, "CI does not run the README's first command as written"
    test_command = commands[1].strip()
    install, run = test_command.rsplit(" && ", 1)
    assert install in ci_unquiet
    assert re.search(rf"^{re.escape(run)}$", ci, flags=re.M), f"CI does not run {run!r}"
