"""
How fair does a model stay when its inputs are nudged?
======================================================

A model can look fair on its test set and lose its fairness under a perturbation of its
inputs that is too small to notice (Chai and Wang, "On the Alignment between Fairness and
Accuracy: from the Perspective of Adversarial Robustness", ICML 2025; plugin
``fairkit-robust``). Here the two groups are identically distributed, so a logistic
regression trained without the group is fair up to noise. ``robustness_curve`` perturbs
the test samples within an ε-ball (each feature moves by at most ε standard deviations)
three ways: an attack on accuracy (PGD on the cross-entropy), an attack on fairness (PGD
on the soft equalized-odds gap) and uniform random noise of the same size, the baseline
that tells an attack's effect from any perturbation's. The accuracy attack costs
accuracy; the fairness attack opens a gap between the groups, with accuracy nearly
unchanged, where random noise of the same size changes neither.
"""

import matplotlib.pyplot as plt
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from fairkit.datasets import make_fair_classification
from fairkit_robust import plot_robustness_curve, robustness_curve

X, y, group = make_fair_classification(3000, 6, label_bias=0.0, feature_bias=0.0, random_state=0)
X_train, X_test, y_train, y_test, g_train, g_test = train_test_split(
    X, y, group, test_size=0.5, stratify=group, random_state=0)
model = LogisticRegression().fit(X_train, y_train)

# %%
# The curve: one row per attack and ε, with accuracy and every group gap of
# :mod:`fairkit.metrics`, each with its 95% interval, and the soft gap the fairness attack
# maximises. ε = 0 is the clean test set.
curve = robustness_curve(model, X_test, y_test, g_test, eps_grid=(0.0, 0.01, 0.02, 0.05, 0.1, 0.2),
                         random_state=0)
print(curve[["accuracy", "equalized_odds_difference", "equalized_odds_difference_low",
             "equalized_odds_difference_high", "soft_gap"]].round(3).to_string())

# %%
# Accuracy and the equalized-odds gap against ε, one line per attack; the bands are the
# 95% intervals of the gap (sampling noise of the test rows: a gap inside the band of the
# clean one may be noise).
plot_robustness_curve(curve, metric="equalized_odds_difference")
plt.show()
