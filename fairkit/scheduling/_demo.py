"""Demo for ``fairkit demo``: the fastest-machine schedule against the MMS allocation."""

import numpy as np

from fairkit.datasets import make_scheduling_instance
from fairkit.scheduling._scheduler import MMSScheduler


def demo(*, quick=False):
    """Three groups of 1, 1 and 8 unrelated machines share random jobs.

    Sending every job to its fastest machine overloads the large group far beyond
    its maximin share; :class:`MMSScheduler` keeps every group within twice it.
    The metric is the worst group's cost over a lower bound on its maximin share
    (an upper bound on the worst MMS ratio).
    """
    groups = np.repeat([0, 1, 2], [1, 1, 8])
    P = make_scheduling_instance(30 if quick else 120, groups, random_state=0)
    scheduler = MMSScheduler(groups).fit(P)
    fastest = P.argmin(axis=1)
    loads = np.bincount(fastest, weights=P[np.arange(P.shape[0]), fastest], minlength=groups.size)
    before = max(loads[groups == g].max() / scheduler.mms_bounds_[g] for g in range(3))
    return {"metric": "worst group cost / MMS lower bound", "before": float(before),
            "after": float(scheduler.mms_ratios_.max()),
            "note": f"{P.shape[0]} jobs, groups of 1, 1 and 8 machines; guarantee "
                    f"{scheduler.guarantee_:g}-MMS"}
