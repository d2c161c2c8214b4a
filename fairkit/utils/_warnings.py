"""Warnings that point at the user's line, however deep in fairkit they are raised."""

import functools
import os
import sys
import warnings
from importlib.metadata import entry_points

import sklearn

# A frame in these folders is not the user's: fairkit itself, and scikit-learn's wrappers around
# a fit (``_fit_context``) or a scorer; nor is a frame of an installed plugin's package.
_INTERNAL = tuple(os.path.dirname(os.path.abspath(path)) + os.sep
                  for path in (os.path.dirname(os.path.abspath(__file__)), sklearn.__file__))


@functools.cache
def _plugin_packages():
    """The top-level packages of the installed fairkit plugins (entry points of the ``fairkit`` group)."""
    return frozenset(entry_point.value.split(":")[0].split(".")[0]
                     for entry_point in entry_points(group="fairkit"))


def _internal(frame):
    return (frame.f_code.co_filename.startswith(_INTERNAL)
            or frame.f_globals.get("__name__", "").split(".")[0] in _plugin_packages())


def warn_user(message, category):
    """``warnings.warn`` attributed to the first caller outside fairkit, its plugins and scikit-learn.

    A fixed ``stacklevel`` is right for one call depth only: the same check runs under a
    metric, :func:`~fairkit.metrics.fairness_floor` or an estimator's ``fit`` (itself
    wrapped by scikit-learn). Pointing at the user's line also lets Python's default
    filter show the warning once per line of the user's code, not once per session.
    """
    frame, level = sys._getframe(1), 2  # the caller of warn_user is stacklevel 2
    while frame.f_back is not None and _internal(frame):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)
