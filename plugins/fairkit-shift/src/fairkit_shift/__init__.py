"""fairkit-shift: which subgroups lose performance under a distribution shift, and why.

H. Singh, F. Xia, A. Gossmann, A. Chuang, J. C. Hong, J. Feng, "'Who experiences large model decay
and why?' A hierarchical framework for diagnosing heterogeneous performance drift", ICML 2025
(arXiv:2506.00756): is there a subgroup whose loss rises by more than a tolerance because the
covariates shifted, or because the outcome given the covariates shifted; and which variables
explain it? Each answer is a hypothesis test that accounts for the search over subgroups.

Registered with fairkit through the ``shift`` entry point of the ``fairkit`` group.
"""

from fairkit_shift._datasets import make_subgroup_shift
from fairkit_shift._diagnoser import SubgroupShiftDiagnoser
from fairkit_shift._plot import plot_subgroup_losses
from fairkit_shift._rules import SubgroupRule

__version__ = "0.1.0.dev0"

__all__ = ["SubgroupRule", "SubgroupShiftDiagnoser", "make_subgroup_shift", "plot_subgroup_losses",
           "__version__"]
