"""RandomizedFairBOC against fairlearn's ThresholdOptimizer: speed, and test violations told from noise.

``speed``: a logistic regression is fitted once on the training half of synthetic data
(``make_fair_classification``, 10⁴ to 10⁶ training samples) or on Adult's standard
train/test split (sex, and sex × race: 10 groups); both post-processors use its scores
(``prefit=True``) on the same training data. Fit and predict times are medians of repeats.

``violation``: over 10 random splits (2 with ``--quick``; synthetic: 2n samples in halves;
Adult: its 48,842 rows split 32,561 / 16,281 like the standard split) a logistic
regression is fitted on the training part, and four rules predict the test part:
RandomizedFairBOC with plug-in rates (the default) and with ``rates="empirical"``,
ThresholdOptimizer (same scores, same constraint) and the unconstrained model (its
``predict``). The violation of the constraint (max − min over groups of the constrained
test rate; for equalized odds the larger of the two gaps) is measured

- on the realised decisions (``predict``), with its 95% interval (``ci=0.95``) and the
  noise floor of an exactly fair rule on the same test groups (``fairness_floor``: its
  0.95 quantile, and the p-value, the share of fair-rule draws at least as large);
- on the expected decisions (the probability of predicting 1: fairkit's ``predict_proba``,
  fairlearn's ``_pmf_predict``), exactly: each test row counts twice, predicted 1 with
  weight p and predicted 0 with weight 1 − p.

On Adult with sex × race also on the test rows of the well-supported groups: those with at
least 300 training rows, and those that the default rule's ``group_support_`` does not flag
(no constrained rate with a sampling SD above 0.05 on the training part). Summaries give
the mean and the split-to-split SD; ``differences`` compares rules split by split, with the
corrected resampled t interval of Nadeau & Bengio (2003), which widens the naive one
because the splits share their data.

    python -m benchmarks.bench_fair_boc [--quick]
"""

import warnings

import numpy as np
import pandas as pd
from fairlearn.postprocessing import ThresholdOptimizer
from sklearn.compose import make_column_transformer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from benchmarks._common import main, median_time
from fairkit.datasets import DataFileError, load_adult, make_fair_classification
from fairkit.metrics import (
    demographic_parity_difference,
    equalized_odds_difference,
    fairness_floor,
    resampled_interval,
    true_positive_rate_difference,
)
from fairkit.postprocessing import RandomizedFairBOC
from fairkit.postprocessing._support import NOISE_LIMIT

# fairkit constraint -> (fairlearn constraint, violation metric)
CONSTRAINTS = {
    "demographic_parity": ("demographic_parity", demographic_parity_difference),
    "equal_opportunity": ("true_positive_rate_parity", true_positive_rate_difference),
    "equalized_odds": ("equalized_odds", equalized_odds_difference),
}
RULES = ("fairkit", "fairkit empirical", "fairlearn", "unconstrained")
# (rule, rule it is compared with) in `differences`
PAIRS = (("fairkit", "fairlearn"), ("fairkit", "unconstrained"), ("fairlearn", "unconstrained"),
         ("fairkit empirical", "unconstrained"), ("fairkit empirical", "fairkit"),
         ("fairkit empirical", "fairlearn"))
WELL_SUPPORTED = 300  # training rows a group needs to be in the restricted rows
N_DRAWS = 1000  # draws of the fair rule behind each noise floor
ADULT_ROWS, ADULT_TEST_SIZE = 48_842, 16_281  # Adult's rows, and the size of its standard test part


def _synthetic(n):
    X, y, group = make_fair_classification(2 * n, 10, n_groups=2, group_weights=[0.6, 0.4],
                                           label_bias=1.0, feature_bias=1.0, random_state=0)
    return np.column_stack([X, group]), y, group


def _synthetic_split(data, seed):
    """Train and test halves; the scores model sees the group, as η(x, a) = P(Y=1 | x, a) does."""
    X, X_test, y, y_test, g, g_test = train_test_split(*data, test_size=0.5, random_state=seed)
    scores_model = LogisticRegression(max_iter=1000).fit(X, y)
    return scores_model, (X, y, g), (X_test, y_test, g_test)


def _adult_model(data, target):
    """Logistic regression on one-hot categories and sex × race.

    The sex × race column lets the logistic regression give each intersectional group
    its own intercept, so that its scores estimate η(x, a) for every group.
    """
    categorical = data.select_dtypes("category").columns.tolist()
    return make_pipeline(
        make_column_transformer((OneHotEncoder(handle_unknown="ignore"), [*categorical, "sex_race"]),
                                remainder=StandardScaler()),
        LogisticRegression(max_iter=1000)).fit(data, target)


def _with_sex_race(bunch):
    bunch.data["sex_race"] = bunch.data["sex"].astype(str) + " " + bunch.data["race"].astype(str)
    return bunch


# ---------------------------------------------------------------------------------------------
# speed


def _compare(scores_model, train, test, constraint, repeats, peer_repeats):
    X, y, g = train
    X_test, _, g_test = test
    peer_constraint, _ = CONSTRAINTS[constraint]
    ours = RandomizedFairBOC(scores_model, constraint=constraint, prefit=True, random_state=0)
    peer = ThresholdOptimizer(estimator=scores_model, constraints=peer_constraint, prefit=True,
                              predict_method="predict_proba")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # fairlearn's and pandas' deprecation chatter, fit support
        fit_ours, _ = median_time(lambda: ours.fit(X, y, sensitive_features=g), repeats)
        fit_peer, _ = median_time(lambda: peer.fit(X, y, sensitive_features=g), peer_repeats)
        predict_ours, _ = median_time(lambda: ours.predict(X_test, sensitive_features=g_test), repeats)
        predict_peer, _ = median_time(
            lambda: peer.predict(X_test, sensitive_features=g_test, random_state=0), repeats)
    return {"constraint": constraint, "n_train": len(y), "n_groups": len(ours.groups_),
            "fit_seconds": {"fairkit": fit_ours, "fairlearn": fit_peer},
            "predict_seconds": {"fairkit": predict_ours, "fairlearn": predict_peer},
            "fit_speedup": fit_peer / fit_ours, "predict_speedup": predict_peer / predict_ours,
            "n_randomized": ours.n_randomized_}


def _adult_standard_split():
    """Adult's standard split, with sex and with sex × race as the sensitive features."""
    train, test = (_with_sex_race(load_adult(subset=subset, as_frame=True)) for subset in ("train", "test"))
    model = _adult_model(train.data, train.target)
    for name, columns in (("sex", ["sex"]), ("sex x race", ["sex", "race"])):
        yield (f"Adult, {name}", model, (train.data, train.target.to_numpy(), train.sensitive[columns]),
               (test.data, test.target.to_numpy(), test.sensitive[columns]))


def speed(quick):
    sizes = [10**4, 3 * 10**4] if quick else [10**4, 10**5, 10**6]
    rows = []
    for n in sizes:
        scores_model, train, test = _synthetic_split(_synthetic(n), seed=0)
        for constraint in CONSTRAINTS:
            peer_repeats = 1 if n >= 10**6 else 3
            row = _compare(scores_model, train, test, constraint, repeats=3, peer_repeats=peer_repeats)
            rows.append({"data": f"synthetic n={n}", **row})
            print(_speed_line(rows[-1]), flush=True)
    try:
        adult = list(_adult_standard_split())
    except DataFileError as exc:
        print(f"Adult skipped: {exc}")
        adult = []
    for name, scores_model, train, test in adult:
        for constraint in CONSTRAINTS:
            rows.append({"data": name, **_compare(scores_model, train, test, constraint, 3, 3)})
            print(_speed_line(rows[-1]), flush=True)
    return rows


def _speed_line(row):
    return (f"{row['data']:<24} {row['constraint']:<20} fit x{row['fit_speedup']:6.1f} "
            f"predict x{row['predict_speedup']:5.1f}")


# ---------------------------------------------------------------------------------------------
# violations, over random splits


def _decisions(scores_model, train, X_test, g_test, constraint, seed):
    """Each rule's realised test decisions and probabilities of predicting 1; the default rule's support."""
    X, y, g = train
    decisions, support = {}, None
    for name, rates in (("fairkit", "plugin"), ("fairkit empirical", "empirical")):
        rule = RandomizedFairBOC(scores_model, constraint=constraint, rates=rates, prefit=True,
                                 random_state=seed).fit(X, y, sensitive_features=g)
        decisions[name] = (rule.predict(X_test, sensitive_features=g_test),
                           rule.predict_proba(X_test, sensitive_features=g_test)[:, 1])
        support = rule.group_support_ if rates == "plugin" else support
    peer = ThresholdOptimizer(estimator=scores_model, constraints=CONSTRAINTS[constraint][0], prefit=True,
                              predict_method="predict_proba").fit(X, y, sensitive_features=g)
    decisions["fairlearn"] = (peer.predict(X_test, sensitive_features=g_test, random_state=seed),
                              np.clip(peer._pmf_predict(X_test, sensitive_features=g_test)[:, 1], 0, 1))
    unconstrained = scores_model.predict(X_test)
    decisions["unconstrained"] = (unconstrained, unconstrained.astype(float))
    return decisions, support


def _measure(metric, y, y_pred, p_one, groups, seed):
    """Accuracy and violation of realised decisions (interval, floor) and of expected ones."""
    value, low, high = metric(y, y_pred, sensitive_features=groups, ci=0.95)
    floor = fairness_floor(metric, y, y_pred, sensitive_features=groups, n_draws=N_DRAWS, quantile=0.95,
                           random_state=seed)
    expected = metric(np.concatenate([y, y]), np.repeat([1, 0], len(y)),
                      sensitive_features=np.concatenate([groups, groups]),
                      sample_weight=np.concatenate([p_one, 1 - p_one]))
    return {"accuracy": float(np.mean(y_pred == y)), "violation": value, "low": low, "high": high,
            "floor_q95": floor.quantile, "floor_pvalue": floor.pvalue,
            "expected_accuracy": float(np.mean(np.where(y == 1, p_one, 1 - p_one))),
            "expected_violation": float(expected)}


def _scopes(g, g_test, support, restrict):
    """Test rows of every scope: all groups and, with ``restrict``, the well-supported ones.

    Well supported: at least WELL_SUPPORTED training rows, or (when it differs) not flagged
    by the default rule's ``group_support_`` (a constrained rate's SD above NOISE_LIMIT).
    """
    scopes = {"all": np.ones(len(g_test), bool)}
    if not restrict:
        return scopes
    groups, counts = np.unique(g, return_counts=True)
    big = groups[counts >= WELL_SUPPORTED]
    scopes[f">= {WELL_SUPPORTED} train rows"] = np.isin(g_test, big)
    unflagged = support.index[~(support.filter(regex="_sd$") > NOISE_LIMIT).any(axis=1)]
    if len(unflagged) < len(support) and set(unflagged) != set(big):
        scopes["not flagged by support"] = np.isin(g_test, unflagged)
    return scopes


def _split_records(data_name, scores_model, train, test, seed, restrict=False):
    """Per-split records of every constraint, rule and scope of test rows."""
    X_test, y_test, g_test = test
    records = []
    for constraint, (_, metric) in CONSTRAINTS.items():
        decisions, support = _decisions(scores_model, train, X_test, g_test, constraint, seed)
        for scope, rows in _scopes(train[2], g_test, support, restrict).items():
            for rule in RULES:
                y_pred, p_one = decisions[rule]
                records.append({"data": data_name, "groups": scope, "constraint": constraint,
                                "split": seed, "rule": rule, "n_groups": len(np.unique(g_test[rows])),
                                **_measure(metric, y_test[rows], y_pred[rows], p_one[rows],
                                           g_test[rows], seed)})
                print(_split_line(records[-1]), flush=True)
    return records


def _split_line(r):
    return (f"{r['data']:<18} {r['groups']:<22} {r['constraint']:<18} split {r['split']} {r['rule']:<17} "
            f"acc {r['accuracy']:.4f}  violation {r['violation']:.3f} [{r['low']:.3f}, {r['high']:.3f}] "
            f"floor {r['floor_q95']:.3f} p={r['floor_pvalue']:.3f}  expected {r['expected_violation']:.3f}")


def _adult_splits(seeds):
    """Random splits of Adult's 48,842 rows; each yields its (sex, sex × race) records."""
    adult = _with_sex_race(load_adult(as_frame=True))
    y = adult.target.to_numpy()
    for seed in seeds:
        X, X_test, y_train, y_test = train_test_split(adult.data, y, test_size=ADULT_TEST_SIZE,
                                                      random_state=seed)
        scores_model = _adult_model(X, y_train)
        for name, column in (("sex", "sex"), ("sex x race", "sex_race")):
            g, g_test = X[column].astype(str).to_numpy(), X_test[column].astype(str).to_numpy()
            yield from _split_records(f"Adult, {name}", scores_model, (X, y_train, g),
                                      (X_test, y_test, g_test), seed, restrict=name == "sex x race")


def violations(quick):
    seeds = range(2 if quick else 10)
    records = []
    with warnings.catch_warnings():
        # fairlearn's and pandas' chatter; RandomizedFairBOC's support warning (group_support_ is
        # the point of the restricted rows); undefined rates of test groups without positives
        warnings.simplefilter("ignore")
        for n in [10**4] if quick else [10**4, 10**5]:
            data = _synthetic(n)
            for seed in seeds:
                scores_model, train, test = _synthetic_split(data, seed)
                records += _split_records(f"synthetic n={n}", scores_model, train, test, seed)
        try:
            records += list(_adult_splits(seeds))
        except DataFileError as exc:
            print(f"Adult skipped: {exc}")
    return records


def _summaries(records):
    frame = pd.DataFrame(records)
    keys = ["data", "groups", "constraint", "rule"]
    rows = []
    for key, part in frame.groupby(keys, sort=False):
        sizes = sorted({part["n_groups"].min(), part["n_groups"].max()})
        rows.append({**dict(zip(keys, key, strict=True)), "n_splits": len(part),
                     "n_groups": "-".join(map(str, sizes)),
                     "accuracy": part["accuracy"].mean(), "accuracy_sd": part["accuracy"].std(),
                     "violation": part["violation"].mean(), "violation_sd": part["violation"].std(),
                     "low": part["low"].mean(), "high": part["high"].mean(),
                     "splits_low_above_0": int((part["low"] > 0).sum()),
                     "floor_q95": part["floor_q95"].mean(),
                     "floor_pvalue_median": part["floor_pvalue"].median(),
                     "splits_pvalue_below_0.05": int((part["floor_pvalue"] < 0.05).sum()),
                     "expected_violation": part["expected_violation"].mean(),
                     "expected_violation_sd": part["expected_violation"].std(),
                     "expected_accuracy": part["expected_accuracy"].mean()})
    return rows


def _test_fraction(data):
    """n_test / n_train of the splits of ``data``."""
    return ADULT_TEST_SIZE / (ADULT_ROWS - ADULT_TEST_SIZE) if data.startswith("Adult") else 1.0


def _differences(records):
    """Paired differences between rules over the splits, with Nadeau & Bengio's corrected t interval.

    The variance of the mean of k paired differences is taken as (1/k + n_test/n_train) s²
    instead of s²/k: the splits share their data, so their differences are correlated.
    """
    frame = pd.DataFrame(records).set_index(["data", "groups", "constraint", "split", "rule"])
    rows = []
    for (data, scope, constraint), part in frame.groupby(level=[0, 1, 2], sort=False):
        by_rule = part.droplevel([0, 1, 2])
        for rule, other in PAIRS:
            row = {"data": data, "groups": scope, "constraint": constraint, "difference": f"{rule} - {other}"}
            for quantity in ("violation", "expected_violation", "expected_accuracy"):
                diff = (by_rule.xs(rule, level="rule")[quantity]
                        - by_rule.xs(other, level="rule")[quantity]).to_numpy()
                estimate = resampled_interval(diff, test_fraction=_test_fraction(data))
                row[quantity] = {"mean": estimate.value, "low": estimate.low, "high": estimate.high}
            rows.append(row)
    return rows


def run(quick=False):
    speed_rows = speed(quick)
    records = violations(quick)
    summaries = _summaries(records)
    for row in summaries:
        print(f"{row['data']:<18} {row['groups']:<22} {row['constraint']:<18} {row['rule']:<17} "
              f"violation {row['violation']:.3f} ± {row['violation_sd']:.3f} "
              f"[{row['low']:.3f}, {row['high']:.3f}] floor {row['floor_q95']:.3f} "
              f"p<0.05 in {row['splits_pvalue_below_0.05']}/{row['n_splits']}  "
              f"expected {row['expected_violation']:.3f} ± {row['expected_violation_sd']:.3f}", flush=True)
    return {
        "note": "speed: fit/predict times are medians of 3 runs (fairlearn fit: 1 run at n=10^6), prefit "
                "logistic regression scores shared by both. violation: mean over random splits (_sd: "
                "split-to-split SD); low/high: mean ends of the 95% interval (ci=0.95) of the realised "
                "violation (splits_low_above_0: splits whose interval excludes 0); floor: fairness_floor "
                f"of the realised decisions ({N_DRAWS} draws), its 0.95 quantile (mean) and p-value "
                "(median); expected_*: of the probabilities of predicting 1. "
                "differences: mean paired difference (first rule minus second) and its 95% corrected "
                "resampled t interval (Nadeau & Bengio 2003).",
        "speed": speed_rows,
        "violation": summaries,
        "differences": _differences(records),  # the per-split records are printed, not stored
    }


if __name__ == "__main__":
    main("fair_boc", run, packages=("fairkit", "numpy", "scipy", "scikit-learn", "fairlearn", "pandas"))
