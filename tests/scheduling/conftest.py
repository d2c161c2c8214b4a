"""Brute-force oracles for small scheduling instances, independent of fairkit's solvers."""

import itertools

import numpy as np
import pytest


def all_assignments(n_jobs, n_machines):
    """Every map of jobs to machines, one per row."""
    return np.array(list(itertools.product(range(n_machines), repeat=n_jobs)), dtype=int)


def loads_of(P, assignments):
    """Machine loads (one row per assignment)."""
    loads = np.zeros((assignments.shape[0], P.shape[1]))
    rows = np.arange(assignments.shape[0])
    for j in range(P.shape[0]):
        np.add.at(loads, (rows, assignments[:, j]), P[j, assignments[:, j]])
    return loads


def brute_makespan(P):
    """Optimal makespan of jobs on unrelated machines, by enumeration."""
    P = np.asarray(P, dtype=float)
    return float(loads_of(P, all_assignments(*P.shape)).max(axis=1).min())


def brute_mms(P, group):
    """Every group's maximin share: optimal makespan on N copies of its machines."""
    n_groups = group.max() + 1
    return np.array([brute_makespan(np.tile(P[:, group == g], n_groups)) for g in range(n_groups)])


def brute_best_ratio(P, group, shares):
    """Smallest achievable max_i cost_i / shares_i over all allocations (each group scheduling optimally)."""
    loads = loads_of(P, all_assignments(*P.shape))
    costs = np.zeros((loads.shape[0], shares.size))
    for g in range(shares.size):
        costs[:, g] = loads[:, group == g].max(axis=1)
    return float((costs / shares).max(axis=1).min())


def identical_makespan(sizes, n_machines):
    """Optimal makespan of jobs on identical machines, by branch and bound."""
    sizes = sorted((float(s) for s in sizes), reverse=True)
    lower = max(sizes[0], sum(sizes) / n_machines)
    best = [sum(sizes)]
    loads = [0.0] * n_machines

    def place(j, makespan):
        if makespan >= best[0] or best[0] <= lower:
            return
        if j == len(sizes):
            best[0] = makespan
            return
        for k in sorted(set(range(n_machines)), key=loads.__getitem__):
            if loads[k] in loads[:k]:
                continue  # a machine with the same load was tried
            loads[k] += sizes[j]
            place(j + 1, max(makespan, loads[k]))
            loads[k] -= sizes[j]

    place(0, 0.0)
    return best[0]


@pytest.fixture(scope="session")
def oracles():
    """The brute-force oracles, as a namespace."""
    return type("Oracles", (), {
        "makespan": staticmethod(brute_makespan),
        "mms": staticmethod(brute_mms),
        "best_ratio": staticmethod(brute_best_ratio),
        "identical_makespan": staticmethod(identical_makespan),
    })
