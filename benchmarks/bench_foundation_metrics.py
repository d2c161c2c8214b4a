"""Group fairness metrics: fairkit against fairlearn on the same data, as speed ratios.

Random binary labels and predictions, two sensitive columns (2 x 4 = 8 intersectional
groups) and sample weights. Each metric is timed as the median of repeats; the results
also record that both libraries return the same value.

    python -m benchmarks.bench_foundation_metrics [--quick]
"""

from functools import partial

import fairlearn.metrics as flm
import numpy as np
import pandas as pd

from benchmarks._common import main, median_time
from fairkit import metrics as fkm

PAIRS = {
    "demographic_parity_difference": (fkm.demographic_parity_difference,
                                      flm.demographic_parity_difference),
    "equalized_odds_difference": (fkm.equalized_odds_difference, flm.equalized_odds_difference),
    "true_positive_rate_difference": (fkm.true_positive_rate_difference,
                                      flm.true_positive_rate_difference),
}


def _data(n, seed=0):
    rng = np.random.default_rng(seed)
    sensitive = pd.DataFrame({"sex": rng.choice(["F", "M"], n),
                              "race": rng.choice(["a", "b", "c", "d"], n)})
    return rng.integers(0, 2, n), rng.integers(0, 2, n), sensitive, rng.uniform(0.5, 2.0, n)


def _summary_fairlearn(y_true, y_pred, sensitive, weights):
    rates = {"selection_rate": flm.selection_rate, "true_positive_rate": flm.true_positive_rate,
             "false_positive_rate": flm.false_positive_rate}
    return flm.MetricFrame(metrics=rates, y_true=y_true, y_pred=y_pred,
                           sensitive_features=sensitive,
                           sample_params={k: {"sample_weight": weights} for k in rates}).by_group


def _compare(label, ours, theirs, n, repeats):
    """Time two zero-argument calls; one row of results."""
    t_ours, v_ours = median_time(ours, repeats)
    t_peer, v_peer = median_time(theirs, repeats)
    same = abs(v_ours - v_peer) if np.isscalar(v_ours) else None
    return {"metric": label, "n_samples": n, "fairkit_s": t_ours, "fairlearn_s": t_peer,
            "speedup": t_peer / t_ours, "abs_diff": same}


def run(quick=False):
    sizes = [10_000, 100_000] if quick else [10_000, 100_000, 300_000]
    repeats = 3
    rows = []
    for n in sizes:
        y_true, y_pred, sensitive, weights = _data(n)
        kw = {"sensitive_features": sensitive, "sample_weight": weights}
        for name, (ours, theirs) in PAIRS.items():
            rows.append(_compare(name, partial(ours, y_true, y_pred, **kw),
                                 partial(theirs, y_true, y_pred, **kw), n, repeats))
        rows.append(_compare("group_summary vs MetricFrame.by_group",
                             partial(fkm.group_summary, y_true, y_pred, **kw),
                             partial(_summary_fairlearn, y_true, y_pred, sensitive, weights),
                             n, repeats))
    for row in rows:
        print(f"{row['metric']:40s} n={row['n_samples']:>9,d}  fairkit {row['fairkit_s']:.4f}s  "
              f"fairlearn {row['fairlearn_s']:.4f}s  speedup x{row['speedup']:.1f}")
    return {"quick": quick, "repeats": repeats, "groups": 8, "results": rows}


if __name__ == "__main__":
    main("foundation_metrics", run, packages=("fairkit", "numpy", "pandas", "scikit-learn",
                                                "fairlearn"))
