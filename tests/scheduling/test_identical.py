"""Identical machines within groups: bounds on the share, and the 4/3 bag filling against exact MMS."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairkit.scheduling._identical import RATIO, ordered_allocation, share_bounds

# Small instances, found by exhaustive search, on which a single largest-first pass that gives
# each rank to one machine where it fits (the one of least relative load, or of smallest resulting
# relative load, or of the group that finds the rank relatively cheapest: each fails on one of
# these) leaves a rank with no machine within 4/3 of the exact shares. Per instance: machines per
# group, sorted sizes per group, exact maximin shares.
SINGLE_PASS_FAILURES = [
    ((1, 1), [[7, 7, 7, 7, 6, 6], [5, 1, 1, 1, 1, 1]], [20, 5]),
    ((1, 2), [[7, 2, 2, 2, 2, 1], [7, 7, 7, 4, 4, 1]], [8, 8]),
    ((1, 3), [[6, 6, 2, 2, 2, 1, 1], [6, 6, 6, 6, 6, 3, 3]], [10, 6]),
    ((1, 3), [[6, 4, 2, 1, 1, 1, 1], [6, 6, 6, 6, 6, 6, 2]], [8, 8]),
]


def machine_loads(sizes, group, assignment):
    n_jobs = sizes.shape[1]
    return np.bincount(assignment, weights=sizes[group[assignment], np.arange(n_jobs)],
                       minlength=group.size)


def check_within_ratio(sizes, machines, shares):
    group = np.repeat(np.arange(len(machines)), machines)
    assignment = ordered_allocation(np.asarray(sizes, dtype=float), group,
                                    np.asarray(shares, dtype=float))
    assert assignment is not None, "a rank was left with no machine"
    assert ((assignment >= 0) & (assignment < group.size)).all()
    loads = machine_loads(np.asarray(sizes, dtype=float), group, assignment)
    assert (loads <= RATIO * np.asarray(shares)[group] + 1e-9).all()


@pytest.mark.parametrize("machines, sizes, shares", SINGLE_PASS_FAILURES)
def test_bag_filling_handles_the_single_pass_failures(machines, sizes, shares, oracles):
    n_groups = len(machines)
    exact = [oracles.identical_makespan(s, n_groups * m) for s, m in zip(sizes, machines, strict=True)]
    assert exact == shares
    check_within_ratio(sizes, machines, shares)


def exhaustive(machines, n_jobs, max_size, oracles):
    """Every ordered instance with sizes in 1..max_size, with exact shares."""
    sequences = list(itertools.combinations_with_replacement(range(max_size, 0, -1), n_jobs))
    n_groups = len(machines)
    shares = {(s, m): oracles.identical_makespan(s, n_groups * m)
              for s in sequences for m in set(machines)}
    for combo in itertools.product(sequences, repeat=n_groups):
        yield combo, [shares[s, m] for s, m in zip(combo, machines, strict=True)]


@pytest.mark.parametrize("machines, n_jobs, max_size", [((1, 3), 5, 4), ((1, 1, 1), 3, 3)])
def test_exhaustive_small_instances_stay_within_four_thirds(machines, n_jobs, max_size, oracles):
    for sizes, shares in exhaustive(machines, n_jobs, max_size, oracles):
        check_within_ratio(sizes, machines, shares)


@pytest.mark.slow
@pytest.mark.parametrize("machines, n_jobs, max_size", [((1, 3), 6, 4), ((2, 1), 5, 5),
                                                         ((1, 1, 1), 4, 4), ((1, 2), 6, 5),
                                                         ((2, 3), 6, 4), ((1, 1), 7, 6)])
def test_exhaustive_larger_instances_stay_within_four_thirds(machines, n_jobs, max_size, oracles):
    for sizes, shares in exhaustive(machines, n_jobs, max_size, oracles):
        check_within_ratio(sizes, machines, shares)


@settings(max_examples=60, deadline=None)
@given(machines=st.lists(st.integers(1, 3), min_size=2, max_size=3),
       n_jobs=st.integers(1, 9), seed=st.integers(0, 2**32 - 1))
def test_random_real_jobs_within_four_thirds_of_exact_shares(machines, n_jobs, seed, oracles):
    rng = np.random.default_rng(seed)
    sizes = rng.uniform(0.5, 10, size=(len(machines), n_jobs)).round(1)  # unsorted real jobs
    shares = [oracles.identical_makespan(s, len(machines) * m) for s, m in zip(sizes, machines, strict=True)]
    check_within_ratio(sizes, machines, shares)


def test_adversarial_search_never_needs_more_than_four_thirds(oracles):
    """Hill-climb sizes to make the bag filling need the largest threshold factor."""
    rng = np.random.default_rng(0)
    machines = (1, 2)
    group = np.repeat(np.arange(2), machines)

    def needed(sizes):
        shares = np.array([oracles.identical_makespan(s, 2 * m)
                           for s, m in zip(sizes, machines, strict=True)])
        lo, hi = 1.0, 2.0
        for _ in range(12):
            mid = (lo + hi) / 2
            fits = ordered_allocation(sizes, group, shares * mid / RATIO) is not None
            lo, hi = (lo, mid) if fits else (mid, hi)
        return hi

    sizes = rng.integers(1, 12, size=(2, 7)).astype(float)
    worst = needed(sizes)
    for _ in range(150):
        trial = sizes.copy()
        trial[rng.integers(2), rng.integers(7)] = rng.integers(1, 12)
        factor = needed(trial)
        if factor >= worst:
            sizes, worst = trial, factor
    assert worst <= RATIO + 1e-3


@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(0, 20).map(float), min_size=1, max_size=7),
       n_bins=st.integers(1, 4))
def test_share_bounds_enclose_the_optimum(sizes, n_bins, oracles):
    sizes = np.array(sizes)
    lower, upper, lpt = share_bounds(sizes, n_bins)
    optimum = oracles.identical_makespan(sizes, n_bins)
    assert lower <= optimum + 1e-9
    assert optimum <= upper <= (4 / 3 - 1 / (3 * n_bins)) * optimum + 1e-9  # Graham's LPT bound
    assert np.bincount(lpt, weights=sizes, minlength=n_bins).max() == pytest.approx(upper)


def test_lpt_tight_instance():
    lower, upper, _ = share_bounds(np.array([5, 5, 4, 4, 3, 3, 3.0]), 3)
    assert (lower, upper) == (9.0, 11.0)  # optimum 9; LPT reaches (4/3 - 1/9) * 9 = 11
