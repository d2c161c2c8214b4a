"""Maximin shares of the groups: fractional lower bounds, cheap upper bounds and exact values."""

from dataclasses import dataclass

import numpy as np

from fairkit.exceptions import FairkitWarning
from fairkit.scheduling import _identical, _lp, _milp
from fairkit.scheduling._instance import (
    check_groups_can_run_all_jobs,
    check_processing_times,
    encode_machine_groups,
)
from fairkit.utils._warnings import warn_user

__all__ = ["maximin_shares"]


@dataclass
class ShareBounds:
    """Bounds on every group's maximin share: ``fractional <= lower <= MMS_i <= upper``.

    ``fractional`` is the fractional maximin share ``LB_i``; ``lower`` the best
    lower bound known (``LB_i``, the identical-machine bound, or the MILP's).
    """

    fractional: np.ndarray
    lower: np.ndarray
    upper: np.ndarray

    @property
    def proven(self):
        return self.lower >= self.upper


def share_bounds(P, group, n_groups, *, exact, solver="highs", time_limit=None):
    """Bound the maximin share of every group.

    A group of identical machines gets the bounds of
    :func:`~fairkit.scheduling._identical.share_bounds` (LPT above); its fractional
    share is ``max(longest job, average load)``. Another group gets the fractional
    maximin share (:func:`~fairkit.scheduling._lp.fractional_mms`, the groups' LPs solved
    together by :func:`~fairkit.scheduling._lp.fractional_shares`) below and, only
    with ``exact``, the LST schedule on its ``N`` copies above. With ``exact``, a
    MILP closes the gap (within ``time_limit`` per group).
    """
    fractional, lower, upper = np.empty(n_groups), np.empty(n_groups), np.full(n_groups, np.inf)
    P_groups = [P[:, group == g] for g in range(n_groups)]
    identical = [bool((P_group == P_group[:, :1]).all()) for P_group in P_groups]
    unrelated = [g for g in range(n_groups) if not identical[g]]
    fractional[unrelated] = lower[unrelated] = _lp.fractional_shares([P_groups[g] for g in unrelated],
                                                                     n_groups)
    for g, P_group in enumerate(P_groups):
        n_bins = n_groups * P_group.shape[1]
        if identical[g]:
            sizes = P_group[:, 0]
            fractional[g] = max(sizes.max(), sizes.sum() / n_bins)
            lower[g], upper[g], initial = _identical.share_bounds(sizes, n_bins)
        elif exact:
            initial = _lp.lst_schedule(np.tile(P_group, n_groups))
        if exact:
            solution = _milp.exact_mms(P_group, n_groups, lower=lower[g], initial=initial,
                                       solver=solver, time_limit=time_limit)
            lower[g], upper[g] = max(lower[g], solution.lower_bound), solution.makespan
    return ShareBounds(fractional, lower, upper)


def maximin_shares(P, machine_groups, *, method="bound", solver="highs", time_limit=None):
    """Maximin share of every group of machines, or its fractional lower bound.

    Group ``i`` owns machines ``M_i``; its cost for a set of jobs is their optimal
    makespan on ``M_i``. Its maximin share ``MMS_i`` is the smallest, over all
    partitions of the jobs into ``N`` bundles, of its largest bundle cost: the
    optimal makespan of all jobs on ``N`` copies of ``M_i`` (Li, Wang, Shiji, ICML 2025).

    Parameters
    ----------
    P : array-like of shape (n_jobs, n_machines)
        Processing times ``>= 0``, ``inf`` where a machine cannot run a job.
    machine_groups : int or array-like of shape (n_machines,)
        Group label of every machine, or a number of groups ``N`` (the machines
        are then split into ``N`` contiguous blocks).
    method : {"bound", "exact"}, default="bound"
        ``"bound"``: the fractional maximin share ``LB_i <= MMS_i``, the smallest
        ``T`` for which the pruned assignment LP on ``N`` copies of ``M_i`` is
        feasible, found exactly over the breakpoints of the pruning (polynomial).
        ``"exact"``: ``MMS_i`` by mixed-integer programming (exponential in the
        worst case; for small instances).
    solver : {"highs", "cbc"}, default="highs"
        MILP solver of ``method="exact"``: HiGHS through SciPy or CBC through PuLP.
    time_limit : float, default=None
        Seconds per group for ``method="exact"``. If reached, a
        :class:`~fairkit.exceptions.FairkitWarning` is emitted and the best proven
        lower bound is returned for that group.

    Returns
    -------
    shares : ndarray of shape (n_groups,)
        One value per group, in the order of the sorted group labels.

    Examples
    --------
    Two groups: machines 0 and 1 form group 0, machine 2 group 1.

    >>> import numpy as np
    >>> from fairkit.scheduling import maximin_shares
    >>> P = np.array([[4, 4, 2], [4, 4, 2], [2, 2, 1], [2, 2, 1]])
    >>> maximin_shares(P, [0, 0, 1], method="exact")
    array([4., 3.])
    """
    if method not in ("bound", "exact"):
        raise ValueError(f"method must be 'bound' or 'exact', got {method!r}.")
    if solver not in ("highs", "cbc"):
        raise ValueError(f"solver must be 'highs' or 'cbc', got {solver!r}.")
    P = check_processing_times(P)
    labels, group = encode_machine_groups(machine_groups, P.shape[1])
    check_groups_can_run_all_jobs(P, group, labels)
    bounds = share_bounds(P, group, labels.size, exact=method == "exact", solver=solver,
                          time_limit=time_limit)
    if method == "bound":
        return bounds.fractional
    warn_unproven(bounds, labels)
    return bounds.lower


def warn_unproven(bounds, labels):
    """Warn about the groups whose maximin share the time limit left unproven."""
    if not bounds.proven.all():
        unproven = [str(label) for label in labels[~bounds.proven]]
        warn_user(f"The time limit stopped the MILP before it proved the maximin share of "
                      f"group(s) {', '.join(unproven)}; their lower bounds are used instead.",
                      FairkitWarning)
