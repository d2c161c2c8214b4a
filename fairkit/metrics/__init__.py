"""Group fairness, clustering, ranking and independence metrics, and fairness scorers."""

__all__ = []
