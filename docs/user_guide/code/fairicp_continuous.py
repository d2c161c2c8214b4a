"""A continuous sensitive attribute: equalized odds measured with KPC and the ICP test, not group metrics."""

import numpy as np
from sklearn.model_selection import train_test_split

from fairkit.adversarial import FairICPClassifier
from fairkit.metrics import equalized_odds_test, kernel_partial_correlation

# Age is the sensitive attribute: continuous, so it has no groups to compare. One feature
# carries it (and y), so a plain network's predictions depend on age given y.
rng = np.random.default_rng(0)
n = 1500
y = rng.integers(0, 2, n)
age = rng.normal(40, 10, n)
X = np.column_stack([y + rng.normal(size=n), (age - 40) / 10 + 0.8 * y + 0.5 * rng.normal(size=n),
                     rng.normal(size=n)])
X_train, X_test, y_train, y_test, age_train, age_test = train_test_split(X, y, age, random_state=0)

params = {"max_epochs": 20, "batch_size": 64, "lr": 3e-3, "lr_discriminator": 1e-3, "discriminator_steps": 2,
          "random_state": 0}
results = {}
for mu in (0.0, 0.9):  # mu=0 is the plain network
    model = FairICPClassifier(mu=mu, **params).fit(X_train, y_train, sensitive_features=age_train)
    proba = model.predict_proba(X_test)[:, 1]
    # rho^2(Y_hat, A | Y): 0 under equalized odds, up to 1
    kpc = kernel_partial_correlation(proba, age_test, y_test, random_state=0)
    # FairICP's permutation test of equalized odds: a small p-value rejects it
    statistic, pvalue = equalized_odds_test(proba, y_test, sensitive_features=age_test, random_state=0)
    accuracy = np.mean(model.predict(X_test) == y_test)
    results[mu] = {"accuracy": accuracy, "kpc": kpc, "pvalue": pvalue}
    print(f"mu={mu}: accuracy {accuracy:.3f}, KPC {kpc:.3f}, equalized-odds test p = {pvalue:.2f}")
