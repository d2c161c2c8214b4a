"""MMSScheduler: known answers, guarantees against brute-force maximin shares, input errors."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone

from fairkit.datasets import make_scheduling_instance
from fairkit.exceptions import FairkitWarning
from fairkit.scheduling import MMSScheduler, lst_schedule, maximin_shares
from fairkit.scheduling._milp import best_ratio_allocation


def recomputed_costs(P, assignment, group, n_groups):
    loads = np.bincount(assignment, weights=P[np.arange(P.shape[0]), assignment],
                        minlength=P.shape[1])
    return np.array([loads[group == g].max() for g in range(n_groups)])


@st.composite
def fair_instances(draw, kind="unrelated"):
    machines = draw(st.lists(st.integers(1, 2), min_size=1, max_size=3))
    group = np.repeat(np.arange(len(machines)), machines)
    n_jobs = draw(st.integers(1, 5 if group.size > 3 else 6))
    rate = draw(st.sampled_from([0.0, 0.3])) if kind == "unrelated" else 0.0
    P = make_scheduling_instance(n_jobs, group, kind=kind, max_time=draw(st.integers(1, 30)),
                                 infeasible_rate=rate, random_state=draw(st.integers(0, 10**6)))
    return P, group


@settings(max_examples=40, deadline=None)
@given(instance=fair_instances())
def test_unrelated_allocation_is_two_mms(instance, oracles):
    P, group = instance
    n_groups = group.max() + 1
    mms = oracles.mms(P, group)
    scheduler = MMSScheduler(group).fit(P)
    assert scheduler.machine_model_ in ("unrelated", "identical")
    assert scheduler.assignment_.shape == (P.shape[0],)  # every job on exactly one machine
    assert np.isfinite(P[np.arange(P.shape[0]), scheduler.assignment_]).all()
    costs = recomputed_costs(P, scheduler.assignment_, group, n_groups)
    np.testing.assert_allclose(scheduler.group_costs_, costs)
    assert (scheduler.mms_bounds_ <= mms + 1e-9).all()
    assert (costs <= scheduler.guarantee_ * mms + 1e-7).all()
    if scheduler.machine_model_ == "unrelated":
        assert 1 <= scheduler.guarantee_ <= 2 + 1e-7
        assert (costs <= 2 * scheduler.mms_bounds_ + 1e-7).all()


@settings(max_examples=30, deadline=None)
@given(instance=fair_instances(kind="identical"))
def test_identical_allocation_is_four_thirds_mms_with_exact_shares(instance, oracles):
    P, group = instance
    mms = oracles.mms(P, group)
    scheduler = MMSScheduler(group, mms="exact").fit(P)
    assert scheduler.machine_model_ == "identical"
    np.testing.assert_allclose(scheduler.mms_bounds_, mms)
    assert scheduler.guarantee_ <= 4 / 3 + 1e-12
    costs = recomputed_costs(P, scheduler.assignment_, group, group.max() + 1)
    assert (costs <= 4 / 3 * mms + 1e-9).all()


@settings(max_examples=30, deadline=None)
@given(instance=fair_instances(kind="identical"))
def test_identical_with_bounds_keeps_its_certified_guarantee(instance, oracles):
    P, group = instance
    mms = oracles.mms(P, group)
    scheduler = MMSScheduler(group).fit(P)
    assert (scheduler.mms_bounds_ <= mms + 1e-9).all()
    assert scheduler.guarantee_ < 16 / 9
    costs = recomputed_costs(P, scheduler.assignment_, group, group.max() + 1)
    assert (costs <= scheduler.guarantee_ * mms + 1e-9).all()


@settings(max_examples=25, deadline=None)
@given(P=st.integers(0, 10**6).map(
    lambda seed: make_scheduling_instance(7, [0, 0, 0], max_time=50, infeasible_rate=0.3,
                                          random_state=seed)))
def test_one_group_is_lst(P):
    scheduler = MMSScheduler(1, machine_model="unrelated").fit(P)
    np.testing.assert_array_equal(scheduler.assignment_, lst_schedule(P))
    assert (scheduler.job_groups_ == 0).all()


@pytest.mark.parametrize("seed", range(6))
def test_two_groups_with_a_single_machine_group_admit_an_exact_mms_allocation(seed, oracles):
    # cut and choose: the multi-machine group cuts into its MMS partition, the other chooses
    P = make_scheduling_instance(5, [0, 0, 1], max_time=12, random_state=seed)
    group = np.array([0, 0, 1])
    shares = maximin_shares(P, group, method="exact")
    best = best_ratio_allocation(P, group, shares, initial=MMSScheduler(group).fit(P).assignment_)
    assert best.optimal and best.makespan <= 1 + 1e-9
    assert best.makespan == pytest.approx(oracles.best_ratio(P, group, shares))


@pytest.mark.parametrize("m", [3, 4])
def test_lst_gap_family_as_one_group(m):
    P = np.full((m * (m - 1) + 1, m), np.inf)
    for k in range(m):
        P[k * (m - 1):(k + 1) * (m - 1), k] = 1.0
    P[-1] = m
    scheduler = MMSScheduler(1, mms="exact").fit(P)
    assert scheduler.mms_bounds_[0] == 2 * m - 1  # the optimum
    assert scheduler.group_costs_[0] == 2 * m - 1
    assert MMSScheduler(1).fit(P).mms_bounds_[0] == pytest.approx(m)  # the LP bound


def test_known_answers_for_one_group():
    P = np.array([[10, 5, 7], [10, 2, 5], [1, 6, 6]], dtype=float).T
    scheduler = MMSScheduler(1, mms="exact").fit(P)
    assert scheduler.mms_bounds_[0] == 5 and scheduler.group_costs_[0] <= 10
    sizes = np.tile(np.array([[5, 5, 4, 4, 3, 3, 3.0]]).T, 3)  # LPT's tight instance
    scheduler = MMSScheduler(1, mms="exact").fit(sizes)
    assert scheduler.machine_model_ == "identical"
    assert scheduler.mms_bounds_[0] == 9 and scheduler.group_costs_[0] <= 12


def test_fitted_attributes_and_labels():
    P = make_scheduling_instance(12, ["x", "x", "y", "y", "y"], random_state=0)
    frame = pd.DataFrame(P, columns=[f"m{k}" for k in range(5)])
    scheduler = MMSScheduler(["x", "x", "y", "y", "y"])
    labels = scheduler.fit_predict(frame)
    np.testing.assert_array_equal(labels, scheduler.job_groups_)
    assert set(labels) <= {"x", "y"}
    np.testing.assert_array_equal(scheduler.groups_, ["x", "y"])
    np.testing.assert_array_equal(scheduler.feature_names_in_, frame.columns)
    assert scheduler.n_features_in_ == 5
    for k, jobs in enumerate(scheduler.schedule_):
        assert (scheduler.assignment_[jobs] == k).all()
        assert scheduler.machine_loads_[k] == pytest.approx(P[jobs, k].sum())
    assert sum(len(jobs) for jobs in scheduler.schedule_) == 12
    np.testing.assert_allclose(scheduler.mms_ratios_,
                               scheduler.group_costs_ / scheduler.mms_bounds_)


def test_int_machine_groups_split_machines_into_contiguous_blocks():
    P = make_scheduling_instance(9, [0, 0, 0, 1, 1], random_state=1)
    by_count = MMSScheduler(2).fit(P)
    by_label = MMSScheduler([0, 0, 0, 1, 1]).fit(P)
    np.testing.assert_array_equal(by_count.assignment_, by_label.assignment_)


def test_cbc_and_highs_find_the_same_shares():
    P = make_scheduling_instance(6, [0, 0, 1], max_time=15, random_state=2)
    highs = MMSScheduler([0, 0, 1], mms="exact").fit(P)
    cbc = MMSScheduler([0, 0, 1], mms="exact", solver="cbc").fit(P)
    np.testing.assert_allclose(highs.mms_bounds_, cbc.mms_bounds_)


def test_exact_time_limit_warns():
    P = make_scheduling_instance(60, [0] * 4 + [1] * 4, random_state=0)
    with pytest.warns(FairkitWarning, match="time limit"):
        scheduler = MMSScheduler(2, mms="exact", time_limit=0.01).fit(P)
    assert (scheduler.mms_bounds_ >= MMSScheduler(2).fit(P).mms_bounds_ - 1e-9).all()


def test_groups_that_see_zero_work_get_ratio_zero():
    P = np.array([[0.0, 3.0], [0.0, 3.0]])
    scheduler = MMSScheduler([0, 1]).fit(P)
    assert scheduler.group_costs_[0] == 0 and scheduler.mms_bounds_[0] == 0
    assert scheduler.mms_ratios_[0] == 0


# Bad input (issue 14)

@pytest.mark.parametrize("X, groups, model, message", [
    ([[1.0, -2.0]], 2, "auto", "Negative values in data: X holds processing times below 0"),
    ([[1.0, np.nan]], 2, "auto", "X holds NaN"),
    ([[1.0, 2.0, 3.0]], [0, 1], "auto", "3 machines"),
    ([[1.0, 2.0]], 3, "auto", "at least one machine per group"),
    ([[1.0, np.inf, 2.0]], [0, 0, 1], "auto", None),
    ([[np.inf, np.inf, 2.0]], [0, 0, 1], "auto", "cannot run on any machine of group 0"),
    ([[1.0, 2.0, 2.0]], [0, 0, 1], "identical", "identical"),
    ([[1.0, 2.0]], [[0, 1]], "auto", "1-D"),
    ([[1e308, 1e308]] * 3, 2, "auto", "too large.*Divide them by a constant"),
    ([[1.0, 2.0, 3.0]], [None, 1, 1], "auto", "machine_groups mixes labels that cannot be sorted"),
    (np.empty((0, 3)), [0, 0, 1], "auto", "0 sample"),
])
def test_bad_input_raises_and_changes_nothing(X, groups, model, message):
    good = make_scheduling_instance(4, [0, 0, 1], random_state=0)
    scheduler = MMSScheduler(groups, machine_model=model)
    if message is None:  # a valid instance with an inf entry
        assert scheduler.fit(np.array(X)).assignment_.tolist() == [0]
        return
    fitted = clone(scheduler).set_params(machine_groups=[0, 0, 1], machine_model="auto").fit(good)
    state = {key: value for key, value in vars(fitted).items() if key.endswith("_")}
    with pytest.raises(ValueError, match=message):
        scheduler.fit(np.array(X))
    with pytest.raises(ValueError, match=message):
        fitted.set_params(machine_groups=groups, machine_model=model).fit(np.array(X))
    for key, value in state.items():
        assert getattr(fitted, key) is value, f"{key} changed"
    assert not any(key.endswith("_") for key in vars(scheduler))


@pytest.mark.parametrize("X", [np.array([["x", 1, 2]] * 4, dtype=object),
                               pd.DataFrame({"m0": ["3", "fast"], "m1": [1.0, 2.0]})])
def test_strings_in_x_name_x_and_say_times_must_be_numbers(X):
    scheduler = MMSScheduler(2)
    # Before: numpy's "could not convert string to float: 'x'", naming no argument.
    with pytest.raises(ValueError, match=r"X holds values that are not numbers \(could not convert "
                                         r"string to float: '(x|fast)'\); processing times must be "
                                         r"numbers >= 0"):
        scheduler.fit(X)
    assert not any(key.endswith("_") for key in vars(scheduler))


@pytest.mark.parametrize("factor", [1e300, 1e16, 1e9, 1e-12])
@pytest.mark.parametrize("mms", ["bound", "exact"])
def test_times_of_any_magnitude_give_the_shares_of_the_unscaled_instance(factor, mms):
    # 1e300 and 1e16 reached HiGHS unscaled ("model error"); at 1e9 HiGHS proved a wrong
    # exact share (16e9 for 13e9), at 1e-12 its absolute tolerances did
    P = make_scheduling_instance(7, [0, 0, 1], max_time=15, infeasible_rate=0.2, random_state=2)
    reference = MMSScheduler([0, 0, 1], mms=mms).fit(P)
    scaled = MMSScheduler([0, 0, 1], mms=mms).fit(P * factor)
    np.testing.assert_allclose(scaled.mms_bounds_, reference.mms_bounds_ * factor, rtol=1e-9)
    assert scaled.machine_model_ == reference.machine_model_
    assert scaled.guarantee_ == pytest.approx(reference.guarantee_, rel=1e-7)
    assert (scaled.group_costs_ <= scaled.guarantee_ * scaled.mms_bounds_ * (1 + 1e-9)).all()


def test_public_functions_take_times_of_any_magnitude():
    P = make_scheduling_instance(6, [0, 0, 1], max_time=15, random_state=2)
    np.testing.assert_allclose(maximin_shares(P * 1e300, [0, 0, 1]),
                               maximin_shares(P, [0, 0, 1]) * 1e300, rtol=1e-12)
    np.testing.assert_array_equal(lst_schedule(P * 2.0**900), lst_schedule(P))
    with pytest.raises(ValueError, match="P are too large"):
        lst_schedule(np.full((3, 2), 1e308))
