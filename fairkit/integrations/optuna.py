"""Optuna: sample an estimator's registered search space in an Optuna trial.

A search space (``fairkit_search_spaces`` hook, :func:`fairkit.registry.search_space`)
maps parameter names to lists of values or ``scipy.stats`` distributions, the format of
:class:`~sklearn.model_selection.RandomizedSearchCV`. :func:`suggest` turns each entry
into the matching ``trial.suggest_*`` call, so one space serves both tools (and FLAML,
through :mod:`fairkit.integrations.flaml`).
"""

from fairkit.integrations._spaces import Choice, IntRange, parse_entry

__all__ = ["suggest", "suggest_params"]


def _optuna():
    try:
        import optuna
    except ImportError as exc:
        raise ImportError('fairkit.integrations.optuna needs optuna: pip install optuna') from exc
    return optuna


def _suggest_one(trial, name, entry):
    """One ``trial.suggest_*`` call for a list or a frozen ``scipy.stats`` distribution."""
    kind = parse_entry(name, entry, "Optuna")
    if isinstance(kind, Choice):
        if kind.by_index:  # Optuna stores only plain values, so it picks an index
            return kind.values[trial.suggest_categorical(name, list(range(len(kind.values))))]
        return trial.suggest_categorical(name, kind.values)
    if isinstance(kind, IntRange):
        return trial.suggest_int(name, kind.low, kind.high)
    return trial.suggest_float(name, kind.low, kind.high, log=kind.log)


def suggest_params(trial, space):
    """Sample a search space in ``trial``; return the parameters.

    Parameters
    ----------
    trial : optuna.trial.Trial
        The trial that samples.
    space : dict
        Parameter names mapped to lists of values or ``scipy.stats`` distributions:
        lists become ``suggest_categorical`` (values that Optuna cannot store, such as
        estimators, are chosen by index), ``randint`` becomes ``suggest_int``,
        ``loguniform`` becomes ``suggest_float(..., log=True)``, and ``uniform`` (or any
        other bounded continuous distribution) becomes ``suggest_float`` over its support.

    Returns
    -------
    params : dict
        Values to pass to the estimator's constructor or ``set_params``.

    Examples
    --------
    >>> import optuna
    >>> from scipy.stats import loguniform
    >>> from fairkit.integrations.optuna import suggest_params
    >>> trial = optuna.trial.FixedTrial({"C": 0.5, "penalty": "l2"})
    >>> suggest_params(trial, {"C": loguniform(1e-3, 1e3), "penalty": ["l1", "l2"]})
    {'C': 0.5, 'penalty': 'l2'}
    """
    _optuna()
    return {name: _suggest_one(trial, name, values) for name, values in space.items()}


def suggest(trial, name):
    """Sample the search space registered for the estimator ``name`` in ``trial``.

    Parameters
    ----------
    trial : optuna.trial.Trial
        The trial that samples.
    name : str
        A registered estimator with a search space (see :func:`fairkit.registry.search_space`).

    Returns
    -------
    params : dict
        Parameters for ``get_estimator(name)(**params)``.
    """
    from fairkit.registry import search_space

    return suggest_params(trial, search_space(name))
