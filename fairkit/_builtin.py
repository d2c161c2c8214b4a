"""fairkit's own plugin: registers the built-in estimators, metrics, data sets, search spaces and demos.

It is loaded through fairkit's entry point in the ``fairkit`` group, exactly as a
third-party plugin is. Each hook imports what it registers only when called.
"""

from fairkit.hookspecs import hookimpl


@hookimpl
def fairkit_estimators():
    from fairkit.ranking import SelectiveRanker

    return [SelectiveRanker]


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
    from scipy.stats import uniform

    return {"SelectiveRanker": {"tau": uniform(0, 0.5), "missing": ["ignore", "dissent"]}}


@hookimpl
def fairkit_demos():
    from fairkit.ranking._demo import demo as selective_ranking_demo

    return {"selective_ranking": selective_ranking_demo}
