"""Abstain where unsure, equally by group: SelectiveClassifier's confidences and the selective report."""

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from fairkit_uncertainty import SelectiveClassifier, selective_report

# Labels follow x0 > 0 (with noise), but are reversed in a pocket (x1 > 1.2) that a linear model
# gets confidently wrong. Group b's rows lie nearer the decision boundary: its predictions look less sure.
rng = np.random.default_rng(0)
n = 6000
group = rng.choice(["a", "b"], size=n, p=[0.7, 0.3])
X = rng.normal(size=(n, 2)) * np.where(group == "b", 0.5, 1.0)[:, None]
y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
pocket = X[:, 1] > 1.2
y[pocket] = 1 - y[pocket]
X_train, X_test, y_train, y_test, group_train, group_test = train_test_split(
    X, y, pd.Series(group, name="group"), test_size=0.5, random_state=0)

# --- confidences
# Answer 80 % of the rows; the rest get reject_label (-1). The threshold is set on out-of-fold confidences.
in_pocket = X_test[:, 1] > 1.2
classifiers = {}
for confidence in ("max_proba", "learned"):
    clf = SelectiveClassifier(confidence=confidence, coverage=0.8, random_state=0)
    classifiers[confidence] = clf.fit(X_train, y_train, sensitive_features=group_train)
    answered = clf.accepts(X_test)
    y_pred = clf.predict(X_test)
    print(f"{confidence}: answers {answered.mean():.3f} of the test rows, "
          f"{np.mean(y_pred[answered] == y_test[answered]):.3f} of them right; "
          f"answers {answered[in_pocket].mean():.2f} of the pocket; score {clf.score(X_test, y_test):.3f}")

# --- report
# The same threshold for everyone, then one per group: who is left out?
COLUMNS = ["coverage", "coverage_low", "coverage_high", "selective_accuracy", "shortfall_low", "flagged"]
shared = classifiers["max_proba"]
equal = SelectiveClassifier(confidence="max_proba", coverage=0.8, group_coverage="equal")
equal.fit(X_train, y_train, sensitive_features=group_train)
reports = {}
for name, clf in (("shared threshold", shared), ("group_coverage='equal'", equal)):
    reports[name] = report = selective_report(
        y_test, clf.estimator_.predict(X_test), clf.predict_confidence(X_test), sensitive_features=group_test,
        operating_point=clf.accepts(X_test, sensitive_features=group_test))
    print(f"{name}: flagged {report.flagged}, selective accuracy {report.overall['selective_accuracy']:.3f}")
    print(report.groups[COLUMNS].round(3).to_string())

# --- disparity
# Does abstaining widen the accuracy gap between the groups (Jones et al., 2021)?
learned = classifiers["learned"]
report = selective_report(y_test, learned.estimator_.predict(X_test), learned.predict_confidence(X_test),
                          sensitive_features=group_test, operating_point=learned.accepts(X_test))
print(report.groups[["accuracy", "selective_accuracy", "selective_accuracy_low",
                     "selective_accuracy_high"]].round(3).to_string())
print(f"accuracy gap {report.overall['accuracy_gap']:.3f} on every row, "
      f"{report.overall['selective_accuracy_gap']:.3f} on the rows answered")
print("AURC:", report.aurc.round(3).to_dict())

# --- routing
# Rows the linear model is unsure of go to a gradient-boosting model instead of being refused.
router = SelectiveClassifier(LogisticRegression(), coverage=0.8, fallback=HistGradientBoostingClassifier(
    random_state=0), random_state=0).fit(X_train, y_train, sensitive_features=group_train)
linear, boosting = router.estimator_.score(X_test, y_test), router.fallback_.score(X_test, y_test)
share = 1 - router.accepts(X_test).mean()  # of the rows sent to the fallback
at_random = (1 - share) * linear + share * boosting  # expected, sending the same share at random
print(f"accuracy: linear {linear:.3f}, boosting {boosting:.3f}; {share:.3f} of the rows routed to boosting: "
      f"{router.score(X_test, y_test):.3f}, at random {at_random:.3f}")

# --- prefit
# A model fitted elsewhere, used as it is: the fit data only set its threshold (here half the test rows).
model = LogisticRegression().fit(X_train, y_train)
prefit = SelectiveClassifier(FrozenEstimator(model), confidence="max_proba", coverage=0.8)
prefit.fit(X_test[:1500], y_test[:1500], sensitive_features=group_test.iloc[:1500])
print(f"threshold {prefit.thresholds_[0]:.3f}; coverage of the other half "
      f"{prefit.accepts(X_test[1500:]).mean():.3f}")
