"""Group fairness, clustering, ranking and independence metrics, and fairness scorers."""

from fairkit.metrics._clustering import balance, normalized_cut, ratio_cut
from fairkit.metrics._group import (
    demographic_parity_difference,
    demographic_parity_ratio,
    equalized_odds_deviation,
    equalized_odds_difference,
    false_positive_rate_difference,
    group_summary,
    selection_rate,
    true_positive_rate_difference,
)
from fairkit.metrics._independence import equalized_odds_test, kernel_partial_correlation
from fairkit.metrics._ranking import abstention_rate, disagreement_rate, ranking_stability
from fairkit.metrics._scorer import make_fairness_scorer
from fairkit.metrics._uncertainty import Estimate, clopper_pearson, fairness_floor, resampled_interval

__all__ = [
    "Estimate",
    "abstention_rate",
    "balance",
    "clopper_pearson",
    "demographic_parity_difference",
    "demographic_parity_ratio",
    "disagreement_rate",
    "equalized_odds_deviation",
    "equalized_odds_difference",
    "equalized_odds_test",
    "fairness_floor",
    "false_positive_rate_difference",
    "group_summary",
    "kernel_partial_correlation",
    "make_fairness_scorer",
    "normalized_cut",
    "ranking_stability",
    "ratio_cut",
    "resampled_interval",
    "selection_rate",
    "true_positive_rate_difference",
]
