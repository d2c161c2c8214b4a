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
