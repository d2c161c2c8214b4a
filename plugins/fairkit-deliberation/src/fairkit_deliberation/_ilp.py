"""The highest-scoring selection of k comments that satisfies JR, as an integer program (PuLP)."""

import tempfile
import warnings

import numpy as np

#: CBC as PuLP bundles it, or (PuLP >= 4, ``pip install "pulp[cbc]"``) as found on the PATH.
DEFAULT_SOLVERS = ("PULP_CBC_CMD", "COIN_CMD")


def make_solver(name):
    """A PuLP solver by name, silent and single-threaded; a clear error when it is not available."""
    import pulp

    available = pulp.listSolvers(onlyAvailable=True)
    if name is None:
        name = next((default for default in DEFAULT_SOLVERS if default in available), DEFAULT_SOLVERS[-1])
    if name not in available:
        raise ValueError(f"solver={name!r} is not an available PuLP solver; available: {available}.")
    with warnings.catch_warnings():
        # PuLP 3.3 announces that its bundled CBC goes away in 4.0; we then use COIN_CMD
        warnings.filterwarnings("ignore", "PULP_CBC_CMD is deprecated", DeprecationWarning)
        return pulp.getSolver(name, msg=False, threads=1)


def max_score_selection(approvals, k, scores, solver=None):
    """Maximize the total score of ``k`` comments subject to JR, exactly.

    With ``x_c`` = comment ``c`` selected and ``y_i`` = user ``i`` covered, and
    ``q = ceil(n/k) - 1`` the largest group JR lets go without an approved comment::

        max  sum_c s_c x_c
        s.t. sum_c x_c = k
             y_i <= sum_{c in A_i} x_c                  for every user i
             sum_{i approves c} y_i >= |approvers of c| - q   for every comment c
             x binary, 0 <= y <= 1

    ``y`` may stay continuous: for binary ``x`` the best ``y`` is the 0/1
    coverage. Only comments with more than ``q`` approvers need their row, and
    only their approvers need a ``y``.

    Parameters
    ----------
    approvals : sparse matrix of shape (n_users, n_comments)
        0/1 approvals.
    k : int
        The number of comments to select (at most ``n_comments``).
    scores : ndarray of shape (n_comments,)
        The score of each comment.
    solver : str, default=None
        A PuLP solver name; ``None`` uses CBC (see ``DEFAULT_SOLVERS``). It runs silently on one thread,
        and its files live in a temporary folder that is removed afterwards.

    Returns
    -------
    selection : ndarray of int of shape (k,)
        The selected comments, in increasing index order.

    Raises
    ------
    RuntimeError
        If the solver does not report an optimal solution.
    """
    import pulp

    backend = make_solver(solver)
    cols = approvals.tocsc()
    n_users, n_comments = cols.shape
    quota_slack = (n_users - 1) // k  # a group of this size may lack an approved comment
    support = np.diff(cols.indptr)
    constrained = np.flatnonzero(support > quota_slack)
    users = np.unique(cols[:, constrained].indices)
    rows = approvals.tocsr()

    problem = pulp.LpProblem("justified_representation", pulp.LpMaximize)
    x = [problem.add_variable(f"x{c}", cat=pulp.LpBinary) for c in range(n_comments)]
    y = {i: problem.add_variable(f"y{i}", lowBound=0, upBound=1) for i in users.tolist()}
    problem += pulp.LpAffineExpression(zip(x, scores.tolist(), strict=True))
    problem += pulp.lpSum(x) == k
    for i, y_i in y.items():
        approved = rows.indices[rows.indptr[i]:rows.indptr[i + 1]].tolist()
        problem += pulp.LpConstraint(pulp.LpAffineExpression([(y_i, 1)] + [(x[c], -1) for c in approved]),
                                     pulp.LpConstraintLE, rhs=0)
    for c in constrained.tolist():
        approvers = cols.indices[cols.indptr[c]:cols.indptr[c + 1]].tolist()
        problem += pulp.LpConstraint(pulp.LpAffineExpression([(y[i], 1) for i in approvers]),
                                     pulp.LpConstraintGE, rhs=int(support[c]) - quota_slack)

    with tempfile.TemporaryDirectory(prefix="fairkit-jr-") as folder:
        backend.tmpDir = folder
        status = problem.solve(backend)
    if pulp.LpStatus[status] != "Optimal":
        raise RuntimeError(f"The JR integer program was not solved to optimality "
                           f"(solver {backend.name} reports {pulp.LpStatus[status]!r}).")
    return np.flatnonzero(np.array([v.value() for v in x]) > 0.5)
