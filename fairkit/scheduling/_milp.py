"""Exact minimum makespan on unrelated machines (R||Cmax) by mixed-integer programming.

The exact maximin share of a group is the minimum makespan of all jobs on ``N``
copies of its machines, and the best achievable MMS ratio is the minimum makespan
with every machine's times divided by its group's maximin share: both are this
MILP. HiGHS is reached through :func:`scipy.optimize.milp`, CBC through PuLP
(single thread, no log, no files left behind). Only arrays leave this module.
"""

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, milp

from fairkit.scheduling._instance import machine_loads


@dataclass
class MakespanSolution:
    """An assignment, its makespan, and a proven lower bound on the optimal makespan."""

    assignment: np.ndarray
    makespan: float
    lower_bound: float

    @property
    def optimal(self):
        return self.lower_bound >= self.makespan


def min_makespan(P, *, initial, lower=0.0, solver="highs", time_limit=None):
    """Minimise the makespan of jobs on unrelated machines exactly.

    Binary ``x[j, k]`` for every pair with ``p[j, k]`` at most the initial makespan
    (a longer job cannot be in a better schedule) and the makespan ``C``; when all
    those times are integers, so is ``C``, which lets the solver round its bound up.
    The solvers see the times divided by :func:`solver_scale`.

    Parameters
    ----------
    P : ndarray of shape (n_jobs, n_machines)
        Processing times, ``inf`` where a machine cannot run a job.
    initial : ndarray of shape (n_jobs,)
        A feasible assignment (a heuristic's); its makespan bounds the search, it
        warm-starts CBC, and it is returned if the solver finds nothing better.
    lower : float
        A known lower bound on the optimal makespan.
    solver : {"highs", "cbc"}
    time_limit : float or None
        Seconds; when reached, the best assignment so far is returned with the
        solver's proven lower bound (CBC through PuLP reports none: ``lower`` is kept).

    Returns
    -------
    solution : MakespanSolution
    """
    n_jobs, n_machines = P.shape
    upper = float(machine_loads(P, initial).max())
    job, machine = np.nonzero(upper >= P)
    scale = solver_scale(P[job, machine])
    time, lower = P[job, machine] / scale, lower / scale
    integral = bool(np.all(time == np.round(time)))
    if integral:
        lower = float(np.ceil(lower - 1e-9))
    if upper <= lower * scale:
        return MakespanSolution(initial, upper, upper)
    cols = np.arange(job.size)
    assign = sparse.csr_array((np.ones(job.size), (job, cols)), shape=(n_jobs, job.size))
    load = sparse.csr_array((time, (machine, cols)), shape=(n_machines, job.size))
    run = _solve_highs if solver == "highs" else _solve_cbc
    x, bound, proven = run(assign, load, initial_x=(initial[job] == machine).astype(float),
                           integral=integral, lower=lower, upper=upper / scale, time_limit=time_limit)
    bound *= scale
    assignment, makespan = initial, upper
    if x is not None:
        chosen = x > 0.5
        candidate = np.empty(n_jobs, dtype=int)
        candidate[job[chosen]] = machine[chosen]
        candidate_makespan = float(machine_loads(P, candidate).max())
        if candidate_makespan <= upper:
            assignment, makespan = candidate, candidate_makespan
    return MakespanSolution(assignment, makespan, makespan if proven else min(makespan, bound))


def solver_scale(time):
    """The power of two by which the MILP solvers' times are divided (exactly, in floating point).

    HiGHS and CBC work with absolute tolerances (about 1e-6) and lose exactness on large
    values: on a test instance with integer times multiplied by 1e9, HiGHS reported
    16e9 as the proven optimum of a problem whose optimum is 13e9; times of 1e-6 gave
    wrong optima too. Times whose largest lies in [1, 2**20] are given as they are (their
    integrality, when they are integers, strengthens the bound); others are brought into
    [2**10, 2**11).
    """
    largest = float(time.max(initial=0.0))
    if largest == 0 or 1 <= largest <= 2**20:
        return 1.0
    return float(np.ldexp(1.0, np.frexp(largest)[1] - 11))


def _solve_highs(assign, load, *, initial_x, integral, lower, upper, time_limit):
    """HiGHS through scipy.optimize.milp; it takes no start solution."""
    n_jobs, n_edges = assign.shape
    n_machines = load.shape[0]
    A = sparse.vstack([
        sparse.hstack([assign, sparse.csr_array((n_jobs, 1))]),
        sparse.hstack([load, sparse.csr_array(-np.ones((n_machines, 1)))]),
    ], format="csr")
    lb = np.concatenate([np.ones(n_jobs), np.full(n_machines, -np.inf)])
    ub = np.concatenate([np.ones(n_jobs), np.zeros(n_machines)])
    c = np.zeros(n_edges + 1)
    c[-1] = 1.0
    options = {"disp": False, "mip_rel_gap": 0.0}
    if time_limit is not None:
        options["time_limit"] = float(time_limit)
    result = milp(c, integrality=np.r_[np.ones(n_edges), float(integral)],
                  bounds=Bounds(np.r_[np.zeros(n_edges), lower], np.r_[np.ones(n_edges), upper]),
                  constraints=LinearConstraint(A, lb, ub), options=options)
    bound = getattr(result, "mip_dual_bound", None)
    bound = lower if bound is None or not np.isfinite(bound) else max(lower, float(bound))
    return (None if result.x is None else result.x[:-1]), bound, result.status == 0


def _solve_cbc(assign, load, *, initial_x, integral, lower, upper, time_limit):
    """CBC through PuLP, warm-started, one thread, no log, its files removed by PuLP."""
    import pulp

    problem = pulp.LpProblem("makespan", pulp.LpMinimize)
    variable = getattr(problem, "add_variable", pulp.LpVariable)  # PuLP >= 3.3 owns variables
    x = [variable(f"x{e}", 0, 1, pulp.LpBinary) for e in range(assign.shape[1])]
    for var, value in zip(x, initial_x, strict=True):
        var.setInitialValue(value)
    makespan = variable("makespan", lower, upper, pulp.LpInteger if integral else pulp.LpContinuous)
    makespan.setInitialValue(upper)
    problem += makespan
    for name, matrix in (("job", assign), ("load", load)):
        for row in range(matrix.shape[0]):
            start, stop = matrix.indptr[row], matrix.indptr[row + 1]
            terms = [(x[e], a) for e, a in zip(matrix.indices[start:stop], matrix.data[start:stop],
                                               strict=True)]
            if name == "job":
                constraint = pulp.LpConstraint(pulp.LpAffineExpression(terms),
                                               sense=pulp.LpConstraintEQ, rhs=1.0)
            else:
                constraint = pulp.LpConstraint(pulp.LpAffineExpression(terms + [(makespan, -1.0)]),
                                               sense=pulp.LpConstraintLE, rhs=0.0)
            problem += constraint, f"{name}{row}"
    problem.solve(_cbc_command(pulp, msg=False, threads=1, gapRel=0.0, warmStart=True,
                               timeLimit=time_limit))
    found = problem.sol_status in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible)
    values = np.array([v.value() for v in x], dtype=float) if found else None
    return values, lower, problem.sol_status == pulp.LpSolutionOptimal


def _cbc_command(pulp, **options):
    """CBC installed on its own (``pulp[cbc]``) if present, else the copy bundled with PuLP < 4."""
    command = pulp.COIN_CMD(**options)
    if command.available():
        return command
    if not hasattr(pulp, "PULP_CBC_CMD"):
        raise ImportError('solver="cbc" needs CBC, which PuLP >= 4 no longer bundles: '
                          'pip install "pulp[cbc]".')
    with warnings.catch_warnings():  # PuLP 3.3 deprecates its bundled CBC, removed in PuLP 4
        warnings.filterwarnings("ignore", "PULP_CBC_CMD is deprecated", DeprecationWarning)
        return pulp.PULP_CBC_CMD(**options)


def exact_mms(P_group, n_copies, *, lower, initial, solver="highs", time_limit=None):
    """Maximin share of one group: the minimum makespan on ``n_copies`` copies of its machines.

    Parameters
    ----------
    P_group : ndarray of shape (n_jobs, n_group_machines)
    n_copies : int
        The number of groups.
    lower : float
        A lower bound on the maximin share.
    initial : ndarray of shape (n_jobs,)
        A feasible assignment to the ``n_copies * n_group_machines`` columns of
        ``numpy.tile(P_group, n_copies)``.
    solver, time_limit
        See :func:`min_makespan`.

    Returns
    -------
    solution : MakespanSolution
        On the tiled machines.
    """
    return min_makespan(np.tile(P_group, n_copies), initial=initial, lower=lower, solver=solver,
                        time_limit=time_limit)


def best_ratio_allocation(P, group, shares, *, initial, solver="highs", time_limit=None):
    """An allocation minimising ``max_i cost_i / shares_i`` exactly (the best achievable MMS ratio).

    A machine of a group with share 0 may only take jobs of time 0 there.
    Returns the :class:`MakespanSolution` of the scaled problem: its makespan is
    the largest ratio.
    """
    scale = shares[group]
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = np.where(P == 0, 0.0, P / scale)
    return min_makespan(scaled, initial=initial, solver=solver, time_limit=time_limit)
