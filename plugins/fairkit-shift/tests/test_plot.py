"""The plot of the subgroups' losses: one point and interval per subgroup and domain."""

import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError

from fairkit_shift._plot import plot_subgroup_losses
from fairkit_shift._rules import fit_rule, subgroup_losses

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

Z = 1.959963984540054  # the 97.5 % normal quantile


class Fitted:
    """Stands in for a fitted diagnoser: what the plot reads."""

    def __init__(self, table):
        self.subgroup_losses_ = table


class Unfitted:
    pass


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def table():
    return pd.DataFrame({
        "decomposition": ["all", "all", "covariate", "covariate", "outcome", "outcome"],
        "subgroup": ["overall", "overall", "x1 > 1.3", "x1 > 1.3", "x3 <= 0.5 (or missing)",
                     "x3 <= 0.5 (or missing)"],
        "domain": ["source", "target"] * 3,
        "mean_loss": [0.10, 0.12, 0.20, 0.35, 0.15, 0.30],
        "std_error": [0.01, 0.02, 0.03, 0.04, 0.05, np.nan],
        "n": [2000, 2000, 200, 300, 150, 1]})


def test_one_point_and_one_interval_per_subgroup_and_domain():
    ax = plot_subgroup_losses(Fitted(table()))
    assert [label.get_text() for label in ax.get_yticklabels()] == [
        "overall", "covariate: x1 > 1.3", "outcome: x3 <= 0.5 (or missing)"]
    source, target = ax.containers
    assert [source.get_label(), target.get_label()] == ["source", "target"]
    for container, rows, offset in ((source, slice(0, None, 2), -0.15), (target, slice(1, None, 2), 0.15)):
        expected = table().iloc[rows]
        points = container.lines[0]
        np.testing.assert_allclose(points.get_xdata(), expected["mean_loss"])
        np.testing.assert_allclose(points.get_ydata(), np.arange(3) + offset)
        (bars,) = container.lines[2]
        drawn = [len(segment) > 0 for segment in bars.get_segments()]
        # the outcome subgroup has one target row: no interval there
        assert drawn == [True, True, container is source]
        segments = np.array([segment for segment in bars.get_segments() if len(segment)])  # (bar, end, xy)
        expected = expected[drawn]
        np.testing.assert_allclose(segments[:, 0, 0], expected["mean_loss"] - Z * expected["std_error"])
        np.testing.assert_allclose(segments[:, 1, 0], expected["mean_loss"] + Z * expected["std_error"])
        np.testing.assert_allclose(segments[:, :, 1], (np.arange(3) + offset)[drawn, None].repeat(2, axis=1))


def test_the_plot_draws_on_the_given_axes():
    _, ax = plt.subplots()
    assert plot_subgroup_losses(Fitted(table()), ax=ax) is ax
    assert len(ax.containers) == 2


def test_the_plot_of_real_rules():
    rng = np.random.default_rng(0)
    X_source, X_target = rng.normal(size=(600, 2)), rng.normal(0.5, 1, size=(600, 2))
    rule = fit_rule(X_source, X_source[:, 0] > 0.5, decomposition="covariate", min_prevalence=0.05,
                    random_state=0)
    losses = subgroup_losses([rule], X_source, rng.random(600), X_target, rng.random(600))
    ax = plot_subgroup_losses(Fitted(losses))
    assert [label.get_text() for label in ax.get_yticklabels()] == ["overall", f"covariate: {rule.text}"]
    assert all(len(container.lines[0].get_xdata()) == 2 for container in ax.containers)


def test_an_unfitted_diagnoser_is_refused():
    with pytest.raises(NotFittedError, match="This Unfitted is not fitted yet"):
        plot_subgroup_losses(Unfitted())


def test_a_malformed_table_is_refused():
    with pytest.raises(ValueError, match="must be a DataFrame with columns"):
        plot_subgroup_losses(Fitted(table().drop(columns="std_error")))
    doubled = pd.concat([table(), table().iloc[:1]])
    with pytest.raises(ValueError, match="several rows for one subgroup and domain"):
        plot_subgroup_losses(Fitted(doubled))
    other = table().assign(domain=["source", "test"] * 3)
    with pytest.raises(ValueError, match=r"has domains \['test'\]"):
        plot_subgroup_losses(Fitted(other))


def test_without_matplotlib_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)  # import matplotlib.pyplot now fails
    with pytest.raises(ImportError, match=r'pip install "fairkit-shift\[plot\]"'):
        plot_subgroup_losses(Fitted(table()))
