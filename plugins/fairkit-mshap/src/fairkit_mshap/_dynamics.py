"""Best-response dynamics of the contribution game, and the check that a profile is an equilibrium."""

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from scipy.optimize import minimize_scalar

from fairkit.utils import local_generator

__all__ = ["DynamicsResult", "best_response_dynamics", "deviation_gains"]


@dataclass(frozen=True)
class DynamicsResult:
    """What best-response dynamics reached.

    Attributes
    ----------
    contributions : ndarray of shape (n_agents,)
        The last profile.
    trajectory : ndarray of shape (n_iter + 1, n_agents)
        Every profile from the start.
    utilities : ndarray of shape (n_agents,)
        Each agent's utility at the last profile.
    converged : bool
        Whether every agent's best response to the last profile was her own contribution (within ``tol``).
    n_iter : int
        Rounds run.
    """

    contributions: np.ndarray
    trajectory: np.ndarray
    utilities: np.ndarray
    converged: bool
    n_iter: int


def _options(mechanism, current, grid_size):
    """The contributions a best response compares: the finite levels, or a grid over [0, max]."""
    if mechanism.levels is not None:
        return np.asarray(mechanism.levels, dtype=float)
    top = mechanism.max_contribution
    if not np.isfinite(top):
        raise ValueError("the accuracy function must say which contributions an agent may choose: a finite "
                         "max_contribution or levels.")
    half = grid_size // 2
    return np.unique(np.concatenate([[0.0, current], np.linspace(0.0, top, half),
                                     np.geomspace(top * 1e-7, top, grid_size - half)]))


def best_response(mechanism, costs, agent, s, *, grid_size=241, xtol=1e-10):
    """Agent ``agent``'s best contribution against ``s``, her utility there, and her utility at ``s``.

    A finite set of levels is searched exhaustively; an interval by a grid (linear and geometric
    points), then Brent's bounded search between the best grid point's neighbours. The current
    contribution wins ties, so a profile where nobody gains is left alone.
    """
    current = float(s[agent])
    options = _options(mechanism, current, grid_size)
    values = mechanism.agent_utilities(agent, options, s, costs)
    now = values[np.flatnonzero(options == current)[0]] if (options == current).any() else \
        mechanism.agent_utilities(agent, [current], s, costs)[0]
    best = int(np.argmax(values))
    x, u = options[best], values[best]
    if mechanism.levels is None:
        lo, hi = options[max(best - 1, 0)], options[min(best + 1, len(options) - 1)]
        if hi > lo:
            found = minimize_scalar(lambda z: -mechanism.agent_utilities(agent, [z], s, costs)[0],
                                    bounds=(lo, hi), method="bounded",
                                    options={"xatol": xtol * max(1.0, abs(options[best]))})
            if -found.fun > u:
                x, u = float(found.x), float(-found.fun)
    if u <= now:
        return current, now, now
    return float(x), float(u), float(now)


def deviation_gains(mechanism, costs, s, *, grid_size=2001):
    """How much each agent gains by her best unilateral deviation from ``s`` (0 at a Nash equilibrium).

    Parameters
    ----------
    mechanism : NoPaymentMechanism or ShapleyPaymentMechanism
    costs : array-like of shape (n_agents,) or callable
        Linear cost rates, or a callable from profiles to each agent's cost.
    s : array-like of shape (n_agents,)
        The profile.
    grid_size : int, default=2001
        Points of the grid searched over a continuous contribution interval before Brent's refinement.

    Returns
    -------
    ndarray of shape (n_agents,)
    """
    s = mechanism._profiles(s)[0]
    responses = [best_response(mechanism, costs, i, s, grid_size=grid_size) for i in range(len(s))]
    return np.array([best - now for _, best, now in responses])


def best_response_dynamics(mechanism, costs, s0, *, n_iter=1000, step=None, n_movers=1, tol=1e-6,
                           random_state=None):
    """Let agents in turn change their contribution to what pays them best, until nobody wants to.

    Each round ``n_movers`` agents drawn at random respond, together, to the current profile: with
    ``step=None`` each moves to her best response (exactly, see :func:`deviation_gains`); with a
    ``step``, by a projected gradient-ascent step ``s_i + step · ∂u_i/∂s_i`` (central differences),
    the stochastic dynamics of Murhekar et al. (ICML 2025). It stops when every agent has responded
    since the last change without moving by more than ``tol``.

    Parameters
    ----------
    mechanism : NoPaymentMechanism or ShapleyPaymentMechanism
    costs : array-like of shape (n_agents,) or callable
        Linear cost rates ``γ_i``, or a callable from profiles ``(m, n_agents)`` to each agent's cost.
    s0 : array-like of shape (n_agents,)
        The starting contributions.
    n_iter : int, default=1000
        Largest number of rounds.
    step : float, default=None
        Gradient step, for a continuous contribution interval; None for exact best responses.
    n_movers : int, default=1
        Agents who respond each round.
    tol : float, default=1e-6
        A move smaller than ``tol · max(1, |s_i|)`` is no move.
    random_state : int, RandomState instance or None, default=None
        Who moves when.

    Returns
    -------
    DynamicsResult

    Examples
    --------
    Without payments only the agent with the cheapest data contributes, ``(αβ/γ_1)^(1/(β+1)) − 1 = 24``;
    under M^Shap all do.

    >>> from fairkit_mshap import (NoPaymentMechanism, PowerLawAccuracy, ShapleyPaymentMechanism,
    ...                            best_response_dynamics)
    >>> accuracy, costs = PowerLawAccuracy(alpha=1.0, beta=0.5), [0.004, 0.007, 0.01]
    >>> for mechanism in (NoPaymentMechanism(accuracy), ShapleyPaymentMechanism(accuracy)):
    ...     result = best_response_dynamics(mechanism, costs, [1.0, 1.0, 1.0], random_state=0)
    ...     print(result.converged, result.contributions.round(1).tolist())
    True [24.0, 0.0, 0.0]
    True [37.7, 21.6, 15.4]
    """
    s = mechanism._profiles(s0, input_name="s0")[0].copy()
    n = len(s)
    if not isinstance(n_iter, Integral) or isinstance(n_iter, bool) or n_iter < 1:
        raise ValueError(f"n_iter must be a positive int; got {n_iter!r}.")
    if not isinstance(n_movers, Integral) or isinstance(n_movers, bool) or not 1 <= n_movers <= n:
        raise ValueError(f"n_movers must be an int from 1 to the number of agents ({n}); got {n_movers!r}.")
    if step is not None:
        if not isinstance(step, Real) or isinstance(step, bool) or not step > 0:
            raise ValueError(f"step must be a positive number, or None for exact best responses; "
                             f"got {step!r}.")
        if mechanism.levels is not None:
            raise ValueError("step needs a continuous contribution interval; this accuracy function offers "
                             "finite levels, which take exact best responses (step=None).")
    if not isinstance(tol, Real) or not tol >= 0:
        raise ValueError(f"tol must be a number >= 0; got {tol!r}.")
    rng = local_generator(random_state)
    trajectory, settled, converged = [s.copy()], np.zeros(n, dtype=bool), False
    for _ in range(n_iter):
        movers = rng.choice(n, size=n_movers, replace=False)
        new = s.copy()
        for i in movers:
            new[i] = best_response(mechanism, costs, i, s)[0] if step is None else \
                _gradient_step(mechanism, costs, i, s, step)
        moved = np.abs(new - s) > tol * np.maximum(1.0, np.abs(s))
        if moved.any():
            settled[:] = False
        else:
            settled[movers] = True
        s = new
        trajectory.append(s.copy())
        if settled.all():
            converged = True
            break
    return DynamicsResult(s, np.array(trajectory), mechanism.utilities(s, costs), converged,
                          len(trajectory) - 1)


def _gradient_step(mechanism, costs, agent, s, step):
    """``s_i + step · ∂u_i/∂s_i``, projected on [0, max_contribution]; ∂ by central differences."""
    top = mechanism.max_contribution
    h = 1e-6 * max(1.0, s[agent])
    lo, hi = max(s[agent] - h, 0.0), min(s[agent] + h, top)
    low, high = mechanism.agent_utilities(agent, [lo, hi], s, costs)
    return float(np.clip(s[agent] + step * (high - low) / (hi - lo), 0.0, top))
