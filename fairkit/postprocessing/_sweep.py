"""Exact sweeps over the group gain curves: the randomized and the deterministic fair rule.

Both maximize ``Σ_a G_a(r_a)`` subject to ``max_a r_a − min_a r_a ≤ δ``, which holds
exactly when every rate lies in a window ``[L, L + δ]`` with ``0 ≤ L ≤ 1 − δ``.

* Randomized: rates anywhere on the curves. For a fixed window each group takes the
  point of its concave curve nearest its unconstrained peak, so the window's value
  ``F(L) = Σ_a G_a(clip(peak_a, L, L + δ))`` is concave in ``L`` and piecewise linear
  with kinks where ``L`` (past a group's peak) or ``L + δ`` (before it) meets one of
  its knots. A binary search over those kinks finds the best window in
  O(K log² n) after sorting them; at every kink one group sits on a knot at the
  window's edge, so at most K − 1 groups randomize (a vertex of the LP), even
  where ``F`` is flat.
* Deterministic: rates only at knots (whole blocks). The lowest rate of an optimal
  rule is a knot, so trying every knot as ``L`` and, per group, the knot in the
  window nearest its peak is exact for any number of groups, in O(K n log n).
"""

import numpy as np

from fairkit.postprocessing._curves import position

__all__ = ["best_deterministic", "best_randomized"]

#: Rates closer than this count as equal (they are rounded floats): window candidates, and the
#: deterministic rule's window.
RATE_SLACK = 1e-12


def _window_candidates(curves, delta):
    """Window positions where one group's rate is a knot on the window's edge, and both ends.

    Up to its peak a group sits at the window's right end (``L = knot − δ``), past it
    at the left end (``L = knot``); these are all the kinks of ``F``.
    """
    top = max(0.0, 1.0 - delta)
    edges = np.concatenate([np.concatenate([c.x[:c.peak + 1] - delta, c.x[c.peak:]]) for c in curves]
                           + [[0.0, top]])
    edges = np.unique(edges[(edges >= 0.0) & (edges <= top)])
    # one rate reached by two groups' knots may differ by a rounding error: F is equal at both, which
    # the search would read as F no longer rising, so such near-copies are one candidate
    return edges[np.diff(edges, prepend=-np.inf) > RATE_SLACK]


def _window_value(curves, L, delta):
    return sum(np.interp(np.clip(c.x[c.peak], L, L + delta), c.x, c.y) for c in curves)


def best_randomized(curves, delta):
    """Best randomized rule: one position ``(k, phi)`` per group, at most K − 1 of them with ``phi > 0``.

    Parameters
    ----------
    curves : list of GroupCurve
    delta : float
        Largest allowed difference between two groups' rates.

    Returns
    -------
    positions : list of (int, float)
    """
    if delta >= 1.0 or len(curves) == 1:
        return [(c.peak, 0.0) for c in curves]
    candidates = _window_candidates(curves, delta)
    lo, hi = 0, len(candidates) - 1
    while lo < hi:  # first candidate after which F stops increasing (F is concave)
        mid = (lo + hi) // 2
        if _window_value(curves, candidates[mid + 1], delta) > _window_value(curves, candidates[mid], delta):
            lo = mid + 1
        else:
            hi = mid
    L = candidates[lo]
    return [position(c, _rate_in_window(c, L, delta)) for c in curves]


def _rate_in_window(curve, L, delta):
    """The group's best rate in ``[L, L + delta]``, on a knot whenever one is among the best."""
    peak = curve.x[curve.peak]
    if L <= peak <= L + delta:
        return peak
    if peak > L + delta:
        return L + delta
    # Right of the peak the curve is flat (blocks of score 1/2) and then decreasing: take
    # the last knot still at the peak's gain inside the window, else the window's left end.
    flat_end = curve.peak + int(np.sum(curve.y[curve.peak + 1:] == curve.y[curve.peak]))
    if L <= curve.x[flat_end] <= L + delta:
        return curve.x[flat_end]
    return L


def best_deterministic(curves, delta):
    """Best deterministic rule: one knot per group, the rates at most ``delta`` apart.

    Returns
    -------
    positions : list of (int, float)
        ``(k, 0.0)`` per group.
    """
    if delta >= 1.0 or len(curves) == 1:
        return [(c.peak, 0.0) for c in curves]
    candidates = np.unique(np.concatenate([c.x for c in curves]))
    total = np.zeros(len(candidates))
    choices = []
    for c in curves:
        first = np.searchsorted(c.x, candidates - RATE_SLACK, side="left")
        last = np.searchsorted(c.x, candidates + delta + RATE_SLACK, side="right") - 1
        best = np.clip(c.peak, first, np.maximum(last, first))
        total += np.where(first <= last, c.y[np.minimum(best, len(c.x) - 1)], -np.inf)
        choices.append(best)
    i = int(np.argmax(total))
    return [(int(best[i]), 0.0) for best in choices]
