"""RandomizedFairBOC against fairlearn's ThresholdOptimizer: same prefit scores, same constraint.

For each data set a logistic regression is fitted once on the training half; both
post-processors then use its scores (``prefit=True``) on the same training half
and predict the test half. Reported per constraint: fit and predict times (median
of repeats) and their ratios, test accuracy, and the test violation of the
constraint (max − min over groups of the equalized rate). Data: synthetic
(``make_fair_classification``, 10⁴ to 10⁶ training samples) and Adult's standard
train/test split with sex, and sex × race (10 groups), as sensitive features.

    python -m benchmarks.bench_fair_boc [--quick]
"""

import warnings

import numpy as np
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
    true_positive_rate_difference,
)
from fairkit.postprocessing import RandomizedFairBOC

# fairkit constraint -> (fairlearn constraint, violation metric)
CONSTRAINTS = {
    "demographic_parity": ("demographic_parity", demographic_parity_difference),
    "equal_opportunity": ("true_positive_rate_parity", true_positive_rate_difference),
    "equalized_odds": ("equalized_odds", equalized_odds_difference),
}


def _split(X, y, group):
    """Train and test halves; the scores model sees the group, as η(x, a) = P(Y=1 | x, a) does."""
    X = np.column_stack([X, group])
    X, X_test, y, y_test, g, g_test = train_test_split(X, y, group, test_size=0.5, random_state=0)
    scores_model = LogisticRegression(max_iter=1000).fit(X, y)
    return scores_model, (X, y, g), (X_test, y_test, g_test)


def _compare(scores_model, train, test, constraint, repeats, peer_repeats):
    X, y, g = train
    X_test, y_test, g_test = test
    peer_constraint, violation = CONSTRAINTS[constraint]
    ours = RandomizedFairBOC(scores_model, constraint=constraint, prefit=True, random_state=0)
    peer = ThresholdOptimizer(estimator=scores_model, constraints=peer_constraint, prefit=True,
                              predict_method="predict_proba")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # fairlearn's and pandas' deprecation chatter
        fit_ours, _ = median_time(lambda: ours.fit(X, y, sensitive_features=g), repeats)
        fit_peer, _ = median_time(lambda: peer.fit(X, y, sensitive_features=g), peer_repeats)
        predict_ours, pred_ours = median_time(lambda: ours.predict(X_test, sensitive_features=g_test),
                                              repeats)
        predict_peer, pred_peer = median_time(
            lambda: peer.predict(X_test, sensitive_features=g_test, random_state=0), repeats)
    row = {"constraint": constraint, "n_train": len(y), "n_groups": len(ours.groups_),
           "fit_seconds": {"fairkit": fit_ours, "fairlearn": fit_peer},
           "predict_seconds": {"fairkit": predict_ours, "fairlearn": predict_peer},
           "fit_speedup": fit_peer / fit_ours, "predict_speedup": predict_peer / predict_ours,
           "n_randomized": ours.n_randomized_}
    for name, pred in (("fairkit", pred_ours), ("fairlearn", pred_peer)):
        row[f"test_accuracy_{name}"] = float(np.mean(pred == y_test))
        row[f"test_violation_{name}"] = float(violation(y_test, pred, sensitive_features=g_test))
    return row


def _adult():
    """Adult's standard split; the scores model one-hot encodes the categories and sex × race.

    The sex × race column lets the logistic regression give each intersectional group
    its own intercept, so that its scores estimate η(x, a) for every group.
    """
    train, test = (load_adult(subset=subset, as_frame=True) for subset in ("train", "test"))
    for part in (train, test):
        part.data["sex_race"] = part.data["sex"].astype(str) + " " + part.data["race"].astype(str)
    categorical = [*train.data.select_dtypes("category").columns, "sex_race"]
    model = make_pipeline(
        make_column_transformer((OneHotEncoder(handle_unknown="ignore"), categorical),
                                remainder=StandardScaler()),
        LogisticRegression(max_iter=1000)).fit(train.data, train.target)
    for name, columns in (("sex", ["sex"]), ("sex x race", ["sex", "race"])):
        yield (f"Adult, {name}", model, (train.data, train.target.to_numpy(), train.sensitive[columns]),
               (test.data, test.target.to_numpy(), test.sensitive[columns]))


def run(quick=False):
    sizes = [10**4, 3 * 10**4] if quick else [10**4, 10**5, 10**6]
    rows = []
    for n in sizes:
        X, y, group = make_fair_classification(2 * n, 10, n_groups=2, group_weights=[0.6, 0.4],
                                               label_bias=1.0, feature_bias=1.0, random_state=0)
        scores_model, train, test = _split(X, y, group)
        for constraint in CONSTRAINTS:
            peer_repeats = 1 if n >= 10**6 else 3
            row = _compare(scores_model, train, test, constraint, repeats=3, peer_repeats=peer_repeats)
            rows.append({"data": f"synthetic n={n}", **row})
            print(_line(rows[-1]), flush=True)
    try:
        adult = list(_adult())
    except DataFileError as exc:
        print(f"Adult skipped: {exc}")
        adult = []
    for name, scores_model, train, test in adult:
        for constraint in CONSTRAINTS:
            rows.append({"data": name, **_compare(scores_model, train, test, constraint, 3, 3)})
            print(_line(rows[-1]), flush=True)
    return {"rows": rows, "note": "fit/predict times are medians of 3 runs (fairlearn fit: 1 run at "
                                  "n=10^6); prefit logistic regression scores shared by both"}


def _line(row):
    return (f"{row['data']:<24} {row['constraint']:<20} fit x{row['fit_speedup']:6.1f} "
            f"predict x{row['predict_speedup']:5.1f}  acc {row['test_accuracy_fairkit']:.4f} vs "
            f"{row['test_accuracy_fairlearn']:.4f}  violation {row['test_violation_fairkit']:.4f} vs "
            f"{row['test_violation_fairlearn']:.4f}")


if __name__ == "__main__":
    main("fair_boc", run, packages=("fairkit", "numpy", "scipy", "scikit-learn", "fairlearn"))
