"""Inverse conditional permutation (ICP): resample sensitive attributes given the label.

Lai & Guan, "FairICP: Encouraging Equalized Odds via Inverse Conditional Permutation",
ICML 2025. ICP draws a permutation σ of the rows with

    P(σ) ∝ ∏ₖ q̂(Yₖ | A_σ(k)),

and sets Ã = A[σ]. Only the one-dimensional density of Y | A is needed, whatever the
dimension of A, and Ã has the law of the conditional permutation of Berrett et al.
(2020): (Ã, Y) is distributed like (A, Y) and Ã ⊥ (X, Ŷ) | Y. The sampler is their
Markov chain of disjoint pair swaps with the Barker acceptance probability. It never
forms the n×n log-likelihood matrix: the log-likelihood objects below evaluate only
the O(n) entries each sweep needs, so memory stays O(n·K) for K classes and O(n) in
regression.

Used by :mod:`fairkit.adversarial` (a fresh Ã each training epoch) and by
:func:`fairkit.metrics.equalized_odds_test` (the null copies of the test).
"""

import numpy as np
from scipy.special import expit

from fairkit.utils._random import local_generator

__all__ = ["ClassLogLikelihood", "GaussianLogLikelihood", "ICPSampler"]

# Chains are advanced together in blocks of about this many entries (copies × samples).
_BLOCK_ENTRIES = 1 << 22


class ClassLogLikelihood:
    """``L[i, j] = log q̂(yᵢ | aⱼ)`` from class log-probabilities, without the n×n matrix.

    Parameters
    ----------
    log_proba : ndarray of shape (n_samples, n_classes)
        ``log_proba[j, k] = log q̂(k | aⱼ)``; must be finite.
    y_codes : ndarray of int of shape (n_samples,)
        The class of each sample, as a column index into ``log_proba``; a code outside
        ``0..n_classes - 1`` raises ``ValueError``.

    Examples
    --------
    >>> import numpy as np
    >>> log_lik = ClassLogLikelihood(np.log([[0.9, 0.1], [0.2, 0.8]]), np.array([0, 1]))
    >>> np.exp(log_lik(np.array([0, 1]), np.array([1, 1]))).round(2).tolist()
    [0.2, 0.8]
    """

    def __init__(self, log_proba, y_codes):
        self.log_proba = np.ascontiguousarray(log_proba, dtype=float)
        n_classes = self.log_proba.shape[1]
        y_codes = np.asarray(y_codes)
        if len(y_codes) and not (y_codes.min() >= 0 and y_codes.max() < n_classes):
            raise ValueError(f"y_codes must be class codes in 0..{n_classes - 1} (columns of log_proba); "
                             f"got values from {y_codes.min()} to {y_codes.max()}.")
        # small signed codes: the sweeps gather them at random, and less memory is faster
        self.y_codes = y_codes.astype(np.int8 if n_classes <= np.iinfo(np.int8).max else np.intp)
        self.n_samples = len(self.y_codes)
        # two classes: a swap's gain needs one log-odds per sample, not four lookups
        self._log_odds = self.log_proba[:, 1] - self.log_proba[:, 0] if self.log_proba.shape[1] == 2 else None

    def __call__(self, i, j):
        """Return ``log q̂(y[i] | a[j])`` elementwise for index arrays ``i`` and ``j``."""
        return self.log_proba[j, self.y_codes[i]]

    def swap_gain(self, yi, yj, i, j):
        """``L[yi, j] + L[yj, i] - L[yi, i] - L[yj, j]``: the log-likelihood gain of a swap."""
        ci, cj = self.y_codes.take(yi), self.y_codes.take(yj)
        if self._log_odds is not None:
            # (d[j] - d[i]) if (ci, cj) = (1, 0), its negative if (0, 1), 0 if ci = cj, with
            # d = L[·, 1] - L[·, 0]: the same floating-point operations as the general case
            return (ci - cj) * (self._log_odds.take(j) - self._log_odds.take(i))
        n_classes = self.log_proba.shape[1]
        flat, at_i, at_j = self.log_proba.reshape(-1), i * n_classes, j * n_classes
        return (flat.take(at_j + ci) - flat.take(at_j + cj)) - (flat.take(at_i + ci) - flat.take(at_i + cj))


class GaussianLogLikelihood:
    """``L[i, j] = log q̂(yᵢ | aⱼ)`` for ``q̂(· | a) = N(mean(a), std(a)²)``, up to a constant.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        The targets.
    mean, std : ndarray of shape (n_samples,)
        The conditional mean and standard deviation at each sample's attributes.

    Examples
    --------
    >>> import numpy as np
    >>> log_lik = GaussianLogLikelihood(np.array([0.0, 2.0]), np.array([0.0, 2.0]), np.ones(2))
    >>> log_lik(np.array([0, 1]), np.array([1, 1])).tolist()
    [-2.0, -0.0]
    """

    def __init__(self, y, mean, std):
        self.y = np.asarray(y, dtype=float)
        self.mean = np.asarray(mean, dtype=float)
        self.log_std = np.log(std)
        self.inv_std = 1.0 / np.asarray(std, dtype=float)
        self.n_samples = len(self.y)

    def __call__(self, i, j):
        """Return ``log q̂(y[i] | a[j])`` (without ``-log √(2π)``) for index arrays ``i``, ``j``."""
        z = (self.y[i] - self.mean[j]) * self.inv_std[j]
        return -0.5 * z * z - self.log_std[j]

    def swap_gain(self, yi, yj, i, j):
        """``L[yi, j] + L[yj, i] - L[yi, i] - L[yj, j]``: the log-likelihood gain of a swap."""
        y, mean, inv_std = self.y, self.mean, self.inv_std
        y_i, y_j, m_i, m_j = y.take(yi), y.take(yj), mean.take(i), mean.take(j)
        s_i, s_j = inv_std.take(i), inv_std.take(j)
        swapped = ((y_i - m_j) * s_j) ** 2 + ((y_j - m_i) * s_i) ** 2
        kept = ((y_i - m_i) * s_i) ** 2 + ((y_j - m_j) * s_j) ** 2
        return 0.5 * (kept - swapped)  # the log standard deviations cancel


class ICPSampler:
    """Draw inverse conditional permutations of the rows.

    The chain starts at the identity and runs ``n_sweeps`` sweeps of burn-in to a
    state Π*. Each copy then runs ``n_sweeps`` further sweeps from Π*, independently
    of the other copies: Berrett et al.'s star-shaped scheme, under which the original
    attributes and the copies are exchangeable when Y | A follows ``q̂`` (what the
    permutation test needs). A sweep pairs all rows at random into ⌊n/2⌋ disjoint
    pairs and swaps the Y-assignment of each pair with the Barker probability
    ``1 / (1 + exp(-ℓ))``, where ``ℓ`` is the log-likelihood gain of the swap.

    Parameters
    ----------
    log_likelihood : object
        The fitted density, without the n×n matrix: ``log_likelihood.n_samples`` rows, and
        ``log_likelihood.swap_gain(yi, yj, i, j)`` returning
        ``L[yi, j] + L[yj, i] - L[yi, i] - L[yj, j]`` elementwise for integer index
        arrays, with ``L[r, c] = log q̂(y[r] | a[c])`` (see :class:`ClassLogLikelihood`,
        :class:`GaussianLogLikelihood`).
    n_sweeps : int, default=50
        Sweeps of burn-in, and sweeps between Π* and each copy.
    random_state : int, RandomState instance or None, default=None
        Seed of the pairings and acceptance draws (see :func:`fairkit.utils.local_generator`).

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([0, 0, 1, 1])
    >>> log_proba = np.log([[0.9, 0.1], [0.9, 0.1], [0.1, 0.9], [0.1, 0.9]])
    >>> sampler = ICPSampler(ClassLogLikelihood(log_proba, y), random_state=0)
    >>> order = sampler.sample(3)          # A_tilde = A[order[m]] for copy m
    >>> order.shape
    (3, 4)
    >>> bool((np.sort(order, axis=1) == np.arange(4)).all())   # each row is a permutation
    True
    """

    def __init__(self, log_likelihood, *, n_sweeps=50, random_state=None):
        self.log_likelihood = log_likelihood
        self.n_sweeps = n_sweeps
        self.random_state = random_state
        self._rng = local_generator(random_state)
        self._center = None

    def sample(self, n_copies=1):
        """Draw ``n_copies`` permutations.

        Parameters
        ----------
        n_copies : int, default=1
            How many copies to draw.

        Returns
        -------
        order : ndarray of int of shape (n_copies, n_samples)
            ``A[order[m]]`` is the m-th copy Ã of the sensitive attributes: row ``k`` of
            it pairs with ``Y[k]`` with probability ∝ ∏ₖ q̂(Yₖ | A[order[m, k]]).
        """
        n = self.log_likelihood.n_samples
        if self._center is None:
            self._center = self._run(np.arange(n)[None, :])[0]
        order = np.empty((n_copies, n), dtype=np.intp)
        block = max(1, _BLOCK_ENTRIES // max(n, 1))
        for start in range(0, n_copies, block):
            states = self._run(np.tile(self._center, (min(block, n_copies - start), 1)))
            # Π maps a position (carrying Aᵢ) to the row whose Y it holds; invert it so
            # that row k receives the attributes of the position holding Yₖ
            np.put_along_axis(order[start:start + len(states)], states, np.arange(n)[None, :], axis=1)
        return order

    def _run(self, assignment):
        """Advance each row of ``assignment`` (copies × n) by ``n_sweeps`` sweeps, in place.

        One sweep: pair the positions of each chain at random, compute every pair's
        swap gain, accept each swap with the Barker probability, and write the accepted
        ones. The pairing and uniform buffers are allocated once per call, not per sweep.
        """
        log_lik, rng = self.log_likelihood, self._rng
        n_chains, n = assignment.shape
        half = n // 2
        flat = assignment.reshape(-1)
        positions = np.broadcast_to(np.arange(n), (n_chains, n))
        pairs = np.empty((n_chains, n), dtype=np.intp)
        uniform = np.empty(n_chains * half)
        offsets = (np.arange(n_chains) * n)[:, None]
        for _ in range(self.n_sweeps):
            rng.permuted(positions, axis=1, out=pairs)
            i, j = pairs[:, :half].ravel(), pairs[:, half:2 * half].ravel()
            if n_chains == 1:  # positions are flat indices
                fi, fj = i, j
            else:
                fi, fj = (pairs[:, :half] + offsets).ravel(), (pairs[:, half:2 * half] + offsets).ravel()
            yi, yj = flat.take(fi), flat.take(fj)
            gain = log_lik.swap_gain(yi, yj, i, j)
            rng.random(out=uniform)
            swapped = np.flatnonzero(uniform < expit(gain))
            flat[fi.take(swapped)] = yj.take(swapped)
            flat[fj.take(swapped)] = yi.take(swapped)
        return assignment
