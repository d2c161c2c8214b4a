"""Random instances of job scheduling among groups of machines."""

import numbers

import numpy as np

from fairkit.utils._random import local_random_state

__all__ = ["make_scheduling_instance"]


def make_scheduling_instance(n_jobs, machine_groups, *, kind="unrelated", max_time=100,
                             infeasible_rate=0.0, random_state=None):
    """Draw processing times of jobs on machines that belong to groups.

    Processing times are integers drawn uniformly from ``{1, ..., max_time}``
    (returned as floats), the classic random benchmark of unrelated-machine
    scheduling (Potts 1985; Fanjul-Peyro and Ruiz 2010 use ``max_time=100``).

    * ``kind="unrelated"``: every time ``p[j, k]`` is drawn independently.
    * ``kind="identical"``: machines of one group are identical: each group ``i``
      draws one time ``p[i, j]`` per job, shared by all its machines; groups draw
      independently of each other.

    Infinite times (job ``j`` cannot run on machine ``k``) arise only with
    ``infeasible_rate > 0`` and ``kind="unrelated"``: each time is then replaced by
    ``inf`` with that probability, except on one machine per job and group, drawn
    uniformly, which always stays finite. So every group can run every job and
    every maximin share is finite.

    Parameters
    ----------
    n_jobs : int
        Number of jobs (rows).
    machine_groups : array-like of shape (n_machines,)
        Group label of every machine (columns).
    kind : {"unrelated", "identical"}, default="unrelated"
        Whether the machines of a group have their own times or share them.
    max_time : int, default=100
        Largest processing time.
    infeasible_rate : float in [0, 1), default=0.0
        Probability that a job cannot run on a machine (``kind="unrelated"`` only).
    random_state : int, RandomState instance or None, default=None
        Seed of the draw.

    Returns
    -------
    P : ndarray of shape (n_jobs, n_machines)
        Processing times, ``P[j, k]`` for job ``j`` on machine ``k``.

    Examples
    --------
    >>> from fairkit.datasets import make_scheduling_instance
    >>> P = make_scheduling_instance(4, [0, 0, 1], kind="identical", max_time=9, random_state=0)
    >>> P.shape
    (4, 3)
    >>> bool((P[:, 0] == P[:, 1]).all())
    True
    """
    if not isinstance(n_jobs, numbers.Integral) or n_jobs < 1:
        raise ValueError(f"n_jobs must be a positive integer, got {n_jobs!r}.")
    labels = np.asarray(machine_groups)
    if labels.ndim != 1 or labels.size == 0:
        raise ValueError("machine_groups must be a non-empty 1-D array of group labels, one per "
                         f"machine; got shape {labels.shape}.")
    if kind not in ("unrelated", "identical"):
        raise ValueError(f"kind must be 'unrelated' or 'identical', got {kind!r}.")
    if not isinstance(max_time, numbers.Integral) or max_time < 1:
        raise ValueError(f"max_time must be a positive integer, got {max_time!r}.")
    if not 0 <= infeasible_rate < 1:
        raise ValueError(f"infeasible_rate must be in [0, 1), got {infeasible_rate!r}.")
    if kind == "identical" and infeasible_rate > 0:
        raise ValueError("infeasible_rate must be 0 with kind='identical': a job that one machine "
                         "of a group cannot run, no machine of that group can run.")
    rng = local_random_state(random_state)
    _, group = np.unique(labels, return_inverse=True)
    n_groups = group.max() + 1
    if kind == "identical":
        per_group = rng.randint(1, max_time + 1, size=(n_jobs, n_groups))
        return per_group[:, group].astype(float)
    P = rng.randint(1, max_time + 1, size=(n_jobs, labels.size)).astype(float)
    if infeasible_rate > 0:
        infeasible = rng.random_sample(P.shape) < infeasible_rate
        for g in range(n_groups):
            machines = np.flatnonzero(group == g)
            keep = machines[rng.randint(machines.size, size=n_jobs)]
            infeasible[np.arange(n_jobs), keep] = False
        P[infeasible] = np.inf
    return P
