"""Post-processing: fair decision rules on top of a fitted classifier's scores."""

from fairkit.postprocessing._fair_boc import RandomizedFairBOC

__all__ = ["RandomizedFairBOC"]
