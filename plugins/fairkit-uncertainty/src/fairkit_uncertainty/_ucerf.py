"""UCerF: uncertainty-aware fairness (Wang et al., ICML 2025), for any probabilistic classifier."""

import numpy as np
from scipy.special import entr
from sklearn.utils import column_or_1d

from fairkit.utils.validation import check_same_index, check_sensitive_features, encode_groups
from fairkit_uncertainty._proba import check_proba

__all__ = ["desirability", "ucerf_score"]


def desirability(y_true, y_proba, *, labels=None):
    """Signed certainty of each prediction: ``+c`` when correct, ``-c`` when wrong.

    The certainty ``c = (k - PPL) / (k - 1)`` rescales the perplexity
    ``PPL = exp(H(p))`` of the predicted distribution over ``k`` classes to
    ``[0, 1]``: 1 for a one-hot prediction, 0 for the uniform one. The
    prediction is the most probable class.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples, n_classes) or (n_samples,)
        Predicted probabilities (1-D: of the second of two classes).
    labels : array-like of shape (n_classes,), default=None
        The classes of ``y_proba``'s columns; ``None`` uses the sorted labels of ``y_true``.

    Returns
    -------
    desirability : ndarray of shape (n_samples,)
        In ``[-1, 1]``: certain and correct is 1, certain and wrong is -1.

    Examples
    --------
    >>> from fairkit_uncertainty import desirability
    >>> desirability([1, 0, 0], [[0.0, 1.0], [0.0, 1.0], [0.5, 0.5]]).tolist()
    [1.0, -1.0, 0.0]
    """
    proba, true_class = check_proba(y_true, y_proba, labels)
    k = proba.shape[1]
    certainty = np.clip((k - np.exp(entr(proba).sum(axis=1))) / (k - 1), 0.0, 1.0)
    correct = proba.argmax(axis=1) == true_class
    return np.where(correct, certainty, -certainty)


def ucerf_score(y_true, y_proba, *, sensitive_features, pair_ids=None, labels=None):
    """UCerF: how equally certain-and-right a classifier is across groups (1 = fair).

    Wang et al. (ICML 2025) score each prediction by its desirability ``D``
    (see :func:`desirability`: +certainty when correct, -certainty when wrong)
    and compare matched pairs that differ only in the sensitive attribute:
    ``U = 1 - |D_a - D_b| / 2`` per pair, ``UCerF = mean U``. Two forms:

    * **pairwise** (``pair_ids`` given; the paper's form): every pair id marks
      exactly two samples, from two different groups;
    * **group** (no ``pair_ids``; our pair-free extension, not in the paper):
      ``1 - max over groups a, b of |mean D_a - mean D_b| / 2``.

    The formula follows the paper's secondary descriptions; the paper applies it
    to language models' answer perplexities, here it is applied to the class
    probabilities of any classifier.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples, n_classes) or (n_samples,)
        Predicted probabilities (1-D: of the second of two classes).
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_columns)
        The group of each sample (several columns form intersectional groups).
    pair_ids : array-like of shape (n_samples,), default=None
        The matched pair of each sample (the pairwise form).
    labels : array-like of shape (n_classes,), default=None
        The classes of ``y_proba``'s columns; ``None`` uses the sorted labels of ``y_true``.

    Returns
    -------
    score : float
        In ``[0, 1]``; 1 when every pair (or group) is equally desirable.

    Raises
    ------
    ValueError
        If a pair id does not mark exactly two samples of different groups.

    References
    ----------
    Y. O. Wang, N. Sivakumar, F. Arif Khan, R. Metcalf Susa, A. Golinski,
    N. Mackraz, B.-J. Theobald, L. Zappella, N. Apostoloff. "Is Your Model
    Fairly Certain? Uncertainty-Aware Fairness Evaluation for LLMs". ICML 2025.

    Examples
    --------
    >>> from fairkit_uncertainty import ucerf_score
    >>> y_true = [1, 1, 0, 0]
    >>> y_proba = [[0.0, 1.0], [1.0, 0.0], [0.9, 0.1], [0.9, 0.1]]
    >>> # pair 0: certain and right vs certain and wrong -> U = 0; pair 1: identical -> U = 1
    >>> ucerf_score(y_true, y_proba, sensitive_features=["a", "b", "a", "b"], pair_ids=[0, 0, 1, 1])
    0.5
    """
    check_same_index(y_true=y_true, y_proba=y_proba, sensitive_features=sensitive_features,
                     pair_ids=pair_ids)
    desire = desirability(y_true, y_proba, labels=labels)
    _, codes = encode_groups(check_sensitive_features(sensitive_features, desire.size))
    if pair_ids is None:
        means = np.bincount(codes, desire) / np.bincount(codes)
        return float(1.0 - (means.max() - means.min()) / 2)
    pair_ids = column_or_1d(pair_ids)
    if pair_ids.size != desire.size:
        raise ValueError(f"pair_ids has {pair_ids.size} entries but there are {desire.size} samples.")
    _, pair, size = np.unique(pair_ids, return_inverse=True, return_counts=True)
    if (size != 2).any():
        raise ValueError(f"Every pair id must mark exactly two samples; {(size != 2).sum()} pair id(s) "
                         f"mark {sorted(set(size[size != 2].tolist()))} sample(s).")
    members = np.argsort(pair, kind="stable").reshape(-1, 2)
    if (codes[members[:, 0]] == codes[members[:, 1]]).any():
        raise ValueError("Both samples of a pair belong to the same sensitive group; a pair must "
                         "compare two groups.")
    return float(np.mean(1.0 - np.abs(desire[members[:, 0]] - desire[members[:, 1]]) / 2))
