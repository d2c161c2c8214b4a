"""Group fairness, clustering, ranking and independence metrics, and fairness scorers."""

from fairkit.metrics._independence import (
    EqualizedOddsTestResult,
    equalized_odds_test,
    kernel_partial_correlation,
)

__all__ = ["EqualizedOddsTestResult", "equalized_odds_test", "kernel_partial_correlation"]
