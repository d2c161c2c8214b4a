"""Shared machinery: sensitive-feature validation, the random_state policy and the public estimator checks."""

from fairkit.utils._random import local_generator, local_random_state
from fairkit.utils.validation import (
    check_2d,
    check_numbers,
    check_numeric_features,
    check_same_index,
    check_sensitive_features,
    drop_sensitive_cols,
    encode_groups,
    fit_groups,
    looks_continuous,
    predict_groups,
    resolve_sensitive_features,
)

__all__ = [
    "check_2d",
    "check_numbers",
    "check_numeric_features",
    "check_same_index",
    "check_sensitive_features",
    "drop_sensitive_cols",
    "encode_groups",
    "fit_groups",
    "local_generator",
    "local_random_state",
    "looks_continuous",
    "predict_groups",
    "resolve_sensitive_features",
]
