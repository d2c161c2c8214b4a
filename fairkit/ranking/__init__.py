"""Preference aggregation: selective rankings with dissent guarantees, and classic baselines."""

from fairkit.ranking._baselines import borda, copeland, kemeny
from fairkit.ranking._path import SelectivePath
from fairkit.ranking._selective import SelectiveRanker
from fairkit.utils._preferences import PairwiseCounts, pairwise_counts

__all__ = [
    "PairwiseCounts",
    "SelectivePath",
    "SelectiveRanker",
    "borda",
    "copeland",
    "kemeny",
    "pairwise_counts",
]
