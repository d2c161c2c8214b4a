"""One domain of a shift diagnosis: its samples, the model's losses, the split and the nuisance values."""

from dataclasses import dataclass, field

import numpy as np

from fairkit.utils._sklearn_compat import _safe_indexing

__all__ = ["Domain"]


@dataclass
class Domain:
    """A domain's samples, split once into a training half (nuisances, detectors) and a test half.

    Attributes
    ----------
    name : {"source", "target"}
        Which domain.
    X : array-like or DataFrame of shape (n, n_features)
        The samples, as the model takes them.
    y : ndarray of shape (n,)
        Labels encoded 0/1 (1: the model's positive class).
    loss0, loss1, loss : ndarray of shape (n,)
        The model's loss on each sample were its label 0, were it 1, and at its label.
    train, test : ndarray of int
        Positions of the training and test halves (sorted).
    mu0, z0, ratio : ndarray of shape (n,)
        Set by the diagnoser once the nuisance models are fitted: the source outcome model's
        P(Y = 1 | x), the source's expected loss Z₀(x) and the density ratio w(x) = p_T(x) / p_S(x).
    """

    name: str
    X: object
    y: np.ndarray
    loss0: np.ndarray
    loss1: np.ndarray
    loss: np.ndarray
    train: np.ndarray
    test: np.ndarray
    mu0: np.ndarray = field(default=None, repr=False)
    z0: np.ndarray = field(default=None, repr=False)
    ratio: np.ndarray = field(default=None, repr=False)

    def rows(self, values, half):
        """``values`` (X or a per-sample array) on the ``"train"`` or ``"test"`` half."""
        return _safe_indexing(values, getattr(self, half))
