"""fairkit's own plugin: registers the built-in estimators, metrics, data sets, search spaces and demos.

It is loaded through fairkit's entry point in the ``fairkit`` group, exactly as a
third-party plugin is. Each hook imports what it registers only when called.
"""

from fairkit.hookspecs import hookimpl


@hookimpl
def fairkit_estimators():
    from fairkit.adversarial import FairICPClassifier, FairICPRegressor
    from fairkit.cluster import FairSpectralClustering
    from fairkit.postprocessing import RandomizedFairBOC
    from fairkit.ranking import SelectiveRanker
    from fairkit.scheduling import MMSScheduler

    return [FairICPClassifier, FairICPRegressor, FairSpectralClustering, MMSScheduler,
            RandomizedFairBOC, SelectiveRanker]


@hookimpl
def fairkit_metrics():
    from fairkit import metrics

    # a result, a floor, an interval over splits, a factory
    not_metrics = {"Estimate", "fairness_floor", "resampled_interval", "make_fairness_scorer"}
    return {name: getattr(metrics, name) for name in metrics.__all__ if name not in not_metrics}


@hookimpl
def fairkit_datasets():
    from fairkit import datasets

    return {name: getattr(datasets, name) for name in datasets.__all__
            if name.startswith(("fetch_", "make_"))}  # the load_* names are the same functions


@hookimpl
def fairkit_search_spaces():
    from scipy.stats import uniform

    fair_icp = {
        "mu": [0.0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9],
        "batch_size": [64, 128, 256, 512],
        "lr": [1e-4, 1e-3, 1e-2],
        "lr_discriminator": [1e-5, 1e-4, 1e-3],
        "max_epochs": [20, 50, 100, 200],
    }
    return {
        # cells of (group, label) exist for every classifier; a regressor with continuous attributes has none
        "FairICPClassifier": {**fair_icp, "adversary_weights": ["rows", "cells", "sqrt_cells"]},
        "FairICPRegressor": fair_icp,
        "FairSpectralClustering": {
            "n_clusters": [2, 3, 4, 5, 6, 8, 10],
            "affinity": ["rbf", "nearest_neighbors"],
            "gamma": [0.01, 0.1, 1.0, 10.0],
            "n_neighbors": [5, 10, 20, 50],
            "laplacian": ["normalized", "unnormalized"],
        },
        "RandomizedFairBOC": {
            "constraint": ["demographic_parity", "equal_opportunity", "predictive_equality",
                           "equalized_odds"],
            "tolerance": [0.0, 0.005, 0.01, 0.02, 0.05, 0.1],
        },
        "MMSScheduler": {"machine_model": ["auto", "unrelated"]},
        "SelectiveRanker": {"tau": uniform(0, 0.5), "missing": ["ignore", "dissent"]},
    }


@hookimpl
def fairkit_demos():
    from fairkit.adversarial._demo import demo as fair_icp_demo
    from fairkit.cluster._fair_spectral import demo as fair_spectral_demo
    from fairkit.postprocessing._demo import demo as fair_boc_demo
    from fairkit.ranking._demo import demo as selective_ranking_demo
    from fairkit.scheduling._demo import demo as mms_scheduling_demo

    return {"fair_boc": fair_boc_demo, "fair_spectral": fair_spectral_demo,
            "fairicp": fair_icp_demo, "mms_scheduling": mms_scheduling_demo,
            "selective_ranking": selective_ranking_demo}
