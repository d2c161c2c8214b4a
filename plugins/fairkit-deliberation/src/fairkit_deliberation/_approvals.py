"""Approval profiles and justified representation (JR) of a selection of comments.

Users approve comments: ``approvals[i, c]`` above a threshold means user ``i``
approves comment ``c``. A selection ``W`` of ``k`` comments satisfies JR (Aziz
et al. 2017) when no group of at least ``n / k`` users who all approve one
common comment is left without any approved comment in ``W``. Equivalently,
every comment has fewer than ``n / k`` approvers who approve nothing in ``W``.
"""

from numbers import Integral

import numpy as np
from scipy import sparse
from sklearn.utils import check_array

__all__ = ["coverage", "is_justified"]


def uncovered_support(approvals, selection):
    """For each comment, the number of its approvers who approve nothing in ``selection``."""
    covered = np.asarray(approvals[:, selection].sum(axis=1)).ravel() > 0
    return np.asarray(approvals[~covered].sum(axis=0)).ravel()


def violates_quota(support, n_users, k):
    """Whether ``support >= n_users / k``, in exact integer arithmetic."""
    return support * k >= n_users


def check_approvals(approvals, approval_threshold=0.5, *, input_name="approvals"):
    """Validate approval values and return the users' approvals as a sparse 0/1 matrix.

    Approval values are non-negative (0/1 votes, agreement probabilities): a negative
    value (a -1 vote for "disagree", negated approvals) would silently approve nothing,
    so it is refused, as are NaN and infinity.

    Parameters
    ----------
    approvals : {array-like, sparse matrix} of shape (n_users, n_comments)
        The approval values.
    approval_threshold : float, default=0.5
        Values strictly above it count as approvals; must be ``>= 0`` (so implicit
        zeros of a sparse matrix never approve).
    input_name : str, default="approvals"
        The argument's name in error messages.

    Returns
    -------
    approved : CSR matrix of int64
        1 where a user approves a comment.
    """
    if approval_threshold < 0:
        raise ValueError(f"approval_threshold must be >= 0, got {approval_threshold}.")
    values = check_array(approvals, accept_sparse=("csr", "csc"), input_name=input_name)
    smallest = values.min()
    if smallest < 0:
        raise ValueError(
            f"Negative values in data: {input_name} holds approval values below 0 (the smallest is "
            f"{smallest:g}), but approval values are non-negative (0/1 votes, agreement probabilities) "
            f"and a negative one would approve nothing without a word. Map them to that scale first: "
            f"for votes of -1 (disagree), 0 (pass) and 1 (agree), use ({input_name} > 0).astype(int).")
    approved = sparse.csr_matrix(values > approval_threshold)
    approved.eliminate_zeros()
    return approved.astype(np.int64)


def _check_selection(selection, n_comments):
    selection = np.asarray(selection)
    if selection.ndim != 1 or not (selection.size == 0 or np.issubdtype(selection.dtype, np.integer)):
        raise ValueError(f"selection must be a 1-D array of comment indices, got {selection!r}.")
    if selection.size and (selection.min() < 0 or selection.max() >= n_comments):
        raise ValueError(f"selection holds indices outside [0, {n_comments}) (there are {n_comments} "
                         "comments).")
    if np.unique(selection).size != selection.size:
        raise ValueError("selection holds a comment more than once.")
    return selection.astype(np.intp)


def is_justified(approvals, selection, *, k=None, approval_threshold=0.5):
    """Whether a selection of comments satisfies justified representation (JR).

    JR (Aziz et al. 2017): no group of at least ``n_users / k`` users who all
    approve a common comment is left with none of their approved comments in
    the selection. It is checked, in ``O(nnz)``, as: every comment has fewer than
    ``n_users / k`` approvers with nothing approved in the selection.

    Parameters
    ----------
    approvals : {array-like, sparse matrix} of shape (n_users, n_comments)
        Non-negative approval values; entries above ``approval_threshold`` are approvals
        (0/1 votes, or agreement probabilities).
    selection : array-like of int of shape (n_selected,)
        Indices of the selected comments (the top of a ranking).
    k : int, default=None
        The committee size that sets the quota ``n_users / k``; ``None`` uses
        ``len(selection)``. Give the number of slots when checking a partial selection.
    approval_threshold : float, default=0.5
        Values strictly above it count as approvals; must be ``>= 0``.

    Returns
    -------
    justified : bool

    Examples
    --------
    >>> from fairkit_deliberation import is_justified
    >>> approvals = [[1, 0, 0], [1, 0, 0], [1, 1, 0], [0, 0, 1]]
    >>> is_justified(approvals, [0, 1])  # user 3 is left out, but one user is below n/k = 2
    True
    >>> is_justified(approvals, [0, 1], k=4)  # with 4 slots, n/k = 1 user is a large enough group
    False
    """
    approved = check_approvals(approvals, approval_threshold)
    selection = _check_selection(selection, approved.shape[1])
    if k is None:
        k = selection.size
    if not isinstance(k, Integral) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}.")
    support = uncovered_support(approved, selection)
    return not violates_quota(support, approved.shape[0], k).any()


def coverage(approvals, selection, *, approval_threshold=0.5):
    """The share of users who approve at least one selected comment.

    Parameters
    ----------
    approvals : {array-like, sparse matrix} of shape (n_users, n_comments)
        Non-negative approval values; entries above ``approval_threshold`` are approvals.
    selection : array-like of int of shape (n_selected,)
        Indices of the selected comments.
    approval_threshold : float, default=0.5
        Values strictly above it count as approvals; must be ``>= 0``.

    Returns
    -------
    coverage : float
        In ``[0, 1]``; users who approve no comment at all count as not covered.

    Examples
    --------
    >>> from fairkit_deliberation import coverage
    >>> coverage([[1, 0], [0, 1], [0, 0], [1, 1]], [0])
    0.5
    """
    approved = check_approvals(approvals, approval_threshold)
    selection = _check_selection(selection, approved.shape[1])
    return float((approved[:, selection].sum(axis=1) > 0).mean())
