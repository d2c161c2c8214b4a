import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairkit.datasets import inject_malicious_noise, make_fair_classification
from fairkit.registry import all_datasets


@pytest.fixture(scope="module")
def data():
    X, y, group = make_fair_classification(400, 3, group_weights=[0.7, 0.3], random_state=0)
    return X, y, group


@settings(max_examples=30, deadline=None)
@given(share=st.floats(0.0, 1.0), seed=st.integers(0, 1000))
def test_relabel_turns_target_positives_negative(data, share, seed):
    X, y, group = data
    rate = share * np.sum((group == 1) & (y == 1)) / len(y)  # up to every positive of group 1
    X_noisy, y_noisy, g_noisy = inject_malicious_noise(X, y, group, rate, strategy="relabel",
                                                       random_state=seed)
    changed = y_noisy != y
    assert changed.sum() == round(rate * len(y))
    assert np.all(group[changed] == 1) and np.all(y[changed] == 1)  # the smaller group, positives
    np.testing.assert_array_equal(X_noisy, X)
    np.testing.assert_array_equal(g_noisy, group)


@settings(max_examples=30, deadline=None)
@given(rate=st.floats(0.001, 0.3), seed=st.integers(0, 1000))
def test_default_is_malicious_noise_one_flipped_point_added(data, rate, seed):
    # D' = (1 - rate) D + rate Q: every row is its own original or a copy of the adversary's point
    X, y, group = data
    X_noisy, y_noisy, g_noisy = inject_malicious_noise(X, y, group, rate, target_group=0, random_state=seed)
    rows, counts = np.unique(X_noisy, axis=0, return_counts=True)
    atom = rows[np.argmax(counts)]
    copies = np.all(X_noisy == atom, axis=1)
    assert counts.max() >= round(rate * len(y))
    assert len(X_noisy) == len(X) and np.all(g_noisy[copies] == 0)
    original = np.flatnonzero(np.all(atom == X, axis=1))[0]
    flipped_copies = copies & (y_noisy != y[original])
    assert flipped_copies.sum() == round(rate * len(y))
    untouched = np.all(X_noisy == X, axis=1) & (y_noisy == y) & (g_noisy == group)
    assert np.all(untouched | flipped_copies)


def test_keeps_pandas_types_and_is_reproducible(data):
    X, y, group = data
    frame, series, groups = pd.DataFrame(X), pd.Series(y), pd.Series(group)
    first = inject_malicious_noise(frame, series, groups, 0.05, strategy="duplicate", random_state=3)
    second = inject_malicious_noise(frame, series, groups, 0.05, strategy="duplicate", random_state=3)
    assert isinstance(first[0], pd.DataFrame) and isinstance(first[1], pd.Series)
    pd.testing.assert_series_equal(first[1], second[1])


def test_errors(data):
    X, y, group = data
    with pytest.raises(ValueError, match="only"):
        inject_malicious_noise(X, y, group, 0.9, strategy="relabel")
    with pytest.raises(ValueError, match="strategy"):  # "flip" was not malicious noise: now "relabel"
        inject_malicious_noise(X, y, group, 0.1, strategy="flip")
    with pytest.raises(ValueError, match="not a group"):
        inject_malicious_noise(X, y, group, 0.1, target_group=7)
    with pytest.raises(ValueError, match="two labels"):
        inject_malicious_noise(X, np.arange(len(y)) % 3, group, 0.1)
    with pytest.raises(ValueError, match="rate"):
        inject_malicious_noise(X, y, group, 1.0)


# Bad input (issue 14)

def test_string_labels_need_pos_label_to_relabel(data):
    X, y, group = data
    named = np.where(y == 1, "approved", "rejected")
    # Before: "the larger one is the positive label": 'rejected' was relabelled 'approved',
    # helping the group the attack aims at.
    with pytest.raises(ValueError, match="Give pos_label= to name the positive label"):
        inject_malicious_noise(X, named, group, 0.05, strategy="relabel")
    _, noisy, _ = inject_malicious_noise(X, named, group, 0.05, strategy="relabel", pos_label="approved",
                                         random_state=0)
    assert ((named == "approved") & (noisy == "rejected")).sum() == 20
    assert not ((named == "rejected") & (noisy == "approved")).any()


def test_x_and_y_of_different_lengths_are_named(data):
    X, y, group = data
    with pytest.raises(ValueError, match="X has 200 samples but y has 400"):
        inject_malicious_noise(X[:200], y, group, 0.1)


def test_continuous_y_is_refused_as_not_binary(data):
    X, y, group = data
    with pytest.raises(ValueError, match="exactly two labels to flip, got 400 \\(0.0, "):
        inject_malicious_noise(X, np.linspace(0, 1, len(y)), group, 0.1)


def test_not_registered_as_a_data_set():
    assert "inject_malicious_noise" not in all_datasets()
