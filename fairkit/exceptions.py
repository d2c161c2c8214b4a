"""Warnings and errors raised by fairkit."""

__all__ = ["FairkitWarning", "FairkitPluginWarning"]


class FairkitWarning(UserWarning):
    """A fairkit estimator was used in a way that weakens or removes its fairness guarantee.

    The most common case: no sensitive features were given, so every sample is
    treated as one group and the estimator reduces to its unconstrained method.
    """


class FairkitPluginWarning(FairkitWarning):
    """A plugin, or something it registers, was skipped.

    The message names the plugin and the reason. Set ``FAIRKIT_STRICT_PLUGINS=1``
    to turn the underlying error into an exception instead.
    """
