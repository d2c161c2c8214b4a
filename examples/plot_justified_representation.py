"""
Justified representation in a comment ranking
=============================================

A majority and a minority each approve their own comments; every majority comment out-polls
every minority one. Ranking by approvals leaves the minority without a voice in the top k
(justified representation, JR, fails); ``JustifiedRepresentationRanker`` (plugin
``fairkit-deliberation``) restores JR for every k at a small cost in approvals.
"""

import matplotlib.pyplot as plt
import numpy as np

from fairkit_deliberation import JustifiedRepresentationRanker, coverage, is_justified

rng = np.random.default_rng(0)
n_users, n_comments = 400, 60
minority = np.arange(n_users) >= 0.75 * n_users
minority_comment = np.arange(n_comments) >= 0.75 * n_comments
same_side = minority[:, None] == minority_comment[None, :]
X = rng.random((n_users, n_comments)) < np.where(same_side, 0.7, 0.03)
approvals = X.sum(axis=0)

ks = np.arange(2, 21)
rows = []
for k in ks:
    top = np.argsort(-approvals, kind="stable")[:k]
    ranker = JustifiedRepresentationRanker(k=int(k)).fit(X)
    rows.append((coverage(X, top), ranker.coverage_, is_justified(X, top),
                 approvals[ranker.ranking_].sum() / approvals[top].sum()))
top_cov, jr_cov, top_jr, kept = map(np.array, zip(*rows, strict=True))

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
left.plot(ks, top_cov, "o-", label="top k by approvals")
left.plot(ks, jr_cov, "s-", label="JR ranking (greedy)")
left.scatter(ks[~top_jr], top_cov[~top_jr], s=120, facecolors="none", edgecolors="red",
             label="JR violated")
left.set(xlabel="k", ylabel="coverage: users with an approved comment", ylim=(0, 1.05))
left.legend()
right.plot(ks, kept, "s-")
right.set(xlabel="k", ylabel="approvals kept (JR ranking / top k)", ylim=(0.8, 1.01))
fig.tight_layout()
plt.show()
