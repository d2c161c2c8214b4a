"""MMSScheduler: maximin-share fair allocation of jobs among groups of machines."""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import validate_data

from fairkit.exceptions import FairkitWarning
from fairkit.scheduling import _identical, _lp
from fairkit.scheduling._instance import (
    _check_values,
    check_groups_can_run_all_jobs,
    encode_machine_groups,
    group_maxima,
    identical_groups,
    machine_loads,
)
from fairkit.scheduling._shares import share_bounds, warn_unproven
from fairkit.utils._sklearn_compat import Interval, StrOptions, _fit_context
from fairkit.utils._warnings import warn_user
from fairkit.utils.validation import check_numbers

_BISECTION_STEPS = 12


class MMSScheduler(BaseEstimator):
    """Allocate jobs among groups of machines so that every group gets at most twice its maximin share.

    Implements Li, Wang and Shiji, "Settling the Maximin Share Fairness for
    Scheduling among Groups of Machines" (ICML 2025), which extends Li, Wang and
    Zhou (NeurIPS 2023). Jobs are chores divided among ``N`` groups; group ``i``
    owns machines ``M_i``; job ``j`` takes ``p[j, k]`` on machine ``k``. A group's
    cost for its jobs is their makespan on its own machines, and its maximin share
    ``MMS_i`` is the optimal makespan of *all* jobs on ``N`` copies of ``M_i``.
    An allocation is ``alpha``-MMS if every group's cost is at most ``alpha * MMS_i``.

    * Unrelated machines (2-MMS): ``LB_i``, the fractional maximin share, is
      found exactly per group; a vertex of the LP over all machines with capacity
      ``LB_i`` on the machines of group ``i`` and pruning ``p[j, k] <= LB_{g(k)}`` is
      rounded by matching its split jobs to distinct machines, so every machine's
      load is at most ``2 * LB_i <= 2 * MMS_i``. With one group this is the
      Lenstra-Shmoys-Tardos 2-approximation (:func:`lst_schedule`).
    * Identical machines within every group (4/3-MMS): the ordered-instance rule
      of :func:`~fairkit.scheduling._identical.ordered_allocation` with values
      ``V_i >= MMS_i`` (exact with ``mms="exact"``) keeps every machine within
      ``4/3 * V_i``. With ``mms="bound"``, ``V_i`` is the smallest value found by
      bisection between a lower bound and the LPT makespan on ``N * m_i`` machines.
      That the rule never fails for ``V_i >= MMS_i`` is tested (exhaustively on
      small instances, against exact MMS on random and adversarial ones), not
      proven; were it to fail, the LP rounding is used with a warning.

    Parameters
    ----------
    machine_groups : int or array-like of shape (n_machines,)
        Group label of every machine (column of ``X``), or a number of groups
        ``N``: the machines are then split into ``N`` contiguous blocks of
        near-equal size.
    machine_model : {"auto", "unrelated", "identical"}, default="auto"
        ``"auto"`` uses the identical-machines algorithm when the machines of every
        group have equal processing times, the LP rounding otherwise.
    mms : {"bound", "exact"}, default="bound"
        ``"bound"`` compares costs with polynomial lower bounds on ``MMS_i``;
        ``"exact"`` computes ``MMS_i`` by MILP (small instances).
    solver : {"highs", "cbc"}, default="highs"
        MILP solver of ``mms="exact"`` (HiGHS through SciPy, CBC through PuLP).
        The LPs always use HiGHS dual simplex, which returns a vertex.
    time_limit : float, default=None
        Seconds per group for the MILP of ``mms="exact"``; when reached, the proven
        bounds are used and a :class:`~fairkit.exceptions.FairkitWarning` is emitted.

    Attributes
    ----------
    assignment_ : ndarray of shape (n_jobs,)
        Machine of every job.
    job_groups_ : ndarray of shape (n_jobs,)
        Group label of every job (the group of its machine).
    schedule_ : list of ndarray
        The jobs of every machine.
    machine_loads_ : ndarray of shape (n_machines,)
        Total processing time on every machine.
    group_costs_ : ndarray of shape (n_groups,)
        Every group's makespan on its own machines (an upper bound on its cost).
    mms_bounds_ : ndarray of shape (n_groups,)
        Lower bounds on ``MMS_i``: ``LB_i`` (unrelated) or the identical-machine
        bound with ``mms="bound"``; the exact ``MMS_i`` with ``mms="exact"``.
    mms_ratios_ : ndarray of shape (n_groups,)
        ``group_costs_ / mms_bounds_`` (0 for a group with cost 0): an upper bound
        on every group's true ratio to its maximin share.
    guarantee_ : float
        The factor proven for this allocation: every group's cost is at most
        ``guarantee_ * MMS_i``. LP rounding: ``1 + lam <= 2``, with ``lam`` the
        LP's largest relative load. Identical machines: ``4/3`` times the largest
        ``V_i / MMS_i`` certified (at most 4/3 with exact shares, below 16/9 with
        bounds, and often below 1).
    machine_model_ : str
        The algorithm used, ``"unrelated"`` or ``"identical"``.
    groups_ : ndarray of shape (n_groups,)
        The sorted group labels.
    machine_groups_ : ndarray of shape (n_machines,)
        Group label of every machine.
    n_features_in_ : int
        Number of machines seen in :meth:`fit`.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Machine names, when ``X`` is a DataFrame with string column names.

    Examples
    --------
    Six jobs; machines 0 and 1 (identical) form group "a", machine 2 group "b":

    >>> import numpy as np
    >>> from fairkit.scheduling import MMSScheduler
    >>> X = np.array([[3, 3, 2], [3, 3, 2], [2, 2, 5], [2, 2, 5], [1, 1, 1], [1, 1, 1]])
    >>> scheduler = MMSScheduler(machine_groups=["a", "a", "b"]).fit(X)
    >>> scheduler.job_groups_.tolist()
    ['b', 'b', 'a', 'a', 'b', 'b']
    >>> scheduler.group_costs_, scheduler.mms_bounds_
    (array([2., 6.]), array([3., 8.]))
    >>> float(scheduler.guarantee_)  # every cost is at most 1.0 times its group's MMS
    1.0
    """

    _required_parameters = ["machine_groups"]

    _parameter_constraints = {
        "machine_groups": ["array-like", Interval(Integral, 1, None, closed="left")],
        "machine_model": [StrOptions({"auto", "unrelated", "identical"})],
        "mms": [StrOptions({"bound", "exact"})],
        "solver": [StrOptions({"highs", "cbc"})],
        "time_limit": [Interval(Real, 0, None, closed="neither"), None],
    }

    def __init__(self, machine_groups, *, machine_model="auto", mms="bound", solver="highs",
                 time_limit=None):
        self.machine_groups = machine_groups
        self.machine_model = machine_model
        self.mms = mms
        self.solver = solver
        self.time_limit = time_limit

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        return tags

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Allocate the jobs (rows of ``X``) to the groups and schedule them.

        Parameters
        ----------
        X : array-like of shape (n_jobs, n_machines)
            Processing times ``>= 0``; ``np.inf`` where a machine cannot run a job.
            Every group must have a machine that can run every job. Any magnitude is
            solved (the solvers see the times scaled by a power of two) as long as a
            machine's load fits in float64 (about 1.8e308).
        y : None
            Ignored.

        Returns
        -------
        self : MMSScheduler
        """
        P = check_numbers(X, input_name="X", ensure_all_finite=False,  # self stays untouched
                          expected="processing times must be numbers >= 0, with np.inf where a "
                                   "machine cannot run a job.")
        _check_values(P, "X")
        labels, group = encode_machine_groups(self.machine_groups, P.shape[1])
        check_groups_can_run_all_jobs(P, group, labels)
        n_groups = labels.size
        identical = identical_groups(P, group)
        if self.machine_model == "identical" and not identical:
            raise ValueError("machine_model='identical' needs equal processing times on all "
                             "machines of each group; use 'unrelated' or 'auto'.")
        model = "unrelated" if self.machine_model == "unrelated" or not identical else "identical"
        exact = self.mms == "exact"
        bounds = share_bounds(P, group, n_groups, exact=exact, solver=self.solver,
                              time_limit=self.time_limit)
        if exact:
            warn_unproven(bounds, labels)
        assignment = None
        if model == "identical":
            assignment, guarantee = _identical_search(P, group, bounds)
            if assignment is None:  # pragma: no cover - would be a counterexample to the 4/3 rule
                warn_user("The 4/3 rule for identical machines found no machine for a job "
                              "although every value was at least the maximin share; this "
                              "contradicts its tested behaviour (please report the instance). "
                              "Using the LP rounding (2-MMS) instead.", FairkitWarning)
        if assignment is None:
            assignment, lam = _lp.lp_rounding(P, bounds.fractional[group])
            guarantee = 1 + lam  # LP load <= lam * LB plus one job <= LB per machine
        validate_data(self, X, skip_check_array=True)  # n_features_in_, names: X was checked above
        self._set_fitted(P, labels, group, assignment, bounds.lower, guarantee, model)
        return self

    def _set_fitted(self, P, labels, group, assignment, mms_bounds, guarantee, model):
        loads = machine_loads(P, assignment)
        costs = group_maxima(loads, group, labels.size)
        self.assignment_ = assignment
        self.machine_groups_ = labels[group]
        self.job_groups_ = self.machine_groups_[assignment]
        self.schedule_ = [np.flatnonzero(assignment == k) for k in range(P.shape[1])]
        self.machine_loads_ = loads
        self.group_costs_ = costs
        self.mms_bounds_ = mms_bounds
        self.mms_ratios_ = np.divide(costs, mms_bounds, out=np.zeros_like(costs),
                                     where=costs > 0)
        self.guarantee_ = float(guarantee)
        self.machine_model_ = model
        self.groups_ = labels

    def fit_predict(self, X, y=None):
        """Fit and return the group label of every job.

        Parameters
        ----------
        X : array-like of shape (n_jobs, n_machines)
            Processing times, as in :meth:`fit`.
        y : None
            Ignored.

        Returns
        -------
        job_groups : ndarray of shape (n_jobs,)
        """
        return self.fit(X).job_groups_

    @classmethod
    def get_test_params(cls):
        """Small parameter sets for the common checks (any number of machines >= 2)."""
        return [{"machine_groups": 2}, {"machine_groups": 1},
                {"machine_groups": 2, "machine_model": "unrelated"}]


def _identical_search(P, group, bounds):
    """Run the 4/3 rule with the smallest values for which it succeeds, found by bisection.

    The values are ``V(t) = t * lower`` for ``t`` in ``[0, 1]`` and
    ``lower + (t - 1) (upper - lower)`` for ``t`` in ``[1, 2]``. The rule is tried at
    ``t = 1`` (a success there is certified 4/3-MMS) and at ``t = 2`` if that fails
    (``V = upper >= MMS``); the bisection then keeps the smallest success it meets:
    smaller values balance the bags better and only tighten the certificate. Every
    group's cost is at most ``4/3 V_i``, and ``V_i <= upper_i``, which is at most
    ``(4/3 - 1/(3 N m_i)) MMS_i`` (LPT) or ``MMS_i`` when proven: this gives the
    returned guarantee.

    Returns
    -------
    assignment : ndarray of shape (n_jobs,) or None
    guarantee : float
    """
    n_groups = bounds.lower.size
    sizes = P[:, np.unique(group, return_index=True)[1]].T  # as the first machine of each group sees them
    lower, upper = bounds.lower, bounds.upper

    def values(t):
        return t * lower if t <= 1 else lower + (t - 1) * (upper - lower)

    lo, hi = 0.0, 1.0
    assignment = _identical.ordered_allocation(sizes, group, values(hi))
    if assignment is None:
        lo, hi = 1.0, 2.0
        assignment = _identical.ordered_allocation(sizes, group, values(hi))
        if assignment is None:
            return None, None
    for _ in range(_BISECTION_STEPS):
        t = (lo + hi) / 2
        trial = _identical.ordered_allocation(sizes, group, values(t))
        if trial is None:
            lo = t
        else:
            hi, assignment = t, trial
    machines_per_group = np.bincount(group, minlength=n_groups)
    lpt_ratio = np.where(bounds.proven, 1.0, 4 / 3 - 1 / (3 * n_groups * machines_per_group))
    over_lower = np.divide(values(hi), lower, out=np.ones(n_groups), where=lower > 0)
    return assignment, _identical.RATIO * float(np.minimum(over_lower, lpt_ratio).max())
