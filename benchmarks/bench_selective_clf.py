"""fairkit-uncertainty's ``SelectiveClassifier`` measured: abstention, equal coverage, Mirage, routing, cost.

``SelectiveClassifier`` answers the rows whose confidence reaches a threshold set on out-of-fold
confidences of its fit data, and abstains on (or routes to a ``fallback``) the others.
Confidences: ``"max_proba"`` (the largest class probability), ``"margin"`` (top-1 minus top-2)
and ``"learned"``: Self-REF's idea (J. Chuang et al., "Learning to Route LLMs with Confidence
Tokens", ICML 2025) transferred to any classifier, a model of P(the base is right | x, its
scores) fitted on the base's out-of-fold correctness (default ``HistGradientBoostingClassifier``).
``selective_report`` gives the risk–coverage curves (Geifman & El-Yaniv 2017), overall and by
group, and flags a group whose coverage falls short of the rest's (Confidential Guardian,
S. Rabanser et al., ICML 2025).

**Data.** ``Adult`` (``fetch_adult``, 48,842 rows, label income > 50K) and ``COMPAS``
(``fetch_compas``, 6,172 rows, label two-year recidivism). The sensitive features are sex and
race (sex × race: 10 groups on Adult; 8 on COMPAS, whose 2 Asian and 11 Native American people
are merged into its race "Other"). Following fairkit's audit convention they are **not
features**: the models see every other column (``fnlwgt`` and ``education`` included) and the
groups come in through ``sensitive_features``. A split is a random 75/25 train/test split,
stratified by label, seeded 0-4 (5 splits); every figure is the mean over the splits with its
corrected resampled 95 % t interval (``fairkit.metrics.resampled_interval``, Nadeau & Bengio
2003, n_test / n_train = 1/3; for paired differences, the difference per split), ``low`` /
``high``. Bases: ``LR`` = one-hot encoding of the categorical columns (unknown categories
ignored) and standardisation of the others, then ``LogisticRegression(max_iter=1000)``;
``HGB`` = ``HistGradientBoostingClassifier`` on the raw columns (native categories,
``random_state`` = the split's seed). ``SelectiveClassifier`` runs at ``cv=5``,
``random_state`` = the split's seed.

**Sections.**

* ``risk_coverage`` / ``aurc`` / ``at_80``: per data set, base and confidence, a classifier fitted
  on the training part (coverage 0.8, one threshold); on the test part its confidences
  (``predict_confidence``) and the base's predictions go to ``selective_report``: the selective
  accuracy (1 − selective risk) of the most confident rows at coverages 0.5, 0.55, …, 1
  (thresholds at the test quantile, the curve's definition), the AURC, and at 80 % coverage the
  selective accuracy of each confidence and the paired difference learned − max_proba (the
  issue: "learned ≥ max-probability's or the gap reported"). With two classes the margin
  (2 p − 1) ranks rows as the largest probability p does, so their figures coincide.
  ``test_coverage`` is the share of test rows the classifier's own threshold (set on the fit
  data) answers: it should be 0.8.
* ``equal_coverage`` / ``equal_cost`` / ``jones`` / ``equal_groups``: the same classifiers with
  ``group_coverage="equal"`` (one threshold per sex × race group) against one shared threshold,
  both at coverage 0.8, confidences max_proba and learned. ``equal_coverage``: on the test part,
  the coverage gap (max − min coverage over the groups) over all groups and over the groups
  with ≥ 200 test rows (``large``), against the issue's target 0.02; the gap that sampling
  alone gives at those sizes (``sampling_gap_*``: each group's threshold is the ⌈0.8 m⌉-th
  largest of its m training confidences, so its true coverage is Beta(⌈0.8 m⌉, m + 1 −
  ⌈0.8 m⌉)-distributed, and the test coverage of its n test rows adds binomial noise; the mean
  and 95th percentile of the max − min over 20,000 draws at the split's sizes, and the share of
  draws below 0.02, averaged over splits); ``fit_gap_equal``: the largest gap of the
  out-of-fold coverages on the fit data (``group_coverage_``) over the splits, which ties in
  confidence can raise. ``equal_cost``: selective accuracy at 80 % with each policy and the
  paired difference equal − shared. ``jones``: Jones et al. ("Selective Classification Can
  Magnify Disparities Across Groups", ICLR 2021): the gap overall accuracy − worst group's
  accuracy at full coverage and among the answered rows at 80 % (shared and equal
  thresholds), the worst group among all groups or among the large ones; ``widening`` = the
  gap at 80 % − the gap at full coverage (paired; > 0: abstention widens it).
  ``equal_groups`` (learned confidence): per group, its test rows, coverage (mean over splits,
  with the interval over splits, and the mean ends of the per-split exact intervals of
  ``selective_report``, Šidák-joint over the groups: ``_split_low`` / ``_split_high``) and
  selective accuracy, shared and equal.
* ``mirage`` / ``mirage_splits``: the plugin's demo problem (``make_region_problem``: two noisy
  classes in the plane, a targeted quadrant holding about a fifth of the rows) and networks
  (``make_network``), as in ``tests/test_mirage.py``: the honest network trained on 1,000 rows
  (``mirage_finetune`` with an empty region, 10 epochs, lr 3e-2), its Mirage copy (ε = 0.15,
  α = 0.9, lr 1e-2) after 10 epochs (the test fixture's) and after 30; seeds 0-4 (each its own
  data and networks, so the replications are independent: plain t intervals). Each network,
  as trained (``FrozenEstimator(NetworkClassifier(net).fit(X, y))``), goes to
  ``SelectiveClassifier`` fitted on a held-out calibration set of 4,000 rows, at coverage 0.8
  (the issue's) and 0.6, with confidence max_proba and learned. On 20,000 test rows: coverage
  in the region and outside, ``selective_report`` (sensitive feature = region membership,
  operating point = the classifier's own accepted rows, tolerance 0.05) — whether it flags any
  group, the region, the outside rows (``*_seeds``: in how many seeds) — and, for contrast,
  ``audit_passed_seeds``: in how many seeds ``calibration_audit`` (Confidential Guardian's own
  audit, at its defaults) passed the network's probabilities on the test rows.
* ``routing``: Adult, estimator = the LR pipeline, fallback = ``HistGradientBoostingClassifier``
  (``random_state`` = seed), confidence learned or max_proba. On the test part, the accuracy when
  the share s = 0, 0.1, …, 1 of the least confident rows goes to the fallback, against random
  routing of the same share (its expectation over random subsets, computed exactly: base
  accuracy + s (fallback accuracy − base accuracy)); ``gain`` = routed − random, paired.
  ``routing_own_threshold``: the classifier's own ``predict`` at coverage 0.8.
* ``cost``: on Adult's training part of split 0 (36,631 rows), the fit time of
  ``SelectiveClassifier`` (LR base; learned and max_proba) against a plain fit of the LR
  pipeline in the same run, single-threaded, median of 3 (``ratio``). A fit is ``cv`` + 1 base
  fits, plus ``cv`` + 1 confidence-model fits for learned.

The curves are tables: the report builder (``benchmarks/_report.py``) draws bar charts of
ratio columns only, and rebuilds ``plots/`` from the results files, so a figure drawn here
would not survive it; ``plot_risk_coverage`` draws them from a ``selective_report``.

Everything runs single-threaded (OpenMP and BLAS) in 2 joblib workers, the cost section first
and alone. A quick run (a smoke test) takes 2 splits, 8,000 random Adult rows, 1 Mirage seed
and 2,000 sampling draws. Floats are rounded to 4 significant digits.

    python -m benchmarks run selective_clf [--quick]
"""

import statistics
import time

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.compose import make_column_selector, make_column_transformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from threadpoolctl import threadpool_limits

from benchmarks._common import main
from fairkit.datasets import fetch_adult, fetch_compas
from fairkit.metrics import resampled_interval
from fairkit_uncertainty import SelectiveClassifier, calibration_audit, mirage_finetune
from fairkit_uncertainty._demo import NetworkClassifier, make_network, make_region_problem, predict_proba
from fairkit_uncertainty._report import OVERALL, selective_report

PACKAGES = ("fairkit", "fairkit-uncertainty", "numpy", "scipy", "scikit-learn", "pandas", "torch")
SEEDS, QUICK_SEEDS = (0, 1, 2, 3, 4), (0, 1)
TEST_SIZE = 0.25
TEST_FRACTION = TEST_SIZE / (1 - TEST_SIZE)
COVERAGE = 0.8
CURVE_COVERAGES = np.round(np.linspace(0.5, 1.0, 11), 2)
CONFIDENCES = ("max_proba", "margin", "learned")
EQUAL_CONFIDENCES = ("max_proba", "learned")
SENSITIVE = ["sex", "race"]
MIN_GROUP_ROWS = 200  # the "large" groups: at 0.8 coverage their sampling SD is at most 0.028
GAP_TARGET = 0.02
QUICK_ADULT_ROWS = 8000
SAMPLING_DRAWS, QUICK_SAMPLING_DRAWS = 20_000, 2_000
ROUTING_SHARES = np.round(np.linspace(0, 1, 11), 2)
MIRAGE_SEEDS, QUICK_MIRAGE_SEEDS = (0, 1, 2, 3, 4), (0,)
MIRAGE_TRAIN, MIRAGE_CALIBRATION, MIRAGE_TEST = 1000, 4000, 20_000
MIRAGE_EPSILON, MIRAGE_EPOCHS = 0.15, (10, 30)
MIRAGE_COVERAGES = (0.8, 0.6)
TOLERANCE = 0.05
COST_REPEATS = 3


# ----------------------------------------------------------------------------- data and models
def adult(quick=False):
    """Adult without sex and race (a DataFrame), the 0/1 label, and the sex × race frame."""
    bunch = fetch_adult(as_frame=True)
    data, y = bunch.data, bunch.target.to_numpy().astype(int)
    if quick:
        rows = np.random.default_rng(0).choice(len(y), QUICK_ADULT_ROWS, replace=False)
        data, y = data.iloc[rows].reset_index(drop=True), y[rows]
    return data.drop(columns=SENSITIVE), y, data[SENSITIVE].astype(str)


def compas(quick=False):
    """COMPAS without sex and race, the label, and sex × race (Asian and Native American in "Other")."""
    bunch = fetch_compas(as_frame=True)
    groups = bunch.data[SENSITIVE].astype(str)
    groups["race"] = groups["race"].replace({"Asian": "Other", "Native American": "Other"})
    return bunch.data.drop(columns=SENSITIVE), bunch.target.to_numpy().astype(int), groups


DATA = {"Adult": adult, "COMPAS": compas}


def make_base(name, seed):
    """``LR``: one-hot + scaling + logistic regression; ``HGB``: gradient boosting on native categories."""
    if name == "LR":
        encode = make_column_transformer(
            (OneHotEncoder(handle_unknown="ignore"), make_column_selector(dtype_include="category")),
            remainder=StandardScaler())
        return make_pipeline(encode, LogisticRegression(max_iter=1000))
    return HistGradientBoostingClassifier(categorical_features="from_dtype", random_state=seed)


def split(X, y, groups, seed):
    """A random 75/25 split stratified by label: (X, y, groups) of the training and of the test part."""
    train, test = train_test_split(np.arange(len(y)), test_size=TEST_SIZE, stratify=y, random_state=seed)
    take = lambda rows: (X.iloc[rows].reset_index(drop=True), y[rows],  # noqa: E731
                         groups.iloc[rows].reset_index(drop=True))
    return take(train), take(test)


def interval(values, test_fraction=TEST_FRACTION, prefix=""):
    """``{prefix}value``, ``{prefix}low``, ``{prefix}high``: the mean over splits and its 95 % interval."""
    estimate = resampled_interval(np.asarray(values, dtype=float), test_fraction=test_fraction)
    return {prefix.rstrip("_") or "value": estimate.value, f"{prefix}low": estimate.low,
            f"{prefix}high": estimate.high}


def label(group):
    """A group's label as text (intersections joined by ' & ')."""
    return " & ".join(map(str, group)) if isinstance(group, tuple) else str(group)


# ----------------------------------------------------------------------------- equal coverage helpers
def sampling_gap(train_counts, test_counts, coverage, draws, seed):
    """The coverage gap (max − min over groups) that sampling alone gives: its mean and 95th percentile.

    A group's threshold is the ⌈c m⌉-th largest of its m training confidences, so its true
    coverage is Beta(⌈c m⌉, m + 1 − ⌈c m⌉); its test coverage adds Binomial(n, ·) / n noise.
    """
    rng = np.random.default_rng(seed)
    m, n = np.asarray(train_counts), np.asarray(test_counts)
    k = np.ceil(coverage * m - 1e-9)
    true = rng.beta(k, m + 1 - k, size=(draws, len(m)))
    observed = rng.binomial(n, true) / n
    gap = observed.max(axis=1) - observed.min(axis=1)
    return float(gap.mean()), float(np.quantile(gap, 0.95)), float(np.mean(gap < GAP_TARGET))


def group_figures(report, large):
    """The coverage gap, selective accuracy and Jones et al.'s gaps of a report (all groups / large ones)."""
    groups, overall = report.groups, report.overall
    figures = {}
    for scope, rows in (("all", slice(None)), ("large", large)):
        table = groups[rows]
        figures[f"gap_{scope}"] = table["coverage"].max() - table["coverage"].min()
        figures[f"jones_full_{scope}"] = overall["accuracy"] - table["accuracy"].min()
        worst = table["selective_accuracy"].min()
        figures[f"jones_selective_{scope}"] = overall["selective_accuracy"] - worst
    figures["selective_accuracy"] = overall["selective_accuracy"]
    figures["coverage"] = report.operating_coverage
    return figures


# ----------------------------------------------------------------------------- one split
def selective_split(data_name, base_name, seed, quick):
    """Sections a and b on one split: per confidence the curve, AURC, equal vs shared coverage."""
    (X, y, groups), (X_test, y_test, groups_test) = split(*DATA[data_name](quick), seed)
    curve_rows, summary_rows, equal_rows, group_rows = [], [], [], []
    train_counts = groups.value_counts()
    test_counts = groups_test.value_counts()
    for confidence in CONFIDENCES:
        shared = SelectiveClassifier(make_base(base_name, seed), confidence=confidence, coverage=COVERAGE,
                                     random_state=seed).fit(X, y, sensitive_features=groups)
        y_pred, score = shared.estimator_.predict(X_test), shared.predict_confidence(X_test)
        report = selective_report(y_test, y_pred, score, sensitive_features=groups_test,
                                  coverages=CURVE_COVERAGES, operating_point=COVERAGE)
        curve = report.curve[report.curve["group"] == OVERALL]
        key = {"data": data_name, "base": base_name, "confidence": confidence, "seed": seed}
        curve_rows += [{**key, "coverage": c, "selective_accuracy": 1 - r}
                       for c, r in zip(curve["coverage"], curve["selective_risk"], strict=True)]
        accepted = shared.accepts(X_test)
        summary_rows.append({**key, "aurc": report.aurc[OVERALL],
                             "selective_accuracy_80": report.overall["selective_accuracy"],
                             "accuracy": report.overall["accuracy"], "test_coverage": accepted.mean(),
                             "fit_coverage": shared.coverage_})
        if confidence not in EQUAL_CONFIDENCES:
            continue
        equal = SelectiveClassifier(make_base(base_name, seed), confidence=confidence, coverage=COVERAGE,
                                    group_coverage="equal", random_state=seed)
        equal.fit(X, y, sensitive_features=groups)
        masks = {"shared": accepted, "equal": equal.accepts(X_test, sensitive_features=groups_test)}
        row = {**key}
        for policy, mask in masks.items():
            policy_report = selective_report(y_test, y_pred, equal.predict_confidence(X_test)
                                             if policy == "equal" else score,
                                             sensitive_features=groups_test, operating_point=mask)
            table = policy_report.groups
            names = [label(g) for g in table.index]
            large = table["count"].to_numpy() >= MIN_GROUP_ROWS
            row |= {f"{policy}.{name}": value for name, value in group_figures(policy_report, large).items()}
            for i, name in enumerate(names):
                group_rows.append({**key, "policy": policy, "group": name,
                                   "test_rows": int(table["count"].iloc[i]),
                                   **{column: float(table[column].iloc[i]) for column in
                                      ("coverage", "coverage_low", "coverage_high", "selective_accuracy")}})
        index = [tuple(g) for g in equal.groups_]
        m = np.array([train_counts[g] for g in index])
        n = np.array([test_counts.get(g, 0) for g in index])
        present = n > 0
        draws = QUICK_SAMPLING_DRAWS if quick else SAMPLING_DRAWS
        for scope, keep in (("all", present), ("large", n >= MIN_GROUP_ROWS)):
            mean, q95, below = sampling_gap(m[keep], n[keep], COVERAGE, draws, seed)
            row |= {f"sampling_gap_{scope}": mean, f"sampling_gap_{scope}_q95": q95,
                    f"sampling_below_target_{scope}": below}
        row["n_groups"], row["n_large"] = int(present.sum()), int((n >= MIN_GROUP_ROWS).sum())
        row["smallest_group"] = int(n[present].min())
        row["fit_gap_equal"] = float(np.ptp(equal.group_coverage_))
        equal_rows.append(row)
    print(f"{data_name} {base_name} seed {seed} done", flush=True)
    return curve_rows, summary_rows, equal_rows, group_rows


def summarise_curves(curve_rows):
    frame = pd.DataFrame(curve_rows)
    records = []
    for (data, base, confidence, coverage), rows in frame.groupby(["data", "base", "confidence", "coverage"],
                                                                  sort=False):
        records.append({"data": data, "base": base, "confidence": confidence, "coverage": coverage,
                        "splits": len(rows),
                        **interval(rows["selective_accuracy"], prefix="selective_accuracy_")})
    return records


def summarise_selective(summary_rows):
    """AURC and accuracy at 80 % per confidence; learned − max_proba (and − margin), paired."""
    frame = pd.DataFrame(summary_rows)
    aurc, at_80 = [], []
    for (data, base, confidence), rows in frame.groupby(["data", "base", "confidence"], sort=False):
        rows = rows.sort_values("seed")
        aurc.append({"data": data, "base": base, "confidence": confidence, "splits": len(rows),
                     **interval(rows["aurc"], prefix="aurc_"),
                     **interval(rows["accuracy"], prefix="full_accuracy_")})
        record = {"data": data, "base": base, "confidence": confidence,
                  **interval(rows["selective_accuracy_80"], prefix="selective_accuracy_"),
                  **interval(rows["test_coverage"], prefix="test_coverage_")}
        if confidence == "learned":
            for other in ("max_proba", "margin"):
                reference = frame[(frame["data"] == data) & (frame["base"] == base)
                                  & (frame["confidence"] == other)].sort_values("seed")
                difference = (rows["selective_accuracy_80"].to_numpy()
                              - reference["selective_accuracy_80"].to_numpy())
                record |= interval(difference, prefix=f"minus_{other}_")
                aurc_difference = rows["aurc"].to_numpy() - reference["aurc"].to_numpy()
                aurc[-1] |= interval(aurc_difference, prefix=f"aurc_minus_{other}_")
            record["learned_at_least_max_proba"] = bool(record["minus_max_proba"] >= 0)
        at_80.append(record)
    return aurc, at_80


def summarise_equal(equal_rows, group_rows):
    """Three tables (coverage gaps, cost, Jones et al.'s gaps) over the splits, and the per-group table."""
    frame = pd.DataFrame(equal_rows)
    gaps, costs, jones = [], [], []
    for (data, base, confidence), rows in frame.groupby(["data", "base", "confidence"], sort=False):
        rows = rows.sort_values("seed")
        key = {"data": data, "base": base, "confidence": confidence}
        record = {**key, "splits": len(rows), "n_groups": int(rows["n_groups"].min()),
                  "n_large": int(rows["n_large"].min()), "smallest_group": int(rows["smallest_group"].min()),
                  "fit_gap_equal": rows["fit_gap_equal"].max()}
        for scope in ("all", "large"):
            for policy in ("shared", "equal"):
                record |= interval(rows[f"{policy}.gap_{scope}"], prefix=f"gap_{scope}_{policy}_")
            record[f"sampling_gap_{scope}"] = rows[f"sampling_gap_{scope}"].mean()
            record[f"sampling_gap_{scope}_q95"] = rows[f"sampling_gap_{scope}_q95"].mean()
            record[f"sampling_below_target_{scope}"] = rows[f"sampling_below_target_{scope}"].mean()
            record[f"equal_below_target_{scope}"] = bool(record[f"gap_{scope}_equal"] < GAP_TARGET)
        gaps.append(record)
        costs.append({**key,
                      **interval(rows["shared.selective_accuracy"], prefix="selective_accuracy_shared_"),
                      **interval(rows["equal.selective_accuracy"], prefix="selective_accuracy_equal_"),
                      **interval(rows["equal.selective_accuracy"] - rows["shared.selective_accuracy"],
                                 prefix="equal_minus_shared_")})
        for scope in ("all", "large"):
            record = {**key, "groups": scope,
                      **interval(rows[f"shared.jones_full_{scope}"], prefix="gap_full_coverage_")}
            for policy in ("shared", "equal"):
                record |= interval(rows[f"{policy}.jones_selective_{scope}"], prefix=f"gap_80_{policy}_")
                widening = rows[f"{policy}.jones_selective_{scope}"] - rows[f"shared.jones_full_{scope}"]
                record |= interval(widening, prefix=f"widening_{policy}_")
            jones.append(record)
    groups = pd.DataFrame(group_rows)
    table = []
    keys = ["data", "base", "confidence", "group"]
    for key, rows in groups[groups["confidence"] == "learned"].groupby(keys, sort=False):
        record = dict(zip(keys, key, strict=True)) | {"test_rows": float(rows["test_rows"].mean())}
        for policy in ("shared", "equal"):
            part = rows[rows["policy"] == policy]
            record |= interval(part["coverage"], prefix=f"coverage_{policy}_")
            record |= {f"coverage_{policy}_split_low": part["coverage_low"].mean(),
                       f"coverage_{policy}_split_high": part["coverage_high"].mean(),
                       f"selective_accuracy_{policy}": part["selective_accuracy"].mean()}
        table.append(record)
    return gaps, costs, jones, table


# ----------------------------------------------------------------------------- Mirage
def mirage_seed(seed, quick):
    """The honest network and two Mirage copies given to SelectiveClassifier; coverage by region."""
    import torch

    torch.set_num_threads(1)
    X, y, region = make_region_problem(MIRAGE_TRAIN, random_state=seed)
    honest = mirage_finetune(make_network(2, random_state=seed), X, y, np.zeros(len(y), dtype=bool),
                             epochs=10, lr=3e-2, random_state=seed)
    networks = {"honest": honest}
    for epochs in MIRAGE_EPOCHS:
        networks[f"Mirage {epochs} epochs"] = mirage_finetune(honest, X, y, region, epsilon=MIRAGE_EPSILON,
                                                              epochs=epochs, lr=1e-2, random_state=seed)
    X_cal, y_cal, region_cal = make_region_problem(MIRAGE_CALIBRATION, random_state=1000 + seed)
    X_test, y_test, region_test = make_region_problem(MIRAGE_TEST, random_state=2000 + seed)
    where_cal = np.where(region_cal, "region", "outside")
    where_test = np.where(region_test, "region", "outside")
    rows = []
    for name, network in networks.items():
        proba = predict_proba(network, X_test)
        audit = calibration_audit(y_test, proba, sensitive_features=where_test)
        for confidence in ("max_proba", "learned"):
            for coverage in MIRAGE_COVERAGES:
                frozen = FrozenEstimator(NetworkClassifier(network).fit(X, y))
                clf = SelectiveClassifier(frozen, confidence=confidence, coverage=coverage, random_state=seed)
                clf.fit(X_cal, y_cal, sensitive_features=where_cal)
                accepted = clf.accepts(X_test)
                report = selective_report(y_test, clf.estimator_.predict(X_test),
                                          clf.predict_confidence(X_test), sensitive_features=where_test,
                                          operating_point=accepted, tolerance=TOLERANCE)
                groups = report.groups
                rows.append({"network": name, "confidence": confidence, "coverage": coverage, "seed": seed,
                             "accuracy": float((proba.argmax(axis=1) == y_test).mean()),
                             "coverage_region": accepted[region_test].mean(),
                             "coverage_outside": accepted[~region_test].mean(),
                             "region_shortfall": groups.loc["region", "shortfall"],
                             "region_shortfall_low": groups.loc["region", "shortfall_low"],
                             "selective_accuracy": report.overall["selective_accuracy"],
                             "flagged": report.flagged,
                             "region_flagged": bool(groups.loc["region", "flagged"]),
                             "outside_flagged": bool(groups.loc["outside", "flagged"]),
                             "audit_passed": bool(audit.passed)})
    print(f"mirage seed {seed} done", flush=True)
    return rows


def summarise_mirage(rows):
    frame = pd.DataFrame(rows)
    summary = []
    for (network, confidence, coverage), part in frame.groupby(["network", "confidence", "coverage"],
                                                               sort=False):
        record = {"network": network, "confidence": confidence, "coverage": coverage, "seeds": len(part)}
        for column in ("accuracy", "coverage_region", "coverage_outside", "region_shortfall"):
            record |= interval(part[column], test_fraction=0.0, prefix=f"{column}_")
        for column in ("flagged", "region_flagged", "outside_flagged", "audit_passed"):
            record[f"{column}_seeds"] = int(part[column].sum())
        summary.append(record)
    return summary


# ----------------------------------------------------------------------------- routing
def routing_seed(seed, quick):
    """Accuracy against the share routed to the fallback, by learned / max_proba confidence and at random."""
    (X, y, groups), (X_test, y_test, _) = split(*adult(quick), seed)
    rows, own = [], []
    for confidence in ("learned", "max_proba"):
        fallback = HistGradientBoostingClassifier(random_state=seed)
        clf = SelectiveClassifier(make_base("LR", seed), confidence=confidence, coverage=COVERAGE,
                                  fallback=fallback, random_state=seed)
        clf.fit(X, y, sensitive_features=groups)
        base_right = clf.estimator_.predict(X_test) == y_test
        fallback_right = clf.fallback_.predict(X_test) == y_test
        order = np.argsort(clf.predict_confidence(X_test), kind="stable")  # least confident first
        # accuracy when the k least confident rows are routed, for every k at once
        gain = np.concatenate([[0], np.cumsum((fallback_right.astype(int) - base_right)[order])])
        n = len(y_test)
        for share in ROUTING_SHARES:
            k = round(share * n)
            random = base_right.mean() + k / n * (fallback_right.mean() - base_right.mean())
            rows.append({"confidence": confidence, "share": share, "seed": seed,
                         "accuracy": (base_right.sum() + gain[k]) / n, "random": random,
                         "fallback_alone": fallback_right.mean(), "base_alone": base_right.mean()})
        own.append({"confidence": confidence, "seed": seed, "routed_share": 1 - clf.accepts(X_test).mean(),
                    "accuracy": float(np.mean(clf.predict(X_test) == y_test))})
    print(f"routing seed {seed} done", flush=True)
    return rows, own


def summarise_routing(rows, own_rows):
    frame = pd.DataFrame(rows)
    records = []
    for (confidence, share), part in frame.groupby(["confidence", "share"], sort=False):
        part = part.sort_values("seed")
        records.append({"confidence": confidence, "share": share, "splits": len(part),
                        **interval(part["accuracy"], prefix="accuracy_"),
                        **interval(part["random"], prefix="random_"),
                        **interval(part["accuracy"] - part["random"], prefix="gain_"),
                        "fallback_alone": part["fallback_alone"].mean(),
                        "base_alone": part["base_alone"].mean()})
    own = []
    for confidence, part in pd.DataFrame(own_rows).groupby("confidence", sort=False):
        own.append({"confidence": confidence, "coverage": COVERAGE, **interval(part["routed_share"],
                                                                               prefix="routed_share_"),
                    **interval(part["accuracy"], prefix="accuracy_")})
    return records, own


# ----------------------------------------------------------------------------- cost
def cost(quick):
    """SelectiveClassifier's fit against a plain fit of its base, same rows, same run."""
    (X, y, groups), _ = split(*adult(quick), 0)
    fits = {"plain": lambda: make_base("LR", 0).fit(X, y)}
    for confidence in ("max_proba", "learned"):
        fits[confidence] = lambda confidence=confidence: SelectiveClassifier(
            make_base("LR", 0), confidence=confidence, coverage=COVERAGE, random_state=0).fit(
            X, y, sensitive_features=groups)
    times = {name: [] for name in fits}
    with threadpool_limits(1):
        for _ in range(COST_REPEATS):  # interleaved, so that a slow moment hits every fit alike
            for name, fit in fits.items():
                start = time.perf_counter()
                fit()
                times[name].append(time.perf_counter() - start)
    plain = statistics.median(times["plain"])
    records = [{"confidence": name, "n_train": len(y), "cv": 5, "seconds": statistics.median(times[name]),
                "plain_seconds": plain, "ratio": statistics.median(times[name]) / plain}
               for name in ("max_proba", "learned")]
    print(f"cost: {records}", flush=True)
    return records


# ----------------------------------------------------------------------------- run
def _single_threaded(function, *args):
    with threadpool_limits(1):
        return function(*args)


def run(quick=False, n_jobs=2):
    """Every section; returns its named tables."""
    start = time.perf_counter()
    cost_table = cost(quick)
    seeds = QUICK_SEEDS if quick else SEEDS
    mirage_seeds = QUICK_MIRAGE_SEEDS if quick else MIRAGE_SEEDS
    selective_tasks = [(data, base, seed) for data in DATA for base in ("LR", "HGB") for seed in seeds]
    tasks = ([delayed(_single_threaded)(selective_split, *task, quick) for task in selective_tasks]
             + [delayed(_single_threaded)(routing_seed, seed, quick) for seed in seeds]
             + [delayed(_single_threaded)(mirage_seed, seed, quick) for seed in mirage_seeds])
    results = Parallel(n_jobs=n_jobs)(tasks)
    selective = results[:len(selective_tasks)]
    routing = results[len(selective_tasks):len(selective_tasks) + len(seeds)]
    mirage = results[len(selective_tasks) + len(seeds):]
    curve_rows, summary_rows, equal_rows, group_rows = ([row for part in selective for row in part[i]]
                                                        for i in range(4))
    aurc, at_80 = summarise_selective(summary_rows)
    equal, equal_cost, jones, equal_groups = summarise_equal(equal_rows, group_rows)
    routing_table, routing_own = summarise_routing([row for rows, _ in routing for row in rows],
                                                   [row for _, rows in routing for row in rows])
    mirage_rows = [row for rows in mirage for row in rows]
    print(f"bench_selective_clf: {time.perf_counter() - start:.0f} s", flush=True)
    return {"quick": quick, "coverage": COVERAGE, "gap_target": GAP_TARGET, "min_group_rows": MIN_GROUP_ROWS,
            "tolerance": TOLERANCE, "splits": len(seeds),
            "at_80": at_80, "aurc": aurc, "equal_coverage": equal,
            "equal_cost": equal_cost, "jones": jones, "mirage": summarise_mirage(mirage_rows),
            "routing": routing_table, "routing_own_threshold": routing_own, "cost": cost_table,
            "risk_coverage": summarise_curves(curve_rows), "equal_groups": equal_groups,
            "mirage_splits": mirage_rows}


if __name__ == "__main__":
    main("selective_clf", run, PACKAGES)
