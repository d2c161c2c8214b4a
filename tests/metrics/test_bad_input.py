"""Bad input to the metrics (issue 14): every silent wrong answer now raises or warns.

Each case once returned a number that looked valid ("perfectly fair", or a gap measured on
mismatched rows). Where fairlearn shares the defect, the right answer is counted by hand.
"""

import warnings

import fairlearn.metrics as flm
import numpy as np
import pandas as pd
import pytest

from fairkit.exceptions import FairkitWarning
from fairkit.metrics import (
    balance,
    demographic_parity_difference,
    demographic_parity_ratio,
    equalized_odds_deviation,
    equalized_odds_difference,
    false_positive_rate_difference,
    group_summary,
    normalized_cut,
    ratio_cut,
    selection_rate,
    true_positive_rate_difference,
)

SELECTION_METRICS = [demographic_parity_difference, demographic_parity_ratio, selection_rate]
ERROR_METRICS = [true_positive_rate_difference, false_positive_rate_difference,
                 equalized_odds_difference, equalized_odds_deviation, group_summary]
ALL_METRICS = SELECTION_METRICS + ERROR_METRICS

RNG = np.random.default_rng(0)
GROUP = np.repeat(["a", "b"], 200)
Y_TRUE = RNG.integers(0, 2, 400)
# group a is selected 3 times as often as group b
PROBA = np.clip(np.where(GROUP == "a", 0.6, 0.2) + RNG.uniform(-0.15, 0.15, 400), 0, 1)
Y_PRED = (RNG.uniform(size=400) < PROBA).astype(int)


def hand_dp(y_pred, group, positive=1):
    rates = [np.mean(y_pred[group == g] == positive) for g in np.unique(group)]
    return max(rates) - min(rates)


# --- probabilities where labels are needed -------------------------------------------------

@pytest.mark.parametrize("metric", ALL_METRICS)
def test_probabilities_are_refused(metric):
    # Before: 0.0 for the DP difference (no value equals 1), 1.0 for the ratio.
    with pytest.raises(ValueError, match="probabilities or scores.*Threshold them"):
        metric(Y_TRUE, PROBA, sensitive_features=GROUP)


def test_thresholded_probabilities_are_measured():
    y_pred = (PROBA >= 0.5).astype(int)
    assert demographic_parity_difference(Y_TRUE, y_pred, sensitive_features=GROUP) == pytest.approx(
        hand_dp(y_pred, GROUP), abs=1e-12)
    assert hand_dp(y_pred, GROUP) > 0.3


@pytest.mark.parametrize("metric", [demographic_parity_difference, selection_rate])
def test_float_labels_in_zero_one_are_labels(metric):
    as_float = metric(Y_TRUE, Y_PRED.astype(float), sensitive_features=GROUP)
    as_int = metric(Y_TRUE, Y_PRED, sensitive_features=GROUP)
    if isinstance(as_int, pd.Series):
        pd.testing.assert_series_equal(as_float, as_int)
    else:
        assert as_float == as_int


# --- pos_label that is not a label ----------------------------------------------------------

@pytest.mark.parametrize("metric", SELECTION_METRICS)
def test_string_labels_with_default_pos_label_are_refused(metric):
    names = np.array(["no", "yes"])[Y_PRED]
    # Before: 0.0 ("perfectly fair"): no string equals the default pos_label=1.
    with pytest.raises(ValueError, match="pos_label=1 is not among the labels of y_pred"):
        metric(Y_TRUE, names, sensitive_features=GROUP)


@pytest.mark.parametrize("ours, theirs", [
    (demographic_parity_difference, flm.demographic_parity_difference),
    (demographic_parity_ratio, flm.demographic_parity_ratio),
])
def test_string_labels_with_their_pos_label_equal_fairlearn(ours, theirs):
    # fairlearn's parity metrics take no pos_label: its answer on the 0/1 encoding is the oracle
    names = np.array(["no", "yes"])[Y_PRED]
    value = ours(Y_TRUE, names, sensitive_features=GROUP, pos_label="yes")
    assert value == pytest.approx(theirs(Y_TRUE, Y_PRED, sensitive_features=GROUP), abs=1e-12)


def test_selection_rate_labels_zero_two_default_pos_label_is_refused():
    # Before: 0.0, although half the predictions are the positive class "2".
    with pytest.raises(ValueError, match="pos_label=1 is not among the labels"):
        selection_rate(None, [0, 2, 2, 0])
    assert selection_rate(None, [0, 2, 2, 0], pos_label=2) == 0.5


def test_nobody_selected_is_a_valid_zero_one_outcome():
    zeros = np.zeros(400, dtype=int)
    assert demographic_parity_difference(Y_TRUE, zeros, sensitive_features=GROUP) == 0.0
    assert selection_rate(None, np.full(4, -1)) == 0.0


def test_pos_label_outside_the_labels_is_refused_even_when_one_label_is_seen():
    with pytest.raises(ValueError, match="pos_label='yes' is not among"):
        demographic_parity_difference(Y_TRUE, np.full(400, "no"), sensitive_features=GROUP,
                                      pos_label="yes")


@pytest.mark.parametrize("metric", ALL_METRICS)
def test_more_than_two_labels_are_refused(metric):
    with pytest.raises(ValueError, match="binary labels"):
        metric(Y_TRUE, Y_PRED * 2 - (Y_TRUE == 0), sensitive_features=GROUP)


@pytest.mark.parametrize("metric", ALL_METRICS)
def test_nan_in_y_pred_is_refused(metric):
    y_pred = Y_PRED.astype(float)
    y_pred[3] = np.nan
    with pytest.raises(ValueError, match="y_pred holds missing values .* in 1 rows"):
        metric(Y_TRUE, y_pred, sensitive_features=GROUP)


@pytest.mark.parametrize("metric", ERROR_METRICS)
def test_nan_in_y_true_is_refused(metric):
    y_true = Y_TRUE.astype(float)
    y_true[:2] = np.nan
    with pytest.raises(ValueError, match="y_true holds missing values .* in 2 rows"):
        metric(y_true, Y_PRED, sensitive_features=GROUP)


# --- pandas indexes that do not match -------------------------------------------------------

def _frames():
    index = pd.RangeIndex(1000, 1400)
    y_true = pd.Series(Y_TRUE, index=index, name="y")
    y_pred = pd.Series(Y_PRED, index=index, name="pred")
    group = pd.Series(GROUP, index=index, name="sex")
    return y_true, y_pred, group


@pytest.mark.parametrize("metric", ALL_METRICS)
def test_shuffled_sensitive_features_are_refused(metric):
    y_true, y_pred, group = _frames()
    shuffled = group.sample(frac=1.0, random_state=0)
    # Before: paired by position, the measured DP gap was that of a random grouping (about 0).
    with pytest.raises(ValueError, match="y_true and sensitive_features carry different pandas "
                                         "indexes \\(the same labels in another order\\)"):
        metric(y_true, y_pred, sensitive_features=shuffled)


def test_aligned_by_label_gives_the_hand_count():
    y_true, y_pred, group = _frames()
    shuffled = group.sample(frac=1.0, random_state=0)
    wrong_by_position = hand_dp(Y_PRED, shuffled.to_numpy())
    right = hand_dp(Y_PRED, GROUP)
    assert right - wrong_by_position > 0.2  # what pairing by position used to report
    assert demographic_parity_difference(y_true, y_pred, sensitive_features=shuffled.loc[y_true.index]
                                         ) == pytest.approx(right, abs=1e-12)


def test_other_labels_are_named():
    y_true, y_pred, group = _frames()
    with pytest.raises(ValueError, match="400 label\\(s\\) of y_true are not in sensitive_features, "
                                         "e.g. 1000"):
        demographic_parity_difference(y_true, y_pred, sensitive_features=group.reset_index(drop=True))


def test_y_true_and_y_pred_indexes_must_agree():
    y_true, y_pred, group = _frames()
    with pytest.raises(ValueError, match="y_true and y_pred carry different pandas indexes"):
        equalized_odds_difference(y_true, y_pred.sort_values(), sensitive_features=group)


def test_positions_when_one_side_is_plain():
    y_true, y_pred, group = _frames()
    value = demographic_parity_difference(y_true.to_numpy(), y_pred.to_numpy(), sensitive_features=group)
    assert value == pytest.approx(hand_dp(Y_PRED, GROUP), abs=1e-12)


def test_balance_refuses_misaligned_groups():
    labels = pd.Series([0, 0, 1, 1], index=[1, 2, 3, 4])
    with pytest.raises(ValueError, match="labels and groups carry different pandas indexes"):
        balance(labels, pd.Series(["a", "b", "a", "b"], index=[4, 3, 2, 1]))


# --- continuous sensitive features ----------------------------------------------------------

def test_continuous_sensitive_feature_warns():
    age = pd.Series(RNG.uniform(18, 90, 400), name="age")
    with pytest.warns(FairkitWarning, match="'age' \\(400 distinct values in 400 samples\\) looks "
                                            "continuous.*kernel_partial_correlation"):
        demographic_parity_difference(Y_TRUE, Y_PRED, sensitive_features=age)


def test_many_groups_in_a_column_warn_at_the_documented_threshold():
    codes = pd.DataFrame({"zip": np.arange(1000) % 51, "sex": np.arange(1000) % 2})
    with pytest.warns(FairkitWarning, match="'zip' \\(51 distinct values"):
        demographic_parity_difference(np.zeros(1000), np.arange(1000) % 2, sensitive_features=codes)
    fifty = codes.assign(zip=np.arange(1000) % 50)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FairkitWarning)
        demographic_parity_difference(np.zeros(1000), np.arange(1000) % 2, sensitive_features=fifty)


def test_infinite_sensitive_values_are_refused():
    with pytest.raises(ValueError, match="infinite values in column 'sensitive_feature_0' \\(1 rows\\)"):
        demographic_parity_difference([0, 1, 1], [0, 1, 1], sensitive_features=[0.0, 1.0, np.inf])


# --- cut metrics on affinities that are not a graph -----------------------------------------

@pytest.mark.parametrize("metric", [ratio_cut, normalized_cut])
@pytest.mark.parametrize("W, match", [
    (np.array([[0, -1, 1], [-1, 0, 1], [1, 1, 0]]), "Negative values in data passed to affinity"),
    (np.array([[0, 1, 0], [0, 0, 1], [1, 1, 0]]), "affinity must be symmetric"),
    (np.array([[0, 1], [1, 0], [1, 1]]), "square"),
    (np.array([[0, np.inf], [np.inf, 0]]), "infinity"),
])
def test_cuts_refuse_what_is_not_an_undirected_graph(metric, W, match):
    # Before: a negative weight lowered the cut, a one-sided one counted half an edge.
    with pytest.raises(ValueError, match=match):
        metric(W, [0, 0, 1][:W.shape[0]])
