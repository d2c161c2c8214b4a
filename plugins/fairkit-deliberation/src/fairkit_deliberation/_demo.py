"""Demo for ``fairkit demo``: a minority's view missing from the top 10 by approvals, restored by JR."""

import numpy as np

from fairkit_deliberation._approvals import coverage, is_justified
from fairkit_deliberation._ranker import JustifiedRepresentationRanker


def demo(*, quick=False):
    """Rank 60 comments for 400 users (quick: 30 for 200): top-k by approvals vs the JR ranking.

    A majority (75%) and a minority (25%) each write and approve their own
    comments, with some cross-approval; every majority comment out-polls every
    minority one, so the top 10 by approvals show the majority only.
    """
    rng = np.random.default_rng(0)
    n_users, n_comments, k = (200, 30, 10) if quick else (400, 60, 10)
    minority = np.arange(n_users) >= 0.75 * n_users
    minority_comment = np.arange(n_comments) >= 0.75 * n_comments
    same_side = minority[:, None] == minority_comment[None, :]
    X = rng.random((n_users, n_comments)) < np.where(same_side, 0.7, 0.03)
    top_k = np.argsort(-X.sum(axis=0), kind="stable")[:k]
    ranker = JustifiedRepresentationRanker(k=k).fit(X)
    return {
        "metric": f"coverage of the top {k}",
        "before": coverage(X, top_k),
        "after": ranker.coverage_,
        "note": f"JR {'held' if is_justified(X, top_k) else 'violated'} -> "
                f"{'held' if is_justified(X, ranker.ranking_) else 'violated'} "
                f"({ranker.jr_slots_} slots for JR)",
    }
