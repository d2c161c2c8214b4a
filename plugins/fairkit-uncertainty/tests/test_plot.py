"""plot_risk_coverage: the report's curves drawn, the operating point marked, flagged groups in red."""

import sys

import numpy as np
import pytest

from fairkit_uncertainty._plot import plot_risk_coverage
from fairkit_uncertainty._report import selective_report

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
from matplotlib.colors import to_rgba  # noqa: E402


@pytest.fixture
def report():
    rng = np.random.default_rng(1)
    group = np.repeat(["a", "b"], 300)
    confidence = rng.random(600) - 0.4 * (group == "b")  # b pushed down: flagged
    return selective_report(np.ones(600, int), (rng.random(600) < 0.8).astype(int), confidence,
                            sensitive_features=group, operating_point=0.7)


def test_the_curves_and_the_operating_points_drawn_are_the_reports(report):
    fig, ax = plt.subplots()
    try:
        assert plot_risk_coverage(report, ax=ax) is ax
        handles, labels = ax.get_legend_handles_labels()
        assert labels[:3] == [f"{name} (AURC {report.aurc[name]:.3f})" for name in ("overall", "a", "b")]
        for handle, name in zip(handles[:3], ("overall", "a", "b"), strict=True):
            rows = report.curve[report.curve["group"] == name]
            np.testing.assert_allclose(handle.get_xdata(), rows["achieved_coverage"])
            np.testing.assert_allclose(handle.get_ydata(), rows["selective_risk"])
        markers = [line for line in ax.get_lines() if line.get_marker() == "o"]
        assert len(markers) == 2
        for marker, (_, row) in zip(markers, report.groups.iterrows(), strict=True):
            np.testing.assert_allclose(np.asarray(marker.get_xdata(), float), [row["coverage"]])
            np.testing.assert_allclose(np.asarray(marker.get_ydata(), float), [1 - row["selective_accuracy"]])
            filled = to_rgba(marker.get_markerfacecolor()) == to_rgba("red")
            assert filled == row["flagged"]
        assert report.groups["flagged"].tolist() == [False, True]
        assert labels[-1] == f"operating point (coverage {report.operating_coverage:.2f})"
    finally:
        plt.close(fig)


def test_a_new_figure_without_ax(report):
    ax = plot_risk_coverage(report)
    try:
        assert ax.get_xlabel().startswith("coverage") and "red: flagged" in ax.get_title()
    finally:
        plt.close(ax.figure)


def test_only_a_report_is_plotted(report):
    with pytest.raises(TypeError, match="report must be the SelectiveReport"):
        plot_risk_coverage(report.curve)


def test_without_matplotlib_the_error_names_the_extra(report, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)  # import matplotlib.pyplot fails
    with pytest.raises(ImportError, match=r'pip install "fairkit-uncertainty\[plot\]"'):
        plot_risk_coverage(report)
