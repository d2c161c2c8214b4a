"""``fairkit audit`` end to end: synthetic CSV files (always), Adult and COMPAS (with the data)."""

import itertools
import math
import os
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairkit.audit import AuditError, audit
from fairkit.cli import main

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = (ROOT / "docs" / "plugin_example" / "src" / "fairkit_reweighing" / "__init__.py").read_text()


@pytest.fixture(scope="module")
def synthetic_frame():
    rng = np.random.default_rng(0)
    n = 1000
    sex = rng.choice(["F", "M"], size=n, p=[0.4, 0.6])
    race = rng.choice(["p", "q"], size=n)
    x = rng.normal(size=n) + 0.8 * (sex == "M")
    job = rng.choice(["clerk", "nurse", "pilot"], size=n)
    income = np.where(x + 0.5 * (job == "pilot") + 0.3 * rng.normal(size=n) > 0.6, ">50K", "<=50K")
    frame = pd.DataFrame({"x": x, "job": job, "sex": sex, "race": race, "income": income})
    frame.loc[::97, "x"] = np.nan  # missing feature values are imputed
    return frame


@pytest.fixture
def synthetic_csv(tmp_path, synthetic_frame):
    path = tmp_path / "people.csv"
    synthetic_frame.to_csv(path, index=False)
    return path


@pytest.fixture
def reweighing(install_plugin):
    install_plugin("fairkit_reweighing", PLUGIN)


def _metric_names():
    from fairkit.audit import _fairness_metrics

    return {name for name, metric in _fairness_metrics().items()}


def _tables(out):
    """The console's text tables, by the line above each: a list of rows, each a dict of header to cell
    (the columns are read from the rule under the headers; a label left blank below itself is filled in)."""
    lines, tables = out.splitlines(), {}
    for i, rule in enumerate(lines):
        if not rule or set(rule) != {"-", " "}:
            continue
        spans = [match.span() for match in re.finditer(r"-+", rule)]
        spans[-1] = (spans[-1][0], None)
        headers, rows = [lines[i - 1][start:end].strip() for start, end in spans], []
        for line in itertools.takewhile(bool, lines[i + 1:]):
            row = [line[start:end].strip() for start, end in spans]
            rows.append(dict(zip(headers, [row[0] or rows[-1][headers[0]], *row[1:]], strict=True)))
        tables[lines[i - 2]] = rows
    return tables


def test_audit_prints_tables_and_writes_a_self_contained_report(synthetic_csv, tmp_path, reweighing, capsys):
    report = tmp_path / "report.html"
    code = main(["audit", str(synthetic_csv), "--target", "income", "--positive-label", ">50K",
                 "--sensitive", "sex", "--method", "ReweighingClassifier", "--out", str(report),
                 "--no-progress"])
    out = capsys.readouterr().out
    assert code == 0
    assert "700 train / 300 test rows" in out
    overall = next(rows for title, rows in _tables(out).items() if title.startswith("value [95% interval]"))
    assert {row["model"] for row in overall} == {"baseline", "ReweighingClassifier"}
    metrics = {row["metric"] for row in overall}
    assert {"accuracy", *_metric_names()} - {"group_summary", "selection_rate"} <= metrics
    assert "By group: ReweighingClassifier" in out
    page = report.read_text()
    assert page.count("src='data:image/png;base64,") == 2
    assert not re.search(r"(src|href)=['\"]https?:", page)  # nothing loaded from elsewhere
    assert "ReweighingClassifier" in page and "&gt;50K" in page


def test_overall_and_by_group_scores_agree(synthetic_frame, reweighing):
    result = audit(synthetic_frame, target="income", sensitive=["sex", "race"], positive_label=">50K",
                   methods=["ReweighingClassifier"], random_state=3)
    assert list(result.overall.columns) == ["baseline", "ReweighingClassifier"]
    assert result.info["n_test"] == 300 and sum(result.info["groups"].values()) == 1000
    for frame in result.by_group.values():  # four intersectional groups, every test row counted once
        assert len(frame) == 4 and frame["count"].sum() == 300
        # accuracy overall is the count-weighted mean of the per-group accuracies
        overall = np.average(frame["accuracy"], weights=frame["count"])
        assert overall in [pytest.approx(v) for v in result.overall.loc["accuracy"]]
    assert result.overall.loc["accuracy", "baseline"] > 0.75


def test_reweighing_narrows_the_selection_rate_gap(synthetic_frame, reweighing):
    result = audit(synthetic_frame, target="income", sensitive="sex", positive_label=">50K",
                   methods=["ReweighingClassifier"])
    gap = result.overall.loc["demographic_parity_difference"]
    assert gap["ReweighingClassifier"] < gap["baseline"]


def test_every_group_metric_comes_with_its_interval_and_noise_floor(synthetic_frame):
    result = audit(synthetic_frame, target="income", sensitive="sex", positive_label=">50K", methods=[],
                   metrics=["demographic_parity_difference", "equalized_odds_difference"])
    column = result.overall["baseline"]
    for name in ("demographic_parity_difference", "equalized_odds_difference"):
        assert column[f"{name}.low"] <= column[name] <= column[f"{name}.high"]
        assert 0 < column[f"{name}.floor"] < 0.3 and 0 <= column[f"{name}.floor_pvalue"] <= 1
    # the baseline selects men far more often (x is shifted for them): a gap an equal-rate rule
    # on 300 test rows does not make
    assert column["demographic_parity_difference"] > column["demographic_parity_difference.floor"]
    assert column["demographic_parity_difference.floor_pvalue"] < 0.01
    assert column["demographic_parity_difference.low"] > 0


def test_groups_too_small_for_the_tolerance_are_named(synthetic_frame):
    frame = synthetic_frame.copy()
    frame.loc[:39, "sex"] = "X"  # 40 rows: about 12 in the test set
    result = audit(frame, target="income", sensitive="sex", positive_label=">50K", methods=[],
                   metrics=["group_summary"])
    table = result.by_group["baseline"]
    assert table.loc["X", "noise_sd"] > 0.05 > table.loc["M", "noise_sd"]
    small = [note for note in result.notes if "too small for a tolerance of 0.05" in note]
    assert len(small) == 1 and "X (SD" in small[0] and "M (SD" not in small[0]
    relaxed = audit(frame, target="income", sensitive="sex", positive_label=">50K", methods=[],
                    metrics=["group_summary"], tolerance=0.5)
    assert not [note for note in relaxed.notes if "too small" in note]
    assert {"selection_rate_low", "selection_rate_high"} <= set(table.columns)


@pytest.mark.parametrize("random_state", [0, 2])  # test rows: a group without positives; no positives
def test_the_noise_sd_of_a_group_without_positives_leaves_out_its_true_positive_rate(random_state):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=400), "group": rng.choice(["a", "b"], 400)})
    frame["y"] = (np.arange(400) < 2).astype(int)  # two positives
    table = audit(frame, target="y", sensitive="group", methods=[], metrics=["group_summary"],
                  random_state=random_state).by_group["baseline"]
    without = table[table["count_positive"] == 0]
    assert len(without) and np.isfinite(table["noise_sd"]).all()

    def sd(rate, count):  # under the pooled rate
        pooled = np.average(table[rate], weights=table[count])
        return np.sqrt(pooled * (1 - pooled) / without[count])

    np.testing.assert_allclose(without["noise_sd"], np.maximum(sd("selection_rate", "count"),
                                                               sd("false_positive_rate", "count_negative")))


def test_tolerance_must_be_a_fraction(synthetic_csv, capsys):
    assert "--tolerance must be between 0 and 1, got 1.5" in _bad(
        [str(synthetic_csv), "--target", "income", "--positive-label", ">50K", "--sensitive", "sex",
         "--tolerance", "1.5"], capsys)


BROKEN_METHOD = '''
from sklearn.base import BaseEstimator, ClassifierMixin

from fairkit import hookimpl


class BrokenClassifier(ClassifierMixin, BaseEstimator):
    def fit(self, X, y, *, sensitive_features=None):
        raise RuntimeError("diverged")


@hookimpl
def fairkit_estimators():
    return [BrokenClassifier]
'''


def test_a_failing_method_is_reported_and_exits_1(synthetic_csv, install_plugin, capsys):
    install_plugin("brokenmethod", BROKEN_METHOD)
    code = main(["audit", str(synthetic_csv), "--target", "income", "--positive-label", ">50K",
                 "--sensitive", "sex", "--method", "BrokenClassifier", "--metric",
                 "demographic_parity_difference", "--no-progress"])
    out = capsys.readouterr().out
    assert code == 1
    assert "BrokenClassifier failed: RuntimeError: diverged" in out
    overall = next(iter(_tables(out).values()))
    dp = "demographic_parity_difference"
    assert [(row["metric"], row["model"]) for row in overall] == [
        ("accuracy", "baseline"), (dp, "baseline"), ("fit and predict seconds", "baseline")]
    assert re.fullmatch(r"0\.\d{3} \[0\.\d{3}, 0\.\d{3}\]", overall[1]["value [95% interval]"])
    assert overall[1]["noise floor"] and overall[1]["p-value"] and not overall[0]["noise floor"]
    assert "By group" not in out  # group_summary, which makes that table, was not asked for


@pytest.fixture
def bars(monkeypatch):
    """tqdm replaced by a bar that counts its steps; the bars the audit makes, in order."""
    made = []

    class Bar:
        def __init__(self, *, total, **kwargs):
            self.total, self.n = total, 0
            made.append(self)

        def update(self, n=1):
            self.n += n

        def set_postfix_str(self, text):
            pass

        def close(self):
            pass

    monkeypatch.setattr("tqdm.tqdm", Bar)
    return made


def test_progress_reaches_its_total_when_a_method_or_a_metric_fails(synthetic_frame, install_plugin,
                                                                   monkeypatch, bars):
    from fairkit.metrics import demographic_parity_difference

    install_plugin("brokenmethod", BROKEN_METHOD)
    def failing_metric(y_true, y_pred, *, sensitive_features):
        raise ValueError("does not apply")

    monkeypatch.setattr("fairkit.audit._fairness_metrics", lambda names: {
        "demographic_parity_difference": demographic_parity_difference, "failing": failing_metric})
    result = audit(synthetic_frame, target="income", sensitive="sex", positive_label=">50K",
                   methods=["BrokenClassifier"], progress=True)
    assert list(result.failures) == ["BrokenClassifier"]
    assert any("metric failing failed" in note for note in result.notes)
    assert [(bar.n, bar.total) for bar in bars] == [(6, 6)]  # 2 models x (1 fit + 2 metrics)


def test_without_fair_methods_only_the_baseline_is_fitted(synthetic_frame):
    result = audit(synthetic_frame, target="income", sensitive="sex", positive_label=">50K", methods=[])
    assert list(result.overall.columns) == ["baseline"]
    assert any("only the baseline" in note for note in result.notes)


def test_writing_the_report_changes_neither_matplotlib_nor_the_result(synthetic_frame, tmp_path,
                                                                     monkeypatch):
    import matplotlib

    result = audit(synthetic_frame, target="income", sensitive="sex", positive_label=">50K", methods=[])
    notes = list(result.notes)
    backend = matplotlib.get_backend()
    matplotlib.use("svg")
    try:
        page = result.write_html(tmp_path / "report.html").read_text()
        assert matplotlib.get_backend() == "svg"
    finally:
        matplotlib.use(backend)
    assert page.count("src='data:image/png;base64,") == 2

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib raises ImportError
    for name in ("first.html", "second.html"):
        page = result.write_html(tmp_path / name).read_text()
        assert "they need matplotlib (pip install &quot;fairkit[plot]&quot;)" in page
    assert result.notes == notes


def _bad(args, capsys):
    code = main(["audit", *args, "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    return err


@pytest.mark.parametrize(("args", "message"), [
    (["--target", "income", "--sensitive", "sex"], "give --positive-label to say which one is positive"),
    (["--target", "x", "--sensitive", "sex"], "give --positive-label to make it binary"),
    (["--target", "salary", "--sensitive", "sex"], "unknown target column 'salary'"),
    (["--target", "income", "--sensitive", "sex,gender", "--positive-label", ">50K"],
     "unknown sensitive column 'gender'"),
    (["--target", "income", "--sensitive", "sex", "--positive-label", "rich"],
     "positive label 'rich' is not"),
    (["--target", "income", "--sensitive", "sex", "--positive-label", ">50K", "--method", "NoSuchMethod"],
     "method 'NoSuchMethod' is not registered"),
    (["--target", "income", "--sensitive", "sex", "--positive-label", ">50K", "--test-size", "1.5"],
     "--test-size must be between 0 and 1"),
    (["--target", "income", "--sensitive", "income", "--positive-label", ">50K"],
     "cannot be both the target and a sensitive column"),
    (["--target", "income", "--sensitive", "sex", "--positive-label", ">50K", "--metric", "fairness"],
     "unknown metric 'fairness'; usable metrics: "),
    (["--target", "income", "--sensitive", "sex", "--positive-label", ">50K", "--param",
      "constrain=equalized_odds"], "--param constrain: RandomizedFairBOC has no parameter 'constrain' (did "
                                   "you mean 'constraint'?); its parameters: estimator, constraint, rates,"),
    (["--target", "income", "--sensitive", "sex", "--positive-label", ">50K", "--param",
      "RandomizedFairBOC.mu=0.9"], "--param RandomizedFairBOC.mu: RandomizedFairBOC has no parameter 'mu'; "),
    (["--target", "income", "--sensitive", "sex", "--positive-label", ">50K", "--param",
      "FairICPClassifier.mu=0.9"], "--param FairICPClassifier.mu: 'FairICPClassifier' is not a chosen "
                                   "method; chosen: RandomizedFairBOC"),
])
def test_bad_input_is_one_line_and_exit_code_2(synthetic_csv, args, message, capsys):
    assert message in _bad([str(synthetic_csv), *args], capsys)


def test_missing_file(tmp_path, capsys):
    assert "file not found" in _bad([str(tmp_path / "nope.csv"), "--target", "y", "--sensitive", "s"], capsys)


def test_group_of_size_one_and_no_report_written(tmp_path, synthetic_frame, capsys):
    frame = synthetic_frame.copy()
    frame.loc[5, "sex"] = "X"
    path = tmp_path / "one.csv"
    frame.to_csv(path, index=False)
    report = tmp_path / "report.html"
    err = _bad([str(path), "--target", "income", "--positive-label", ">50K", "--sensitive", "sex",
                "--out", str(report)], capsys)
    assert "group 'X' of sex has only one row" in err
    assert not report.exists()


def test_a_continuous_sensitive_column_is_named_with_the_advice_to_bin_it(tmp_path, synthetic_frame,
                                                                           capsys):
    frame = synthetic_frame.assign(age=np.linspace(18, 90, len(synthetic_frame)))
    path = tmp_path / "age.csv"
    frame.to_csv(path, index=False)
    err = _bad([str(path), "--target", "income", "--positive-label", ">50K", "--sensitive", "age"], capsys)
    assert f"'age' has {len(frame)} distinct values: bin it into a few groups first" in err


def test_report_folder_must_exist(synthetic_csv, tmp_path, capsys):
    err = _bad([str(synthetic_csv), "--target", "income", "--positive-label", ">50K", "--sensitive", "sex",
                "--out", str(tmp_path / "missing" / "report.html")], capsys)
    assert "does not exist" in err


def test_audit_error_is_a_value_error():
    with pytest.raises(ValueError, match="at least one sensitive column"):
        audit(pd.DataFrame({"y": [0, 1]}), target="y", sensitive=[])
    assert issubclass(AuditError, ValueError)


@pytest.mark.data
@pytest.mark.parametrize(("loader", "sensitive"), [("fetch_adult", "sex,race"), ("fetch_compas", "race")])
def test_audit_on_public_data(loader, sensitive, data_home, tmp_path, capsys):
    from fairkit.registry import all_datasets

    frame = all_datasets()[loader](data_home=data_home, as_frame=True, download_if_missing=False).frame
    frame = frame.sample(n=min(len(frame), 6000), random_state=0)  # a few seconds per audit
    path = tmp_path / f"{loader}.csv"
    frame.to_csv(path, index=False)
    report = tmp_path / "report.html"
    code = main(["audit", str(path), "--target", frame.columns[-1], "--sensitive", sensitive,
                 "--out", str(report), "--no-progress"])
    out = capsys.readouterr().out
    assert code == 0
    n_test = math.ceil(0.3 * len(frame.dropna(subset=[frame.columns[-1], *sensitive.split(",")])))
    assert f"/ {n_test} test rows" in out
    assert "demographic_parity_difference" in out and report.stat().st_size > 10_000


# Bad input (issue 14)

def _audit_args(path, *extra):
    return [str(path), "--target", "income", "--positive-label", ">50K", "--sensitive", "sex", *extra]


def _write(frame, path):
    frame.to_csv(path, index=False)
    return path


def test_group_labels_with_dollar_signs_are_drawn_as_plain_text(synthetic_frame, tmp_path, capsys):
    # as mathtext, '$\frac$' is a syntax error and 'cost $x^$' a superscript of nothing
    frame = synthetic_frame.assign(sex=synthetic_frame["sex"].map({"F": r"$\frac$", "M": "cost $x^$"}))
    report = tmp_path / "report.html"
    code = main(["audit", *_audit_args(_write(frame, tmp_path / "dollars.csv")), "--metric", "group_summary",
                 "demographic_parity_difference", "--out", str(report), "--no-progress"])
    capsys.readouterr()
    assert code == 0
    page = report.read_text()
    assert page.count("src='data:image/png;base64,") == 2 and "cost $x^$" in page


def test_an_infinite_feature_value_is_named_before_fitting(synthetic_frame, tmp_path, capsys, monkeypatch):
    frame = synthetic_frame.copy()
    frame.loc[[3, 8], "x"] = [np.inf, -np.inf]
    monkeypatch.setattr("fairkit.audit._make_method", lambda *args: pytest.fail("fitted bad input"))
    err = _bad(_audit_args(_write(frame, tmp_path / "inf.csv")), capsys)
    assert "feature column 'x' holds 2 infinite values" in err and "replace each with a finite value" in err
    with pytest.raises(AuditError, match="feature column 'x' holds 2 infinite values"):
        audit(frame, target="income", sensitive="sex", positive_label=">50K")


def test_out_that_is_a_folder_is_refused_before_the_audit(synthetic_csv, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("fairkit.audit.audit", lambda *args, **kwargs: pytest.fail("audited before --out"))
    err = _bad(_audit_args(synthetic_csv, "--out", str(tmp_path)), capsys)
    assert f"--out {tmp_path} is a folder; give a file name" in err


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs a user whose permissions apply")
def test_out_in_a_read_only_folder_is_refused_before_the_audit(synthetic_csv, tmp_path, capsys, monkeypatch):
    folder = tmp_path / "read-only"
    folder.mkdir(mode=0o555)
    monkeypatch.setattr("fairkit.audit.audit", lambda *args, **kwargs: pytest.fail("audited before --out"))
    err = _bad(_audit_args(synthetic_csv, "--out", str(folder / "report.html")), capsys)
    assert "no permission to write" in err


def test_out_inside_a_file_is_refused(synthetic_csv, capsys):
    err = _bad(_audit_args(synthetic_csv, "--out", str(synthetic_csv / "report.html")), capsys)
    assert f"{synthetic_csv} is not a folder" in err


def test_a_report_that_cannot_be_written_is_one_line(synthetic_csv, tmp_path, capsys, monkeypatch):
    def disk_full(self, path):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("fairkit.audit.AuditResult.write_html", disk_full)
    err = _bad(_audit_args(synthetic_csv, "--metric", "demographic_parity_difference", "--out",
                           str(tmp_path / "report.html")), capsys)
    assert "cannot write the report" in err and "No space left on device" in err


def test_data_that_is_a_folder(tmp_path, capsys):
    assert f"{tmp_path} is a folder, not a CSV file" in _bad(_audit_args(tmp_path), capsys)


def test_a_single_group_is_refused(synthetic_frame, tmp_path, capsys):
    frame = synthetic_frame.assign(sex="F")
    err = _bad(_audit_args(_write(frame, tmp_path / "one-group.csv")), capsys)
    assert "sex has a single group ('F')" in err


def test_a_single_target_value_is_refused(synthetic_frame, tmp_path, capsys):
    path = _write(synthetic_frame.assign(income=">50K"), tmp_path / "one-class.csv")
    assert "the target has a single value ('>50K')" in _bad(_audit_args(path), capsys)
    without_label = [str(path), "--target", "income", "--sensitive", "sex"]
    assert "the target has a single value ('>50K')" in _bad(without_label, capsys)


@pytest.mark.parametrize("rows", ["none", "all without a target"])
def test_no_usable_rows(synthetic_frame, tmp_path, capsys, rows):
    frame = synthetic_frame.head(0) if rows == "none" else synthetic_frame.assign(income=np.nan)
    err = _bad(_audit_args(_write(frame, tmp_path / "empty.csv")), capsys)
    assert "no rows to audit" in err


# Intervals beside every gap, group labels, method parameters, plots (issue 16)

def test_console_shows_each_gap_with_its_interval_noise_floor_and_pvalue(synthetic_frame):
    result = audit(synthetic_frame, target="income", sensitive="sex", positive_label=">50K", methods=[],
                   metrics=["demographic_parity_difference", "equalized_odds_test"])
    overall = next(iter(_tables(result.to_text()).values()))
    rows = {row["metric"]: row for row in overall}
    numbers = result.overall["baseline"]
    dp = "demographic_parity_difference"
    assert rows[dp]["value [95% interval]"] == (f"{numbers[dp]:.3f} [{numbers[f'{dp}.low']:.3f}, "
                                                f"{numbers[f'{dp}.high']:.3f}]")
    assert rows[dp]["noise floor"] == f"{numbers[f'{dp}.floor']:.3f}"
    assert rows[dp]["p-value"] == f"{numbers[f'{dp}.floor_pvalue']:.3f}"
    # a test: its statistic, and its own p-value in the same column
    test = rows["equalized_odds_test"]
    assert test["value [95% interval]"] == f"{numbers['equalized_odds_test.statistic']:.3f}"
    assert test["p-value"] == f"{numbers['equalized_odds_test.pvalue']:.3f}" and test["noise floor"] == ""
    # for Python users the table stays numeric, a row per number
    assert {f"{dp}.low", f"{dp}.high", f"{dp}.floor"} <= set(result.overall.index)
    assert all(pd.api.types.is_float_dtype(dtype) for dtype in result.overall.dtypes)


def test_group_tables_show_each_rate_with_its_interval_under_joined_labels(synthetic_frame, tmp_path):
    result = audit(synthetic_frame, target="income", sensitive=["sex", "race"], positive_label=">50K",
                   methods=[], metrics=["group_summary"])
    text = result.to_text()
    rows = _tables(text)["By group: baseline"]
    numbers = result.by_group["baseline"]
    assert [row["sex & race"] for row in rows] == [" & ".join(key) for key in numbers.index]
    for row, (_, group) in zip(rows, numbers.iterrows(), strict=True):
        for rate in ("selection_rate", "true_positive_rate", "false_positive_rate"):
            assert row[rate.replace("_", " ")] == (f"{group[rate]:.3f} [{group[f'{rate}_low']:.3f}, "
                                                   f"{group[f'{rate}_high']:.3f}]")
    assert [row["count"] for row in rows] == [str(count) for count in numbers["count"]]
    assert any("F & p (SD" in note for note in result.notes)  # the notes name groups the same way
    assert "('F'" not in text
    page = result.write_html(tmp_path / "report.html").read_text()
    assert "<th>F &amp; p</th>" in page and f"<td>{rows[0]['selection rate']}</td>" in page
    assert isinstance(numbers.index, pd.MultiIndex)  # the numbers keep their index for Python users


def test_plots_label_groups_as_the_tables_do_and_draw_the_intervals(synthetic_frame, tmp_path, monkeypatch):
    from matplotlib.container import BarContainer

    from fairkit import audit as audit_module

    result = audit(synthetic_frame, target="income", sensitive=["sex", "race"], positive_label=">50K",
                   methods=[], metrics=["group_summary"])
    figures = []
    monkeypatch.setattr(audit_module, "_figure_png", lambda figure: figures.append(figure) or "")
    result.write_html(tmp_path / "report.html")
    rates = figures[0].axes[0]
    assert [label.get_text() for label in rates.get_yticklabels()] == ["F & p", "F & q", "M & p", "M & q"]
    bars = next(container for container in rates.containers if isinstance(container, BarContainer))
    assert bars.errorbar is not None  # the selection rate's 95% interval of each group


def test_without_matplotlib_the_console_says_why_the_report_has_no_plots(synthetic_csv, tmp_path, capsys,
                                                                        monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib raises ImportError
    report = tmp_path / "report.html"
    code = main(["audit", *_audit_args(synthetic_csv, "--metric", "demographic_parity_difference", "--out",
                                       str(report), "--no-progress")])
    out = capsys.readouterr().out
    assert code == 0
    assert 'note: the report has no plots: they need matplotlib (pip install "fairkit[plot]")' in out
    page = report.read_text()
    assert "they need matplotlib" in page and "data:image/png" not in page


ECHO_METHOD = '''
from sklearn.base import BaseEstimator, ClassifierMixin

from fairkit import hookimpl


class EchoClassifier(ClassifierMixin, BaseEstimator):
    def __init__(self, constraint="demographic_parity", strength=1.0, note=None):
        self.constraint, self.strength, self.note = constraint, strength, note

    def fit(self, X, y, *, sensitive_features=None):
        raise RuntimeError(", ".join(f"{k}={v!r}" for k, v in self.get_params().items()))


@hookimpl
def fairkit_estimators():
    return [EchoClassifier]
'''


def test_param_sets_the_parameters_of_the_methods_that_take_them(synthetic_csv, install_plugin, capsys):
    install_plugin("echomethod", ECHO_METHOD)
    code = main(["audit", *_audit_args(synthetic_csv), "--method", "RandomizedFairBOC", "EchoClassifier",
                 "--metric", "demographic_parity_difference", "--no-progress",
                 "--param", "constraint=equalized_odds",  # both methods take it
                 "--param", "EchoClassifier.constraint=equal_opportunity",  # but this one only for Echo
                 "--param", "strength=0.5", "--param", "note=a note"])  # a number; text that is no literal
    out = capsys.readouterr().out
    assert code == 1  # EchoClassifier fails on purpose, showing what it was given
    assert ("EchoClassifier failed: RuntimeError: constraint='equal_opportunity', note='a note', "
            "strength=0.5") in out
    assert "RandomizedFairBOC with constraint='equalized_odds'\n" in out
    assert "RandomizedFairBOC failed" not in out


def test_a_parameter_no_chosen_method_takes_names_each_ones_parameters(synthetic_frame, install_plugin):
    install_plugin("echomethod", ECHO_METHOD)
    with pytest.raises(AuditError, match=r"--param strenght: no chosen method has parameter 'strenght' \(did "
                                         r"you mean 'strength'\?\); RandomizedFairBOC takes estimator, .*; "
                                         r"EchoClassifier takes constraint, strength, note$"):
        audit(synthetic_frame, target="income", sensitive="sex", positive_label=">50K",
              methods=["RandomizedFairBOC", "EchoClassifier"], params={"strenght": 2})
    with pytest.raises(AuditError, match="no fair method was chosen"):
        audit(synthetic_frame, target="income", sensitive="sex", positive_label=">50K", methods=[],
              params={"constraint": "equalized_odds"})


def test_an_invalid_parameter_value_is_refused_before_anything_is_fitted(synthetic_csv, capsys, monkeypatch):
    monkeypatch.setattr("fairkit.audit._preprocessor", lambda: pytest.fail("fitted with a bad parameter"))
    err = _bad(_audit_args(synthetic_csv, "--param", "constraint=equalized_odd"), capsys)
    assert "--param: The 'constraint' parameter of RandomizedFairBOC must be a str among" in err
    assert "Got 'equalized_odd' instead" in err


def test_a_param_without_a_value_is_a_usage_error(synthetic_csv, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["audit", *_audit_args(synthetic_csv, "--param", "constraint")])
    assert exit_.value.code == 2
    assert "argument --param: 'constraint' is not NAME=VALUE" in capsys.readouterr().err


def test_help_lists_the_registered_methods_and_their_parameters(install_plugin, capsys):
    install_plugin("brokenmethod", BROKEN_METHOD)  # registered now: the help reads the registry when shown
    install_plugin("echomethod", ECHO_METHOD)
    with pytest.raises(SystemExit) as exit_:
        main(["audit", "--help"])
    assert exit_.value.code == 0
    methods = capsys.readouterr().out.split("their parameters")[1]
    assert "  RandomizedFairBOC: estimator, constraint, rates," in methods
    assert "  BrokenClassifier: (no parameters)" in methods
    assert "  EchoClassifier: constraint, strength, note" in methods


# Checks that plugins register (issue 20: fairkit audit --robustness EPS)

CHECK_PLUGIN = '''
import inspect
import warnings

import numpy as np
import pandas as pd

from fairkit import hookimpl

CALLS = []  # (model class, copies of X, y and the sensitive features, option, random_state, feature_names)


def offset_check(model, X, y, sensitive_features, *, option, random_state, feature_names):
    """Accuracy on the test rows and with every feature shifted by OPTION."""
    CALLS.append((type(model).__name__, X.copy(), y.copy(), sensitive_features.copy(), option, random_state,
                  feature_names))
    kwargs = ({"sensitive_features": sensitive_features}
              if "sensitive_features" in inspect.signature(model.predict).parameters else {})
    warnings.warn("shifted the features", UserWarning)
    table = pd.DataFrame({"offset": [0.0, option],
                          "accuracy": [float(np.mean(model.predict(X + shift, **kwargs) == y))
                                       for shift in (0.0, option)]}).set_index("offset")
    X[:], y[:] = np.nan, 0  # a check gets its own copy: what the audit and the next model see is unchanged
    sensitive_features.iloc[:, 0] = "?"
    return table


def broken_check(model, X, y, sensitive_features, *, option, random_state):
    raise RuntimeError(f"cannot attack a {type(model).__name__}")


@hookimpl
def fairkit_audit_checks():
    return {"offset": offset_check, "broken": broken_check}
'''


@pytest.fixture
def check_plugin(install_plugin):
    install_plugin("checkplug", CHECK_PLUGIN)
    import checkplug

    return checkplug


@pytest.fixture
def no_robustness_plugin(monkeypatch):
    """The registered checks without ``robustness`` (whether or not fairkit-robust is installed)."""
    from fairkit import registry

    registered = registry.all_audit_checks
    monkeypatch.setattr(registry, "all_audit_checks",
                        lambda: {name: check for name, check in registered().items() if name != "robustness"})


def test_a_registered_check_runs_on_every_model_and_its_table_is_reported(synthetic_frame, check_plugin,
                                                                          tmp_path):
    result = audit(synthetic_frame, target="income", sensitive="sex", positive_label=">50K",
                   methods=["RandomizedFairBOC"], metrics=["demographic_parity_difference", "group_summary"],
                   checks={"offset": 0.5}, random_state=3)
    assert [call[0] for call in check_plugin.CALLS] == ["LogisticRegression", "RandomizedFairBOC"]
    for _, X, y, groups, option, random_state, feature_names in check_plugin.CALLS:
        # the preprocessed test features the models predict on, 0/1 labels, the sensitive columns
        assert X.dtype == float and X.shape[0] == 300 and set(np.unique(y)) == {0, 1}
        assert isinstance(groups, pd.DataFrame) and list(groups.columns) == ["sex"] and len(groups) == 300
        assert (option, random_state) == (0.5, 3)
        # asked for by name: which columns are standardized numbers and which one-hot (race is a feature)
        assert feature_names == ["numeric__x", "categorical__job_clerk", "categorical__job_nurse",
                                 "categorical__job_pilot", "categorical__race_p", "categorical__race_q"]
        assert set(np.unique(X[:, 1:])) == {0.0, 1.0}
    assert result.info["checks"] == {"offset": 0.5} and not result.failures
    table = result.checks["offset"]
    assert table.index.names == ["model", "offset"]
    assert list(table.index.unique("model")) == ["baseline", "RandomizedFairBOC"]
    for model in ("baseline", "RandomizedFairBOC"):  # unshifted, the check sees what the audit scored
        assert table.loc[(model, 0.0), "accuracy"] == pytest.approx(result.overall.loc["accuracy", model])
    assert "baseline, offset: UserWarning: shifted the features" in result.notes

    text = result.to_text()
    assert "check offset with option 0.5" in text
    assert text.index("By group: baseline") < text.index("Check offset (option 0.5)")  # after the groups
    rows = _tables(text)["Check offset (option 0.5)"]
    assert [(row["model"], row["offset"]) for row in rows] == [
        ("baseline", "0"), ("baseline", "0.5"), ("RandomizedFairBOC", "0"), ("RandomizedFairBOC", "0.5")]
    assert [row["accuracy"] for row in rows] == [f"{value:.3f}" for value in table["accuracy"]]
    page = result.write_html(tmp_path / "report.html").read_text()
    assert "<h2>Check offset (option 0.5)</h2>" in page
    assert "check offset with option <code>0.5</code>" in page
    assert f"<td>{rows[1]['accuracy']}</td>" in page


def test_a_failing_check_is_reported_and_the_audit_goes_on(synthetic_frame, check_plugin, install_plugin,
                                                         tmp_path, bars):
    install_plugin("brokenmethod", BROKEN_METHOD)
    result = audit(synthetic_frame, target="income", sensitive="sex", positive_label=">50K",
                   methods=["BrokenClassifier"], metrics=["demographic_parity_difference"],
                   checks={"broken": None, "offset": 0.1}, progress=True)
    assert result.failures == {"BrokenClassifier": "RuntimeError: diverged",
                               "baseline broken": "RuntimeError: cannot attack a LogisticRegression"}
    assert list(result.checks) == ["offset"]  # the next check still ran
    assert list(result.checks["offset"].index.unique("model")) == ["baseline"]
    assert list(result.overall.columns) == ["baseline"]
    assert [(bar.n, bar.total) for bar in bars] == [(8, 8)]  # 2 models x (1 fit + 1 metric + 2 checks)
    assert "baseline broken failed: RuntimeError: cannot attack a LogisticRegression" in result.to_text()
    page = result.write_html(tmp_path / "report.html").read_text()
    assert "<b>baseline broken</b>: RuntimeError: cannot attack a LogisticRegression" in page


ODD_CHECKS = """
import pandas as pd

from fairkit import hookimpl


def listed(model, X, y, sensitive_features, *, option, random_state):
    return []


def uneven(model, X, y, sensitive_features, *, option, random_state):  # two index levels, then three
    index = [("a", 1)] if type(model).__name__ == "LogisticRegression" else [("a", 1, 2)]
    return pd.DataFrame({"value": [1.0]}, index=pd.MultiIndex.from_tuples(index))


@hookimpl
def fairkit_audit_checks():
    return {"listed": listed, "uneven": uneven}
"""


def test_a_check_that_returns_no_table_or_tables_that_do_not_fit_together_is_a_failure(synthetic_frame,
                                                                                        install_plugin):
    install_plugin("oddchecks", ODD_CHECKS)
    result = audit(synthetic_frame, target="income", sensitive="sex", positive_label=">50K",
                   methods=["RandomizedFairBOC"], metrics=[], checks={"listed": 1, "uneven": 1})
    uneven = result.failures.pop("uneven")
    assert uneven == "its tables for the models cannot be joined: their indexes have [2, 3] levels"
    no_table = "TypeError: the check returned list, not a DataFrame"
    assert result.failures == {"baseline listed": no_table, "RandomizedFairBOC listed": no_table}
    assert result.checks == {} and list(result.overall.columns) == ["baseline", "RandomizedFairBOC"]


def test_without_checks_the_result_has_none(synthetic_frame):
    result = audit(synthetic_frame, target="income", sensitive="sex", positive_label=">50K", methods=[],
                   metrics=[])
    assert result.checks == {} and result.info["checks"] == {} and "Check " not in result.to_text()


def test_an_unknown_check_is_refused_before_anything_is_fitted(synthetic_frame, check_plugin, monkeypatch):
    monkeypatch.setattr("fairkit.audit._preprocessor", lambda: pytest.fail("fitted with an unknown check"))
    with pytest.raises(AuditError, match=r"^unknown check 'offest' \(did you mean 'offset'\?\); registered "
                                         r"checks: (\w+, )*broken, (\w+, )*offset"):
        audit(synthetic_frame, target="income", sensitive="sex", positive_label=">50K",
              checks={"offset": 0.1, "offest": 0.1})
    with pytest.raises(AuditError, match="checks must be a dict of check name to option, got list"):
        audit(synthetic_frame, target="income", sensitive="sex", positive_label=">50K", checks=["offset"])
    assert check_plugin.CALLS == []


@pytest.mark.usefixtures("no_robustness_plugin")
def test_robustness_without_its_plugin_is_refused_before_any_fit(synthetic_csv, capsys, monkeypatch):
    monkeypatch.setattr("fairkit.audit._preprocessor", lambda: pytest.fail("fitted without the plugin"))
    err = _bad(_audit_args(synthetic_csv, "--robustness", "0.1"), capsys)
    assert ("check 'robustness' is not registered: it comes with a plugin; install it with "
            'pip install "fairkit-robust[nn]"') in err
    with pytest.raises(AuditError, match="check 'robustness' is not registered"):
        audit(synthetic_csv, target="income", sensitive="sex", positive_label=">50K",
              checks={"robustness": 0.1})


def test_check_option_on_the_command_line_runs_the_check(synthetic_csv, check_plugin, capsys):
    code = main(["audit", *_audit_args(synthetic_csv, "--metric", "demographic_parity_difference", "--check",
                                       "offset=0.25", "--no-progress")])
    out = capsys.readouterr().out
    assert code == 0
    assert [row["offset"] for row in _tables(out)["Check offset (option 0.25)"]] == ["0", "0.25", "0", "0.25"]
    assert [call[4] for call in check_plugin.CALLS] == [0.25, 0.25]  # read as a number, like --param
    code = main(["audit", *_audit_args(synthetic_csv, "--metric", "demographic_parity_difference", "--check",
                                       "broken=x", "--no-progress")])
    out = capsys.readouterr().out
    assert code == 1  # a failed check fails the command, as a failed method does
    assert "baseline broken failed: RuntimeError: cannot attack a LogisticRegression" in out


def test_robustness_and_check_robustness_together_are_refused(synthetic_csv, capsys, monkeypatch):
    monkeypatch.setattr("fairkit.audit.audit", lambda *args, **kwargs: pytest.fail("audited"))
    err = _bad(_audit_args(synthetic_csv, "--robustness", "0.1", "--check", "robustness=0.2"), capsys)
    assert "give --robustness EPS or --check robustness=EPS, not both" in err


def test_abstain_without_its_plugin_is_refused_before_any_fit(synthetic_csv, capsys, monkeypatch):
    from fairkit import registry

    registered = registry.all_audit_checks
    monkeypatch.setattr(registry, "all_audit_checks",  # as where fairkit-uncertainty is not installed
                        lambda: {name: check for name, check in registered().items() if name != "abstain"})
    monkeypatch.setattr("fairkit.audit._preprocessor", lambda: pytest.fail("fitted without the plugin"))
    err = _bad(_audit_args(synthetic_csv, "--abstain", "0.8"), capsys)
    assert ("check 'abstain' is not registered: it comes with a plugin; install it with "
            "pip install fairkit-uncertainty") in err
    with pytest.raises(AuditError, match="check 'abstain' is not registered"):
        audit(synthetic_csv, target="income", sensitive="sex", positive_label=">50K", checks={"abstain": 0.8})


def test_abstain_and_check_abstain_together_are_refused(synthetic_csv, capsys, monkeypatch):
    monkeypatch.setattr("fairkit.audit.audit", lambda *args, **kwargs: pytest.fail("audited"))
    err = _bad(_audit_args(synthetic_csv, "--abstain", "0.8", "--check", "abstain=0.9"), capsys)
    assert "give --abstain COVERAGE or --check abstain=COVERAGE, not both" in err


# Target data for the checks that compare two domains (issue 22: fairkit audit --target-csv)

TARGET_CHECKS = '''
import numpy as np
import pandas as pd

from fairkit import hookimpl

CALLS = []  # (check, model class, the keywords it got: copies of the target data's fields)


def _copy(target):
    return None if target is None else {key: getattr(value, "copy", lambda: value)() for key, value in
                                        target.items()}


def domains_check(model, X, y, sensitive_features, *, option, random_state, target=None):
    """Rows of each domain."""
    CALLS.append(("domains", type(model).__name__, X.copy(), _copy(target)))
    if target is None:
        raise ValueError("the domains check needs target data")
    table = pd.DataFrame({"source": [len(X)], "target": [len(target.X)]})
    target.X[:], target.y[:] = np.nan, 0  # a check gets its own copy
    target.sensitive_features.iloc[:, 0] = "?"
    return table


def plain_check(model, X, y, sensitive_features, *, option, random_state):
    CALLS.append(("plain", type(model).__name__, None, None))
    return pd.DataFrame({"rows": [len(y)]})


def open_check(model, X, y, sensitive_features, **kwargs):
    CALLS.append(("open", type(model).__name__, None, sorted(kwargs)))
    return pd.DataFrame({"rows": [len(y)]})


@hookimpl
def fairkit_audit_checks():
    return {"domains": domains_check, "plain": plain_check, "open": open_check}
'''


@pytest.fixture
def target_checks(install_plugin):
    install_plugin("targetchecks", TARGET_CHECKS)
    import targetchecks

    return targetchecks


def test_the_target_data_reaches_the_checks_that_name_it_preprocessed_as_the_source(synthetic_frame,
                                                                                  target_checks, tmp_path):
    shuffled = synthetic_frame.sample(frac=1.0, random_state=1)  # the same rows, in another order
    result = audit(synthetic_frame, target="income", sensitive="sex", positive_label=">50K",
                   methods=["RandomizedFairBOC"], metrics=[], checks={"domains": 1, "plain": 1, "open": 1},
                   target_data=shuffled)
    assert not result.failures
    calls = {(check, model): (X, target) for check, model, X, target in target_checks.CALLS}
    assert set(calls) == {(check, model) for check in ("domains", "plain", "open")
                          for model in ("LogisticRegression", "RandomizedFairBOC")}  # plain ran without it
    assert calls["open", "LogisticRegression"][1] == ["feature_names", "option", "random_state", "target"]
    for model in ("LogisticRegression", "RandomizedFairBOC"):  # the second model's copy is untouched too
        X, target = calls["domains", model]
        assert set(target) == {"X", "y", "sensitive_features", "feature_names"}
        assert target["X"].shape == (1000, 6) and not np.isnan(target["X"]).any()
        # transformed by the preprocessing fitted on the source's training rows: every held-out source row
        # is one of the target's rows, which it would not be if the target had been standardized anew
        assert {tuple(row) for row in X} <= {tuple(row) for row in target["X"]}
        assert target["y"].tolist() == (shuffled["income"] == ">50K").astype(int).tolist()
        assert target["sensitive_features"]["sex"].tolist() == shuffled["sex"].tolist()
        assert target["feature_names"] == ["numeric__x", "categorical__job_clerk", "categorical__job_nurse",
                                           "categorical__job_pilot", "categorical__race_p",
                                           "categorical__race_q"]
    assert result.checks["domains"].to_dict("list") == {"source": [300, 300], "target": [1000, 1000]}
    assert (result.info["target_source"], result.info["n_target_rows"]) == ("a DataFrame", 1000)
    assert "target data: a DataFrame (1000 rows)" in result.to_text()
    page = result.write_html(tmp_path / "report.html").read_text()
    assert "<li>target data: a DataFrame (1000 rows)</li>" in page


def test_without_target_data_a_check_that_names_it_gets_none(synthetic_frame, target_checks):
    result = audit(synthetic_frame, target="income", sensitive="sex", positive_label=">50K", methods=[],
                   metrics=[], checks={"domains": 1, "open": 1})
    assert result.failures == {"baseline domains": "ValueError: the domains check needs target data"}
    assert [target for check, _, _, target in target_checks.CALLS if check == "domains"] == [None]
    assert "target_source" not in result.info and "target data:" not in result.to_text()


def test_a_target_file_is_recorded_with_its_rows_and_rows_without_a_label_are_left_out(
        synthetic_frame, target_checks, tmp_path):
    frame = synthetic_frame.copy()
    frame.loc[:9, "income"] = np.nan
    path = _write(frame, tmp_path / "later.csv")
    result = audit(synthetic_frame, target="income", sensitive="sex", positive_label=">50K", methods=[],
                   metrics=[], checks={"domains": 1}, target_data=path)
    assert (result.info["target_source"], result.info["n_target_rows"]) == (str(path), 1000)
    assert result.checks["domains"]["target"].tolist() == [990]
    assert "10 rows of the target data with a missing target or sensitive value were left out" in result.notes


def test_target_data_without_a_check_that_uses_it_is_noted(synthetic_frame, target_checks):
    result = audit(synthetic_frame, target="income", sensitive="sex", positive_label=">50K", methods=[],
                   metrics=[], checks={"plain": 1}, target_data=synthetic_frame)
    assert any(note.startswith("target data was given, but no check asked for compares the domains")
               for note in result.notes)


def _changed(frame, **changes):
    """A copy of ``frame`` with columns set (a value or a function of the frame) or dropped (None)."""
    frame = frame.copy()
    for column, change in changes.items():
        if change is None:
            frame = frame.drop(columns=column)
        else:
            frame[column] = change(frame) if callable(change) else change
    return frame


@pytest.mark.parametrize(("changes", "message"), [
    ({"job": None}, "the target data lacks the feature column(s) 'job'; both tables need the same columns "
                    "(the source's features: 'x', 'job', 'race')"),
    ({"zip": "02139"}, "the target data has the column(s) 'zip' that the source has not"),
    ({"job": None, "zip": 1}, "lacks the feature column(s) 'job' and has the column(s) 'zip'"),
    ({"income": None}, "unknown target column 'income'; the file has columns"),
    ({"sex": None}, "unknown sensitive column 'sex'"),
    ({"income": lambda f: f["income"].where(f.index > 0, "unknown")},
     "the target column 'income' of the target data holds 'unknown', which the source does not (its "
     "values: "),
    ({"income": "<=50K"}, "every row of the target data is negative (positive label '>50K'); comparing the "
                          "domains needs rows of both classes"),
    ({"x": lambda f: f["x"].astype(str)}, "column(s) 'x' hold numbers in one table and text in the other"),
    ({"x": lambda f: f["x"].where(f.index > 0, np.inf)}, "feature column 'x' holds 1 infinite value"),
    ({"income": np.nan}, "no rows to compare: every row of the target data has a missing target or "
                         "sensitive value"),
])
def test_target_data_that_differs_from_the_source_is_refused_before_anything_is_fitted(
        synthetic_frame, changes, message, monkeypatch):
    monkeypatch.setattr("fairkit.audit._preprocessor", lambda: pytest.fail("fitted with bad target data"))
    with pytest.raises(AuditError, match=f"^--target-csv: .*{re.escape(message)}"):
        audit(synthetic_frame, target="income", sensitive="sex", positive_label=">50K",
              target_data=_changed(synthetic_frame, **changes))


@pytest.mark.parametrize(("labels", "message"), [
    ([0, 1, 2], "holds 2, which the source does not (its values: 0, 1)"),  # not binary
    ([-1, 1], "holds -1, which the source does not (its values: 0, 1)"),  # another encoding
])
def test_target_labels_must_be_the_sources(synthetic_frame, labels, message):
    source = synthetic_frame.assign(income=(synthetic_frame["income"] == ">50K").astype(int))
    target = source.assign(income=np.resize(labels, len(source)))
    with pytest.raises(AuditError, match=re.escape(message)):
        audit(source, target="income", sensitive="sex", target_data=target)


def test_a_missing_target_file_is_one_line_naming_the_option(synthetic_csv, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("fairkit.audit._preprocessor", lambda: pytest.fail("fitted without the target file"))
    err = _bad(_audit_args(synthetic_csv, "--target-csv", str(tmp_path / "nowhere.csv")), capsys)
    assert f"fairkit audit: --target-csv: file not found: {tmp_path / 'nowhere.csv'}" in err


@pytest.fixture
def no_shift_plugin(monkeypatch):
    """The registered checks without ``shift`` (whether or not fairkit-shift is installed)."""
    from fairkit import registry

    registered = registry.all_audit_checks
    monkeypatch.setattr(registry, "all_audit_checks",
                        lambda: {name: check for name, check in registered().items() if name != "shift"})


@pytest.mark.usefixtures("no_shift_plugin")
def test_target_csv_without_the_shift_plugin_names_what_to_install(synthetic_csv, capsys, monkeypatch):
    monkeypatch.setattr("fairkit.audit._preprocessor", lambda: pytest.fail("fitted without the plugin"))
    err = _bad(_audit_args(synthetic_csv, "--target-csv", str(synthetic_csv)), capsys)
    assert ("check 'shift' is not registered: it comes with a plugin; install it with pip install "
            "fairkit-shift") in err


def test_target_categories_unseen_in_training_are_noted_and_encoded_as_none(synthetic_frame, target_checks):
    later = synthetic_frame.copy()
    later.loc[:4, "job"] = "astronaut"
    later.loc[5:6, "job"] = "diver"
    later["race"] = np.nan  # an empty column is neither numbers nor text: imputed as in the source
    result = audit(synthetic_frame, target="income", sensitive="sex", positive_label=">50K", methods=[],
                   metrics=[], checks={"domains": 1}, target_data=later)
    assert not result.failures
    assert ("the target data's column 'job' has categories that the source's training rows have not: "
            "'astronaut' (5 rows), 'diver' (2 rows); they are encoded as none of the source's categories "
            "(all zeros)") in result.notes
    (_, _, _, target), = target_checks.CALLS
    job = target["X"][:, 1:4]  # categorical__job_clerk, _nurse, _pilot
    assert (job[:7] == 0).all() and (job[7:].sum(axis=1) == 1).all()
    race = target["X"][:, 4:]  # every row gets the source's most frequent race, one-hot
    assert (race.sum(axis=1) == 1).all() and len({tuple(row) for row in race}) == 1
