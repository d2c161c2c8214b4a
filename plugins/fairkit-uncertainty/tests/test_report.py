"""selective_report: risk–coverage curves and AURC against a brute-force oracle, the per-group figures
against counts by hand, the intervals against scipy, the flag on planted and exchangeable data."""

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest

from fairkit_uncertainty._report import selective_report

# --- the oracle: a plain loop over k ---------------------------------------------------------------------


def _top_k(confidence, k):
    """The rows a threshold at the k-th largest confidence accepts (ties with it included)."""
    threshold = sorted(confidence, reverse=True)[k - 1]
    return [i for i, c in enumerate(confidence) if c >= threshold], threshold


def _risk_of_top_k(confidence, wrong, k):
    rows, _ = _top_k(confidence, k)
    return sum(wrong[i] for i in rows) / len(rows)


def _oracle_curve(confidence, wrong, coverage):
    """(threshold, accepted, risk) of the smallest k with k / n >= coverage, in exact arithmetic."""
    n = len(confidence)
    k = next(k for k in range(1, n + 1) if Fraction(k, n) >= Fraction(str(coverage)))
    rows, threshold = _top_k(confidence, k)
    return threshold, len(rows), _risk_of_top_k(confidence, wrong, k)


def _oracle_aurc(confidence, wrong):
    n = len(confidence)
    return sum(_risk_of_top_k(confidence, wrong, k) for k in range(1, n + 1)) / n


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.booleans(), st.sampled_from("ab")), min_size=2, max_size=30)
       .filter(lambda rows: {g for _, _, g in rows} == {"a", "b"}))
def test_curve_and_aurc_equal_a_loop_over_k_with_ties(rows):
    confidence = np.array([c / 4 for c, _, _ in rows])  # five values: many ties
    right = np.array([r for _, r, _ in rows])
    group = np.array([g for _, _, g in rows])
    coverages = [0.1, 0.3, 0.5, 0.7, 1.0]
    report = selective_report(np.ones(len(rows), int), right.astype(int), confidence,
                              sensitive_features=group, coverages=coverages)
    for label, member in [("overall", np.ones(len(rows), bool)), ("a", group == "a"), ("b", group == "b")]:
        conf, wrong = confidence[member].tolist(), (~right[member]).tolist()
        curve = report.curve[report.curve["group"] == label]
        expected = [_oracle_curve(conf, wrong, c) for c in coverages]
        assert curve["threshold"].tolist() == [e[0] for e in expected]
        assert curve["accepted"].tolist() == [e[1] for e in expected]
        assert curve["achieved_coverage"].to_numpy() == pytest.approx([e[1] / len(conf) for e in expected])
        assert curve["selective_risk"].to_numpy() == pytest.approx([e[2] for e in expected])
        assert report.aurc[label] == pytest.approx(_oracle_aurc(conf, wrong))


def test_aurc_of_a_small_example_by_hand():
    # confidences 3, 2, 2, 1 with errors 1, 0, 1, 0: top 1 -> 1/1; top 2 and 3 (tie) -> 2/3; top 4 -> 2/4
    report = selective_report([1, 1, 1, 1], [0, 1, 0, 1], [3.0, 2.0, 2.0, 1.0],
                              sensitive_features=[0, 0, 1, 1], coverages=[0.25, 0.5, 1.0])
    assert report.aurc["overall"] == pytest.approx((1 + 2 / 3 + 2 / 3 + 1 / 2) / 4)
    overall = report.curve[report.curve["group"] == "overall"]
    assert overall["achieved_coverage"].tolist() == [0.25, 0.75, 1.0]  # at 0.5 the tie enters whole
    assert overall["selective_risk"].to_numpy() == pytest.approx([1, 2 / 3, 1 / 2])


def test_a_coverage_of_a_whole_number_of_rows_is_not_rounded_up():
    # 0.14 * 50 is 7.000000000000001 in floating point: still 7 rows, not 8
    report = selective_report([1] * 50, [1] * 50, np.arange(50.0), sensitive_features=[0, 1] * 25,
                              coverages=[0.14, 0.5], operating_point=0.14)
    overall = report.curve[report.curve["group"] == "overall"]
    assert overall["accepted"].tolist() == [7, 25] and report.operating_coverage == 0.14


# --- the operating point ---------------------------------------------------------------------------------

HAND = dict(  # group a: six rows, b: four
    y_true=[1] * 10,
    y_pred=[1, 1, 0, 1, 1, 0] + [1, 0, 1, 1],
    confidence=[0.9, 0.8, 0.7, 0.6, 0.5, 0.4] + [0.95, 0.3, 0.2, 0.1],
    sensitive_features=["a"] * 6 + ["b"] * 4,
)


def test_per_group_coverage_and_selective_accuracy_by_hand():
    # coverage 0.5: the 5 most confident rows, 0.95 (b) and 0.9, 0.8, 0.7, 0.6 (a); threshold 0.6
    report = selective_report(**HAND, operating_point=0.5)
    groups = report.groups
    assert groups["count"].tolist() == [6, 4] and groups["accepted"].tolist() == [4, 1]
    assert groups["coverage"].to_numpy() == pytest.approx([4 / 6, 1 / 4])
    assert groups["selective_accuracy"].to_numpy() == pytest.approx([3 / 4, 1 / 1])  # a: 1, 1, 0, 1
    assert groups["accuracy"].to_numpy() == pytest.approx([4 / 6, 3 / 4])
    assert groups["rest_coverage"].to_numpy() == pytest.approx([1 / 4, 4 / 6])
    assert groups["shortfall"].to_numpy() == pytest.approx([1 / 4 - 4 / 6, 4 / 6 - 1 / 4])
    assert report.operating_coverage == 0.5 and report.overall["threshold"] == 0.6
    assert report.overall["selective_accuracy"] == pytest.approx(4 / 5)
    assert report.overall["accuracy_gap"] == pytest.approx(3 / 4 - 4 / 6)
    assert report.overall["selective_accuracy_gap"] == pytest.approx(1 - 3 / 4)
    assert list(groups.index) == ["a", "b"] and not report.flagged  # ten rows cannot show a shortfall


def _exact(successes, trials, level):
    interval = binomtest(int(successes), int(trials)).proportion_ci(confidence_level=level, method="exact")
    return interval.low, interval.high


@pytest.mark.parametrize("n_groups", [2, 3])
def test_intervals_are_clopper_pearson_at_the_sidak_level(n_groups):
    rng = np.random.default_rng(n_groups)
    n = 600
    group = rng.integers(n_groups, size=n)
    confidence = rng.random(n) + 0.2 * group
    y_true, y_pred = np.ones(n, int), (rng.random(n) < 0.7).astype(int)
    report = selective_report(y_true, y_pred, confidence, sensitive_features=group, operating_point=0.6,
                              ci=0.9)
    accepted = confidence >= np.sort(confidence)[::-1][int(np.ceil(0.6 * n)) - 1]
    correct = y_true == y_pred
    n_coverages = 2 if n_groups == 2 else 2 * n_groups  # each group's coverage, and its rest's
    for g, row in report.groups.iterrows():
        member = group == g
        coverage_level = 0.9 ** (1 / n_coverages)
        assert (row.coverage_low, row.coverage_high) == pytest.approx(
            _exact(accepted[member].sum(), member.sum(), coverage_level))
        rest = _exact(accepted[~member].sum(), (~member).sum(), coverage_level)
        assert (row.selective_accuracy_low, row.selective_accuracy_high) == pytest.approx(
            _exact((accepted & correct)[member].sum(), accepted[member].sum(), 0.9 ** (1 / n_groups)))
        assert (row.accuracy_low, row.accuracy_high) == pytest.approx(
            _exact(correct[member].sum(), member.sum(), 0.9 ** (1 / n_groups)))
        assert row.shortfall_low == pytest.approx(max(0.0, rest[0] - row.coverage_high))
        assert row.shortfall_high == pytest.approx(rest[1] - row.coverage_low)
    overall = report.overall
    assert (overall.coverage_low, overall.coverage_high) == pytest.approx(_exact(accepted.sum(), n, 0.9))


def _simulated(rng, n_per_group, push_down=0.0):
    """Two groups, equally often right; group 1's confidences lowered by ``push_down``."""
    group = np.repeat([0, 1], n_per_group)
    confidence = rng.random(2 * n_per_group) - push_down * group
    y_pred = (rng.random(2 * n_per_group) < 0.8).astype(int)
    return np.ones(2 * n_per_group, int), y_pred, confidence, group


def test_a_group_whose_confidence_is_pushed_down_is_flagged():
    y_true, y_pred, confidence, group = _simulated(np.random.default_rng(0), 300, push_down=0.3)
    report = selective_report(y_true, y_pred, confidence, sensitive_features=group, operating_point=0.8)
    assert report.flagged and report.groups["flagged"].tolist() == [False, True]
    assert report.groups.loc[1, "shortfall_low"] > report.tolerance


def _false_flags(n_replications, tolerance):
    rng = np.random.default_rng(12)
    flags = 0
    for _ in range(n_replications):
        y_true, y_pred, confidence, group = _simulated(rng, 300)
        flags += selective_report(y_true, y_pred, confidence, sensitive_features=group, operating_point=0.8,
                                  tolerance=tolerance).flagged
    return flags


def test_exchangeable_groups_are_not_flagged_quick():
    assert _false_flags(50, tolerance=0.05) == 0


@pytest.mark.slow
@pytest.mark.parametrize(("tolerance", "most"), [(0.05, 2), (0.0, 20)])
def test_exchangeable_groups_are_rarely_flagged(tolerance, most):
    # at tolerance 0 a flag needs two disjoint intervals, each missing with probability at most 5 % jointly:
    # 20 is beyond the 99.9 % quantile of Binomial(200, 0.05)
    assert _false_flags(200, tolerance) <= most


def test_a_mask_of_the_global_threshold_gives_the_coverage_form():
    rng = np.random.default_rng(3)
    y_true, y_pred, confidence, group = _simulated(rng, 200, push_down=0.1)
    confidence = np.round(confidence, 1)  # ties at the threshold
    by_coverage = selective_report(y_true, y_pred, confidence, sensitive_features=group, operating_point=0.7)
    mask = confidence >= by_coverage.overall["threshold"]
    by_mask = selective_report(y_true, y_pred, confidence, sensitive_features=group, operating_point=mask)
    pd.testing.assert_frame_equal(by_mask.groups, by_coverage.groups)
    pd.testing.assert_series_equal(by_mask.overall.drop("threshold"), by_coverage.overall.drop("threshold"))
    assert np.isnan(by_mask.overall["threshold"])
    assert by_mask.operating_coverage == by_coverage.operating_coverage
    pd.testing.assert_frame_equal(by_mask.curve, by_coverage.curve)


def test_a_group_that_no_mask_answers_is_flagged_and_has_no_selective_accuracy():
    group = np.repeat(["a", "b"], 50)
    report = selective_report(np.ones(100, int), np.ones(100, int), np.r_[np.ones(50), np.zeros(50)],
                              sensitive_features=group, operating_point=group == "a")
    assert report.groups["coverage"].tolist() == [1.0, 0.0]
    assert report.groups["flagged"].tolist() == [False, True]
    assert np.isnan(report.groups.loc["b", "selective_accuracy"])
    assert np.isnan(report.groups.loc["b", "selective_accuracy_low"])
    assert report.overall["selective_accuracy_gap"] == 0.0  # over the groups that have answered rows


def test_intersectional_groups_and_string_labels():
    sex, race = ["F", "F", "M", "M"] * 5, ["x", "y"] * 10
    y_true = np.array(["yes", "no"] * 10)
    report = selective_report(y_true, y_true[::-1], np.arange(20.0), sensitive_features=np.c_[sex, race],
                              operating_point=0.5)
    assert report.groups.index.nlevels == 2 and report.groups["count"].sum() == 20
    assert list(report.aurc.index) == ["overall", *report.groups.index]


# --- refusals ---------------------------------------------------------------------------------------------


def test_probabilities_as_y_pred_are_refused():
    with pytest.raises(ValueError, match=r"y_pred holds non-integer values such as 0\.9.*probabilities"):
        selective_report([1, 0, 1], [0.9, 0.2, 0.6], [0.9, 0.8, 0.6], sensitive_features=["a", "b", "a"])
    with pytest.raises(ValueError, match="y_pred must be a non-empty 1-D array.*predict_proba"):
        selective_report([1, 0], [[0.1, 0.9], [0.8, 0.2]], [0.9, 0.8], sensitive_features=["a", "b"])
    # labels that are whole floats are labels
    report = selective_report([1, 0], [1.0, 1.0], [0.9, 0.8], sensitive_features=["a", "b"])
    assert report.groups["accuracy"].tolist() == [1.0, 0.0]


def test_a_misaligned_pandas_index_is_refused():
    y = pd.Series([1, 0, 1, 1], index=[10, 11, 12, 13])
    groups = pd.Series(["a", "b", "a", "b"], index=[13, 12, 11, 10])
    with pytest.raises(ValueError, match="y_true and sensitive_features carry different pandas indexes"):
        selective_report(y, y.to_numpy(), [0.1, 0.2, 0.3, 0.4], sensitive_features=groups)
    mask = pd.Series([True, False, True, True], index=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="y_true and operating_point carry different pandas indexes"):
        selective_report(y, y.to_numpy(), [0.1, 0.2, 0.3, 0.4], sensitive_features=groups.to_numpy(),
                         operating_point=mask)


def test_nan_confidence_and_missing_labels_are_refused():
    with pytest.raises(ValueError, match="Input confidence contains NaN"):
        selective_report([1, 0], [1, 0], [0.5, np.nan], sensitive_features=["a", "b"])
    with pytest.raises(ValueError, match="confidence must be 1-D.*max\\(axis=1\\)"):
        selective_report([1, 0], [1, 0], [[0.5, 0.5], [0.1, 0.9]], sensitive_features=["a", "b"])
    with pytest.raises(ValueError, match="y_true holds missing values"):
        selective_report([1, None], [1, 0], [0.5, 0.4], sensitive_features=["a", "b"])
    with pytest.raises(ValueError, match="y_true has 2, y_pred has 2, confidence has 3 rows"):
        selective_report([1, 0], [1, 0], [0.5, 0.4, 0.3], sensitive_features=["a", "b"])


def test_a_mask_of_the_wrong_length_or_kind_is_refused():
    args = ([1, 0, 1], [1, 0, 0], [0.9, 0.5, 0.1])
    with pytest.raises(ValueError, match="operating_point is a mask of 2 rows but y_true has 3"):
        selective_report(*args, sensitive_features=["a", "b", "a"], operating_point=[True, False])
    with pytest.raises(ValueError, match="a 1-D boolean mask.*got list of dtype int64"):
        selective_report(*args, sensitive_features=["a", "b", "a"], operating_point=[1, 0, 1])


@pytest.mark.parametrize("coverage", [0, -0.1, 1.5, np.nan, True])
def test_an_operating_coverage_outside_0_1_is_refused(coverage):
    with pytest.raises(ValueError, match="operating_point must be a coverage in \\(0, 1\\]"):
        selective_report([1, 0], [1, 0], [0.9, 0.1], sensitive_features=["a", "b"], operating_point=coverage)


@pytest.mark.parametrize("coverages", [[0.0, 0.5], [0.5, 1.2], [], [np.nan]])
def test_curve_coverages_outside_0_1_are_refused(coverages):
    with pytest.raises(ValueError, match=r"coverages must be a non-empty 1-D sequence of shares in \(0, 1\]"):
        selective_report([1, 0], [1, 0], [0.9, 0.1], sensitive_features=["a", "b"], coverages=coverages)


def test_a_group_named_overall_is_refused():
    with pytest.raises(ValueError, match="a group named 'overall'"):
        selective_report([1, 0], [1, 0], [0.9, 0.1], sensitive_features=["overall", "b"])
