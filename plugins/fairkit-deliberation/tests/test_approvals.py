"""is_justified and coverage: known answers, the definition by brute force, and abcvoting's JR check."""

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

from fairkit_deliberation import coverage, is_justified


@st.composite
def profiles(draw, max_users=8, max_comments=6):
    """A random 0/1 approval profile, a selection of its comments and a committee size k."""
    n_users = draw(st.integers(1, max_users))
    n_comments = draw(st.integers(1, max_comments))
    density = draw(st.sampled_from([0.2, 0.5, 0.8]))
    seed = draw(st.integers(0, 2**32 - 1))
    approvals = (np.random.default_rng(seed).random((n_users, n_comments)) < density).astype(int)
    selection = draw(st.lists(st.integers(0, n_comments - 1), unique=True, max_size=n_comments))
    k = draw(st.integers(max(len(selection), 1), n_comments + 2))
    return approvals, np.array(selection, dtype=int), k


def justified_by_definition(approvals, selection, k):
    """JR straight from its definition: try every group of at least n/k users."""
    n_users = approvals.shape[0]
    left_out = [i for i in range(n_users) if not approvals[i, selection].any()]
    for size in range(1, len(left_out) + 1):
        if size * k < n_users:
            continue
        for group in combinations(left_out, size):
            if approvals[list(group)].all(axis=0).any():  # a comment they all approve
                return False
    return True


@settings(max_examples=120, deadline=None)
@given(profiles())
def test_is_justified_matches_the_definition(profile):
    approvals, selection, k = profile
    assert is_justified(approvals, selection, k=k) == justified_by_definition(approvals, selection, k)


@settings(max_examples=120, deadline=None)
@given(profiles(max_users=15, max_comments=8))
def test_is_justified_agrees_with_abcvoting(profile):
    preferences = pytest.importorskip("abcvoting.preferences")
    properties = pytest.importorskip("abcvoting.properties")
    approvals, selection, k = profile
    profile = preferences.Profile(approvals.shape[1])
    profile.add_voters([set(np.flatnonzero(row).tolist()) for row in approvals])
    expected = properties.check_JR(profile, set(selection.tolist()), quota=approvals.shape[0] / k)
    assert is_justified(approvals, selection, k=k) == expected


def test_is_justified_known_answers():
    approvals = np.array([[1, 0, 0]] * 6 + [[0, 1, 0]] * 3 + [[0, 0, 1]])
    # n = 10, k = 3: groups of 4 or more users deserve a comment (3 * 4 >= 10)
    assert is_justified(approvals, [0, 2], k=3)  # the 3 users of comment 1 are below the quota
    assert not is_justified(approvals, [0, 2], k=4)  # with k = 4, 3 users reach n/k = 2.5
    assert not is_justified(approvals, [1, 2])  # k = 2: the 6 users of comment 0 are left out
    assert is_justified(np.zeros((4, 3)), [0])  # nobody approves anything
    assert is_justified(approvals, [0, 1, 2])


def test_the_quota_is_not_strict():
    # n = 4, k = 2: a left-out group of exactly n/k = 2 users violates JR
    approvals = np.array([[1, 0], [1, 0], [0, 1], [0, 1]])
    assert not is_justified(approvals, [0], k=2)
    assert is_justified(approvals, [0], k=1)


def test_probabilities_are_thresholded_and_sparse_input_agrees():
    probs = np.array([[0.9, 0.2], [0.6, 0.5], [0.1, 0.51], [0.3, 0.7]])
    assert coverage(probs, [0]) == 0.5
    assert coverage(probs, [1]) == 0.5  # 0.5 itself is not an approval
    assert coverage(probs, [1], approval_threshold=0.4) == 0.75
    for selection in ([0], [1], [0, 1]):
        for k in (1, 2, 4):
            expected = is_justified(probs, selection, k=k)
            assert is_justified(sparse.csr_matrix(probs), selection, k=k) == expected


@settings(max_examples=100, deadline=None)
@given(profiles())
def test_coverage_counts_users_with_an_approved_selected_comment(profile):
    approvals, selection, _ = profile
    expected = np.mean([approvals[i, selection].any() for i in range(approvals.shape[0])])
    assert coverage(approvals, selection) == pytest.approx(expected)
    assert coverage(sparse.csc_matrix(approvals), selection) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("selection", "kwargs", "message"),
    [
        ([0, 5], {}, "outside"),
        ([0, 0], {}, "more than once"),
        ([[0, 1]], {}, "1-D array"),
        ([0.5], {}, "1-D array of comment indices"),
        ([0], {"k": 0}, "positive integer"),
        ([0], {"approval_threshold": -0.1}, "approval_threshold"),
    ],
)
def test_bad_input_raises_a_clear_error(selection, kwargs, message):
    with pytest.raises(ValueError, match=message):
        is_justified(np.eye(3), selection, **kwargs)


def test_approvals_with_nan_are_rejected():
    with pytest.raises(ValueError, match="NaN"):
        coverage([[np.nan, 1.0]], [0])


# Bad input (issue 14)

@pytest.mark.parametrize("check", [lambda a: is_justified(a, [0]), lambda a: coverage(a, [0])],
                         ids=["is_justified", "coverage"])
def test_negative_approvals_are_refused_naming_approvals(check):
    with pytest.raises(ValueError, match=r"Negative values in data: approvals holds approval values below 0"):
        check([[1.0, -1.0], [0.0, 1.0]])
