"""M0 and M^Shap on the power law: three agents, best-response dynamics, the equilibrium check."""

import numpy as np

from fairkit_mshap import (
    NoPaymentMechanism,
    PowerLawAccuracy,
    ShapleyPaymentMechanism,
    best_response_dynamics,
    deviation_gains,
)

accuracy = PowerLawAccuracy(alpha=1.0, beta=0.5)    # a(s) = 1 − (‖s‖₁ + 1)^(−1/2), shared
costs = np.array([0.004, 0.007, 0.01])               # linear costs γ_i s_i
for mechanism in (NoPaymentMechanism(accuracy), ShapleyPaymentMechanism(accuracy)):
    result = best_response_dynamics(mechanism, costs, [1.0, 1.0, 1.0], random_state=0)
    s = result.contributions
    print(f"{type(mechanism).__name__}: converged {result.converged} after {result.n_iter} rounds")
    print("  contributions ", s.round(2),
          f"  largest deviation gain {deviation_gains(mechanism, costs, s).max():.0e}")
    print("  accuracy gains", (mechanism.accuracies(s) - mechanism.accuracies([0, 0, 0])).round(4))
    print("  Shapley shares", mechanism.shapley(s).values.round(4))
    print("  payments      ", mechanism.payments(s).round(4))
    print("  utilities     ", result.utilities.round(4))
    print("  reciprocity   ", mechanism.reciprocity(s).round(3))
    print(" ", {key: round(value, 3) for key, value in mechanism.summary(s, costs).items()})
