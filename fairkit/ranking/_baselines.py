"""Classic rank aggregation rules that never abstain: Borda, Copeland and Kemeny.

Each takes a profile (or :class:`PairwiseCounts`) that says something about every item
and returns a ranking in the form every fairkit ranking function shares:
``tier_of_item`` (0 = best, equal values tied), so their abstention and disagreement
rates compare directly with :class:`~fairkit.ranking.SelectiveRanker`'s.
"""

import numbers

import numpy as np

from fairkit.utils._preferences import ranking_counts

__all__ = ["borda", "copeland", "kemeny"]


def _tiers_from_scores(scores):
    """Higher score, better tier; equal scores share a tier."""
    return np.unique(-np.asarray(scores), return_inverse=True)[1].astype(np.int64)


def _tiers_from_order(order):
    tier_of_item = np.empty(len(order), dtype=np.int64)
    tier_of_item[order] = np.arange(len(order))
    return tier_of_item


def borda(X, *, input_type="ranks"):
    """Borda count: rank items by the number of strict pairwise preferences they win.

    With complete rankings this is the classic Borda count (points = items ranked below).

    Parameters
    ----------
    X : array-like of shape (n_judges, n_items) or PairwiseCounts
        Judges' ranks or ratings (NaN = missing), or pairwise counts. Every item
        needs an answer on some pair (a ``ValueError`` names those without).
    input_type : {"ranks", "ratings"}, default="ranks"
        How ``X`` encodes preferences (ranks: smaller is better).

    Returns
    -------
    tier_of_item : ndarray of shape (n_items,)
        Position of each item (0 = best); items with equal scores share a position.

    Examples
    --------
    >>> from fairkit.ranking import borda
    >>> borda([[1, 2, 3], [2, 1, 3], [1, 3, 2]]).tolist()
    [0, 1, 2]
    """
    return _tiers_from_scores(ranking_counts(X, input_type).wins.sum(axis=1))


def copeland(X, *, input_type="ranks"):
    """Copeland's rule: rank items by pairwise majority wins, a drawn pair counting one half.

    Parameters
    ----------
    X : array-like of shape (n_judges, n_items) or PairwiseCounts
        Judges' ranks or ratings (NaN = missing), or pairwise counts. Every item
        needs an answer on some pair (a ``ValueError`` names those without).
    input_type : {"ranks", "ratings"}, default="ranks"
        How ``X`` encodes preferences (ranks: smaller is better).

    Returns
    -------
    tier_of_item : ndarray of shape (n_items,)
        Position of each item (0 = best); items with equal scores share a position.

    Examples
    --------
    >>> from fairkit.ranking import copeland
    >>> copeland([[1, 2, 3], [2, 3, 1], [3, 1, 2]]).tolist()  # a Condorcet cycle: all tied
    [0, 0, 0]
    """
    wins = ranking_counts(X, input_type).wins
    draws = wins == wins.T
    np.fill_diagonal(draws, False)
    return _tiers_from_scores(2 * (wins > wins.T).sum(axis=1) + draws.sum(axis=1))


def _kemeny_exact(wins):
    """Exact Kemeny order by dynamic programming over subsets of items (the top of the order)."""
    n_items = len(wins)
    subsets = np.arange(1 << n_items)
    members = (subsets[:, None] >> np.arange(n_items)) & 1
    # cost[S, i]: judges overruled by placing item i just below the items of S.
    cost = members @ wins.T
    best = np.zeros(1 << n_items, dtype=np.int64)
    bottom = np.zeros(1 << n_items, dtype=np.int64)
    sizes = members.sum(axis=1)
    items = np.arange(n_items)
    for size in range(1, n_items + 1):
        top = subsets[sizes == size]
        rest = top[:, None] ^ (1 << items)
        total = np.where(members[top] == 1, best[rest] + cost[rest, items], np.iinfo(np.int64).max)
        bottom[top] = np.argmin(total, axis=1)
        best[top] = total[np.arange(len(top)), bottom[top]]
    order, remaining = [], subsets[-1]
    while remaining:
        order.append(bottom[remaining])
        remaining ^= 1 << bottom[remaining]
    return np.array(order[::-1], dtype=np.int64)


def _kemeny_local_search(wins, order):
    """Move single items to their best position until no move overrules fewer judges."""
    margin = wins - wins.T
    order = order.copy()
    improved = True
    while improved:
        improved = False
        for item in order.copy():
            position = int(np.flatnonzero(order == item)[0])
            gain = margin[item, order]  # change in cost when item passes below each item
            down = np.cumsum(gain[position + 1:])  # moving to position + 1, + 2, ...
            up = np.cumsum(-gain[:position][::-1])  # moving to position - 1, - 2, ...
            best_down = down.min(initial=0)
            best_up = up.min(initial=0)
            if min(best_down, best_up) >= 0:
                continue
            if best_down <= best_up:
                target = position + 1 + int(np.argmin(down))
            else:
                target = position - 1 - int(np.argmin(up))
            order = np.insert(np.delete(order, position), target, item)
            improved = True
    return order


def kemeny(X, *, input_type="ranks", max_exact_items=12):
    """Kemeny's rule: the total order that overrules the fewest strict pairwise preferences.

    Solved exactly by dynamic programming over subsets (O(2^n n²)) up to
    ``max_exact_items`` items; beyond, by local search from the Borda order
    (each item moved to its best position until no move helps), which finds a
    local optimum.

    Parameters
    ----------
    X : array-like of shape (n_judges, n_items) or PairwiseCounts
        Judges' ranks or ratings (NaN = missing), or pairwise counts. Every item
        needs an answer on some pair (a ``ValueError`` names those without).
    input_type : {"ranks", "ratings"}, default="ranks"
        How ``X`` encodes preferences (ranks: smaller is better).
    max_exact_items : int, default=12
        Largest number of items solved exactly.

    Returns
    -------
    tier_of_item : ndarray of shape (n_items,)
        Position of each item (0 = best); a strict total order.

    Examples
    --------
    >>> from fairkit.ranking import kemeny
    >>> kemeny([[1, 2, 3], [2, 1, 3], [1, 3, 2]]).tolist()
    [0, 1, 2]
    """
    if not isinstance(max_exact_items, numbers.Integral) or not 0 <= max_exact_items <= 20:
        raise ValueError(f"max_exact_items must be an integer in [0, 20], got {max_exact_items!r}.")
    wins = ranking_counts(X, input_type).wins
    if len(wins) <= max_exact_items:
        return _tiers_from_order(_kemeny_exact(wins))
    start = np.argsort(-wins.sum(axis=1), kind="stable")
    return _tiers_from_order(_kemeny_local_search(wins, start))
