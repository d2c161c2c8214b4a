"""
Maximin-share fair schedules among groups of machines
=====================================================

Three groups own 1, 2 and 3 machines and share 40 jobs. A group's cost is the
makespan of its jobs on its own machines; its maximin share (MMS) is the best
makespan it could guarantee itself by splitting *all* jobs into 3 bundles and
getting the worst one. :class:`~fairkit.scheduling.MMSScheduler` gives every group
at most twice its share on unrelated machines (top row) and at most 4/3 of it when
each group's machines are identical (bottom row). Each panel is one group's Gantt
chart; the dashed line is its MMS, the dotted one the guarantee.
"""

import matplotlib.pyplot as plt
import numpy as np

from fairkit.datasets import make_scheduling_instance
from fairkit.scheduling import MMSScheduler

groups = np.repeat([0, 1, 2], [1, 2, 3])
fig, axes = plt.subplots(2, 3, figsize=(12, 5.5))
for row, kind in enumerate(["unrelated", "identical"]):
    P = make_scheduling_instance(40, groups, kind=kind, max_time=30, random_state=0)
    scheduler = MMSScheduler(groups, mms="exact", time_limit=5).fit(P)
    for g, ax in enumerate(axes[row]):
        machines = np.flatnonzero(groups == g)
        for lane, k in enumerate(machines):
            jobs = scheduler.schedule_[k]
            starts = np.concatenate([[0], np.cumsum(P[jobs, k])[:-1]])
            ax.barh(lane, P[jobs, k], left=starts, height=0.6, color=plt.cm.tab20(jobs % 20),
                    edgecolor="white")
        share = scheduler.mms_bounds_[g]
        ax.axvline(share, color="black", linestyle="--", label="MMS")
        ax.axvline(scheduler.guarantee_ * share, color="grey", linestyle=":",
                   label=f"{scheduler.guarantee_:.3g} x MMS")
        ax.set_yticks(range(machines.size), [f"machine {k}" for k in machines])
        ax.set_title(f"{kind}, group {g}: cost {scheduler.group_costs_[g]:g}, MMS {share:g}",
                     fontsize=9)
    axes[row, 0].legend(loc="lower right", fontsize=8)
axes[1, 1].set_xlabel("time")
fig.tight_layout()
plt.show()
