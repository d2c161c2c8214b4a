"""The private scikit-learn names fairkit uses, in one place.

scikit-learn may rename or change a private name in any release. fairkit and its first-party
plugins import these names only from here (``tests/test_sklearn_compat.py`` fails on any
other import of a private scikit-learn name), so a release that moves one is mended in this
module alone. CI runs the test suite on the newest scikit-learn and on the oldest one
``pyproject.toml`` allows (``.ci/run``); each name below exists, with the behaviour fairkit
relies on, in every release of that range.

- ``_fit_context``: the decorator that validates ``_parameter_constraints`` once per fit.
- ``HasMethods``, ``Interval``, ``StrOptions``, ``validate_params``: the parameter
  constraints scikit-learn's own estimators and functions declare.
- ``_check_sample_weight``: sample weights checked and cast like scikit-learn's metrics'.
- ``_num_samples``: the length of any array-like (lists, arrays, frames, sparse matrices).
- ``_safe_indexing``: rows of any array-like by an index array, keeping its type.
- ``_get_check_estimator_ids``: the test ids
  :func:`~sklearn.utils.estimator_checks.parametrize_with_checks` gives.
"""

from sklearn.base import _fit_context
from sklearn.utils import _safe_indexing
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions, validate_params
from sklearn.utils.validation import _check_sample_weight, _num_samples


def _get_check_estimator_ids(obj):
    """Imported when called: scikit-learn's estimator checks import pytest and take a second."""
    from sklearn.utils.estimator_checks import _get_check_estimator_ids as check_ids

    return check_ids(obj)


__all__ = [
    "HasMethods",
    "Interval",
    "StrOptions",
    "_check_sample_weight",
    "_fit_context",
    "_get_check_estimator_ids",
    "_num_samples",
    "_safe_indexing",
    "validate_params",
]
