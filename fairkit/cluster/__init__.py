"""Fair clustering: spectral clustering with proportional group representation in every cluster."""

from fairkit.cluster._fair_spectral import FairSpectralClustering

__all__ = ["FairSpectralClustering"]
