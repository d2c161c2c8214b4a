"""Linear programs of MMS scheduling: the fractional maximin share and the rounding of a vertex.

Both rest on the assignment LP of Lenstra, Shmoys and Tardos (1990) with
parametric pruning: job ``j`` may use machine ``k`` only if ``p[j, k] <= T``.
"""

import numpy as np
from scipy import sparse
from scipy.optimize import linprog
from scipy.sparse.csgraph import connected_components, maximum_bipartite_matching

from fairkit.scheduling._instance import check_processing_times

__all__ = ["fractional_mms", "lp_rounding", "lst_schedule"]

SUPPORT_TOL = 1e-9  # an LP value above this is in the support
IPM_FROM_EDGES = 100_000  # assignment LPs with this many edges go to the interior point method


def _min_max_load(job, machine, weight, n_jobs, n_machines, *, vertex):
    """Solve ``min t`` s.t. ``sum_k x[j,k] = 1`` and ``sum_j weight[j,k] x[j,k] <= t``, x >= 0.

    The variables are the given edges ``(job[e], machine[e])``. From ``IPM_FROM_EDGES``
    edges HiGHS's interior point method with crossover solves it (several times faster
    there); below, its dual simplex. Both return a basic solution, but only the
    simplex's is a vertex by construction: with ``vertex=True`` an interior point
    solution whose support is not a pseudo-forest is solved again by dual simplex.
    Returns ``(t, x)``.

    HiGHS refuses matrix entries above 1e15 ("model error") and drops those below
    1e-9, so the weights are divided by the power of two (exact in floating point)
    that brings the largest into [0.5, 1), and ``t`` is scaled back: any finite
    weights can be solved; weights below about 1e-9 of the largest count as 0.
    """
    n_edges = job.size
    cols = np.arange(n_edges)
    scale = np.ldexp(1.0, np.frexp(weight.max(initial=0.0))[1])
    A_eq = sparse.csr_array((np.ones(n_edges), (job, cols)), shape=(n_jobs, n_edges + 1))
    A_ub = sparse.hstack([
        sparse.csr_array((weight / scale, (machine, cols)), shape=(n_machines, n_edges)),
        sparse.csr_array(-np.ones((n_machines, 1))),
    ], format="csr")
    c = np.zeros(n_edges + 1)
    c[-1] = 1.0
    method = "highs-ipm" if n_edges >= IPM_FROM_EDGES else "highs-ds"
    while True:
        result = linprog(c, A_ub=A_ub, b_ub=np.zeros(n_machines), A_eq=A_eq, b_eq=np.ones(n_jobs),
                         bounds=(0, None), method=method)
        if result.status != 0:  # pragma: no cover - the LP is feasible and bounded by construction
            raise RuntimeError(f"HiGHS failed on the assignment LP: {result.message}")
        x = result.x[:-1]
        support = x > SUPPORT_TOL
        if (not vertex or method == "highs-ds"
                or _is_pseudo_forest(job[support], machine[support], n_jobs, n_machines)):
            return result.x[-1] * scale, x
        method = "highs-ds"


def fractional_mms(P, n_copies):
    """Fractional maximin share: the smallest ``T`` making the pruned LP on ``n_copies`` copies feasible.

    The LP on ``n_copies`` copies of the machines, collapsed by symmetry, is
    ``sum_k z[j,k] = 1``, ``sum_j p[j,k] z[j,k] <= n_copies * T``, with
    ``z[j,k] >= 0`` only where ``p[j,k] <= T``. Its smallest feasible ``T`` is a
    lower bound on the optimal makespan on the copies (the maximin share). Between
    consecutive distinct processing times ``v_s <= T < v_{s+1}`` the pruned edge
    set is fixed, so the smallest feasible ``T`` there is ``max(v_s, tau_s)`` with
    ``tau_s`` the optimum of one LP; ``tau_s`` does not increase with ``s``, so a
    binary search on ``s`` finds the exact minimum with ``O(log)`` LPs (no
    tolerance on ``T``).

    Parameters
    ----------
    P : ndarray of shape (n_jobs, n_machines)
        Processing times, ``inf`` where a machine cannot run a job; every job
        must have a finite time.
    n_copies : int
        Number of copies of the machines (the number of groups ``N``).

    Returns
    -------
    bound : float
    """
    n_jobs, n_machines = P.shape
    job, machine = np.nonzero(np.isfinite(P))
    time = P[job, machine]
    order = np.argsort(time, kind="stable")
    job, machine, time = job[order], machine[order], time[order]
    values = np.unique(time)
    n_edges_upto = np.searchsorted(time, values, side="right")
    first = np.searchsorted(values, P.min(axis=1).max())  # below it some job has no edge
    taus = {}

    def tau(s):  # optimum of the LP with edges p <= values[s]
        if s not in taus:
            e = n_edges_upto[s]
            taus[s] = _min_max_load(job[:e], machine[:e], time[:e] / n_copies, n_jobs,
                                    n_machines, vertex=False)[0]
        return taus[s]

    last = values.size - 1
    if tau(last) > values[last]:
        return float(tau(last))
    lo, hi = first, last  # find the smallest s with tau(s) <= values[s]
    while lo < hi:
        mid = (lo + hi) // 2
        if tau(mid) <= values[mid]:
            hi = mid
        else:
            lo = mid + 1
    below = tau(lo - 1) if lo > first else np.inf
    return float(min(values[lo], below))


def lp_rounding(P, thresholds):
    """Assign jobs to machines with load at most ``2 * thresholds[k]`` on every machine ``k``.

    Solves the combined LP over all machines, with edge ``(j, k)`` present only if
    ``p[j, k] <= thresholds[k]`` and machine loads ``<= lam * thresholds[k]``
    (``lam`` minimised; it is at most 1 whenever each group's threshold is a
    feasible fractional maximin share). A vertex of this LP has a pseudo-forest
    support; jobs it splits are matched to distinct machines, so every machine
    gains at most one job of length ``<= thresholds[k]``.

    Parameters
    ----------
    P : ndarray of shape (n_jobs, n_machines)
    thresholds : ndarray of shape (n_machines,)
        The threshold of each machine (its group's fractional maximin share).

    Returns
    -------
    assignment : ndarray of shape (n_jobs,)
        Machine of every job.
    lam : float
        The LP's largest relative load.
    """
    n_jobs, n_machines = P.shape
    job, machine = np.nonzero(thresholds >= P)  # the pruned edges
    time = P[job, machine]
    scale = thresholds[machine]
    weight = np.divide(time, scale, out=np.zeros_like(time), where=scale > 0)
    if np.bincount(job, minlength=n_jobs).min() == 0:
        raise ValueError("Some job has no machine within its threshold; thresholds must be at "
                         "least the fractional maximin shares.")
    lam, x = _min_max_load(job, machine, weight, n_jobs, n_machines, vertex=True)
    return _round_vertex(job, machine, x, n_jobs, n_machines), float(lam)


def _round_vertex(job, machine, x, n_jobs, n_machines):
    """Round a vertex of the assignment LP: keep integral jobs, match the split ones."""
    support = x > SUPPORT_TOL
    job, machine = job[support], machine[support]
    if not _is_pseudo_forest(job, machine, n_jobs, n_machines):  # dual simplex returns a vertex: never seen
        raise RuntimeError("The LP solution is not a vertex: its support is not a pseudo-forest, "
                           "so the rounding's guarantee would not hold.")
    assignment = np.full(n_jobs, -1)
    degree = np.bincount(job, minlength=n_jobs)
    whole = degree[job] == 1
    assignment[job[whole]] = machine[whole]
    split_jobs, rows = np.unique(job[~whole], return_inverse=True)
    if split_jobs.size:
        graph = sparse.csr_array((np.ones(rows.size), (rows, machine[~whole])),
                                 shape=(split_jobs.size, n_machines))
        match = maximum_bipartite_matching(graph, perm_type="column")
        if (match < 0).any():  # pragma: no cover - impossible for a vertex (LST 1990, Lemma 17.6 of Vazirani)
            raise RuntimeError("No matching covers the jobs split by the LP solution.")
        assignment[split_jobs] = match
    return assignment


def _is_pseudo_forest(job, machine, n_jobs, n_machines):
    """Whether every connected component of the bipartite support has no more edges than vertices."""
    graph = sparse.coo_array((np.ones(job.size), (job, n_jobs + machine)),
                             shape=(n_jobs + n_machines,) * 2)
    _, label = connected_components(graph, directed=False)
    edges = np.bincount(label[job], minlength=label.max() + 1)
    vertices = np.bincount(label)
    return bool((edges <= vertices).all())


def lst_schedule(P):
    """Schedule jobs on unrelated machines within twice the optimal makespan (Lenstra, Shmoys, Tardos 1990).

    Finds the smallest ``T`` for which the pruned assignment LP is feasible (exactly,
    over the breakpoints of the pruning), takes a vertex solution of that LP, keeps
    the jobs it assigns whole and matches each split job to a distinct machine.
    The makespan is at most ``2 T <= 2 OPT``. This is :class:`MMSScheduler` with a
    single group.

    Parameters
    ----------
    P : array-like of shape (n_jobs, n_machines)
        Processing times ``>= 0``, ``inf`` where a machine cannot run a job.

    Returns
    -------
    assignment : ndarray of shape (n_jobs,)
        Machine of every job.

    Examples
    --------
    The unrelated-machine example of fairpy's documentation (here jobs x machines);
    its optimal makespan is 5:

    >>> import numpy as np
    >>> from fairkit.scheduling import lst_schedule
    >>> P = np.array([[10, 5, 7], [10, 2, 5], [1, 6, 6]]).T
    >>> assignment = lst_schedule(P)
    >>> loads = np.bincount(assignment, weights=P[np.arange(3), assignment], minlength=3)
    >>> float(loads.max()) <= 2 * 5
    True
    """
    P = check_processing_times(P)
    bound = fractional_mms(P, 1)
    return lp_rounding(P, np.full(P.shape[1], bound))[0]
