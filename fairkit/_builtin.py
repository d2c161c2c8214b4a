"""fairkit's own plugin: registers the built-in estimators, metrics, data sets, search spaces and demos.

It is loaded through fairkit's entry point in the ``fairkit`` group, exactly as a
third-party plugin is. Each hook imports what it registers only when called.
"""

from fairkit.hookspecs import hookimpl


@hookimpl
def fairkit_estimators():
    from fairkit.postprocessing import RandomizedFairBOC
    from fairkit.ranking import SelectiveRanker

    return [RandomizedFairBOC, SelectiveRanker]


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

    return {
        "RandomizedFairBOC": {
            "constraint": ["demographic_parity", "equal_opportunity", "predictive_equality",
                           "equalized_odds"],
            "tolerance": [0.0, 0.005, 0.01, 0.02, 0.05, 0.1],
        },
        "SelectiveRanker": {"tau": uniform(0, 0.5), "missing": ["ignore", "dissent"]},
    }


@hookimpl
def fairkit_demos():
    from fairkit.postprocessing._demo import demo as fair_boc_demo
    from fairkit.ranking._demo import demo as selective_ranking_demo

    return {"fair_boc": fair_boc_demo, "selective_ranking": selective_ranking_demo}
