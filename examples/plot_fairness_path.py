"""
==========================================================
The fairness-quality path of fair spectral clustering
==========================================================

How much cut quality does each step of balance cost? :func:`~fairkit.cluster.fairness_path`
fits :class:`~fairkit.cluster.FairSpectralClustering` at levels of ``fairness`` from 0
(unconstrained spectral clustering) to 1 (every group represented proportionally in
every cluster, exactly, in the relaxation). In between, the constraint is a penalty of
weight ``mu = 2 t / (1 - t)`` (normalized Laplacian). The graph is built once and each
level is warm-started from the previous one.

The graph is a modified stochastic block model of 2,000 vertices in 5 true clusters and
3 groups, in which vertices of the same group are more likely to be linked than vertices
of the same cluster: unconstrained spectral clustering splits it by group.

Left: the relaxed NCut (the objective, which can only grow along the path) and the NCut
of the k-means labels. Right: the balance of the labels, the smallest over clusters and
the mean. Most of the change happens at small ``fairness``: the penalty need only
outweigh the gap between the group-split and the cluster-split eigenvectors.
"""

import matplotlib.pyplot as plt
import numpy as np

from fairkit.cluster import FairSpectralClustering, fairness_path
from fairkit.datasets import make_fair_sbm

A, groups, clusters = make_fair_sbm(2000, n_clusters=5, n_groups=3,
                                    probabilities=(0.1, 0.06, 0.04, 0.02), random_state=0)
model = FairSpectralClustering(5, affinity="precomputed", random_state=0)
levels = np.r_[np.linspace(0, 0.3, 16), 0.4, 0.5, 0.75, 1]
path = fairness_path(model, A, sensitive_features=groups, fairness=levels)

fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5), sharex=True)
left.plot(path["fairness"], path["objective"], "o-", label="relaxed NCut (objective)")
left.plot(path["fairness"], path["normalized_cut"], "s--", label="NCut of the labels")
left.set_xlabel("fairness")
left.set_ylabel("cut (lower is better)")
left.legend()
right.plot(path["fairness"], path["balance_min"], "o-", label="balance, min over clusters")
right.plot(path["fairness"], path["balance_mean"], "s--", label="balance, mean over clusters")
right.axhline(np.min(np.bincount(groups)) / np.max(np.bincount(groups)), color="grey", lw=0.8,
              label="proportional clusters")
right.set_xlabel("fairness")
right.set_ylabel("balance (higher is fairer)")
right.legend(loc="lower right")
fig.tight_layout()
plt.show()

print(path.drop(columns="labels").round(4).to_string(index=False))
