"""fairkit-shift measured: calibration, power, stage 2, speed and a real case of ``SubgroupShiftDiagnoser``.

The diagnoser is the hierarchical test of H. Singh, F. Xia, A. Gossmann, A. Chuang, J. C. Hong,
J. Feng, "'Who experiences large model decay and why?' A hierarchical framework for diagnosing
heterogeneous performance drift", ICML 2025 (arXiv:2506.00756). Stage 1 ("where") tests, per
decomposition (``covariate``, ``outcome``), whether a subgroup of prevalence ≥ ε = 0.05 sees the
model's 0-1 loss rise by more than τ = 0.05; stage 2 ("how") tests each variable subset, Holm
across subsets. Every simulation draws its data with
:func:`fairkit_shift.make_subgroup_shift` (5 features, G = {x1 > z}, A = {x3 > 0}, baseline
error 0.1, model σ(3·x2)); "n" is rows per domain, each replication has its own seed (data and
diagnoser), the diagnoser runs at its defaults (α = 0.05, n_bootstrap = 10,000, the bootstrap
is cheap) unless said otherwise. Replications run in 2 joblib workers, one OpenMP thread each.
A rate's ``low`` / ``high`` are its exact 95 % Clopper-Pearson interval over the replications.

* ``calibration``: designs ``none`` (target drawn as the source) and ``sub_tolerance`` (the
  covariate design with rise τ/2: no subgroup of prevalence ≥ ε rises by more than τ, since
  ε = 0.05 ≥ 0.3·prevalence), prevalence 0.1, n = 4,000; per decomposition the stage-1 rejection
  rate; target ``rate ≤ α + 0.03`` (``within_target``).
* ``power``: the issue's setting, planted covariate and planted outcome shift, prevalence 0.1,
  rise 2τ = 0.1, n = 4,000: the rejection rate of the right decomposition (``role`` right, target
  ≥ 0.8) and of the other one (``role`` other, target ≤ α + 0.03). ``oracle_power`` is the power
  of a one-sided z-test that knows G and uses the test halves (n·p/2 rows per domain):
  Φ((rise − τ)/se − 1.645), se = √((ℓ_S(1 − ℓ_S) + ℓ_T(1 − ℓ_T))/(n·p/2)), ℓ_S the source loss in
  G (0.5 covariate, 0.1 outcome), ℓ_T = ℓ_S + rise: no test that searches for G can beat it.
  ``rule_jaccard`` is the mean Jaccard index between the rule found (``subgroups_``, on the
  source rows) and G, over the replications where the right decomposition rejected. Stage 2 runs
  after a rejection; here with the one subset {x3} to keep the cost down (it is not measured).
  The second pair of rows per design is the setting of the CI test ``test_evidence.py``:
  prevalence 0.2, rise 4τ, n = 8,000, the basis of its binomial bound.
* ``density_ratio``: why the covariate test is blind at prevalence 0.1 and n = 4,000. The density
  ratio w = p_T(x)/p_S(x) fitted as the diagnoser fits it (default classifier, half of each
  domain) against the truth (exp(μ·x3 − μ²/2) in G, 1 outside), averaged over the source rows of
  G ∩ {x3 > 0}, G ∩ {x3 ≤ 0} and outside G, and its spread (``sd``) over all rows: with a shift
  confined to 10 % of the rows and acting through an interaction, a flat fitted w means that no
  covariate detector can separate the region whose loss rose.
* ``power_curve``: the same at rise ∈ {τ, 2τ, 3τ, 4τ} and n ∈ {4,000, 20,000}, fewer
  replications (``replications``: 50 per point); ``rate`` is the right decomposition's,
  ``other_rate`` the other's. (The 2τ, n = 4,000 point is the ``power`` run, 200 replications.)
* ``stage_two``: designs ``conditional_covariate`` and ``conditional_outcome`` (prevalence 0.2,
  rise 4τ = 0.2, n = 8,000), ``variable_groups = {"x3": ["x3"], "x4": ["x4"]}``: ``stage1_rate``
  the right decomposition's stage-1 rate, ``x3_flagged`` / ``x4_flagged`` the share of
  replications where stage 2 rejects the subset (Holm-adjusted p ≤ α; not run, so not flagged,
  when stage 1 did not reject), ``rate`` the share where x3 is flagged and x4 is not (target
  ≥ 0.8).
* ``speed``: the whole diagnosis (stage 1, then stage 2 with the default one subset per column,
  5 columns) on design ``covariate`` (rise 0.2) at 20,000 + 20,000 rows, ``n_jobs=2``, median of 3
  fits (target < 120 s on 2 cores); ``bootstrap``: the multiplier-bootstrap max test alone
  (``max_multiplier_test``, 10,000 draws, 5 candidates, 10,000 + 10,000 rows): median seconds of
  3 and peak traced memory (tracemalloc) in MB, which shows it is vectorised (one
  (draws × candidates) matrix; a Python loop over draws would take seconds).
* ``adult``: the UCI Adult data (``fetch_adult``; skipped with a message when the files are
  absent). ``native_country``: a histogram gradient boosting classifier trained on a stratified
  half of the US rows; source = the other half, target = the non-US rows ("?" dropped);
  ``native-country`` (it defines the domain), ``fnlwgt`` and ``education`` (a copy of
  ``education-num``) are not features. Diagnosis with τ = 0.05, ε = 0.05 and the subsets age; sex;
  race; education-num; {marital-status, relationship}; {workclass, occupation, hours-per-week};
  {capital-gain, capital-loss}. Reported: the summary, each rejected decomposition's rule
  (``subgroups_``: text, fidelity, prevalences) and the mean loss with its standard error per
  domain, overall and in each rule's subgroup (``subgroup_losses_``). ``control``: the same with
  the model trained on half of ``adult.data``, source = the other half, target = ``adult.test``
  (the same census, no intended shift): expected to reject nothing.

The speed and Adult sections also run one OpenMP thread per process (joblib gives its workers
one): on a shared machine OpenMP threads spin-wait and slow everything down.

Floats are rounded to 4 significant digits. A quick run (a smoke test) uses 4 replications,
the power curve at n = 4,000 only, the speed case at 4,000 + 4,000 rows once, and 5,000 source
rows on Adult.

    python -m benchmarks run shift [--quick]
"""

import time

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from scipy.stats import norm
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

from benchmarks._common import main, median_time, peak_traced_memory
from fairkit.datasets import fetch_adult
from fairkit.metrics import clopper_pearson
from fairkit_shift import SubgroupShiftDiagnoser, make_subgroup_shift
from fairkit_shift._bootstrap import max_multiplier_test
from fairkit_shift._datasets import covariate_shift_mean
from fairkit_shift._estimators import ShiftEstimate
from fairkit_shift._nuisance import fit_density_ratio

PACKAGES = ("fairkit", "fairkit-shift", "numpy", "scipy", "scikit-learn", "pandas", "joblib")
ALPHA, TAU, N_JOBS = 0.05, 0.05, 2
CALIBRATION_TARGET = ALPHA + 0.03
POWER_TARGET, STAGE_TWO_TARGET, SPEED_TARGET_S = 0.8, 0.8, 120.0
STAGE_TWO_GROUPS = {"x3": ["x3"], "x4": ["x4"]}
POWER_GROUPS = {"x3": ["x3"]}  # stage 2 runs after a rejection; one subset keeps it cheap
SOURCE_LOSS_IN_G = {"covariate": 0.5, "outcome": 0.1}  # 0.9 on half of G / the baseline 0.1
ADULT_GROUPS = {"age": ["age"], "sex": ["sex"], "race": ["race"], "education-num": ["education-num"],
                "marital-status+relationship": ["marital-status", "relationship"],
                "workclass+occupation+hours": ["workclass", "occupation", "hours-per-week"],
                "capital": ["capital-gain", "capital-loss"]}
ADULT_DROPPED = ["native-country", "fnlwgt", "education"]


def sizes(quick):
    """Replications and sizes of each section."""
    if quick:
        return dict(calibration=4, power=4, curve={4000: 2}, stage_two=4, speed_rows=4000, speed_repeats=1,
                    adult_rows=5000, ratio_sizes=((0.1, 4000),))
    return dict(calibration=200, power=200, curve={4000: 50, 20000: 50}, stage_two=200, speed_rows=20000,
                speed_repeats=3, adult_rows=None, ratio_sizes=((0.1, 4000), (0.1, 20000), (0.2, 8000)))


# ----------------------------------------------------------------------------- one replication
def replicate(design, seed, n_samples, prevalence=0.1, rise=0.2, variable_groups=None):
    """One simulated diagnosis: stage-1 rejections, stage-2 flags and the rule's Jaccard index with G."""
    with threadpool_limits(1):
        data = make_subgroup_shift(design, n_samples=n_samples, prevalence=prevalence, rise=rise,
                                   tolerance=TAU, random_state=seed)
        diagnoser = SubgroupShiftDiagnoser(tolerance=TAU, alpha=ALPHA, variable_groups=variable_groups,
                                           random_state=seed)
        diagnoser.fit(data.X_source, data.y_source, data.X_target, data.y_target, data.model)
    summary = diagnoser.summary()
    stage1 = summary[summary.level == "where"].set_index("decomposition")["reject"]
    stage2 = summary[summary.level == "how"]
    result = {f"reject_{name}": bool(stage1[name]) for name in ("covariate", "outcome")}
    for subset in (variable_groups or {}):
        rows = stage2[(stage2.subset == subset) & (stage2.decomposition == data.decomposition)]
        result[f"flag_{subset}"] = bool(rows.reject.any())
    rule = next((rule for rule in diagnoser.subgroups_ if rule.decomposition == data.decomposition), None)
    if rule is not None:
        found, truth = rule.predicate(data.X_source), data.subgroup_source
        result["jaccard"] = float((found & truth).sum() / max((found | truth).sum(), 1))
    return result


def replications(design, count, first_seed, **kwargs):
    """``count`` replications of ``design`` (seeds ``first_seed``, ``first_seed + 1``, ...) in 2 workers."""
    start = time.perf_counter()
    results = Parallel(n_jobs=N_JOBS)(delayed(replicate)(design, first_seed + i, **kwargs)
                                      for i in range(count))
    print(f"{design} {kwargs}: {count} replications in {time.perf_counter() - start:.1f} s", flush=True)
    return pd.DataFrame(results)


def rate(successes, trials):
    """The share with its 95 % Clopper-Pearson interval."""
    low, high = clopper_pearson(np.array([successes]), np.array([trials]), 0.95)
    return {"rejections": int(successes), "rate": successes / trials, "low": float(low[0]),
            "high": float(high[0])}


def oracle_power(decomposition, n_samples, prevalence, rise):
    """Power of the one-sided z-test that knows G, on the test halves (see the module docstring)."""
    loss_source = SOURCE_LOSS_IN_G[decomposition]
    loss_target = loss_source + rise
    variance = loss_source * (1 - loss_source) + loss_target * (1 - loss_target)
    se = np.sqrt(variance / (n_samples * prevalence / 2))
    return float(norm.cdf((rise - TAU) / se - norm.ppf(1 - ALPHA)))


# ----------------------------------------------------------------------------- sections
def calibration(quick):
    """Stage-1 rejection rates under the two nulls."""
    count, records = sizes(quick)["calibration"], []
    for design, first_seed in (("none", 0), ("sub_tolerance", 100_000)):
        results = replications(design, count, first_seed, n_samples=4000)
        for decomposition in ("covariate", "outcome"):
            record = {"design": design, "decomposition": decomposition, "n": 4000, "replications": count,
                      **rate(results[f"reject_{decomposition}"].sum(), count), "target": CALIBRATION_TARGET}
            record["within_target"] = bool(record["rate"] <= CALIBRATION_TARGET)
            records.append(record)
            print(f"calibration: {record}", flush=True)
    return records


def _power_records(design, results, n_samples, rise, count, prevalence=0.1):
    other = "outcome" if design == "covariate" else "covariate"
    right = {"design": design, "decomposition": design, "role": "right", "n": n_samples,
             "prevalence": prevalence, "rise": rise, "replications": count,
             **rate(results[f"reject_{design}"].sum(), count), "target": POWER_TARGET,
             "oracle_power": oracle_power(design, n_samples, prevalence, rise)}
    right["within_target"] = bool(right["rate"] >= POWER_TARGET)
    jaccard = results.loc[results[f"reject_{design}"], "jaccard"] if "jaccard" in results else []
    right["rule_jaccard"] = float(jaccard.mean()) if len(jaccard) else None
    wrong = {"design": design, "decomposition": other, "role": "other", "n": n_samples,
             "prevalence": prevalence, "rise": rise, "replications": count,
             **rate(results[f"reject_{other}"].sum(), count),
             "target": CALIBRATION_TARGET}
    wrong["within_target"] = bool(wrong["rate"] <= CALIBRATION_TARGET)
    return right, wrong


def power(quick):
    """The issue's setting (prevalence 0.1, rise 2τ, n = 4,000); the CI test's (0.2, 4τ, 8,000)."""
    count, records = sizes(quick)["power"], []
    for design, first_seed in (("covariate", 200_000), ("outcome", 300_000)):
        for n_samples, prevalence, rise in ((4000, 0.1, 2 * TAU), (8000, 0.2, 4 * TAU)):
            results = replications(design, count, first_seed + n_samples, n_samples=n_samples,
                                   prevalence=prevalence, rise=rise, variable_groups=POWER_GROUPS)
            records += _power_records(design, results, n_samples, rise, count, prevalence)
            print(f"power: {records[-2:]}", flush=True)
    return records


def density_ratio(quick):
    """The fitted density ratio against the truth in the covariate design (rise 4τ), by cell of G.

    In G the true ratio is exp(μ·x3 − μ²/2), μ = 0.674; outside G it is 1. The ratio is fitted as
    the diagnoser fits it (``fit_density_ratio``, its default classifier) on the first half of each
    domain's rows and averaged over the source rows of each cell; ``sd`` is its spread over all rows.
    """
    records = []
    for prevalence, n_samples in sizes(quick)["ratio_sizes"]:
        with threadpool_limits(1):
            data = make_subgroup_shift("covariate", n_samples=n_samples, prevalence=prevalence, rise=4 * TAU,
                                       random_state=0)
            half = n_samples // 2
            fitted = fit_density_ratio(data.X_source.iloc[:half], data.X_target.iloc[:half], None, clip=1e-3,
                                       random_state=0).ratio(data.X_source)
        x3, in_g = data.X_source["x3"].to_numpy(), data.subgroup_source
        shift = covariate_shift_mean(4 * TAU, 0.1)
        true = np.where(in_g, np.exp(shift * x3 - shift**2 / 2), 1.0)
        cells = {"G_and_A": in_g & (x3 > 0), "G_not_A": in_g & (x3 <= 0), "not_G": ~in_g}
        record = {"n": n_samples, "prevalence": prevalence}
        for name, cell in cells.items():
            record[f"{name}.fitted"], record[f"{name}.true"] = fitted[cell].mean(), true[cell].mean()
        record["sd.fitted"], record["sd.true"] = fitted.std(), true.std()
        records.append(record)
        print(f"density ratio: {record}", flush=True)
    return records


def power_curve(quick, issue_records):
    """Power against rise and n; the (2τ, 4,000) point is taken from ``power``."""
    records = []
    for design, first_seed in (("covariate", 400_000), ("outcome", 500_000)):
        for n_samples, count in sizes(quick)["curve"].items():
            for multiple in (1, 2, 3, 4):
                rise = multiple * TAU
                if n_samples == 4000 and multiple == 2:
                    right, wrong = [row for row in issue_records
                                    if row["design"] == design and row["n"] == 4000]
                else:
                    results = replications(design, count, first_seed + 10_000 * multiple + n_samples,
                                           n_samples=n_samples, rise=rise, variable_groups=POWER_GROUPS)
                    right, wrong = _power_records(design, results, n_samples, rise, count)
                records.append({"design": design, "n": n_samples, "rise": rise, "rise_over_tau": multiple,
                                "replications": right["replications"], "rate": right["rate"],
                                "low": right["low"], "high": right["high"], "other_rate": wrong["rate"],
                                "oracle_power": right["oracle_power"]})
                print(f"power curve: {records[-1]}", flush=True)
    return records


def stage_two(quick):
    """Stage 2: the planted subset {x3} flagged and the unrelated {x4} not."""
    count, records = sizes(quick)["stage_two"], []
    for design, first_seed in (("conditional_covariate", 600_000), ("conditional_outcome", 700_000)):
        results = replications(design, count, first_seed, n_samples=8000, prevalence=0.2, rise=4 * TAU,
                               variable_groups=STAGE_TWO_GROUPS)
        decomposition = design.removeprefix("conditional_")
        both = results["flag_x3"] & ~results["flag_x4"]
        record = {"design": design, "n": 8000, "prevalence": 0.2, "rise": 4 * TAU, "replications": count,
                  "stage1_rate": results[f"reject_{decomposition}"].mean(),
                  "x3_flagged": results["flag_x3"].mean(), "x4_flagged": results["flag_x4"].mean(),
                  **rate(both.sum(), count), "target": STAGE_TWO_TARGET}
        record.pop("rejections")
        record["within_target"] = bool(record["rate"] >= STAGE_TWO_TARGET)
        records.append(record)
        print(f"stage two: {record}", flush=True)
    return records


def speed(quick):
    """The whole diagnosis at 20,000 + 20,000 rows; the bootstrap alone."""
    n_rows, repeats = sizes(quick)["speed_rows"], sizes(quick)["speed_repeats"]
    data = make_subgroup_shift("covariate", n_samples=n_rows, rise=4 * TAU, random_state=0)
    diagnoser = SubgroupShiftDiagnoser(tolerance=TAU, n_jobs=N_JOBS, random_state=0)
    seconds, fitted = median_time(lambda: diagnoser.fit(data.X_source, data.y_source, data.X_target,
                                                        data.y_target, data.model), repeats)
    summary = fitted.summary()
    diagnosis = {"n_source": n_rows, "n_target": n_rows, "n_subsets": int((summary.level == "how").sum()),
                 "n_jobs": N_JOBS, "runs": repeats, "seconds": seconds, "target_s": SPEED_TARGET_S,
                 "within_target": bool(seconds < SPEED_TARGET_S)}
    print(f"speed: {diagnosis}", flush=True)
    rng = np.random.default_rng(0)
    n_half, n_candidates, draws = 10_000, 5, 10_000
    influence_source = rng.standard_normal((n_half, n_candidates))
    influence_target = rng.standard_normal((n_half, n_candidates))
    estimate = ShiftEstimate(np.zeros(n_candidates), rng.normal(0.0, 0.01, n_candidates),
                             influence_source - influence_source.mean(axis=0),
                             influence_target - influence_target.mean(axis=0),
                             np.full(n_candidates, 0.1), np.full(n_candidates, 0.1))
    bootstrap_seconds, _ = median_time(lambda: max_multiplier_test(estimate, n_bootstrap=draws,
                                                                   random_state=0), 3)
    peak, _ = peak_traced_memory(lambda: max_multiplier_test(estimate, n_bootstrap=draws, random_state=0))
    bootstrap = {"n_bootstrap": draws, "n_candidates": n_candidates, "n_source": n_half, "n_target": n_half,
                 "seconds": bootstrap_seconds, "peak_mb": peak / 2**20}
    print(f"bootstrap: {bootstrap}", flush=True)
    return {"diagnosis": diagnosis, "bootstrap": bootstrap}


# ----------------------------------------------------------------------------- Adult
def _diagnose_adult(X_model, y_model, X_source, y_source, X_target, y_target, seed=0):
    """Train the model, run the diagnosis; the summary, the rules and the subgroup losses."""
    model = HistGradientBoostingClassifier(categorical_features="from_dtype", random_state=seed)
    model.fit(X_model, y_model)
    diagnoser = SubgroupShiftDiagnoser(tolerance=TAU, min_prevalence=0.05, variable_groups=ADULT_GROUPS,
                                       n_jobs=N_JOBS, random_state=seed)
    start = time.perf_counter()
    diagnoser.fit(X_source, y_source, X_target, y_target, model)
    seconds = time.perf_counter() - start
    summary = diagnoser.summary().replace({np.nan: None})
    rules = [{"decomposition": rule.decomposition, "text": rule.text, "fidelity": rule.fidelity,
              "prevalence_source": rule.prevalence_source, "prevalence_target": rule.prevalence_target}
             for rule in diagnoser.subgroups_]
    losses = diagnoser.subgroup_losses_.replace({np.nan: None})
    for rule in rules:
        print(f"adult rule: {rule}", flush=True)
    print(summary.to_string(), flush=True)
    return {"n_model": len(y_model), "n_source": len(y_source), "n_target": len(y_target),
            "rate_source": float(np.mean(y_source)), "rate_target": float(np.mean(y_target)),
            "seconds": seconds, "rejected": [row.decomposition for row in summary.itertuples()
                                             if row.level == "where" and row.reject],
            "summary": summary.to_dict("records"), "rules": rules or None,
            "subgroup_losses": losses.to_dict("records")}


def adult(quick):
    """The native-country case and the train/test negative control."""
    try:
        frame = fetch_adult(subset="all", as_frame=True, download_if_missing=False)
        train = fetch_adult(subset="train", as_frame=True, download_if_missing=False)
        test = fetch_adult(subset="test", as_frame=True, download_if_missing=False)
    except OSError as error:
        message = f"skipped: the Adult files are absent (set FAIRKIT_DATA): {error}"
        print(message, flush=True)
        return {"note": message}
    n_rows = sizes(quick)["adult_rows"]
    X, y = frame.data, frame.target.to_numpy()
    known = X["native-country"].notna().to_numpy()
    us = known & (X["native-country"] == "United-States").to_numpy()
    features = X.drop(columns=ADULT_DROPPED)
    model_rows, source_rows = train_test_split(np.flatnonzero(us), test_size=0.5, stratify=y[us],
                                               random_state=0)
    if n_rows:
        source_rows = source_rows[:n_rows]
    target_rows = np.flatnonzero(known & ~us)
    pick = lambda rows: (features.iloc[rows].reset_index(drop=True), y[rows])  # noqa: E731
    results = {"native_country": _diagnose_adult(*pick(model_rows), *pick(source_rows), *pick(target_rows))}
    # the same census split by the original files: no intended shift
    X_train, y_train = train.data.drop(columns=ADULT_DROPPED), train.target.to_numpy()
    X_test, y_test = test.data.drop(columns=ADULT_DROPPED), test.target.to_numpy()
    model_rows, source_rows = train_test_split(np.arange(len(y_train)), test_size=0.5, stratify=y_train,
                                               random_state=0)
    if n_rows:
        source_rows, X_test, y_test = source_rows[:n_rows], X_test.iloc[:n_rows], y_test[:n_rows]
    results["control"] = _diagnose_adult(
        X_train.iloc[model_rows].reset_index(drop=True), y_train[model_rows],
        X_train.iloc[source_rows].reset_index(drop=True), y_train[source_rows],
        X_test.reset_index(drop=True), y_test)
    return results


# ----------------------------------------------------------------------------- run
def run(quick=False):
    """Every section, most important first; returns its named tables."""
    start = time.perf_counter()
    results = {"quick": quick, "alpha": ALPHA, "tolerance": TAU, "min_prevalence": 0.05,
               "calibration": calibration(quick)}
    results["power"] = power(quick)
    results["density_ratio"] = density_ratio(quick)
    results["stage_two"] = stage_two(quick)
    with threadpool_limits(1):
        results["speed"] = speed(quick)
        results["adult"] = adult(quick)
    results["power_curve"] = power_curve(quick, results["power"])
    print(f"bench_shift: {time.perf_counter() - start:.0f} s", flush=True)
    return results


if __name__ == "__main__":
    main("shift", run, PACKAGES)
