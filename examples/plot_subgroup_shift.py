"""
Who loses performance under a shift, and why?
=============================================

A deployed model decays unevenly: after a shift, some subgroups lose much more than the
average. SHIFT (Singh, Xia, Gossmann, Chuang, Hong and Feng, "'Who experiences large model
decay and why?'", ICML 2025; plugin ``fairkit-shift``) first asks *where*: is there a
subgroup, of at least 5 % of each domain, whose expected loss rises by more than a tolerance
τ because the covariates shifted, or because the outcome given the covariates shifted? Then
*how*: which variables explain it? Each answer is a test that accounts for the search over
subgroups.

Here the same fixed model meets two targets made by ``make_subgroup_shift``, in which the
model's error rate rises by 0.2 (four times τ = 0.05) in a planted subgroup
G = {x1 > 0.84} of 20 % of the rows: once through a covariate shift (inside G, x3 moves to
where the model errs), once through an outcome shift (inside G, the labels change for the
same x). The data are simulated, so that the example runs without a data folder and the
truth is known.
"""

import matplotlib.pyplot as plt
import numpy as np

from fairkit_shift import SubgroupShiftDiagnoser, make_subgroup_shift, plot_subgroup_losses

ROUND = {"estimate": 3, "std_error": 3, "p_value": 4, "p_value_adjusted": 4, "prevalence_source": 3,
         "prevalence_target": 3}
COLUMNS = ["level", "decomposition", "subset", "reject", *ROUND]


def diagnose(design):
    data = make_subgroup_shift(design, n_samples=8000, prevalence=0.2, rise=0.2, random_state=1)
    diagnoser = SubgroupShiftDiagnoser(tolerance=0.05, min_prevalence=0.05, random_state=1)
    diagnoser.fit(data.X_source, data.y_source, data.X_target, data.y_target, data.model)
    return data, diagnoser


# %%
# A covariate shift
# -----------------
# The model is f(x) = σ(3·x2). In both domains it errs 90 % of the time on G ∩ {x3 > 0}
# and 10 % elsewhere; in the target, inside G only, x3 is drawn from N(0.67, 1) instead of
# N(0, 1), so more of G falls where the model errs. Y given X does not change.
covariate, covariate_diagnoser = diagnose("covariate")
print(covariate.description)
print(covariate_diagnoser.summary()[COLUMNS].round(ROUND).to_string(index=False))

# %%
# Stage 1 ("where", ``subset="all"``): the covariate test rejects and the outcome test
# does not. The estimate is the largest rise beyond τ of a candidate subgroup's expected
# loss (a one-step estimate, with its standard error), and the p-value, of the bootstrap
# test of the maximum over the candidates, accounts for the search; the prevalences are
# the chosen candidate's share of each domain's held-out half. Stage 2 ("how") ran only for
# the covariate decomposition, one subset per column, each tested given all the others,
# with Holm's adjustment across subsets: x3 is flagged. So is x1, with a smaller estimate:
# x3 moved only inside G = {x1 > 0.84}, so given x3 (and the rest) the distribution of x1
# changed too; a shift that acts through an interaction can be explained by each variable
# it involves. The NaN rows are subsets for which no candidate subgroup of prevalence at
# least ε was found (p-value 1).
#
# The detected subgroup, as a readable rule (a depth-3 tree fitted to the detector):
(rule,) = covariate_diagnoser.subgroups_
print(rule)
print(f"fidelity {rule.fidelity:.2f}; prevalence {rule.prevalence_source:.3f} (source), "
      f"{rule.prevalence_target:.3f} (target)")
in_rule = rule.predicate(covariate.X_target)
print(f"share of the rule's target rows inside G: {covariate.subgroup_target[in_rule].mean():.2f}")

# %%
# The rule lies inside G and takes both tails of x3 there: the low tail, where the model
# is mostly right and which the shift empties, and the high tail, where it is mostly
# wrong and which the shift fills. Within either tail the model's error rate does not
# change; together, the shift tips their balance towards the errors. This is the kind of
# subgroup a covariate shift hurts most, and the one the detector family
# 1[(Z₀(x) − λ)(ω·w(x) − 1) > τ] searches for: where the source's expected loss Z₀ and
# the density ratio w = p_T/p_S are high together, or low together.
#
# An outcome shift
# ----------------
# Now X is drawn as in the source, and inside G the model's error rate rises from 0.1 to
# 0.3 in the target: the relation between the features and the label changed there.
outcome, outcome_diagnoser = diagnose("outcome")
print(outcome.description)
print(outcome_diagnoser.summary()[COLUMNS].round(ROUND).to_string(index=False))
(rule,) = outcome_diagnoser.subgroups_
in_rule, in_g = rule.predicate(outcome.X_target), outcome.subgroup_target
print(rule)
print(f"fidelity {rule.fidelity:.2f}; Jaccard index of the rule and G in the target: "
      f"{(in_rule & in_g).sum() / (in_rule | in_g).sum():.2f}")

# %%
# This time the outcome test rejects and the covariate search finds no candidate subgroup
# of prevalence at least ε in both domains (X did not move), so its p-value is 1. The rule
# is G, up to its threshold; stage 2 flags x1, the variable the change of Y given X depends
# on, and none of the others. The estimate is below the planted 0.2 − τ = 0.15 because
# the detector (24 % of the rows, against G's 20 %) also takes in rows outside G, where
# nothing changed.
#
# The losses
# ----------
# ``subgroup_losses_`` holds the model's mean loss in each domain's held-out half,
# overall and in each rule's subgroup; ``plot_subgroup_losses`` draws them with 95 %
# intervals. Overall the model loses a few points of accuracy; in the detected subgroups
# it loses far more.
fig, axes = plt.subplots(2, 1, figsize=(7, 4.5), layout="constrained")
for ax, diagnoser, title in zip(axes, (covariate_diagnoser, outcome_diagnoser),
                                ("planted covariate shift", "planted outcome shift"), strict=True):
    plot_subgroup_losses(diagnoser, ax=ax)
    ax.set_title(title, fontsize="medium")
plt.show()

# %%
# The covariate shift's subgroup, seen in x3: inside G, the target's x3 is shifted right,
# into the region where the model errs (x3 > 0); outside G nothing moved.
fig, ax = plt.subplots(figsize=(6, 3), layout="constrained")
bins = np.linspace(-4, 4, 41)
for domain, X, in_g in (("source", covariate.X_source, covariate.subgroup_source),
                        ("target", covariate.X_target, covariate.subgroup_target)):
    ax.hist(X["x3"][in_g], bins=bins, density=True, histtype="step", linewidth=2, label=f"{domain}, in G")
ax.axvline(0, color="grey", linestyle=":")
ax.set_xlabel("x3 (the model errs 90 % of the time right of the dotted line, in G)")
ax.set_ylabel("density")
ax.legend(fontsize="small")
plt.show()
