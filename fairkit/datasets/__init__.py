"""Synthetic generators and loaders of local copies of public data sets.

Loaders read from ``data_home=`` or the ``FAIRKIT_DATA`` environment variable,
verify checksums and never download anything. Plugins that ship loaders of
their own find and check their files with :func:`fetch_file`.
"""

from fairkit.datasets._base import DataFileError, fetch_file, get_data_home
from fairkit.datasets._classification import make_fair_classification
from fairkit.datasets._graphs import load_friendship_network, load_lastfm_asia
from fairkit.datasets._noise import inject_malicious_noise
from fairkit.datasets._preferences import make_preference_profiles
from fairkit.datasets._rankings import load_csrankings, load_nba_coach_votes, load_sushi
from fairkit.datasets._sbm import make_fair_sbm
from fairkit.datasets._scheduling import make_scheduling_instance
from fairkit.datasets._tabular import load_adult, load_communities, load_compas

__all__ = [
    "DataFileError",
    "fetch_file",
    "get_data_home",
    "inject_malicious_noise",
    "load_adult",
    "load_communities",
    "load_compas",
    "load_csrankings",
    "load_friendship_network",
    "load_lastfm_asia",
    "load_nba_coach_votes",
    "load_sushi",
    "make_fair_classification",
    "make_fair_sbm",
    "make_preference_profiles",
    "make_scheduling_instance",
]
