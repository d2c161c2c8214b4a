"""``fairkit demo`` for RandomizedFairBOC: demographic parity on synthetic data."""

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from fairkit.datasets import make_fair_classification
from fairkit.metrics import demographic_parity_difference
from fairkit.postprocessing._fair_boc import RandomizedFairBOC


def demo(*, quick=False):
    """Logistic regression before and after the randomized fair BOC, on held-out data.

    Returns
    -------
    result : dict
        ``metric`` (the test demographic parity difference), ``before``, ``after`` and a
        ``note`` with both test accuracies.
    """
    n = 4000 if quick else 40000
    X, y, group = make_fair_classification(2 * n, 5, label_bias=0.5, feature_bias=0.5,
                                           group_weights=[0.65, 0.35], random_state=0)
    X, X_test, y, y_test, group, group_test = train_test_split(X, y, group, test_size=0.5,
                                                               random_state=0)
    plain = LogisticRegression().fit(X, y)
    fair = RandomizedFairBOC(plain, prefit=True, random_state=0).fit(X, y, sensitive_features=group)
    before = plain.predict(X_test)
    after = fair.predict(X_test, sensitive_features=group_test)
    return {
        "metric": "demographic parity difference (test)",
        "before": float(demographic_parity_difference(y_test, before, sensitive_features=group_test)),
        "after": float(demographic_parity_difference(y_test, after, sensitive_features=group_test)),
        "note": (f"accuracy {np.mean(before == y_test):.3f} -> {np.mean(after == y_test):.3f}; "
                 f"{fair.n_randomized_} of {n} fit points randomized"),
    }
