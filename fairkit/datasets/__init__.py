"""Synthetic generators and loaders of local copies of public data sets.

Loaders read from ``data_home=`` or the ``FAIRKIT_DATA`` environment variable,
verify checksums and never download anything.
"""

from fairkit.datasets._base import DataFileError, get_data_home
from fairkit.datasets._classification import make_fair_classification
from fairkit.datasets._tabular import load_adult, load_communities, load_compas

__all__ = [
    "DataFileError",
    "get_data_home",
    "load_adult",
    "load_communities",
    "load_compas",
    "make_fair_classification",
]
