"""Synthetic preference profiles: judges rank or rate items around a central ranking (Mallows)."""

import numbers

import numpy as np

from fairkit.utils._random import local_random_state

__all__ = ["make_preference_profiles"]


def _insertion_offsets(shape, dispersion, rng):
    """Draw V[:, k] on {0, ..., k} with P(V = v) proportional to dispersion**v."""
    n_judges, n_items = shape
    uniform = rng.random_sample(shape)
    top = np.arange(n_items)
    if dispersion == 0:
        return np.zeros(shape, dtype=np.int64)
    if dispersion == 1:
        return np.floor(uniform * (top + 1)).astype(np.int64)
    # Inverse CDF: the smallest v with 1 - dispersion**(v + 1) >= u * (1 - dispersion**(k + 1)).
    remaining = 1 - uniform * (1 - dispersion ** (top + 1))
    offsets = np.ceil(np.log(remaining) / np.log(dispersion)) - 1
    return np.clip(offsets, 0, top).astype(np.int64)


def make_preference_profiles(n_judges=100, n_items=10, *, kind="ranks", dispersion=0.5,
                             missing_rate=0.0, n_levels=5, random_state=None):
    """Generate judges' rankings or ratings of items from a Mallows model.

    Each judge's ranking is drawn from the Mallows model around a random central
    ranking: the probability of a ranking is proportional to
    ``dispersion ** d``, where ``d`` is its Kendall distance (number of swapped pairs)
    to the center. Rankings are drawn by the repeated-insertion model, vectorized
    over judges: the k-th item of the center is inserted ``v`` places above the
    bottom of the k items placed before it with probability proportional to
    ``dispersion ** v``.

    Parameters
    ----------
    n_judges : int, default=100
        Number of judges (rows).
    n_items : int, default=10
        Number of items (columns).
    kind : {"ranks", "ratings"}, default="ranks"
        ``"ranks"``: each row holds ranks 1..n_items (smaller is better).
        ``"ratings"``: each row holds ratings 1..n_levels (larger is better),
        the ranking cut into ``n_levels`` equal bands, so judges tie items.
    dispersion : float in [0, 1], default=0.5
        0 gives every judge the central ranking; 1 gives uniformly random rankings.
    missing_rate : float in [0, 1), default=0.0
        Probability that a judge leaves an item unranked (NaN), independently.
    n_levels : int, default=5
        Number of rating levels when ``kind="ratings"``.
    random_state : int, RandomState instance or None, default=None
        Seeds the center and the judges' rankings.

    Returns
    -------
    X : ndarray of shape (n_judges, n_items)
        The profile (float, NaN for missing entries).
    center : ndarray of shape (n_items,)
        Position of each item in the central ranking (0 = best).

    Examples
    --------
    >>> from fairkit.datasets import make_preference_profiles
    >>> X, center = make_preference_profiles(4, 5, dispersion=0.0, random_state=0)
    >>> bool((X == center + 1).all())
    True
    """
    for name, value in (("n_judges", n_judges), ("n_items", n_items), ("n_levels", n_levels)):
        if not isinstance(value, numbers.Integral) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}.")
    if kind not in ("ranks", "ratings"):
        raise ValueError(f"kind must be 'ranks' or 'ratings', got {kind!r}.")
    if not 0 <= dispersion <= 1:
        raise ValueError(f"dispersion must be in [0, 1], got {dispersion!r}.")
    if not 0 <= missing_rate < 1:
        raise ValueError(f"missing_rate must be in [0, 1), got {missing_rate!r}.")
    rng = local_random_state(random_state)
    center_order = rng.permutation(n_items)  # items from best to worst
    dtype = np.int16 if n_items < np.iinfo(np.int16).max else np.int64
    insert_at = (np.arange(n_items) - _insertion_offsets((n_judges, n_items), dispersion, rng))
    insert_at = insert_at.astype(dtype)
    # positions[:, k]: current place of the k-th center item among those inserted so far.
    positions = np.empty((n_judges, n_items), dtype=dtype)
    for k in range(n_items):
        slot = insert_at[:, k : k + 1]
        positions[:, :k] += positions[:, :k] >= slot
        positions[:, k] = slot[:, 0]
    ranks = np.empty((n_judges, n_items), dtype=np.float64)
    ranks[:, center_order] = positions
    center = np.empty(n_items, dtype=np.int64)
    center[center_order] = np.arange(n_items)
    X = ranks + 1 if kind == "ranks" else n_levels - np.floor(ranks * n_levels / n_items)
    X[rng.random_sample(X.shape) < missing_rate] = np.nan
    return X, center
