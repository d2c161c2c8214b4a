"""The risk–coverage curves of a selective report as a figure (needs matplotlib)."""

from fairkit_uncertainty._report import OVERALL, SelectiveReport

__all__ = ["plot_risk_coverage"]


def plot_risk_coverage(report, ax=None):
    """Plot selective risk against coverage, overall and for each group, with the operating point marked.

    Needs matplotlib (``pip install "fairkit-uncertainty[plot]"``). The overall curve is black;
    each group's curve has its colour, and the group's coverage and selective risk at the
    operating point are marked on it with their intervals (a flagged group's marker is
    filled red).

    Parameters
    ----------
    report : SelectiveReport
        The result of :func:`selective_report`.
    ax : matplotlib Axes, default=None
        Where to draw; None: a new figure.

    Returns
    -------
    ax : matplotlib Axes

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit_uncertainty import plot_risk_coverage
    >>> from fairkit_uncertainty import selective_report
    >>> rng = np.random.default_rng(0)
    >>> group = np.repeat(["a", "b"], 200)
    >>> report = selective_report(np.ones(400, int), (rng.random(400) < 0.8).astype(int), rng.random(400),
    ...                           sensitive_features=group)
    >>> ax = plot_risk_coverage(report)
    >>> ax.get_legend_handles_labels()[1]
    ['overall (AURC 0.247)', 'a (AURC 0.304)', 'b (AURC 0.192)', 'operating point (coverage 0.80)']
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    if not isinstance(report, SelectiveReport):
        raise TypeError(f"report must be the SelectiveReport that selective_report returns; got "
                        f"{type(report).__name__}.")
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError('plot_risk_coverage needs matplotlib: pip install "fairkit-uncertainty[plot]"'
                          ) from error
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4), layout="constrained")
    curve = report.curve
    overall = curve[curve["group"] == OVERALL]
    ax.plot(overall["achieved_coverage"].to_numpy(), overall["selective_risk"].to_numpy(), color="black",
            marker=".",
            label=f"{OVERALL} (AURC {report.aurc[OVERALL]:.3f})")
    for label, row in report.groups.drop(columns="flagged").astype(float).iterrows():
        rows = curve[curve["group"].map(lambda group, label=label: group == label)]
        (line,) = ax.plot(rows["achieved_coverage"].to_numpy(), rows["selective_risk"].to_numpy(), marker=".",
                          label=f"{_name(label)} (AURC {report.aurc[label]:.3f})")
        risk = 1 - row["selective_accuracy"]
        ax.errorbar(row["coverage"], risk,
                    xerr=[[row["coverage"] - row["coverage_low"]], [row["coverage_high"] - row["coverage"]]],
                    yerr=[[row["selective_accuracy_high"] - row["selective_accuracy"]],
                          [row["selective_accuracy"] - row["selective_accuracy_low"]]],
                    marker="o", markersize=7, color=line.get_color(),
                    markerfacecolor="red" if report.groups.loc[label, "flagged"] else "white", capsize=3)
    ax.axvline(report.operating_coverage, color="grey", linestyle=":", linewidth=1,
               label=f"operating point (coverage {report.operating_coverage:.2f})")
    ax.set_xlabel("coverage (share of rows answered)")
    ax.set_ylabel("selective risk (error rate among answered)")
    ax.set_xlim(0, 1.02)
    ax.legend(fontsize="small")
    ax.set_title(f"markers: the operating point, {report.ci:.0%} intervals"
                 + ("; red: flagged" if report.flagged else ""), fontsize="small")
    return ax


def _name(label):
    """A group's label as text: intersections joined by ' & '."""
    return " & ".join(map(str, label)) if isinstance(label, tuple) else str(label)

