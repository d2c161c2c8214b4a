"""SelectiveRanker: selective preference aggregation (Kadekodi, McTavish & Ustun, ICML 2025)."""

import numbers

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import check_array
from sklearn.utils.validation import check_is_fitted, validate_data

from fairkit.exceptions import FairkitWarning
from fairkit.ranking._path import max_support, selective_path, selective_tiers
from fairkit.utils._preferences import (
    INPUT_TYPES,
    PairwiseCounts,
    as_counts,
    check_profile,
    profile_counts,
    ranking_counts,
    strict_preferences,
)
from fairkit.utils._sklearn_compat import Interval, StrOptions, _fit_context
from fairkit.utils._warnings import warn_user

__all__ = ["SelectiveRanker"]


class SelectiveRanker(BaseEstimator):
    """Aggregate judges' preferences into tiers, comparing two items only when few judges disagree.

    Selective preference aggregation (Kadekodi, McTavish & Ustun, "Selective
    Preference Aggregation", ICML 2025) returns a *selective ranking*: items in
    ordered tiers, where an item ranks above every item of a later tier and items of
    one tier are not compared (the method abstains). Every comparison it makes is
    overruled by at most a fraction ``tau`` of the judges, and it is the finest tiered
    ranking with that guarantee. ``tau=0`` compares items only when no judge
    disagrees; ``tau`` just under 1/2 gives the majority relation's tiers.

    The dissent of the claim "i above j" is the fraction of judges who do not
    strictly prefer i to j (they prefer j or tie them; judges who skip the pair
    count too when ``missing="dissent"``). With ``support[i, j]`` = number of judges who
    do not strictly prefer j to i, draw an edge i -> j when ``support[i, j] > tau * p``
    (putting j above i would break the guarantee). The tiers are the strongly connected
    components of that graph in topological order. Counts are compared as integers.

    A sample is a judge: ``fit`` takes a profile of judges (or their pairwise counts),
    :meth:`score_samples` gives each judge's agreement with the ranking and
    :meth:`score` the judges' overall agreement, and :meth:`compare` compares items.

    Parameters
    ----------
    tau : float in [0, 1], default=0.0
        Largest fraction of judges a comparison may overrule. Values of 1/2 and above,
        or missing preferences with ``missing="ignore"``, can leave a pair with
        dissent at most ``tau`` both ways; their order is then arbitrary and a
        :class:`~fairkit.exceptions.FairkitWarning` says so.
    input_type : {"ranks", "ratings"}, default="ranks"
        How ``X`` encodes preferences: ranks (smaller is better) or ratings (larger is
        better). Equal values are ties; NaN is missing.
    missing : {"ignore", "dissent"}, default="ignore"
        A judge who ranks only one item of a pair (or neither) is left out of that
        pair's dissent (``"ignore"``, as in the paper's code) or counts as dissenting
        from both orders (``"dissent"``, as in the released ``selectiverank`` package:
        then at least ``(1 - tau) p`` of *all* judges back each comparison).

    Attributes
    ----------
    tiers_ : list of ndarray
        Item indices of each tier, best tier first.
    tier_of_item_ : ndarray of shape (n_items,)
        Tier of each item, 0 for the best.
    comparison_matrix_ : ndarray of shape (n_items, n_items)
        ``+1`` if item i is ranked above item j, ``-1`` if below, ``0`` if not compared.
    dissent_matrix_ : ndarray of shape (n_items, n_items)
        Dissent of the claim "i above j": the fraction of judges who do not strictly
        prefer i to j. Every claimed comparison has dissent at most ``tau``.
    counts_ : PairwiseCounts
        The judges' pairwise preference counts.
    n_judges_ : int
        Number of judges.
    n_features_in_ : int
        Number of items.
    feature_names_in_ : ndarray of shape (n_items,)
        Item names, when ``X`` has string column names.

    See Also
    --------
    fairkit.ranking.borda, fairkit.ranking.copeland, fairkit.ranking.kemeny :
        Total orders that never abstain.

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit.ranking import SelectiveRanker
    >>> X = np.array([[1, 2, 3, 4],  # 5 judges rank 4 items (1 = best)
    ...               [1, 3, 2, 4],
    ...               [2, 1, 3, 4],
    ...               [1, 2, 4, 3],
    ...               [1, 2, 4, 3]])
    >>> ranker = SelectiveRanker(tau=0.2).fit(X)  # overrule at most 1 judge in 5
    >>> [tier.tolist() for tier in ranker.tiers_]
    [[0], [1], [2, 3]]
    >>> ranker.compare([[0, 1], [3, 2]]).tolist()  # 2 judges in 5 put item 3 above item 2
    [1, 0]
    >>> ranker.score_samples(X).round(3).tolist()  # judges 1 and 2 are each overruled once
    [0.833, 0.5, 0.5, 0.833, 0.833]
    >>> round(ranker.score(X), 3)  # 23 agreements, 2 disagreements, 30 strict preferences
    0.7
    >>> path = ranker.path(X)
    >>> path.taus.tolist(), path.at(0.3).tolist()
    ([0.0, 0.2, 0.4], [0, 1, 2, 2])
    """

    _parameter_constraints = {
        "tau": [Interval(numbers.Real, 0, 1, closed="both")],
        "input_type": [StrOptions(set(INPUT_TYPES))],
        "missing": [StrOptions({"ignore", "dissent"})],
    }

    def __init__(self, tau=0.0, *, input_type="ranks", missing="ignore"):
        self.tau = tau
        self.input_type = input_type
        self.missing = missing

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    @classmethod
    def get_test_params(cls):
        """Small parameter sets for the common estimator checks."""
        return [{"tau": 0.0}, {"tau": 0.3, "input_type": "ratings", "missing": "dissent"}]

    def _ranking_counts(self, X):
        """The counts to rank. With ``missing="ignore"`` an item no judge answered could go in
        any tier, so it is refused; with ``"dissent"`` every judge dissents about it, and the
        ranking rightly compares it with nothing."""
        if self.missing == "ignore":
            return ranking_counts(X, self.input_type)
        return as_counts(X, self.input_type)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Compute the selective ranking of the judges in ``X``.

        Parameters
        ----------
        X : array-like of shape (n_judges, n_items) or PairwiseCounts
            One row per judge (ranks or ratings, see ``input_type``; NaN = missing),
            or the counts of pairwise comparisons from :func:`pairwise_counts`.
            With ``missing="ignore"``, every item needs an answer on some pair.
        y : None
            Ignored.

        Returns
        -------
        self : SelectiveRanker

        Raises
        ------
        ValueError
            If ``X`` has rows of different lengths, holds no value but NaN, or (with
            ``missing="ignore"``) says nothing about some item; the estimator is then left
            as it was.
        """
        counts = self._ranking_counts(X)
        support = counts.support(self.missing)
        threshold = max_support(self.tau, counts.n_judges)
        tier_of_item, n_unsupported = selective_tiers(support, threshold)
        if n_unsupported:
            warn_user(
                f"At tau={self.tau}, {n_unsupported} pair(s) of items have dissent <= tau in both "
                "directions (tau >= 1/2, or judges who skipped them with missing='ignore'): their "
                "order is not set by the judges and is broken by item index. Use tau < 1/2 or "
                "missing='dissent' for a unique ranking.", FairkitWarning)
        self._set_items(X, counts)
        self.counts_ = counts
        self.n_judges_ = counts.n_judges
        self.tier_of_item_ = tier_of_item
        self.tiers_ = [np.flatnonzero(tier_of_item == t) for t in range(tier_of_item.max() + 1)]
        order = np.sign(tier_of_item[None, :] - tier_of_item[:, None])
        self.comparison_matrix_ = order.astype(np.int8)
        self.dissent_matrix_ = support.T / counts.n_judges
        return self

    def _set_items(self, X, counts):
        """Record the fitted items: ``n_features_in_`` and, when they have names, ``feature_names_in_``."""
        if not isinstance(X, PairwiseCounts):
            validate_data(self, X, reset=True, skip_check_array=True)
            return
        self.n_features_in_ = counts.n_items
        if counts.item_names is not None:
            self.feature_names_in_ = np.asarray(counts.item_names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_

    def _check_judges(self, X):
        """Validate a profile of new judges over the fitted items; return it as a float array."""
        check_is_fitted(self)
        checked = check_profile(X, estimator=self)
        validate_data(self, X, reset=False, skip_check_array=True)
        return checked

    def compare(self, pairs):
        """Compare pairs of items: +1 if the first ranks above the second, -1 below, 0 not compared.

        Parameters
        ----------
        pairs : array-like of shape (n_pairs, 2)
            Item indices, or item names when the ranker was fitted on named items (names
            given to a ranker fitted without them are refused).

        Returns
        -------
        comparisons : ndarray of shape (n_pairs,)
        """
        check_is_fitted(self)
        pairs = np.asarray(pairs)
        if pairs.ndim != 2 or pairs.shape[1] != 2:
            raise ValueError(f"pairs must have shape (n_pairs, 2), got {pairs.shape}. Reshape your "
                             "data, e.g. with np.reshape(pairs, (1, 2)) for a single pair.")
        if pairs.dtype.kind in "OUS" and hasattr(self, "feature_names_in_"):
            index = {name: i for i, name in enumerate(self.feature_names_in_)}
            unknown = sorted({str(name) for name in pairs.ravel() if name not in index})
            if unknown:
                raise ValueError(f"pairs names unknown items: {unknown[:5]}.")
            pairs = np.vectorize(index.__getitem__, otypes=[np.int64])(pairs)
        elif pairs.dtype.kind in "OUS" and any(isinstance(v, str | bytes) for v in pairs.ravel()):
            raise ValueError(f"pairs holds item names, but {type(self).__name__} was fitted without "
                             "item names (X had no string column names): give "
                             f"item indices in [0, {self.n_features_in_}), or fit on a DataFrame whose "
                             "columns name the items.")
        pairs = check_array(pairs, dtype=np.float64, input_name="pairs")
        if not ((pairs == np.round(pairs)) & (pairs >= 0) & (pairs < self.n_features_in_)).all():
            raise ValueError(f"pairs must hold item indices in [0, {self.n_features_in_}).")
        pairs = pairs.astype(np.int64)
        return self.comparison_matrix_[pairs[:, 0], pairs[:, 1]]

    def score_samples(self, X):
        """Each judge's agreement with the ranking: (agreements - disagreements) / strict preferences.

        A judge's strict preference on a pair the ranking compares is an agreement
        or a disagreement; one on a pair it abstains on is neither, but still counts
        among the judge's strict preferences. Ties and missing answers count for nothing.

        Parameters
        ----------
        X : array-like of shape (n_judges, n_items)
            Judges' preferences over the fitted items (not PairwiseCounts, which do
            not say which judge gave which answer).

        Returns
        -------
        agreement : ndarray of shape (n_judges,)
            In [-1, 1]; 0 for a judge who states no strict preference.
        """
        if isinstance(X, PairwiseCounts):
            raise TypeError("score_samples needs the profile X, one row per judge: PairwiseCounts "
                            "do not say which judge gave which answer. Use score(counts) for "
                            "the judges' overall agreement.")
        X = self._check_judges(X)
        above = self.comparison_matrix_ == 1
        agree, disagree, strict = [], [], []
        for _, prefers in strict_preferences(X, self.input_type):
            agree.append(np.count_nonzero(prefers[:, above], axis=1))
            disagree.append(np.count_nonzero(prefers[:, above.T], axis=1))
            strict.append(np.count_nonzero(prefers, axis=(1, 2)))
        return _agreement(*map(np.concatenate, (agree, disagree, strict)))

    def score(self, X, y=None):
        """The judges' overall agreement with the ranking: (agreements - disagreements) / strict preferences.

        Counted over all the judges in ``X`` at once, so it is the mean of
        :meth:`score_samples` weighted by each judge's number of strict preferences.
        Used by ``GridSearchCV`` with folds of judges, it picks a ``tau`` that
        generalizes to new judges.

        Parameters
        ----------
        X : array-like of shape (n_judges, n_items) or PairwiseCounts
            Judges' preferences over the fitted items.
        y : None
            Ignored.

        Returns
        -------
        score : float in [-1, 1]
            0 when the judges in ``X`` state no strict preference.
        """
        if isinstance(X, PairwiseCounts):
            check_is_fitted(self)
            if X.n_items != self.n_features_in_:
                raise ValueError(f"X has {X.n_items} items, but {type(self).__name__} was fitted "
                                 f"on {self.n_features_in_} items.")
            wins = X.wins
        else:
            wins = profile_counts(self._check_judges(X), self.input_type).wins
        above = self.comparison_matrix_ == 1
        return float(_agreement(wins[above].sum(), wins.T[above].sum(), wins.sum()))

    def path(self, X, y=None):
        """The selective rankings of ``X`` at every dissent level from 0 to 1/2.

        Tiers only split as τ grows, so there are at most ``n_items`` distinct rankings.
        Does not fit the estimator (``tau`` is not used).

        Parameters
        ----------
        X : array-like of shape (n_judges, n_items) or PairwiseCounts
            Judges' preferences, as in :meth:`fit`.
        y : None
            Ignored.

        Returns
        -------
        path : SelectivePath
            ``path.taus``, ``path.rankings``, and ``path.at(tau)`` for the ranking at
            any τ: the one recorded at the largest level not above τ.
        """
        self._validate_params()
        counts = self._ranking_counts(X)
        return selective_path(counts.support(self.missing), counts.n_judges, counts.item_names)


def _agreement(agree, disagree, strict):
    """``(agree - disagree) / strict``, and 0 where there is no strict preference."""
    strict = np.asarray(strict)
    return np.divide(agree - disagree, strict, out=np.zeros(strict.shape), where=strict > 0)
