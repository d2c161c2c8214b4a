"""FairICP in a routed Pipeline and GridSearchCV: the sensitive attributes reach fit and the scorer."""

import numpy as np
import pandas as pd
import sklearn
from sklearn.metrics import make_scorer
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from fairkit.adversarial import FairICPClassifier
from fairkit.metrics import kernel_partial_correlation

sklearn.set_config(enable_metadata_routing=True)

# Two attributes, one categorical and one continuous; a feature that mixes them with y.
rng = np.random.default_rng(0)
n = 1200
y = rng.integers(0, 2, n)
A = pd.DataFrame({"sex": rng.choice(["F", "M"], n), "age": rng.normal(40, 10, n)})
proxy = (A["sex"] == "F") + (A["age"] - 40) / 10 + 0.8 * y + 0.5 * rng.normal(size=n)
X = np.column_stack([y + rng.normal(size=n), proxy, rng.normal(size=n)])
X_train, X_test, y_train, y_test, A_train, A_test = train_test_split(X, y, A, random_state=0)

# FairICP needs A to train, not to predict: it requests sensitive_features for fit only.
fair = FairICPClassifier(max_epochs=15, batch_size=64, lr=3e-3, lr_discriminator=1e-3, random_state=0)
fair.set_fit_request(sensitive_features=True)
model = make_pipeline(StandardScaler(), fair)


# Score equalized odds on each validation fold with the kernel partial correlation of the
# predicted probabilities (0 under equalized odds); the scorer requests A as well.
def kpc(y_true, y_proba, *, sensitive_features):  # y_proba: the positive class's probability
    return kernel_partial_correlation(y_proba, sensitive_features, y_true, random_state=0)


kpc_scorer = make_scorer(kpc, response_method="predict_proba", greater_is_better=False)
kpc_scorer.set_score_request(sensitive_features=True)

search = GridSearchCV(model, {"fairicpclassifier__mu": [0.0, 0.9]}, cv=3,
                      scoring={"accuracy": "accuracy", "kpc": kpc_scorer}, refit="kpc", error_score="raise")
search.fit(X_train, y_train, sensitive_features=A_train)  # A is split with X and y in every fold
for mu, accuracy, score in zip(search.cv_results_["param_fairicpclassifier__mu"],
                               search.cv_results_["mean_test_accuracy"],
                               search.cv_results_["mean_test_kpc"], strict=True):
    print(f"mu={mu}: accuracy {accuracy:.3f}, KPC {-score:.3f}")  # the scorer negates KPC

# The refitted pipeline (the fairest mu) predicts from X alone.
y_pred = search.predict(X_test)
print(f"chosen {search.best_params_}; test accuracy {np.mean(y_pred == y_test):.3f}")
