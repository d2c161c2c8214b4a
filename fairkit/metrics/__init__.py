"""Group fairness, clustering, ranking and independence metrics, and fairness scorers."""

from fairkit.metrics._ranking import abstention_rate, disagreement_rate, ranking_stability

__all__ = [
    "abstention_rate",
    "disagreement_rate",
    "ranking_stability",
]
