"""Sensitive features: validation, lookup in X, and encoding into groups.

Every fairkit estimator takes its sensitive features one of two ways, never both:

* an explicit ``sensitive_features=`` keyword of ``fit`` (and of ``predict`` where
  the method needs them there), which scikit-learn's metadata routing can request
  through ``Pipeline``, ``GridSearchCV`` and ``cross_validate``;
* a constructor parameter ``sensitive_cols`` naming columns of ``X`` (by name or
  position). The columns stay in ``X``; this is the path that works where metadata
  cannot reach ``predict``, such as scorers.

Several columns form intersectional groups (one group per observed combination).
Without any sensitive features the estimator warns with
:class:`~fairkit.exceptions.FairkitWarning` and treats all samples as one group.
"""

import numbers
import warnings

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.utils.validation import _num_samples

from fairkit.exceptions import FairkitWarning

__all__ = [
    "NO_GROUP",
    "check_sensitive_features",
    "encode_groups",
    "fit_groups",
    "predict_groups",
    "resolve_sensitive_features",
]


class _NoGroup:
    """The type of :data:`NO_GROUP`: a singleton that equals no group label of the data."""

    __slots__ = ()

    def __repr__(self):
        return "all samples"

    def __reduce__(self):  # pickles (and copies) as a reference to the module's NO_GROUP
        return "NO_GROUP"


#: The single group of an estimator fitted without sensitive features (``groups_ == [NO_GROUP]``).
#: It prints as ``all samples`` but is not the string, so a real group of that name is not taken for it.
NO_GROUP = _NoGroup()


def check_sensitive_features(sensitive_features, n_samples=None, *, samples_of="X"):
    """Validate sensitive features and return them as a DataFrame.

    Parameters
    ----------
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_columns)
        A 1-D or 2-D array, list, Series or DataFrame.
    n_samples : int, default=None
        The number of samples they must describe.
    samples_of : str, default="X"
        The argument whose samples ``n_samples`` counts, named in the error message.

    Returns
    -------
    frame : DataFrame of shape (n_samples, n_columns)
        With a fresh ``RangeIndex``; column names are kept from a Series or
        DataFrame and are ``sensitive_feature_<i>`` otherwise.

    Raises
    ------
    ValueError
        If the values are empty, not 1-D or 2-D, of the wrong length, or hold
        missing values (NaN or None).

    Examples
    --------
    >>> from fairkit.utils.validation import check_sensitive_features
    >>> check_sensitive_features(["a", "b", "a"]).shape
    (3, 1)
    """
    if sparse.issparse(sensitive_features):
        raise TypeError("sensitive_features must be dense (array, list, Series or DataFrame), "
                        "got a sparse matrix.")
    if isinstance(sensitive_features, pd.DataFrame):
        frame = sensitive_features.reset_index(drop=True)
    elif isinstance(sensitive_features, pd.Series):
        name = sensitive_features.name if sensitive_features.name is not None else "sensitive_feature_0"
        frame = sensitive_features.reset_index(drop=True).to_frame(name=name)
    else:
        try:
            values = np.asarray(sensitive_features)
        except ValueError:  # ragged rows: one object per sample
            values = np.asarray(sensitive_features, dtype=object)
        if values.ndim == 1:
            values = values[:, None]
        if values.ndim != 2:
            raise ValueError(f"sensitive_features must be 1-D or 2-D, got an array of shape {values.shape}.")
        frame = pd.DataFrame(values, columns=[f"sensitive_feature_{i}" for i in range(values.shape[1])])
    if frame.shape[1] == 0 or frame.shape[0] == 0:
        raise ValueError(f"sensitive_features is empty (shape {frame.shape}).")
    if n_samples is not None and frame.shape[0] != n_samples:
        raise ValueError(f"sensitive_features has {frame.shape[0]} rows but {samples_of} has {n_samples} "
                         "samples; they must describe the same samples.")
    missing = frame.isna().sum()
    if missing.any():
        where = ", ".join(f"{col!r} ({count} rows)" for col, count in missing[missing > 0].items())
        raise ValueError(f"sensitive_features holds missing values (NaN or None) in column {where}; "
                         "fill them or drop those samples.")
    return frame


def resolve_sensitive_features(estimator, X, sensitive_features):
    """Find the sensitive features of ``X``: the explicit argument or ``estimator.sensitive_cols``.

    Parameters
    ----------
    estimator : estimator
        Its ``sensitive_cols`` attribute (if any) names columns of ``X`` by name or position.
    X : array-like or DataFrame of shape (n_samples, n_features)
        The samples.
    sensitive_features : array-like or None
        The explicit sensitive features.

    Returns
    -------
    frame : DataFrame of shape (n_samples, n_columns) or None
        The validated sensitive features, or ``None`` when neither source gives any.

    Raises
    ------
    ValueError
        If both sources are given, a named column does not exist, or the values
        are invalid (see :func:`check_sensitive_features`).
    """
    cols = getattr(estimator, "sensitive_cols", None)
    if cols is None:
        if sensitive_features is None:
            return None
        return check_sensitive_features(sensitive_features, _num_samples(X))
    if sensitive_features is not None:
        raise ValueError(f"{type(estimator).__name__} got sensitive features twice: through "
                         f"sensitive_cols={cols!r} and as the sensitive_features argument. "
                         "Give exactly one of them.")
    cols = [cols] if isinstance(cols, str | numbers.Integral) else list(cols)
    if not cols:
        raise ValueError("sensitive_cols is empty; give None or at least one column.")
    if isinstance(X, pd.DataFrame):
        by_name = [c for c in cols if not isinstance(c, numbers.Integral)]
        unknown = [c for c in by_name if c not in X.columns]
        if unknown:
            raise ValueError(f"sensitive_cols names columns {unknown} that X does not have; "
                             f"X has columns {list(X.columns)}.")
        positions = [X.columns.get_loc(c) if c in by_name else c for c in cols]
        _check_positions(positions, X.shape[1])
        return check_sensitive_features(X.iloc[:, positions])
    if any(not isinstance(c, numbers.Integral) for c in cols):
        raise ValueError(f"sensitive_cols={cols!r} names columns, but X has no column names "
                         "(pass a DataFrame, or give column positions).")
    X = X if sparse.issparse(X) else np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D to take sensitive_cols from it, got shape {X.shape}.")
    _check_positions(cols, X.shape[1])
    if sparse.issparse(X):  # make only the sensitive columns dense
        return check_sensitive_features(X.tocsc()[:, cols].toarray())
    return check_sensitive_features(X[:, cols])


def _check_positions(positions, n_columns):
    bad = [p for p in positions if not -n_columns <= p < n_columns]
    if bad:
        raise ValueError(f"sensitive_cols positions {bad} are out of range for X with {n_columns} columns.")


def _factorize(values):
    try:
        return pd.factorize(values, sort=True)[0]
    except TypeError:  # values of mixed types cannot be sorted
        return pd.factorize(values)[0]


def _factorize_rows(frame):
    """Code each row by its combination of values; return the codes and one label per code.

    Columns are factorized one at a time and their codes combined, so that no
    Python object is made per sample. Codes follow the sorted order of the labels.
    """
    codes = np.zeros(len(frame), dtype=np.intp)
    for _, column in frame.items():
        column_codes = _factorize(column)
        codes = _factorize(codes * (column_codes.max() + 1) + column_codes)
    first = np.unique(codes, return_index=True)[1]
    rows = frame.iloc[first]
    labels = np.empty(len(first), dtype=object)
    labels[:] = rows.iloc[:, 0].tolist() if frame.shape[1] == 1 else list(
        rows.itertuples(index=False, name=None))
    return codes.astype(np.intp), labels


def encode_groups(frame, groups=None):
    """Encode sensitive features as group codes; several columns give intersectional groups.

    Parameters
    ----------
    frame : DataFrame of shape (n_samples, n_columns)
        Validated sensitive features (see :func:`check_sensitive_features`).
    groups : ndarray, default=None
        Known groups (an estimator's ``groups_``). ``None`` learns them from
        ``frame``, sorted (a column of values of mixed types in order of appearance).

    Returns
    -------
    groups : ndarray of shape (n_groups,)
        The group labels: values for one column, tuples of values for several.
    codes : ndarray of int of shape (n_samples,)
        ``groups[codes[i]]`` is the group of sample ``i``.

    Raises
    ------
    ValueError
        If ``groups`` is given and ``frame`` holds a group not among them, or
        has a different number of columns.

    Examples
    --------
    >>> import pandas as pd
    >>> from fairkit.utils.validation import encode_groups
    >>> groups, codes = encode_groups(pd.DataFrame({"sex": ["F", "M", "F"], "race": [1, 1, 2]}))
    >>> [tuple(g) for g in groups], codes.tolist()
    ([('F', 1), ('F', 2), ('M', 1)], [0, 2, 1])
    """
    codes, labels = _factorize_rows(frame)
    if groups is None:
        return labels, codes
    n_columns = len(groups[0]) if isinstance(groups[0], tuple) else 1
    if frame.shape[1] != n_columns:
        raise ValueError(f"The estimator was fitted with {n_columns} sensitive feature column(s), "
                         f"got {frame.shape[1]}.")
    known = {group: i for i, group in enumerate(groups)}
    positions = np.array([known.get(label, -1) for label in labels], dtype=np.intp)
    if (positions < 0).any():
        unseen = labels[positions < 0]
        shown = ", ".join(repr(g) for g in unseen[:5]) + (", ..." if len(unseen) > 5 else "")
        raise ValueError(f"sensitive_features holds {len(unseen)} group(s) not seen during fit: "
                         f"{shown}. Known groups: {list(groups)}.")
    return groups, positions[codes]


def fit_groups(estimator, X, sensitive_features):
    """Find and encode the sensitive groups at fit time.

    The caller stores ``groups`` as ``groups_`` once the whole fit has succeeded.
    Without sensitive features this warns with :class:`~fairkit.exceptions.FairkitWarning`
    and returns the single group :data:`NO_GROUP`.

    Returns
    -------
    groups : ndarray of shape (n_groups,)
        The group labels.
    codes : ndarray of int of shape (n_samples,)
        The group of each sample, as an index into ``groups``.
    """
    frame = resolve_sensitive_features(estimator, X, sensitive_features)
    if frame is None:
        warnings.warn(f"{type(estimator).__name__} got no sensitive features (neither "
                      "sensitive_features nor sensitive_cols); all samples are treated as one group, "
                      "which is the unconstrained method.", FairkitWarning, stacklevel=3)
        return np.array([NO_GROUP], dtype=object), np.zeros(_num_samples(X), dtype=np.intp)
    return encode_groups(frame)


def predict_groups(estimator, X, sensitive_features):
    """Encode the sensitive groups of new samples with the fitted ``estimator.groups_``.

    Returns
    -------
    codes : ndarray of int of shape (n_samples,)
        The group of each sample, as an index into ``estimator.groups_``.

    Raises
    ------
    ValueError
        If a group was not seen during fit, or sensitive features are missing
        although the estimator was fitted with them (or the other way round).
    """
    groups = estimator.groups_
    frame = resolve_sensitive_features(estimator, X, sensitive_features)
    fitted_without = len(groups) == 1 and groups[0] is NO_GROUP
    if frame is None:
        if not fitted_without:
            raise ValueError(f"{type(estimator).__name__} was fitted with sensitive features; "
                             "give them here too (sensitive_features=...).")
        return np.zeros(_num_samples(X), dtype=np.intp)
    if fitted_without:
        raise ValueError(f"{type(estimator).__name__} was fitted without sensitive features, "
                         "so it cannot use them now; refit with sensitive_features.")
    return encode_groups(frame, groups)[1]
