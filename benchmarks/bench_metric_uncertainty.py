"""Intervals and noise floors of the group metrics: their coverage, and their speed against fairlearn.

Coverage: on simulated populations with known gaps (two to ten groups, parity, tiny groups),
the share of samples whose 95% interval holds the true gap, for fairkit's simultaneous
Clopper–Pearson interval (1,000 samples), a group-stratified percentile bootstrap (1,000
draws; 1,000 samples) and fairlearn's ``MetricFrame(n_boot=100)`` percentile bootstrap (40
samples: it is slow), with the mean width of each.

Speed: ``ci=0.95`` of ``demographic_parity_difference`` and ``equalized_odds_difference``,
and ``fairness_floor`` with 1,000 draws, on 20 groups, against fairlearn's bootstrap
interval of the same difference. fairlearn's cost is linear in its draws (it recomputes the
metric frame per resample), so it is timed with a few draws and its time per draw is
reported with the time 1,000 draws would take.

    python -m benchmarks.bench_metric_uncertainty [--quick]
"""

import numpy as np
from fairlearn.metrics import MetricFrame, selection_rate

from benchmarks._common import main, median_time
from fairkit.metrics import demographic_parity_difference, equalized_odds_difference, fairness_floor

SCENARIOS = {  # name: (group sizes, population selection rates, true gap)
    "2 groups, gap 0.15": ([300, 300], [0.30, 0.45], 0.15),
    "3 groups of 150-900": ([150, 600, 900], [0.2, 0.5, 0.35], 0.3),
    "10 groups, similar rates": ([100] * 10, [0.3] * 8 + [0.25, 0.35], 0.1),
    "2 groups, parity": ([300, 300], [0.3, 0.3], 0.0),
    "10 groups, parity": ([100] * 10, [0.3] * 10, 0.0),
    "tiny groups (5, 8, 400)": ([5, 8, 400], [0.2, 0.5, 0.4], 0.3),
}


def _sample(rng, sizes, rates):
    group = np.repeat(np.arange(len(sizes)), sizes)
    return (rng.random(group.size) < np.asarray(rates)[group]).astype(int), group


def _percentile_bootstrap(y_pred, group, n_boot, rng):
    """The group-stratified percentile bootstrap of the selection-rate gap (each group resampled)."""
    sizes = np.bincount(group)
    selected = np.bincount(group, y_pred)
    draws = rng.binomial(sizes, selected / sizes, size=(n_boot, len(sizes))) / sizes
    gaps = draws.max(axis=1) - draws.min(axis=1)
    return np.quantile(gaps, [0.025, 0.975])


def _fairlearn_bootstrap(y_pred, group, n_boot, seed):
    frame = MetricFrame(metrics=selection_rate, y_true=y_pred, y_pred=y_pred, sensitive_features=group,
                        n_boot=n_boot, ci_quantiles=[0.025, 0.975], random_state=seed)
    return frame.difference_ci()


def coverage(n_replications, fairlearn_replications):
    rows = []
    for name, (sizes, rates, truth) in SCENARIOS.items():
        rng = np.random.default_rng(0)
        hits = {"fairkit": [], "stratified bootstrap": [], "fairlearn bootstrap": []}
        widths = {key: [] for key in hits}
        for replication in range(n_replications):
            y_pred, group = _sample(rng, sizes, rates)
            intervals = {
                "fairkit": demographic_parity_difference(y_pred, y_pred, sensitive_features=group,
                                                         ci=0.95)[1:],
                "stratified bootstrap": _percentile_bootstrap(y_pred, group, 1000,
                                                              np.random.default_rng(replication)),
            }
            if replication < fairlearn_replications:
                intervals["fairlearn bootstrap"] = _fairlearn_bootstrap(y_pred, group, 100, replication)
            for key, (low, high) in intervals.items():
                hits[key].append(low <= truth <= high)
                widths[key].append(high - low)
        row = {"scenario": name, "true_gap": truth}
        for key in hits:
            if hits[key]:
                row[f"{key} coverage"] = float(np.mean(hits[key]))
                row[f"{key} width"] = float(np.mean(widths[key]))
                row[f"{key} replications"] = len(hits[key])
        rows.append(row)
        print("  ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()),
              flush=True)
    return rows


def _speed_at(n, fairlearn_draws):
    rng = np.random.default_rng(0)
    group = rng.integers(0, 20, n)
    y_true, y_pred = rng.integers(0, 2, n), rng.integers(0, 2, n)
    weights = rng.uniform(0.5, 2.0, n)
    kw = {"sensitive_features": group}
    calls = {
        "demographic_parity_difference(ci=0.95)":
            lambda: demographic_parity_difference(y_true, y_pred, ci=0.95, **kw),
        "equalized_odds_difference(ci=0.95)":
            lambda: equalized_odds_difference(y_true, y_pred, ci=0.95, **kw),
        "equalized_odds_difference(ci=0.95), weighted":
            lambda: equalized_odds_difference(y_true, y_pred, ci=0.95, sample_weight=weights, **kw),
        "fairness_floor(demographic_parity_difference), 1000 draws":
            lambda: fairness_floor("demographic_parity_difference", y_true, y_pred, random_state=0, **kw),
        "fairness_floor(equalized_odds_difference), 1000 draws":
            lambda: fairness_floor("equalized_odds_difference", y_true, y_pred, random_state=0, **kw),
    }
    if n <= 100_000:  # with weights every sample is drawn: n x 1000 work
        calls["fairness_floor(equalized_odds_difference), 1000 draws, weighted"] = (
            lambda: fairness_floor("equalized_odds_difference", y_true, y_pred, sample_weight=weights,
                                   random_state=0, **kw))
    peer, _ = median_time(lambda: _fairlearn_bootstrap(y_pred, group, fairlearn_draws, 0), 1)
    per_draw = peer / fairlearn_draws
    rows = []
    for label, call in calls.items():
        seconds = median_time(call, 3)[0]
        rows.append({"n_samples": n, "groups": 20, "call": label, "fairkit_s": seconds,
                     "fairlearn_bootstrap_s_per_draw": per_draw, "fairlearn_1000_draws_s": 1000 * per_draw,
                     "speedup_vs_fairlearn_1000_draws": 1000 * per_draw / seconds})
        print(f"n={n:>9,d}  {label:<62s} {seconds:8.3f}s  fairlearn 1000 draws ~{1000 * per_draw:9.1f}s "
              f"(x{1000 * per_draw / seconds:,.0f})", flush=True)
    return rows


def run(quick=False):
    return {
        "quick": quick,
        "coverage": coverage(100 if quick else 1000, 0 if quick else 40),
        "speed": [row for n in ([10_000, 100_000] if quick else [100_000, 1_000_000])
                  for row in _speed_at(n, 2 if quick else 5)],
    }


if __name__ == "__main__":
    main("metric_uncertainty", run, packages=("fairkit", "numpy", "scipy", "fairlearn"))
