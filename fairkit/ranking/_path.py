"""Selective rankings from pairwise support counts: at one dissent level, and the whole path.

Notation (Kadekodi, McTavish & Ustun, ICML 2025): ``support[i, j]`` counts the judges
who do not strictly prefer j to i, out of ``p`` judges. The claim "i above j" has
dissent ``support[j, i] / p``. At dissent level τ the graph has an edge i -> j iff
``support[i, j] > τ p`` (placing j above i would overrule too many judges); its strongly
connected components, in topological order, are the tiers. Thresholds are compared as
integer counts: ``support <= floor(τ p)``.
"""

import math

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

__all__ = ["SelectivePath", "max_support", "selective_path", "selective_tiers"]


def max_support(tau, n_judges):
    """The largest support count ``w`` with ``w / n_judges <= tau``, computed without float error.

    ``tau * n_judges`` is rounded to 9 decimals before the floor, so that a τ written
    as ``w / n_judges`` (for example 0.29 with 100 judges) gives back ``w`` exactly.

    Examples
    --------
    >>> from fairkit.ranking._path import max_support
    >>> 0.29 * 100, max_support(0.29, 100)
    (28.999999999999996, 29)
    """
    return math.floor(round(tau * n_judges, 9))


def _topological_order(condensation):
    """Order the nodes of a DAG given as a boolean adjacency matrix; ties go to the smaller node."""
    n_nodes = condensation.shape[0]
    in_degree = condensation.sum(axis=0)
    placed = np.zeros(n_nodes, dtype=bool)
    order = np.empty(n_nodes, dtype=np.int64)
    for position in range(n_nodes):
        node = np.flatnonzero((in_degree == 0) & ~placed)[0]
        order[position] = node
        placed[node] = True
        in_degree -= condensation[node]
    return order


def selective_tiers(support, threshold):
    """Tiers of the selective ranking that keeps the edges ``support > threshold``.

    Parameters
    ----------
    support : ndarray of shape (n_items, n_items)
        Integer support counts (see :meth:`PairwiseCounts.support`).
    threshold : int
        Edges with support at most ``threshold`` are removed.

    Returns
    -------
    tier_of_item : ndarray of shape (n_items,)
        Tier of each item, 0 for the best; items in one tier are not compared.
    n_unsupported : int
        Number of pairs of items left with no edge either way. When it is positive,
        both orders of such a pair have dissent at most τ and their relative order is
        not determined by the judges (ties between components go to the smaller item index).
    """
    n_items = support.shape[0]
    edges = support > threshold
    np.fill_diagonal(edges, False)
    n_tiers, labels = connected_components(csr_matrix(edges), directed=True, connection="strong")
    # Number components by their smallest item so that ties in the order are broken by index.
    first_item = np.full(n_tiers, n_items)
    np.minimum.at(first_item, labels, np.arange(n_items))
    labels = np.argsort(np.argsort(first_item))[labels]
    condensation = np.zeros((n_tiers, n_tiers), dtype=np.int64)
    sources, targets = np.nonzero(edges)
    condensation[labels[sources], labels[targets]] = 1
    np.fill_diagonal(condensation, 0)
    tier_of_component = np.empty(n_tiers, dtype=np.int64)
    tier_of_component[_topological_order(condensation)] = np.arange(n_tiers)
    unsupported = ~(edges | edges.T)
    np.fill_diagonal(unsupported, False)
    return tier_of_component[labels], int(unsupported.sum()) // 2


class SelectivePath:
    """All selective rankings of a preference profile, one per dissent level where the tiers change.

    Built by :meth:`SelectiveRanker.path`. Tiers only split as τ grows, so the path
    holds at most ``n_items`` rankings. It stores one item order and, for each tier
    boundary of its finest ranking, the smallest τ at which that boundary appears:
    memory O(n_items).

    Attributes
    ----------
    taus : ndarray of shape (n_rankings,)
        Dissent levels at which the tiers change, increasing; the first is 0.
    thresholds : ndarray of shape (n_rankings,)
        The same levels as support counts: ``taus == thresholds / n_judges``.
    n_judges : int
        Number of judges.
    tau_stop : float
        The path ends here: at this τ some pair of items loses its edges both ways
        (missing preferences) or τ reaches 1/2. Beyond it :meth:`at` returns the last
        ranking, which is still safe but may not be the finest.
    item_names : ndarray of shape (n_items,) or None
        Item names, when the profile had them.
    """

    def __init__(self, order, boundaries, boundary_thresholds, n_judges, tau_stop, item_names=None):
        self._order = order
        self._boundaries = boundaries
        self._boundary_thresholds = boundary_thresholds
        self.n_judges = n_judges
        self.tau_stop = tau_stop
        self.item_names = item_names
        positive = np.unique(boundary_thresholds[boundary_thresholds > 0])
        self.thresholds = np.concatenate([[0], positive]).astype(np.int64)
        self.taus = self.thresholds / n_judges

    def __len__(self):
        return len(self.taus)

    def __repr__(self):
        return f"SelectivePath(n_rankings={len(self)}, taus={np.round(self.taus, 4).tolist()})"

    def _ranking(self, threshold):
        tier_by_position = np.zeros(len(self._order), dtype=np.int64)
        tier_by_position[self._boundaries[self._boundary_thresholds <= threshold]] = 1
        tier_of_item = np.empty_like(tier_by_position)
        tier_of_item[self._order] = np.cumsum(tier_by_position)
        return tier_of_item

    @property
    def rankings(self):
        """List of tier arrays (``tier_of_item``, 0 = best), one per entry of ``taus``."""
        return [self._ranking(threshold) for threshold in self.thresholds]

    def at(self, tau):
        """The ranking at dissent level ``tau``: the one recorded at the largest ``taus`` <= tau.

        Parameters
        ----------
        tau : float >= 0

        Returns
        -------
        tier_of_item : ndarray of shape (n_items,)
            Tier of each item, 0 for the best.
        """
        if not tau >= 0:
            raise ValueError(f"tau must be a non-negative number, got {tau!r}.")
        return self._ranking(max_support(tau, self.n_judges))

    def to_frame(self):
        """The path as a DataFrame: a row per ``taus`` entry, a column per item, tiers as values."""
        import pandas as pd

        return pd.DataFrame(np.vstack(self.rankings), columns=self.item_names,
                            index=pd.Index(self.taus, name="tau"))


def selective_path(support, n_judges, item_names=None):
    """The selective rankings at every dissent level below 1/2, as a :class:`SelectivePath`.

    Removing edges one support value at a time and recomputing the components (the
    reference algorithm) costs O(n_items²) per distinct value. This does it in
    O(n_items²) overall. While every pair keeps an edge (the graph is semicomplete)
    the tiers are set by the "top sets" S, with no edge from outside S into S; a top
    set stays one as edges are removed. So every top set met along the path is a
    prefix of the last ranking's item order, and a prefix of size k becomes one at
    the largest support of an edge from below it to above it: a block maximum, found
    for all k at once with two running maxima.

    Parameters
    ----------
    support : ndarray of shape (n_items, n_items)
        Integer support counts.
    n_judges : int
        Number of judges.
    item_names : ndarray of shape (n_items,), default=None

    Returns
    -------
    path : SelectivePath
    """
    n_items = support.shape[0]
    cap = (n_judges - 1) // 2  # the largest count w with w / n_judges < 1/2
    stop = cap + 1
    if n_items > 1:
        strongest = np.maximum(support, support.T)
        np.fill_diagonal(strongest, np.iinfo(strongest.dtype).max)
        stop = min(stop, int(strongest.min()))
    last = max(stop - 1, 0)
    tier_of_item, _ = selective_tiers(support, last)
    order = np.argsort(tier_of_item, kind="stable")
    boundaries = np.flatnonzero(np.diff(tier_of_item[order])) + 1
    ordered = support[np.ix_(order, order)]
    below_max = np.maximum.accumulate(ordered[::-1], axis=0)[::-1]  # max over rows >= r
    block_max = np.maximum.accumulate(below_max, axis=1)  # and columns <= c
    boundary_thresholds = block_max[boundaries, boundaries - 1]
    return SelectivePath(order, boundaries, boundary_thresholds, n_judges, stop / n_judges,
                         item_names)
