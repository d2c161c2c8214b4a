"""Per-sample losses of a binary classifier at both labels, and their expectation under P(Y=1 | x).

Singh et al., "'Who experiences large model decay and why?'", ICML 2025 (arXiv:2506.00756) write the
loss as ℓ(x, y); with a binary y every quantity of the diagnosis is built from ℓ₀(x) = ℓ(x, 0) and
ℓ₁(x) = ℓ(x, 1): the observed loss L = ℓ(X, Y) and the expected loss Z(x) = μ(x)ℓ₁(x) + (1 − μ(x))ℓ₀(x)
under a probability μ(x) = P(Y = 1 | x).
"""

import numbers

import numpy as np
from sklearn.utils import check_consistent_length, check_scalar

from fairkit.utils.validation import check_numbers

__all__ = ["expected_loss", "per_sample_losses"]

LOSSES = ("zero_one", "brier")


def per_sample_losses(loss, proba, y=None, *, threshold=0.5):
    """The losses ℓ(x, 0), ℓ(x, 1) of each sample, and ℓ(x, y) at its observed label.

    Parameters
    ----------
    loss : {"zero_one", "brier"} or callable
        ``"zero_one"``: 1[1{p > threshold} ≠ y]; ``"brier"``: (p − y)²; a callable
        ``loss(y_true, proba) -> array of shape (n_samples,)`` is evaluated at y = 0 and y = 1 for
        every sample and must return finite values.
    proba : array-like of shape (n_samples,)
        The model's probabilities p(x) = P(Y = 1 | x), in [0, 1].
    y : array-like of shape (n_samples,), default=None
        Observed labels, encoded 0/1.
    threshold : float, default=0.5
        Decision threshold of ``"zero_one"`` (predict 1 when p > threshold); unused by the others.

    Returns
    -------
    loss0, loss1 : ndarray of shape (n_samples,)
        ℓ(x, 0) and ℓ(x, 1).
    observed : ndarray of shape (n_samples,) or None
        ℓ(x, y), or None when ``y`` is None.

    Examples
    --------
    >>> from fairkit_shift._losses import per_sample_losses
    >>> per_sample_losses("zero_one", [0.2, 0.7], [1, 1])
    (array([0., 1.]), array([1., 0.]), array([1., 0.]))
    >>> per_sample_losses("brier", [0.2, 0.7])[:2]
    (array([0.04, 0.49]), array([0.64, 0.09]))
    """
    proba = check_numbers(proba, input_name="proba", ensure_2d=False,
                          expected="proba must hold the model's probabilities P(Y = 1 | x).")
    if proba.ndim != 1 or np.any((proba < 0) | (proba > 1)):
        raise ValueError("proba must be a 1-D array of probabilities in [0, 1] (predict_proba(X)[:, 1]); "
                         f"got shape {proba.shape}, range [{proba.min():g}, {proba.max():g}].")
    if y is not None:
        y = _check_labels(y, proba)
    if callable(loss):
        loss0, loss1 = (_call_loss(loss, np.full(len(proba), label), proba) for label in (0, 1))
    elif isinstance(loss, str) and loss == "zero_one":
        check_scalar(threshold, "threshold", numbers.Real, min_val=0, max_val=1)
        loss0 = (proba > threshold).astype(float)
        loss1 = 1.0 - loss0
    elif isinstance(loss, str) and loss == "brier":
        loss0, loss1 = proba**2, (1.0 - proba) ** 2
    else:
        raise ValueError(f"loss must be one of {list(LOSSES)} or a callable loss(y_true, proba) -> "
                         f"per-sample losses; got {loss!r}.")
    observed = None if y is None else np.where(y == 1, loss1, loss0)
    return loss0, loss1, observed


def expected_loss(mu, loss0, loss1):
    """The expected loss μℓ₁ + (1 − μ)ℓ₀ under a probability μ = P(Y = 1 | x) (Z₀ when μ = μ₀).

    Parameters
    ----------
    mu : array-like
        Probabilities of the label 1.
    loss0, loss1 : array-like
        ℓ(x, 0) and ℓ(x, 1), broadcastable with ``mu``.

    Returns
    -------
    ndarray
        The expected loss of each sample.

    Examples
    --------
    >>> from fairkit_shift._losses import expected_loss
    >>> expected_loss([0.25, 1.0], [1.0, 1.0], [0.0, 0.0])
    array([0.75, 0.  ])
    """
    mu = np.asarray(mu, dtype=float)
    return mu * np.asarray(loss1, dtype=float) + (1.0 - mu) * np.asarray(loss0, dtype=float)


def _check_labels(y, proba):
    y = np.asarray(y)
    check_consistent_length(proba, y)
    if y.ndim != 1 or not np.isin(y, (0, 1)).all():
        raise ValueError("y must be a 1-D array of labels encoded 0/1 (1 = the model's positive class); got "
                         f"values {np.unique(y)[:5].tolist()}. Encode the labels first.")
    return y.astype(int)


def _call_loss(loss, y_true, proba):
    name = getattr(loss, "__name__", type(loss).__name__)
    values = np.asarray(loss(y_true, proba), dtype=float)
    if values.shape != proba.shape or not np.isfinite(values).all():
        raise ValueError(f"the loss callable {name}(y_true, proba) must return one finite loss per sample, "
                         f"an array of shape {proba.shape}; at y_true={int(y_true[0])} it returned shape "
                         f"{values.shape} with {int(np.size(values) - np.isfinite(values).sum())} non-finite "
                         "values. Return per-sample losses (no averaging), e.g. with np.clip on log terms.")
    return values
