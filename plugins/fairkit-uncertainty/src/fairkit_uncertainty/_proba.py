"""Validation of predicted class probabilities against true labels."""

import numpy as np
from sklearn.utils import check_array, check_consistent_length, column_or_1d


def check_proba(y_true, y_proba, labels=None):
    """Validate probabilities and find each sample's true class.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples, n_classes) or (n_samples,)
        Predicted probabilities; rows sum to 1. A 1-D array is the probability
        of the second of two classes.
    labels : array-like of shape (n_classes,), default=None
        The classes of ``y_proba``'s columns, in order (a classifier's
        ``classes_``). ``None``: the class indices ``0 .. n_classes - 1`` when
        ``y_true`` holds only such integers, else the sorted labels of ``y_true``
        (which must then number ``n_classes``).

    Returns
    -------
    proba : ndarray of shape (n_samples, n_classes)
    true_class : ndarray of int of shape (n_samples,)
        The column of each sample's true label.
    """
    y_true = column_or_1d(y_true, warn=True)
    proba = check_array(y_proba, ensure_2d=False, dtype=float, input_name="y_proba")
    if proba.ndim == 1:
        proba = np.column_stack([1.0 - proba, proba])
    check_consistent_length(y_true, proba)
    n_classes = proba.shape[1]
    if n_classes < 2:
        raise ValueError(f"y_proba must have at least 2 classes (columns), got {n_classes}.")
    # non-negative rows that sum to 1 are also at most 1
    if proba.min() < 0 or not np.allclose(proba.sum(axis=1), 1.0, atol=1e-6):
        raise ValueError("y_proba must hold probabilities: values in [0, 1] whose rows sum to 1.")
    if labels is None and np.issubdtype(y_true.dtype, np.integer) and y_true.min() >= 0 \
            and y_true.max() < n_classes:
        return proba, y_true  # class indices: the columns are classes 0 .. n_classes - 1
    labels = np.unique(y_true) if labels is None else column_or_1d(labels)
    if labels.size != n_classes or np.unique(labels).size != n_classes:
        raise ValueError(f"y_proba has {n_classes} columns but there are {labels.size} distinct labels "
                         f"{labels.tolist()}; pass labels= (the classifier's classes_), one per column.")
    order = np.argsort(labels)
    position = np.minimum(np.searchsorted(labels[order], y_true), n_classes - 1)
    unknown = labels[order][position] != y_true
    if unknown.any():
        raise ValueError(f"y_true holds labels not in labels=: {np.unique(y_true[unknown]).tolist()}.")
    return proba, order[position]

