import json

import pytest

from fairkit import registry
from fairkit.cli import main

DEMO_PLUGIN = '''
from fairkit import hookimpl


def gap_demo(*, quick=False):
    """Halve a toy gap.

    The first line of a demo's docstring is what ``fairkit demo --list`` shows.
    """
    return {"metric": "gap", "before": 0.5, "after": 0.25 if quick else 0.125, "note": "toy"}


def needs_torch_demo(*, quick=False):
    raise ImportError('needs torch: pip install "fairkit[nn]"')


@hookimpl
def fairkit_demos():
    return {"toy": gap_demo, "nn": needs_torch_demo}
'''


def test_plugins_json_lists_the_builtin_plugin(capsys):
    assert main(["plugins", "--json"]) == 0
    plugins = json.loads(capsys.readouterr().out)
    assert any(p["name"] == "fairkit" and p["status"] == "loaded" for p in plugins)


def test_plugins_table_shows_a_failed_plugin(install_plugin, capsys):
    install_plugin("brokenplug", "raise ImportError('missing dependency')\n")
    with pytest.warns(UserWarning, match="brokenplug"):
        assert main(["plugins"]) == 0
    out = capsys.readouterr().out
    assert "brokenplug" in out and "failed: could not load entry point brokenplug = 'brokenplug': " \
                                   "ImportError: missing dependency" in out


def test_demo_runs_registered_demos_and_prints_a_row(install_plugin, capsys):
    install_plugin("demoplug", DEMO_PLUGIN)
    assert main(["demo", "toy", "--quick", "--no-progress"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("toy"))
    assert row.split()[:4] == ["toy", "gap", "0.5", "0.25"]


def test_demo_unknown_name_exits_2(capsys):
    assert main(["demo", "no-such-demo"]) == 2
    assert "unknown demo(s) no-such-demo" in capsys.readouterr().err


def test_demo_with_a_missing_optional_dependency_is_skipped(install_plugin, capsys):
    install_plugin("demoplug", DEMO_PLUGIN)
    assert main(["demo", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "skipped: needs torch" in out and any(line.startswith("toy") for line in out.splitlines())


# Bad input (issue 14)

def test_plugins_lists_a_plugin_that_calls_sys_exit_at_import(install_plugin, capsys):
    install_plugin("exitplug", "import sys\nsys.exit(3)\n")
    with pytest.warns(UserWarning, match="exitplug"):
        assert main(["plugins"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("exitplug"))
    assert "failed: could not load entry point exitplug = 'exitplug': SystemExit: 3" in row


def test_plugins_shows_a_misspelt_hook(install_plugin, capsys):
    install_plugin("typoplug", "from fairkit import hookimpl\n\n\n@hookimpl\ndef fairkit_demo():\n"
                               "    return {}\n")
    with pytest.warns(UserWarning, match="typoplug"):
        assert main(["plugins", "--json"]) == 0
    plugin = next(p for p in json.loads(capsys.readouterr().out) if p["name"] == "typoplug")
    assert plugin["status"] == "loaded"
    assert "hook 'fairkit_demo' is not a fairkit hook and is never called (did you mean 'fairkit_demos'?" \
           in plugin["error"]


def test_plugins_table_shows_the_first_line_of_a_multi_line_error(install_plugin, capsys):
    install_plugin("badargs", "from fairkit import hookimpl\n\n\n@hookimpl\n"
                              "def fairkit_metrics(unknown_argument):\n    return {}\n")
    with pytest.warns(UserWarning, match="badargs"):
        assert main(["plugins"]) == 0
    header, rule, *rows = capsys.readouterr().out.splitlines()
    assert header.startswith("plugin") and set(rule) == {"-", " "}
    # one line per plugin: the error's other lines do not break the table
    assert sorted(row.split()[0] for row in rows) == sorted(p["name"] for p in registry.list_plugins())
    row = next(row for row in rows if row.startswith("badargs"))
    assert "failed: could not load entry point badargs = 'badargs': PluginValidationError: Plugin " \
           "'badargs' for hook 'fairkit_metrics' [...] (full text: fairkit plugins --json)" in row


# What the command can do (issue 16)

COUNTS_PLUGIN = '''
from sklearn.base import BaseEstimator, ClassifierMixin

from fairkit import hookimpl


class OneClassifier(ClassifierMixin, BaseEstimator):
    def fit(self, X, y, *, sensitive_features=None):
        return self


@hookimpl
def fairkit_estimators():
    return [OneClassifier]


@hookimpl
def fairkit_metrics():
    return {"first": len, "second": len}


@hookimpl
def fairkit_search_spaces():
    return {"OneClassifier": {}}
'''


def test_plugins_counts_are_singular_for_one(install_plugin, capsys):
    install_plugin("countplug", COUNTS_PLUGIN)
    assert main(["plugins"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("countplug"))
    assert row.endswith("1 estimator, 2 metrics, 1 search space")


def test_demo_list_names_each_demo_its_plugin_and_what_it_shows_without_running_it(install_plugin, capsys):
    install_plugin("demoplug", DEMO_PLUGIN)
    assert main(["demo", "--list"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line for line in out.splitlines()[2:]}
    assert rows["toy"].split(None, 2) == ["toy", "demoplug", "Halve a toy gap."]
    assert rows["nn"].split(None, 2) == ["nn", "demoplug", "-"]  # no docstring
    assert "skipped" not in out and "seconds" not in out  # listed, not run


def test_demo_list_of_an_unknown_name_exits_2(capsys):
    assert main(["demo", "--list", "no-such-demo"]) == 2
    assert "unknown demo(s) no-such-demo" in capsys.readouterr().err


# Checks of plugins in fairkit audit (issue 20)

CHECK_PLUGIN = '''
import pandas as pd

from fairkit import hookimpl


def size_check(model, X, y, sensitive_features, *, option, random_state):
    """Count the test rows.

    Only the first line is shown in fairkit audit --help.
    """
    return pd.DataFrame({"rows": [len(y)]})


@hookimpl
def fairkit_audit_checks():
    return {"size": size_check}
'''

AUDIT = ["audit", "data.csv", "--target", "y", "--sensitive", "s"]


def _parse(*extra):
    from fairkit.cli import build_parser

    return build_parser().parse_args([*AUDIT, *extra])


def test_robustness_and_check_options_become_the_audits_checks():
    from fairkit.cli import _checks

    assert _checks(_parse()) is None
    assert _checks(_parse("--robustness", "0.05")) == {"robustness": 0.05}
    assert _checks(_parse("--robustness", "1e-3", "--check", "size=2", "--check", "mode=fast")) == {
        "size": 2, "mode": "fast", "robustness": 0.001}  # OPTION read as --param reads VALUE


@pytest.mark.parametrize("eps", ["0", "-0.1", "nan", "inf", "abc"])
def test_robustness_must_be_a_size_above_0(eps, capsys):
    with pytest.raises(SystemExit) as exit_:
        _parse("--robustness", eps)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --robustness: {eps!r} is not a number" in err if eps == "abc" else \
        f"argument --robustness: {eps} is not a size above 0 (such as 0.1)" in err


def test_abstain_becomes_the_abstain_check():
    from fairkit.cli import _checks

    assert _parse().abstain is None
    assert _checks(_parse("--abstain", "0.8")) == {"abstain": 0.8}
    assert _checks(_parse("--abstain", "1", "--robustness", "0.1", "--check", "size=2")) == {
        "size": 2, "robustness": 0.1, "abstain": 1.0}


@pytest.mark.parametrize("coverage", ["0", "-0.1", "1.5", "nan", "inf", "abc"])
def test_abstain_must_be_a_coverage_in_0_1(coverage, capsys):
    with pytest.raises(SystemExit) as exit_:
        _parse("--abstain", coverage)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --abstain: {coverage!r} is not a number" in err if coverage == "abc" else \
        f"argument --abstain: {coverage} is not a coverage in (0, 1] (such as 0.8)" in err


def test_audit_help_lists_abstain_and_where_its_check_comes_from(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # help lines unwrapped
    registered = registry.all_audit_checks
    monkeypatch.setattr(registry, "all_audit_checks",  # as where fairkit-uncertainty is not installed
                        lambda: {name: check for name, check in registered().items() if name != "abstain"})
    with pytest.raises(SystemExit) as exit_:
        main(["audit", "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert "--abstain COVERAGE" in out and "(needs the fairkit-uncertainty plugin)" in out
    checks = out.split("checks of plugins")[1]
    assert "--abstain COVERAGE is --check abstain=COVERAGE" in " ".join(checks.split())  # wrapped at 100
    assert "  abstain: not registered; it comes with a plugin: pip install fairkit-uncertainty" in checks


def test_a_check_without_an_option_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_:
        _parse("--check", "size")
    assert exit_.value.code == 2
    assert "argument --check: 'size' is not NAME=OPTION (such as robustness=0.1)" in capsys.readouterr().err


def test_a_check_given_twice_is_refused(capsys):
    assert main([*AUDIT, "--check", "size=1", "--check", "size=2"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "fairkit audit: --check size is given twice; give each check once"


def test_plugins_counts_audit_checks(install_plugin, capsys):
    install_plugin("checkplug", CHECK_PLUGIN)
    assert next(p for p in registry.list_plugins() if p["name"] == "checkplug")["audit_checks"] == ["size"]
    assert main(["plugins"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("checkplug"))
    assert row.endswith("1 audit check")


def test_audit_help_lists_the_registered_checks_and_where_robustness_comes_from(install_plugin, capsys,
                                                                                 monkeypatch):
    install_plugin("checkplug", CHECK_PLUGIN)
    monkeypatch.setenv("COLUMNS", "200")  # help lines unwrapped
    registered = registry.all_audit_checks
    monkeypatch.setattr(registry, "all_audit_checks",  # as where fairkit-robust is not installed
                        lambda: {name: check for name, check in registered().items() if name != "robustness"})
    with pytest.raises(SystemExit) as exit_:
        main(["audit", "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert "--robustness EPS" in out and "up to EPS (needs the fairkit-robust plugin)" in out
    checks = out.split("checks of plugins")[1]
    assert "  size: Count the test rows.\n" in checks
    assert '  robustness: not registered; it comes with a plugin: pip install "fairkit-robust[nn]"' in checks


# The target data of fairkit audit (issue 22)

def test_target_csv_adds_the_shift_check_with_its_default_option_unless_check_sets_it():
    from pathlib import Path

    from fairkit.cli import _checks

    args = _parse("--target-csv", "later.csv")
    assert args.target_csv == Path("later.csv") and _checks(args) == {"shift": None}
    assert _parse().target_csv is None
    assert _checks(_parse("--target-csv", "later.csv", "--check", "shift=0.1")) == {"shift": 0.1}
    args = _parse("--check", "shift=default", "--target-csv", "later.csv", "--robustness", "0.2")
    assert _checks(args) == {"shift": "default", "robustness": 0.2}


def test_target_csv_reaches_the_audit_as_its_target_data(monkeypatch, capsys):
    from pathlib import Path

    from fairkit.audit import AuditError

    seen = {}

    def fake_audit(data, **kwargs):
        seen.update(kwargs)
        raise AuditError("stop")

    monkeypatch.setattr("fairkit.audit.audit", fake_audit)
    assert main([*AUDIT, "--target-csv", "later.csv"]) == 2
    assert seen["target_data"] == Path("later.csv") and seen["checks"] == {"shift": None}
    assert main(AUDIT) == 2
    assert seen["target_data"] is None and seen["checks"] is None
    assert capsys.readouterr().err.count("fairkit audit: stop") == 2


def test_audit_help_documents_target_csv_and_where_shift_comes_from(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "200")  # help lines unwrapped
    registered = registry.all_audit_checks
    monkeypatch.setattr(registry, "all_audit_checks",  # as where fairkit-shift is not installed
                        lambda: {name: check for name, check in registered().items() if name != "shift"})
    with pytest.raises(SystemExit) as exit_:
        main(["audit", "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert "  shift: not registered; it comes with a plugin: pip install fairkit-shift\n" in out
    words = " ".join(out.split())  # the epilog's lines are wrapped at 100 characters
    assert ("--target-csv PATH a CSV file from a target domain with the same columns: add the shift check, "
            "which subgroups lose performance there and why (needs the fairkit-shift plugin; --check "
            "shift=TOL sets its tolerance, default 0.05)") in words
    assert "--target-csv PATH adds the shift check):" in words
