"""fairkit-robust: attacks against fairness, and adversarial training robust in fairness and accuracy.

"On the Alignment between Fairness and Accuracy: from the Perspective of Adversarial
Robustness" (ICML 2025; an earlier version: J. Chai and X. Wang, arXiv:2304.00061): a model
that looks fair can lose its fairness under a small perturbation of its inputs; the attacks
against the usual group-fairness notions are one attack; and adversarial training on the
task loss plus a fairness term gives a model robust in both.

Registered with fairkit through the ``robust`` entry point of the ``fairkit`` group.
"""

from fairkit_robust._attacks import AccuracyAttack, FairnessAttack
from fairkit_robust._curve import plot_robustness_curve, robustness_curve
from fairkit_robust._training import FairAdversarialClassifier

__version__ = "0.1.0.dev0"

__all__ = ["AccuracyAttack", "FairAdversarialClassifier", "FairnessAttack", "plot_robustness_curve",
           "robustness_curve", "__version__"]
