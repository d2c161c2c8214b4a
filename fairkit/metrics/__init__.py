"""Group fairness, clustering, ranking and independence metrics, and fairness scorers."""

from fairkit.metrics._clustering import balance, normalized_cut, ratio_cut

__all__ = ["balance", "normalized_cut", "ratio_cut"]
