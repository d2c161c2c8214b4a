"""fairkit-subgroups: subgroup-aware bias mitigation and the subgroup KL diagnostic.

A. Alloula, C. Jones, B. Glocker, B. W. Papież, "Subgroups Matter for Robust Bias
Mitigation", ICML 2025 (arXiv:2505.21363): which subgroups a mitigation method is told
about decides whether it helps, and the KL divergence between the balanced distribution
over fine cells and the one mitigation on a grouping produces predicts which grouping works.

Registered with fairkit through the ``subgroups`` entry point of the ``fairkit`` group.
"""

from fairkit_subgroups._balanced import GroupBalancedClassifier
from fairkit_subgroups._compare import GroupingComparison, compare_groupings
from fairkit_subgroups._datasets import make_digits_artefact, stack_draws
from fairkit_subgroups._gdro import GroupDROClassifier
from fairkit_subgroups._groupings import Noisy, RandomGroups, Split, make_groupings
from fairkit_subgroups._kl import subgroup_kl_diagnostic

__version__ = "0.1.0.dev0"

__all__ = ["GroupBalancedClassifier", "GroupDROClassifier", "GroupingComparison", "Noisy", "RandomGroups",
           "Split", "compare_groupings", "make_digits_artefact", "make_groupings", "stack_draws",
           "subgroup_kl_diagnostic", "__version__"]
