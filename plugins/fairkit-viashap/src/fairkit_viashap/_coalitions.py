"""Coalitions for ViaSHAP's Shapley loss: Shapley-kernel sizes, uniform subsets, paired complements.

ViaSHAP (A. Alkhatib, R. Bresson, H. Boström, M. Vazirgiannis, "Prediction via Shapley Value
Regression", ICML 2025, arXiv:2505.04775) draws its coalitions with fastshap's ``ShapleySampler``:
the size ``k`` in ``{1, ..., d - 1}`` with probability proportional to ``1 / (k (d - k))``, then a
uniform subset of that size, each followed by its complement (paired sampling).
"""

import numbers

import torch

__all__ = ["sample_coalitions", "shapley_size_probabilities"]


def shapley_size_probabilities(n_features):
    """The Shapley kernel over coalition sizes: ``p(k) ∝ 1 / (k (d - k))`` for ``k = 1..d-1``.

    Examples
    --------
    >>> shapley_size_probabilities(4)  # 1/3, 1/4, 1/3 normalised: 4/11, 3/11, 4/11
    tensor([0.3636, 0.2727, 0.3636], dtype=torch.float64)
    """
    k = torch.arange(1, n_features, dtype=torch.float64)
    weights = 1.0 / (k * (n_features - k))
    return weights / weights.sum()


def _check_int(name, value, minimum):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}.")
    return int(value)


def sample_coalitions(n_samples, n_features, n_coalitions, generator=None):
    """Draw ``n_coalitions`` paired coalitions of ``n_features`` players for each of ``n_samples`` rows.

    Parameters
    ----------
    n_samples : int
        Number of rows, at least 1.
    n_features : int
        Number of players ``d``, at least 2 (with one player there is no proper coalition).
    n_coalitions : int
        Coalitions per row: even and at least 2. Coalition ``2i`` has a size drawn from
        :func:`shapley_size_probabilities` and a uniform subset of that size; coalition ``2i + 1``
        is its complement.
    generator : torch.Generator or None, default=None
        The source of randomness (None: torch's global generator).

    Returns
    -------
    Tensor of bool, shape (n_samples, n_coalitions, n_features)
        True where a player is in the coalition.

    Examples
    --------
    >>> import torch
    >>> S = sample_coalitions(2, 5, 4, torch.Generator().manual_seed(0))
    >>> S.shape, bool((S[:, 1::2] == ~S[:, 0::2]).all())
    (torch.Size([2, 4, 5]), True)
    """
    n_samples = _check_int("n_samples", n_samples, 1)
    n_features = _check_int("n_features", n_features, 2)
    n_coalitions = _check_int("n_coalitions", n_coalitions, 2)
    if n_coalitions % 2:
        raise ValueError(
            f"n_coalitions must be even (each coalition is paired with its complement), got {n_coalitions}; "
            f"use {n_coalitions + 1}."
        )
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator or None, got {type(generator).__name__}.")
    n_pairs = n_coalitions // 2
    probabilities = shapley_size_probabilities(n_features)
    sizes = 1 + torch.multinomial(probabilities, n_samples * n_pairs, replacement=True, generator=generator)
    keys = torch.rand(n_samples, n_pairs, n_features, generator=generator)
    ranks = keys.argsort(dim=-1).argsort(dim=-1)  # a uniform random permutation of 0..d-1 per coalition
    first = ranks < sizes.view(n_samples, n_pairs, 1)
    return torch.stack([first, ~first], dim=2).reshape(n_samples, n_coalitions, n_features)
