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
BATCH_EDGES = 5_000  # small LPs of fractional maximin shares are solved together up to this many edges


def _min_max_load(job, machine, weight, n_jobs, n_machines, *, vertex, machine_block=None):
    """Solve ``min t`` s.t. ``sum_k x[j,k] = 1`` and ``sum_j weight[j,k] x[j,k] <= t``, x >= 0.

    The variables are the given edges ``(job[e], machine[e])``. From ``IPM_FROM_EDGES``
    edges HiGHS's interior point method with crossover solves it (several times faster
    there); below, its dual simplex. Both return a basic solution, but only the
    simplex's is a vertex by construction: with ``vertex=True`` an interior point
    solution whose support is not a pseudo-forest is solved again by dual simplex.
    Returns ``(t, x)``.

    With ``machine_block`` (the block of each machine, no job having edges in two
    blocks), the LP is several independent ones solved as one: machine ``k``'s load is
    at most ``t[machine_block[k]]`` and the sum of the ``t`` is minimised, which
    minimises each; ``t`` is then the array of the blocks' optima.

    HiGHS refuses matrix entries above 1e15 ("model error") and drops those below
    1e-9, so the weights are divided by the power of two (exact in floating point)
    that brings the largest into [0.5, 1), and ``t`` is scaled back: any finite
    weights can be solved; weights below about 1e-9 of the largest count as 0. Each
    block has its own power of two, so blocks of very different scales solved together
    get the answers they get alone.
    """
    n_edges = job.size
    blocks = np.zeros(n_machines, dtype=np.intp) if machine_block is None else machine_block
    n_blocks = blocks.max(initial=0) + 1
    cols = np.arange(n_edges)
    largest = np.zeros(n_blocks)
    np.maximum.at(largest, blocks[machine], weight)
    scale = np.ldexp(1.0, np.frexp(largest)[1])  # each block's own power of two
    A_eq = sparse.csr_array((np.ones(n_edges), (job, cols)), shape=(n_jobs, n_edges + n_blocks))
    A_ub = sparse.hstack([
        sparse.csr_array((weight / scale[blocks[machine]], (machine, cols)), shape=(n_machines, n_edges)),
        sparse.csr_array((-np.ones(n_machines), (np.arange(n_machines), blocks)),
                         shape=(n_machines, n_blocks)),
    ], format="csr")
    c = np.zeros(n_edges + n_blocks)
    c[n_edges:] = 1.0
    method = "highs-ipm" if n_edges >= IPM_FROM_EDGES else "highs-ds"
    while True:
        result = linprog(c, A_ub=A_ub, b_ub=np.zeros(n_machines), A_eq=A_eq, b_eq=np.ones(n_jobs),
                         bounds=(0, None), method=method)
        if result.status != 0:  # pragma: no cover - the LP is feasible and bounded by construction
            raise RuntimeError(f"HiGHS failed on the assignment LP: {result.message}")
        x, t = result.x[:n_edges], result.x[n_edges:] * scale
        support = x > SUPPORT_TOL
        if (not vertex or method == "highs-ds"
                or _is_pseudo_forest(job[support], machine[support], n_jobs, n_machines)):
            return (t[0] if machine_block is None else t), x
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
    return float(fractional_shares([P], n_copies)[0])


class _PrunedLPs:
    """The LPs ``tau_s`` of one matrix of :func:`fractional_mms`, each solved once."""

    def __init__(self, P, n_copies):
        self.n_jobs, self.n_machines = P.shape
        job, machine = np.nonzero(np.isfinite(P))
        time = P[job, machine]
        order = np.argsort(time, kind="stable")
        self.job, self.machine, time = job[order], machine[order], time[order]
        self.weight = time / n_copies
        self.values = np.unique(time)
        self.n_edges_upto = np.searchsorted(time, self.values, side="right")
        self.first = np.searchsorted(self.values, P.min(axis=1).max())  # below it some job has no edge
        self.last = self.values.size - 1
        self.taus = {}

    def edges(self, s):
        """``(job, machine, weight)`` of the LP with the edges ``p <= values[s]``."""
        e = self.n_edges_upto[s]
        return self.job[:e], self.machine[:e], self.weight[:e]


def _solve_taus(requests):
    """Solve the LPs ``tau_s`` of ``requests`` not solved yet.

    ``requests`` holds pairs of a ``_PrunedLPs`` and ``s``, at most one per ``_PrunedLPs``.

    LPs of different matrices are solved together, as blocks of one LP of at most
    ``BATCH_EDGES`` edges, where a solve's set-up outweighs its work. Measured on fits of
    100–1,000 jobs with 10–20 groups: batches of up to 5,000 edges took 0.51–0.99 of the
    time of separate solves; batches of 20,000 and 50,000 edges were up to 1.06× and 1.22×
    slower than separate solves at 1,000 jobs.
    """
    batch, batch_edges = [], 0
    for lps, s in requests:
        if s in lps.taus:
            continue
        n_edges = lps.n_edges_upto[s]
        if batch and batch_edges + n_edges > BATCH_EDGES:
            _solve_block(batch)
            batch, batch_edges = [], 0
        batch.append((lps, s))
        batch_edges += n_edges
    if batch:
        _solve_block(batch)


def _solve_block(batch):
    """Solve the LPs of ``batch`` as the blocks of one LP and store each optimum."""
    parts, n_jobs, n_machines = [], 0, 0
    for block, (lps, s) in enumerate(batch):
        job, machine, weight = lps.edges(s)
        parts.append((job + n_jobs, machine + n_machines, weight, np.full(lps.n_machines, block)))
        n_jobs, n_machines = n_jobs + lps.n_jobs, n_machines + lps.n_machines
    job, machine, weight, machine_block = (np.concatenate(part) for part in zip(*parts, strict=True))
    taus, _ = _min_max_load(job, machine, weight, n_jobs, n_machines, vertex=False,
                            machine_block=machine_block)
    for (lps, s), tau in zip(batch, taus, strict=True):
        lps.taus[s] = tau


def fractional_shares(P_groups, n_copies):
    """:func:`fractional_mms` of each matrix of ``P_groups``, the binary searches run in lock-step.

    Each step's LPs (one per matrix still searching) are solved together by
    :func:`_solve_taus`; the searches are those of :func:`fractional_mms` on each matrix
    alone, and so are the results up to the LP solver's rounding (6e-16 relative on
    random instances).

    Returns
    -------
    bounds : ndarray of shape (len(P_groups),)
    """
    problems = [_PrunedLPs(P, n_copies) for P in P_groups]
    _solve_taus([(lps, lps.last) for lps in problems])
    bounds = np.empty(len(problems))
    searching = {}  # the index of a problem whose last LP is feasible: its range [lo, hi]
    for g, lps in enumerate(problems):
        if lps.taus[lps.last] > lps.values[lps.last]:
            bounds[g] = lps.taus[lps.last]
        else:  # find the smallest s with tau(s) <= values[s]
            searching[g] = [lps.first, lps.last]
    while active := [g for g, (lo, hi) in searching.items() if lo < hi]:
        mids = {g: sum(searching[g]) // 2 for g in active}
        _solve_taus([(problems[g], mids[g]) for g in active])
        for g, mid in mids.items():
            lo, hi = searching[g]
            feasible = problems[g].taus[mid] <= problems[g].values[mid]
            searching[g] = [lo, mid] if feasible else [mid + 1, hi]
    _solve_taus([(problems[g], lo - 1) for g, (lo, _) in searching.items() if lo > problems[g].first])
    for g, (lo, _) in searching.items():
        lps = problems[g]
        below = lps.taus[lo - 1] if lo > lps.first else np.inf
        bounds[g] = min(lps.values[lo], below)
    return bounds


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
