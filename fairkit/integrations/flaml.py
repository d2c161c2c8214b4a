"""FLAML: tune fairkit estimators with FLAML's AutoML, subject to a fairness bound.

:func:`add_learner` registers a fairkit estimator as a custom learner of a
``flaml.AutoML`` (``AutoML.add_learner``), searching the space registered for it through
the ``fairkit_search_spaces`` hook, converted by :func:`flaml_space`.
:class:`ConstrainedAccuracy` is a metric FLAML minimizes: 1 − accuracy on the validation
rows for configurations whose fairness gap there is at most a bound, and a loss above
every such configuration's for the others.

Sensitive features travel as columns of ``X`` named by ``sensitive_cols``: the only route
on which FLAML keeps them on the right rows. FLAML shuffles and splits ``X``, ``y`` and
``sample_weight`` together, but hands every other fit argument (``AutoML.fit(...,
**fit_kwargs)``, ``fit_kwargs_by_estimator``) whole to each learner: the training rows of
a split, or of the final refit on the shuffled data, would get the sensitive features of
other rows. The learners therefore refuse a ``sensitive_features`` fit argument.

FLAML's own preprocessing (``skip_transform=False``, its default) reorders a DataFrame's
columns and fills missing values before any learner sees them: a numeric column's with
its median, another column's (and, at prediction, values unseen in training) with the
category ``"__NAN__"``. Column positions could thus name other columns, so
``sensitive_cols`` must be column names; a sensitive column holding ``"__NAN__"`` is
refused; a numeric sensitive column filled with its median cannot be told apart from a
real group. Check that the sensitive columns have no missing values, or pass
``skip_transform=True`` so that fairkit's own validation sees the raw columns.
"""

import copyreg
import numbers

import numpy as np
import pandas as pd
from sklearn.base import is_classifier, is_regressor
from sklearn.metrics import accuracy_score
from sklearn.utils import check_scalar

from fairkit.integrations._spaces import Choice, IntRange, parse_entry
from fairkit.metrics import Estimate
from fairkit.metrics._scorer import _resolve
from fairkit.utils.validation import check_same_index, resolve_sensitive_features

__all__ = ["ConstrainedAccuracy", "add_learner", "flaml_space"]

# The category FLAML's preprocessing puts in place of missing values (flaml/automl/data.py).
_FLAML_MISSING = "__NAN__"

# The loss of a configuration that misses the bound: above 1 (every loss that meets it), and
# high enough that FLAML's mean over cross-validation folds still ranks a configuration that
# misses the bound on any of up to 999 folds below every configuration that meets it on all.
_INFEASIBLE_LOSS = 1000.0


def _flaml():
    try:
        from flaml import tune
        from flaml.automl.model import SKLearnEstimator
    except ImportError as exc:
        raise ImportError('fairkit.integrations.flaml needs FLAML: pip install "fairkit[flaml]"') from exc
    return tune, SKLearnEstimator


def _column_names(sensitive_cols):
    """``sensitive_cols`` as a list of column names, refusing positions."""
    cols = [sensitive_cols] if isinstance(sensitive_cols, str) else sensitive_cols
    if not isinstance(cols, list | tuple) or not cols or not all(isinstance(c, str) for c in cols):
        raise ValueError(f"sensitive_cols must name columns of X (a str or a non-empty list of str), got "
                         f"{sensitive_cols!r}: FLAML reorders a DataFrame's columns (categorical ones first) "
                         "before the learners see them, so a position could point at another column.")
    return list(cols)


def _convert(space):
    """FLAML's search space for ``space``, and the values of the entries chosen by index."""
    tune, _ = _flaml()
    domains, by_index = {}, {}
    for name, entry in space.items():
        kind = parse_entry(name, entry, "FLAML")
        if isinstance(kind, Choice):
            values = list(range(len(kind.values))) if kind.by_index else kind.values
            if kind.by_index:
                by_index[name] = kind.values
            domain, start = tune.choice(values), values[0]
        elif isinstance(kind, IntRange):  # tune.randint excludes its upper bound
            domain, start = tune.randint(kind.low, kind.high + 1), kind.low
        else:
            domain = (tune.loguniform if kind.log else tune.uniform)(kind.low, kind.high)
            start = kind.low
        # without a starting value FLAML's search (CFO) tries only the estimator's defaults
        domains[name] = {"domain": domain, "init_value": start}
    return domains, by_index


def flaml_space(space):
    """Convert a search space to the format of a FLAML learner's ``search_space``.

    Parameters
    ----------
    space : dict
        Parameter names mapped to lists of values or ``scipy.stats`` distributions (see
        :func:`fairkit.registry.search_space`): lists become ``tune.choice`` (values FLAML
        cannot store, such as estimators, are chosen by index), ``randint(a, b)`` becomes
        ``tune.randint(a, b)`` (both exclude ``b``), ``loguniform`` becomes
        ``tune.loguniform`` and ``uniform`` (or any other bounded continuous distribution)
        ``tune.uniform`` over its support.

    Returns
    -------
    space : dict
        Parameter names mapped to ``{"domain": ..., "init_value": ...}``. The search starts
        from the first value of each list and the lower end of each range (FLAML's
        ``starting_points`` sets another start).

    Raises
    ------
    TypeError
        If an entry is neither a list nor a scipy.stats distribution, or is a discrete
        distribution other than ``randint``, or is unbounded.
    ValueError
        If a list is empty.

    Examples
    --------
    >>> from scipy.stats import loguniform
    >>> from fairkit.integrations.flaml import flaml_space
    >>> space = flaml_space({"C": loguniform(1e-3, 1e3), "penalty": ["l1", "l2"]})
    >>> space["C"]["domain"].lower, space["penalty"]["domain"].categories, space["penalty"]["init_value"]
    (0.001, ['l1', 'l2'], 'l1')
    """
    return _convert(space)[0]


def _refuse_filled_groups(X, cols):
    """Refuse sensitive columns in which FLAML's preprocessing filled missing values."""
    if not isinstance(X, pd.DataFrame):
        return
    filled = [col for col in cols if col in X.columns and X[col].isin([_FLAML_MISSING]).any()]
    if filled:
        raise ValueError(f"sensitive column(s) {filled} hold {_FLAML_MISSING!r}, the category FLAML's "
                         "preprocessing puts in place of missing values; fairkit refuses missing sensitive "
                         "features. Fill them or drop those rows before AutoML.fit (or pass "
                         "skip_transform=True, so that fairkit checks the raw columns).")


class _LearnerType(type):
    """The type of the learner classes, which pickle as the call that makes them (so does
    ``AutoML.pickle``, which holds them): a class made in a function cannot be found by name."""


def _learner_class(cls, searched, fixed):
    """A FLAML learner that fits ``cls(**fixed, **config)`` over the search space ``searched``."""
    _, SKLearnEstimator = _flaml()
    by_index = _convert(searched)[1]
    cols = fixed["sensitive_cols"]

    class FairkitLearner(SKLearnEstimator, metaclass=_LearnerType):
        _made_by = (cls, searched, fixed)

        def __init__(self, task="binary", n_jobs=None, **config):  # FLAML's n_jobs is not passed on
            super().__init__(task, **config)
            self.estimator_class = cls

        @classmethod
        def search_space(cls_, data_size, task, **params):
            return flaml_space(searched)  # new domains on each call: FLAML sorts their choices in place

        def config2params(self, config):
            params = super().config2params(config)
            params.update({name: by_index[name][params[name]] for name in by_index if name in params})
            return {**params, **fixed}

        def fit(self, X_train, y_train, budget=None, free_mem_ratio=0, **kwargs):
            if "sensitive_features" in kwargs:
                raise ValueError(
                    f"{cls.__name__} got sensitive_features as a fit argument of FLAML, which passes such "
                    "arguments whole to every learner, not split with the rows of X; the sensitive features "
                    f"of other rows would be used. Keep them in columns of X: sensitive_cols={cols!r}.")
            _refuse_filled_groups(X_train, cols)
            return super().fit(X_train, y_train, budget=budget, free_mem_ratio=free_mem_ratio, **kwargs)

    FairkitLearner.__name__ = FairkitLearner.__qualname__ = f"FLAML{cls.__name__}"
    return FairkitLearner


copyreg.pickle(_LearnerType, lambda learner_class: (_learner_class, learner_class._made_by))


def add_learner(automl, name, *, sensitive_cols, learner_name=None, **params):
    """Register the fairkit estimator ``name`` as a FLAML learner of ``automl``.

    The learner searches the space registered for ``name`` (see
    :func:`fairkit.registry.search_space` and :func:`flaml_space`) and reads the sensitive
    features from the columns ``sensitive_cols`` of ``X`` (see the module notes for why).

    Parameters
    ----------
    automl : flaml.AutoML
        The AutoML instance.
    name : str
        A registered classifier or regressor with a search space.
    sensitive_cols : str or list of str
        Names of the columns of ``X`` that hold the sensitive features.
    learner_name : str, default=None
        The learner's name in FLAML (``estimator_list``); ``None`` uses ``name``.
    **params
        Fixed constructor parameters of the estimator (e.g. ``random_state=0``; FLAML's
        ``n_jobs`` is not passed on); the ones in the search space leave it.

    Returns
    -------
    learner_name : str
        The name to put in ``AutoML.fit(..., estimator_list=[...])``.

    Raises
    ------
    ValueError
        If ``name`` is not registered, has no search space, is neither a classifier nor a
        regressor, or takes no ``sensitive_cols``, or if ``sensitive_cols`` holds no column
        names. The learner's ``fit`` raises a ``ValueError`` if given
        ``sensitive_features`` (pass them as columns of ``X``) or if a sensitive column
        holds FLAML's missing-value category ``"__NAN__"``.
    TypeError
        If ``params`` holds a parameter the estimator does not take.
    """
    from fairkit.registry import get_estimator, search_space

    cls, space = get_estimator(name), search_space(name)
    cols = _column_names(sensitive_cols)
    probe = cls(**params)
    if not (is_classifier(probe) or is_regressor(probe)):
        raise ValueError(f"FLAML's AutoML tunes classifiers and regressors; {name} is neither.")
    if "sensitive_cols" not in probe.get_params():
        raise ValueError(f"{name} takes no sensitive_cols, so it cannot read the sensitive features from X.")
    searched = {key: entry for key, entry in space.items() if key not in params}
    learner_name = name if learner_name is None else learner_name
    automl.add_learner(learner_name, _learner_class(cls, searched, {**params, "sensitive_cols": cols}))
    return learner_name


class ConstrainedAccuracy:
    """FLAML metric: accuracy subject to a bound on a fairness gap, both on the validation rows.

    Pass it as ``AutoML.fit(..., metric=ConstrainedAccuracy(...))``. On each validation
    split FLAML calls it with the fitted learner; it predicts once and computes the
    accuracy and the gap with fairkit's metric (its validation included). The loss is
    ``1 − accuracy`` when the gap is at most ``bound``, and 1000 plus the excess
    ``gap − bound`` when it is not, so a configuration that misses the bound is never
    chosen over one that meets it: under cross-validation (FLAML averages the folds'
    losses), one that misses it on any fold ranks below one that meets it on all. A gap
    that cannot be computed (NaN: a group lacks the samples a rate needs) gives an
    infinite loss. ``AutoML.best_loss`` of 1000 or more means that no configuration met
    the bound: the model is then the one that missed it by least. The metrics logged for
    each configuration are the accuracy and the gap (with ``ci``, also the upper end of
    its interval, ``<gap>_high``).

    Parameters
    ----------
    bound : float
        Largest allowed gap (0 is parity).
    sensitive_cols : str or list of str
        Names of the columns of ``X`` that hold the sensitive features.
    gap : str or callable, default="demographic_parity_difference"
        A registered metric name (see :func:`fairkit.metrics.make_fairness_scorer` for
        which qualify) or a function ``gap(y_true, y_pred, *, sensitive_features, ...)``
        returning one number, 0 at parity. Ratios (1 at parity) are refused.
    ci : float in (0, 1), default=None
        Judge the bound by the upper end of the gap's interval at this level (the metric's
        ``ci=``, see :ref:`metric_uncertainty`) instead of its value on the
        validation rows, so that a configuration meets it on new data too with that
        probability. ``None`` judges the value.
    **gap_params
        Further keyword arguments of ``gap`` (e.g. ``pos_label``, ``agg``).

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from fairkit.integrations.flaml import ConstrainedAccuracy
    >>> X = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0], "group": ["a", "a", "b", "b"]})
    >>> class Predictor:
    ...     def predict(self, X):
    ...         return np.array([1, 0, 1, 1])
    >>> metric = ConstrainedAccuracy(0.2, sensitive_cols="group")
    >>> metric(X, np.array([1, 0, 1, 0]), Predictor(), None, None, None)
    (1000.3, {'accuracy': 0.75, 'demographic_parity_difference': 0.5})
    """

    def __init__(self, bound, *, sensitive_cols, gap="demographic_parity_difference", ci=None, **gap_params):
        check_scalar(bound, "bound", numbers.Real, min_val=0)
        if ci is not None:
            check_scalar(ci, "ci", numbers.Real, min_val=0, max_val=1, include_boundaries="neither")
        self.gap = _resolve(gap)
        self.gap_name = getattr(self.gap, "__name__", "gap")
        if self.gap_name.endswith("_ratio"):
            raise ValueError(f"gap={self.gap_name!r} is a ratio (1 at parity) but bound caps a gap (0 at "
                             "parity); use a difference, such as demographic_parity_difference.")
        self.bound, self.ci, self.gap_params = bound, ci, gap_params
        self.sensitive_cols = _column_names(sensitive_cols)

    def __call__(self, X_val, y_val, estimator, labels, X_train, y_train, weight_val=None, *args):
        """The loss and the metrics to log, in FLAML's custom-metric signature."""
        check_same_index(X_val=X_val, y_val=y_val)
        groups = resolve_sensitive_features(self, X_val, None)
        y_true, y_pred = np.asarray(y_val), estimator.predict(X_val)
        weights = {} if weight_val is None else {"sample_weight": np.asarray(weight_val)}
        accuracy = float(accuracy_score(y_true, y_pred, **weights))
        ci = {} if self.ci is None else {"ci": self.ci}
        gap = self.gap(y_true, y_pred, sensitive_features=groups, **weights, **ci, **self.gap_params)
        logged = {"accuracy": accuracy}
        if self.ci is None:
            judged = logged[self.gap_name] = float(gap)
        elif isinstance(gap, Estimate):
            logged[self.gap_name] = float(gap.value)
            judged = logged[f"{self.gap_name}_high"] = float(gap.high)
        else:
            raise TypeError(f"gap {self.gap_name!r} returned a {type(gap).__name__} with ci={self.ci}, not "
                            "an Estimate (value, low, high); use a fairkit metric, or ci=None.")
        if np.isnan(judged):
            return np.inf, logged
        if judged <= self.bound:
            return 1.0 - accuracy, logged
        return _INFEASIBLE_LOSS + judged - self.bound, logged
