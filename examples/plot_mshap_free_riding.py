"""
=================================================================
Free-riding, and payments that make every share earned (M^Shap)
=================================================================

Agents who train a model together each decide how much data to give. Data costs them, and the
model is shared: without payments (the mechanism M0) an agent does best to let the others give,
and at the equilibrium only the agent with the cheapest data contributes. M^Shap (Murhekar et
al., "You Get What You Give: Reciprocally Fair Federated Learning", ICML 2025; plugin
``fairkit-mshap``) pays each agent her Shapley share of the accuracy minus the accuracy she
receives: her payoff is then what she brought, the payments sum to zero, and it pays to give.

Eight agents on the paper's analytic accuracy model ``a(s) = 1 − (‖s‖₁ + 1)^(−1/2)``, with
linear costs ``γ_i s_i`` drawn at random. Both mechanisms are played by best-response dynamics
from the same start, and the equilibria compared: what each agent gives, how the total grows
along the way, who pays and who is paid, and what it does to accuracy and welfare. The data are
synthetic, so that the example runs without a data folder.
"""

import matplotlib.pyplot as plt
import numpy as np

from fairkit_mshap import (
    NoPaymentMechanism,
    PowerLawAccuracy,
    ShapleyPaymentMechanism,
    best_response_dynamics,
    deviation_gains,
)

# %%
# The game
# --------
# Agent ``i`` chooses how much data ``s_i ≥ 0`` to give; everyone gets the accuracy ``a(s)`` of
# the model trained on all of it, and pays ``γ_i s_i``. The agents are numbered from the cheapest
# data to the dearest. Each mechanism is played from ``s = 1`` for everyone: in each round one
# agent, drawn at random, moves to her best response, until nobody wants to move.
# ``deviation_gains`` then checks the end point: the most each agent could gain by changing her
# contribution alone (0 at a Nash equilibrium).
n_agents = 8
accuracy = PowerLawAccuracy(alpha=1.0, beta=0.5)
mechanisms = {"M0 (no payments)": NoPaymentMechanism(accuracy),
              "M^Shap": ShapleyPaymentMechanism(accuracy)}


def play(costs):
    """The equilibrium each mechanism reaches from s = 1, with the dynamics' trajectory."""
    return {name: best_response_dynamics(mechanism, costs, np.ones(n_agents), random_state=0)
            for name, mechanism in mechanisms.items()}


costs = np.sort(np.random.default_rng(0).uniform(1e-3, 1e-2, size=n_agents))
results = play(costs)
for name, result in results.items():
    gain = deviation_gains(mechanisms[name], costs, result.contributions).max()
    print(f"{name}: converged {result.converged} after {result.n_iter} rounds, "
          f"largest gain from deviating {gain:.1e}")
    print("   contributions", result.contributions.round(1))

# %%
# Without payments only agent 0 gives data. Her first-order condition
# ``a'(S) = γ_0`` fixes the total, ``S = (αβ/γ_0)^(1/(β+1)) − 1``; everyone else's marginal
# accuracy at that total is below her cost:
alpha, beta = accuracy.alpha, accuracy.beta
print(f"closed form of M0's total: {(alpha * beta / costs[0]) ** (1 / (beta + 1)) - 1:.2f}")

fig, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
width = 0.4
for k, (name, result) in enumerate(results.items()):
    ax.bar(np.arange(n_agents) + (k - 0.5) * width, result.contributions, width, label=name)
ax.set_xticks(np.arange(n_agents), [f"{i}\nγ={1e3 * c:.1f}" for i, c in enumerate(costs)])
ax.set(xlabel="agent (cost rate γ, ×1e-3)", ylabel="data contributed at equilibrium",
       title="Who gives data")
ax.legend()
plt.show()

# %%
# Under M^Shap every agent gives, the cheapest most. The Shapley share rewards each unit of
# data by what it adds to every coalition it could join, and each agent is paid that share,
# so a contribution is no longer a gift to the free-riders.
#
# The dynamics
# ------------
# The total data along the rounds: each step is one agent's best response.
fig, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
for name, result in results.items():
    ax.plot(result.trajectory.sum(axis=1), drawstyle="steps-post", label=name)
ax.set(xlabel="round", ylabel="total data contributed", title="Best-response dynamics from s = 1")
ax.legend()
plt.show()

# %%
# Who pays, who is paid
# ---------------------
# ``p_i = φ_i − (a(s) − a(0))``: an agent whose Shapley share exceeds the accuracy gain she
# receives (the same for everyone here) is paid the difference, the others pay it. The payments
# sum to zero: the mechanism needs no outside money.
mshap, s = mechanisms["M^Shap"], results["M^Shap"].contributions
payments = mshap.payments(s)
print("payments", payments.round(4), f"sum {payments.sum():.1e},",
      "budget balanced:", mshap.is_budget_balanced(s))
print("reciprocity (payoff / Shapley share)", mshap.reciprocity(s).round(6))

fig, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
ax.bar(np.arange(n_agents), payments, color=np.where(payments > 0, "tab:green", "tab:red"))
ax.axhline(0, color="black", linewidth=0.8)
ax.set_xticks(np.arange(n_agents))
ax.set(xlabel="agent (cheapest data first)", ylabel="payment (positive: received)",
       title="M^Shap at its equilibrium")
plt.show()

# %%
# The agents with the cheapest data give the most and are paid by those with dear data,
# who give less and receive the same model. Each agent's payoff ``a − a(0) + p`` equals her
# Shapley share exactly (reciprocity 1).
#
# Accuracy and welfare
# --------------------
# Over five random draws of the costs (the first is the one above): the total data, the
# accuracy of the shared model, and the welfare ``Σ_i (a(s) − γ_i s_i)`` (payments cancel). For
# reference, the welfare is largest when the cheapest agent alone gives
# ``S* = (n α β / γ_0)^(1/(β+1)) − 1``, where the group's marginal accuracy ``n a'(S)`` meets her cost.
cost_draws = [costs] + [np.sort(np.random.default_rng(seed).uniform(1e-3, 1e-2, size=n_agents))
                        for seed in range(1, 5)]
draws = [results] + [play(c) for c in cost_draws[1:]]
columns = ["total_contribution", "mean_accuracy", "welfare"]
table = {name: np.array([[mechanisms[name].summary(draw[name].contributions, c)[k] for k in columns]
                         for draw, c in zip(draws, cost_draws, strict=True)])
         for name in mechanisms}
optimum = []
for c in cost_draws:
    total = (n_agents * alpha * beta / c[0]) ** (1 / (beta + 1)) - 1
    best = np.zeros(n_agents)
    best[0] = total
    optimum.append([total, accuracy(best)[0, 0], n_agents * accuracy(best)[0, 0] - c[0] * total])
table["welfare optimum"] = np.array(optimum)
for name, rows in table.items():
    mean, std = rows.mean(axis=0), rows.std(axis=0, ddof=1)
    print(f"{name:17s} total data {mean[0]:6.1f} ± {std[0]:4.1f}   accuracy {mean[1]:.3f} ± {std[1]:.3f}"
          f"   welfare {mean[2]:.3f} ± {std[2]:.3f}")
ratio = table["M^Shap"] / table["M0 (no payments)"]
print(f"M^Shap / M0 per draw: data {ratio[:, 0].round(2)}, accuracy {ratio[:, 1].round(3)}")
print(f"welfare, M^Shap − M0 per draw: {(table['M^Shap'][:, 2] - table['M0 (no payments)'][:, 2]).round(3)}")

fig, axes = plt.subplots(1, 3, figsize=(10, 3.2), layout="constrained")
labels = ["total data", "accuracy a(s)", "welfare Σ(a − c)"]
for ax, column, label in zip(axes, range(3), labels, strict=True):
    for k, rows in enumerate(table.values()):
        ax.plot(np.full(len(rows), k) + np.linspace(-0.15, 0.15, len(rows)), rows[:, column], "o")
    ax.set_xticks(range(len(table)), ["M0", "M^Shap", "optimum"])
    ax.set_title(label)
fig.suptitle("Five cost draws, eight agents: the two equilibria and the welfare optimum")
plt.show()

# %%
# M^Shap collects several times the data of M0 and a more accurate model in every draw; each
# agent's payoff is her Shapley share. Welfare is another matter: it is lower than under M0 in
# every draw. M^Shap overshoots the welfare optimum: an agent's marginal Shapley share,
# ``∂φ_i/∂s_i = Σ_X w_X · n a'(s_X + s_i)``, averages the group's marginal accuracy over
# coalitions smaller than the whole, where data is worth more (``a'`` decreases), so it is at
# least ``n a'(S)``; and the dearer agents give too. Reciprocal fairness and data are what the
# mechanism buys; whether welfare rises depends on the costs and the accuracy curve, so measure it.
