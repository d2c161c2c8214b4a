"""The fractional maximin share (exact over breakpoints) and the vertex rounding of Lenstra-Shmoys-Tardos."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.optimize import linprog

import fairkit.scheduling._lp as lp_module
from fairkit.datasets import make_scheduling_instance
from fairkit.scheduling import lst_schedule
from fairkit.scheduling._lp import _round_vertex, fractional_mms, lp_rounding


def lp_feasible(P, n_copies, T):
    """Independent check: is the pruned LP on n_copies copies feasible at threshold T?"""
    job, machine = np.nonzero(P <= T)
    if np.unique(job).size < P.shape[0]:
        return False
    A_eq = np.zeros((P.shape[0], job.size))
    A_eq[job, np.arange(job.size)] = 1
    A_ub = np.zeros((P.shape[1], job.size))
    A_ub[machine, np.arange(job.size)] = P[job, machine]
    result = linprog(np.zeros(job.size), A_ub=A_ub, b_ub=np.full(P.shape[1], n_copies * T),
                     A_eq=A_eq, b_eq=np.ones(P.shape[0]), method="highs")
    return result.status == 0


@st.composite
def instances(draw, max_jobs=6, max_machines=4, allow_inf=True):
    n_jobs = draw(st.integers(1, max_jobs))
    n_machines = draw(st.integers(1, max_machines))
    values = st.integers(0, 20).map(float)
    if allow_inf:
        values = st.one_of(values, values, values, st.just(np.inf))
    P = draw(arrays(float, (n_jobs, n_machines), elements=values))
    cheapest = draw(arrays(int, n_jobs, elements=st.integers(0, n_machines - 1)))
    P[np.arange(n_jobs), cheapest] = np.where(np.isinf(P[np.arange(n_jobs), cheapest]),
                                              draw(st.integers(0, 20)), P[np.arange(n_jobs), cheapest])
    return P


def makespan(P, assignment):
    return np.bincount(assignment, weights=P[np.arange(P.shape[0]), assignment],
                       minlength=P.shape[1]).max()


@settings(max_examples=40, deadline=None)
@given(P=instances(), n_copies=st.integers(1, 3))
def test_fractional_mms_is_the_smallest_feasible_threshold(P, n_copies):
    bound = fractional_mms(P, n_copies)
    assert lp_feasible(P, n_copies, bound * (1 + 1e-7) + 1e-9)
    if bound > 0:  # a tolerance-based bisection would stop above the minimum and fail here
        assert not lp_feasible(P, n_copies, bound * (1 - 1e-6) - 1e-9)


@settings(max_examples=40, deadline=None)
@given(P=instances(max_jobs=5, max_machines=3), n_copies=st.integers(1, 2))
def test_fractional_mms_is_a_lower_bound_on_the_optimal_makespan_on_the_copies(P, n_copies, oracles):
    assert fractional_mms(P, n_copies) <= oracles.makespan(np.tile(P, n_copies)) + 1e-9


def test_bound_between_breakpoints_is_the_lp_value():
    # three unit jobs on two machines: the bound 1.5 is no processing time
    assert fractional_mms(np.ones((3, 2)), 1) == pytest.approx(1.5)
    # a long job forces the bound up to its own length, a breakpoint
    assert fractional_mms(np.array([[5.0, 9.0], [1.0, 1.0]]), 1) == 5.0
    # above the largest processing time: the LP value
    assert fractional_mms(np.array([[2.0], [2.0], [2.0]]), 1) == pytest.approx(6.0)


@pytest.mark.parametrize("m", [3, 4, 6])
def test_lst_integrality_gap_family(m):
    # m machines; m-1 unit jobs that run only on their own machine, one job of length m anywhere
    P = np.full((m * (m - 1) + 1, m), np.inf)
    for k in range(m):
        P[k * (m - 1):(k + 1) * (m - 1), k] = 1.0
    P[-1] = m
    assert fractional_mms(P, 1) == pytest.approx(m)
    assignment = lst_schedule(P)
    assert makespan(P, assignment) == 2 * m - 1  # the optimum, within 2 * bound


def test_lst_on_fairpy_instance():
    P = np.array([[10, 5, 7], [10, 2, 5], [1, 6, 6]], dtype=float).T  # jobs x machines
    assert fractional_mms(P, 1) == 5.0
    assert makespan(P, lst_schedule(P)) == 5.0


@settings(max_examples=40, deadline=None)
@given(P=instances(max_jobs=7, max_machines=4))
def test_lst_within_twice_the_bound_and_assigns_every_job_once(P):
    bound = fractional_mms(P, 1)
    assignment = lst_schedule(P)
    assert assignment.shape == (P.shape[0],)
    assert np.isfinite(P[np.arange(P.shape[0]), assignment]).all()
    assert makespan(P, assignment) <= 2 * bound + 1e-7


@settings(max_examples=40, deadline=None)
@given(P=instances(max_jobs=8, max_machines=5), thresholds_scale=st.floats(1.0, 3.0))
def test_rounding_adds_at_most_one_pruned_job_per_machine(P, thresholds_scale):
    thresholds = np.full(P.shape[1], fractional_mms(P, 1) * thresholds_scale)
    assignment, lam = lp_rounding(P, thresholds)
    loads = np.bincount(assignment, weights=P[np.arange(P.shape[0]), assignment],
                        minlength=P.shape[1])
    assert lam <= 1 + 1e-7
    assert (P[np.arange(P.shape[0]), assignment] <= thresholds[assignment]).all()
    assert (loads <= (lam + 1) * thresholds + 1e-7).all()


def test_rounding_rejects_thresholds_below_every_machine():
    with pytest.raises(ValueError, match="no machine within its threshold"):
        lp_rounding(np.array([[5.0, 6.0]]), np.array([4.0, 4.0]))


@pytest.mark.parametrize("P, message", [
    ([[1.0, -1.0]], "Negative"),
    ([[np.nan, 1.0]], "NaN"),
    ([[np.inf, np.inf]], "finite"),
    ([1.0, 2.0], "2-D"),
])
def test_lst_rejects_bad_input(P, message):
    with pytest.raises(ValueError, match=message):
        lst_schedule(P)


def test_rounding_refuses_a_point_that_is_not_a_vertex():
    # three jobs split evenly over two machines: LP-feasible, but no matching covers them
    job, machine = np.repeat([0, 1, 2], 2), np.tile([0, 1], 3)
    with pytest.raises(RuntimeError, match="not a vertex"):
        _round_vertex(job, machine, np.full(6, 0.5), 3, 2)


def _methods_used(monkeypatch, replace_ipm=None):
    """Record the HiGHS method of every linprog call of the module; optionally replace the IPM's x."""
    methods = []

    def recording(*args, method, **kwargs):
        methods.append(method)
        result = linprog(*args, method=method, **kwargs)
        if method == "highs-ipm" and replace_ipm is not None:
            result.x = replace_ipm(result.x)
        return result

    monkeypatch.setattr(lp_module, "linprog", recording)
    return methods


@pytest.mark.parametrize("seed", range(3))
def test_interior_point_gives_the_simplex_bounds_and_a_vertex(monkeypatch, seed):
    group = np.repeat(np.arange(4), 5)
    P = make_scheduling_instance(120, group, kind="unrelated", random_state=seed)
    thresholds = np.array([fractional_mms(P[:, group == g], 4) for g in range(4)])[group]
    simplex = fractional_mms(P, 4), lp_rounding(P, thresholds)
    monkeypatch.setattr(lp_module, "IPM_FROM_EDGES", 0)  # every LP to the interior point method
    methods = _methods_used(monkeypatch)
    interior = fractional_mms(P, 4), lp_rounding(P, thresholds)
    assert set(methods) == {"highs-ipm"}
    assert interior[0] == pytest.approx(simplex[0], rel=1e-9)
    assignment, lam = interior[1]
    assert lam == pytest.approx(simplex[1][1], rel=1e-9)
    loads = np.bincount(assignment, weights=P[np.arange(len(P)), assignment], minlength=P.shape[1])
    assert (loads <= 2 * thresholds * max(lam, 1.0) + 1e-9).all()  # the rounding's guarantee


def test_an_interior_point_solution_that_is_not_a_vertex_is_solved_again_by_simplex(monkeypatch):
    # three unit jobs on two machines: splitting every job in half is optimal (t = 1.5), but its
    # support has 6 edges on 5 vertices, more than a pseudo-forest (a vertex) can have
    P = np.ones((3, 2))
    monkeypatch.setattr(lp_module, "IPM_FROM_EDGES", 0)
    split = lambda x: np.r_[np.full(6, 0.5), x[-1]]  # noqa: E731 - every job split over both machines
    methods = _methods_used(monkeypatch, replace_ipm=split)
    assignment, lam = lp_rounding(P, np.full(2, 1.0))
    assert methods == ["highs-ipm", "highs-ds"]
    assert lam == pytest.approx(1.5) and sorted(np.bincount(assignment, minlength=2)) == [1, 2]


# --- the groups' binary searches in lock-step, their LPs solved as blocks of one (issue 26) ---

@settings(max_examples=30, deadline=None)
@given(Ps=st.lists(instances(max_jobs=7, max_machines=3), min_size=1, max_size=5),
       n_copies=st.integers(1, 3), batch_edges=st.sampled_from([1, 8, 20, 20_000]))
def test_fractional_shares_are_each_matrixs_fractional_mms(Ps, n_copies, batch_edges):
    # Lock-step searches of different lengths, batches from one LP each (batch_edges=1) to all at once;
    # each bound is the one its matrix gets alone and the smallest feasible threshold.
    alone = np.array([fractional_mms(P, n_copies) for P in Ps])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lp_module, "BATCH_EDGES", batch_edges)
        together = lp_module.fractional_shares(Ps, n_copies)
    np.testing.assert_allclose(together, alone, rtol=1e-12, atol=1e-12)
    for P, bound in zip(Ps, together, strict=True):
        assert lp_feasible(P, n_copies, bound * (1 + 1e-7) + 1e-9)


def test_fractional_shares_solve_small_lps_together(monkeypatch):
    # ten groups of 40 jobs: the searches' LPs are solved a step at a time, one LP per step,
    # not one per group and step; the bounds are those of the separate searches
    group = np.repeat(np.arange(10), 5)
    P = make_scheduling_instance(40, group, kind="unrelated", random_state=0)
    Ps = [P[:, group == g] for g in range(10)]
    calls = []
    solve = lp_module._min_max_load
    monkeypatch.setattr(lp_module, "_min_max_load",
                        lambda *args, **kwargs: calls.append(1) or solve(*args, **kwargs))
    alone = np.array([fractional_mms(P_group, 10) for P_group in Ps])
    n_alone = len(calls)
    calls.clear()
    together = lp_module.fractional_shares(Ps, 10)
    np.testing.assert_allclose(together, alone, rtol=1e-12)
    assert n_alone >= 30 and len(calls) <= n_alone / 5


def test_blocks_of_very_different_scales_keep_their_own_answers():
    # Review of issue 26: with one power-of-two scale for the whole batch, the small group's
    # weights fell below HiGHS's 1e-9 drop tolerance and its share came out 1.995 instead of 6.468.
    rng = np.random.default_rng(0)
    large, small = rng.uniform(1, 2, (20, 2)) * 1e12, rng.uniform(1, 2, (20, 2))
    together = lp_module.fractional_shares([large, small], 2)
    np.testing.assert_allclose(together, [fractional_mms(large, 2), fractional_mms(small, 2)], rtol=1e-12)
