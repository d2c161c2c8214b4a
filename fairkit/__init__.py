"""fairkit: fairness research methods as scikit-learn estimators.

Importing fairkit is cheap: the estimator families, the metrics and the data
sets load on first use, and torch is imported only by the estimators that
train neural networks.
"""

import importlib

from fairkit.exceptions import FairkitPluginWarning, FairkitWarning
from fairkit.hookspecs import hookimpl

__version__ = "0.1.0.dev0"

_SUBMODULES = {
    "adversarial",
    "cluster",
    "datasets",
    "metrics",
    "postprocessing",
    "ranking",
    "registry",
    "scheduling",
    "utils",
}

__all__ = ["FairkitPluginWarning", "FairkitWarning", "hookimpl", "__version__", *sorted(_SUBMODULES)]


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f"fairkit.{name}")
    raise AttributeError(f"module 'fairkit' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _SUBMODULES)
