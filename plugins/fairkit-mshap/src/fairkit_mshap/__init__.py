"""fairkit-mshap: reciprocally fair payments for agents who train a model together (M^Shap).

A. Murhekar, J. Song, P. Shahkar, B. Ray Chaudhury, R. Mehta, "You Get What You Give: Reciprocally
Fair Federated Learning", ICML 2025 (OpenReview ZdmMDz33Io). Agents who train a model together choose
how much data to contribute; data costs them, so without payments they free-ride. M^Shap pays each agent
her Shapley share of the accuracy minus the accuracy she receives: her payoff equals her contribution,
the payments sum to zero, and simulated agents contribute more. This package computes Shapley values,
the mechanism, best-response dynamics and the equilibrium check, on the paper's analytic accuracy model
or on a real scikit-learn model retrained for each contribution profile.

Registered with fairkit through the ``mshap`` entry point of the ``fairkit`` group.
"""

from fairkit_mshap._accuracy import LearningAccuracy, PowerLawAccuracy
from fairkit_mshap._dynamics import DynamicsResult, best_response_dynamics, deviation_gains
from fairkit_mshap._mechanism import NoPaymentMechanism, ShapleyPaymentMechanism
from fairkit_mshap._shapley import ShapleyResult, shapley_values

__version__ = "0.1.0.dev0"

__all__ = ["DynamicsResult", "LearningAccuracy", "NoPaymentMechanism", "PowerLawAccuracy",
           "ShapleyPaymentMechanism", "ShapleyResult", "best_response_dynamics", "deviation_gains",
           "shapley_values", "__version__"]
