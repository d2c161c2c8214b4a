"""The two-stage greedy ranking of Revel et al. (ICML 2025), Algorithm D.1."""

import numpy as np

from fairkit_deliberation._approvals import violates_quota


def by_score(candidates, scores):
    """``candidates`` ordered by decreasing score, ties by increasing index."""
    candidates = np.asarray(candidates, dtype=np.intp)
    return candidates[np.lexsort((candidates, -scores[candidates]))]


def justifying_set(approvals, k, scores, allowed=None):
    """Stage 1: greedy coverage until the chosen comments form an ``n/k``-justifying set.

    Repeatedly picks the allowed comment with the most approvers not yet
    covered (ties: higher score, then lower index) until no comment at all has
    ``n/k`` or more uncovered approvers. Each pick then covers at least ``n/k``
    new users, so at most ``k`` picks are made. Counts are updated incrementally,
    so the whole stage costs ``O(nnz(approvals) + picks * n_comments)``.

    Parameters
    ----------
    approvals : sparse matrix of shape (n_users, n_comments)
        0/1 approvals (see :func:`~fairkit_deliberation._approvals.check_approvals`).
    k : int
        The number of slots, which sets the quota ``n_users / k``.
    scores : ndarray of shape (n_comments,)
        The comments' scores, used to break ties.
    allowed : ndarray of int, default=None
        Pick only among these comments; ``None`` allows all.

    Returns
    -------
    chosen : ndarray of int
        The picked comments, in the order they were picked.

    Raises
    ------
    ValueError
        If the allowed comments contain no justifying set.
    """
    rows, cols = approvals.tocsr(), approvals.tocsc()
    n_users = rows.shape[0]
    support = np.asarray(rows.sum(axis=0)).ravel()  # uncovered approvers of each comment
    pickable = np.zeros(rows.shape[1], dtype=bool)
    pickable[slice(None) if allowed is None else allowed] = True
    covered = np.zeros(n_users, dtype=bool)
    chosen = []
    while violates_quota(support.max(initial=0), n_users, k):
        gain = np.where(pickable, support, 0)
        if gain.max() == 0:
            raise ValueError("The allowed comments do not contain an n/k-justifying set.")
        comment = by_score(np.flatnonzero(gain == gain.max()), scores)[0]
        approvers = cols.indices[cols.indptr[comment]:cols.indptr[comment + 1]]
        newly = approvers[~covered[approvers]]
        covered[newly] = True
        support -= np.asarray(rows[newly].sum(axis=0)).ravel()
        pickable[comment] = False
        chosen.append(comment)
    return np.asarray(chosen, dtype=np.intp)


def greedy_selection(approvals, k, scores):
    """Both stages: a justifying set by greedy coverage, then the best-scored comments.

    Returns
    -------
    selection : ndarray of int of shape (k,)
        The chosen comments, the stage-1 picks first in the order they were picked.
    n_justifying : int
        How many of them stage 1 picked.
    """
    chosen = justifying_set(approvals, k, scores)
    rest = np.setdiff1d(np.arange(approvals.shape[1]), chosen)
    fill = by_score(rest, scores)[:k - chosen.size]
    return np.concatenate([chosen, fill]), chosen.size
