"""Shapley values of a cooperative game: exact by enumeration, or by antithetic permutation sampling."""

from dataclasses import dataclass
from numbers import Integral

import numpy as np
from scipy.special import comb

from fairkit.utils import local_generator

__all__ = ["ShapleyResult", "shapley_values"]

MAX_EXACT_PLAYERS = 20  # 2**20 coalitions: the largest table enumeration keeps in memory
AUTO_EXACT_PLAYERS = 15


@dataclass(frozen=True)
class ShapleyResult:
    """Shapley values with their standard errors.

    Attributes
    ----------
    values : ndarray of shape (n_players,)
        The Shapley values (or their estimates); they sum to ``v(N) - v(∅)``.
    std_error : ndarray of shape (n_players,)
        Standard error of each estimate: zeros for ``method="exact"``; for ``"permutation"``
        the standard deviation of the antithetic pair means over the square root of the
        number of pairs.
    method : str
        ``"exact"`` or ``"permutation"``.
    n_evaluations : int
        Distinct coalitions whose value was computed.
    n_permutations : int
        Permutations drawn (0 for ``"exact"``).
    """

    values: np.ndarray
    std_error: np.ndarray
    method: str
    n_evaluations: int
    n_permutations: int


def bit_masks(n_players):
    """The ``2**n_players`` coalitions as rows of booleans, row ``k`` holding the players of k's bits."""
    codes = np.arange(2**n_players, dtype=np.int64)
    return ((codes[:, None] >> np.arange(n_players)) & 1).astype(bool)


def exact_weights(n_players):
    """Shapley weight ``|X|! (n - |X| - 1)! / n!`` of a coalition ``X`` not holding the player, by size."""
    sizes = np.arange(n_players)
    return 1.0 / (n_players * comb(n_players - 1, sizes, exact=False))


def default_permutations(n_players):
    """``⌈n ln n⌉`` permutations (the paper's experiments draw ⌊30 ln 30⌋ = 102), at least 100, even."""
    wanted = max(100, int(np.ceil(n_players * np.log(max(n_players, 2)))))
    return wanted + wanted % 2


def check_players(n_players):
    if not isinstance(n_players, Integral) or isinstance(n_players, bool) or n_players < 1:
        raise ValueError(f"n_players must be a positive int; got {n_players!r}.")
    return int(n_players)


def check_method(method, n_players):
    """Resolve ``method`` ("auto", "exact" or "permutation") for ``n_players`` players."""
    if method not in ("auto", "exact", "permutation"):
        raise ValueError(f"method must be 'auto', 'exact' or 'permutation'; got {method!r}.")
    if method == "auto":
        return "exact" if n_players <= AUTO_EXACT_PLAYERS else "permutation"
    if method == "exact" and n_players > MAX_EXACT_PLAYERS:
        raise ValueError(f"method='exact' enumerates 2**n_players coalitions, at most "
                         f"2**{MAX_EXACT_PLAYERS}; got n_players={n_players}. Use method='permutation'.")
    return method


def check_permutations(n_permutations, n_players):
    if n_permutations is None:
        return default_permutations(n_players)
    if (not isinstance(n_permutations, Integral) or isinstance(n_permutations, bool) or n_permutations < 2
            or n_permutations % 2):
        raise ValueError("n_permutations must be an even int >= 2 (each permutation is drawn with its "
                         f"reverse, an antithetic pair); got {n_permutations!r}.")
    return int(n_permutations)


def antithetic_permutations(n_players, n_permutations, random_state):
    """``n_permutations // 2`` random orders of the players, each followed by its reverse."""
    rng = local_generator(random_state)
    half = rng.permuted(np.tile(np.arange(n_players), (n_permutations // 2, 1)), axis=1)
    return np.stack([half, half[:, ::-1]], axis=1).reshape(n_permutations, n_players)


def prefix_masks(orders):
    """For each order (row) and step ``j``, the coalition of its first ``j`` players: (m, n + 1, n)."""
    m, n = orders.shape
    rank = np.empty_like(orders)
    rank[np.arange(m)[:, None], orders] = np.arange(n)
    return rank[:, None, :] < np.arange(n + 1)[None, :, None]


def evaluate_coalitions(value_fn, masks, *, vectorized, distinct=False):
    """``value_fn`` on each distinct row of ``masks`` (each row if ``distinct``); every row's value."""
    if distinct:
        unique, inverse = masks, np.arange(len(masks))
    else:  # rows as byte strings: sorting those is much faster than np.unique(axis=0)
        packed = np.packbits(masks, axis=1)
        keys = packed.view(np.dtype((np.void, packed.shape[1]))).reshape(-1)
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        unique = masks[first]
    if vectorized:
        values = np.asarray(value_fn(unique), dtype=float).reshape(-1)
        if values.shape != (len(unique),):
            raise ValueError(f"value_fn with vectorized=True must map an (m, n_players) boolean array to m "
                             f"values; it returned shape {np.shape(values)} for m={len(unique)}.")
    else:
        values = np.array([float(value_fn(mask)) for mask in unique])
    bad = ~np.isfinite(values)
    if bad.any():
        players = np.flatnonzero(unique[np.argmax(bad)]).tolist()
        raise ValueError(f"value_fn returned {values[np.argmax(bad)]} for the coalition of players "
                         f"{players}; every coalition needs a finite value.")
    return values[inverse.reshape(-1)], len(unique)


def shapley_values(value_fn, n_players, *, method="auto", n_permutations=None, vectorized=False,
                   random_state=None):
    """Shapley values of the game ``value_fn`` on ``n_players`` players.

    ``φ_i = Σ_{X ⊆ N∖{i}} |X|! (n − |X| − 1)! / n! · (v(X ∪ {i}) − v(X))``: player ``i``'s marginal
    contribution averaged over the orders in which the players can join (L. S. Shapley, "A value for
    n-person games", 1953). ``v(∅)`` is evaluated, not assumed zero: the values sum to ``v(N) − v(∅)``.

    Parameters
    ----------
    value_fn : callable
        The coalition's value: a boolean array of shape ``(n_players,)`` (True for a member) to a
        float; with ``vectorized=True``, an ``(m, n_players)`` array to ``m`` values.
    n_players : int
        The number of players.
    method : {"auto", "exact", "permutation"}, default="auto"
        ``"exact"`` enumerates the ``2**n_players`` coalitions (each evaluated once), for at most 20
        players; ``"permutation"`` averages the marginal contributions over random orders, each drawn
        with its reverse (antithetic pairs), every coalition evaluated once however often it recurs.
        ``"auto"``: exact up to 15 players.
    n_permutations : int, default=None
        Even number of orders for ``"permutation"``; default ``⌈n ln n⌉``, at least 100.
    vectorized : bool, default=False
        Whether ``value_fn`` takes a batch of coalitions.
    random_state : int, RandomState instance or None, default=None
        The orders drawn by ``"permutation"``.

    Returns
    -------
    ShapleyResult
        ``values``, ``std_error`` (zero when exact), ``method``, ``n_evaluations``, ``n_permutations``.

    Examples
    --------
    A glove game: player 0 holds a left glove, players 1 and 2 a right one; a pair is worth 1.

    >>> from fairkit_mshap import shapley_values
    >>> result = shapley_values(lambda m: float(m[0] and (m[1] or m[2])), 3)
    >>> result.values.round(4).tolist()
    [0.6667, 0.1667, 0.1667]
    """
    n_players = check_players(n_players)
    method = check_method(method, n_players)
    if method == "exact":
        masks = bit_masks(n_players)
        values, n_evaluations = evaluate_coalitions(value_fn, masks, vectorized=vectorized, distinct=True)
        weights = exact_weights(n_players)
        sizes = masks.sum(axis=1)
        phi = np.empty(n_players)
        for i in range(n_players):
            without = np.flatnonzero(~masks[:, i])
            phi[i] = weights[sizes[without]] @ (values[without + (1 << i)] - values[without])
        return ShapleyResult(phi, np.zeros(n_players), "exact", n_evaluations, 0)

    n_permutations = check_permutations(n_permutations, n_players)
    orders = antithetic_permutations(n_players, n_permutations, random_state)
    masks = prefix_masks(orders)
    values, n_evaluations = evaluate_coalitions(value_fn, masks.reshape(-1, n_players), vectorized=vectorized)
    steps = np.diff(values.reshape(n_permutations, n_players + 1), axis=1)
    contributions = np.empty((n_permutations, n_players))
    contributions[np.arange(n_permutations)[:, None], orders] = steps
    pair_means = contributions.reshape(-1, 2, n_players).mean(axis=1)
    std_error = pair_means.std(axis=0, ddof=1) / np.sqrt(len(pair_means)) if len(pair_means) > 1 \
        else np.full(n_players, np.nan)
    return ShapleyResult(pair_means.mean(axis=0), std_error, "permutation", n_evaluations, n_permutations)
