"""
Auditing a table for group fairness
===================================

:func:`fairkit.audit.audit` is what ``fairkit audit data.csv ...`` runs: it fits an
unconstrained baseline and the registered fair methods on a table, and scores each on a
held-out set with accuracy and every group fairness metric, overall and by group.
Here the table is synthetic: a score that depends on the group, and a label that depends
on the score.
"""

# %%
# A biased table
# --------------
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fairkit.audit import audit

rng = np.random.default_rng(0)
n = 3000
group = rng.choice(["A", "B"], size=n, p=[0.7, 0.3])
experience = rng.gamma(2.0, 2.0, size=n) + 1.5 * (group == "A")
sector = rng.choice(["retail", "tech", "health"], size=n)
score = 0.4 * experience + 0.8 * (sector == "tech") + rng.normal(size=n)
table = pd.DataFrame({"experience": experience, "sector": sector, "group": group,
                      "hired": np.where(score > 2.0, "yes", "no")})
table.head()

# %%
# The audit
# ---------
# The sensitive column is not a feature: the baseline never sees it, the fair methods get
# it as ``sensitive_features``.
result = audit(table, target="hired", positive_label="yes", sensitive="group")
print(result.to_text())

# %%
# Selection rate by group
# -----------------------
# The gap between the bars is the demographic parity difference of each model.
rates = pd.DataFrame({model: frame["selection_rate"] for model, frame in result.by_group.items()})
ax = rates.plot.bar(rot=0, figsize=(6, 3.5))
ax.set_ylabel("selection rate")
ax.set_title("Who gets a positive prediction, by group")
plt.tight_layout()
plt.show()
