"""The robustness benchmark's own arithmetic and data: encoding, splits, noise, the paper's EOd, intervals,
the claims' verdicts."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
pytest.importorskip("fairkit_robust")
pytest.importorskip("torch")
from benchmarks.bench_robust import (  # noqa: E402
    claim_a,
    claim_a_verdict,
    claim_b,
    claim_b_verdict,
    claim_c_verdict,
    curves,
    encode,
    eod_sum,
    load,
    mean_interval,
    noise,
    paired,
    rank_verdict,
    split,
)


def _features():
    return pd.DataFrame({"age": [20, 30, 40, 50, 60, 70, 25, 35], "job": list("abcabcab"),
                         "hours": [10.0, 20, 30, 40, 50, 60, 15, 25], "sex": list("MFMFMFMF")})


def test_encode_puts_the_numbers_first_and_one_hot_blocks_that_sum_to_one():
    X, mask = encode(_features(), ["age", "hours"])
    assert X.shape == (8, 2 + 3 + 2) and mask.tolist() == [True, True] + [False] * 5
    np.testing.assert_array_equal(X[:, 0], _features()["age"])
    one_hot = X[:, 2:]
    assert set(np.unique(one_hot)) == {0.0, 1.0}
    np.testing.assert_array_equal(one_hot[:, :3].sum(axis=1), 1)  # job: a, b, c
    np.testing.assert_array_equal(one_hot[:, 3:].sum(axis=1), 1)  # sex: F, M
    assert one_hot[0, :3].tolist() == [1, 0, 0] and one_hot[1, 3:].tolist() == [1, 0]


def test_split_standardises_the_moved_columns_on_the_training_part_only_and_bounds_hold_both_parts():
    rng = np.random.default_rng(0)
    X = np.hstack([rng.normal(5, 3, size=(200, 2)), rng.integers(0, 2, size=(200, 3))])
    mask = np.array([True, True, False, False, False])
    y, groups = rng.integers(0, 2, 200), rng.integers(0, 2, 200)
    part = split(X, y, groups, mask, seed=1)
    assert len(part["X_test"]) == 50 and len(part["X_train"]) == 150
    np.testing.assert_allclose(part["X_train"][:, :2].mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(part["X_train"][:, :2].std(axis=0), 1)
    # rows stay paired with their labels and groups; the test part is scaled as the training part
    order = np.random.default_rng(1).permutation(200)
    test, train = order[:50], order[50:]
    np.testing.assert_array_equal(part["y_test"], y[test])
    np.testing.assert_array_equal(part["a_train"], groups[train])
    np.testing.assert_array_equal(part["X_test"][:, 2:], X[test, 2:])  # one-hot columns untouched
    np.testing.assert_allclose(part["X_test"][:, :2] * X[train, :2].std(axis=0) + X[train, :2].mean(axis=0),
                               X[test, :2])
    both = np.vstack([part["X_train"], part["X_test"]])
    lower, upper = part["bounds"]
    assert (both >= lower).all() and (both <= upper).all()
    assert np.isclose(lower, both.min(axis=0)).all() and np.isclose(upper, both.max(axis=0)).all()
    assert not np.array_equal(split(X, y, groups, mask, seed=2)["y_test"], part["y_test"])


@pytest.mark.parametrize("kind", ["uniform_noise", "sign_noise"])
def test_noise_stays_in_the_ball_the_mask_and_the_bounds(kind):
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, size=(500, 4))
    mask = np.array([True, True, False, True])
    lower, upper = np.zeros(4), np.array([1.0, 1.0, 1.0, 0.9])
    X = np.minimum(X, upper)
    X_noisy = noise(X, 0.2, mask, (lower, upper), kind, np.random.default_rng(1))
    shift = X_noisy - X
    assert np.abs(shift).max() <= 0.2 + 1e-12
    np.testing.assert_array_equal(shift[:, 2], 0)
    assert (X_noisy >= lower).all() and (X_noisy <= upper).all()
    inside = (X[:, :2] > 0.2) & (X[:, :2] < 0.8)  # far from the bounds: nothing clipped
    if kind == "sign_noise":
        np.testing.assert_allclose(np.abs(shift[:, :2][inside]), 0.2)
    else:  # spread over the ball: mean |shift| of U(-0.2, 0.2) is 0.1
        assert abs(np.abs(shift[:, :2][inside]).mean() - 0.1) < 0.01


def test_noise_refuses_an_unknown_kind():
    with pytest.raises(ValueError, match="unknown noise"):
        noise(np.zeros((2, 2)), 0.1, np.ones(2, bool), (np.zeros(2), np.ones(2)), "gaussian",
              np.random.default_rng(0))


def test_eod_sum_is_the_papers_code_tpr_gap_plus_tnr_gap_times_100():
    # group a: 4 positives (3 predicted 1), 4 negatives (1 predicted 1): TPR 3/4, TNR 3/4
    # group b: 2 positives (2 predicted 1), 5 negatives (3 predicted 1): TPR 1, TNR 2/5
    y_true = [1, 1, 1, 1, 0, 0, 0, 0] + [1, 1, 0, 0, 0, 0, 0]
    y_pred = [1, 1, 1, 0, 1, 0, 0, 0] + [1, 1, 1, 1, 1, 0, 0]
    groups = ["a"] * 8 + ["b"] * 7
    assert eod_sum(y_true, y_pred, groups) == pytest.approx(100 * (abs(3 / 4 - 1) + abs(3 / 4 - 2 / 5)))


def test_mean_interval_is_the_t_interval_and_paired_the_interval_of_the_differences():
    values = np.array([0.2, 0.25, 0.31, 0.18, 0.27])
    low, high = stats.t.interval(0.95, 4, loc=values.mean(), scale=stats.sem(values))
    assert mean_interval(values) == pytest.approx((values.mean(), low, high))
    assert mean_interval([0.3]) == (0.3, None, None)
    ours, theirs = np.array([0.5, 0.6, 0.7]), np.array([0.1, 0.3, 0.2])
    assert paired(ours, theirs) == pytest.approx(mean_interval(ours - theirs))
    assert paired([1.0, 2.0], [0.5, 1.5]) == (0.5, 0.5, 0.5)  # equal differences: a point


def test_claim_a_verdict_needs_both_noises_beaten_and_a_rise_at_least_twice_the_larger():
    assert claim_a_verdict(0.10, [0.01, 0.05], [1, 1]) == "holds"
    assert claim_a_verdict(0.09, [0.01, 0.05], [1, 1]) == "weaker"
    assert claim_a_verdict(0.10, [-0.01, -0.02], [1, 1]) == "holds"  # noise lowers the gap
    assert claim_a_verdict(0.10, [0.0, 0.0], [1, 0]) == "no"  # not significant against one noise


def test_claim_b_verdict_reads_the_interval_of_adv_minus_erm():
    assert claim_b_verdict(-0.05, -0.01) == "holds"
    assert claim_b_verdict(0.01, 0.05) == "contradicted"
    assert claim_b_verdict(-0.05, 0.01) == "noise" and claim_b_verdict(None, None) == "noise"


def test_rank_verdict_compares_with_the_best_other_model_by_mean():
    others = {"ERM": np.array([0.80, 0.82, 0.81]), "fair": np.array([0.70, 0.71, 0.69])}
    best = rank_verdict(np.array([0.85, 0.86, 0.86]), others, higher_is_better=True)
    assert best[:2] == ("best", "ERM") and best[2][0] == pytest.approx(0.0467, abs=1e-4)
    assert rank_verdict(np.array([0.83, 0.80, 0.83]), others, True)[0] == "best_ns"
    assert rank_verdict(np.array([0.79, 0.83, 0.80]), others, True)[0] == "tied"
    assert rank_verdict(np.array([0.75, 0.76, 0.76]), others, True)[0] == "worse"
    gaps = {"ERM": np.array([0.20, 0.25, 0.22]), "fair": np.array([0.10, 0.12, 0.11])}
    assert rank_verdict(np.array([0.05, 0.06, 0.05]), gaps, higher_is_better=False)[:2] == ("best", "fair")
    assert rank_verdict(np.array([0.20, 0.22, 0.21]), gaps, higher_is_better=False)[0] == "worse"


def test_claim_c_verdict():
    assert claim_c_verdict("best", "best_ns") == "holds"
    assert claim_c_verdict("tied", "best") == "not_worse"
    assert claim_c_verdict("best", "worse") == "no"


def _frame():
    """Three splits of the fair model and ERM / adv_acc under the fairness attack and noise, known gaps."""
    rows = []
    gaps = {("fair", "fairness", 0.0): [0.10, 0.12, 0.11], ("fair", "fairness", 0.1): [0.30, 0.33, 0.29],
            ("fair", "uniform_noise", 0.1): [0.11, 0.12, 0.12],
            ("fair", "sign_noise", 0.1): [0.12, 0.13, 0.12],
            ("ERM", "fairness", 0.0): [0.20, 0.22, 0.21], ("ERM", "fairness", 0.1): [0.40, 0.45, 0.41],
            ("adv_acc", "fairness", 0.0): [0.20, 0.21, 0.22],
            ("adv_acc", "fairness", 0.1): [0.25, 0.27, 0.26]}
    for (model, attack, eps), values in gaps.items():
        for seed in (2, 0, 1):  # out of order: paired by seed
            rows.append({"data": "d", "seed": seed, "model": model, "attack": attack, "eps": eps,
                         "accuracy": 0.8, "eod": values[seed], "eod_ci_low": 0.0, "eod_ci_high": 0.5,
                         "eod_sum": 100 * values[seed]})
    return pd.DataFrame(rows)


def test_claim_a_pairs_the_attacked_and_noisy_gaps_of_the_fair_model_by_split():
    record = claim_a(_frame(), "d", 0.1, "eod")
    assert record["clean"] == pytest.approx(0.11)
    assert record["attack_rise"] == pytest.approx(np.mean([0.20, 0.21, 0.18]))
    assert record["uniform_noise_rise"] == pytest.approx(np.mean([0.01, 0.0, 0.01]))
    assert record["sign_noise_rise"] == pytest.approx(np.mean([0.02, 0.01, 0.01]))
    expected = mean_interval(np.array([0.30, 0.33, 0.29]) - np.array([0.12, 0.13, 0.12]))
    assert (record["vs_sign_noise"], record["vs_sign_noise_low"], record["vs_sign_noise_high"]) == \
        pytest.approx(expected)
    assert record["times_noise"] == pytest.approx(record["attack_rise"] / record["sign_noise_rise"])
    assert record["verdict"] == "holds"


def test_claim_b_compares_adversarial_training_with_erm_under_the_fairness_attack():
    record = claim_b(_frame(), "d", 0.1, "eod_sum")
    adv, erm = np.array([25, 27, 26.0]), np.array([40, 45, 41.0])
    expected = mean_interval(adv - erm)
    assert (record["diff"], record["diff_low"], record["diff_high"]) == pytest.approx(expected)
    rises = (adv - [20, 21, 22]) - (erm - [20, 22, 21])
    assert record["rise_diff"] == pytest.approx(rises.mean()) and record["verdict"] == "holds"


def test_curves_average_each_measure_over_splits_with_its_interval():
    rows = curves(_frame())
    row = next(r for r in rows if (r["model"], r["attack"], r["eps"]) == ("ERM", "fairness", 0.1))
    assert row["splits"] == 3
    assert (row["eod"], row["eod_low"], row["eod_high"]) == pytest.approx(mean_interval([0.40, 0.45, 0.41]))
    assert row["eod_sum"] == pytest.approx(42.0) and row["eod_ci_high"] == pytest.approx(0.5)


def test_adult_race_keeps_white_and_black_people_without_the_race_column(data_home):
    features, y, groups, numeric = load("adult_race")
    assert "race" not in features and {"fnlwgt", "education-num"}.isdisjoint(features.columns)
    assert numeric == ["age", "capital-gain", "capital-loss", "hours-per-week"]
    assert not features.isna().any().any() and set(np.unique(y)) == {0, 1}
    assert 0.05 < groups.mean() < 0.15  # Black people are about a tenth of these rows
    assert len(y) == len(groups) == len(features)


def test_compas_keeps_the_two_groups_of_the_paper(data_home):
    features, y, groups, numeric = load("compas")
    assert len(y) == 5278 and "race" not in features  # as ProPublica's filter and the paper
    assert set(numeric) == {"age", "juv_fel_count", "juv_misd_count", "juv_other_count", "priors_count"}
    assert 0.55 < groups.mean() < 0.65  # African-American
