"""Optuna: sample an estimator's registered search space in an Optuna trial.

A search space (``fairkit_search_spaces`` hook, :func:`fairkit.registry.search_space`)
maps parameter names to lists of values or ``scipy.stats`` distributions, the format of
:class:`~sklearn.model_selection.RandomizedSearchCV`. :func:`suggest` turns each entry
into the matching ``trial.suggest_*`` call, so one space serves both tools.
"""

import numpy as np

__all__ = ["suggest", "suggest_params"]


def _optuna():
    try:
        import optuna
    except ImportError as exc:
        raise ImportError('fairkit.integrations.optuna needs optuna: pip install optuna') from exc
    return optuna


def _is_plain(value):
    return value is None or isinstance(value, str | bool | int | float)


def _suggest_one(trial, name, space):
    """One ``trial.suggest_*`` call for a list or a frozen ``scipy.stats`` distribution."""
    if isinstance(space, list | tuple):
        choices = list(space)
        if not choices:
            raise ValueError(f"parameter {name!r}: the list of values is empty")
        if all(_is_plain(choice) for choice in choices):
            return trial.suggest_categorical(name, choices)
        # estimators, arrays, ...: Optuna stores only plain values, so it picks an index
        return choices[trial.suggest_categorical(name, list(range(len(choices))))]
    dist = getattr(space, "dist", None)
    if dist is None or not hasattr(space, "rvs"):
        raise TypeError(f"parameter {name!r}: expected a list or a scipy.stats distribution, "
                        f"got {type(space).__name__}")
    from scipy.stats import rv_discrete

    low, high = space.support()
    if isinstance(dist, rv_discrete):
        if dist.name == "randint":  # its support is [low, high - 1]
            return trial.suggest_int(name, int(low), int(high))
        raise TypeError(f"parameter {name!r}: discrete distribution {dist.name!r} has no Optuna "
                        "counterpart; use randint or a list")
    if dist.name in {"loguniform", "reciprocal"}:
        return trial.suggest_float(name, float(low), float(high), log=True)
    if np.isfinite(low) and np.isfinite(high):  # uniform, or another bounded distribution
        return trial.suggest_float(name, float(low), float(high))
    raise TypeError(f"parameter {name!r}: distribution {dist.name!r} is unbounded; Optuna needs bounds "
                    "(use uniform, loguniform, randint or a list)")


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
