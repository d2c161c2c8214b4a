"""make_groupings: intersections, random splits, random groups, noisy labels; seeds and errors."""

import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairkit import FairkitWarning
from fairkit_subgroups._groupings import Noisy, RandomGroups, Split, make_groupings

FRAME = pd.DataFrame({"Y": [0, 1, 1, 0, 1, 0, 0, 1], "A": [1, 1, 0, 0, 1, 1, 0, 1],
                      "S": ["F", "M", "M", "F", "F", "M", "F", "M"]})


def sizes(labels):
    return pd.Series(labels).value_counts()


def test_columns_give_values_and_intersections():
    groupings = make_groupings(FRAME, {"S": "S", "Y": ["Y"], "AY": ["A", "Y"], "YAS": ["Y", "A", "S"]})
    np.testing.assert_array_equal(groupings["S"], FRAME["S"].to_numpy())
    np.testing.assert_array_equal(groupings["Y"], FRAME["Y"].to_numpy())
    assert groupings["AY"].tolist() == list(zip(FRAME["A"], FRAME["Y"], strict=True))
    assert groupings["YAS"].tolist() == list(zip(FRAME["Y"], FRAME["A"], FRAME["S"], strict=True))
    assert groupings["YAS"].shape == (len(FRAME),)


group_columns = st.lists(st.integers(0, 3), min_size=1, max_size=60)


@settings(max_examples=60, deadline=None)
@given(groups=group_columns, parts=st.integers(1, 5), seed=st.integers(0, 2**32 - 1))
def test_split_refines_each_group_into_near_equal_parts(groups, parts, seed):
    frame = pd.DataFrame({"g": groups})
    labels = make_groupings(frame, {"split": Split("g", parts)}, random_state=seed)["split"]
    assert [label[0] for label in labels] == groups  # each part lies within its group
    for group, size in sizes(groups).items():
        part_sizes = sizes([label[1] for label in labels if label[0] == group])
        assert len(part_sizes) == min(parts, size)
        assert part_sizes.max() - part_sizes.min() <= 1
        assert set(part_sizes.index) <= set(range(parts))


def test_split_puts_each_row_in_each_part_equally_often():
    frame = pd.DataFrame({"g": np.zeros(9, dtype=int)})  # one group of 9: parts of 5 and 4
    in_first = np.mean([[label[1] == 0 for label in make_groupings(frame, {"s": Split("g", 2)},
                                                                   random_state=seed)["s"]]
                        for seed in range(400)], axis=0)
    assert in_first == pytest.approx(np.full(9, 5 / 9), abs=0.1)  # standard error 0.025


def test_split_of_an_intersection_appends_the_part():
    labels = make_groupings(FRAME, {"AY_4": Split(["A", "Y"], 2)}, random_state=0)["AY_4"]
    assert [label[:2] for label in labels] == list(zip(FRAME["A"], FRAME["Y"], strict=True))
    assert {label[2] for label in labels} == {0, 1}


@settings(max_examples=60, deadline=None)
@given(n_rows=st.integers(1, 80), data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_random_groups_have_near_equal_sizes(n_rows, data, seed):
    n_groups = data.draw(st.integers(1, n_rows))
    frame = pd.DataFrame({"x": np.zeros(n_rows)})
    counts = sizes(make_groupings(frame, {"r": RandomGroups(n_groups)}, random_state=seed)["r"])
    assert sorted(counts.index) == list(range(n_groups))
    assert counts.max() - counts.min() <= 1


@settings(max_examples=60, deadline=None)
@given(groups=group_columns, fraction=st.floats(0, 1), seed=st.integers(0, 2**32 - 1))
def test_noisy_keeps_group_sizes_and_changes_at_most_its_share(groups, fraction, seed):
    frame = pd.DataFrame({"g": groups})
    labels = make_groupings(frame, {"noisy": Noisy("g", fraction)}, random_state=seed)["noisy"]
    pd.testing.assert_series_equal(sizes(labels).sort_index(), sizes(groups).sort_index())
    assert (labels != np.array(groups)).sum() <= round(fraction * len(groups))


def test_noisy_reassigns_round_fraction_n_rows():
    """With one group per row, the m = round(0.299 * 200) = 60 reassigned rows change label except for
    the fixed points of a random permutation of m, of which there is 1 on average: m - changed
    averages 1 over seeds (59 rows, as int() would give, would average 0)."""
    frame = pd.DataFrame({"id": np.arange(200)})
    unchanged = [60 - (make_groupings(frame, {"n": Noisy("id", 0.299)}, random_state=seed)["n"]
                       != frame["id"]).sum() for seed in range(300)]
    assert min(unchanged) >= 0
    assert np.mean(unchanged) == pytest.approx(1, abs=0.25)  # standard error 1 / sqrt(300)


def test_noisy_draws_labels_in_proportion_to_group_sizes():
    """9,000 rows of group 'big', 1,000 of 'small'; half reassigned: about 4,500 big rows are drawn,
    and a tenth of them (450) move to 'small'."""
    frame = pd.DataFrame({"g": ["big"] * 9000 + ["small"] * 1000})
    labels = make_groupings(frame, {"noisy": Noisy("g", 0.5)}, random_state=0)["noisy"]
    moved = ((frame["g"] == "big") & (labels == "small")).sum()
    assert abs(moved - 450) < 80  # standard deviation about 20


def test_reproducible_with_a_seed_and_global_state_untouched():
    frame = pd.DataFrame({"Y": np.arange(100) % 2, "A": np.arange(100) % 3})
    spec = {"split": Split(["A", "Y"], 3), "random": RandomGroups(5), "noisy": Noisy("A", 0.4)}
    state = pickle.dumps(np.random.get_state())  # noqa: NPY002

    def same(first, second):
        return all(np.array_equal(first[name], second[name]) for name in spec)

    assert same(make_groupings(frame, spec, random_state=7), make_groupings(frame, spec, random_state=7))
    assert same(make_groupings(frame, spec, random_state=np.random.RandomState(7)),
                make_groupings(frame, spec, random_state=np.random.RandomState(7)))
    seven, eight = (make_groupings(frame, spec, random_state=seed) for seed in (7, 8))
    assert all(not np.array_equal(seven[name], eight[name]) for name in spec)
    make_groupings(frame, spec)
    assert pickle.dumps(np.random.get_state()) == state  # noqa: NPY002


def test_a_bad_spec_draws_nothing():
    random_state = np.random.RandomState(0)
    state = pickle.dumps(random_state.get_state())
    with pytest.raises(ValueError, match="frame lacks"):
        make_groupings(FRAME, {"random": RandomGroups(2), "bad": "Z"}, random_state=random_state)
    assert pickle.dumps(random_state.get_state()) == state


def test_frame_is_left_unchanged():
    frame = FRAME.copy()
    spec = {"n": Noisy("Y", 1.0), "m": Noisy(["A", "Y"], 1.0), "s": Split("S", 2)}
    make_groupings(frame, spec, random_state=0)
    pd.testing.assert_frame_equal(frame, FRAME)


def test_continuous_column_warns():
    with pytest.warns(FairkitWarning, match="looks continuous"):
        make_groupings(pd.DataFrame({"age": np.arange(100)}), {"age": "age"})


@pytest.mark.parametrize(("frame", "spec", "error", "match"), [
    (FRAME.to_numpy(), {"Y": "Y"}, TypeError, "frame must be a pandas DataFrame"),
    (FRAME.iloc[:0], {"Y": "Y"}, ValueError, "frame has no rows"),
    (FRAME, {}, ValueError, "non-empty mapping"),
    (FRAME, [("Y", "Y")], ValueError, "non-empty mapping"),
    (FRAME, {"Z": "Z"}, ValueError, r"spec\['Z'\] names column\(s\) \['Z'\] that frame lacks"),
    (FRAME, {"AZ": Split(["A", "Z"])}, ValueError, r"names column\(s\) \['Z'\]"),
    (FRAME, {"none": []}, ValueError, "names no column"),
    (FRAME, {"d": {"Y": 1}}, TypeError, "must be a column, a list of columns"),
    (FRAME.assign(A=[1, None, 0, 0, 1, 1, 0, 1]), {"AY": ["A", "Y"]}, ValueError, r"missing values.*'A': 1"),
    (FRAME, {"r": RandomGroups(9)}, ValueError, "9 random groups of 8 rows"),
])
def test_errors(frame, spec, error, match):
    with pytest.raises(error, match=match):
        make_groupings(frame, spec)


@pytest.mark.parametrize(("make", "match"), [
    (lambda: Split("A", 0), r"Split\(parts\) must be an int >= 1"),
    (lambda: Split("A", 2.0), r"Split\(parts\)"),
    (lambda: Split([], 2), r"Split\(columns\) names no column"),
    (lambda: RandomGroups(0), r"RandomGroups\(n_groups\) must be an int >= 1"),
    (lambda: RandomGroups(True), r"RandomGroups\(n_groups\)"),
    (lambda: Noisy("A", 1.5), r"Noisy\(fraction\) must be a number in \[0, 1\]"),
    (lambda: Noisy("A", -0.1), r"Noisy\(fraction\)"),
    (lambda: Noisy("A", "10%"), r"Noisy\(fraction\)"),
])
def test_helper_errors(make, match):
    with pytest.raises(ValueError, match=match):
        make()
