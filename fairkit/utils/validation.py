"""Sensitive features: validation, lookup in X, and encoding into groups.

Every fairkit estimator takes its sensitive features one of two ways, never both:

* an explicit ``sensitive_features=`` keyword of ``fit`` (and of ``predict`` where
  the method needs them there), which scikit-learn's metadata routing can request
  through ``Pipeline``, ``GridSearchCV`` and ``cross_validate``;
* a constructor parameter ``sensitive_cols`` naming columns of ``X`` (by name or
  position); this is the path that works where metadata cannot reach ``predict``,
  such as scorers. Whether the model sees those columns follows one rule: a model
  that fairkit builds and trains on ``X`` itself (FairICP's network,
  FairSpectralClustering's affinity) never sees them (:func:`drop_sensitive_cols`);
  the model whose scores RandomizedFairBOC thresholds (yours, or its default
  logistic regression) gets ``X`` unchanged, since the fair Bayes-optimal rule
  thresholds η(x, a), which may use a; drop the columns in its pipeline if it should
  not see them.

Several columns form intersectional groups (one group per observed combination).
Without any sensitive features the estimator warns with
:class:`~fairkit.exceptions.FairkitWarning` and treats all samples as one group.

Rows are matched by position. When two inputs both carry pandas indexes (``X`` and a
Series of sensitive features, say), those indexes must be equal: a shuffled or
filtered copy is refused (:func:`check_same_index`) rather than silently paired with
the wrong rows.
"""

import numbers
from contextlib import contextmanager

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.utils import check_array
from sklearn.utils.validation import validate_data

from fairkit.exceptions import FairkitWarning
from fairkit.utils._sklearn_compat import _num_samples
from fairkit.utils._warnings import warn_user

__all__ = [
    "MAX_CATEGORIES",
    "NO_GROUP",
    "SENSITIVE_COLS_CONSTRAINT",
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
    "model_features",
    "looks_continuous",
    "predict_groups",
    "resolve_sensitive_features",
]

#: The parameter constraint of ``sensitive_cols`` (scikit-learn's ``_parameter_constraints``):
#: a column name, a column position, or a list of them.
SENSITIVE_COLS_CONSTRAINT = [None, str, numbers.Integral, "array-like"]

#: A sensitive column with more distinct values than this (or than half the samples) is
#: taken for a continuous one: encoding it into groups warns.
MAX_CATEGORIES = 50


class _NoGroup:
    """The type of :data:`NO_GROUP`: a singleton that equals no group label of the data."""

    __slots__ = ()
    _instance = None

    def __new__(cls):  # one instance: what pickle, copy and skops.io rebuild is NO_GROUP itself
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self):
        return "all samples"

    def __reduce__(self):  # rebuilt by calling the class, which skops.io does for a trusted type
        return (_NoGroup, ())


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
        missing values (NaN or None) or infinite ones.

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
    numeric = frame.select_dtypes("number")
    infinite = np.isinf(numeric.to_numpy(dtype=np.float64)).sum(axis=0) if numeric.shape[1] else []
    if np.any(infinite):
        where = ", ".join(f"{col!r} ({count} rows)" for col, count in zip(numeric.columns, infinite,
                                                                          strict=True) if count)
        raise ValueError(f"sensitive_features holds infinite values in column {where}; replace them "
                         "with finite values (or bin the column) or drop those samples.")
    return frame


def check_2d(estimator, X):
    """Refuse an ``X`` that is not 2-D or holds no sample, before anything reads its columns.

    For estimators that look at ``X``'s columns (or pass ``X`` on) before scikit-learn's
    own ``check_array`` sees it; the messages are scikit-learn's ("Reshape your data").

    Parameters
    ----------
    estimator : estimator
        Named in the message.
    X : array-like, sparse matrix or DataFrame
        The samples.

    Raises
    ------
    ValueError
        If ``X`` is not 2-D or has no rows.
    """
    shape = X.shape if hasattr(X, "shape") else np.asarray(X).shape
    if len(shape) != 2:
        raise ValueError(f"Expected a 2-D X, got {len(shape)} dimension(s). Reshape your data with "
                         "X.reshape(-1, 1) for a single feature or X.reshape(1, -1) for a single sample.")
    if shape[0] == 0:
        raise ValueError(f"X is empty (0 samples); {type(estimator).__name__} needs at least one.")


def check_same_index(**arrays):
    """Refuse inputs whose pandas indexes differ: fairkit pairs their rows by position.

    Parameters
    ----------
    **arrays : array-like
        The inputs that describe the same samples, by the names the user gave them
        (``X=X, sensitive_features=sf``). Those without a pandas index are not compared.

    Raises
    ------
    ValueError
        If two of them are Series or DataFrames with different indexes (other labels,
        or the same labels in another order). The message says how to align them.

    Examples
    --------
    >>> import pandas as pd
    >>> from fairkit.utils.validation import check_same_index
    >>> X = pd.DataFrame({"x": [1.0, 2.0, 3.0]}, index=[7, 8, 9])
    >>> check_same_index(X=X, sensitive_features=pd.Series(["a", "b", "a"], index=[7, 8, 9]))
    >>> check_same_index(X=X, sensitive_features=pd.Series(["a", "b", "a"], index=[9, 8, 7]))
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: X and sensitive_features carry different pandas indexes (the same labels in another order)...
    """
    indexed = [(name, values.index) for name, values in arrays.items()
               if isinstance(values, pd.Series | pd.DataFrame)]
    for name, index in indexed[1:]:
        first, first_index = indexed[0]
        if index.equals(first_index):
            continue
        if len(index) == len(first_index) and index.sort_values().equals(first_index.sort_values()):
            how = "the same labels in another order"
        else:
            extra = first_index.difference(index)
            how = (f"{len(extra)} label(s) of {first} are not in {name}, e.g. {extra[0]!r}" if len(extra)
                   else f"{len(index)} and {len(first_index)} labels")
        raise ValueError(
            f"{first} and {name} carry different pandas indexes ({how}); fairkit pairs rows by "
            f"position, so rows would be silently mismatched. Align them by label first (e.g. "
            f"{name}.loc[{first}.index]) or, if they are already in the same order, pass "
            f"{name}.to_numpy().")


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
        If ``X`` is empty, both sources are given, a named column does not exist,
        ``sensitive_features`` lists column names of ``X`` (meant for ``sensitive_cols``),
        its pandas index differs from that of ``X`` (see :func:`check_same_index`), or
        the values are invalid (see :func:`check_sensitive_features`).
    """
    cols = getattr(estimator, "sensitive_cols", None)
    if cols is None and sensitive_features is None:
        return None
    n_samples = _num_samples(X)
    if n_samples == 0:
        raise ValueError(f"X is empty (0 samples); {type(estimator).__name__} needs at least one.")
    if cols is None:
        _refuse_column_names(X, sensitive_features, n_samples)
        check_same_index(X=X, sensitive_features=sensitive_features)
        return check_sensitive_features(sensitive_features, n_samples)
    if sensitive_features is not None:
        raise ValueError(f"{type(estimator).__name__} got sensitive features twice: through "
                         f"sensitive_cols={cols!r} and as the sensitive_features argument. "
                         "Give exactly one of them.")
    cols = _as_column_list(cols)
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


def _as_column_list(cols):
    cols = [cols] if isinstance(cols, str | numbers.Integral) else list(cols)
    if not cols:
        raise ValueError("sensitive_cols is empty; give None or at least one column.")
    return cols


def _refuse_column_names(X, sensitive_features, n_samples):
    """Column names of ``X`` given as sensitive features (a list the length of the names) are a slip."""
    if not isinstance(X, pd.DataFrame) or not isinstance(sensitive_features, list | tuple | str):
        return
    names = [sensitive_features] if isinstance(sensitive_features, str) else list(sensitive_features)
    if len(names) != n_samples and names and all(
            isinstance(name, str) and name in X.columns for name in names):
        raise ValueError(f"sensitive_features={sensitive_features!r} holds column names of X, not one "
                         "value per sample. To take the sensitive features from those columns of X, "
                         f"construct the estimator with sensitive_cols={names!r} instead.")


def _check_positions(positions, n_columns):
    bad = [p for p in positions if not -n_columns <= p < n_columns]
    if bad:
        raise ValueError(f"sensitive_cols positions {bad} are out of range for X with {n_columns} columns.")


def drop_sensitive_cols(estimator, X):
    """``X`` without the columns that ``estimator.sensitive_cols`` names.

    For models that fairkit builds and trains on ``X`` itself, which must not see
    the sensitive columns (see the module notes). Call it once
    :func:`resolve_sensitive_features` has checked the columns.

    Parameters
    ----------
    estimator : estimator
        Its ``sensitive_cols`` (if any) names columns of ``X`` by name or position.
    X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
        The samples.

    Returns
    -------
    X_other : same kind as ``X``, of shape (n_samples, n_features - n_sensitive)
        A DataFrame stays a DataFrame and a sparse matrix stays sparse (CSR).

    Raises
    ------
    ValueError
        If ``sensitive_cols`` names every column of ``X``.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.base import BaseEstimator
    >>> from fairkit.utils.validation import drop_sensitive_cols
    >>> class Model(BaseEstimator):
    ...     def __init__(self, sensitive_cols=None):
    ...         self.sensitive_cols = sensitive_cols
    >>> X = pd.DataFrame({"income": [1.0, 2.0], "sex": ["F", "M"]})
    >>> list(drop_sensitive_cols(Model(sensitive_cols="sex"), X).columns)
    ['income']
    """
    cols = getattr(estimator, "sensitive_cols", None)
    if cols is None:
        return X
    n_features = X.shape[1]
    positions = [c if isinstance(c, numbers.Integral) else X.columns.get_loc(c)
                 for c in _as_column_list(cols)]
    keep = np.setdiff1d(np.arange(n_features), np.mod(positions, n_features))
    if not keep.size:
        raise ValueError(f"sensitive_cols={cols!r} names every column of X; "
                         f"{type(estimator).__name__} needs other features to learn from.")
    if isinstance(X, pd.DataFrame):
        return X.iloc[:, keep]
    return X.tocsr()[:, keep] if sparse.issparse(X) else np.asarray(X)[:, keep]


def _holds_text(column):
    """Whether a Series holds strings (or is a categorical of strings); other objects are left
    to scikit-learn's own check."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        return not pd.api.types.is_numeric_dtype(column.dtype.categories.dtype)
    if pd.api.types.is_numeric_dtype(column.dtype) or pd.api.types.is_bool_dtype(column.dtype):
        return False
    kind = pd.api.types.infer_dtype(column, skipna=True)
    if kind == "mixed":  # strings among other objects? (rare: look at each value)
        return bool(column.map(lambda value: isinstance(value, str | bytes)).any())
    return kind in ("string", "bytes", "mixed-integer")


def check_numeric_features(estimator, X):
    """Refuse columns of ``X`` that hold strings or categories, naming them.

    scikit-learn's own check stops at the first value it cannot convert, without
    naming its column; this names every such column and suggests encoding them.

    Parameters
    ----------
    estimator : estimator
        Named in the message.
    X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
        The samples (a sparse matrix is numeric and passes).

    Raises
    ------
    ValueError
        If a column holds values that are not numbers or booleans.
    """
    if isinstance(X, pd.DataFrame):
        bad = [name for name, column in X.items() if _holds_text(column)]
    else:
        values = X if sparse.issparse(X) else np.asarray(X)
        if sparse.issparse(values) or values.dtype.kind not in "OUS" or values.ndim != 2:
            return
        bad = [j for j in range(values.shape[1]) if _holds_text(pd.Series(values[:, j], dtype=object))]
    if bad:
        raise ValueError(f"X column(s) {bad} hold strings or categories, but "
                         f"{type(estimator).__name__} needs numbers. Encode them first, e.g. with "
                         "OneHotEncoder in a Pipeline (or ColumnTransformer) before it.")


# The start of numpy's messages for a value it cannot convert to a float.
_NOT_A_NUMBER = ("could not convert", "float() argument")


def check_numbers(values, *, input_name, expected, **check_array_params):
    """scikit-learn's ``check_array`` to float64, naming the argument when a value is not a number.

    numpy's own message ("could not convert string to float: 'a'") names no argument.

    Parameters
    ----------
    values : array-like
        The input.
    input_name : str
        Its name, in every message.
    expected : str
        What the values must be, and how to get there, for the message.
    **check_array_params
        Further arguments of :func:`sklearn.utils.check_array`.

    Returns
    -------
    array : ndarray of float64

    Raises
    ------
    ValueError
        If a value is not a number (a string that is not one, an object), or
        ``check_array`` refuses ``values``.

    Examples
    --------
    >>> from fairkit.utils.validation import check_numbers
    >>> check_numbers([["1", "2"], ["3", "4"]], input_name="X", expected="ranks must be numbers.")
    array([[1., 2.],
           [3., 4.]])
    >>> check_numbers([["1", "2"], ["x", "3"]], input_name="X", expected="ranks must be numbers.")
    Traceback (most recent call last):
    ...
    ValueError: X holds values that are not numbers (could not convert string to float: 'x'); ranks ...
    """
    try:
        return check_array(values, dtype=np.float64, input_name=input_name, **check_array_params)
    except (TypeError, ValueError) as error:
        if not str(error).startswith(_NOT_A_NUMBER):
            raise
        # the type stays scikit-learn's (TypeError for an object that is no number at all)
        raise type(error)(f"{input_name} holds values that are not numbers ({error}); {expected}") from None


def _factorize(values):
    try:
        return pd.factorize(values, sort=True)[0]
    except TypeError:  # values of mixed types cannot be sorted
        return pd.factorize(values)[0]


def _factorize_rows(frame):
    """Code each row by its combination of values.

    Columns are factorized one at a time and their codes combined, so that no
    Python object is made per sample. Codes follow the sorted order of the labels.
    Returns the codes, one label per code, and each column's number of distinct values.
    """
    codes, n_values = None, []
    for _, column in frame.items():
        column_codes = _factorize(column)
        n_values.append(int(column_codes.max()) + 1)
        codes = column_codes if codes is None else _factorize(codes * n_values[-1] + column_codes)
    first = np.full(int(codes.max()) + 1, len(codes))  # each code's first row: O(n), not a sort
    np.minimum.at(first, codes, np.arange(len(codes)))
    rows = frame.iloc[first]
    labels = np.empty(len(first), dtype=object)
    labels[:] = rows.iloc[:, 0].tolist() if frame.shape[1] == 1 else list(
        rows.itertuples(index=False, name=None))
    return codes.astype(np.intp), labels, pd.Series(n_values, index=frame.columns)


def looks_continuous(n_values, n_samples):
    """Whether a sensitive column with ``n_values`` distinct values in ``n_samples`` rows looks continuous.

    It does with more distinct values than :data:`MAX_CATEGORIES`, or than half the
    samples (and more than 2): each value would make a group of a few rows.

    Parameters
    ----------
    n_values : int or array-like of int
        Number of distinct values of each column.
    n_samples : int
        Number of rows.

    Returns
    -------
    continuous : bool or array-like of bool
        Elementwise.

    Examples
    --------
    >>> import pandas as pd
    >>> from fairkit.utils.validation import looks_continuous
    >>> frame = pd.DataFrame({"sex": ["F", "M"] * 50, "age": range(100)})
    >>> looks_continuous(frame.nunique(), len(frame)).tolist()
    [False, True]
    """
    return n_values > max(2, min(MAX_CATEGORIES, n_samples / 2))


def _warn_if_continuous(counts, n_samples):
    """Warn about the columns whose number of distinct values (``counts``) says they are continuous."""
    many = counts[looks_continuous(counts, n_samples)]
    if len(many):
        where = ", ".join(f"{col!r} ({count} distinct values in {n_samples} samples)"
                          for col, count in many.items())
        warn_user(f"sensitive_features column {where} looks continuous: each distinct value becomes "
                  "a group, most of them tiny, and group metrics computed on them are mostly noise. "
                  "Bin it into a few groups (e.g. pandas.cut), or measure dependence on a continuous "
                  "attribute with fairkit.metrics.kernel_partial_correlation.", FairkitWarning)


def encode_groups(frame, groups=None, *, categorical=True):
    """Encode sensitive features as group codes; several columns give intersectional groups.

    Learning the groups warns with :class:`~fairkit.exceptions.FairkitWarning` about
    a column that looks continuous: more distinct values than :data:`MAX_CATEGORIES`
    (50), or than half the samples (and more than 2).

    Parameters
    ----------
    frame : DataFrame of shape (n_samples, n_columns)
        Validated sensitive features (see :func:`check_sensitive_features`).
    groups : ndarray, default=None
        Known groups (an estimator's ``groups_``). ``None`` learns them from
        ``frame``, sorted (a column of values of mixed types in order of appearance).
    categorical : bool, default=True
        Whether the method treats the sensitive features as categories, so that a
        column that looks continuous deserves the warning. A method that takes
        continuous attributes as they are (FairICP) passes ``False``.

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
    codes, labels, n_values = _factorize_rows(frame)
    if groups is None:
        if categorical:
            _warn_if_continuous(n_values, len(frame))
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


def fit_groups(estimator, X, sensitive_features, *, categorical=True):
    """Find and encode the sensitive groups at fit time.

    The caller stores ``groups`` as ``groups_`` once the whole fit has succeeded.
    Without sensitive features this warns with :class:`~fairkit.exceptions.FairkitWarning`
    and returns the single group :data:`NO_GROUP`.

    Parameters
    ----------
    estimator : estimator
        The estimator being fitted (its ``sensitive_cols``, and its name in messages).
    X : array-like or DataFrame of shape (n_samples, n_features)
        The training samples.
    sensitive_features : array-like or None
        The explicit sensitive features.
    categorical : bool, default=True
        Passed to :func:`encode_groups`: ``False`` for a method that takes continuous
        attributes, which should not warn about them.

    Returns
    -------
    groups : ndarray of shape (n_groups,)
        The group labels.
    codes : ndarray of int of shape (n_samples,)
        The group of each sample, as an index into ``groups``.
    """
    frame = resolve_sensitive_features(estimator, X, sensitive_features)
    if frame is None:
        warn_user(f"{type(estimator).__name__} got no sensitive features (neither sensitive_features "
                  "nor sensitive_cols); all samples are treated as one group, which is the "
                  "unconstrained method.", FairkitWarning)
        return np.array([NO_GROUP], dtype=object), np.zeros(_num_samples(X), dtype=np.intp)
    return encode_groups(frame, categorical=categorical)


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
            raise ValueError(
                f"{type(estimator).__name__} was fitted with sensitive features; give them here too "
                "(sensitive_features=...). Where they cannot be passed to predict (scikit-learn's "
                "scorers in GridSearchCV or cross_validate pass no metadata to predict), construct "
                "the estimator with sensitive_cols= to read them from columns of X.")
        return np.zeros(_num_samples(X), dtype=np.intp)
    if fitted_without:
        raise ValueError(f"{type(estimator).__name__} was fitted without sensitive features, "
                         "so it cannot use them now; refit with sensitive_features.")
    return encode_groups(frame, groups)[1]


@contextmanager
def all_or_nothing(estimator):
    """Restore ``estimator``'s attributes if the block raises: a failed ``fit`` leaves no trace.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> model = LogisticRegression()
    >>> try:
    ...     with all_or_nothing(model):
    ...         model.coef_ = "half-fitted"
    ...         raise ValueError("bad input")
    ... except ValueError:
    ...     pass
    >>> hasattr(model, "coef_")
    False
    """
    before = dict(vars(estimator))
    try:
        yield
    except BaseException:
        vars(estimator).clear()
        vars(estimator).update(before)
        raise


def check_layer_sizes(name, sizes):
    """A network's hidden layer sizes as a tuple of positive integers; else a ``ValueError`` naming ``name``.

    Examples
    --------
    >>> check_layer_sizes("hidden_layer_sizes", [64, 32])
    (64, 32)
    """
    sizes = tuple(sizes)
    if not all(isinstance(s, numbers.Integral) and s > 0 for s in sizes):
        raise ValueError(f"{name} must be a sequence of positive integers, got {sizes!r}.")
    return sizes


def model_features(estimator, X, y="no_validation", *, reset):
    """The columns of ``X`` a model reads, as float64: ``sensitive_cols`` dropped, strings refused.

    With ``reset=True`` (in ``fit``) records ``n_features_in_`` and ``feature_names_in_``
    from the whole ``X``; with ``reset=False`` checks ``X`` against them. The sensitive
    columns are not read, so their values (missing ones included) do not matter. ``y``
    (``fit``'s target) is only checked to be given where the estimator requires one.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> model = LogisticRegression()
    >>> model_features(model, np.array([[1, 2], [3, 4]]), reset=True).dtype, model.n_features_in_
    (dtype('float64'), 2)
    """
    check_2d(estimator, X)
    validate_data(estimator, X, y, reset=reset, skip_check_array=True)
    X_model = drop_sensitive_cols(estimator, X)
    check_numeric_features(estimator, X_model)
    return check_array(X_model, dtype=np.float64, estimator=estimator)
