"""Which features drive the decisions, for which group: ViaSHAP's own Shapley values, by group."""

import numpy as np
import pandas as pd

from fairkit_viashap import ViaSHAPClassifier, attribution_disparity

# Skill counts for everyone; career breaks (in years) lower the odds, and only group b has many.
rng = np.random.default_rng(0)
n = 3000
group = rng.choice(["a", "b"], size=n, p=[0.7, 0.3])
skill = rng.normal(size=n)
career_break = np.where(group == "b", rng.exponential(3.0, n), rng.exponential(0.2, n))
X = pd.DataFrame({"skill": skill, "career_break": career_break, "noise": rng.normal(size=n)})
y = rng.random(n) < 1 / (1 + np.exp(-(1.5 * skill - 0.6 * career_break + 0.5)))

# The model never sees the group; its Shapley values come with every prediction.
model = ViaSHAPClassifier((32, 32), batch_size=128, random_state=0).fit(X[:2000], y[:2000])
X_test, group_test = X[2000:], group[2000:]
phi = model.shap_values(X_test)
print("efficiency:", np.allclose(phi.sum(axis=1) + model.expected_value_, model.decision_function(X_test)))

# ci: simultaneous intervals of every group's mean |phi| and of every feature's gap
disparity = attribution_disparity(phi, group_test, feature_names=model.feature_names_in_, ci=0.95)
print(disparity[["mean_abs", "share"]].round(2))
print(disparity["gap"].round(2))
