"""Choosing mu with a fairness scorer: the groups are columns of X (sensitive_cols), routed to the scorer."""

import numpy as np
import pandas as pd
import sklearn
from sklearn.model_selection import GridSearchCV, train_test_split

from fairkit.adversarial import FairICPClassifier
from fairkit.metrics import equalized_odds_deviation, fairness_floor, make_fairness_scorer

sklearn.set_config(enable_metadata_routing=True)

# Sex and race are columns of X; a feature mixes y with sex, and race has a small group.
rng = np.random.default_rng(0)
n = 1500
y = rng.integers(0, 2, n)
X = pd.DataFrame({"sex": rng.choice(["F", "M"], n), "race": rng.choice(["a", "b"], n, p=[0.85, 0.15])})
X["x0"] = y + rng.normal(size=n)
X["x1"] = (X["sex"] == "F") + 0.8 * y + 0.5 * rng.normal(size=n)
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
groups = ["sex", "race"]

# FairICP reads the groups from X (sensitive_cols) to train, and never to predict.
fair = FairICPClassifier(sensitive_cols=groups, adversary_weights="cells", validation_fraction=0.2,
                         max_epochs=15, batch_size=64, lr=3e-3, lr_discriminator=1e-3, random_state=0)
fair.set_fit_request(sensitive_features=False)  # the routed groups are for the scorer only

# The scorer gets each validation fold's groups through metadata routing.
deo = make_fairness_scorer("equalized_odds_deviation")  # negated: greater is fairer
search = GridSearchCV(fair, {"mu": [0.0, 0.9]}, cv=3, scoring={"accuracy": "accuracy", "deo": deo},
                      refit="deo", error_score="raise")
search.fit(X_train, y_train, sensitive_features=X_train[groups])
results = search.cv_results_
for mu, accuracy, score in zip(results["param_mu"], results["mean_test_accuracy"], results["mean_test_deo"],
                               strict=True):
    print(f"mu={mu}: accuracy {accuracy:.3f}, DEO {-score:.3f}")

# The refitted model predicts from X; the sensitive columns' values are not read.
y_pred = search.predict(X_test)
floor = fairness_floor("equalized_odds_deviation", y_test, y_pred, sensitive_features=X_test[groups],
                       random_state=0)
print(f"chosen {search.best_params_}: test accuracy {np.mean(y_pred == y_test):.3f}, "
      f"DEO {equalized_odds_deviation(y_test, y_pred, sensitive_features=X_test[groups]):.3f} "
      f"(an exactly fair rule shows up to {floor.quantile:.3f} here)")
