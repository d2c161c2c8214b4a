"""Clustering metrics: group balance of clusters, and the graph cuts spectral clustering relaxes."""

import numpy as np
from scipy import sparse
from sklearn.utils import check_array, check_symmetric
from sklearn.utils.validation import check_non_negative

from fairkit.metrics._confusion import label_values, one_per_sample
from fairkit.utils.validation import check_same_index, check_sensitive_features, encode_groups

__all__ = ["balance", "check_affinity", "normalized_cut", "ratio_cut"]


def check_affinity(affinity, *, input_name="affinity"):
    """Validate a weighted adjacency matrix: square, finite, non-negative and symmetric.

    The cut metrics and :class:`~fairkit.cluster.FairSpectralClustering` share this
    check: a negative or one-sided weight has no meaning as a graph cut.

    Parameters
    ----------
    affinity : {array-like, sparse matrix} of shape (n_samples, n_samples)
        The matrix :math:`W`.
    input_name : str, default="affinity"
        The argument's name in error messages.

    Returns
    -------
    W : ndarray or CSR matrix of float64
        ``affinity``, converted.

    Raises
    ------
    ValueError
        If ``affinity`` is not square, holds NaN, infinite or negative weights, or
        differs from its transpose: by 1e-10 or more in an entry of a sparse matrix; in a
        dense one, by more than 1e-10 plus 1e-5 times the smaller of the two mirrored
        entries (scikit-learn's ``check_symmetric``).
    """
    W = check_array(affinity, accept_sparse="csr", dtype=np.float64, input_name=input_name)
    if W.shape[0] != W.shape[1]:
        raise ValueError(f"{input_name} must be a square matrix, got shape {W.shape}.")
    check_non_negative(W, f"{input_name} (affinities must be >= 0)")
    if not _is_symmetric(W):
        raise ValueError(f"{input_name} must be symmetric (W[i, j] == W[j, i], an undirected graph); "
                         f"symmetrize it first, e.g. ({input_name} + {input_name}.T) / 2.")
    return W


def _is_symmetric(W, atol=1e-10, rtol=1e-5, tile=1024):
    """scikit-learn's ``check_symmetric`` test; a dense matrix is compared tile by tile.

    For a dense matrix ``check_symmetric`` tests ``np.allclose(W, W.T, atol=1e-10)``, whose
    temporaries take about twice the matrix. Here each pair of mirrored tiles is compared
    once, in both directions of ``allclose``'s asymmetric test: the same answer in a
    tile's memory.
    """
    if not isinstance(W, np.ndarray):
        try:
            check_symmetric(W, tol=atol, raise_exception=True, raise_warning=False)
        except ValueError:
            return False
        return True
    starts = range(0, W.shape[0], tile)
    for i in starts:
        for j in starts[i // tile:]:
            upper, lower = W[i:i + tile, j:j + tile], W[j:j + tile, i:i + tile].T
            bound = atol + rtol * np.minimum(np.abs(upper), np.abs(lower))
            if not np.all(np.abs(upper - lower) <= bound):
                return False
    return True


def _cluster_codes(labels):
    """Validate cluster labels as the group metrics validate class labels; return 0-based codes.

    A NaN label would count as one more cluster, and soft assignments (fractions) as one
    cluster per sample, both without a word: they are refused.
    """
    labels = one_per_sample(labels, "labels")
    label_values(labels, "labels", fix="Cluster labels must be integers or strings; for soft "
                                        "assignments (cluster probabilities), take each sample's most "
                                        "likely cluster, e.g. proba.argmax(axis=1).")
    return labels, np.unique(labels, return_inverse=True)[1].ravel()


def balance(labels, groups, *, agg="min"):
    """Balance of a clustering with respect to groups (Chierichetti et al., 2017).

    The balance of cluster :math:`C_l` is
    :math:`\\min_{s \\neq s'} |V_s \\cap C_l| / |V_{s'} \\cap C_l|`, i.e. the smallest
    group count in the cluster over the largest one, counted over *all* groups
    (a cluster that misses a group has balance 0). A clustering whose clusters all
    hold the groups in the population's proportions has balance
    :math:`\\min_s |V_s| / \\max_s |V_s|`, which is 1 only for groups of equal size.

    Parameters
    ----------
    labels : array-like of shape (n_samples,)
        Cluster label of each sample: integers or strings (no NaN, no fractions).
    groups : array-like of shape (n_samples,) or (n_samples, n_columns)
        Sensitive group of each sample; several columns form intersectional groups.
    agg : {"min", "mean"}, default="min"
        ``"min"`` is the balance of the clustering as defined by Chierichetti et al.
        and Kleindessner et al. (2019); ``"mean"`` averages it over clusters, as the
        s-FSC paper (Wang et al., 2023) reports it.

    Returns
    -------
    balance : float
        In [0, 1]; higher is fairer.

    Examples
    --------
    >>> from fairkit.metrics import balance
    >>> labels = [0, 0, 0, 0, 1, 1, 1]
    >>> groups = ["a", "a", "b", "b", "a", "b", "b"]
    >>> balance(labels, groups), round(balance(labels, groups, agg="mean"), 3)
    (0.5, 0.75)
    """
    if agg not in ("min", "mean"):
        raise ValueError(f"agg must be 'min' or 'mean', got {agg!r}.")
    check_same_index(labels=labels, groups=groups)
    labels, clusters = _cluster_codes(labels)
    _, codes = encode_groups(check_sensitive_features(groups, labels.shape[0], samples_of="labels"))
    n_groups = codes.max() + 1
    counts = np.bincount(clusters * n_groups + codes,
                         minlength=(clusters.max() + 1) * n_groups).reshape(-1, n_groups)
    per_cluster = counts.min(axis=1) / counts.max(axis=1)
    return float(per_cluster.min() if agg == "min" else per_cluster.mean())


def _cuts(affinity, labels):
    """Return (cut, size, volume) of each cluster: weight leaving it, its samples, its degrees."""
    affinity = check_affinity(affinity)
    labels, clusters = _cluster_codes(labels)
    if labels.shape[0] != affinity.shape[0]:
        raise ValueError(f"labels has {labels.shape[0]} entries but affinity describes "
                         f"{affinity.shape[0]} samples.")
    n, k = labels.shape[0], clusters.max() + 1
    onehot = sparse.csr_matrix((np.ones(n), (np.arange(n), clusters)), shape=(n, k))
    degrees = np.asarray(affinity.sum(axis=1)).ravel()
    volume = onehot.T @ degrees
    within = (onehot.T @ (affinity @ onehot)).diagonal()
    return volume - within, np.bincount(clusters), volume


def ratio_cut(affinity, labels):
    """RatioCut of a clustering: :math:`\\sum_l \\mathrm{cut}(C_l, \\bar C_l) / |C_l|`.

    Unnormalized spectral clustering minimises a relaxation of it (von Luxburg, 2007).

    Parameters
    ----------
    affinity : {array-like, sparse matrix} of shape (n_samples, n_samples)
        Weighted adjacency matrix :math:`W` (edge :math:`ij` counted once in ``W[i, j]``
        and once in ``W[j, i]``).
    labels : array-like of shape (n_samples,)
        Cluster label of each sample: integers or strings (no NaN, no fractions).

    Returns
    -------
    ratio_cut : float

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit.metrics import ratio_cut
    >>> W = np.array([[0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0]])
    >>> ratio_cut(W, [0, 0, 1, 1])  # one edge of weight 1 leaves each cluster of 2
    1.0
    """
    cut, size, _ = _cuts(affinity, labels)
    return float(np.sum(cut / size))


def normalized_cut(affinity, labels):
    """Normalized cut: :math:`\\sum_l \\mathrm{cut}(C_l, \\bar C_l) / \\mathrm{vol}(C_l)`.

    :math:`\\mathrm{vol}(C_l)` is the sum of the degrees in :math:`C_l`; normalized
    spectral clustering minimises a relaxation of it (Shi and Malik, 2000). A cluster
    of isolated samples (volume 0) has no cut and adds 0.

    Parameters
    ----------
    affinity : {array-like, sparse matrix} of shape (n_samples, n_samples)
        Weighted adjacency matrix :math:`W`.
    labels : array-like of shape (n_samples,)
        Cluster label of each sample: integers or strings (no NaN, no fractions).

    Returns
    -------
    normalized_cut : float

    Examples
    --------
    >>> import numpy as np
    >>> from fairkit.metrics import normalized_cut
    >>> W = np.array([[0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0]])
    >>> normalized_cut(W, [0, 0, 1, 1])  # each cluster: cut 1, volume 3
    0.6666666666666666
    """
    cut, _, volume = _cuts(affinity, labels)
    return float(np.sum(np.divide(cut, volume, out=np.zeros_like(cut), where=volume > 0)))
