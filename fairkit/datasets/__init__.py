"""Synthetic generators, and loaders of public data sets that download them when they are missing.

The ``fetch_*`` loaders read a data set's files from the data home (``data_home=``, else the
``FAIRKIT_DATA`` environment variable, else ``~/fairkit_data``), download the missing ones
from their public source (``download_if_missing=True``, the default), and check every file's
SHA-256. Nothing is downloaded at import. ``load_*`` are the same functions under their
former names. Plugins that ship loaders of their own find, download and check their files
with :func:`fetch_file`.
"""

from fairkit.datasets._base import DataFileError, fetch_file, get_data_home
from fairkit.datasets._classification import make_fair_classification
from fairkit.datasets._graphs import fetch_friendship_network, fetch_lastfm_asia
from fairkit.datasets._noise import inject_malicious_noise
from fairkit.datasets._preferences import make_preference_profiles
from fairkit.datasets._rankings import fetch_csrankings, fetch_nba_coach_votes, fetch_sushi
from fairkit.datasets._sbm import make_fair_sbm
from fairkit.datasets._scheduling import make_scheduling_instance
from fairkit.datasets._tabular import fetch_adult, fetch_communities, fetch_compas

# The former names, kept so that code written for them keeps working.
load_adult, load_communities, load_compas = fetch_adult, fetch_communities, fetch_compas
load_csrankings, load_nba_coach_votes, load_sushi = fetch_csrankings, fetch_nba_coach_votes, fetch_sushi
load_friendship_network, load_lastfm_asia = fetch_friendship_network, fetch_lastfm_asia

__all__ = [
    "DataFileError",
    "fetch_adult",
    "fetch_communities",
    "fetch_compas",
    "fetch_csrankings",
    "fetch_file",
    "fetch_friendship_network",
    "fetch_lastfm_asia",
    "fetch_nba_coach_votes",
    "fetch_sushi",
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
