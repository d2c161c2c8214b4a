"""Adversarial in-processing for equalized odds: FairICP (Lai & Guan, ICML 2025).

Importing this package does not import torch; the estimators load it when they fit.
"""

from fairkit.adversarial._fair_icp import FairICPClassifier, FairICPRegressor

__all__ = ["FairICPClassifier", "FairICPRegressor"]
