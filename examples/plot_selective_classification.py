"""
Abstain or defer where unsure, fairly by group
==============================================

A ``SelectiveClassifier`` (plugin ``fairkit-uncertainty``) answers only the rows it is surest
of, and refuses the others or routes them to a stronger model. Its confidence can be the
model's largest class probability, or, as in Self-REF (Chuang et al., "Learning to Route LLMs
with Confidence Tokens", ICML 2025), a confidence learned from the model's own out-of-fold
correctness. Here a linear model is confidently wrong in a pocket of the data: the risk–coverage
curves show which confidence finds it. Then the question of Confidential Guardian (Rabanser et
al., ICML 2025): who is refused? With one threshold for everyone, the group whose rows lie
near the decision boundary is answered far less often, and ``selective_report`` flags it;
``group_coverage="equal"`` answers every group alike. Last, the rows the linear model doubts are
routed to gradient boosting, against routing the same share at random.

The data are synthetic, so that the example runs without a data folder.
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier

from fairkit_uncertainty import SelectiveClassifier, plot_risk_coverage, selective_report

# %%
# The data
# --------
# Labels follow x0 > 0 with some noise, except in a pocket (x1 > 1.2, 8 % of the rows)
# where they are reversed: a linear model gets the pocket wrong, and is sure of it. Group b
# (30 % of the rows) lies nearer the decision boundary, so the model is less sure of its rows,
# though not less often right.
rng = np.random.default_rng(0)


def sample(n):
    group = rng.choice(["a", "b"], size=n, p=[0.7, 0.3])
    X = rng.normal(size=(n, 2)) * np.where(group == "b", 0.5, 1.0)[:, None]
    y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
    pocket = X[:, 1] > 1.2
    y[pocket] = 1 - y[pocket]
    return X, y, pd.Series(group, name="group"), pocket


X, y, group, _ = sample(3000)
X_test, y_test, group_test, pocket_test = sample(10_000)

# %%
# Which confidence knows where the model is wrong?
# ------------------------------------------------
# Both classifiers wrap the same logistic regression and answer 80 % of the rows; the
# threshold is set on out-of-fold confidences, so the coverage carries over to the test rows.
# The risk–coverage curve gives the error rate among the rows answered (the selective risk)
# against the share answered; its area (AURC) summarises it (lower is better).
coverages = np.linspace(0.02, 1, 50)
reports = {}
for confidence in ("max_proba", "learned"):
    clf = SelectiveClassifier(confidence=confidence, coverage=0.8, random_state=0)
    clf.fit(X, y, sensitive_features=group)
    answered = clf.accepts(X_test)
    reports[confidence] = selective_report(
        y_test, clf.estimator_.predict(X_test), clf.predict_confidence(X_test),
        sensitive_features=group_test, coverages=coverages, operating_point=answered)
    print(f"{confidence}: answers {answered.mean():.3f} of the test rows and "
          f"{answered[pocket_test].mean():.2f} of the pocket; selective accuracy "
          f"{reports[confidence].overall['selective_accuracy']:.3f}")

fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
for confidence, report in reports.items():
    curve = report.curve[report.curve["group"] == "overall"]
    ax.plot(curve["achieved_coverage"], curve["selective_risk"],
            label=f"{confidence} (AURC {report.aurc['overall']:.3f})")
ax.axvline(0.8, color="grey", linestyle=":", linewidth=1)
ax.set(xlabel="coverage (share of rows answered)", ylabel="selective risk (error rate among answered)",
       title="The same model, two confidences", ylim=(0, None))
ax.legend()
plt.show()

# %%
# The largest probability answers the pocket first, where the model is surest and wrong, so
# its risk is high even at low coverage. The learned confidence refuses the pocket: at 80 %
# coverage the error rate among the rows answered falls from 0.133 to 0.090.
#
# Who is refused?
# ---------------
# ``selective_report`` gives each group's coverage and selective accuracy at the operating
# point, with intervals that hold for all groups at once, and flags a group whose coverage
# falls short of the rest's by more than the tolerance (0.05) even at the low end of its
# interval. Below, the largest probability with one threshold for everyone, then with one
# threshold per group. The curves are the same (the same confidences); the operating points,
# with their intervals, are not: a flagged group's marker is filled red.
COLUMNS = ["coverage", "coverage_low", "coverage_high", "selective_accuracy", "shortfall_low", "flagged"]
fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True, layout="constrained")
for ax, group_coverage in zip(axes, [None, "equal"], strict=True):
    clf = SelectiveClassifier(confidence="max_proba", coverage=0.8, group_coverage=group_coverage)
    clf.fit(X, y, sensitive_features=group)
    report = selective_report(y_test, clf.estimator_.predict(X_test), clf.predict_confidence(X_test),
                              sensitive_features=group_test,
                              operating_point=clf.accepts(X_test, sensitive_features=group_test))
    print(f"group_coverage={group_coverage!r}: flagged {report.flagged}")
    print(report.groups[COLUMNS].round(3).to_string())
    plot_risk_coverage(report, ax=ax)
    ax.set_title(f"group_coverage={group_coverage!r}\n{ax.get_title()}", fontsize="small")
plt.show()

# %%
# With one threshold group b is answered far less often than group a (69 % against 84 %),
# though the model is right on b's answered rows more often: honest caution, as the model is
# less sure near the boundary, but a denial of service for b all the same. The flag says who
# is left out, not why; the calibration audit (``calibration_audit``) tells honest
# uncertainty from feigned. One threshold per group answers both alike, at about the same
# selective accuracy.
#
# Routing to a stronger model
# ---------------------------
# With a ``fallback``, the rows the linear model doubts go to gradient boosting instead of
# being refused. Sorting the test rows once by confidence gives the accuracy for every share
# of rows sent to the fallback; sending the same share at random gives, in expectation, the
# straight line between the two models' accuracies.
shares = np.arange(len(y_test) + 1) / len(y_test)
fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
for confidence in ("max_proba", "learned"):
    router = SelectiveClassifier(confidence=confidence, coverage=0.8, random_state=0,
                                 fallback=HistGradientBoostingClassifier(random_state=0))
    router.fit(X, y, sensitive_features=group)
    order = np.argsort(router.predict_confidence(X_test), kind="stable")  # least sure first
    linear_right = router.estimator_.predict(X_test)[order] == y_test[order]
    boosting_right = router.fallback_.predict(X_test)[order] == y_test[order]
    # the k least sure rows go to boosting, the others stay with the linear model
    right = (np.concatenate([[0], np.cumsum(boosting_right)])
             + linear_right.sum() - np.concatenate([[0], np.cumsum(linear_right)]))
    ax.plot(shares, right / len(y_test), label=f"routed on {confidence}")
    share = 1 - router.accepts(X_test).mean()
    ax.plot(share, router.score(X_test, y_test), "ko", markersize=4)
    print(f"{confidence}: {share:.3f} of the rows routed, accuracy {router.score(X_test, y_test):.3f}")
linear, boosting = router.estimator_.score(X_test, y_test), router.fallback_.score(X_test, y_test)
print(f"accuracy of the linear model {linear:.3f}, of gradient boosting {boosting:.3f}")
ax.plot([0, 1], [linear, boosting], "k--", linewidth=1, label="routed at random (expected)")
ax.set(xlabel="share of rows sent to the fallback", ylabel="accuracy",
       title="Logistic regression, gradient boosting as fallback")
ax.legend(loc="lower right")
plt.show()

# %%
# The black dots are the fitted classifiers' operating points (coverage 0.8 on the fit data).
# Routed on the learned confidence, sending a fifth of the rows to gradient boosting gives
# its accuracy at a fifth of its calls; at random, the same share buys a fifth of the
# difference. Routed on the largest probability it does worse than at random: the rows the
# linear model is least sure of lie on the boundary, where the label is noise that no model
# predicts, while the pocket, where gradient boosting would help, stays with the linear model.
