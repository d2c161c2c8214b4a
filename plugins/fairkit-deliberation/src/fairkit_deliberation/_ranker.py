"""JustifiedRepresentationRanker: the top-k comments by score, subject to justified representation."""

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import check_array
from sklearn.utils.validation import validate_data

from fairkit import FairkitWarning
from fairkit.utils._sklearn_compat import Interval, StrOptions, _fit_context
from fairkit_deliberation._approvals import check_approvals
from fairkit_deliberation._greedy import by_score, greedy_selection, justifying_set
from fairkit_deliberation._ilp import max_score_selection


class JustifiedRepresentationRanker(BaseEstimator):
    """Rank comments by score while giving every large cohesive group of users a voice.

    Users approve comments; a platform shows ``k`` comments ranked by a quality
    score (civility, bridging, engagement). Justified representation (JR, Aziz
    et al. 2017) asks that no group of at least ``n_users / k`` users who all
    approve a common comment is left with none of their approved comments among
    the ``k``. The ranker picks the ``k`` comments with the highest total score
    subject to JR (Revel et al., ICML 2025) and ranks them by score.

    Parameters
    ----------
    k : int, default=10
        The number of comments shown. With fewer comments than ``k``, all are
        ranked (with a :class:`~fairkit.FairkitWarning`).
    method : {"greedy", "ilp"}, default="greedy"
        ``"greedy"``: the paper's two-stage algorithm (Algorithm D.1). Stage 1
        adds the comment with the most approvers not yet covered until no
        comment has ``n_users / k`` or more uncovered approvers (at most ``k``
        slots, ties broken by score); stage 2 fills the remaining slots by score.
        ``O(nnz(X) + k * n_comments)``. ``"ilp"``: the highest-scoring JR set,
        exactly, by an integer program solved with PuLP (NP-hard in general:
        seconds for a few hundred users and comments).
    approval_threshold : float, default=0.5
        Entries of ``X`` strictly above it are approvals (0/1 votes or agreement
        probabilities); must be ``>= 0``.
    solver : str, default=None
        For ``method="ilp"``: a PuLP solver name (``pulp.listSolvers(onlyAvailable=True)``);
        ``None`` uses CBC: installed on its own (``pulp[cbc]``) when found, else the
        copy PuLP < 4 bundles. It runs silently on one thread.

    Attributes
    ----------
    ranking_ : ndarray of int of shape (min(k, n_comments),)
        The chosen comments (column indices of ``X``), by decreasing score,
        ties by index.
    jr_slots_ : int
        How many of the chosen comments greedy coverage needs for JR: for
        ``method="greedy"`` its first stage; for ``"ilp"`` the same greedy
        coverage run within the ILP's selection.
    coverage_ : float
        The share of users who approve at least one chosen comment.
    n_features_in_ : int
        The number of comments.
    feature_names_in_ : ndarray of str
        The comments' names, when ``X`` is a DataFrame with string column names.

    References
    ----------
    M. Revel, S. Milli, T. Lu, J. Watson-Daniels, M. Nickel. "Representative
    Ranking for Deliberation in the Public Sphere". ICML 2025.
    H. Aziz, M. Brill, V. Conitzer, E. Elkind, R. Freeman, T. Walsh. "Justified
    representation in approval-based committee voting". Social Choice and
    Welfare 48(2), 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit_deliberation import JustifiedRepresentationRanker, is_justified
    >>> # 6 users agree with comments 0-2; 4 users agree only with comment 3
    >>> X = np.array([[1, 1, 1, 0]] * 6 + [[0, 0, 0, 1]] * 4)
    >>> ranker = JustifiedRepresentationRanker(k=3).fit(X)
    >>> ranker.ranking_.tolist(), ranker.jr_slots_, ranker.coverage_
    ([0, 1, 3], 2, 1.0)
    >>> is_justified(X, [0, 1, 2])  # the top 3 by approvals leave out 4 >= n/k users
    False
    """

    _parameter_constraints = {
        "k": [Interval(Integral, 1, None, closed="left")],
        "method": [StrOptions({"greedy", "ilp"})],
        "approval_threshold": [Interval(Real, 0, None, closed="left")],
        "solver": [str, None],
    }

    def __init__(self, k=10, *, method="greedy", approval_threshold=0.5, solver=None):
        self.k = k
        self.method = method
        self.approval_threshold = approval_threshold
        self.solver = solver

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, *, scores=None):
        """Choose and rank the comments.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_users, n_comments)
            Approval values: 0/1 votes or agreement probabilities (any non-negative
            values); entries above ``approval_threshold`` are approvals. Negative values
            are refused (map votes of -1, 0, 1 with ``(X > 0)``), and a ``X`` without
            any approval gets a :class:`~fairkit.FairkitWarning`.
        y : None
            Ignored.
        scores : array-like of shape (n_comments,), default=None
            The quality score of each comment (higher is better). ``None`` uses
            the number of approvals (engagement).

        Returns
        -------
        self : JustifiedRepresentationRanker
        """
        # everything is computed before any attribute is set: a failed fit changes nothing
        approvals = check_approvals(X, self.approval_threshold, input_name="X")
        if approvals.nnz == 0:
            warnings.warn(f"No entry of X is above approval_threshold={self.approval_threshold}: no user "
                          "approves any comment, so justified representation constrains nothing and the "
                          "comments are ranked by score alone. Check the scale of X against "
                          "approval_threshold.", FairkitWarning, stacklevel=3)
        n_comments = approvals.shape[1]
        if scores is None:
            scores = np.asarray(approvals.sum(axis=0), dtype=float).ravel()
        else:
            scores = check_array(scores, ensure_2d=False, dtype=float, input_name="scores")
            if scores.shape != (n_comments,):
                raise ValueError(f"scores must hold one value per comment: shape ({n_comments},), "
                                 f"got {scores.shape}.")
        k = self.k
        if k > n_comments:
            warnings.warn(f"k={k} exceeds the {n_comments} comments; all of them are ranked.",
                          FairkitWarning, stacklevel=3)
            k = n_comments
        if self.method == "greedy":
            selection, jr_slots = greedy_selection(approvals, k, scores)
        else:
            selection = max_score_selection(approvals, k, scores, self.solver)
            jr_slots = justifying_set(approvals, k, scores, allowed=selection).size
        validate_data(self, X, skip_check_array=True)  # n_features_in_ and feature_names_in_
        self.ranking_ = by_score(selection, scores)
        self.jr_slots_ = int(jr_slots)
        self.coverage_ = float((approvals[:, selection].sum(axis=1) > 0).mean())
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True  # approval values
        return tags

    @classmethod
    def get_test_params(cls):
        """Small parameter sets for the common estimator checks."""
        return [{"k": 2}, {"k": 3, "method": "ilp"}]
