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
    fair_icp = {
        "mu": [0.0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9],
        "batch_size": [64, 128, 256, 512],
        "lr": [1e-4, 1e-3, 1e-2],
        "lr_discriminator": [1e-5, 1e-4, 1e-3],
        "max_epochs": [20, 50, 100, 200],
    }
    return {"FairICPClassifier": fair_icp, "FairICPRegressor": fair_icp}


@hookimpl
def fairkit_demos():
    from fairkit.adversarial._demo import demo as fair_icp_demo

    return {"FairICPClassifier": fair_icp_demo}
