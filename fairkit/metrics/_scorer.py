"""Scikit-learn scorers from fairness metrics, for GridSearchCV, cross_validate and friends."""

import functools
import inspect
import numbers

import sklearn
from sklearn.metrics import make_scorer

from fairkit.metrics._group import group_summary, selection_rate

__all__ = ["make_fairness_scorer"]

# fairkit's metrics with a scorer's signature that give one value per group, not one number
_PER_GROUP = (selection_rate, group_summary)


def make_fairness_scorer(metric, *, greater_is_better=None, **kwargs):
    """Make a scikit-learn scorer from a fairness metric that requests ``sensitive_features``.

    The scorer calls ``estimator.predict(X)`` and passes the predictions with the
    (per-fold) ``sensitive_features`` to ``metric``. It already requests them
    (``set_score_request(sensitive_features=True)``), so with
    ``sklearn.set_config(enable_metadata_routing=True)`` the sensitive features given
    to ``GridSearchCV.fit`` or ``cross_validate(params=...)`` reach it, split like
    ``X``. Scikit-learn can only pass metadata through scorers when routing is
    enabled; calling the scorer with ``sensitive_features`` otherwise raises.

    Scorers never pass metadata to ``predict``. An estimator that needs the
    sensitive features to predict must read them from ``X`` in that setting:
    construct it with ``sensitive_cols=`` instead of routing them to ``fit``.

    Parameters
    ----------
    metric : str or callable
        A registered metric name (see :func:`fairkit.registry.all_metrics`), such as
        ``"demographic_parity_difference"``, or a function with signature
        ``metric(y_true, y_pred, *, sensitive_features, ...)`` returning one real number.
        Metrics of another form cannot be scores and are refused: other first parameters
        (``kernel_partial_correlation``, ``equalized_odds_test``, metrics of probabilities
        ``y_proba``), no ``sensitive_features``, or one value per group
        (``selection_rate``, ``group_summary``).
    greater_is_better : bool, default=None
        ``None`` infers it from the metric's name: ``True`` for a ratio
        (``..._ratio``, 1 is parity), ``False`` for differences and deviations
        (0 is parity), whose score scikit-learn then negates.
    **kwargs
        Further keyword arguments of ``metric`` (e.g. ``agg="mean"``,
        ``pos_label=...``; not ``ci=``, which makes the metric return an interval).

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y, sensitive_features=...)``.

    Raises
    ------
    ValueError
        If ``metric`` is not a registered name, or not of the form above; the message
        lists the registered metrics a scorer can use (and says when
        ``FAIRKIT_DISABLE_PLUGINS`` disables the plugin that would register the name).

    The scorer raises a :class:`TypeError` naming the metric if it returns anything but
    one real number.

    Examples
    --------
    >>> import sklearn
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import GridSearchCV
    >>> from fairkit.datasets import make_fair_classification
    >>> from fairkit.metrics import make_fairness_scorer
    >>> X, y, group = make_fair_classification(200, random_state=0)
    >>> scoring = {"accuracy": "accuracy",
    ...            "dp": make_fairness_scorer("demographic_parity_difference")}
    >>> with sklearn.config_context(enable_metadata_routing=True):
    ...     search = GridSearchCV(LogisticRegression(), {"C": [0.01, 1.0]}, scoring=scoring,
    ...                           refit="accuracy").fit(X, y, sensitive_features=group)
    >>> sorted(k for k in search.cv_results_ if k.startswith("mean_test"))
    ['mean_test_accuracy', 'mean_test_dp']
    """
    if kwargs.get("ci") is not None:
        raise ValueError("make_fairness_scorer: ci= makes the metric return an Estimate (value, low, "
                         "high), but a scorer must give one number; drop ci=.")
    function = _resolve(metric)
    if greater_is_better is None:
        greater_is_better = getattr(function, "__name__", "").endswith("_ratio")
    scorer = make_scorer(_OneNumber(function), greater_is_better=greater_is_better, **kwargs)
    # The request is stored on the scorer, which reads it when routing is enabled.
    with sklearn.config_context(enable_metadata_routing=True):
        scorer.set_score_request(sensitive_features=True)
    return scorer


class _OneNumber:
    """The metric, checked to return one real number per call: what a scorer must give.

    scikit-learn's own check ("scoring must return a number") comes 9 frames deep, and a
    tuple negated by the scorer reads "got ()".
    """

    def __init__(self, metric):
        self.metric = metric
        functools.update_wrapper(self, metric)

    def __call__(self, y_true, y_pred, **kwargs):
        value = self.metric(y_true, y_pred, **kwargs)
        if not isinstance(value, numbers.Real):
            name = getattr(self.metric, "__name__", repr(self.metric))
            raise TypeError(f"The fairness metric {name!r} returned a {type(value).__name__}, not a "
                            "real number; a scorer needs one number per call. Use a metric that "
                            f"returns a float, such as {_usable_names()}.")
        return value


def _resolve(metric):
    """The metric function, refused (with the usable names) unless it can be a scorer."""
    if isinstance(metric, str):
        from fairkit.registry import all_metrics

        registered = all_metrics()
        if metric not in registered:
            raise ValueError(f"Unknown fairness metric {metric!r}; the registered metrics a scorer "
                             f"can use: {_usable_names()}.{_disabled_plugins()}")
        metric = registered[metric]
    if not callable(metric):
        raise ValueError(f"metric must be a metric name or a function, got {metric!r}.")
    problem = _why_not_a_score(metric)
    if problem:
        raise ValueError(f"The metric {getattr(metric, '__name__', metric)!r} cannot be a scorer: "
                         f"{problem}. The registered metrics a scorer can use: {_usable_names()}.")
    return metric


def _usable_names():
    from fairkit.registry import all_metrics

    names = [name for name, function in all_metrics().items() if _why_not_a_score(function) is None]
    return ", ".join(names) or "none"


def _why_not_a_score(function):
    """Why ``function`` cannot be a scorer's metric, or None if it can."""
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return "its signature cannot be read"
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    first = [p.name for p in parameters[:2] if p.kind in positional]
    if first != ["y_true", "y_pred"]:
        return (f"its first parameters are ({', '.join(p.name for p in parameters[:2])}), but a scorer "
                "calls metric(y_true, y_pred, sensitive_features=...)")
    if not any(p.name == "sensitive_features" or p.kind is inspect.Parameter.VAR_KEYWORD
               for p in parameters):
        return "it takes no sensitive_features argument, so it is not a group fairness metric"
    if function in _PER_GROUP:
        return "it gives one value per group (a Series or DataFrame), not one number"
    return None


def _disabled_plugins():
    """A note on the plugins that FAIRKIT_DISABLE_PLUGINS disables, whose metrics are then unknown."""
    from fairkit.registry import BUILTIN_PLUGIN, list_plugins

    disabled = [plugin["name"] for plugin in list_plugins() if plugin["status"] == "disabled"]
    if not disabled:
        return ""
    builtin = " (fairkit's built-in plugin, which registers fairkit's own metrics)" if (
        BUILTIN_PLUGIN in disabled) else ""
    return (f" FAIRKIT_DISABLE_PLUGINS disables the plugin(s) {disabled}{builtin}, so their metrics are "
            "not registered: unset it (and call fairkit.registry.reload_plugins()), or pass the "
            "function itself, e.g. make_fairness_scorer(fairkit.metrics.demographic_parity_difference).")
