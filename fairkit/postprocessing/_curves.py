"""Group gain curves of the plug-in fair Bayes-optimal problem, and the threshold rules they give.

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
coin at the threshold.

Blocks of zero cost (scores 0 under equal opportunity, 1 under predictive equality)
do not move the rate; they are decided by the sign of their gain once and for all.
"""

from typing import NamedTuple

import numpy as np

__all__ = ["GroupCurve", "group_curves", "position", "rule", "value"]

CONSTRAINT_RATES = {
    "demographic_parity": "selection rate",
    "equal_opportunity": "true positive rate",
    "predictive_equality": "false positive rate",
}

#: A rate closer than this fraction of a block to one of the block's ends is snapped to it.
SNAP = 1e-9


class GroupCurve(NamedTuple):
    """The gain curve of one group.

    ``x[k]`` is the group's rate when its ``k`` highest-scoring blocks of positive cost
    are predicted positive (``x[0] == 0``, ``x[-1] == 1``) and ``y[k]`` the gain there
    (plug-in expected accuracy minus that of predicting 0 everywhere).
    """

    x: np.ndarray
    y: np.ndarray
    scores: np.ndarray  # scores of the blocks of positive cost, decreasing
    weights: np.ndarray  # their weights
    above: float  # highest score always predicted 1 (zero cost, positive gain), or +inf
    below: float  # highest score always predicted 0 (zero cost, other gain), or -inf
    on_weight: float  # total weight of the blocks always predicted 1
    peak: int  # first knot of maximal gain (the group's unconstrained optimum)


def _costs(constraint, scores, weights):
    if constraint == "demographic_parity":
        return weights
    if constraint == "equal_opportunity":
        return weights * scores
    return weights * (1.0 - scores)


def group_curves(scores, codes, weights, groups, constraint):
    """Sort each group by decreasing score, merge ties into blocks and build its gain curve.

    One sort by decreasing score, then a stable radix sort by group (twice as fast
    as ``np.lexsort``), orders all samples; the rest is cumulative sums per group.
    O(n log n) time, O(n) memory.

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

    Returns
    -------
    curves : list of GroupCurve
        One per group.
    """
    by_score = np.argsort(-scores)  # then a stable (radix) sort by group keeps the score order
    order = by_score[np.argsort(codes[by_score].astype(np.min_scalar_type(len(groups))), kind="stable")]
    s, g, w = scores[order], codes[order], weights[order]
    new_block = np.ones(len(s), dtype=bool)
    new_block[1:] = (g[1:] != g[:-1]) | (s[1:] != s[:-1])
    starts = np.flatnonzero(new_block)
    block_score, block_group = s[starts], g[starts]
    block_weight = np.add.reduceat(w, starts)
    block_cost = _costs(constraint, block_score, block_weight)
    block_gain = block_weight * (2.0 * block_score - 1.0) / w.sum()
    bounds = np.searchsorted(block_group, np.arange(len(groups) + 1))
    return [_curve(block_score[lo:hi], block_weight[lo:hi], block_cost[lo:hi],
                   block_gain[lo:hi], groups[a], constraint)
            for a, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:], strict=True))]


def _curve(score, weight, cost, gain, group, constraint):
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
        x=x, y=y, scores=score[positive], weights=weight[positive],
        above=score[on].max() if on.any() else np.inf,
        below=score[off].max() if off.any() else -np.inf,
        on_weight=weight[on].sum(),
        peak=int(np.argmax(y)),
    )


def position(curve, rate):
    """Locate ``rate`` on the curve: ``(k, phi)``, the first ``k`` blocks plus a share ``phi`` of block ``k``.

    A share within :data:`SNAP` of 0 or 1 is rounded, so that rates computed with
    rounding errors land on the knot they stand for.
    """
    m = len(curve.scores)
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


def rule(curve, k, phi):
    """The threshold rule of the position ``(k, phi)``: ``(threshold, probability at the threshold)``.

    With a share ``0 < phi < 1`` the threshold is the score of block ``k``, predicted 1
    with probability ``phi``. Without one, the rule is deterministic: the threshold lies
    midway between the last block predicted 1 and the first predicted 0 (``±inf`` at
    the ends), with probability 0 at the threshold itself.
    """
    if phi > 0.0:
        return float(curve.scores[k]), phi
    last_in = curve.scores[k - 1] if k > 0 else curve.above
    first_out = curve.scores[k] if k < len(curve.scores) else curve.below
    if np.isinf(last_in) or np.isinf(first_out):  # nothing predicted 1, or everything
        return float(last_in if np.isinf(last_in) else first_out), 0.0
    return float((last_in + first_out) / 2.0), 0.0
