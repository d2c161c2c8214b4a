"""Exact Shapley values by enumerating every coalition: the yardstick for ViaSHAP's explanations.

ViaSHAP (A. Alkhatib, R. Bresson, H. Boström, M. Vazirgiannis, "Prediction via Shapley Value
Regression", ICML 2025, arXiv:2505.04775) learns Shapley values of the value function
``v(S) = f(x_S)``, where ``x_S`` keeps ``x`` on ``S`` and a baseline elsewhere. For few features
those values can be computed exactly, which is how its explanations are checked here.
"""

from math import factorial

import numpy as np
from sklearn.utils import check_array

__all__ = ["MAX_EXACT_FEATURES", "exact_shapley_values"]

MAX_EXACT_FEATURES = 12
_ROWS_PER_CALL = 1 << 16


def _coalition_masks(n_features):
    """All ``2 ** d`` coalitions, a bool array: row ``c`` holds player ``j`` iff bit ``j`` of ``c`` is set."""
    codes = np.arange(1 << n_features)
    return (codes[:, None] >> np.arange(n_features)) & 1 == 1


def _coalition_values(value_function, X, baseline, masks):
    """``v(S)`` for every row and coalition: an array (n, 2 ** d) or (n, 2 ** d, k)."""
    n, d = X.shape
    per_call = max(1, _ROWS_PER_CALL // n)
    chunks = []
    for start in range(0, len(masks), per_call):
        block = masks[start : start + per_call]
        masked = np.where(block[None], X[:, None, :], baseline).reshape(-1, d)
        out = np.asarray(value_function(masked), dtype=float)
        if out.ndim not in (1, 2) or out.shape[0] != len(masked):
            raise ValueError(
                f"value_function must map an array of shape (m, {d}) to one of shape (m,) or (m, k); "
                f"given m={len(masked)} rows it returned shape {out.shape}."
            )
        chunks.append(out.reshape(n, len(block), *out.shape[1:]))
    return np.concatenate(chunks, axis=1)


def exact_shapley_values(value_function, X, baseline):
    """Exact Shapley values of ``v(S) = value_function(x_S)`` for each row of ``X``.

    ``x_S`` takes the row's values on the coalition ``S`` and ``baseline``'s elsewhere. All
    ``2 ** d`` coalitions are evaluated (in a few calls of ``value_function`` on up to 65,536 rows
    each) and combined with the weights ``|S|! (d - |S| - 1)! / d!``.

    Parameters
    ----------
    value_function : callable
        Maps a float array (m, d) to outputs (m,) or (m, k), e.g. a model's decision function.
    X : array-like of shape (n, d)
        The rows to explain; ``d`` at most 12.
    baseline : array-like of shape (d,)
        The value of each feature when it is absent.

    Returns
    -------
    ndarray of shape (n, d), or (n, d, k) when ``value_function`` returns (m, k)
        Their sum over features is ``v(all) - v(empty)`` (efficiency).

    Examples
    --------
    >>> import numpy as np
    >>> f = lambda Z: Z[:, 0] * Z[:, 1] + Z[:, 2]
    >>> exact_shapley_values(f, np.array([[2.0, 3.0, 1.0]]), np.zeros(3))
    array([[3., 3., 1.]])
    """
    if not callable(value_function):
        raise TypeError(f"value_function must be callable, got {type(value_function).__name__}.")
    X = check_array(X, dtype=np.float64, input_name="X")
    d = X.shape[1]
    if d > MAX_EXACT_FEATURES:
        raise ValueError(
            f"X has {d} features: exact Shapley values enumerate 2 ** d coalitions and are refused above "
            f"{MAX_EXACT_FEATURES} features; use a sampling estimator (e.g. shap.KernelExplainer) instead."
        )
    baseline = np.asarray(baseline, dtype=np.float64)
    if baseline.shape != (d,) or not np.isfinite(baseline).all():
        raise ValueError(
            f"baseline must be a finite vector of shape ({d},), one value per column of X; "
            f"got shape {baseline.shape}."
        )
    masks = _coalition_masks(d)
    values = _coalition_values(value_function, X, baseline, masks)
    sizes = masks.sum(1)
    weights = np.array([factorial(s) * factorial(d - s - 1) / factorial(d) for s in range(d)])
    phi = np.empty((len(X), d, *values.shape[2:]))
    for j in range(d):  # over features (at most 12), never over rows
        without = np.flatnonzero(~masks[:, j])
        gains = values[:, without | (1 << j)] - values[:, without]
        phi[:, j] = np.tensordot(weights[sizes[without]], gains, axes=([0], [1]))
    return phi

