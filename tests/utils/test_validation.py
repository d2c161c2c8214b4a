import copy as copy_module
import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.base import BaseEstimator

from fairkit.exceptions import FairkitWarning
from fairkit.utils.validation import (
    NO_GROUP,
    check_sensitive_features,
    encode_groups,
    fit_groups,
    predict_groups,
    resolve_sensitive_features,
)


class Holder(BaseEstimator):
    def __init__(self, sensitive_cols=None):
        self.sensitive_cols = sensitive_cols


def test_check_sensitive_features_shapes_and_names():
    assert list(check_sensitive_features([1, 2, 3]).columns) == ["sensitive_feature_0"]
    assert check_sensitive_features(np.zeros((4, 2))).shape == (4, 2)
    series = pd.Series(["a", "b"], index=[10, 20], name="sex")
    frame = check_sensitive_features(series)
    assert list(frame.columns) == ["sex"] and list(frame.index) == [0, 1]


@pytest.mark.parametrize(
    ("values", "match"),
    [
        (np.zeros((2, 2, 2)), "1-D or 2-D"),
        ([], "empty"),
        ([1.0, np.nan, 2.0], "missing values"),
        (pd.DataFrame({"race": ["a", None]}), "'race' \\(1 rows\\)"),
    ],
)
def test_check_sensitive_features_rejects(values, match):
    with pytest.raises(ValueError, match=match):
        check_sensitive_features(values)


def test_length_mismatch_names_both_lengths():
    with pytest.raises(ValueError, match="3 rows but X has 4 samples"):
        check_sensitive_features([0, 1, 0], n_samples=4)


def test_length_mismatch_names_what_the_samples_belong_to():
    with pytest.raises(ValueError, match="3 rows but y_true has 4 samples"):
        check_sensitive_features([0, 1, 0], n_samples=4, samples_of="y_true")


def test_sparse_sensitive_features_rejected():
    from scipy import sparse

    with pytest.raises(TypeError, match="dense"):
        check_sensitive_features(sparse.eye(3))


def test_resolve_from_columns_by_name_and_position():
    X = pd.DataFrame({"x": [1.0, 2.0, 3.0], "sex": ["F", "M", "F"], "race": [1, 2, 1]})
    by_name = resolve_sensitive_features(Holder(["sex", "race"]), X, None)
    by_position = resolve_sensitive_features(Holder([1, 2]), X, None)
    assert by_name.equals(by_position)
    assert list(by_name.columns) == ["sex", "race"]
    array = resolve_sensitive_features(Holder(1), X[["x", "race"]].to_numpy(), None)
    assert array.iloc[:, 0].tolist() == [1, 2, 1]


def test_resolve_from_columns_of_a_sparse_matrix():
    from scipy import sparse

    X = np.array([[0.0, 1.0, 0.0], [2.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    dense = resolve_sensitive_features(Holder([2, -3]), X, None)
    for matrix in (sparse.csr_matrix(X), sparse.coo_array(X)):
        assert resolve_sensitive_features(Holder([2, -3]), matrix, None).equals(dense)
    assert dense.to_numpy().tolist() == [[0.0, 0.0], [1.0, 2.0], [1.0, 0.0]]


@pytest.mark.parametrize(
    ("cols", "X", "match"),
    [
        (["age"], pd.DataFrame({"x": [1, 2]}), "age"),
        ([5], np.zeros((2, 2)), "out of range"),
        (["sex"], np.zeros((2, 2)), "no column names"),
        ([], np.zeros((2, 2)), "empty"),
    ],
)
def test_resolve_bad_columns(cols, X, match):
    with pytest.raises(ValueError, match=match):
        resolve_sensitive_features(Holder(cols), X, None)


def test_resolve_rejects_both_sources():
    with pytest.raises(ValueError, match="twice"):
        resolve_sensitive_features(Holder([0]), np.zeros((2, 2)), [0, 1])


def test_resolve_none_when_nothing_given():
    assert resolve_sensitive_features(Holder(), np.zeros((2, 2)), None) is None


@given(st.lists(st.tuples(st.sampled_from("ab"), st.integers(0, 2)), min_size=1, max_size=40))
def test_encode_groups_is_a_bijection_on_combinations(rows):
    frame = pd.DataFrame(rows, columns=["sex", "race"])
    groups, codes = encode_groups(frame)
    assert sorted(groups.tolist()) == sorted(set(rows))
    assert [tuple(groups[c]) for c in codes] == rows
    # encoding again with the learned groups gives the same codes
    assert np.array_equal(encode_groups(frame, groups)[1], codes)


def test_encode_groups_unseen_and_column_count():
    groups, _ = encode_groups(pd.DataFrame({"g": ["a", "b"]}))
    with pytest.raises(ValueError, match="not seen during fit: 'c'"):
        encode_groups(pd.DataFrame({"g": ["a", "c"]}), groups)
    pair_groups, _ = encode_groups(pd.DataFrame({"g": ["a"], "h": [1]}))
    with pytest.raises(ValueError, match="2 sensitive feature column"):
        encode_groups(pd.DataFrame({"g": ["a"]}), pair_groups)


def test_encode_groups_mixed_types():
    values = pd.Series(["b", 1, "b"], dtype=object)
    groups, codes = encode_groups(pd.DataFrame({"g": values}))
    assert sorted(groups.tolist(), key=str) == [1, "b"]
    assert groups[codes].tolist() == values.tolist()


def test_fit_groups_without_features_warns_and_uses_one_group():
    with pytest.warns(FairkitWarning, match="one group"):
        groups, codes = fit_groups(Holder(), np.zeros((3, 2)), None)
    assert groups.tolist() == [NO_GROUP] and codes.tolist() == [0, 0, 0]


def test_predict_groups_consistency_with_fit():
    estimator = Holder()
    estimator.groups_, _ = fit_groups(estimator, np.zeros((3, 1)), ["x", "y", "x"])
    assert predict_groups(estimator, np.zeros((2, 1)), ["y", "x"]).tolist() == [1, 0]
    with pytest.raises(ValueError, match="give them here too"):
        predict_groups(estimator, np.zeros((2, 1)), None)
    with pytest.warns(FairkitWarning):
        estimator.groups_, _ = fit_groups(estimator, np.zeros((3, 1)), None)
    with pytest.raises(ValueError, match="fitted without sensitive features"):
        predict_groups(estimator, np.zeros((2, 1)), ["x", "y"])


def test_a_real_group_printed_like_the_no_group_marker_is_not_taken_for_it():
    estimator = Holder()
    estimator.groups_, _ = fit_groups(estimator, np.zeros((3, 1)), [str(NO_GROUP)] * 3)
    assert estimator.groups_[0] is not NO_GROUP
    assert predict_groups(estimator, np.zeros((2, 1)), [str(NO_GROUP)] * 2).tolist() == [0, 0]
    with pytest.raises(ValueError, match="give them here too"):
        predict_groups(estimator, np.zeros((2, 1)), None)


def test_the_no_group_marker_survives_pickling_and_cloning():
    estimator = Holder()
    with pytest.warns(FairkitWarning):
        estimator.groups_, _ = fit_groups(estimator, np.zeros((3, 1)), None)
    for copy in (pickle.loads(pickle.dumps(estimator)), copy_module.deepcopy(estimator)):
        assert copy.groups_[0] is NO_GROUP
        assert predict_groups(copy, np.zeros((2, 1)), None).tolist() == [0, 0]
