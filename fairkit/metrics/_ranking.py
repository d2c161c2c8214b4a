"""Metrics of rankings that may abstain: abstention, disagreement with the judges, and stability.

A ranking is given as ``tier_of_item``: one integer per item, smaller is better, and
items with equal values are not compared (abstention). Definitions follow Kadekodi,
McTavish & Ustun, "Selective Preference Aggregation" (ICML 2025).
"""

import inspect
import numbers

import numpy as np
from sklearn.base import clone
from sklearn.utils import check_scalar

from fairkit.utils._preferences import as_counts
from fairkit.utils._random import local_random_state

__all__ = ["abstention_rate", "disagreement_rate", "ranking_stability"]


def _check_ranking(ranking, n_items=None):
    ranking = np.asarray(ranking)
    numeric = np.issubdtype(ranking.dtype, np.number)
    if ranking.ndim != 1 or not numeric or not np.isfinite(ranking).all():
        raise ValueError("ranking must be a 1-D array of finite numbers, one tier per item "
                         f"(smaller is better), got an array of shape {ranking.shape}.")
    if len(ranking) < 2:
        raise ValueError("ranking must rank at least 2 items.")
    if n_items is not None and len(ranking) != n_items:
        raise ValueError(f"ranking has {len(ranking)} items but the preferences have {n_items}.")
    return ranking


def _n_pairs(n_items):
    return n_items * (n_items - 1) / 2


def _order_signs(ranking):
    """``sign[i, j]``: +1 if item i is ranked above item j, -1 if below, 0 if tied."""
    return np.sign(ranking[None, :] - ranking[:, None])


def abstention_rate(ranking):
    """Fraction of pairs of items that the ranking does not compare (same tier).

    Parameters
    ----------
    ranking : array-like of shape (n_items,)
        Tier of each item (smaller is better; equal values are not compared).

    Returns
    -------
    rate : float in [0, 1]

    Examples
    --------
    >>> from fairkit.metrics import abstention_rate
    >>> abstention_rate([0, 0, 1, 2])  # one pair of six in the same tier
    0.16666666666666666
    """
    ranking = _check_ranking(ranking)
    sizes = np.unique(ranking, return_counts=True)[1]
    return float((sizes * (sizes - 1) / 2).sum() / _n_pairs(len(ranking)))


def disagreement_rate(X, ranking, *, input_type="ranks"):
    """Fraction of (judge, pair) answers that the ranking reverses.

    A judge disagrees with the ranking on a pair when the ranking places one item
    above the other and the judge strictly prefers the other. The rate divides the
    number of disagreements by ``n_judges * n_items * (n_items - 1) / 2``.

    Parameters
    ----------
    X : array-like of shape (n_judges, n_items) or PairwiseCounts
        Judges' ranks or ratings (NaN = missing), or pairwise counts.
    ranking : array-like of shape (n_items,)
        Tier of each item (smaller is better; equal values are not compared).
    input_type : {"ranks", "ratings"}, default="ranks"
        How ``X`` encodes preferences (ranks: smaller is better).

    Returns
    -------
    rate : float in [0, 1]

    Examples
    --------
    >>> from fairkit.metrics import disagreement_rate
    >>> X = [[1, 2, 3], [2, 1, 3]]  # 2 judges, 3 pairs each
    >>> disagreement_rate(X, [0, 1, 2]), disagreement_rate(X, [0, 0, 1])
    (0.16666666666666666, 0.0)
    """
    counts = as_counts(X, input_type)
    ranking = _check_ranking(ranking, counts.n_items)
    above = _order_signs(ranking) == 1
    return float(counts.wins.T[above].sum() / (_n_pairs(counts.n_items) * counts.n_judges))


def _check_fit_takes_no_y(estimator):
    """Refuse, before any fit, an estimator whose ``fit`` needs ``y``: it learns no ranking of X."""
    fit = getattr(estimator, "fit", None)
    if not callable(fit):
        raise TypeError(f"ranking_stability needs a ranker (an estimator with fit), such as "
                        f"fairkit.ranking.SelectiveRanker; got {estimator!r}.")
    y = inspect.signature(fit).parameters.get("y")
    if y is not None and y.default is inspect.Parameter.empty:
        raise TypeError(f"ranking_stability needs a ranker, such as fairkit.ranking.SelectiveRanker, "
                        f"whose fit takes the judges' preferences X alone; {type(estimator).__name__}."
                        "fit needs y: it learns a prediction, not a ranking of X's items.")


def ranking_stability(estimator, X, n_resamples=100, fraction=0.9, random_state=None):
    """How much a ranking changes when a random part of the judges' answers is dropped.

    The estimator is fitted on ``X``, then on ``n_resamples`` subsamples that each
    keep ``int(fraction * n_records)`` of the preference records (one judge's answer
    on one pair), drawn without replacement; dropped records become missing. Each
    subsample's ranking is compared with the full one, pair by pair, and the counts
    are divided by the number of pairs:

    * inversions: pairs ordered in both rankings, in opposite directions;
    * abstentions: pairs ordered in the full ranking that the subsample's does not compare;
    * specifications: pairs the full ranking does not compare that the subsample's orders.

    Parameters
    ----------
    estimator : estimator
        An estimator whose ``fit`` takes ``X`` and :class:`~fairkit.ranking.PairwiseCounts`,
        and that exposes ``counts_`` and ``tier_of_item_`` once fitted, such as
        :class:`~fairkit.ranking.SelectiveRanker`. It is cloned, never modified.
    X : array-like of shape (n_judges, n_items)
        Judges' preferences, as ``estimator.fit`` takes them.
    n_resamples : int, default=100
        Number of subsamples.
    fraction : float in (0, 1], default=0.9
        Fraction of records each subsample keeps.
    random_state : int, RandomState instance or None, default=None
        Seeds the subsamples.

    Returns
    -------
    stability : dict
        Medians over subsamples of ``"inversions"``, ``"abstentions"`` and
        ``"specifications"`` (each a fraction of pairs).

    Raises
    ------
    TypeError
        If ``n_resamples`` is not an integer or ``fraction`` not a number (before any fit),
        or ``estimator`` is not a ranker: its ``fit`` needs ``y``, or it has no ``counts_``
        and ``tier_of_item_`` once fitted.
    ValueError
        If ``n_resamples`` < 1 or ``fraction`` is outside (0, 1], or a subsample cannot be
        ranked.

    Examples
    --------
    >>> from fairkit.datasets import make_preference_profiles
    >>> from fairkit.metrics import ranking_stability
    >>> from fairkit.ranking import SelectiveRanker
    >>> X, _ = make_preference_profiles(200, 6, dispersion=0.6, random_state=0)
    >>> ranking_stability(SelectiveRanker(tau=0.3), X, n_resamples=20, random_state=0)["inversions"]
    0.0
    """
    check_scalar(n_resamples, "n_resamples", numbers.Integral, min_val=1)
    check_scalar(fraction, "fraction", numbers.Real, min_val=0, max_val=1, include_boundaries="right")
    _check_fit_takes_no_y(estimator)
    full = clone(estimator).fit(X)
    missing = [name for name in ("counts_", "tier_of_item_") if not hasattr(full, name)]
    if missing:
        raise TypeError(f"ranking_stability needs a ranker, such as fairkit.ranking.SelectiveRanker: "
                        f"{type(estimator).__name__} has no {' or '.join(missing)} once fitted.")
    base = _order_signs(_check_ranking(full.tier_of_item_))
    rng = local_random_state(random_state)
    changes = np.empty((n_resamples, 3))
    for resample in range(n_resamples):
        counts = full.counts_.subsample(fraction, random_state=rng)
        try:
            signs = _order_signs(clone(estimator).fit(counts).tier_of_item_)
        except ValueError as error:
            raise ValueError(f"ranking_stability: subsample {resample} (fraction={fraction} of the "
                             f"records) could not be ranked: {error} With so few answers about an "
                             "item, its stability is not defined: raise fraction, or drop the items "
                             "that few judges answered.") from error
        changes[resample] = [((base * signs) == -1).sum(),
                             ((base != 0) & (signs == 0)).sum(),
                             ((base == 0) & (signs != 0)).sum()]
    medians = np.median(changes, axis=0) / 2 / _n_pairs(len(base))
    return dict(zip(("inversions", "abstentions", "specifications"), medians.tolist(), strict=True))
