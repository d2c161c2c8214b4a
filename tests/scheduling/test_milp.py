"""Exact makespans by MILP (HiGHS and CBC) against brute force; maximin_shares."""

import numpy as np
import pytest

from fairkit.datasets import make_scheduling_instance
from fairkit.exceptions import FairkitWarning
from fairkit.scheduling import lst_schedule, maximin_shares
from fairkit.scheduling._milp import best_ratio_allocation, exact_mms, min_makespan

SOLVERS = ["highs", "cbc"]


def makespan(P, assignment):
    return np.bincount(assignment, weights=P[np.arange(P.shape[0]), assignment],
                       minlength=P.shape[1]).max()


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("seed", range(4))
def test_min_makespan_equals_brute_force(solver, seed, oracles):
    rng = np.random.default_rng(seed)
    P = rng.uniform(1, 10, size=(6, 3)).round(2)
    P[rng.random(P.shape) < 0.2] = np.inf
    P[np.arange(6), rng.integers(0, 3, 6)] = rng.uniform(1, 10, 6).round(2)
    solution = min_makespan(P, initial=lst_schedule(P), solver=solver)
    assert solution.optimal
    assert solution.makespan == pytest.approx(oracles.makespan(P), abs=1e-6)
    assert makespan(P, solution.assignment) == pytest.approx(solution.makespan)


@pytest.mark.parametrize("solver", SOLVERS)
def test_known_identical_optima(solver):
    # LPT's tight instance on 3 identical machines: optimum 9 ({5,4},{5,4},{3,3,3})
    sizes = np.array([5, 5, 4, 4, 3, 3, 3], dtype=float)[:, None]
    solution = exact_mms(sizes, 3, lower=0.0, initial=np.arange(7) % 3, solver=solver)
    assert solution.optimal and solution.makespan == 9
    # two identical machines, sizes [3, 3, 2, 2, 2]: optimum 6
    sizes = np.array([3, 3, 2, 2, 2], dtype=float)[:, None]
    solution = exact_mms(sizes, 2, lower=0.0, initial=np.zeros(5, dtype=int), solver=solver)
    assert solution.optimal and solution.makespan == 6


@pytest.mark.parametrize("solver", SOLVERS)
def test_maximin_shares_exact_equals_brute_force(solver, oracles):
    P = make_scheduling_instance(5, [0, 0, 1], max_time=9, infeasible_rate=0.2, random_state=3)
    group = np.array([0, 0, 1])
    np.testing.assert_allclose(maximin_shares(P, group, method="exact", solver=solver),
                               oracles.mms(P, group))


def test_maximin_shares_bound_is_below_exact():
    P = make_scheduling_instance(7, [0, 1, 1], max_time=20, random_state=0)
    bound = maximin_shares(P, [0, 1, 1])
    exact = maximin_shares(P, [0, 1, 1], method="exact")
    assert (bound <= exact + 1e-9).all()


def test_maximin_shares_labels_order_and_int_groups():
    P = make_scheduling_instance(6, ["b", "b", "a"], max_time=9, random_state=1)
    by_label = maximin_shares(P, ["b", "b", "a"], method="exact")  # sorted labels: "a" first
    by_block = maximin_shares(P, 2, method="exact")  # contiguous blocks [0, 1] and [2]
    np.testing.assert_allclose(by_label, by_block[::-1])


def test_time_limit_warns_and_returns_a_lower_bound():
    P = make_scheduling_instance(60, [0] * 4 + [1] * 4, random_state=0)
    bound = maximin_shares(P, 2)
    with pytest.warns(FairkitWarning, match="time limit"):
        limited = maximin_shares(P, 2, method="exact", time_limit=0.01)
    assert (limited >= bound - 1e-9).all()


def test_best_ratio_allocation_equals_brute_force(oracles):
    P = make_scheduling_instance(6, [0, 0, 1], max_time=9, random_state=5)
    group = np.array([0, 0, 1])
    shares = oracles.mms(P, group)
    solution = best_ratio_allocation(P, group, shares, initial=lst_schedule(P))
    assert solution.optimal
    assert solution.makespan == pytest.approx(oracles.best_ratio(P, group, shares))


def test_cbc_leaves_no_files(tmp_path, monkeypatch):
    for variable in ("TMPDIR", "TMP", "TEMP"):
        monkeypatch.setenv(variable, str(tmp_path))
    P = make_scheduling_instance(8, [0, 0, 0], max_time=9, random_state=0)
    min_makespan(P, initial=lst_schedule(P), solver="cbc")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("method, solver", [("median", "highs"), ("exact", "gurobi")])
def test_maximin_shares_rejects_unknown_options(method, solver):
    with pytest.raises(ValueError, match="method" if method == "median" else "solver"):
        maximin_shares(np.ones((2, 2)), 2, method=method, solver=solver)
