"""M0 and M^Shap with a real learner: four agents sharing the digits data, naive Bayes."""

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB

from fairkit_mshap import (
    LearningAccuracy,
    NoPaymentMechanism,
    ShapleyPaymentMechanism,
    best_response_dynamics,
    deviation_gains,
)

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
partitions = [(X_train[k::4], y_train[k::4]) for k in range(4)]     # four agents, 314-315 rows each
accuracy = LearningAccuracy(GaussianNB(), partitions, X_test, y_test, random_state=0)
costs = np.array([0.05, 0.1, 0.15, 0.2])                           # per fraction of her data
print("levels", accuracy.levels, " a(0) =", accuracy([[0, 0, 0, 0]])[0, 0])
for mechanism in (NoPaymentMechanism(accuracy), ShapleyPaymentMechanism(accuracy)):
    result = best_response_dynamics(mechanism, costs, [1.0] * 4, random_state=0)
    s = result.contributions
    print(f"{type(mechanism).__name__}: contributions {s}, converged {result.converged}, "
          f"largest deviation gain {deviation_gains(mechanism, costs, s).max():.3f}")
    print("  accuracy", mechanism.accuracies(s)[0].round(3), " payments", mechanism.payments(s).round(3))
print("models fitted:", accuracy.n_fits_)
