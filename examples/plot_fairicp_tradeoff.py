"""
Accuracy against equalized odds: FairICP and ExponentiatedGradient
==================================================================

FairICP (Lai & Guan, ICML 2025) trains a network against a discriminator that tells
the sensitive attributes A from copies Ã drawn by inverse conditional permutation;
the weight ``mu`` of that adversarial loss sets the trade-off between accuracy and
equalized odds (Ŷ ⊥ A | Y). This example traces it on synthetic data, next to
fairlearn's ``ExponentiatedGradient(EqualizedOdds())`` around a logistic regression,
over its ``eps``. The data hold a fair signal and one proxy feature that mixes the label
with a three-valued group: a plain model uses the proxy and violates equalized odds.
Fairness is measured by the equalized-odds deviation (DEO, summed over labels and
groups) and by the kernel partial correlation ρ²(Ŷ, A | Y).
"""

import warnings

import matplotlib.pyplot as plt
import numpy as np
from fairlearn.reductions import EqualizedOdds, ExponentiatedGradient
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from fairkit.adversarial import FairICPClassifier
from fairkit.datasets import make_fair_classification
from fairkit.exceptions import FairkitWarning
from fairkit.metrics import equalized_odds_deviation, kernel_partial_correlation

warnings.simplefilter("ignore", FairkitWarning)
X, y, group = make_fair_classification(3000, 4, n_groups=3, label_bias=0.0, feature_bias=0.0,
                                       class_sep=1.0, random_state=0)
rng = np.random.default_rng(0)
X = np.column_stack([X, group + 0.8 * y + 0.5 * rng.normal(size=len(y))])  # the proxy
X_train, X_test, y_train, y_test, g_train, g_test = train_test_split(
    X, y, group, test_size=0.5, random_state=0)


def scores(y_pred, proba):
    return (np.mean(y_pred == y_test),
            equalized_odds_deviation(y_test, y_pred, sensitive_features=g_test),
            kernel_partial_correlation(proba, g_test, y_test, random_state=0))


# %%
# FairICP over the adversarial weight ``mu`` (0 is the plain network).
fair_icp = []
for mu in (0.0, 0.3, 0.5, 0.7, 0.9):
    model = FairICPClassifier(mu=mu, max_epochs=20, batch_size=64, lr=3e-3, lr_discriminator=1e-3,
                              random_state=0).fit(X_train, y_train, sensitive_features=g_train)
    fair_icp.append(scores(model.predict(X_test), model.predict_proba(X_test)))

# %%
# ExponentiatedGradient around a logistic regression, over its allowed violation ``eps``.
reduction = []
for eps in (0.005, 0.01, 0.02, 0.05, 0.1):
    model = ExponentiatedGradient(LogisticRegression(), EqualizedOdds(), eps=eps)
    model.fit(X_train, y_train, sensitive_features=g_train)
    proba = np.asarray(model._pmf_predict(X_test))
    reduction.append(scores(model.predict(X_test, random_state=0), proba))
plain = LogisticRegression().fit(X_train, y_train)
logistic = scores(plain.predict(X_test), plain.predict_proba(X_test))

# %%
# The trade-off curves: up and to the left is better.
fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
for ax, column, label in ((axes[0], 1, "equalized-odds deviation (DEO)"),
                          (axes[1], 2, "KPC ρ²(Ŷ, A | Y)")):
    for points, name, marker in ((fair_icp, "FairICP (μ = 0 … 0.9)", "o"),
                                 (reduction, "ExponentiatedGradient (eps)", "s")):
        points = np.array(points)
        ax.plot(points[:, column], points[:, 0], marker=marker, label=name)
    ax.plot(logistic[column], logistic[0], "k^", label="LogisticRegression")
    ax.set_xlabel(label)
axes[0].set_ylabel("test accuracy")
axes[0].legend()
fig.suptitle("Accuracy against equalized odds, synthetic data with three groups")
fig.tight_layout()
plt.show()

for name, points in (("FairICP", fair_icp), ("ExponentiatedGradient", reduction),
                     ("LogisticRegression", [logistic])):
    for accuracy, deviation, kpc in points:
        print(f"{name:22s} accuracy {accuracy:.3f}  DEO {deviation:.3f}  KPC {kpc:.3f}")
