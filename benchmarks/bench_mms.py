"""MMSScheduler against the exact MILP: time, and the worst ratio of a group's cost to its maximin share.

For every size (jobs, machines, groups) and kind of machines, on instances of
:func:`fairkit.datasets.make_scheduling_instance`:

* fairkit: ``MMSScheduler(groups).fit(P)`` (polynomial: LPs with HiGHS), median of 3 runs;
* the exact maximin shares, by MILP per group (HiGHS, ``share_time_limit`` seconds each; an
  unproven share is replaced by its proven lower bound, which can only raise the ratios reported);
* the peer: the exact best allocation, the MILP minimising ``max_i cost_i / MMS_i``
  (HiGHS, ``alpha_time_limit`` seconds), timed once;
* for the two smallest sizes, the exact shares with CBC as well (time only).

Run from the repository root: ``python -m benchmarks.bench_mms [--quick]``.
"""

import time

import numpy as np

from benchmarks._common import main, median_time
from fairkit.datasets import make_scheduling_instance
from fairkit.scheduling import MMSScheduler
from fairkit.scheduling._milp import best_ratio_allocation
from fairkit.scheduling._shares import share_bounds

SIZES = [(20, 6, 2), (50, 10, 2), (100, 20, 4), (300, 30, 5), (500, 50, 10)]
QUICK_SIZES = [(20, 6, 2), (50, 10, 2)]


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def one_instance(n_jobs, n_machines, n_groups, kind, seed, share_time_limit, alpha_time_limit,
                 compare_cbc):
    group = np.repeat(np.arange(n_groups),
                      [len(b) for b in np.array_split(np.arange(n_machines), n_groups)])
    P = make_scheduling_instance(n_jobs, group, kind=kind, random_state=seed)
    seconds, scheduler = median_time(lambda: MMSScheduler(group).fit(P))
    share_seconds, shares = timed(lambda: share_bounds(P, group, n_groups, exact=True,
                                                       time_limit=share_time_limit))
    alpha_seconds, best = timed(lambda: best_ratio_allocation(
        P, group, shares.lower, initial=scheduler.assignment_, time_limit=alpha_time_limit))
    ratios = scheduler.group_costs_ / shares.lower
    row = {
        "n_jobs": n_jobs, "n_machines": n_machines, "n_groups": n_groups, "kind": kind,
        "seed": seed,
        "fairkit_seconds": seconds,
        "guarantee": scheduler.guarantee_,
        "max_ratio_to_bound": float(scheduler.mms_ratios_.max()),
        "shares_proven": int(shares.proven.sum()),
        "share_milp_seconds": share_seconds,
        "max_ratio_to_exact_mms": float(ratios.max()),
        "milp_best_ratio": best.makespan,
        "milp_best_ratio_lower_bound": best.lower_bound,
        "milp_optimal": bool(best.optimal),
        "milp_seconds": alpha_seconds,
        "milp_over_fairkit_time": alpha_seconds / seconds,
    }
    if compare_cbc:
        row["share_milp_cbc_seconds"] = timed(lambda: share_bounds(
            P, group, n_groups, exact=True, solver="cbc", time_limit=share_time_limit))[0]
    return row


def run(quick=False):
    sizes = QUICK_SIZES if quick else SIZES
    share_time_limit, alpha_time_limit = (5.0, 5.0) if quick else (20.0, 60.0)
    rows = []
    for index, (n_jobs, n_machines, n_groups) in enumerate(sizes):
        seeds = range(3 if index < 2 and not quick else 1)
        for kind in ("unrelated", "identical"):
            for seed in seeds:
                row = one_instance(n_jobs, n_machines, n_groups, kind, seed, share_time_limit,
                                   alpha_time_limit, compare_cbc=index < 2)
                rows.append(row)
                print(f"{kind:9s} {n_jobs:4d} jobs {n_machines:3d} machines {n_groups:3d} groups: "
                      f"fairkit {row['fairkit_seconds']:.3f}s, ratio {row['max_ratio_to_exact_mms']:.3f} "
                      f"(shares proven {row['shares_proven']}/{n_groups}); exact MILP "
                      f"{row['milp_seconds']:.1f}s ratio {row['milp_best_ratio']:.3f}"
                      f"{'' if row['milp_optimal'] else ' (time limit)'}", flush=True)
    exact = [row for row in rows if row["shares_proven"] == row["n_groups"]]
    return {
        "description": __doc__.split("\n")[0],
        "share_time_limit": share_time_limit,
        "alpha_time_limit": alpha_time_limit,
        "rows": rows,
        "worst_ratio_to_exact_mms": max((row["max_ratio_to_exact_mms"] for row in exact),
                                        default=None),
        "worst_certified_ratio": max(row["max_ratio_to_exact_mms"] for row in rows),
    }


if __name__ == "__main__":
    main("mms", run, packages=("fairkit", "numpy", "scipy", "scikit-learn", "pulp"))
