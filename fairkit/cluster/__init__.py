"""Fair clustering: spectral clustering with proportional group representation in every cluster."""

from fairkit.cluster._fair_spectral import FairSpectralClustering
from fairkit.cluster._path import fairness_path

__all__ = ["FairSpectralClustering", "fairness_path"]
