"""Scikit-learn scorers from fairness metrics, for GridSearchCV, cross_validate and friends."""

import inspect

import sklearn
from sklearn.metrics import make_scorer

__all__ = ["make_fairness_scorer"]


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
        ``metric(y_true, y_pred, *, sensitive_features, ...)`` returning a float.
    greater_is_better : bool, default=None
        ``None`` infers it from the metric's name: ``True`` for a ratio
        (``..._ratio``, 1 is parity), ``False`` for differences and deviations
        (0 is parity), whose score scikit-learn then negates.
    **kwargs
        Further keyword arguments of ``metric`` (e.g. ``agg="mean"``,
        ``pos_label=...``).

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y, sensitive_features=...)``.

    Raises
    ------
    ValueError
        If ``metric`` is not a registered name or takes no ``sensitive_features``.

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
    function = _resolve(metric)
    if greater_is_better is None:
        greater_is_better = getattr(function, "__name__", "").endswith("_ratio")
    scorer = make_scorer(function, greater_is_better=greater_is_better, **kwargs)
    # The request is stored on the scorer, which reads it when routing is enabled.
    with sklearn.config_context(enable_metadata_routing=True):
        scorer.set_score_request(sensitive_features=True)
    return scorer


def _resolve(metric):
    if isinstance(metric, str):
        from fairkit.registry import all_metrics

        metrics = all_metrics()
        if metric not in metrics:
            known = [name for name, f in metrics.items() if _takes_sensitive_features(f)]
            raise ValueError(f"Unknown fairness metric {metric!r}; registered metrics that take "
                             f"sensitive_features: {known}.")
        metric = metrics[metric]
    if not callable(metric):
        raise ValueError(f"metric must be a metric name or a function, got {metric!r}.")
    if not _takes_sensitive_features(metric):
        raise ValueError(f"The metric {getattr(metric, '__name__', metric)!r} takes no "
                         "sensitive_features argument, so it is not a group fairness metric.")
    return metric


def _takes_sensitive_features(function):
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False
    return "sensitive_features" in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
