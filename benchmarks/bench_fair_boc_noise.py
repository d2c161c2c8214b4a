"""Noise robustness of the randomized vs the deterministic fair rule (the example's experiment, more seeds).

Clean-population accuracy of both rules fitted on data with malicious noise rate
α ∈ {0, 0.005, …, 0.1}, for both strategies of ``inject_malicious_noise``; the
experiment itself lives in ``examples/plot_fair_boc_noise_robustness.py``.
Reported per rule: the mean curve, its largest one-step drop, and the α at which
the mean drops by more than 0.01 in one step.

    python -m benchmarks.bench_fair_boc_noise [--quick]
"""

import importlib.util
from pathlib import Path

import numpy as np

from benchmarks._common import main

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "plot_fair_boc_noise_robustness.py"


def _experiment():
    spec = importlib.util.spec_from_file_location("plot_fair_boc_noise_robustness", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(quick=False):
    experiment = _experiment()
    alphas = np.round(np.arange(0.0, 0.1001, 0.01 if quick else 0.005), 3)
    seeds = range(3 if quick else 10)
    results = {"alphas": alphas.tolist(), "n_seeds": len(seeds), "n_samples": 50_000,
               "tolerance": 0.02, "constraint": "demographic_parity"}
    for strategy in ("duplicate", "relabel"):
        curves = experiment.noise_curves(alphas, seeds, strategy=strategy)
        for randomized, name in ((True, "randomized"), (False, "deterministic")):
            mean = curves[randomized].mean(axis=0)
            results[f"{strategy}_{name}"] = {
                "mean_accuracy": mean.tolist(),
                "std_accuracy": curves[randomized].std(axis=0).tolist(),
                "largest_one_step_drop": float(np.max(-np.diff(mean))),
                "jumps_at_alpha": experiment.jumps(alphas, mean),
            }
            print(f"{strategy:<9} {name:<13} accuracy {mean[0]:.3f} -> {mean[-1]:.3f}, largest "
                  f"step drop {np.max(-np.diff(mean)):.3f}, jumps at {experiment.jumps(alphas, mean)}",
                  flush=True)
    return results


if __name__ == "__main__":
    main("fair_boc_noise", run)
