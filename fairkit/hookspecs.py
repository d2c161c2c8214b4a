"""The plugin API: the hooks a fairkit plugin may implement.

A plugin is a module (or object) named by an entry point in the ``fairkit``
group whose functions are decorated with :data:`fairkit.hookimpl`::

    # pyproject.toml of a third-party package
    [project.entry-points.fairkit]
    myplugin = "myplugin.plugin"

    # myplugin/plugin.py
    from fairkit import hookimpl

    @hookimpl
    def fairkit_estimators():
        from myplugin.estimators import MyFairClassifier  # import lazily
        return [MyFairClassifier]

Every hook is optional and takes no arguments. Specs only ever gain arguments,
so a plugin written against this version keeps working.
"""

import pluggy

PROJECT_NAME = "fairkit"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def fairkit_estimators():
    """Return a list of estimator classes (subclasses of scikit-learn's ``BaseEstimator``)."""


@hookspec
def fairkit_metrics():
    """Return a dict mapping metric names to metric functions."""


@hookspec
def fairkit_datasets():
    """Return a dict mapping data set names to loader or generator functions."""


@hookspec
def fairkit_search_spaces():
    """Return a dict mapping estimator names to parameter distributions for a randomized search."""


@hookspec
def fairkit_demos():
    """Return a dict mapping demo names to callables ``demo(*, quick=False) -> dict``.

    The returned dict holds at least ``"metric"`` (what is compared), ``"before"``
    (its value without the fairness method) and ``"after"`` (with it).
    ``fairkit demo`` times each call and prints one row per demo; ``fairkit demo --list``
    shows the first line of each demo's docstring as what it shows.
    """


@hookspec
def fairkit_audit_checks():
    """Return a dict mapping a check's name to a callable
    ``check(model, X, y, sensitive_features, *, option, random_state) -> DataFrame``.

    ``fairkit audit --check NAME=OPTION`` (:func:`fairkit.audit.audit` with
    ``checks={name: option}``) calls the check on every model it audits, once the model is
    fitted and scored: ``model`` is the fitted estimator, ``X`` the audit's preprocessed test
    features (the float array the model predicts on), ``y`` the test labels (0/1),
    ``sensitive_features`` the test rows' sensitive columns (a DataFrame; pass them to
    ``model.predict`` when it takes them), ``option`` the value the user gave and
    ``random_state`` the audit's seed. Each call gets its own copy of ``X``, ``y`` and
    ``sensitive_features``; the model must be left as it was. The check returns a table of
    numbers, rows and columns of its choosing; the audit puts the models' tables one below the
    other under an index level ``model`` (:attr:`fairkit.audit.AuditResult.checks`), prints it
    and adds it to the HTML report. A check that raises is reported as a failure of that model
    and check, and the audit goes on. ``fairkit audit --help`` shows the first line of the
    check's docstring as what it measures.

    Arguments that later versions pass are keywords that a check receives only when its
    signature names them (or has ``**kwargs``). So far there is one: ``feature_names``, the
    names of ``X``'s columns, ``numeric__COL`` (imputed and standardized) or
    ``categorical__COL_VALUE`` (one-hot: 0 or 1), for a check that must leave some features
    alone (an attack should not move a one-hot column).
    """
