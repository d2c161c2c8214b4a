"""Synthetic generators and loaders of local copies of public data sets.

Loaders read from ``data_home=`` or the ``FAIRKIT_DATA`` environment variable,
verify checksums and never download anything. Plugins that ship loaders of
their own find and check their files with :func:`fetch_file`.
"""

from fairkit.datasets._base import DataFileError, fetch_file, get_data_home
from fairkit.datasets._classification import make_fair_classification
from fairkit.datasets._tabular import load_adult, load_communities, load_compas

__all__ = [
    "DataFileError",
    "fetch_file",
    "get_data_home",
    "load_adult",
    "load_communities",
    "load_compas",
    "make_fair_classification",
]
