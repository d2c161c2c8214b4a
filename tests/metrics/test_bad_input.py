"""Bad input to the metrics (issue 14): every silent wrong answer now raises or warns.

Each case once returned a number that looked valid ("perfectly fair", or a gap measured on
mismatched rows), or an error that did not name the argument. Where fairlearn shares the
defect, the right answer is counted by hand.
"""

import warnings

import fairlearn.metrics as flm
import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.cluster import KMeans
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.linear_model import LogisticRegression

from fairkit.datasets import make_fair_classification, make_preference_profiles
from fairkit.exceptions import FairkitWarning
from fairkit.metrics import (
    balance,
    demographic_parity_difference,
    demographic_parity_ratio,
    equalized_odds_deviation,
    equalized_odds_difference,
    equalized_odds_test,
    fairness_floor,
    false_positive_rate_difference,
    group_summary,
    kernel_partial_correlation,
    make_fairness_scorer,
    normalized_cut,
    ranking_stability,
    ratio_cut,
    selection_rate,
    true_positive_rate_difference,
)
from fairkit.ranking import SelectiveRanker
from fairkit.registry import all_metrics, reload_plugins

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


def test_warnings_of_the_metrics_point_at_the_caller():
    # Before: the continuous column at fairkit's metrics/_confusion.py, fairness_floor's undefined
    # rate one frame above its caller.
    age = pd.Series(RNG.uniform(18, 90, 400), name="age")
    with pytest.warns(FairkitWarning, match="looks continuous") as continuous:
        demographic_parity_difference(Y_TRUE, Y_PRED, sensitive_features=age)
    with pytest.warns(UndefinedMetricWarning, match="no positive samples") as undefined:
        fairness_floor("true_positive_rate_difference", [1, 1, 0, 0], [1, 0, 1, 0],
                       sensitive_features=["a", "a", "b", "b"], n_draws=10, random_state=0)
    assert {w.filename for w in [*continuous, *undefined]} == {__file__}


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


# --- cluster labels that are not labels (review of issue 14, #58, #61) ----------------------

CLUSTER_GROUPS = ["a", "a", "b", "b", "a", "b", "b"]


def test_balance_refuses_nan_labels():
    # Before: 0.0, the NaN sample being a "cluster" of one group (hand count: clusters 0 and 1
    # hold both groups, balance 0.5 without the NaN sample).
    with pytest.raises(ValueError, match=r"labels holds missing values \(NaN or None\) in 1 rows"):
        balance([0, 0, 0, 0, 1, 1, np.nan], CLUSTER_GROUPS)


def test_balance_refuses_soft_assignments():
    # Before: 0.0, every fraction a singleton cluster.
    with pytest.raises(ValueError, match="labels holds non-integer values such as .*0.1.*take each "
                                         "sample's most likely cluster"):
        balance([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7], CLUSTER_GROUPS)


def test_balance_takes_integer_valued_floats_as_labels():
    # hand count: cluster 0 holds a a b b (1), cluster 1 holds a b b (1/2)
    assert balance([0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0], CLUSTER_GROUPS) == 0.5


@pytest.mark.parametrize("metric", [ratio_cut, normalized_cut])
def test_cuts_refuse_nan_labels(metric):
    W = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    with pytest.raises(ValueError, match="labels holds missing values"):
        metric(W, [0, 1, np.nan])


# --- shapes, lengths and y_true=None (review of issue 14, #19, #56, #30, #370) --------------

SF = ["a"] * 4 + ["b"] * 4
YT = [0, 1, 0, 1, 0, 1, 0, 1]
YP = [1, 1, 1, 0, 0, 0, 0, 1]


@pytest.mark.parametrize("metric", ALL_METRICS)
def test_a_predict_proba_matrix_is_named_y_pred_with_the_fix(metric):
    proba = np.c_[1 - np.array(YP), YP].astype(float)
    # Before: "y should be a 1d array" (scikit-learn's name, not the argument's).
    with pytest.raises(ValueError, match=r"y_pred must be 1-D, one value per sample; got an array of "
                                         r"shape \(8, 2\)\. Probabilities for two classes "
                                         r"\(predict_proba\)\? Take column 1 and threshold it"):
        metric(YT, proba, sensitive_features=SF)


@pytest.mark.parametrize("metric", ALL_METRICS)
def test_a_dict_y_pred_is_named(metric):
    with pytest.raises(ValueError, match="y_pred must be 1-D, one value per sample; got a single dict"):
        metric(YT, dict(enumerate(YP)), sensitive_features=SF)


@pytest.mark.parametrize("metric", ALL_METRICS)
def test_a_length_mismatch_names_both_arrays_and_their_lengths(metric):
    # Before: scikit-learn's "inconsistent numbers of samples: [8, 7]".
    with pytest.raises(ValueError, match="y_true has 8 and y_pred has 7 samples"):
        metric(YT, YP[:7], sensitive_features=SF)


@pytest.mark.parametrize("ours, theirs", [
    (demographic_parity_difference, flm.demographic_parity_difference),
    (demographic_parity_ratio, flm.demographic_parity_ratio),
])
def test_metrics_that_ignore_y_true_accept_none(ours, theirs):
    # Their docstrings say y_true is ignored, and selection_rate accepted None; they refused it.
    assert ours(None, YP, sensitive_features=SF) == pytest.approx(
        theirs(YT, YP, sensitive_features=SF), abs=1e-12)


@pytest.mark.parametrize("metric", ERROR_METRICS)
def test_metrics_that_use_y_true_require_it(metric):
    with pytest.raises(ValueError, match=r"y_true is required \(got None\)"):
        metric(None, YP, sensitive_features=SF)


# --- independence metrics (review of issue 14, #75, #80, #84) ------------------------------

def test_kpc_names_string_predictions():
    rng = np.random.default_rng(0)
    y, a = rng.integers(0, 2, 50), rng.integers(0, 2, 50)
    # Before: numpy's "could not convert string to float: 'hi'".
    with pytest.raises(ValueError, match="y_pred holds values that are not numbers .*encode class labels "
                                         "as numbers"):
        kernel_partial_correlation(np.full(50, "hi"), a, y)
    with pytest.raises(ValueError, match="y_pred has 49 and y_true has 50 samples"):
        kernel_partial_correlation(y[:49] + 0.5, a, y)


def test_equalized_odds_test_with_one_class_fits_no_failing_search():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 300)
    y_pred = 1 + 3 * a + rng.normal(size=300)  # A drives the predictions given Y (one class)
    # Before: the density's held-out grid search printed scikit-learn "Scoring failed"
    # tracebacks (the log-loss of a single class is undefined).
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = equalized_odds_test(y_pred, np.ones(300, dtype=int), sensitive_features=a,
                                     n_permutations=5, random_state=0)
    assert result.pvalue == 1 / 6  # no copy of A reaches the observed dependence: the smallest p


# --- scorers from metrics that give no score (review of issue 14, #105-#112, #391) ----------

@pytest.mark.parametrize("name, why", [
    ("kernel_partial_correlation", r"its first parameters are \(y_pred, sensitive_features\)"),
    ("equalized_odds_test", r"its first parameters are \(y_pred, y_true\)"),
    ("calibration_audit", r"its first parameters are \(y_true, y_proba\)"),
    ("selection_rate", "it gives one value per group"),
    ("group_summary", "it gives one value per group"),
])
def test_make_fairness_scorer_refuses_metrics_that_give_no_score(name, why):
    # Before: accepted; every fold NaN (kernel_partial_correlation, calibration_audit) or
    # scikit-learn's "scoring must return a number, got ()" 9 frames deep.
    if name not in all_metrics():
        pytest.skip(f"{name} is not registered (plugin not installed)")
    with pytest.raises(ValueError, match=f"The metric '{name}' cannot be a scorer: {why}.*a scorer can "
                                         "use: demographic_parity_difference, demographic_parity_ratio"):
        make_fairness_scorer(name)


def test_every_registered_metric_a_scorer_accepts_gives_a_number():
    X, y, group = make_fair_classification(200, 4, random_state=0)
    model = LogisticRegression().fit(X, y)
    accepted = []
    with sklearn.config_context(enable_metadata_routing=True):
        for name in all_metrics():
            try:
                scorer = make_fairness_scorer(name)
            except ValueError:
                continue
            accepted.append(name)
            assert np.isfinite(scorer(model, X, y, sensitive_features=group)), name
    assert accepted == ["demographic_parity_difference", "demographic_parity_ratio",
                        "equalized_odds_deviation", "equalized_odds_difference",
                        "false_positive_rate_difference", "true_positive_rate_difference"]


def test_a_scorer_names_a_metric_that_returns_no_number():
    X, y, group = make_fair_classification(200, 4, random_state=0)
    model = LogisticRegression().fit(X, y)

    def rates(y_true, y_pred, *, sensitive_features):
        return selection_rate(y_true, y_pred, sensitive_features=sensitive_features)

    with sklearn.config_context(enable_metadata_routing=True), pytest.raises(
            TypeError, match="The fairness metric 'rates' returned a Series, not a real number"):
        make_fairness_scorer(rates)(model, X, y, sensitive_features=group)
    with pytest.raises(ValueError, match="ci= makes the metric return an Estimate"):
        make_fairness_scorer("demographic_parity_difference", ci=0.95)


def test_an_unknown_metric_says_the_built_in_plugin_is_disabled(monkeypatch):
    monkeypatch.setenv("FAIRKIT_DISABLE_PLUGINS", "fairkit")
    reload_plugins()
    try:
        # Before: only "Unknown fairness metric", for fairkit's own best-known metric.
        with pytest.raises(ValueError, match=r"Unknown fairness metric 'demographic_parity_difference'.*"
                                             r"FAIRKIT_DISABLE_PLUGINS disables the plugin\(s\) "
                                             r"\['fairkit'\] \(fairkit's built-in plugin"):
            make_fairness_scorer("demographic_parity_difference")
        make_fairness_scorer(demographic_parity_difference)  # the function itself still works
    finally:
        monkeypatch.delenv("FAIRKIT_DISABLE_PLUGINS")
        reload_plugins()


# --- ranking metrics (review of issue 14, #98, #99, #100) ---------------------------------

class _CountingRanker(SelectiveRanker):
    fits = 0

    def fit(self, X, y=None):
        type(self).fits += 1
        return super().fit(X, y)


@pytest.mark.parametrize("n_resamples, error, match", [
    (2.5, TypeError, "n_resamples must be an instance of int, not float"),
    ("10", TypeError, "n_resamples must be an instance of int, not str"),
    (0, ValueError, "n_resamples == 0, must be >= 1"),
])
def test_ranking_stability_checks_n_resamples_before_any_fit(n_resamples, error, match):
    X, _ = make_preference_profiles(40, 5, random_state=0)
    _CountingRanker.fits = 0
    # Before: "'float' object cannot be interpreted as an integer" after the full fit.
    with pytest.raises(error, match=match):
        ranking_stability(_CountingRanker(), X, n_resamples=n_resamples)
    assert _CountingRanker.fits == 0


@pytest.mark.parametrize("estimator, match", [
    (LogisticRegression(), r"needs a ranker, such as fairkit.ranking.SelectiveRanker, whose fit takes "
                           r"the judges' preferences X alone; LogisticRegression.fit needs y"),
    (KMeans(2, n_init=1, random_state=0), "KMeans has no counts_ or tier_of_item_ once fitted"),
])
def test_ranking_stability_refuses_an_estimator_that_is_no_ranker(estimator, match):
    X, _ = make_preference_profiles(40, 5, random_state=0)
    # Before: "LogisticRegression.fit() missing 1 required positional argument: 'y'", and an
    # AttributeError for KMeans.
    with pytest.raises(TypeError, match=match):
        ranking_stability(estimator, X, n_resamples=2)
