"""Pairwise preference counts: how many judges prefer item i to item j, tie them, or say nothing.

The counts are the sufficient statistic of every ranking method and ranking metric in
fairkit: :mod:`fairkit.ranking` builds its rankings from them and :mod:`fairkit.metrics`
scores rankings against them, so they live here, below both. A profile of
``n_judges`` judges over ``n_items`` items is counted block by block of judges, with
vectorized comparisons: time O(n_judges n_items²), memory O(n_items²) beyond the
profile itself.
"""

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.utils import check_array, check_random_state

__all__ = ["INPUT_TYPES", "PairwiseCounts", "as_counts", "pairwise_counts", "profile_counts"]

#: How a profile encodes preferences: ranks (smaller is better) or ratings (larger is better).
INPUT_TYPES = ("ranks", "ratings")

# Comparisons computed at once: about 16 MB of booleans, whatever the number of items.
_BLOCK_ELEMENTS = 1 << 24


@dataclass(frozen=True, eq=False)
class PairwiseCounts:
    """Pairwise preference counts of ``n_judges`` judges over ``n_items`` items.

    Every judge gives each pair of items one answer: a strict preference, a tie,
    or nothing (missing). Build it with :func:`profile_counts` (rankings or ratings)
    or :func:`pairwise_counts` (pairwise comparisons).

    Parameters
    ----------
    wins : ndarray of shape (n_items, n_items)
        ``wins[i, j]`` is the number of judges who strictly prefer item ``i`` to item ``j``.
    ties : ndarray of shape (n_items, n_items)
        ``ties[i, j]`` is the number of judges who rate ``i`` and ``j`` equal (symmetric).
    n_judges : int
        The number of judges; those who say nothing about a pair count as missing for it.
    item_names : ndarray of shape (n_items,), default=None
        Names of the items, if known.

    Examples
    --------
    >>> from fairkit.utils._preferences import profile_counts
    >>> counts = profile_counts([[1, 2, 2], [2, 1, 3]])
    >>> counts.wins.tolist(), counts.ties[1, 2].item()
    ([[0, 1, 2], [1, 0, 1], [0, 0, 0]], 1)
    """

    wins: np.ndarray
    ties: np.ndarray
    n_judges: int
    item_names: np.ndarray | None = None

    def __post_init__(self):
        wins = np.asarray(self.wins)
        ties = np.asarray(self.ties)
        if wins.ndim != 2 or wins.shape[0] != wins.shape[1] or ties.shape != wins.shape:
            raise ValueError(f"wins and ties must be square matrices of the same shape, got "
                             f"{wins.shape} and {ties.shape}.")
        for name, values in (("wins", wins), ("ties", ties)):
            if not np.issubdtype(values.dtype, np.integer) or (values < 0).any():
                raise ValueError(f"{name} must hold non-negative integer counts.")
            if values.diagonal().any():
                raise ValueError(f"{name} must have a zero diagonal.")
        if not np.array_equal(ties, ties.T):
            raise ValueError("ties must be symmetric.")
        if not isinstance(self.n_judges, numbers.Integral) or self.n_judges < 1:
            raise ValueError(f"n_judges must be a positive integer, got {self.n_judges!r}.")
        if (wins + wins.T + ties > self.n_judges).any():
            raise ValueError(f"A pair of items has more answers than the {self.n_judges} judges.")
        if self.item_names is not None and len(self.item_names) != wins.shape[0]:
            raise ValueError(f"item_names has {len(self.item_names)} names for "
                             f"{wins.shape[0]} items.")
        object.__setattr__(self, "wins", wins.astype(np.int64, copy=False))
        object.__setattr__(self, "ties", ties.astype(np.int64, copy=False))
        object.__setattr__(self, "n_judges", int(self.n_judges))

    @property
    def n_items(self):
        """Number of items."""
        return self.wins.shape[0]

    @property
    def missing(self):
        """``missing[i, j]``: number of judges who give no answer on the pair (i, j)."""
        missing = self.n_judges - self.wins - self.wins.T - self.ties
        np.fill_diagonal(missing, 0)
        return missing

    def support(self, missing="ignore"):
        """Number of judges who do not strictly prefer j to i, for every pair (i, j).

        Parameters
        ----------
        missing : {"ignore", "dissent"}, default="ignore"
            ``"dissent"`` counts a judge who says nothing about a pair as not
            preferring either item; ``"ignore"`` does not count them.

        Returns
        -------
        support : ndarray of shape (n_items, n_items)
            ``wins + ties`` (plus ``missing``), with a zero diagonal.
        """
        if missing not in ("ignore", "dissent"):
            raise ValueError(f"missing must be 'ignore' or 'dissent', got {missing!r}.")
        support = self.wins + self.ties
        return support + self.missing if missing == "dissent" else support

    def subsample(self, fraction, random_state=None):
        """Keep a random ``fraction`` of the preference records, drawn without replacement.

        A record is one judge's answer (strict preference or tie) on one pair of items;
        dropped records become missing. The kept counts are drawn at once from their
        multivariate hypergeometric distribution, which is exactly the distribution of
        the counts of ``int(fraction * n_records)`` records sampled without replacement.

        Parameters
        ----------
        fraction : float in (0, 1]
            The fraction of records to keep.
        random_state : int, RandomState instance or None, default=None
            Seeds the draw.

        Returns
        -------
        counts : PairwiseCounts
            Same judges and items, fewer records.
        """
        if not 0 < fraction <= 1:
            raise ValueError(f"fraction must be in (0, 1], got {fraction!r}.")
        rows, cols = np.triu_indices(self.n_items, 1)
        records = np.stack([self.wins[rows, cols], self.wins[cols, rows], self.ties[rows, cols]],
                           axis=1)
        n_keep = int(fraction * records.sum())
        seed = check_random_state(random_state).randint(np.iinfo(np.int32).max)
        kept = np.random.default_rng(seed).multivariate_hypergeometric(
            records.ravel(), n_keep, method="marginals").reshape(-1, 3)
        wins = np.zeros_like(self.wins)
        ties = np.zeros_like(self.ties)
        wins[rows, cols], wins[cols, rows], ties[rows, cols] = kept.T
        ties[cols, rows] = ties[rows, cols]
        return PairwiseCounts(wins, ties, self.n_judges, self.item_names)


def _check_input_type(input_type):
    if input_type not in INPUT_TYPES:
        raise ValueError(f"input_type must be one of {INPUT_TYPES}, got {input_type!r}.")


def _dense_codes(values):
    """Order-preserving small integer codes of ``values`` (equal values, equal codes)."""
    distinct, codes = np.unique(values, return_inverse=True)
    dtype = np.int16 if len(distinct) < np.iinfo(np.int16).max - 1 else np.int32
    return codes.reshape(values.shape).astype(dtype)


def profile_counts(X, input_type="ranks"):
    """Count the pairwise preferences of a profile of rankings or ratings.

    Parameters
    ----------
    X : array-like of shape (n_judges, n_items)
        One row per judge: ranks (smaller is better) or ratings (larger is
        better); NaN marks an item the judge did not rank or rate. Equal values are ties.
        The item names are taken from DataFrame columns.
    input_type : {"ranks", "ratings"}, default="ranks"
        How ``X`` encodes preferences.

    Returns
    -------
    counts : PairwiseCounts

    Examples
    --------
    >>> from fairkit.utils._preferences import profile_counts
    >>> profile_counts([[5.0, 3.0], [1.0, 1.0]], input_type="ratings").wins.tolist()
    [[0, 1], [0, 0]]
    """
    _check_input_type(input_type)
    names = np.asarray(X.columns, dtype=object) if isinstance(X, pd.DataFrame) else None
    X = check_array(X, dtype=np.float64, ensure_all_finite="allow-nan")
    n_judges, n_items = X.shape
    block = int(np.clip(_BLOCK_ELEMENTS // n_items**2, 1, np.iinfo(np.uint8).max))
    buffer = np.empty((block, n_items, n_items), dtype=bool)
    wins = np.zeros((n_items, n_items), dtype=np.int64)
    both = np.zeros((n_items, n_items), dtype=np.int64)  # judges who rank both items
    for start in range(0, n_judges, block):
        rows = X[start:start + block]
        observed = ~np.isnan(rows)
        codes = _dense_codes(-rows if input_type == "ratings" else rows)
        # "better" is a smaller code. A missing value must lose every comparison on
        # both sides of ``better[:, i] < worse[:, j]``: the largest code on the left,
        # the smallest on the right.
        better, worse = codes, codes.copy()
        better[~observed] = np.iinfo(codes.dtype).max
        worse[~observed] = -1
        out = buffer[: len(rows)]
        np.less(better[:, :, None], worse[:, None, :], out=out)
        wins += np.add.reduce(out.view(np.uint8), axis=0, dtype=np.uint8)
        if observed.all():
            both += len(rows)
        else:
            ones = observed.astype(np.float64)
            both += np.rint(ones.T @ ones).astype(np.int64)
    ties = both - wins - wins.T
    np.fill_diagonal(ties, 0)
    return PairwiseCounts(wins, ties, n_judges, names)


def pairwise_counts(comparisons, n_items, n_judges=None):
    """Count pairwise comparisons given as records ``(judge, item_i, item_j, preference)``.

    Parameters
    ----------
    comparisons : array-like of shape (n_records, 4)
        One row per answer of one judge on one pair: the judge (any label), the two
        item indices in ``[0, n_items)``, and the preference: ``1`` if the judge
        prefers ``item_i``, ``-1`` if ``item_j``, ``0`` for a tie, NaN for no answer.
        A judge answers each pair at most once; pairs a judge does not answer are missing.
    n_items : int
        The number of items.
    n_judges : int, default=None
        The number of judges; defaults to the number of distinct judge labels.
        Give it when some judges answered nothing.

    Returns
    -------
    counts : PairwiseCounts

    Raises
    ------
    ValueError
        If a row is malformed, names an unknown item or compares an item with itself,
        a preference is not -1, 0, 1 or NaN, or a judge answers a pair twice.

    Examples
    --------
    >>> from fairkit.ranking import pairwise_counts
    >>> counts = pairwise_counts([["ann", 0, 1, 1], ["bob", 1, 0, 1], ["bob", 0, 2, 0]], n_items=3)
    >>> counts.wins.tolist(), counts.n_judges
    ([[0, 1, 0], [1, 0, 0], [0, 0, 0]], 2)
    """
    if not isinstance(n_items, numbers.Integral) or n_items < 1:
        raise ValueError(f"n_items must be a positive integer, got {n_items!r}.")
    frame = pd.DataFrame(comparisons)
    if frame.size == 0:
        frame = pd.DataFrame(np.empty((0, 4)))
    if frame.shape[1] != 4:
        raise ValueError("comparisons must have 4 columns (judge, item_i, item_j, preference), "
                         f"got shape {frame.shape}.")
    judges = pd.factorize(frame.iloc[:, 0])[0]
    if (judges < 0).any():
        raise ValueError("comparisons has records without a judge (a missing judge label).")
    items = frame.iloc[:, 1:3].to_numpy(dtype=np.float64)
    prefs = frame.iloc[:, 3].to_numpy(dtype=np.float64)
    if not (np.isfinite(items).all() and (items == np.round(items)).all()
            and ((items >= 0) & (items < n_items)).all()):
        raise ValueError(f"item indices must be integers in [0, {n_items}).")
    first, second = items.astype(np.int64).T
    if (first == second).any():
        raise ValueError("comparisons compares an item with itself.")
    answered = ~np.isnan(prefs)
    if not np.isin(prefs[answered], (-1, 0, 1)).all():
        raise ValueError("preferences must be 1 (item_i preferred), -1 (item_j preferred), "
                         "0 (tie) or NaN.")
    low, high = np.minimum(first, second), np.maximum(first, second)
    keys = (judges.astype(np.int64) * n_items + low) * n_items + high
    if np.unique(keys).size < keys.size:
        raise ValueError("some judge answers the same pair of items twice.")
    n_seen = int(judges.max()) + 1 if len(judges) else 0
    n_judges = n_seen if n_judges is None else n_judges
    if not isinstance(n_judges, numbers.Integral) or n_judges < max(n_seen, 1):
        raise ValueError(f"n_judges={n_judges!r} is fewer than the {n_seen} judges in comparisons "
                         "(or not a positive integer).")
    size = n_items * n_items
    winner = np.where(prefs == 1, first, second)
    loser = np.where(prefs == 1, second, first)
    strict = answered & (prefs != 0)
    tied = answered & (prefs == 0)
    wins = np.bincount(winner[strict] * n_items + loser[strict], minlength=size)
    ties = np.bincount(first[tied] * n_items + second[tied], minlength=size).reshape(n_items, -1)
    return PairwiseCounts(wins.reshape(n_items, -1), ties + ties.T, n_judges)


def as_counts(X, input_type="ranks"):
    """Return ``X`` if it is already a :class:`PairwiseCounts`, else count the profile ``X``."""
    return X if isinstance(X, PairwiseCounts) else profile_counts(X, input_type)
