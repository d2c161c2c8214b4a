"""The fairkit plugin of fairkit-viashap (entry point ``viashap`` in the ``fairkit`` group)."""

from fairkit import hookimpl


@hookimpl
def fairkit_estimators():
    from fairkit_viashap import ViaSHAPClassifier, ViaSHAPRegressor

    return [ViaSHAPClassifier, ViaSHAPRegressor]


@hookimpl
def fairkit_metrics():
    from fairkit_viashap import attribution_disparity

    return {"attribution_disparity": attribution_disparity}


@hookimpl
def fairkit_search_spaces():
    from scipy.stats import loguniform

    # backbone and link change what the explanations are, a choice rather than a setting to tune
    shared = {"hidden_layer_sizes": [(64,), (64, 64), (64, 128, 64)], "n_coalitions": [16, 32, 64],
              "beta": loguniform(1.0, 100.0), "lr": loguniform(3e-4, 3e-3)}
    return {"ViaSHAPClassifier": shared, "ViaSHAPRegressor": dict(shared)}
