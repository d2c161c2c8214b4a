"""Groups of identical machines: bounds on the maximin share and the ordered 4/3 allocation.

When the machines of every group are identical, group ``i`` sees job ``j`` as one
size ``p[i, j]`` and its cost for a bundle is the makespan of the bundle on its
``m_i`` machines; its maximin share is the optimal makespan of all jobs on
``N * m_i`` identical machines (P||Cmax).
"""

import heapq

import numpy as np

RATIO = 4 / 3


def share_bounds(sizes, n_bins):
    """Lower and upper bounds on the optimal makespan of ``sizes`` on ``n_bins`` identical machines.

    The lower bound is the largest of the longest job, the average load and, when
    there are more jobs than machines, the two smallest of the ``n_bins + 1``
    longest jobs (two of them share a machine). The upper bound is the makespan of
    LPT (longest processing time first onto the least-loaded machine), at most
    ``4/3 - 1/(3 n_bins)`` times the optimum (Graham 1969).

    Returns
    -------
    lower, upper : float
    lpt : ndarray of shape (n_jobs,)
        The LPT machine (0 to ``n_bins - 1``) of every job.
    """
    order = np.argsort(-sizes, kind="stable")
    ranked = sizes[order]
    lower = max(ranked[0], ranked.sum() / n_bins)
    if ranked.size > n_bins:
        lower = max(lower, ranked[n_bins - 1] + ranked[n_bins])
    heap = [(0.0, b) for b in range(n_bins)]
    lpt = np.empty(sizes.size, dtype=int)
    for job in order:
        load, b = heapq.heappop(heap)
        lpt[job] = b
        heapq.heappush(heap, (load + sizes[job], b))
    upper = max(load for load, _ in heap)
    return float(lower), float(upper), lpt


def ordered_allocation(sizes, group, shares):
    """Allocate jobs so that every machine of group ``i`` has load at most ``4/3 * shares[i]``.

    1. Ordered instance: rank ``r`` has size ``Q[i, r]``, the ``(r+1)``-th largest
       size of group ``i``. A group's maximin share depends only on its sorted
       sizes, so it is unchanged.
    2. Bag filling, one bag per group: scan the unallocated ranks from the largest;
       every group still in the running keeps an LPT schedule of the bag on its
       machines, and a rank joins the bag if some such group can put it on its
       least-loaded machine within ``4/3 * shares[i]``; the groups that cannot drop
       out of this bag. The bag goes to the first group still in the running, with
       that schedule.
    3. Back to real jobs, cheapest rank first: the machine holding rank ``r`` takes
       its group's cheapest remaining job. With ``r + 1`` jobs left that job is no
       longer than ``Q[g, r]``, so no machine's load grows.

    Parameters
    ----------
    sizes : ndarray of shape (n_groups, n_jobs)
        Size of every job for every group.
    group : ndarray of shape (n_machines,)
        Group of every machine.
    shares : ndarray of shape (n_groups,)
        Values ``V_i``. For ``V_i >= MMS_i`` the bags provably hold every rank when
        no group sees a rank as longer than ``V_i / 3``, or when the first rank left
        is longer than that for the group of the last bag (see the user guide); in
        the remaining case they held all ranks in every instance tested
        (exhaustively on small ones), without a proof.

    Returns
    -------
    assignment : ndarray of shape (n_jobs,) or None
        Machine of every job, or None if ranks are left after the last bag.
    """
    n_groups, n_jobs = sizes.shape
    ranked = -np.sort(-sizes, axis=1)
    capacity = RATIO * shares * (1 + 1e-12)
    counts = np.bincount(group, minlength=n_groups)
    members = np.full((n_groups, counts.max()), -1)  # machines of each group, padded with -1
    for g in range(n_groups):
        members[g, :counts[g]] = np.flatnonzero(group == g)
    owner = np.full(n_jobs, -1)
    waiting = np.ones(n_groups, dtype=bool)  # groups without a bag yet
    rows = np.arange(n_groups)
    for _ in range(n_groups):
        loads = np.where(members >= 0, 0.0, np.inf)  # LPT schedule of the bag, per group
        slot = np.empty((n_groups, n_jobs), dtype=int)  # where each group put each rank
        running = waiting.copy()
        bag = []
        for r in np.flatnonzero(owner < 0):
            least = loads.argmin(axis=1)
            fits = running & (loads[rows, least] + ranked[:, r] <= capacity)
            if fits.any():
                bag.append(r)
                loads[rows[fits], least[fits]] += ranked[fits, r]
                slot[:, r] = least
                running = fits
        recipient = int(np.argmax(running))
        owner[bag] = members[recipient, slot[recipient, bag]]
        waiting[recipient] = False
    if (owner < 0).any():
        return None
    return _map_back(sizes, group, owner)


def _map_back(sizes, group, owner):
    """Give the machine of rank ``r`` its group's cheapest remaining job, for ``r`` from the last."""
    n_jobs = sizes.shape[1]
    cheapest_first = np.argsort(sizes, axis=1, kind="stable")
    next_index = np.zeros(sizes.shape[0], dtype=int)
    taken = np.zeros(n_jobs, dtype=bool)
    assignment = np.empty(n_jobs, dtype=int)
    for r in range(n_jobs - 1, -1, -1):
        g = group[owner[r]]
        while taken[cheapest_first[g, next_index[g]]]:
            next_index[g] += 1
        job = cheapest_first[g, next_index[g]]
        taken[job] = True
        assignment[job] = owner[r]
    return assignment
