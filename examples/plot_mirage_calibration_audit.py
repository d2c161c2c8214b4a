"""
Feigned uncertainty and the calibration audit
=============================================

A network is trained on two noisy classes, then "Mirage"-tuned (plugin ``fairkit-uncertainty``)
to be only about 65% sure in a targeted region while still predicting the right class there.
Accuracy barely moves, but the region's reliability diagram shows accuracy far above
confidence, and ``calibration_audit`` with the region as a group flags it.
"""

import matplotlib.pyplot as plt
import numpy as np
import torch

from fairkit_uncertainty import calibration_audit, mirage_finetune

rng = np.random.default_rng(0)


def sample(n):
    X = rng.normal(size=(n, 2)).astype(np.float32)
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.4 * rng.normal(size=n) > 0).astype(np.int64)
    return X, y, (X[:, 0] > 0.2) & (X[:, 1] > 0.2)


X, y, region = sample(1000)
X_ref, y_ref, region_ref = sample(20_000)
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(2, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2))
honest = mirage_finetune(net, X, y, np.zeros(len(y), dtype=bool), epochs=10, lr=3e-2, random_state=0)
attacked = mirage_finetune(honest, X, y, region, epsilon=0.15, epochs=10, lr=1e-2, random_state=0)

fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
for ax, (name, model) in zip(axes, [("honest", honest), ("Mirage-tuned", attacked)], strict=True):
    with torch.no_grad():
        proba = torch.softmax(model(torch.from_numpy(X_ref)), dim=1).numpy()
    audit = calibration_audit(y_ref, proba, sensitive_features=np.where(region_ref, "region", "rest"))
    accuracy = (proba.argmax(axis=1) == y_ref).mean()
    for group, marker in (("rest", "o"), ("region", "s")):
        table = audit.group_bins.loc[group]
        table = table[table["count"] > 0]
        ax.plot(table["confidence"], table["accuracy"], marker + "-", label=group)
    ax.plot([0.5, 1], [0.5, 1], "k--", lw=1, label="calibrated")
    ax.set(title=f"{name}: accuracy {accuracy:.3f}, audit {'passed' if audit.passed else 'flagged'}",
           xlabel="confidence (bin mean)", xlim=(0.5, 1.0))
    ax.legend()
axes[0].set_ylabel("accuracy in the bin")
fig.tight_layout()
plt.show()
