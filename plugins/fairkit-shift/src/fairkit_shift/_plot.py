"""The loss of the detected subgroups in the source and the target domain, with intervals."""

import textwrap

import numpy as np
import pandas as pd
from scipy.stats import norm
from sklearn.exceptions import NotFittedError

from fairkit_shift._rules import SUBGROUP_LOSS_COLUMNS

__all__ = ["plot_subgroup_losses"]

_DOMAINS = (("source", -0.15), ("target", 0.15))


def plot_subgroup_losses(diagnoser, ax=None):
    """Plot the mean loss in source and target, overall and in each detected subgroup, with 95 % intervals.

    The subgroups are the rules of a fitted :class:`SubgroupShiftDiagnoser` (``subgroups_``,
    Singh et al., ICML 2025, arXiv:2506.00756); the losses are those of its ``subgroup_losses_``
    table (the test halves; see :func:`~fairkit_shift._rules.subgroup_losses`), shown as points
    with normal intervals mean ± 1.96 standard errors, one row per subgroup. A subgroup with fewer
    than two rows in a domain has no interval (and no point when it is empty).
    Needs matplotlib (``pip install "fairkit-shift[plot]"``).

    Parameters
    ----------
    diagnoser : SubgroupShiftDiagnoser
        A fitted diagnoser.
    ax : matplotlib Axes, default=None
        Where to draw; None: a new figure.

    Returns
    -------
    ax : matplotlib Axes

    Examples
    --------
    >>> import pandas as pd
    >>> from fairkit_shift._plot import plot_subgroup_losses
    >>> class Fitted:  # what a fitted diagnoser exposes
    ...     subgroup_losses_ = pd.DataFrame({
    ...         "decomposition": ["all", "all", "covariate", "covariate"],
    ...         "subgroup": ["overall", "overall", "x1 > 1.3", "x1 > 1.3"],
    ...         "domain": ["source", "target"] * 2, "mean_loss": [0.10, 0.12, 0.20, 0.35],
    ...         "std_error": [0.01, 0.01, 0.03, 0.03], "n": [2000, 2000, 200, 300]})
    >>> ax = plot_subgroup_losses(Fitted())
    >>> [label.get_text() for label in ax.get_yticklabels()]
    ['overall', 'covariate: x1 > 1.3']
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    table = getattr(diagnoser, "subgroup_losses_", None)
    if table is None:
        raise NotFittedError(f"This {type(diagnoser).__name__} is not fitted yet (it has no "
                             "subgroup_losses_): call fit before plot_subgroup_losses.")
    _check_table(table)
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError('plot_subgroup_losses needs matplotlib: pip install "fairkit-shift[plot]"'
                          ) from error
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 1.2 + 0.6 * len(table) / 2), layout="constrained")
    groups = table[["decomposition", "subgroup"]].drop_duplicates()
    keys = pd.MultiIndex.from_frame(groups)
    positions = np.arange(len(keys))
    z = norm.ppf(0.975)
    for domain, offset in _DOMAINS:
        rows = table[table["domain"] == domain].set_index(["decomposition", "subgroup"]).reindex(keys)
        ax.errorbar(rows["mean_loss"].to_numpy(float), positions + offset,
                    xerr=z * rows["std_error"].to_numpy(float), fmt="o", capsize=3, label=domain)
    labels = ["overall" if decomposition == "all" else f"{decomposition}: {subgroup}"
              for decomposition, subgroup in keys]
    ax.set_yticks(positions, labels=[textwrap.fill(label, 40) for label in labels], fontsize="small")
    ax.set_ylim(len(keys) - 0.5, -0.5)  # first subgroup on top
    ax.set_xlabel("mean loss on the test half (95 % interval)")
    ax.legend(title="domain", fontsize="small")
    return ax


def _check_table(table):
    """A ValueError unless ``table`` is a subgroup-loss table with one row per subgroup and domain."""
    if not isinstance(table, pd.DataFrame) or not set(SUBGROUP_LOSS_COLUMNS) <= set(table.columns):
        raise ValueError(f"subgroup_losses_ must be a DataFrame with columns {SUBGROUP_LOSS_COLUMNS} (see "
                         "fairkit_shift._rules.subgroup_losses).")
    unknown = sorted(set(table["domain"]) - {domain for domain, _ in _DOMAINS})
    if unknown:
        raise ValueError(f"subgroup_losses_ has domains {unknown}; only 'source' and 'target' are drawn.")
    if table.duplicated(["decomposition", "subgroup", "domain"]).any():
        raise ValueError("subgroup_losses_ has several rows for one subgroup and domain; give each subgroup "
                         "once (its decomposition and text identify it).")
