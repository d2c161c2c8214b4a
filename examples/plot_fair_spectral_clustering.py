"""
=====================================================
Fair spectral clustering on a modified block model
=====================================================

A graph of 1,200 vertices in 4 true clusters and 2 groups (the modified stochastic
block model of Kleindessner et al., 2019). Vertices of the same *group* are more
likely to be linked than vertices of the same *cluster*, so unconstrained spectral
clustering splits the graph by group: every cluster it finds holds one group only.
:class:`~fairkit.cluster.FairSpectralClustering` adds the constraint that every cluster
holds each group in the population's proportion (here 50 / 50) and recovers the
true clusters.

The bars show, for each cluster found, how many of its vertices belong to each group.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.cluster import SpectralClustering
from sklearn.metrics import adjusted_rand_score

from fairkit.cluster import FairSpectralClustering
from fairkit.datasets import make_fair_sbm
from fairkit.metrics import balance

A, groups, clusters = make_fair_sbm(1200, n_clusters=4, n_groups=2,
                                    probabilities=(0.2, 0.15, 0.1, 0.05), random_state=0)

unfair = SpectralClustering(4, affinity="precomputed", random_state=0).fit_predict(A)
model = FairSpectralClustering(4, affinity="precomputed", random_state=0)
fair = model.fit_predict(A, sensitive_features=groups)

fig, axes = plt.subplots(1, 2, figsize=(9, 3.5), sharey=True)
for ax, labels, title in [(axes[0], unfair, "SpectralClustering"),
                          (axes[1], fair, "FairSpectralClustering")]:
    counts = np.array([[np.sum((labels == c) & (groups == g)) for g in (0, 1)] for c in range(4)])
    ax.bar(np.arange(4) - 0.2, counts[:, 0], width=0.4, label="group 0")
    ax.bar(np.arange(4) + 0.2, counts[:, 1], width=0.4, label="group 1")
    ax.set_xticks(range(4), [f"cluster {c}" for c in range(4)])
    ax.set_title(f"{title}\nbalance {balance(labels, groups):.2f}, "
                 f"ARI vs truth {adjusted_rand_score(clusters, labels):.2f}")
axes[0].set_ylabel("vertices")
axes[0].legend()
fig.tight_layout()
plt.show()

print(f"solver: {model.solver_}, relaxed NCut {model.objective_:.4f}, "
      f"fairness residual ||F^T H|| = {model.fairness_residual_:.1e}")
