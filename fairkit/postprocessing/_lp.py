"""The fair Bayes-optimal problems as linear programs, solved by HiGHS (``scipy.optimize.linprog``).

* :func:`lp_rates` — one variable ``f_b ∈ [0, 1]`` per block of positive cost plus the
  window's lower end ``L``: maximize ``Σ_b gain_b f_b`` subject to
  ``L ≤ r_a ≤ L + δ`` for every group. The generic check of the sweep (``solver="lp"``).
* :func:`lp_equalized_odds` — equalized odds, beyond the paper: each group mixes its
  threshold rules (weights ``λ`` over the knots of its ROC curve, from the rule
  predicting 0 everywhere to the one predicting 1); the groups' false and true positive
  rates must each lie in a window of width δ. Rates and gain are linear in ``λ``, so this
  is an LP with one column per block, solved by column generation so that HiGHS only
  ever sees a few hundred of them.

Both use the dual simplex, so the solution is a vertex.
"""

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from fairkit.postprocessing._curves import position

__all__ = ["lp_equalized_odds", "lp_rates"]

#: HiGHS's tightest feasibility tolerances: its default (1e-7) let the rates of a group with
#: scores near 0 or 1 leave the tolerance window by 6e-8.
HIGHS_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


def _solve(c, A_ub, b_ub, A_eq=None, b_eq=None, bounds=None):
    result = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds,
                     method="highs-ds", options=HIGHS_OPTIONS)
    if result.status != 0:  # the problems are feasible and bounded by construction
        raise RuntimeError(f"HiGHS failed on the fair Bayes-optimal LP: {result.message}")
    return result


def _window_rows(group_of_column, coefficients, n_groups, n_columns, window_column, delta):
    """Rows ``L − r_a ≤ 0`` and ``r_a − L ≤ δ`` with ``r_a = Σ coefficients`` over the group's columns."""
    columns = np.arange(len(group_of_column))
    rate = sparse.csr_matrix((coefficients, (group_of_column, columns)), shape=(n_groups, n_columns))
    window = sparse.csr_matrix((np.ones(n_groups), (np.arange(n_groups), np.full(n_groups, window_column))),
                               shape=(n_groups, n_columns))
    A_ub = sparse.vstack([window - rate, rate - window]).tocsr()
    b_ub = np.concatenate([np.zeros(n_groups), np.full(n_groups, delta)])
    return A_ub, b_ub


def lp_rates(curves, delta):
    """Solve the randomized problem as an LP over blocks; return one ``(k, phi)`` per group."""
    sizes = [len(c.x) - 1 for c in curves]
    n_blocks = sum(sizes)
    group_of_block = np.repeat(np.arange(len(curves)), sizes)
    rate_step = np.concatenate([np.diff(c.x) for c in curves])
    gain_step = np.concatenate([np.diff(c.y) for c in curves])
    A_ub, b_ub = _window_rows(group_of_block, rate_step, len(curves), n_blocks + 1, n_blocks, delta)
    bounds = [(0.0, 1.0)] * n_blocks + [(0.0, max(0.0, 1.0 - delta))]
    f = _solve(-np.append(gain_step, 0.0), A_ub, b_ub, bounds=bounds).x
    rates = np.bincount(group_of_block, weights=rate_step * f[:n_blocks], minlength=len(curves))
    return [position(c, rate) for c, rate in zip(curves, rates, strict=True)]


def lp_equalized_odds(knots, delta, n_initial=64, max_rounds=1000):
    """Best mixture of group threshold rules under equalized odds, by column generation.

    The LP has a column per ROC knot (per block). HiGHS solves it on a few knots per
    group; pricing every knot against the duals (one vectorized pass) adds each
    group's most improving knot, until none improves: the LP optimum over all knots.

    Parameters
    ----------
    knots : list of (ndarray, ndarray, ndarray)
        Per group, the false positive rate, true positive rate and gain of each of its
        threshold rules (knot ``j``: the ``j`` highest-scoring blocks predicted 1).
    delta : float
        Largest allowed difference between two groups' false (and true) positive rates.
    n_initial : int, default=64
        Knots per group in the first restricted LP (evenly spaced, plus both ends and the peak).
    max_rounds : int, default=1000
        Bound on the pricing rounds (each adds at least one knot; tens suffice in practice).

    Returns
    -------
    mixtures : list of (ndarray of int, ndarray)
        Per group, the knots the optimum mixes (increasing) and their weights, a vertex
        of the LP: at most three knots per group.
    """
    sizes = np.array([len(fpr) for fpr, _, _ in knots])
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    group_of = np.repeat(np.arange(len(knots)), sizes)
    fpr, tpr, gain = (np.concatenate(column) for column in zip(*knots, strict=True))
    active = np.zeros(len(fpr), dtype=bool)
    for a, (_, _, group_gain) in enumerate(knots):
        picks = np.linspace(0, sizes[a] - 1, min(n_initial, sizes[a])).round().astype(int)
        active[offsets[a] + np.append(picks, np.argmax(group_gain))] = True
    for _ in range(max_rounds):
        columns = np.flatnonzero(active)
        weights, duals_eq, duals_ub = _restricted_equalized_odds(
            fpr[columns], tpr[columns], gain[columns], group_of[columns], len(knots), delta)
        y_eq = duals_eq[group_of]
        y_fpr = duals_ub[len(knots):2 * len(knots)] - duals_ub[:len(knots)]
        y_tpr = duals_ub[3 * len(knots):] - duals_ub[2 * len(knots):3 * len(knots)]
        reduced = -gain - y_eq - fpr * y_fpr[group_of] - tpr * y_tpr[group_of]
        reduced[active] = 0.0
        best = np.array([lo + np.argmin(reduced[lo:hi])
                         for lo, hi in zip(offsets[:-1], offsets[1:], strict=True)])
        best = best[reduced[best] < -1e-12]
        if not len(best):
            break
        active[best] = True
    used = weights > 0
    columns, weights = columns[used], weights[used]
    group = group_of[columns]
    return [(columns[group == a] - offsets[a], weights[group == a]) for a in range(len(knots))]


def _restricted_equalized_odds(fpr, tpr, gain, group_of_column, n_groups, delta):
    """The equalized-odds LP on some knots: their weights and the duals of its rows."""
    n_columns = len(fpr) + 2  # the λ of every knot, then the windows' lower ends
    A_fpr, b_fpr = _window_rows(group_of_column, fpr, n_groups, n_columns, n_columns - 2, delta)
    A_tpr, b_tpr = _window_rows(group_of_column, tpr, n_groups, n_columns, n_columns - 1, delta)
    A_eq = sparse.csr_matrix((np.ones(len(fpr)), (group_of_column, np.arange(len(fpr)))),
                             shape=(n_groups, n_columns))
    top = max(0.0, 1.0 - delta)
    result = _solve(-np.append(gain, [0.0, 0.0]), sparse.vstack([A_fpr, A_tpr]),
                    np.concatenate([b_fpr, b_tpr]), A_eq, np.ones(n_groups),
                    [(0.0, None)] * len(fpr) + [(0.0, top), (0.0, top)])
    return np.clip(result.x[:-2], 0.0, None), result.eqlin.marginals, result.ineqlin.marginals
