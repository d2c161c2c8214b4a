"""``fairkit demo mshap_free_riding``: data contributed at equilibrium without payments and under M^Shap."""

from fairkit.utils import local_generator
from fairkit_mshap._accuracy import PowerLawAccuracy
from fairkit_mshap._dynamics import best_response_dynamics
from fairkit_mshap._mechanism import NoPaymentMechanism, ShapleyPaymentMechanism


def demo(*, quick=False):
    """Ten agents with costly data, power-law accuracy: total data at equilibrium, M0 vs M^Shap."""
    n_agents = 6 if quick else 10
    costs = local_generator(0).uniform(1e-3, 1e-2, size=n_agents)
    accuracy = PowerLawAccuracy(alpha=1.0, beta=0.5)
    totals = {}
    for name, mechanism in (("M0", NoPaymentMechanism(accuracy)),
                            ("MShap", ShapleyPaymentMechanism(accuracy))):
        result = best_response_dynamics(mechanism, costs, [1.0] * n_agents, random_state=0)
        totals[name] = (result.contributions.sum(), mechanism.summary(result.contributions, costs))
    m0, mshap = totals["M0"][1], totals["MShap"][1]
    return {
        "metric": f"total data at equilibrium ({n_agents} agents, power-law accuracy, linear costs)",
        "before": m0["total_contribution"],
        "after": mshap["total_contribution"],
        "note": f"M0 -> M^Shap: mean accuracy {m0['mean_accuracy']:.3f} -> {mshap['mean_accuracy']:.3f}, "
                f"welfare {m0['welfare']:.2f} -> {mshap['welfare']:.2f}, smallest reciprocity "
                f"{m0['min_reciprocity']:.2f} -> {mshap['min_reciprocity']:.2f}",
    }
