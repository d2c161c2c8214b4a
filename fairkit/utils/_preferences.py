"""Pairwise preference counts: how many judges prefer item i to item j, tie them, or say nothing.

The counts are the sufficient statistic of every ranking method and ranking metric in
fairkit: :mod:`fairkit.ranking` builds its rankings from them and :mod:`fairkit.metrics`
scores rankings against them, so they live here, below both. A profile of
``n_judges`` judges over ``n_items`` items is counted block by block of judges, with
vectorized comparisons: time O(n_judges n_items²), memory O(n_items²) beyond the
profile itself. Profiles are validated in one place, :func:`check_profile`; rankings
are built only from counts that say something about every item (:func:`ranking_counts`).
"""

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fairkit.utils._random import local_random_state
from fairkit.utils.validation import check_numbers

__all__ = [
    "INPUT_TYPES",
    "PairwiseCounts",
    "as_counts",
    "check_profile",
    "pairwise_counts",
    "profile_counts",
    "ranking_counts",
    "strict_preferences",
]

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
        seed = local_random_state(random_state).randint(np.iinfo(np.int32).max)
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


def _dense_codes(values, observed):
    """Small integer codes of the observed ``values`` in the same order (equal values, equal codes).

    Integer values that fit in int16 (ranks 1 to n, integer ratings) are their own codes;
    others are recoded by their position among the distinct values.
    """
    limit = np.iinfo(np.int16).max - 1  # the extremes are left for the missing values
    seen = values[observed]
    if seen.size == 0 or (np.abs(seen).max() <= limit and np.array_equal(seen, np.rint(seen))):
        return np.where(observed, values, 0).astype(np.int16)
    distinct, codes = np.unique(seen, return_inverse=True)
    dtype = np.int16 if len(distinct) <= limit else np.int32
    out = np.zeros(values.shape, dtype=dtype)
    out[observed] = codes.reshape(-1)
    return out


def _is_row(value):
    """A sequence of values (list, tuple, array, Series), not a string or a scalar."""
    return (hasattr(value, "__len__") and not isinstance(value, str | bytes | dict)
            and getattr(value, "ndim", 1) > 0)


def _row_lengths(rows):
    """Lengths of the rows of a nested list, tuple or 1-D object array; None for anything else."""
    nested = isinstance(rows, list | tuple) or (
        isinstance(rows, np.ndarray) and rows.dtype == object and rows.ndim == 1)
    if not nested or not any(_is_row(row) for row in rows):
        return None
    return [len(row) if _is_row(row) else 1 for row in rows]


def _check_not_ragged(rows, name, fix):
    """Refuse rows of different lengths, which pandas and numpy would pad or reject obscurely."""
    lengths = _row_lengths(rows)
    if lengths is not None and len(set(lengths)) > 1:
        other = next(row for row, length in enumerate(lengths) if length != lengths[0])
        raise ValueError(f"{name} is ragged: its rows have different lengths (row 0 has "
                         f"{lengths[0]} values, row {other} has {lengths[other]}). {fix}")


def check_profile(X, *, estimator=None):
    """Validate a preference profile ``X`` and return it as a float array (NaN = missing).

    The one validation of profiles in fairkit: every function and estimator that
    takes a profile calls it. A judge who skips items (NaN), or even all of them, is
    legitimate; a profile without a single rank or rating is not.

    Parameters
    ----------
    X : array-like of shape (n_judges, n_items)
        One row per judge, one column per item; NaN marks an item the judge skipped.
    estimator : estimator instance, default=None
        Named in scikit-learn's messages (too few judges or items).

    Returns
    -------
    X : ndarray of shape (n_judges, n_items), dtype float64

    Raises
    ------
    ValueError
        If the rows of ``X`` have different lengths, ``X`` is not a non-empty 2-D
        array of numbers (a string is named as such), holds infinity, or every value is NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit.utils._preferences import check_profile
    >>> check_profile([[1, 2, np.nan], [2, 1, 3]]).shape
    (2, 3)
    >>> check_profile([[1, 2, 3], [2, 1]])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: The preference profile X is ragged: its rows have different lengths (row 0 ...
    """
    _check_not_ragged(X, "The preference profile X",
                      "Give every judge one value per item (a column per item), with NaN "
                      "(np.nan) for the items the judge did not rank or rate.")
    X = check_numbers(X, input_name="X", ensure_all_finite="allow-nan", estimator=estimator,
                      expected="ranks and ratings must be numbers, one column per item, with NaN "
                               "(np.nan) for an item a judge skipped. A judge's list of item names in "
                               "order of preference becomes each item's position (1 for the first).")
    if np.isnan(X).all():
        raise ValueError(f"The preference profile X holds no preferences: all its {X.size} values "
                         "are NaN (missing). Pass the judges' ranks or ratings, one row per judge "
                         "and one column per item; NaN marks only the items a judge skipped.")
    return X


def strict_preferences(X, input_type="ranks"):
    """Yield the strict pairwise preferences of a profile, block of judges by block.

    Parameters
    ----------
    X : ndarray of shape (n_judges, n_items)
        A profile validated by :func:`check_profile`.
    input_type : {"ranks", "ratings"}, default="ranks"
        How ``X`` encodes preferences.

    Yields
    ------
    observed : ndarray of shape (n_block, n_items)
        Which items each judge of the block ranks or rates.
    prefers : ndarray of shape (n_block, n_items, n_items)
        ``prefers[b, i, j]`` is True when judge ``b`` strictly prefers item ``i`` to
        item ``j``. The array is reused for the next block: read it before asking for it.
    """
    _check_input_type(input_type)
    n_judges, n_items = X.shape
    block = int(np.clip(_BLOCK_ELEMENTS // n_items**2, 1, np.iinfo(np.uint8).max))
    buffer = np.empty((block, n_items, n_items), dtype=bool)
    for start in range(0, n_judges, block):
        rows = X[start:start + block]
        observed = ~np.isnan(rows)
        codes = _dense_codes(-rows if input_type == "ratings" else rows, observed)
        # "better" is a smaller code. A missing value must lose every comparison on
        # both sides of ``better[:, i] < worse[:, j]``: the largest code on the left,
        # the smallest on the right.
        better, worse = codes, codes.copy()
        better[~observed] = np.iinfo(codes.dtype).max
        worse[~observed] = np.iinfo(codes.dtype).min
        prefers = buffer[: len(rows)]
        np.less(better[:, :, None], worse[:, None, :], out=prefers)
        yield observed, prefers


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

    Raises
    ------
    ValueError
        If ``X`` is not a valid profile (see :func:`check_profile`).

    Examples
    --------
    >>> from fairkit.utils._preferences import profile_counts
    >>> profile_counts([[5.0, 3.0], [1.0, 1.0]], input_type="ratings").wins.tolist()
    [[0, 1], [0, 0]]
    """
    _check_input_type(input_type)
    names = np.asarray(X.columns, dtype=object) if isinstance(X, pd.DataFrame) else None
    X = check_profile(X)
    n_judges, n_items = X.shape
    wins = np.zeros((n_items, n_items), dtype=np.int64)
    both = np.zeros((n_items, n_items), dtype=np.int64)  # judges who rank both items
    for observed, prefers in strict_preferences(X, input_type):
        wins += np.add.reduce(prefers.view(np.uint8), axis=0, dtype=np.uint8)
        if observed.all():
            both += len(observed)
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
        If there are no records, records have different lengths, a row is malformed,
        names an unknown item or compares an item with itself, a preference is not
        -1, 0, 1 or NaN, every preference is NaN, or a judge answers a pair twice.

    Examples
    --------
    >>> from fairkit.ranking import pairwise_counts
    >>> counts = pairwise_counts([["ann", 0, 1, 1], ["bob", 1, 0, 1], ["bob", 0, 2, 0]], n_items=3)
    >>> counts.wins.tolist(), counts.n_judges
    ([[0, 1, 0], [1, 0, 0], [0, 0, 0]], 2)
    """
    if not isinstance(n_items, numbers.Integral) or n_items < 1:
        raise ValueError(f"n_items must be a positive integer, got {n_items!r}.")
    _check_not_ragged(comparisons, "comparisons",
                      "Give every record 4 values (judge, item_i, item_j, preference), with NaN "
                      "as the preference of a pair the judge did not answer.")
    frame = pd.DataFrame(comparisons)
    if frame.empty:
        raise ValueError("comparisons holds no records: pass one row (judge, item_i, item_j, "
                         "preference) per answer of a judge on a pair of items.")
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
    if not answered.any():
        raise ValueError(f"comparisons holds no preferences: the preference (4th value) of all "
                         f"its {len(prefs)} records is NaN (no answer). Give 1, -1 or 0 for the "
                         "pairs the judges answered.")
    low, high = np.minimum(first, second), np.maximum(first, second)
    keys = (judges.astype(np.int64) * n_items + low) * n_items + high
    if np.unique(keys).size < keys.size:
        raise ValueError("some judge answers the same pair of items twice.")
    n_seen = int(judges.max()) + 1
    n_judges = n_seen if n_judges is None else n_judges
    if not isinstance(n_judges, numbers.Integral) or n_judges < n_seen:
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


def ranking_counts(X, input_type="ranks"):
    """The counts of ``X`` for building a ranking, which must say something about every item.

    An item that no judge compares with another item (a column of NaN, or one ranked
    only by judges who rank nothing else) cannot be placed by any ranking rule: Borda
    would put it last, a selective ranking in an arbitrary tier. Scoring a ranking
    against such judges is fine (:func:`as_counts`).

    Parameters
    ----------
    X : array-like of shape (n_judges, n_items) or PairwiseCounts
        A profile (validated by :func:`check_profile`) or pairwise counts.
    input_type : {"ranks", "ratings"}, default="ranks"
        How a profile encodes preferences.

    Returns
    -------
    counts : PairwiseCounts

    Raises
    ------
    ValueError
        If ``X`` is not a valid profile, or some item has no answer on any pair.
    """
    counts = as_counts(X, input_type)
    answered = (counts.wins + counts.wins.T + counts.ties).any(axis=1)
    if counts.n_items > 1 and not answered.all():
        unanswered = np.flatnonzero(~answered)
        names = unanswered if counts.item_names is None else counts.item_names[unanswered]
        shown = ", ".join(map(str, names[:5])) + (", ..." if len(names) > 5 else "")
        raise ValueError(f"X gives no preference about {len(names)} of its {counts.n_items} items "
                         f"({shown}): no judge compares them with another item (a column of NaN, "
                         "or judges who rank nothing else), so no ranking can place them. Drop "
                         "these items from X, or add answers about them.")
    return counts
