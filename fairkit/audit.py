"""Fairness audit of a table: an unconstrained baseline against fair methods, overall and by group.

:func:`audit` reads a CSV file (or takes a DataFrame), splits it into train and test
sets stratified by group, fits a logistic-regression baseline and each chosen fair
method (resolved through :mod:`fairkit.registry`, with the parameters you give) on the same
features, and scores every model on the test set with accuracy and every registered group
fairness metric, each with its interval and noise floor. Checks registered by plugins
(:func:`fairkit.hookspecs.fairkit_audit_checks`, such as the robustness check of
``fairkit-robust`` or the abstain check of ``fairkit-uncertainty``, which compares the groups'
coverage and accuracy when each model answers only the rows it is surest of) add tables of their
own when asked for. With ``target_data``, a second table from a target domain (``fairkit audit
--target-csv``), the checks that take it compare the two domains: the shift check of
``fairkit-shift`` diagnoses which subgroups lose performance there, and why. The result prints as
text tables and writes a self-contained HTML report (``fairkit audit``); the report's plots need
matplotlib (``pip install "fairkit[plot]"``).

The sensitive columns are not features: the baseline never sees them (fairness through
unawareness), and the fair methods receive them as ``sensitive_features``.
"""

import base64
import difflib
import html
import inspect
import io
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from fairkit.metrics._confusion import DEFINITIONS
from fairkit.utils._text import text_table
from fairkit.utils.validation import MAX_CATEGORIES

__all__ = ["AuditError", "AuditResult", "audit", "usable_methods"]

DEFAULT_METHODS = ("RandomizedFairBOC",)
BASELINE = "baseline"
#: The level of the metrics' intervals and the quantile of their noise floors.
CONFIDENCE = 0.95
#: Shown where the report's plots would be when matplotlib is not installed.
NO_PLOTS = 'the report has no plots: they need matplotlib (pip install "fairkit[plot]")'
#: Checks that plugins provide, with how to install them: named when such a check is not registered.
CHECK_PLUGINS = {"robustness": 'pip install "fairkit-robust[nn]"', "shift": "pip install fairkit-shift",
                 "abstain": "pip install fairkit-uncertainty"}


class AuditError(ValueError):
    """The audit's input is unusable; the message says why in one line."""


@dataclass
class AuditResult:
    """What :func:`audit` found.

    Attributes
    ----------
    overall : DataFrame
        One row per metric (``accuracy`` first), one column per model (``baseline`` first),
        numbers only: a group metric's interval and noise floor are rows of their own
        (``name.low``, ``name.high``, ``name.floor``, ``name.floor_pvalue``), a test's
        statistic and p-value too (``name.statistic``, ``name.pvalue``).
    by_group : dict of str to DataFrame
        Per model, the per-group counts and rates on the test set, each rate with its
        interval (``rate_low``, ``rate_high``), one row per group.
    info : dict
        The data and the set-up: file, sizes, target, positive label, sensitive columns,
        features, methods and the parameters set on them, and the checks asked for with
        their options (``checks``); with ``target_data``, its source (``target_source``: the
        file, or ``"a DataFrame"``) and its number of rows (``n_target_rows``).
    notes : list of str
        Warnings raised while fitting, scoring and checking, and other remarks.
    failures : dict of str to str
        Methods that failed to fit or predict, with the error; a check that failed on a
        model is keyed ``"<model> <check>"``.
    checks : dict of str to DataFrame
        Per check asked for (``audit(checks=...)``), its table for every model it ran on:
        the tables the check returned, one below the other, under a leading index level
        ``model``. Empty when no check was asked for.
    """

    overall: pd.DataFrame
    by_group: dict
    info: dict
    notes: list = field(default_factory=list)
    failures: dict = field(default_factory=dict)
    checks: dict = field(default_factory=dict)

    def to_text(self):
        """The set-up, the overall table, the per-group tables and the checks' tables as plain text.

        Each group metric is shown as ``value [low, high]`` beside its noise floor and
        p-value, each group's rates with their intervals.
        """
        parts = [f"fairkit audit of {self.info['source']}: {self.info['n_train']} train / "
                 f"{self.info['n_test']} test rows, target {self.info['target']!r} "
                 f"(positive: {self.info['positive_label']!r}), sensitive "
                 f"{', '.join(self.info['sensitive'])}"]
        if "target_source" in self.info:
            parts.append(_target_line(self.info))
        parts += [f"{method} with {_show_params(params)}" for method, params in self.info["params"].items()]
        parts += [f"check {name} with option {option!r}" for name, option in
                  self.info.get("checks", {}).items()]
        parts += ["", "Test-set metrics (differences: 0 is fair; ratios: 1 is fair)", _LEGEND,
                  _text(_overall_display(self.overall))]
        if self.by_group:
            parts += ["", _GROUP_LEGEND]
        for model, frame in self.by_group.items():
            parts += ["", f"By group: {model}", _text(_group_display(frame, self.info["sensitive"]))]
        for name, frame in self.checks.items():
            headers, rows = _check_display(frame)
            parts += ["", _check_title(name, self.info), text_table(headers, _blank_repeats(rows))]
        for method, error in self.failures.items():
            parts += ["", f"{method} failed: {error}"]
        if self.notes:
            parts += ["", "Notes:", *(f"- {note}" for note in self.notes)]
        return "\n".join(parts)

    def write_html(self, path):
        """Write a self-contained HTML report (tables, plots as embedded PNG) to ``path``.

        The plots need matplotlib (``pip install "fairkit[plot]"``); without it the report
        has the tables and says in its notes why there are no plots.
        """
        Path(path).write_text(_html_report(self), encoding="utf-8")
        return Path(path)


def _target_line(info):
    """``target data: shifted.csv (2000 rows)``: where the target data of :func:`audit` came from."""
    return f"target data: {info['target_source']} ({info['n_target_rows']} rows)"


def _read(data):
    if isinstance(data, pd.DataFrame):
        return data.copy(), "a DataFrame"
    path = Path(data)
    if path.is_dir():
        raise AuditError(f"{path} is a folder, not a CSV file")
    if not path.is_file():
        raise AuditError(f"file not found: {path}")
    try:
        frame = pd.read_csv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise AuditError(f"cannot read {path} as CSV: {str(exc).splitlines()[0]}") from None
    return frame, str(path)


def _check_columns(frame, target, sensitive):
    for role, columns in (("target", [target]), ("sensitive", sensitive)):
        unknown = [c for c in columns if c not in frame.columns]
        if unknown:
            raise AuditError(f"unknown {role} column {', '.join(map(repr, unknown))}; the file has "
                             f"columns {', '.join(map(repr, frame.columns))}")
    if target in sensitive:
        raise AuditError(f"column {target!r} cannot be both the target and a sensitive column")


def _binary_target(values, positive_label):
    """Return (y as 0/1, the positive label) or raise AuditError."""
    distinct = pd.unique(values)
    if len(distinct) == 1:
        raise AuditError(f"the target has a single value ({_show(distinct)}); an audit needs rows of both "
                         "classes")
    if positive_label is None:
        if len(distinct) != 2:
            raise AuditError(f"the target has {len(distinct)} distinct values "
                             f"({_show(distinct)}); give --positive-label to make it binary")
        if not (set(distinct) <= {0, 1} or set(distinct) <= {-1, 1}):  # booleans are in {0, 1}
            raise AuditError(f"the target's values are {_show(distinct)}; give --positive-label to "
                             "say which one is positive")
        return (values == 1).to_numpy().astype(int), 1
    match = [v for v in distinct if str(v) == str(positive_label)]
    if not match and pd.api.types.is_numeric_dtype(values):
        try:
            match = [v for v in distinct if v == float(positive_label)]
        except ValueError:
            match = []
    if not match:
        raise AuditError(f"positive label {positive_label!r} is not a value of the target "
                         f"({_show(distinct)})")
    return (values == match[0]).to_numpy().astype(int), match[0]


def _show(values, limit=6):
    values = list(values)
    shown = ", ".join(repr(v.item() if isinstance(v, np.generic) else v) for v in values[:limit])
    return shown + (", ..." if len(values) > limit else "")


def _labels(columns):
    """One label per row of a DataFrame: its values as text, joined by ' & ' (``F & Black``)."""
    columns = columns.astype(str)
    return columns.iloc[:, 0].str.cat(columns.iloc[:, 1:], sep=" & ")


def _group_labels(index):
    """The labels of a per-group table's rows (its index: one level per sensitive column)."""
    return list(_labels(index.to_frame(index=False)))


def _groups(frame, sensitive):
    """Group label of each row (a string; intersections joined by ' & ') and the group sizes."""
    labels = _labels(frame[sensitive])
    sizes = labels.value_counts()
    if len(sizes) == 1:
        raise AuditError(f"{' & '.join(sensitive)} has a single group ({_show(sizes.index)}): there is "
                         "nothing to compare; choose sensitive columns with at least two groups")
    small = sizes[sizes < 2]
    if len(small):
        distinct = frame[sensitive].nunique()
        many = [f"{name!r} has {count} distinct values" for name, count in distinct.items()
                if count > MAX_CATEGORIES]
        hint = f"; {', '.join(many)}: bin it into a few groups first (e.g. pandas.cut)" if many else ""
        raise AuditError(f"group {small.index[0]!r} of {' & '.join(sensitive)} has only one row; "
                         f"every group needs at least two (one to train on, one to test on){hint}")
    return labels, sizes


def _check_finite(features):
    """Raise AuditError naming the numeric feature columns that hold infinite values."""
    counts = np.isinf(features.select_dtypes("number")).sum()
    held = [f"{name!r} holds {n} infinite value{'s' if n > 1 else ''}" for name, n in counts.items() if n]
    if held:
        raise AuditError(f"feature column{'s' if len(held) > 1 else ''} {', '.join(held)}; replace each "
                         "with a finite value or an empty cell (missing values are imputed), or leave the "
                         "column out")


def _target_data(data, target, sensitive, features, source_labels, positive, notes):
    """Read and check the target domain's table (``audit(target_data=...)``, ``--target-csv``).

    Returns its source (the file, or ``"a DataFrame"``), its number of rows, its feature columns
    (in the source's order), its labels as 0/1 with the source's positive label and its sensitive
    columns; raise AuditError, naming what differs from the source, if it cannot be compared with it.
    """
    try:
        return _check_target_data(data, target, sensitive, features, source_labels, positive, notes)
    except AuditError as exc:
        raise AuditError(f"--target-csv: {exc}") from None


def _check_target_data(data, target, sensitive, features, source_labels, positive, notes):
    frame, source = _read(data)
    _check_columns(frame, target, sensitive)
    columns = set(frame.columns) - {target, *sensitive}
    missing = [c for c in features.columns if c not in columns]
    extra = [c for c in frame.columns if c in columns and c not in features.columns]
    if missing or extra:
        problems = ([f"lacks the feature column(s) {', '.join(map(repr, missing))}"] if missing else []) + (
            [f"has the column(s) {', '.join(map(repr, extra))} that the source has not"] if extra else [])
        raise AuditError(f"the target data {' and '.join(problems)}; both tables need the same columns (the "
                         f"source's features: {', '.join(map(repr, features.columns))})")
    complete = frame.dropna(subset=[target, *sensitive]).reset_index(drop=True)
    if complete.empty:
        raise AuditError("no rows to compare: " + (
            "the target data has no data rows" if frame.empty else
            "every row of the target data has a missing target or sensitive value"))
    if len(complete) < len(frame):
        notes.append(f"{len(frame) - len(complete)} rows of the target data with a missing target or "
                     "sensitive value were left out")
    target_features = complete[list(features.columns)]
    numeric = pd.api.types.is_numeric_dtype
    mixed = [c for c in features.columns if target_features[c].notna().any()  # an empty column is either
             and numeric(features[c]) != numeric(target_features[c])]
    if mixed:
        raise AuditError(f"column(s) {', '.join(map(repr, mixed))} hold numbers in one table and text in the "
                         "other; give each column the same kind of values in both (an empty cell for a "
                         "missing value)")
    _check_finite(target_features)
    source_values = pd.unique(source_labels)
    unknown = [v for v in pd.unique(complete[target]) if v not in set(source_values)]
    if unknown:
        raise AuditError(f"the target column {target!r} of the target data holds {_show(unknown)}, which "
                         f"the source does not (its values: {_show(sorted(source_values, key=str))}); both "
                         "tables need the same labels")
    y = (complete[target] == positive).to_numpy().astype(int)
    if y.min() == y.max():
        kind = "positive" if y[0] else "negative"
        raise AuditError(f"every row of the target data is {kind} (positive label {_show([positive])}); "
                         "comparing the domains needs rows of both classes")
    return source, len(frame), target_features, y, complete[sensitive]


def _unseen_categories(preprocess, features):
    """Notes naming the categories of ``features`` that the fitted ``preprocess`` did not see in training:
    they are encoded as no category (all zeros), as ``OneHotEncoder(handle_unknown=...)`` does."""
    _, pipeline, columns = next(item for item in preprocess.transformers_ if item[0] == "categorical")
    if len(columns) == 0:
        return []
    notes = []
    for column, categories in zip(columns, pipeline[-1].categories_, strict=True):
        values = features[column].dropna()
        unseen = values[~values.isin(categories)].value_counts()
        if len(unseen):
            shown = ", ".join(f"{value!r} ({count} rows)" for value, count in unseen.head(6).items())
            more = ", ..." if len(unseen) > 6 else ""
            notes.append(f"the target data's column {column!r} has categories that the source's training "
                         f"rows have not: {shown}{more}; they are encoded as none of the source's categories "
                         "(all zeros)")
    return notes


def _preprocessor():
    from sklearn.compose import ColumnTransformer, make_column_selector
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    numeric = make_pipeline(SimpleImputer(strategy="median"), StandardScaler())
    categorical = make_pipeline(SimpleImputer(strategy="most_frequent"),
                                OneHotEncoder(handle_unknown="infrequent_if_exist", max_categories=30,
                                              sparse_output=False))
    return ColumnTransformer([("numeric", numeric, make_column_selector(dtype_include="number")),
                              ("categorical", categorical, make_column_selector(dtype_exclude="number"))])


def _usable_classes():
    from fairkit.registry import all_estimators

    return {name: cls for name, cls in all_estimators("classifier") if _takes(cls.fit, "sensitive_features")}


def _parameters(cls):
    return list(inspect.signature(cls).parameters)


def usable_methods():
    """The methods :func:`audit` can run, each with the parameters it takes.

    Returns
    -------
    methods : dict of str to list of str
        The registered classifiers whose ``fit`` takes ``sensitive_features`` (by class
        name, as ``methods`` takes them), each with its constructor's parameter names (what
        ``params`` may set). ``fairkit audit --help`` lists them.

    Examples
    --------
    >>> from fairkit.audit import usable_methods
    >>> "constraint" in usable_methods()["RandomizedFairBOC"]
    True
    """
    return {name: _parameters(cls) for name, cls in _usable_classes().items()}


def _resolve_methods(methods):
    from fairkit.registry import all_estimators

    registered = dict(all_estimators())
    usable = _usable_classes()
    if methods is None:
        methods = [name for name in DEFAULT_METHODS if name in registered]
    for name in methods:
        if name not in usable:
            why = ("is not a classifier that takes sensitive_features" if name in registered
                   else "is not registered")
            raise AuditError(f"method {name!r} {why}; usable methods: {', '.join(usable) or 'none'}")
    return {name: usable[name] for name in methods}


def _unknown_parameter(key, methods):
    """The message for ``--param key`` whose name none of ``methods`` ({name: class}) takes."""
    name = key.rpartition(".")[2]
    if not methods:
        return f"--param {key}: no fair method was chosen (only the baseline is fitted)"
    close = difflib.get_close_matches(name, [p for cls in methods.values() for p in _parameters(cls)], n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    if len(methods) == 1:
        (method, cls), = methods.items()
        return f"--param {key}: {method} has no parameter {name!r}{hint}; its parameters: " \
               f"{', '.join(_parameters(cls))}"
    return f"--param {key}: no chosen method has parameter {name!r}{hint}; " + "; ".join(
        f"{method} takes {', '.join(_parameters(cls))}" for method, cls in methods.items())


def _method_params(chosen, params):
    """``{method: {parameter: value}}`` from ``params``, whose keys are ``NAME`` (every chosen
    method that takes it) or ``METHOD.NAME`` (that method only, which wins); raise AuditError
    for a name that no chosen method takes."""
    per_method = {method: {} for method in chosen}
    for key in sorted(params, key=lambda key: "." in key):  # METHOD.NAME after NAME: it wins
        method, _, name = key.rpartition(".")
        if method and method not in chosen:
            raise AuditError(f"--param {key}: {method!r} is not a chosen method; chosen: "
                             f"{', '.join(chosen) or 'none (only the baseline is fitted)'}")
        candidates = {method: chosen[method]} if method else chosen
        takers = [method for method, cls in candidates.items() if name in _parameters(cls)]
        if not takers:
            raise AuditError(_unknown_parameter(key, candidates))
        for method in takers:
            per_method[method][name] = params[key]
    return {method: values for method, values in per_method.items() if values}


def _resolve_checks(checks):
    """``{name: (check, option)}`` for ``checks`` ({check name: option}); raise AuditError for a name
    that no plugin registers, saying which plugin provides it when that is known."""
    if checks is None:
        return {}
    if not isinstance(checks, Mapping):
        raise AuditError(f"checks must be a dict of check name to option, got {type(checks).__name__}")
    from fairkit.registry import all_audit_checks

    registered = all_audit_checks()
    for name in checks:
        if name in registered:
            continue
        shown = f"registered checks: {', '.join(registered) or 'none'}"
        if name in CHECK_PLUGINS:
            raise AuditError(f"check {name!r} is not registered: it comes with a plugin; install it with "
                             f"{CHECK_PLUGINS[name]} (if it is installed, `fairkit plugins` says why it "
                             f"is not loaded); {shown}")
        close = difflib.get_close_matches(str(name), [*registered, *CHECK_PLUGINS], n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise AuditError(f"unknown check {name!r}{hint}; {shown}")
    return {name: (registered[name], option) for name, option in checks.items()}


def _run_checks(checks, model, name, X, y, sensitive_features, random_state, feature_names, tables, failures,
                notes, bar, target=None):
    """Run each check on the fitted ``model``, each on its own copy of the test data; add its table to
    ``tables[check][name]``, or, when it raises or returns no DataFrame, the error to ``failures``.

    The optional keywords go to the checks whose signature names them: ``feature_names``, and
    ``target`` (a copy of ``target``, the target domain's preprocessed data, or None without it)."""
    for check_name, (check, option) in checks.items():
        bar.set_postfix_str(f"{name}: {check_name}")
        optional = {"feature_names": list(feature_names)} if _accepts(check, "feature_names") else {}
        if _accepts(check, "target"):
            optional["target"] = None if target is None else _copy(target)
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                table = check(model, X.copy(), y.copy(), sensitive_features.copy(), option=option,
                              random_state=random_state, **optional)
            if not isinstance(table, pd.DataFrame):
                raise TypeError(f"the check returned {type(table).__name__}, not a DataFrame")
        except Exception as exc:  # a plugin's check may not apply to this model: report it and go on
            failures[f"{name} {check_name}"] = _error(exc)
            continue
        finally:
            bar.update()
        _note_warnings(caught, notes, f"{name}, {check_name}")
        tables.setdefault(check_name, {})[name] = table


def _copy(bunch):
    """A copy of a Bunch whose values have ``copy`` (arrays, frames, lists): each check gets its own."""
    from sklearn.utils import Bunch

    return Bunch(**{key: value.copy() if hasattr(value, "copy") else value for key, value in bunch.items()})


def _accepts(function, name):
    """Whether ``function`` takes the keyword ``name`` (by name, or through ``**kwargs``)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):  # no signature to read
        return False
    return any(p.name == name and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
               or p.kind is p.VAR_KEYWORD for p in parameters)


def _error(exc):
    """An exception in one line: ``RuntimeError: diverged``."""
    return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"


def _takes(function, name):
    return function is not None and name in inspect.signature(function).parameters


def _make_method(cls, random_state, params):
    """An instance with ``params`` and otherwise default parameters (a meta-estimator without a model
    gets the baseline's); raise AuditError if a parameter's value is invalid."""
    from sklearn.linear_model import LogisticRegression

    parameters = inspect.signature(cls).parameters
    kwargs = {}
    if "estimator" in parameters and parameters["estimator"].default in (None, inspect.Parameter.empty):
        kwargs["estimator"] = LogisticRegression(max_iter=1000)
    if "random_state" in parameters:
        kwargs["random_state"] = random_state
    model = cls(**{**kwargs, **params})
    if params and hasattr(model, "_parameter_constraints"):  # scikit-learn's check, before any fit
        try:
            model._validate_params()
        except (TypeError, ValueError) as exc:
            raise AuditError(f"--param: {str(exc).splitlines()[0]}") from None
    return model


def _fairness_metrics(names=None):
    """Registered metrics that score predictions against true labels and sensitive features."""
    from fairkit.registry import all_metrics

    usable = {name: metric for name, metric in all_metrics().items()
              if all(_takes(metric, arg) for arg in ("y_true", "y_pred", "sensitive_features"))}
    if names is None:
        return usable
    unknown = [name for name in names if name not in usable]
    if unknown:
        raise AuditError(f"unknown metric {', '.join(map(repr, unknown))}; usable metrics: "
                         f"{', '.join(usable) or 'none'}")
    return {name: usable[name] for name in names}


def _score(y_true, y_pred, groups, metrics, notes, model, random_state, bar):
    """Accuracy and every metric: scalars and the fields of test results (``name.pvalue``) overall,
    DataFrames (one row per group) by group.

    A group metric also gets its interval (``name.low``, ``name.high``: it holds the population
    value with probability at least :data:`CONFIDENCE`) and its noise floor (``name.floor``: the
    :data:`CONFIDENCE` quantile of the metric under an exactly fair rule on these groups;
    ``name.floor_pvalue``: the share of such rules at least as unfair as the model).
    """
    from sklearn.metrics import accuracy_score

    from fairkit.metrics import Estimate, fairness_floor

    overall, by_group = {"accuracy": accuracy_score(y_true, y_pred)}, None
    for name, metric in metrics.items():
        bar.set_postfix_str(f"{model}: {name}")
        kwargs = {"random_state": random_state} if _takes(metric, "random_state") else {}
        if _takes(metric, "ci"):
            kwargs["ci"] = CONFIDENCE
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                value = metric(y_true=y_true, y_pred=y_pred, sensitive_features=groups, **kwargs)
                floor = (fairness_floor(metric, y_true, y_pred, sensitive_features=groups,
                                        quantile=CONFIDENCE, random_state=random_state)
                         if isinstance(value, Estimate) and name in DEFINITIONS else None)
        except Exception as exc:  # a plugin's metric may not apply to this data
            notes.append(f"{model}: metric {name} failed: {type(exc).__name__}: {exc}")
            continue
        finally:
            bar.update()
        _note_warnings(caught, notes, f"{model}, {name}")
        if isinstance(value, pd.DataFrame):
            by_group = value if by_group is None else by_group.join(value, rsuffix=f" ({name})")
        elif isinstance(value, Estimate):
            overall.update({name: value.value, f"{name}.low": value.low, f"{name}.high": value.high})
            if floor is not None:
                overall.update({f"{name}.floor": floor.quantile, f"{name}.floor_pvalue": floor.pvalue})
        elif np.ndim(value) == 0:
            overall[name] = float(value)
        elif hasattr(value, "_fields"):  # a named tuple, such as a test's (statistic, pvalue)
            overall.update({f"{name}.{field}": float(getattr(value, field)) for field in value._fields
                            if np.ndim(getattr(value, field)) == 0})
    return overall, by_group


#: The rates whose noise a group's table shows, each with the count it is a share of.
_RATE_COUNTS = (("selection_rate", "count"), ("true_positive_rate", "count_positive"),
                ("false_positive_rate", "count_negative"))


def _noise_sd(summary):
    """Each group's largest sampling SD, on these test rows, of its selection, true positive and false
    positive rates under a rule with the pooled rates (the noise that a gap must beat); a rate of no
    rows (a group without positives has no true positive rate) has none."""
    sds = np.full((len(_RATE_COUNTS), len(summary)), np.nan)
    for sd, (rate, count) in zip(sds, _RATE_COUNTS, strict=True):
        n = summary[count].to_numpy(dtype=float)
        counted = n > 0
        if counted.any():
            pooled = np.average(summary[rate].to_numpy(dtype=float)[counted], weights=n[counted])
            sd[counted] = np.sqrt(pooled * (1 - pooled) / n[counted])
    return pd.Series(np.nanmax(sds, axis=0), index=summary.index)


def _flag_small_groups(by_group, tolerance, notes):
    """Add each group's noise SD to its table; note the groups whose SD exceeds ``tolerance``."""
    for model, summary in by_group.items():
        if not {column for pair in _RATE_COUNTS for column in pair} <= set(summary.columns):
            continue
        summary["noise_sd"] = _noise_sd(summary)
        small = summary[summary["noise_sd"] > tolerance]
        if len(small):
            shown = ", ".join(f"{label} (SD {row.noise_sd:.3f}, {row.count_positive} positives, "
                              f"{row.count_negative} negatives)"
                              for label, row in zip(_group_labels(small.index), small.itertuples(),
                                                    strict=True))
            notes.append(f"{model}: group(s) {shown} are too small for a tolerance of {tolerance}: the "
                         "sampling SD of a rate there exceeds it, so their gaps are mostly noise")


def _note_warnings(caught, notes, where):
    for warning in caught:
        note = f"{where}: {warning.category.__name__}: {str(warning.message).splitlines()[0]}"
        if note not in notes:
            notes.append(note)


def audit(data, *, target, sensitive, positive_label=None, methods=None, params=None, metrics=None,
          test_size=0.3, tolerance=0.05, random_state=0, progress=False, checks=None, target_data=None):
    """Compare an unconstrained baseline with fair methods on a table.

    Parameters
    ----------
    data : str, path-like or DataFrame
        A CSV file with a header row, or a DataFrame.
    target : str
        The column to predict; binary, or made binary by ``positive_label``.
    sensitive : str or list of str
        The sensitive column(s); several form intersectional groups. They are not used as features.
    positive_label : scalar, default=None
        The target value that counts as positive (compared as text). Required unless the
        target's values are {0, 1}, {-1, 1} or booleans.
    methods : list of str, default=None
        Registered classifiers that take ``sensitive_features`` (class names). ``None``
        takes ``RandomizedFairBOC`` when it is registered. :func:`usable_methods` lists them.
    params : dict of str to object, default=None
        Parameters of the methods (otherwise they keep their defaults). A key ``NAME``
        sets that parameter of every chosen method that takes it; ``METHOD.NAME`` sets it on
        that method only, and wins over ``NAME``. For example
        ``{"constraint": "equalized_odds"}`` or
        ``{"RandomizedFairBOC.constraint": "equalized_odds"}``.
    metrics : list of str, default=None
        Registered metrics taking ``(y_true, y_pred, *, sensitive_features)`` to report
        besides accuracy. ``None`` takes all of them.
    test_size : float, default=0.3
        Fraction of rows held out for scoring; the split is stratified by group.
    tolerance : float, default=0.05
        The smallest gap between group rates that matters to you. A group whose rates have
        a larger sampling SD on the test set (under a rule with the pooled rates) is named
        in the notes: its gaps are mostly noise. Each group's table row holds that SD
        (``noise_sd``).
    random_state : int, default=0
        Seed of the split and of the methods' ``random_state``.
    progress : bool, default=False
        Show a progress bar (on standard error) over the model fits, metrics and checks.
    checks : dict of str to object, default=None
        Checks registered by plugins (:func:`fairkit.registry.all_audit_checks`) to run on
        every model once it is scored, each with its option, as in ``{"robustness": 0.1}``
        (``fairkit audit --robustness 0.1``: the check of the ``fairkit-robust`` plugin), or
        ``{"abstain": 0.8}`` (``fairkit audit --abstain 0.8``: each group's coverage and selective
        accuracy when the model answers the 80 % of rows it is surest of, ``fairkit-uncertainty``). Their
        tables are in :attr:`AuditResult.checks`, the text and the report; a check that fails
        on a model is in :attr:`AuditResult.failures` as ``"<model> <check>"``.
    target_data : str, path-like or DataFrame, default=None
        A table from a target domain (a CSV file or a DataFrame, ``fairkit audit --target-csv``)
        with the columns of ``data`` and its labels, for the checks that compare the domains,
        such as ``{"shift": None}`` (the ``fairkit-shift`` plugin: which subgroups lose
        performance in the target domain, and why). Its features are preprocessed as the models'
        (the preprocessing is fitted on the training rows of ``data`` only) and its labels made
        0/1 with the same positive label. A check whose signature names ``target`` receives it
        as a :class:`~sklearn.utils.Bunch` with ``X``, ``y``, ``sensitive_features`` and
        ``feature_names`` (None without ``target_data``); ``info`` records its source and size.

    Returns
    -------
    result : AuditResult

    Raises
    ------
    AuditError
        If the input is unusable (missing file, unknown column, a target that is not
        binary or has a single value, a single group or a group of one row, an infinite
        feature value, a parameter that no chosen method takes or an invalid parameter
        value, a check that no plugin registers, target data whose columns or labels differ from
        the source's, ...); nothing is fitted then.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from fairkit.audit import audit
    >>> rng = np.random.default_rng(0)
    >>> frame = pd.DataFrame({"x": rng.normal(size=200), "group": rng.choice(["a", "b"], 200)})
    >>> frame["y"] = (frame["x"] + (frame["group"] == "a") > 0.5).astype(int)
    >>> result = audit(frame, target="y", sensitive="group", methods=[])
    >>> bool(result.overall.loc["accuracy", "baseline"] > 0.7)
    True
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from tqdm import tqdm

    sensitive = [sensitive] if isinstance(sensitive, str) else list(sensitive)
    if not sensitive:
        raise AuditError("give at least one sensitive column")
    if not 0 < test_size < 1:
        raise AuditError(f"--test-size must be between 0 and 1, got {test_size}")
    if not 0 < tolerance < 1:
        raise AuditError(f"--tolerance must be between 0 and 1, got {tolerance}")
    frame, source = _read(data)
    _check_columns(frame, target, sensitive)
    notes = []
    complete = frame.dropna(subset=[target, *sensitive]).reset_index(drop=True)
    if complete.empty:
        raise AuditError("no rows to audit: " + ("the file has no data rows" if frame.empty else
                                                 "every row has a missing target or sensitive value"))
    if len(complete) < len(frame):
        notes.append(f"{len(frame) - len(complete)} rows with a missing target or sensitive value "
                     "were left out")
    y, positive = _binary_target(complete[target], positive_label)
    labels, sizes = _groups(complete, sensitive)
    features = complete.drop(columns=[target, *sensitive])
    if features.shape[1] == 0:
        raise AuditError("no feature columns are left besides the target and the sensitive columns")
    _check_finite(features)
    if target_data is not None:
        target_source, n_target_rows, target_features, y_target, s_target = _target_data(
            target_data, target, sensitive, features, complete[target], positive, notes)
    chosen = _resolve_methods(methods)
    method_params = _method_params(chosen, params or {})
    chosen_checks = _resolve_checks(checks)
    models = {BASELINE: LogisticRegression(max_iter=1000),
              **{name: _make_method(cls, random_state, method_params.get(name, {}))
                 for name, cls in chosen.items()}}
    metrics = _fairness_metrics(metrics)
    try:
        train, test = train_test_split(np.arange(len(complete)), test_size=test_size,
                                       random_state=random_state, stratify=labels)
    except ValueError as exc:
        raise AuditError(f"cannot split {len(complete)} rows into train and test sets stratified "
                         f"by {len(sizes)} groups: {exc}") from None
    if len(np.unique(y[train])) < 2:
        raise AuditError("the training set holds only one class of the target")
    if not chosen:
        notes.append("no fair method was chosen or registered; only the baseline was fitted")
    if target_data is not None and not any(_accepts(check, "target") for check, _ in chosen_checks.values()):
        notes.append("target data was given, but no check asked for compares the domains (such as "
                     "checks={'shift': None}, --target-csv)")

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        preprocess = _preprocessor()
        X_train = preprocess.fit_transform(features.iloc[train])
        X_test = preprocess.transform(features.iloc[test])
        feature_names = preprocess.get_feature_names_out()
    _note_warnings(caught, notes, "preprocessing")
    target_bunch = None
    if target_data is not None:
        from sklearn.utils import Bunch

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            X_target = preprocess.transform(target_features)  # fitted on the source's training rows only
        _note_warnings(caught, notes, "preprocessing the target data")
        notes.extend(_unseen_categories(preprocess, target_features))
        target_bunch = Bunch(X=X_target, y=y_target, sensitive_features=s_target,
                             feature_names=list(feature_names))
    s_train, s_test = complete[sensitive].iloc[train], complete[sensitive].iloc[test]
    overall, by_group, failures, seconds = {}, {}, {}, {}
    steps = 1 + len(metrics) + len(chosen_checks)  # per model: the fit, each metric, each check
    check_tables = {}
    bar = tqdm(total=len(models) * steps, desc="audit", unit="step", disable=not progress)
    for name, model in models.items():
        bar.set_postfix_str(f"fitting {name}")
        start = time.perf_counter()
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                if name == BASELINE:
                    y_pred = model.fit(X_train, y[train]).predict(X_test)
                else:
                    model.fit(X_train, y[train], sensitive_features=s_train)
                    kwargs = ({"sensitive_features": s_test} if _takes(model.predict, "sensitive_features")
                              else {})
                    y_pred = model.predict(X_test, **kwargs)
        except Exception as exc:  # report a method that breaks on this data and go on
            failures[name] = _error(exc)
            bar.update(steps)  # the fit, and the metrics and checks it will not get
            continue
        bar.update()
        seconds[name] = time.perf_counter() - start
        _note_warnings(caught, notes, name)
        overall[name], groups = _score(y[test], np.asarray(y_pred), s_test, metrics, notes, name,
                                       random_state, bar)
        if groups is not None:
            by_group[name] = groups
        _run_checks(chosen_checks, model, name, X_test, y[test], s_test, random_state, feature_names,
                    check_tables, failures, notes, bar, target_bunch)
    bar.close()
    _flag_small_groups(by_group, tolerance, notes)
    table = pd.DataFrame(overall)
    table.loc["fit and predict seconds"] = pd.Series(seconds)
    info = {"source": source, "n_rows": len(frame), "n_train": len(train), "n_test": len(test),
            "target": target, "positive_label": positive.item() if isinstance(positive, np.generic)
            else positive, "sensitive": sensitive, "groups": sizes.to_dict(),
            "features": list(features.columns), "test_size": test_size, "random_state": random_state,
            "methods": list(models), "params": method_params,
            "checks": {name: option for name, (_, option) in chosen_checks.items()}}
    if target_data is not None:
        info.update(target_source=target_source, n_target_rows=n_target_rows)
    return AuditResult(table, by_group, info, notes, failures, _join_check_tables(check_tables, failures))


def _join_check_tables(check_tables, failures):
    """``{check: one table}`` from ``{check: {model: table}}``, under a leading index level ``model``; a
    check whose tables cannot be put one below the other (different index levels) is a failure."""
    tables = {}
    for check, per_model in check_tables.items():
        levels = sorted({table.index.nlevels for table in per_model.values()})
        if len(levels) > 1:  # checked here: pandas 2 and 3 raise different errors for it
            failures[check] = (f"its tables for the models cannot be joined: their indexes have {levels} "
                               "levels")
            continue
        try:
            tables[check] = pd.concat(per_model, names=["model"])
        except (TypeError, ValueError) as exc:
            failures[check] = f"its tables for the models cannot be joined: {_error(exc)}"
    return tables


_LEVEL = f"{CONFIDENCE:.0%}"
_LEGEND = (f"value [{_LEVEL} interval]: the interval holds the population value with probability at least "
           f"{_LEVEL}. noise floor: how far from parity an exactly fair rule on these test groups lands in "
           f"{_LEVEL} of draws; a difference above it (a ratio below it) is more than noise. p-value: the "
           "share of exactly fair rules at least as far from parity as the model (for a statistical test, "
           "its p-value).")
_GROUP_LEGEND = (f"Rates with their exact {_LEVEL} intervals [low, high]; noise SD: the sampling SD of the "
                 "group's rates under one rule for everyone (a gap of a few noise SDs can be noise).")

#: How the rows ``name.FIELD`` of the overall table are shown: the part of ``name``'s row they fill.
_OVERALL_PARTS = {"low": "low", "high": "high", "floor": "floor", "floor_pvalue": "p",
                  "statistic": "value", "pvalue": "p"}
#: The per-group table shown: (column of group_summary, header, shown with its interval).
_GROUP_COLUMNS = (("count", "count", False), ("count_positive", "positives", False),
                  ("base_rate", "base rate", False), ("selection_rate", "selection rate", True),
                  ("true_positive_rate", "true positive rate", True),
                  ("false_positive_rate", "false positive rate", True), ("accuracy", "accuracy", False),
                  ("noise_sd", "noise SD", False))


def _number(value):
    if isinstance(value, (int, np.integer)):
        return str(value)
    return "-" if pd.isna(value) else f"{value:.3f}"


def _with_interval(value, low, high):
    """``0.310 [0.250, 0.370]``; ``-`` for a value that is not defined (NaN)."""
    return "-" if pd.isna(value) else f"{_number(value)} [{_number(low)}, {_number(high)}]"


def _overall_display(overall):
    """The overall table as text: one row per metric and model, its value with its interval, noise floor
    and p-value side by side (:attr:`AuditResult.overall` keeps them as rows of numbers)."""
    parts = {}
    for row in overall.index:
        metric, _, field = row.partition(".")
        if field and field not in _OVERALL_PARTS:
            metric, field = row, ""
        parts.setdefault(metric, {})[_OVERALL_PARTS.get(field, "value")] = row
    records = []
    for metric, rows in parts.items():
        for model in overall.columns:
            value = {part: overall.at[row, model] for part, row in rows.items()}
            records.append((metric, model,
                            _with_interval(value.get("value"), value["low"], value["high"])
                            if "low" in value else _number(value.get("value")),
                            _number(value["floor"]) if "floor" in value else "",
                            _number(value["p"]) if "p" in value else ""))
    return pd.DataFrame.from_records(
        records, columns=["metric", "model", f"value [{_LEVEL} interval]", "noise floor", "p-value"]
    ).set_index(["metric", "model"])


def _group_display(frame, sensitive):
    """A per-group table as text: one row per group (``F & Black``), each rate with its interval."""
    shown = {}
    for column, header, interval in _GROUP_COLUMNS:
        if column not in frame.columns:
            continue
        bounds = [f"{column}_low", f"{column}_high"]
        if interval and set(bounds) <= set(frame.columns):
            shown[header] = [_with_interval(*row) for row in frame[[column, *bounds]].to_numpy()]
        else:
            shown[header] = [_number(value) for value in frame[column].tolist()]
    if not shown:  # a plugin's table with other columns
        shown = {column: [_number(value) for value in frame[column].tolist()] for column in frame.columns}
    return pd.DataFrame(shown, index=pd.Index(_group_labels(frame.index), name=" & ".join(sensitive)))


def _check_title(name, info):
    """The line above a check's table: ``Check robustness (option 0.1)``."""
    option = info.get("checks", {}).get(name)
    return f"Check {name}" + ("" if option is None else f" (option {option!r})")


def _cell(value, label=False):
    """A cell of a check's table: a number as the other tables show it (a row label, such as an attack's
    size, in full: ``0.0005``), anything else as text."""
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return f"{value:g}" if label and not pd.isna(value) else _number(value)
    return "-" if value is None or (np.ndim(value) == 0 and pd.isna(value)) else str(value)


def _check_display(frame):
    """A check's table (:attr:`AuditResult.checks`) as ``(headers, rows)`` of text: the model and the
    check's own row labels first, then its columns; unnamed integer row labels (the row numbers of a
    table without labels) are left out."""
    labels = []
    for i, level in enumerate(frame.index.names):
        values = frame.index.get_level_values(i)
        if i and level is None and pd.api.types.is_integer_dtype(values):
            continue
        labels.append(("" if level is None else str(level), values))
    headers = [header for header, _ in labels] + [" ".join(map(str, column)) if isinstance(column, tuple)
                                                   else str(column) for column in frame.columns]
    columns = [values for _, values in labels] + [frame.iloc[:, j] for j in range(frame.shape[1])]
    rows = [[_cell(value, label=i < len(labels)) for i, value in enumerate(row)]
            for row in zip(*columns, strict=True)]
    return headers, rows


def _blank_repeats(rows):
    """Rows whose first cell is left blank where it repeats the row above (a model's label shown once)."""
    return [["" if i and row[0] == rows[i - 1][0] else row[0], *row[1:]] for i, row in enumerate(rows)]


def _text(display):
    """A display table as plain text; a label repeated down the first column is shown once."""
    frame = display.reset_index()
    rows = frame.to_numpy().tolist()
    if display.index.nlevels > 1:
        rows = [["" if i and row[0] == rows[i - 1][0] else row[0], *row[1:]] for i, row in enumerate(rows)]
    return text_table(frame.columns, rows)


def _show_params(params):
    return ", ".join(f"{name}={value!r}" for name, value in params.items())


def _figure_png(fig):
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90, bbox_inches="tight")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _missing_plots():
    """:data:`NO_PLOTS` when matplotlib cannot be imported, else None."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return NO_PLOTS
    return None


def _plots(result):
    """Base64 PNGs: the per-group rates of every model, and accuracy against each fairness metric.

    The figures are made without pyplot, so the caller's matplotlib backend and figures stay as they are.
    Every label is drawn as plain text (no mathtext, no TeX): a group label such as ``$5-$10`` is data.
    """
    import matplotlib

    with matplotlib.rc_context({"text.parse_math": False, "text.usetex": False}):
        return _figures(result)


def _figures(result):
    from matplotlib.figure import Figure

    plots = {}
    rates = [c for c in ("selection_rate", "true_positive_rate", "false_positive_rate", "accuracy")
             if result.by_group and all(c in f.columns for f in result.by_group.values())]
    if rates:
        models = list(result.by_group)
        groups = _group_labels(next(iter(result.by_group.values())).index)
        fig = Figure(figsize=(3.6 * len(rates), 0.35 * len(groups) * len(models) + 1.8))
        axes = fig.subplots(1, len(rates), sharey=True, squeeze=False)
        height = 0.8 / len(models)
        for ax, rate in zip(axes[0], rates, strict=True):
            for i, model in enumerate(models):
                frame = result.by_group[model]
                values = frame[rate].to_numpy(dtype=float)
                error = None
                if {f"{rate}_low", f"{rate}_high"} <= set(frame.columns):
                    error = np.clip([values - frame[f"{rate}_low"].to_numpy(dtype=float),
                                     frame[f"{rate}_high"].to_numpy(dtype=float) - values], 0, None)
                ax.barh(np.arange(len(groups)) + i * height, values, height=height, xerr=error,
                        error_kw={"capsize": 2, "linewidth": 0.8}, label=model)
            ax.set_title(rate.replace("_", " "))
            ax.set_xlim(0, 1)
        axes[0][0].set_yticks(np.arange(len(groups)) + 0.4 - height / 2, groups)
        axes[0][0].invert_yaxis()
        axes[0][-1].legend(fontsize="small", loc="lower right")
        plots[f"Rates by group (lines: {_LEVEL} intervals)"] = _figure_png(fig)
    fairness = [m for m in result.overall.index
                if m not in {"accuracy", "fit and predict seconds"} and "." not in m]
    if fairness:
        columns = min(3, len(fairness))
        rows = -(-len(fairness) // columns)
        fig = Figure(figsize=(3.8 * columns, 3.2 * rows))
        axes = fig.subplots(rows, columns, squeeze=False)
        for ax, metric in zip(axes.flat, fairness, strict=False):
            for model in result.overall.columns:
                x, y = result.overall.loc[metric, model], result.overall.loc["accuracy", model]
                low, high = (result.overall[model].get(f"{metric}.{end}") for end in ("low", "high"))
                error = None if low is None else [[x - low], [high - x]]
                ax.errorbar([x], [y], xerr=error, fmt="o", capsize=3)
                ax.annotate(model, (x, y), fontsize="small", xytext=(4, 4), textcoords="offset points")
                floor = result.overall[model].get(f"{metric}.floor")
                if floor is not None and np.isfinite(floor):
                    ax.axvline(floor, color="0.6", linestyle=":", linewidth=1)
            ax.set_xlabel(metric.replace("_", " ") + " (dotted: noise floor)")
            ax.set_ylabel("accuracy")
        for ax in list(axes.flat)[len(fairness):]:
            ax.set_visible(False)
        fig.tight_layout()
        plots["Accuracy against each fairness metric (one point per model)"] = _figure_png(fig)
    return plots


_STYLE = """body{font-family:system-ui,sans-serif;max-width:70em;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:0.5em 0 1.5em}td,th{border:1px solid #ccc;padding:0.25em 0.6em;
text-align:right}th{background:#f3f3f3}img{max-width:100%}code{background:#f3f3f3;padding:0 0.2em}
.note{color:#8a5a00}"""


def _html_report(result):
    from fairkit import __version__

    info = result.info
    esc = html.escape
    table = _overall_display(result.overall).to_html()
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>fairkit audit: {esc(info['source'])}"
             f"</title><style>{_STYLE}</style></head><body>",
             f"<h1>Fairness audit of <code>{esc(info['source'])}</code></h1>",
             "<ul>",
             f"<li>{info['n_rows']} rows; {info['n_train']} to train, {info['n_test']} to test "
             f"(test size {info['test_size']}, split stratified by group, random state "
             f"{info['random_state']})</li>",
             f"<li>target <code>{esc(info['target'])}</code>, positive label "
             f"<code>{esc(str(info['positive_label']))}</code></li>",
             *([f"<li>{esc(_target_line(info))}</li>"] if "target_source" in info else []),
             f"<li>sensitive: {', '.join(f'<code>{esc(c)}</code>' for c in info['sensitive'])}; groups "
             f"(rows): {esc(', '.join(f'{g} ({n})' for g, n in info['groups'].items()))}</li>",
             f"<li>features ({len(info['features'])}): {esc(', '.join(info['features']))}; the "
             "sensitive columns are not features</li>",
             f"<li>models: {esc(', '.join(info['methods']))}; the baseline is a logistic regression, "
             "and meta-estimators wrap the same model</li>",
             *(f"<li>{esc(method)} with <code>{esc(_show_params(params))}</code></li>"
               for method, params in info["params"].items()),
             *(f"<li>check {esc(name)} with option <code>{esc(repr(option))}</code></li>"
               for name, option in info.get("checks", {}).items()),
             "</ul>",
             f"<h2>Test-set metrics</h2><p>Differences: 0 is fair. Ratios: 1 is fair. {esc(_LEGEND)}</p>",
             table]
    notes = list(result.notes)  # writing the report does not change the result
    missing = _missing_plots()
    plots = {} if missing else _plots(result)
    if missing:
        notes.append(missing)
    for title, png in plots.items():
        parts.append(f"<h2>{esc(title)}</h2><img alt='{esc(title)}' src='data:image/png;base64,{png}'>")
    for model, frame in result.by_group.items():
        parts += [f"<h2>By group: {esc(model)}</h2><p>{esc(_GROUP_LEGEND)}</p>",
                  _group_display(frame, info["sensitive"]).to_html()]
    for name, frame in result.checks.items():
        headers, rows = _check_display(frame)
        parts += [f"<h2>{esc(_check_title(name, info))}</h2>",
                  pd.DataFrame(rows, columns=headers).to_html(index=False)]
    if result.failures:
        parts.append("<h2>Failures</h2><ul>" + "".join(
            f"<li><b>{esc(m)}</b>: {esc(e)}</li>" for m, e in result.failures.items()) + "</ul>")
    if notes:
        parts.append("<h2>Notes</h2><ul>" + "".join(f"<li class='note'>{esc(n)}</li>" for n in notes)
                     + "</ul>")
    parts.append(f"<p><small>Generated by fairkit {esc(__version__)}.</small></p></body></html>")
    return "\n".join(parts)
