"""The subgroup KL diagnostic: which grouping should a bias-mitigation method be given?

A. Alloula, C. Jones, B. Glocker, B. W. Papież, "Subgroups Matter for Robust Bias
Mitigation", ICML 2025 (arXiv:2505.21363). Mitigation on a grouping G
(resampling, reweighting, GroupDRO) moves the training distribution over the fine cells c
(e.g. label × attribute × artefact) to ``p_w(c) = Σ_g w_g p(c | g)``: within each group the
cells keep their training proportions, and only the groups' masses ``w_g`` change. The
divergence ``KL(target ‖ p_w)`` from the distribution one wants to be robust on (the
balanced one) is their prediction of which grouping helps: lower is better.
"""

import warnings
from collections.abc import Hashable, Mapping

import numpy as np
import pandas as pd
from scipy.special import rel_entr
from sklearn.exceptions import ConvergenceWarning

from fairkit.utils.validation import check_numbers, check_same_index, encode_groups

__all__ = ["subgroup_kl_diagnostic"]

_METHODS = ("resampling", "gdro")
_SUM_TOLERANCE = 1e-6  # how far from 1 a target's (or a membership row's) sum may be
_GAP = 1e-10  # the gdro search stops once the KL is certainly this close to its minimum
_MAX_ITER = 200


def subgroup_kl_diagnostic(cells, groupings, *, target="uniform", method="resampling"):
    """KL divergence between a target cell distribution and the one mitigation on each grouping yields.

    Each grouping G gives the training cells new masses ``p_w(c) = Σ_g w_g p(c | g)``
    with ``p(c | g)`` the training proportions of the cells within group g, and scores
    ``KL(target ‖ p_w) = Σ_c target(c) log(target(c) / p_w(c))``, which Alloula et al.
    (ICML 2025, arXiv:2505.21363) use to predict how well mitigation on each grouping
    generalises to the target (lower is better). It is a what-if tool: it needs the fine
    cells on which the shift happens, which a user must know or posit.

    Parameters
    ----------
    cells : DataFrame of shape (n_cells, n_attributes + 1)
        One row per fine cell: its attribute values (one column each; no two rows alike)
        and a ``count`` column with its number of training samples (non-negative, not all
        0; only proportions matter, so probabilities do too). From samples:
        ``frame.groupby(columns).size().rename("count").reset_index()``, whose rows are
        numbered as ``cell = frame.groupby(columns).ngroup()`` numbers the samples.
    groupings : mapping of name to grouping
        Each grouping is one of:

        - a column label or a list of column labels of ``cells``: its groups are their
          values' combinations (the intersection);
        - a 1-D array or Series of one group label per cell row;
        - a 2-D array or DataFrame of shape (n_cells, n_groups) of memberships: the
          fraction of each cell's training samples in each group (non-negative, rows sum
          to 1; a DataFrame's columns name the groups). This is how groupings that cut
          across cells are written: k random groups (each cell ``1 / k`` in each), each
          group split at random into parts (the paper's ``AY_8``: each AY group's cells
          half in each part), or groups with a fraction ε of labels reassigned at random
          (the paper's noisy AY: ``(1 - ε) [c in g] + ε p(g)``). From samples with group
          labels ``labels``: ``pd.Series(labels).groupby(cell.to_numpy())
          .value_counts(normalize=True).unstack(fill_value=0)``.
    target : "uniform" or array-like of shape (n_cells,), default="uniform"
        The cell distribution to be robust on: uniform over the rows of ``cells``, or
        non-negative probabilities summing to 1.
    method : {"resampling", "gdro"}, default="resampling"
        The group masses ``w``. ``"resampling"`` (and reweighting): ``1 / |G|`` for each
        group with training samples. ``"gdro"`` (the paper's proxy for GroupDRO): the ``w``
        on the simplex that minimises ``KL(target ‖ p_w)``. When each cell lies in one
        group, ``p_w(c) = w_g(c) p(c) / p(g(c))``, so ``KL = const - Σ_g T_g log w_g`` with
        ``T_g`` the target mass of group g, which Gibbs' inequality minimises at
        ``w_g = T_g``: a closed form. With fractional memberships ``p_w`` is a mixture
        of the fixed ``p(· | g)`` and the minimiser is the maximum-likelihood mixture
        proportions (a convex problem without closed form), found by a primal-dual
        interior-point method until ``log max_g Σ_c target(c) p(c | g) / p_w(c)``, a bound
        on the distance to the minimum (Jensen's inequality), is at most 1e-10.

    Returns
    -------
    result : DataFrame indexed by grouping name (index ``grouping``)
        Column ``kl``: ``KL(target ‖ p_w)`` in nats; ``inf`` when the target puts mass on a
        cell without training samples, which no weighting of groups can reach (the
        ``gdro`` weights then minimise the KL over the cells that have samples).
        ``n_groups``: the number of groups with training samples. ``weights``: a dict
        {group label: w_g} over those groups, labels sorted (a value for one column, a
        tuple for several, a membership DataFrame's column names, or positions 0, 1, ...
        of a membership array).

    Raises
    ------
    ValueError
        If ``cells`` lacks a ``count`` column, holds duplicate cells or bad counts; a
        grouping names an unknown column, has the wrong length or bad memberships;
        ``target`` has the wrong length, negative values, does not sum to 1 or puts no
        mass on a cell with training samples; or ``method`` is unknown.

    Examples
    --------
    Label Y and artefact A agree in 90% of the training samples:

    >>> import pandas as pd
    >>> from fairkit_subgroups._kl import subgroup_kl_diagnostic
    >>> cells = pd.DataFrame({"Y": [0, 0, 1, 1], "A": [0, 1, 0, 1], "count": [45, 5, 5, 45]})
    >>> result = subgroup_kl_diagnostic(cells, {"Y": "Y", "AY": ["A", "Y"]})
    >>> result[["kl", "n_groups"]].round(4)  # doctest: +NORMALIZE_WHITESPACE
                  kl  n_groups
    grouping
    Y         0.5108         2
    AY        0.0000         4
    >>> result.loc["Y", "weights"]
    {0: 0.5, 1: 0.5}

    Balancing Y leaves the artefact as predictive as before (0.9 / 0.1 within each label,
    ``KL = log(5 / 1.8) / 2``); balancing A × Y gives the uniform target exactly.
    """
    if not (isinstance(method, str) and method in _METHODS):
        raise ValueError(f"method must be one of {list(_METHODS)}, got {method!r}.")
    training = _check_cells(cells)
    target = _check_target(target, cells, training)
    if not isinstance(groupings, Mapping) or not groupings:
        raise ValueError("groupings must be a non-empty mapping of name to grouping (a column name, a "
                         f"list of column names, labels or memberships), got {groupings!r}.")
    rows = []
    for name, grouping in groupings.items():
        labels, membership = _membership(cells, name, grouping)
        joint = training[:, None] * membership
        group_mass = joint.sum(axis=0)
        present = group_mass > 0
        within = joint[:, present] / group_mass[present]  # p(c | g), one column per group
        if method == "resampling":
            weights = np.full(present.sum(), 1 / present.sum())
        else:
            weights = _gdro_weights(within, membership[:, present], target, training > 0, name)
        rows.append({"kl": float(rel_entr(target, within @ weights).sum()), "n_groups": int(present.sum()),
                     "weights": dict(zip(labels[present].tolist(), weights.tolist(), strict=True))})
    return pd.DataFrame(rows, index=pd.Index(list(groupings), name="grouping"))


def _check_cells(cells):
    """Validate ``cells`` and return the training proportions of its rows."""
    if not isinstance(cells, pd.DataFrame):
        raise TypeError("cells must be a pandas DataFrame with one row per cell (attribute columns and a "
                        f"'count' column), got {type(cells).__name__}.")
    if "count" not in cells.columns:
        raise ValueError(f"cells has no 'count' column (its columns: {list(cells.columns)}); add the "
                         "number of training samples of each cell as 'count'.")
    attributes = cells.columns.drop("count")
    duplicated = cells.duplicated(subset=list(attributes)) if len(attributes) else np.zeros(0, bool)
    if duplicated.any():
        raise ValueError(f"cells holds {int(duplicated.sum())} row(s) that repeat the attribute values of "
                         f"an earlier row, e.g. {cells.loc[duplicated, attributes].iloc[0].to_dict()}; one "
                         "row per cell: sum them, cells.groupby(attribute_columns, as_index=False)['count']"
                         ".sum().")
    counts = check_numbers(cells["count"], input_name="cells['count']", ensure_2d=False,
                           expected="counts must be numbers.")
    if (counts < 0).any():
        raise ValueError(f"cells['count'] holds negative values (the smallest is {counts.min():g}); counts "
                         "are numbers of training samples (or proportions), >= 0.")
    if counts.sum() == 0:
        raise ValueError("cells['count'] is 0 everywhere; give the cells' numbers of training samples.")
    return counts / counts.sum()


def _check_target(target, cells, training):
    """Validate ``target`` and return it as probabilities over the rows of ``cells``."""
    if isinstance(target, str):
        if target != "uniform":
            raise ValueError(f"target must be 'uniform' or an array of cell probabilities, got {target!r}.")
        return np.full(len(cells), 1 / len(cells))
    check_same_index(cells=cells, target=target)
    values = check_numbers(target, input_name="target", ensure_2d=False,
                           expected="target holds one probability per row of cells.")
    if values.shape != (len(cells),):
        raise ValueError(f"target must hold one probability per row of cells ({len(cells)}), got an "
                         f"array of shape {values.shape}.")
    if (values < 0).any():
        raise ValueError(f"target holds negative values (the smallest is {values.min():g}); it must be "
                         "a probability distribution over the cells.")
    if abs(values.sum() - 1) > _SUM_TOLERANCE:
        raise ValueError(f"target must sum to 1 (a distribution over the cells), got a sum of "
                         f"{values.sum():.6g}; divide it by its sum.")
    if values[training > 0].sum() == 0:
        raise ValueError("target puts all its mass on cells with a count of 0, so every grouping's KL is "
                         "infinite; the target must give mass to cells that have training samples.")
    return values / values.sum()


def _membership(cells, name, grouping):
    """The group labels and the (n_cells, n_groups) membership matrix of one grouping."""
    where = f"groupings[{name!r}]"
    if isinstance(grouping, list | Hashable):  # a tuple is hashable; arrays and pandas objects are not
        columns = list(grouping) if isinstance(grouping, list | tuple) else [grouping]
        unknown = [col for col in columns if col not in cells.columns or col == "count"]
        if unknown or not columns:
            attributes = list(cells.columns.drop("count"))
            raise ValueError(f"{where} must name attribute columns of cells ({attributes}), got "
                             f"{grouping!r}. Give per-cell group labels as a numpy array or Series.")
        return _one_hot(cells[columns], where)
    check_same_index(cells=cells, **{where: grouping})
    if isinstance(grouping, pd.DataFrame):
        return np.asarray(grouping.columns, dtype=object), _check_fractions(grouping, len(cells), where)
    values = grouping.to_numpy() if isinstance(grouping, pd.Series) else np.asarray(grouping)
    if values.ndim == 1:
        if len(values) != len(cells):
            raise ValueError(f"{where} holds {len(values)} group labels but cells has {len(cells)} rows; "
                             "give one label per cell.")
        return _one_hot(pd.DataFrame({"group": values}), where)
    if values.ndim != 2:
        raise ValueError(f"{where} must be a column name, a list of column names, 1-D group labels or 2-D "
                         f"memberships; got an array of shape {values.shape}.")
    return np.arange(values.shape[1]), _check_fractions(values, len(cells), where)


def _one_hot(frame, where):
    if frame.isna().any().any():
        raise ValueError(f"{where} holds missing values (NaN or None) in its group labels; every cell "
                         "needs a group.")
    labels, codes = encode_groups(frame, categorical=False)
    membership = np.zeros((len(codes), len(labels)))
    membership[np.arange(len(codes)), codes] = 1.0
    return labels, membership


def _check_fractions(membership, n_cells, where):
    values = check_numbers(membership, input_name=where, expected="memberships are fractions of cells.")
    if values.shape[0] != n_cells:
        raise ValueError(f"{where} has {values.shape[0]} rows but cells has {n_cells}; give one row of "
                         "group memberships per cell.")
    row_sums = values.sum(axis=1)
    if (values < 0).any() or np.abs(row_sums - 1).max() > _SUM_TOLERANCE:
        raise ValueError(f"{where} must hold fractions of each cell in each group: non-negative, each "
                         f"row summing to 1 (its row sums range over [{row_sums.min():.6g}, "
                         f"{row_sums.max():.6g}], its smallest value is {values.min():.6g}).")
    return values / row_sums[:, None]


def _gdro_weights(within, membership, target, seen, name):
    """The group masses ``w`` on the simplex that minimise KL(target ‖ within @ w).

    Only cells with training samples (``seen``) take part: elsewhere the KL is infinite
    whatever ``w``. Each group's target mass is the minimiser when each cell lies in one
    group; otherwise a primal-dual interior-point method solves ``min -Σ_c t_c log(within
    @ w)_c + Σ_g w_g`` over ``w >= 0``, whose minimiser sums to 1: Newton steps on its
    optimality conditions with the complementarity ``w_g z_g`` relaxed to ``mu``.
    """
    cells = seen & (target > 0)
    mass = target[cells] / target[cells].sum()
    within = within[cells]
    weights = mass @ membership[cells]
    if _gap(within, mass, weights) <= _GAP:
        return weights
    n_groups = within.shape[1]
    weights, dual = np.full(n_groups, 1 / n_groups), np.ones(n_groups)
    for _ in range(_MAX_ITER):
        if _gap(within, mass, weights / weights.sum()) <= _GAP:
            break
        mixture = within @ weights
        mu = 0.1 * (weights @ dual) / n_groups
        hessian = within.T @ ((mass / mixture**2)[:, None] * within)
        gradient = 1 - within.T @ (mass / mixture)
        try:
            step = np.linalg.solve(hessian + np.diag(dual / weights), mu / weights - gradient)
        except np.linalg.LinAlgError:  # singular to machine precision: as close as it gets
            break
        dual_step = mu / weights - dual - dual * step / weights
        length = min(_longest_step(weights, step), _longest_step(dual, dual_step))
        weights, dual = weights + length * step, dual + length * dual_step
    weights = weights / weights.sum()
    gap = _gap(within, mass, weights)
    if gap > _GAP:
        warnings.warn(f"The gdro weights of grouping {name!r} did not converge: its KL may lie above the "
                      f"minimum by up to {gap:.2g}.", ConvergenceWarning, stacklevel=3)
    return weights


def _longest_step(values, move):
    """The longest step, at most 1, along ``move`` that keeps ``values`` positive, shortened by 1%."""
    shrinking = move < 0
    return min(1.0, 0.99 * np.min(-values[shrinking] / move[shrinking], initial=np.inf))


def _gap(within, mass, weights):
    """A bound on KL(target ‖ within @ weights) - its minimum, by Jensen's inequality."""
    return np.log(np.max(within.T @ (mass / (within @ weights))))
