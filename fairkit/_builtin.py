"""fairkit's own plugin: registers the built-in estimators, metrics, data sets, search spaces and demos.

It is loaded through fairkit's entry point in the ``fairkit`` group, exactly as a
third-party plugin is. Each hook imports what it registers only when called.
"""

from fairkit.hookspecs import hookimpl


@hookimpl
def fairkit_estimators():
    from fairkit.adversarial import FairICPClassifier, FairICPRegressor

    return [FairICPClassifier, FairICPRegressor]


@hookimpl
def fairkit_metrics():
    from fairkit import metrics

    return {name: getattr(metrics, name) for name in metrics.__all__ if not name.startswith("make_")}


@hookimpl
def fairkit_datasets():
    from fairkit import datasets

    return {name: getattr(datasets, name) for name in datasets.__all__
            if name.startswith(("load_", "make_"))}


@hookimpl
def fairkit_search_spaces():
    return {}


@hookimpl
def fairkit_demos():
    return {}
