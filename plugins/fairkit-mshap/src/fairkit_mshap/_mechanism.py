"""Payment mechanisms for agents who train a model together: M^Shap and no payments (M0)."""

from numbers import Integral

import numpy as np

from fairkit.utils import local_random_state
from fairkit_mshap._accuracy import check_profiles
from fairkit_mshap._shapley import (
    antithetic_permutations,
    bit_masks,
    check_method,
    check_permutations,
    exact_weights,
    shapley_values,
)

__all__ = ["NoPaymentMechanism", "ShapleyPaymentMechanism"]

_ROWS_PER_BATCH = 2**18  # profiles per call of the accuracy function when scanning an agent's options


def check_costs(costs, n_agents):
    """``costs`` as a function from profiles (m, n) to each agent's cost of her own contribution (m, n).

    An array of n rates ``γ_i ≥ 0`` means linear costs ``γ_i s_i``; a callable is used as it is.
    """
    if callable(costs):
        return costs
    rates = np.asarray(costs, dtype=float)
    if rates.shape != (n_agents,) or not np.isfinite(rates).all() or (rates < 0).any():
        raise ValueError(f"costs must be {n_agents} finite rates >= 0 (linear costs γ_i s_i), or a callable "
                         f"from profiles (m, n_agents) to costs (m, n_agents); got {costs!r}.")
    return lambda S: S * rates


def _check_agent(agent, n_agents):
    if not isinstance(agent, Integral) or isinstance(agent, bool) or not 0 <= agent < n_agents:
        raise ValueError(f"agent must be an int from 0 to {n_agents - 1}; got {agent!r}.")


def _agent_weights(n_agents, agent, method, n_permutations, seed):
    """The coalitions without ``agent`` and their Shapley weights: φ_i = Σ_X w_X (v(X ∪ {i}) − v(X)).

    Exact: every coalition, weighted by size. Permutation: the coalitions that precede the agent in the
    sampled orders (the same orders as :func:`shapley_values` with the same seed), weighted by frequency.
    """
    if method == "exact":
        masks = bit_masks(n_agents)
        masks = masks[~masks[:, agent]]
        return masks, exact_weights(n_agents)[masks.sum(axis=1)]
    orders = antithetic_permutations(n_agents, n_permutations, seed)
    position = np.argmax(orders == agent, axis=1)
    before = np.arange(n_agents)[None, :] < position[:, None]
    masks = np.zeros((len(orders), n_agents), dtype=bool)
    masks[np.nonzero(before)[0], orders[before]] = True
    masks, counts = np.unique(masks, axis=0, return_counts=True)
    return masks, counts / len(orders)


class NoPaymentMechanism:
    """No payments (the baseline M0): each agent's utility is her accuracy minus her cost.

    Parameters
    ----------
    accuracy_fn : callable
        Contribution profiles ``(m, n_agents)`` to each agent's accuracy ``(m, n_agents)``, e.g.
        :class:`PowerLawAccuracy` or :class:`LearningAccuracy`.
    shapley : {"auto", "exact", "permutation"}, default="auto"
        How the Shapley shares are computed (see :func:`shapley_values`); M0 pays none, but its
        :meth:`reciprocity` compares the accuracies with them.
    n_permutations : int, default=None
        For ``shapley="permutation"``.
    random_state : int, RandomState instance or None, default=None
        The permutations, drawn once: the same orders at every profile, so utilities are functions
        of the profile.
    """

    def __init__(self, accuracy_fn, *, shapley="auto", n_permutations=None, random_state=None):
        if not callable(accuracy_fn):
            raise ValueError(f"accuracy_fn must be callable on profiles (m, n_agents); got {accuracy_fn!r}.")
        self.accuracy_fn = accuracy_fn
        self.shapley_method = shapley
        check_method(shapley, 2)
        self.n_permutations = n_permutations
        self._seed = int(local_random_state(random_state).randint(2**32, dtype=np.uint64))

    @property
    def levels(self):
        """The contributions an agent may choose, when finite (else None)."""
        return getattr(self.accuracy_fn, "levels", None)

    @property
    def max_contribution(self):
        """The largest contribution an agent may choose."""
        return getattr(self.accuracy_fn, "max_contribution", np.inf)

    def _profiles(self, S, input_name="s"):
        return check_profiles(S, getattr(self.accuracy_fn, "n_agents", None), upper=self.max_contribution,
                              input_name=input_name)

    def _accuracy(self, S):
        out = np.asarray(self.accuracy_fn(S), dtype=float)
        if out.shape == (len(S),):
            out = np.repeat(out[:, None], S.shape[1], axis=1)
        if out.shape != S.shape or not np.isfinite(out).all():
            raise ValueError(f"accuracy_fn must map profiles of shape {S.shape} to finite accuracies of the "
                             f"same shape (or one shared accuracy per profile); got shape {out.shape}.")
        return out

    def _total_gain(self, S):
        """``Σ_k (a_k(S) − a_k(0))`` per profile: the value of the coalition whose data ``S`` holds."""
        empty = self._accuracy(np.zeros((1, S.shape[1])))
        return (self._accuracy(S) - empty).sum(axis=1)

    def accuracies(self, s):
        """Each agent's accuracy ``a_i(s)``."""
        return self._accuracy(self._profiles(s))[0]

    def shapley(self, s):
        """Each agent's Shapley share of the total accuracy gain over no data.

        The game at profile ``s``: a coalition ``X`` is worth ``Σ_k (a_k(s[X]) − a_k(0))``, every agent's
        accuracy gain from the model trained on ``X``'s contributions alone.

        Returns
        -------
        ShapleyResult
        """
        s = self._profiles(s)[0]
        method = check_method(self.shapley_method, len(s))
        return shapley_values(lambda masks: self._total_gain(masks * s), len(s), method=method,
                              n_permutations=self.n_permutations, vectorized=True, random_state=self._seed)

    def payments(self, s):
        """Each agent's payment (positive: received): none under M0."""
        return np.zeros(self._profiles(s).shape[1])

    def utilities(self, s, costs):
        """Each agent's utility ``a_i(s) − c_i(s_i) + p_i(s)``."""
        S = self._profiles(s)
        return self._accuracy(S)[0] - check_costs(costs, S.shape[1])(S)[0] + self.payments(s)

    def reciprocity(self, s):
        """Each agent's payoff over her Shapley share, ``(a_i(s) − a_i(0) + p_i(s)) / φ_i(s)``.

        1 for every agent is reciprocal fairness; NaN where the share is zero.
        """
        S = self._profiles(s)
        phi = self.shapley(s).values
        gain = self._accuracy(S)[0] - self._accuracy(np.zeros_like(S))[0]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(np.abs(phi) > 1e-12, (gain + self.payments(s)) / phi, np.nan)

    def is_budget_balanced(self, s, *, atol=1e-10):
        """Whether the payments sum to zero (within ``atol``)."""
        return bool(abs(self.payments(s).sum()) <= atol)

    def summary(self, s, costs):
        """Total contribution, mean accuracy, welfare ``Σ (a_i − c_i)``, smallest reciprocity, payment sum."""
        S = self._profiles(s)
        a = self._accuracy(S)[0]
        return {"total_contribution": float(S.sum()), "mean_accuracy": float(a.mean()),
                "welfare": float((a - check_costs(costs, S.shape[1])(S)[0]).sum()),
                "min_reciprocity": float(np.nanmin(self.reciprocity(s))),
                "payment_sum": float(self.payments(s).sum())}

    def agent_utilities(self, agent, options, s, costs):
        """Agent ``agent``'s utility at each of her ``options``, the others contributing as in ``s``.

        Vectorised over the options: what a best response searches.
        """
        S = self._profiles(s)
        _check_agent(agent, S.shape[1])
        options = np.asarray(options, dtype=float).reshape(-1)
        profiles = np.repeat(S, len(options), axis=0)
        profiles[:, agent] = options
        profiles = self._profiles(profiles, input_name="options")
        return self._accuracy(profiles)[:, agent] - check_costs(costs, S.shape[1])(profiles)[:, agent]

    def __repr__(self):
        return f"{type(self).__name__}({self.accuracy_fn!r})"


class ShapleyPaymentMechanism(NoPaymentMechanism):
    """M^Shap: pay each agent her Shapley share of the accuracy minus the accuracy she receives.

    A. Murhekar, J. Song, P. Shahkar, B. Ray Chaudhury, R. Mehta, "You Get What You Give: Reciprocally
    Fair Federated Learning", ICML 2025. Payment ``p_i(s) = φ_i(s) − (a_i(s) − a_i(0))``, with ``φ`` the
    Shapley values of the game ``X ↦ Σ_k (a_k(s[X]) − a_k(0))``. Each agent's payoff
    ``a_i − a_i(0) + p_i`` is then her Shapley share (reciprocal fairness), and the payments sum to zero
    (budget balance) by the Shapley values' efficiency. Accuracies are counted as gains over a model
    trained on no data; where ``a(0) = 0`` this is the paper's ``p_i = φ_i − a_i``, otherwise that
    formula's payments would sum to ``−Σ_i a_i(0)`` (the user guide explains). Under M^Shap an
    agent's utility is ``a_i(0) + φ_i(s) − c_i(s_i)``.

    Parameters are those of :class:`NoPaymentMechanism`.

    Examples
    --------
    >>> from fairkit_mshap import PowerLawAccuracy, ShapleyPaymentMechanism
    >>> mechanism = ShapleyPaymentMechanism(PowerLawAccuracy(alpha=1.0, beta=0.5))
    >>> s = [1.0, 4.0, 9.0]
    >>> print(abs(mechanism.payments(s).sum()) < 1e-12, mechanism.reciprocity(s).round(12).tolist())
    True [1.0, 1.0, 1.0]
    """

    def payments(self, s):
        S = self._profiles(s)
        return self.shapley(s).values - (self._accuracy(S)[0] - self._accuracy(np.zeros_like(S))[0])

    def agent_utilities(self, agent, options, s, costs):
        S = self._profiles(s)
        _check_agent(agent, S.shape[1])
        s = S[0]
        n = len(s)
        options = np.asarray(options, dtype=float).reshape(-1)
        method = check_method(self.shapley_method, n)
        masks, weights = _agent_weights(n, agent, method, check_permutations(self.n_permutations, n)
                                        if method == "permutation" else None, self._seed)
        base = self._total_gain(masks * s) @ weights
        joined = masks * s  # the agent's column is set to each option below
        shares = np.empty(len(options))
        step = max(1, _ROWS_PER_BATCH // len(masks))
        for start in range(0, len(options), step):
            chunk = options[start:start + step]
            profiles = np.repeat(joined[None], len(chunk), axis=0)
            profiles[:, :, agent] = chunk[:, None]
            profiles = self._profiles(profiles.reshape(-1, n), input_name="options")
            shares[start:start + step] = self._total_gain(profiles).reshape(len(chunk), -1) @ weights - base
        profiles = np.repeat(S, len(options), axis=0)
        profiles[:, agent] = options
        empty = self._accuracy(np.zeros((1, n)))[0, agent]
        return empty + shares - check_costs(costs, n)(profiles)[:, agent]

