"""fairkit-viashap: predictions that carry their own Shapley values, and attribution fairness.

A. Alkhatib, R. Bresson, H. Boström, M. Vazirgiannis, "Prediction via Shapley Value
Regression", ICML 2025 (arXiv:2505.04775): a network learns the Shapley values φ(x) of its
own prediction and predicts by summing them, so every prediction comes with its explanation.

Registered with fairkit through the ``viashap`` entry point of the ``fairkit`` group.
"""

from fairkit_viashap._attribution import attribution_disparity
from fairkit_viashap._exact import exact_shapley_values
from fairkit_viashap._viashap import ViaSHAPClassifier, ViaSHAPRegressor

__version__ = "0.1.0.dev0"

__all__ = ["ViaSHAPClassifier", "ViaSHAPRegressor", "attribution_disparity", "exact_shapley_values",
           "__version__"]
