"""SelectiveRanker against the reference package ``selectiverank`` (spa/spa.py): equal where the
reference is right, and different, as intended, where it is not (float thresholds, path lookup)."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from fairkit.datasets import make_preference_profiles
from fairkit.ranking import SelectiveRanker

pytest.importorskip("spa.spa", reason="the reference package selectiverank is not installed")
from fairkit.ranking._reference import (  # noqa: E402
    assert_same_path,
    reference_fit,
    reference_lookup,
    reference_path,
)


def check_path(X, reference, missing="ignore", input_type="ranks"):
    assert reference
    path = SelectiveRanker(input_type=input_type, missing=missing).path(X)
    assert_same_path(path, reference, X.shape[0])


@st.composite
def mallows_profiles(draw, missing_rate=0.0):
    """Mallows profiles, so that judges agree enough for the reference to find a path;
    ``n_judges`` a power of 2 so that ``(w / p) * p == w`` in floating point."""
    kind = draw(st.sampled_from(["ranks", "ratings"]))
    X, _ = make_preference_profiles(
        draw(st.sampled_from([8, 16, 32, 64])), draw(st.integers(3, 7)), kind=kind,
        dispersion=draw(st.floats(0.05, 0.9)), missing_rate=missing_rate, n_levels=3,
        random_state=draw(st.integers(0, 2**16)))
    return X, kind


@settings(max_examples=25, deadline=None)
@given(profile=mallows_profiles())
def test_same_path_as_the_reference_without_missing_data(profile):
    X, input_type = profile
    reference = reference_path(X, input_type)
    assume(reference)  # the reference returns nothing for fewer than two candidate levels
    check_path(X, reference, input_type=input_type)


@settings(max_examples=15, deadline=None)
@given(profile=mallows_profiles(missing_rate=0.2))
def test_same_path_as_the_reference_with_missing_counted_as_dissent(profile):
    # selectiverank 0.0.1 (the PyPI release) counts missing answers as dissent. It fails
    # on a pair that no judge answers, so the first judge answers all.
    X, input_type = profile
    X[0] = np.arange(X.shape[1])
    reference = reference_path(X, input_type)
    assume(reference)
    check_path(X, reference, missing="dissent", input_type=input_type)


def test_same_path_on_a_mallows_profile():
    X, _ = make_preference_profiles(64, 8, dispersion=0.8, random_state=0)
    check_path(X, reference_path(X))


@pytest.mark.parametrize("n_judges", [100, 300, 5000])
def test_same_path_on_larger_profiles_modulo_float_thresholds(n_judges):
    X, _ = make_preference_profiles(n_judges, 10, dispersion=0.9, random_state=n_judges)
    check_path(X, reference_path(X))


@pytest.mark.slow
def test_same_path_on_many_items():
    X, _ = make_preference_profiles(1000, 60, dispersion=0.9, random_state=0)
    check_path(X, reference_path(X))


def test_reference_keeps_an_edge_at_tau_equal_to_its_dissent():
    # 71 judges prefer item 0 to item 1, 29 item 1; all put item 2 last. "0 above 1" has
    # dissent 29/100; the reference tests 29 <= 0.29 * 100 == 28.999999999999996.
    X = np.array([[1, 2, 3]] * 71 + [[2, 1, 3]] * 29, dtype=float)
    ours = SelectiveRanker(tau=0.29).fit(X)
    assert ours.tier_of_item_.tolist() == [0, 1, 2] and ours.dissent_matrix_[0, 1] == 0.29
    assert reference_fit(X, 0.29).tolist() == [0, 0, 1]  # it abstains on (0, 1)
    assert reference_fit(X, 0.2901).tolist() == [0, 1, 2]
    # 29/100 is the last candidate level below 1/2, so the reference's path misses the split.
    assert list(reference_path(X)) == [0.0]
    path = SelectiveRanker().path(X)
    assert path.taus.tolist() == [0.0, 0.29] and path.at(0.29).tolist() == [0, 1, 2]


def test_reference_path_lookup_returns_the_next_larger_level(data_home):
    from fairkit.datasets import load_nba_coach_votes

    X = load_nba_coach_votes(data_home=data_home).data
    ours = SelectiveRanker().path(X).at(0.27)
    theirs = reference_lookup(X, 0.27)
    assert ours.max() + 1 == 2 and theirs.max() + 1 == 3  # the reference returns tau=0.28's
    np.testing.assert_array_equal(ours, SelectiveRanker(tau=0.27).fit(X).tier_of_item_)
    # The reference's answer claims a comparison that 28 voters out of 100 dissent from.
    dissent = SelectiveRanker().fit(X).dissent_matrix_
    claimed = theirs[:, None] < theirs[None, :]
    assert dissent[claimed].max() == 0.28
