"""What kind of entry a search space holds: the parsing that every AutoML bridge shares.

A search space (``fairkit_search_spaces`` hook) maps parameter names to lists of values
or frozen ``scipy.stats`` distributions, the format of scikit-learn's
``RandomizedSearchCV``. :func:`parse_entry` reads one entry as a :class:`Choice`, an
:class:`IntRange` or a :class:`FloatRange`; each bridge maps those three kinds onto its
own tool.
"""

from dataclasses import dataclass

import numpy as np
from scipy.stats import rv_discrete

__all__ = ["Choice", "FloatRange", "IntRange", "parse_entry"]


@dataclass(frozen=True)
class Choice:
    """One of ``values``. With ``by_index``, the tool picks an index into ``values``: some are
    not plain (estimators, arrays, ...), which AutoML tools cannot store or log."""

    values: list
    by_index: bool


@dataclass(frozen=True)
class IntRange:
    """An integer from ``low`` to ``high``, both included."""

    low: int
    high: int


@dataclass(frozen=True)
class FloatRange:
    """A float from ``low`` to ``high``, uniform in log scale when ``log``."""

    low: float
    high: float
    log: bool


def _is_plain(value):
    return value is None or isinstance(value, str | bool | int | float)


def parse_entry(name, entry, tool):
    """Read one search-space entry.

    Parameters
    ----------
    name : str
        The parameter, named in error messages.
    entry : list, tuple or frozen scipy.stats distribution
        Lists become a :class:`Choice`; ``randint`` an :class:`IntRange` (scipy's upper
        bound is excluded, the range's included); ``loguniform`` a log-scale
        :class:`FloatRange`; ``uniform``, or any other bounded continuous distribution,
        a :class:`FloatRange` over its support.
    tool : str
        The tool the space is for (``"Optuna"``, ``"FLAML"``), named in error messages.

    Returns
    -------
    kind : Choice, IntRange or FloatRange

    Raises
    ------
    ValueError
        If a list is empty.
    TypeError
        If the entry is neither a list nor a scipy.stats distribution, is a discrete
        distribution other than ``randint``, or is unbounded.

    Examples
    --------
    >>> from scipy.stats import randint
    >>> from fairkit.integrations._spaces import parse_entry
    >>> parse_entry("k", randint(1, 4), "Optuna")
    IntRange(low=1, high=3)
    """
    if isinstance(entry, list | tuple):
        values = list(entry)
        if not values:
            raise ValueError(f"parameter {name!r}: the list of values is empty")
        return Choice(values, by_index=not all(_is_plain(value) for value in values))
    dist = getattr(entry, "dist", None)
    if dist is None or not hasattr(entry, "rvs"):
        raise TypeError(f"parameter {name!r}: expected a list or a scipy.stats distribution, "
                        f"got {type(entry).__name__}")
    low, high = entry.support()
    if isinstance(dist, rv_discrete):
        if dist.name == "randint":  # support() is inclusive: randint(a, b) gives (a, b - 1)
            return IntRange(int(low), int(high))
        raise TypeError(f"parameter {name!r}: discrete distribution {dist.name!r} has no {tool} "
                        "counterpart; use randint or a list")
    if dist.name in {"loguniform", "reciprocal"}:
        return FloatRange(float(low), float(high), log=True)
    if np.isfinite(low) and np.isfinite(high):  # uniform, or another bounded distribution
        return FloatRange(float(low), float(high), log=False)
    raise TypeError(f"parameter {name!r}: distribution {dist.name!r} is unbounded; {tool} needs bounds "
                    "(use uniform, loguniform, randint or a list)")
