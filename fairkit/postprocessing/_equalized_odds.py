"""Equalized odds: each group's ROC curve, the best mixture of thresholds, and the rule that realises it.

A monotone rule of a group (its decision never decreases as the score rises) is a
mixture of its threshold rules, the knots ``K_j`` of its ROC curve (``j`` highest-scoring
blocks predicted 1). :func:`~fairkit.postprocessing._lp.lp_equalized_odds` finds the best
mixture for every group at once. Many mixtures reach the same rates:

* With plug-in rates the gain is linear in a group's (false, true positive rate) point,
  so any realisation of the point keeps the accuracy. The ROC curve is concave, and a
  monotone rule that randomizes only the blocks ``a .. b − 1`` reaches exactly the
  points of ``conv(K_a, …, K_b)``, those on the curve's side of the chord ``K_a K_b``.
  :func:`fewest_randomized` takes the window of least weight containing the point (one
  ``searchsorted`` over the knots' angles around it) and mixes the threshold rule at ``K_a`` with a
  coin at block ``b − 1``: a point on the curve randomizes one block, a point inside the
  hull a band of scores, the fewest fit samples any monotone rule needs (Hardt et al.'s
  threshold-plus-coin randomized almost every sample of such a group).
* With empirical rates the gain is a third coordinate of each knot; the LP's own mixture
  (a vertex: at most three thresholds per group) is used as it is.
"""

from typing import NamedTuple

import numpy as np

from fairkit.postprocessing._curves import score_blocks, threshold_after
from fairkit.postprocessing._lp import lp_equalized_odds

__all__ = ["RocCurve", "equalized_odds_rules", "fewest_randomized", "roc_curves"]

#: Distance (in rate units) within which a group's point counts as on a knot or inside a window.
ON_HULL = 1e-12


class RocCurve(NamedTuple):
    """The ROC curve of one group: knot ``j`` predicts 1 on its ``j`` highest-scoring blocks."""

    fpr: np.ndarray  # false positive rate of each knot (n_blocks + 1)
    tpr: np.ndarray  # true positive rate
    gain: np.ndarray  # plug-in expected accuracy minus that of predicting 0 everywhere
    scores: np.ndarray  # block scores, decreasing
    weights: np.ndarray  # block weights


def roc_curves(scores, codes, weights, groups, labels=None):
    """Each group's ROC curve, with plug-in rates or (``labels`` given) empirical ones.

    Parameters
    ----------
    scores, codes, weights, groups
        As in :func:`~fairkit.postprocessing._curves.group_curves`.
    labels : ndarray of shape (n_samples,), default=None
        Binary labels: count the rates from them instead of from the scores.

    Returns
    -------
    curves : list of RocCurve
    """
    score, weight, positives, bounds, total = score_blocks(scores, codes, weights, len(groups), labels)
    if positives is None:
        positives = weight * score
        negatives = weight * (1.0 - score)
    else:
        negatives = weight - positives
    gain = weight * (2.0 * score - 1.0) / total
    curves = []
    for a, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:], strict=True)):
        rates = []
        for count, rate, side in ((negatives, "false positive rate", "negative"),
                                  (positives, "true positive rate", "positive")):
            cumulative = np.concatenate([[0.0], np.cumsum(count[lo:hi])])
            if cumulative[-1] <= 0:
                cause = (f"has no sample of the {side} class in the fit data" if labels is not None else
                         f"has a {rate} of 0/0: every score of the group is {score[lo]:g}")
                raise ValueError(f"Group {groups[a]!r} {cause}, so its {rate}, which the "
                                 "equalized_odds constraint equalizes, is undefined.")
            rates.append(cumulative / cumulative[-1])
        curves.append(RocCurve(*rates, np.concatenate([[0.0], np.cumsum(gain[lo:hi])]),
                               score[lo:hi], weight[lo:hi]))
    return curves


def equalized_odds_rules(curves, delta, empirical):
    """Each group's rule and rates under equalized odds.

    Returns
    -------
    rules : list of list of (float, float, float)
        Per group, ``(weight, threshold, probability at the threshold)`` of the threshold
        rules it mixes, by decreasing threshold.
    rates : list of (float, float)
        Per group, its (true positive rate, false positive rate).
    """
    mixtures = lp_equalized_odds([(c.fpr, c.tpr, c.gain) for c in curves], delta)
    rules, rates = [], []
    for curve, (knots, weights) in zip(curves, mixtures, strict=True):
        if empirical:
            weights = weights / weights.sum()
        fpr, tpr = float(np.sum(weights * curve.fpr[knots])), float(np.sum(weights * curve.tpr[knots]))
        if empirical:
            rules.append([(float(w), threshold_after(curve.scores, j), 0.0)
                          for j, w in zip(knots, weights, strict=True)])
        else:
            rules.append(fewest_randomized(curve, (fpr, tpr)))
        rates.append((tpr, fpr))
    return rules, rates


def fewest_randomized(curve, point):
    """The monotone rule reaching ``point`` on a concave ROC curve that randomizes the least weight.

    Seen from a point inside the hull the knots turn clockwise, and the window
    ``K_a .. K_b`` reaches the point exactly when it turns by at least π (the point is on
    the curve's side of the chord): so the smallest window from each start is one
    ``searchsorted`` on the knots' unwrapped angles, O(m log m) for m blocks.

    Parameters
    ----------
    curve : RocCurve
        With plug-in rates (concave).
    point : (float, float)
        A (false positive rate, true positive rate) in the convex hull of the curve.

    Returns
    -------
    rules : list of (float, float, float)
        ``(weight, threshold, probability at the threshold)``: one deterministic
        threshold (a knot), one coin at a block's score (a point of the curve), or the
        threshold rule at knot ``a`` mixed with a coin at block ``b − 1``, which
        randomizes the blocks ``a .. b − 1`` and no other.
    """
    knots = np.column_stack([curve.fpr, curve.tpr])
    to_point = np.asarray(point, dtype=float) - knots
    nearest = int(np.argmin(np.hypot(*to_point.T)))
    if np.hypot(*to_point[nearest]) <= ON_HULL:
        return [(1.0, threshold_after(curve.scores, nearest), 0.0)]
    edges = np.diff(knots, axis=0)
    share = np.clip(np.sum(to_point[:-1] * edges, axis=1) / np.sum(edges ** 2, axis=1), 0.0, 1.0)
    off_edge = np.hypot(*(to_point[:-1] - share[:, None] * edges).T)
    a = int(np.argmin(off_edge))
    if off_edge[a] <= ON_HULL:  # on the curve: a coin at block a
        return [(1.0, float(curve.scores[a]), float(share[a]))]
    turn = -np.unwrap(np.arctan2(-to_point[:, 1], -to_point[:, 0]))  # clockwise angle of each knot
    end = np.searchsorted(turn, turn[:-1] + np.pi - ON_HULL)  # first knot b turning by π from each a
    cumulative = np.concatenate([[0.0], np.cumsum(curve.weights)])
    feasible = end < len(knots)
    starts = np.flatnonzero(feasible)
    a = int(starts[np.argmin(cumulative[end[feasible]] - cumulative[starts])])
    b = int(end[a])
    if b == a + 1:  # within rounding of the curve
        return [(1.0, float(curve.scores[a]), float(share[a]))]
    # point = K_a + phi (K_{b-1} - K_a) + u (K_b - K_{b-1}), u = phi * beta: the chord from K_a through
    # the point meets the curve in block b - 1
    first, last, offset = knots[b - 1] - knots[a], edges[b - 1], to_point[a]
    det = first[0] * last[1] - first[1] * last[0]
    phi = float(np.clip((offset[0] * last[1] - offset[1] * last[0]) / det, 0.0, 1.0))
    u = (first[0] * offset[1] - first[1] * offset[0]) / det
    beta = float(np.clip(u / phi, 0.0, 1.0)) if phi > 0.0 else 0.0
    return [(1.0 - phi, threshold_after(curve.scores, a), 0.0), (phi, float(curve.scores[b - 1]), beta)]
