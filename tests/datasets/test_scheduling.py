"""make_scheduling_instance: the documented distribution, identical groups, infeasible pairs."""

import numpy as np
import pytest

from fairkit.datasets import make_scheduling_instance
from fairkit.registry import all_datasets


def test_registered():
    assert all_datasets()["make_scheduling_instance"] is make_scheduling_instance


def test_unrelated_times_are_uniform_integers():
    P = make_scheduling_instance(2000, np.arange(10), max_time=5, random_state=0)
    assert P.shape == (2000, 10) and P.dtype == float
    values, counts = np.unique(P, return_counts=True)
    np.testing.assert_array_equal(values, [1, 2, 3, 4, 5])
    np.testing.assert_allclose(counts / P.size, 0.2, atol=0.01)
    assert np.corrcoef(P[:, 0], P[:, 1])[0, 1] == pytest.approx(0, abs=0.06)  # independent


def test_identical_groups_share_times_and_groups_differ():
    groups = ["b", "a", "b", "a", "a"]
    P = make_scheduling_instance(300, groups, kind="identical", random_state=1)
    np.testing.assert_array_equal(P[:, 0], P[:, 2])
    np.testing.assert_array_equal(P[:, 1], P[:, 3])
    np.testing.assert_array_equal(P[:, 1], P[:, 4])
    assert not np.array_equal(P[:, 0], P[:, 1])
    assert P.min() >= 1 and P.max() <= 100


def test_infeasible_pairs_keep_one_machine_per_job_and_group():
    groups = np.repeat([0, 1, 2], [1, 3, 4])
    P = make_scheduling_instance(500, groups, infeasible_rate=0.5, random_state=2)
    for g in range(3):
        assert np.isfinite(P[:, groups == g]).any(axis=1).all()
    assert np.isfinite(P[:, 0]).all()  # a one-machine group never loses a job
    share = np.isinf(P[:, groups == 2]).mean()
    assert 0.3 < share < 0.45  # 0.5 * (1 - 1/4) in expectation
    assert not np.isinf(make_scheduling_instance(50, groups, random_state=2)).any()


def test_reproducible():
    first = make_scheduling_instance(20, [0, 0, 1], infeasible_rate=0.2, random_state=3)
    np.testing.assert_array_equal(
        first, make_scheduling_instance(20, [0, 0, 1], infeasible_rate=0.2, random_state=3))
    assert not np.array_equal(first, make_scheduling_instance(20, [0, 0, 1], infeasible_rate=0.2,
                                                              random_state=4))


@pytest.mark.parametrize("kwargs, message", [
    ({"n_jobs": 0}, "n_jobs"),
    ({"machine_groups": []}, "machine_groups"),
    ({"machine_groups": [[0, 1]]}, "machine_groups"),
    ({"kind": "related"}, "kind"),
    ({"max_time": 0}, "max_time"),
    ({"infeasible_rate": 1.0}, "infeasible_rate"),
    ({"kind": "identical", "infeasible_rate": 0.1}, "identical"),
])
def test_bad_arguments(kwargs, message):
    arguments = {"n_jobs": 5, "machine_groups": [0, 1]} | kwargs
    with pytest.raises(ValueError, match=message):
        make_scheduling_instance(**arguments)
