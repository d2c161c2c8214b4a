"""Shared machinery: sensitive-feature validation and the public estimator checks."""

from fairkit.utils.validation import (
    check_sensitive_features,
    encode_groups,
    fit_groups,
    predict_groups,
    resolve_sensitive_features,
)

__all__ = [
    "check_sensitive_features",
    "encode_groups",
    "fit_groups",
    "predict_groups",
    "resolve_sensitive_features",
]
