"""Shared machinery: sensitive-feature validation, the random_state policy and the public estimator checks.

:mod:`fairkit.utils.nn` holds the building blocks of torch networks (the ``nn`` extra); it is
not imported here, so that ``import fairkit`` never imports torch.
"""

from fairkit.utils._random import local_generator, local_random_state
from fairkit.utils.validation import (
    all_or_nothing,
    check_2d,
    check_layer_sizes,
    check_numbers,
    check_numeric_features,
    check_same_index,
    check_sensitive_features,
    drop_sensitive_cols,
    encode_groups,
    fit_groups,
    looks_continuous,
    model_features,
    predict_groups,
    resolve_sensitive_features,
)

__all__ = [
    "all_or_nothing",
    "check_2d",
    "check_layer_sizes",
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
    "model_features",
    "predict_groups",
    "resolve_sensitive_features",
]
