"""Group gain curves of the fair Bayes-optimal problem, and the threshold rules they give.

With scores ``s`` estimating η = P(Y=1 | x, a), weights ``w`` and groups ``a``, a
randomized rule ``f ∈ [0, 1]ⁿ`` has plug-in expected accuracy

    Σᵢ wᵢ (1 − sᵢ) / W  +  Σᵢ wᵢ fᵢ (2sᵢ − 1) / W,

and the constrained rate of group ``a`` is ``Σ_{i∈a} fᵢ cᵢ / Σ_{i∈a} cᵢ`` with the cost
``cᵢ = wᵢ`` (demographic parity), ``wᵢ sᵢ`` (equal opportunity: the plug-in true
positive rate) or ``wᵢ (1 − sᵢ)`` (predictive equality: the plug-in false positive rate).
Within a group the gain per unit of cost increases with ``s``, so the best rule at
rate ``r`` fills the group in decreasing score order: sorting the group's distinct
scores (tied samples merged into one block) gives a concave piecewise-linear gain
curve ``G_a(r)`` whose knots are the rates after each whole block. A point between
two knots randomizes on exactly one block: the rule is a threshold on ``s`` with a
coin at the threshold. Blocks of zero cost (scores 0 under equal opportunity, 1 under
predictive equality) do not move the rate; they are decided by the sign of their gain
once and for all.

With empirical rates (``labels`` given) the cost of a sample is ``wᵢ yᵢ`` (true
positive rate) or ``wᵢ (1 − yᵢ)`` (false positive rate), so the gain per unit of cost no
longer increases with the score. Among rules monotone in the score (mixtures of
thresholds, as in Hardt et al. 2016) the best gain at rate ``r`` is then the upper
concave hull of the knots of all the blocks filled in decreasing score order: a point
on a hull edge mixes the two threshold rules at its ends and randomizes the blocks
between them.
"""

from typing import NamedTuple

import numpy as np

__all__ = ["Blocks", "GroupCurve", "group_curves", "position", "rule", "score_blocks", "threshold_after",
           "upper_hull", "value"]

CONSTRAINT_RATES = {
    "demographic_parity": "selection rate",
    "equal_opportunity": "true positive rate",
    "predictive_equality": "false positive rate",
}

#: A rate closer than this fraction of a block to one of the block's ends is snapped to it.
SNAP = 1e-9


class Blocks(NamedTuple):
    """Samples merged into blocks of tied scores, by group and decreasing score (see :func:`score_blocks`)."""

    score: np.ndarray  # score of each block
    weight: np.ndarray  # its total weight
    positives: np.ndarray | None  # total weight of its positive labels (None without labels)
    bounds: np.ndarray  # group a holds the blocks bounds[a]:bounds[a + 1]
    total_weight: float  # of all samples


class GroupCurve(NamedTuple):
    """The gain curve of one group.

    ``x[i]`` is the group's rate when its ``knots[i]`` highest-scoring blocks are
    predicted positive (``x[0] == 0``, ``x[-1] == 1``) and ``y[i]`` the gain there
    (plug-in expected accuracy minus that of predicting 0 everywhere). With plug-in
    rates every block is a knot (``knots[i] == i``); with empirical rates the knots
    are the vertices of the upper concave hull.
    """

    x: np.ndarray
    y: np.ndarray
    scores: np.ndarray  # scores of the blocks, decreasing (plug-in: those of positive cost)
    knots: np.ndarray  # number of blocks predicted 1 at each point of the curve
    above: float  # highest score always predicted 1 (zero cost, positive gain), or +inf
    below: float  # highest score always predicted 0 (zero cost, other gain), or -inf
    peak: int  # first point of maximal gain (the group's unconstrained optimum)


def score_blocks(scores, codes, weights, n_groups, labels=None):
    """Sort the samples by group and decreasing score; merge each group's tied scores into a block.

    One sort by decreasing score, then a stable radix sort by group (twice as fast
    as ``np.lexsort``), orders all samples; the rest is sums per block. O(n log n)
    time, O(n) memory.

    Parameters
    ----------
    scores : ndarray of shape (n_samples,)
        Estimates of P(Y=1 | x, a) in [0, 1].
    codes : ndarray of int of shape (n_samples,)
        Group of each sample, in ``range(n_groups)``.
    weights : ndarray of shape (n_samples,)
        Positive sample weights.
    n_groups : int
    labels : ndarray of shape (n_samples,), default=None
        Binary labels (1 for the positive class), summed per block when given.

    Returns
    -------
    blocks : Blocks
    """
    by_score = np.argsort(-scores)  # then a stable (radix) sort by group keeps the score order
    order = by_score[np.argsort(codes[by_score].astype(np.min_scalar_type(n_groups)), kind="stable")]
    s, g, w = scores[order], codes[order], weights[order]
    new_block = np.ones(len(s), dtype=bool)
    new_block[1:] = (g[1:] != g[:-1]) | (s[1:] != s[:-1])
    starts = np.flatnonzero(new_block)
    positives = None if labels is None else np.add.reduceat(w * labels[order], starts)
    bounds = np.searchsorted(g[starts], np.arange(n_groups + 1))
    return Blocks(s[starts], np.add.reduceat(w, starts), positives, bounds, w.sum())


def _costs(constraint, scores, weights):
    if constraint == "demographic_parity":
        return weights
    if constraint == "equal_opportunity":
        return weights * scores
    return weights * (1.0 - scores)


def group_curves(scores, codes, weights, groups, constraint, labels=None):
    """Build each group's gain curve, with plug-in rates or (``labels`` given) empirical ones.

    Parameters
    ----------
    scores : ndarray of shape (n_samples,)
        Estimates of P(Y=1 | x, a) in [0, 1].
    codes : ndarray of int of shape (n_samples,)
        Group of each sample, an index into ``groups``.
    weights : ndarray of shape (n_samples,)
        Positive sample weights.
    groups : ndarray of shape (n_groups,)
        Group labels (named in errors).
    constraint : {"demographic_parity", "equal_opportunity", "predictive_equality"}
        Which rate the curve's abscissa is.
    labels : ndarray of shape (n_samples,), default=None
        Binary labels: the true and false positive rates are counted from them. The
        selection rate does not depend on labels, so demographic parity ignores them.

    Returns
    -------
    curves : list of GroupCurve
        One per group.
    """
    empirical = labels is not None and constraint != "demographic_parity"
    score, weight, positives, bounds, total = score_blocks(scores, codes, weights, len(groups),
                                                           labels if empirical else None)
    gain = weight * (2.0 * score - 1.0) / total
    if not empirical:
        cost = _costs(constraint, score, weight)
    else:
        cost = positives if constraint == "equal_opportunity" else weight - positives
    build = _empirical_curve if empirical else _curve
    return [build(score[lo:hi], cost[lo:hi], gain[lo:hi], groups[a], constraint)
            for a, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:], strict=True))]


def _curve(score, cost, gain, group, constraint):
    positive = cost > 0
    if not positive.any():
        raise ValueError(f"Group {group!r} has a {CONSTRAINT_RATES[constraint]} of 0/0: every "
                         f"score of the group is {score[0]:g}, so the rate the {constraint} "
                         "constraint equalizes is undefined for it.")
    on = ~positive & (gain > 0)
    off = ~positive & ~on
    total = cost[positive].sum()
    x = np.concatenate([[0.0], np.cumsum(cost[positive]) / total])
    x[-1] = 1.0
    y = gain[on].sum() + np.concatenate([[0.0], np.cumsum(gain[positive])])
    return GroupCurve(
        x=x, y=y, scores=score[positive], knots=np.arange(len(x)),
        above=score[on].max() if on.any() else np.inf,
        below=score[off].max() if off.any() else -np.inf,
        peak=int(np.argmax(y)),
    )


def _empirical_curve(score, cost, gain, group, constraint):
    cumulative = np.concatenate([[0.0], np.cumsum(cost)])
    if cumulative[-1] <= 0:
        side = "positive" if constraint == "equal_opportunity" else "negative"
        raise ValueError(f"Group {group!r} has no sample of the {side} class in the fit data, so its "
                         f"empirical {CONSTRAINT_RATES[constraint]} is undefined; use rates='plugin' or "
                         "merge the group with another.")
    x = cumulative / cumulative[-1]  # blocks after the last labelled one stay exactly at 1
    y = np.concatenate([[0.0], np.cumsum(gain)])
    knots = upper_hull(x, y)
    return GroupCurve(x=x[knots], y=y[knots], scores=score, knots=knots, above=np.inf, below=-np.inf,
                      peak=int(np.argmax(y[knots])))


def upper_hull(x, y):
    """Indices of the vertices of the upper concave hull of points with non-decreasing ``x``.

    Of points sharing an abscissa only the first highest can be a vertex. Then every
    point strictly below the segment joining its neighbours is dropped, all at once
    (no vertex is ever below a segment between two other points), until none is left:
    an exact, vectorized monotone chain. Collinear points are kept, so that a hull
    edge spans as few blocks as possible.

    Parameters
    ----------
    x, y : ndarray of shape (n_points,)

    Returns
    -------
    vertices : ndarray of int
        Increasing indices; the first and the last abscissa are always among them.
    """
    run = np.concatenate([[0], np.cumsum(x[1:] != x[:-1])])  # index of each point's abscissa
    highest = np.maximum.reduceat(y, np.flatnonzero(np.diff(run, prepend=-1)))
    candidates = np.flatnonzero(y == highest[run])
    keep = np.ones(len(candidates), dtype=bool)
    keep[1:] = run[candidates[1:]] != run[candidates[:-1]]  # the first highest of each abscissa
    vertices = candidates[keep]
    while len(vertices) > 2:
        vx, vy = x[vertices], y[vertices]
        # > 0: the middle point is strictly below the segment joining its neighbours
        below = ((vx[1:-1] - vx[:-2]) * (vy[2:] - vy[:-2]) - (vy[1:-1] - vy[:-2]) * (vx[2:] - vx[:-2])) > 0
        if not below.any():
            break
        vertices = vertices[np.concatenate([[True], ~below, [True]])]
    return vertices


def position(curve, rate):
    """Locate ``rate`` on the curve: ``(k, phi)``, the point ``k`` plus a share ``phi`` of the edge after it.

    A share within :data:`SNAP` of 0 or 1 is rounded, so that rates computed with
    rounding errors land on the knot they stand for.
    """
    m = len(curve.x) - 1
    k = int(np.clip(np.searchsorted(curve.x, rate, side="right") - 1, 0, m))
    if k == m:
        return m, 0.0
    phi = (rate - curve.x[k]) / (curve.x[k + 1] - curve.x[k])
    if phi < SNAP:
        return k, 0.0
    if phi > 1.0 - SNAP:
        return k + 1, 0.0
    return k, float(phi)


def value(curve, k, phi):
    """Gain and rate of the position ``(k, phi)``."""
    if phi == 0.0:
        return curve.y[k], curve.x[k]
    return (curve.y[k] + phi * (curve.y[k + 1] - curve.y[k]),
            curve.x[k] + phi * (curve.x[k + 1] - curve.x[k]))


def threshold_after(scores, k, above=np.inf, below=-np.inf):
    """Threshold of the deterministic rule predicting 1 on the first ``k`` blocks of ``scores`` (decreasing).

    Midway between the last block predicted 1 and the first predicted 0; ``above``
    and ``below`` are the nearest scores outside ``scores`` decided 1 and 0 (``±inf``
    when none): with nothing predicted 1 (or everything) the threshold is infinite.
    """
    last_in = scores[k - 1] if k > 0 else above
    first_out = scores[k] if k < len(scores) else below
    if np.isinf(last_in) or np.isinf(first_out):
        return float(last_in if np.isinf(last_in) else first_out)
    return float((last_in + first_out) / 2.0)


def rule(curve, k, phi):
    """The rule at position ``(k, phi)``: a list of ``(weight, threshold, probability at the threshold)``.

    A rule ``(threshold, p)`` predicts 1 above the threshold, 0 below it and 1 with
    probability ``p`` at it; the group's decision is the weighted mixture of its rules,
    listed by decreasing threshold. Without a share (``phi == 0``) the rule is one
    deterministic threshold midway between the last block predicted 1 and the first
    predicted 0. A share of an edge of one block is a coin at that block's score
    (plug-in rates: always); a share of a hull edge spanning several blocks mixes the
    deterministic rules at its two ends, randomizing those blocks.
    """
    first = int(curve.knots[k])
    threshold = threshold_after(curve.scores, first, curve.above, curve.below)
    if phi == 0.0:
        return [(1.0, threshold, 0.0)]
    last = int(curve.knots[k + 1])
    if last == first + 1:
        return [(1.0, float(curve.scores[first]), phi)]
    return [(1.0 - phi, threshold, 0.0),
            (phi, threshold_after(curve.scores, last, curve.above, curve.below), 0.0)]
