"""Group fairness metrics: fairlearn as oracle, known answers, undefined rates, label handling."""

import warnings

import fairlearn.metrics as flm
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning

from fairkit.metrics import (
    demographic_parity_difference,
    demographic_parity_ratio,
    equalized_odds_deviation,
    equalized_odds_difference,
    false_positive_rate_difference,
    group_summary,
    selection_rate,
    true_positive_rate_difference,
)

TOL = 1e-12


def random_data(seed, n, n_columns, weighted):
    """Binary labels, 1-3 sensitive columns, and every group holding both labels."""
    rng = np.random.default_rng(seed)
    alphabets = [np.array(["f", "m"]), np.array([0, 1, 2]), np.array(["x", "y", "z", "w"])]
    sensitive = pd.DataFrame({f"s{j}": rng.choice(alphabets[j], size=n)
                              for j in range(n_columns)})
    y_true = rng.integers(0, 2, n)
    y_pred = rng.integers(0, 2, n)
    # the first two samples of each group are a positive and a negative
    rank = sensitive.groupby(list(sensitive.columns)).cumcount().to_numpy()
    y_true[rank == 0], y_true[rank == 1] = 1, 0
    keep = sensitive.groupby(list(sensitive.columns))["s0"].transform("size").to_numpy() >= 2
    weights = rng.uniform(0.1, 3.0, n) if weighted else None
    return (y_true[keep], y_pred[keep], sensitive[keep].reset_index(drop=True),
            None if weights is None else weights[keep])


data_args = {"seed": st.integers(0, 2**32 - 1), "n": st.integers(4, 300),
             "n_columns": st.sampled_from([1, 2, 3]), "weighted": st.booleans()}


def check_differences_equal_fairlearn(seed, n, n_columns, weighted):
    y_true, y_pred, sensitive, weights = random_data(seed, n, n_columns, weighted)
    if len(y_true) == 0:
        return
    kw = {"sensitive_features": sensitive, "sample_weight": weights}
    pairs = [
        (demographic_parity_difference, flm.demographic_parity_difference, {}),
        (demographic_parity_ratio, flm.demographic_parity_ratio, {}),
        (true_positive_rate_difference, flm.true_positive_rate_difference, {}),
        (false_positive_rate_difference, flm.false_positive_rate_difference, {}),
        (equalized_odds_difference, flm.equalized_odds_difference, {}),
        (equalized_odds_difference, flm.equalized_odds_difference, {"agg": "mean"}),
    ]
    for ours, theirs, extra in pairs:
        expected = theirs(y_true, y_pred, **kw, **extra)
        if np.isnan(expected):  # fairlearn's 0/0 ratio when no group is selected
            assert ours(y_true, y_pred, **kw, **extra) == 1.0
        else:
            assert ours(y_true, y_pred, **kw, **extra) == pytest.approx(expected, abs=TOL)


def check_group_summary_and_deviation_equal_metricframe(seed, n, n_columns, weighted):
    y_true, y_pred, sensitive, weights = random_data(seed, n, n_columns, weighted)
    if len(y_true) == 0:
        return
    rates = {"selection_rate": flm.selection_rate, "true_positive_rate": flm.true_positive_rate,
             "false_positive_rate": flm.false_positive_rate,
             "false_negative_rate": flm.false_negative_rate,
             "true_negative_rate": flm.true_negative_rate, "accuracy": _accuracy,
             "base_rate": _base_rate, "count": flm.count}
    params = {name: {"sample_weight": weights} for name in rates if name != "count"}
    frame = flm.MetricFrame(metrics=rates, y_true=y_true, y_pred=y_pred,
                            sensitive_features=sensitive, sample_params=params)
    summary = group_summary(y_true, y_pred, sensitive_features=sensitive, sample_weight=weights)
    expected = frame.by_group
    assert list(summary.index.names) == list(expected.index.names)
    # fairlearn lists every combination of values; the ones never observed are all NaN
    assert set(summary.index) <= set(expected.index)
    assert expected.drop(index=summary.index)["count"].isna().all()
    expected = expected.loc[summary.index]
    for name in rates:
        np.testing.assert_allclose(summary[name].to_numpy(dtype=float),
                                   expected[name].to_numpy(dtype=float), rtol=0, atol=TOL)
    assert (summary["count_positive"] + summary["count_negative"] == summary["count"]).all()

    by_rate = expected[["true_positive_rate", "false_positive_rate"]]
    overall = frame.overall[["true_positive_rate", "false_positive_rate"]]
    deo = (by_rate - overall).abs().to_numpy().sum()
    assert equalized_odds_deviation(y_true, y_pred, sensitive_features=sensitive,
                                    sample_weight=weights) == pytest.approx(deo, abs=TOL)

    by_group = selection_rate(y_true, y_pred, sensitive_features=sensitive, sample_weight=weights)
    np.testing.assert_allclose(by_group.to_numpy(),
                               frame.by_group["selection_rate"].loc[by_group.index].to_numpy(),
                               rtol=0, atol=TOL)
    assert selection_rate(y_true, y_pred, sample_weight=weights) == pytest.approx(
        flm.selection_rate(y_true, y_pred, sample_weight=weights), abs=TOL)


def hypothesis_tests(check):
    """A quick test run by default (fairlearn's MetricFrame is slow) and a thorough slow one."""
    quick = settings(max_examples=8, deadline=None)(given(**data_args)(check))
    thorough = settings(max_examples=150, deadline=None)(given(**data_args)(check))
    return quick, pytest.mark.slow(thorough)


test_differences_equal_fairlearn, test_differences_equal_fairlearn_many = \
    hypothesis_tests(check_differences_equal_fairlearn)
test_group_summary_equal_metricframe, test_group_summary_equal_metricframe_many = \
    hypothesis_tests(check_group_summary_and_deviation_equal_metricframe)


def _accuracy(y_true, y_pred, sample_weight=None):
    from sklearn.metrics import accuracy_score

    return accuracy_score(y_true, y_pred, sample_weight=sample_weight)


def _base_rate(y_true, y_pred, sample_weight=None):
    return flm.selection_rate(y_pred, y_true, sample_weight=sample_weight)


# known answers ------------------------------------------------------------------------------

A = ["a", "a", "a", "a", "b", "b", "b", "b"]
Y_TRUE = [1, 1, 0, 0, 1, 1, 0, 0]
Y_PRED = [1, 1, 1, 0, 1, 0, 0, 0]


def test_known_answers_by_hand():
    # group a: TPR 2/2, FPR 1/2, selection 3/4; group b: TPR 1/2, FPR 0/2, selection 1/4
    kw = {"sensitive_features": A}
    assert demographic_parity_difference(Y_TRUE, Y_PRED, **kw) == 0.5
    assert demographic_parity_ratio(Y_TRUE, Y_PRED, **kw) == pytest.approx(1 / 3)
    assert true_positive_rate_difference(Y_TRUE, Y_PRED, **kw) == 0.5
    assert false_positive_rate_difference(Y_TRUE, Y_PRED, **kw) == 0.5
    assert equalized_odds_difference(Y_TRUE, Y_PRED, **kw) == 0.5
    # overall TPR 3/4, FPR 1/4: |1 - 3/4| + |1/2 - 3/4| + |1/2 - 1/4| + |0 - 1/4|
    assert equalized_odds_deviation(Y_TRUE, Y_PRED, **kw) == pytest.approx(1.0)


def test_known_answer_with_weights():
    # weight 3 on the one false positive of group a: FPR_a = 3 / (3 + 1)
    w = [1, 1, 3, 1, 1, 1, 1, 1]
    assert false_positive_rate_difference(Y_TRUE, Y_PRED, sensitive_features=A,
                                          sample_weight=w) == 0.75
    assert demographic_parity_difference(Y_TRUE, Y_PRED, sensitive_features=A,
                                         sample_weight=w) == pytest.approx(5 / 6 - 1 / 4)


def test_intersectional_groups():
    sex = ["f", "f", "m", "m", "f", "f", "m", "m"]
    summary = group_summary(Y_TRUE, Y_PRED, sensitive_features=pd.DataFrame({"A": A, "sex": sex}))
    assert list(summary.index) == [("a", "f"), ("a", "m"), ("b", "f"), ("b", "m")]
    assert list(summary.index.names) == ["A", "sex"]
    assert summary["selection_rate"].tolist() == [1.0, 0.5, 0.5, 0.0]
    assert demographic_parity_difference(Y_TRUE, Y_PRED,
                                         sensitive_features=np.c_[A, sex]) == 1.0


def test_equalized_odds_agg():
    y_pred = [1, 1, 1, 1, 1, 0, 0, 0]  # TPR gap 1/2, FPR gap 1
    assert equalized_odds_difference(Y_TRUE, y_pred, sensitive_features=A) == 1.0
    assert equalized_odds_difference(Y_TRUE, y_pred, sensitive_features=A, agg="mean") == 0.75
    with pytest.raises(ValueError, match="agg"):
        equalized_odds_difference(Y_TRUE, y_pred, sensitive_features=A, agg="max")


def test_parity_gives_zero_and_one():
    y_pred = [1, 0, 1, 0, 1, 0, 1, 0]
    y_true = [1, 0, 1, 0, 1, 0, 1, 0]
    assert demographic_parity_difference(y_true, y_pred, sensitive_features=A) == 0.0
    assert demographic_parity_ratio(y_true, y_pred, sensitive_features=A) == 1.0
    assert equalized_odds_deviation(y_true, y_pred, sensitive_features=A) == 0.0
    # nobody selected: the rates are equal, the ratio is 1 (fairlearn: NaN)
    assert demographic_parity_ratio(y_true, np.zeros(8), sensitive_features=A) == 1.0


# undefined rates ----------------------------------------------------------------------------

Y_TRUE_NO_POS_B = [1, 1, 0, 0, 0, 0, 0, 0]  # group b has no positives
Y_PRED_NO_POS_B = [1, 0, 1, 0, 1, 0, 0, 0]


def test_undefined_rate_is_nan_in_summary():
    summary = group_summary(Y_TRUE_NO_POS_B, Y_PRED_NO_POS_B, sensitive_features=A)
    assert np.isnan(summary.loc["b", "true_positive_rate"])
    assert np.isnan(summary.loc["b", "false_negative_rate"])
    assert summary.loc["b", "count_positive"] == 0
    assert summary.loc["b", "false_positive_rate"] == 0.25


def test_undefined_rate_warns_and_is_left_out():
    kw = {"sensitive_features": ["a", "a", "a", "a", "b", "b", "b", "b", "c", "c"]}
    y_true = [*Y_TRUE_NO_POS_B, 1, 0]
    y_pred = [*Y_PRED_NO_POS_B, 1, 0]
    with pytest.warns(UndefinedMetricWarning, match=r"true positive rate.*'b'"):
        ours = true_positive_rate_difference(y_true, y_pred, **kw)
    assert ours == 0.5  # TPR a = 1/2, TPR c = 1; b has no positives
    # fairlearn counts the undefined TPR of b as 0 and reports a gap of 1
    assert flm.true_positive_rate_difference(y_true, y_pred, **kw) == 1.0
    with pytest.warns(UndefinedMetricWarning):
        assert equalized_odds_difference(y_true, y_pred, **kw) == 0.5
    with pytest.warns(UndefinedMetricWarning):
        # TPR: |1/2 - 2/3| + |1 - 2/3|; FPR overall 2/7: |1/2-2/7| + |1/4-2/7| + |0-2/7|
        assert equalized_odds_deviation(y_true, y_pred, **kw) == pytest.approx(
            1 / 6 + 1 / 3 + 3 / 14 + 1 / 28 + 2 / 7)


@pytest.mark.parametrize("metric", [true_positive_rate_difference, equalized_odds_difference,
                                    equalized_odds_deviation])
def test_undefined_rate_warning_points_at_the_caller(metric):
    sensitive = ["a", "a", "a", "a", "b", "b", "b", "b", "c", "c"]
    with pytest.warns(UndefinedMetricWarning) as record:
        metric([*Y_TRUE_NO_POS_B, 1, 0], [*Y_PRED_NO_POS_B, 1, 0], sensitive_features=sensitive)
    assert {warning.filename for warning in record} == {__file__}


def test_defined_rates_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        equalized_odds_difference(Y_TRUE, Y_PRED, sensitive_features=A)


def test_rate_undefined_everywhere_is_nan():
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(true_positive_rate_difference(np.zeros(8), Y_PRED, sensitive_features=A))
    # no positives at all: equalized odds falls back on the false positive rates (gap 3/4 - 1/4)
    for agg in ("worst_case", "mean"):
        with pytest.warns(UndefinedMetricWarning):
            assert equalized_odds_difference(np.zeros(8), Y_PRED, sensitive_features=A,
                                             agg=agg) == 0.5


def test_zero_weight_group_is_undefined():
    w = [1, 1, 1, 1, 0, 0, 0, 0]
    with pytest.warns(UndefinedMetricWarning, match="selection rate"):
        assert demographic_parity_difference(Y_TRUE, Y_PRED, sensitive_features=A,
                                             sample_weight=w) == 0.0


# labels and validation ----------------------------------------------------------------------

@pytest.mark.parametrize("metric", [true_positive_rate_difference, false_positive_rate_difference,
                                    equalized_odds_difference, equalized_odds_deviation])
def test_label_encodings_agree(metric):
    expected = metric(Y_TRUE, Y_PRED, sensitive_features=A)
    as_bool = metric(np.array(Y_TRUE, bool), np.array(Y_PRED, bool), sensitive_features=A)
    as_sign = metric(2 * np.array(Y_TRUE) - 1, 2 * np.array(Y_PRED) - 1, sensitive_features=A)
    names = np.array(["no", "yes"])
    as_names = metric(names[Y_TRUE], names[Y_PRED], sensitive_features=A, pos_label="yes")
    flipped = metric(names[Y_TRUE], names[Y_PRED], sensitive_features=A, pos_label="no")
    assert expected == as_bool == as_sign == as_names
    assert flipped == metric(1 - np.array(Y_TRUE), 1 - np.array(Y_PRED), sensitive_features=A)


def test_pos_label_equals_fairlearn():
    names = np.array(["no", "yes"])
    for label in ["no", "yes"]:
        for ours, theirs in [(true_positive_rate_difference, flm.true_positive_rate_difference),
                             (false_positive_rate_difference, flm.false_positive_rate_difference)]:
            assert ours(names[Y_TRUE], names[Y_PRED], sensitive_features=A, pos_label=label) == \
                theirs(names[Y_TRUE], names[Y_PRED], sensitive_features=A, pos_label=label)


def test_selection_rate_pos_label():
    assert selection_rate(None, ["y", "n", "y", "y"], pos_label="y") == 0.75
    assert selection_rate(None, [True, False]) == 0.5


def test_bad_labels_raise():
    with pytest.raises(ValueError, match="binary"):
        true_positive_rate_difference([0, 1, 2], [0, 1, 1], sensitive_features=[0, 0, 1])
    with pytest.raises(ValueError, match="pos_label"):
        true_positive_rate_difference(["n", "y"], ["n", "y"], sensitive_features=[0, 1])
    with pytest.raises(ValueError, match="pos_label"):
        true_positive_rate_difference([0, 1], [0, 1], sensitive_features=[0, 1], pos_label=2)


@pytest.mark.parametrize("metric", [demographic_parity_difference, equalized_odds_deviation,
                                    group_summary])
def test_length_mismatch_names_y_true_not_x(metric):
    with pytest.raises(ValueError, match="2 rows but y_true has 3 samples"):
        metric([0, 1, 1], [0, 1, 1], sensitive_features=[0, 1])


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="y_true has 2 and y_pred has 3 samples"):
        demographic_parity_difference([0, 1], [0, 1, 1], sensitive_features=[0, 1, 1])
    with pytest.raises(ValueError, match="sensitive_features has 2 rows"):
        demographic_parity_difference([0, 1, 1], [0, 1, 1], sensitive_features=[0, 1])
    with pytest.raises(ValueError, match="missing values"):
        demographic_parity_difference([0, 1], [0, 1], sensitive_features=[0, None])
    with pytest.raises(ValueError, match="required"):
        demographic_parity_difference([0, 1], [0, 1], sensitive_features=None)
    with pytest.raises(ValueError, match="(?i)negative"):
        demographic_parity_difference([0, 1], [0, 1], sensitive_features=[0, 1],
                                      sample_weight=[1, -1])
