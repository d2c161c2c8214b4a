"""compare_groupings: per-fold scores and KL against a loop written out, pairing, seeds, jobs, errors."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from fairkit.exceptions import FairkitWarning
from fairkit_subgroups import GroupBalancedClassifier, GroupDROClassifier, compare_groupings
from fairkit_subgroups._compare import _kl_method
from fairkit_subgroups._kl import subgroup_kl_diagnostic


def spurious_problem(n=600, agreement=0.9, seed=0):
    """A label that follows a binary attribute ``agreement`` of the time; both are (noisily) in X."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    y = np.where(rng.random(n) < agreement, a, 1 - a)
    X = np.column_stack([a + rng.normal(0, 0.3, n), y + rng.normal(0, 1.0, n)])
    return X, y, a


@pytest.fixture(scope="module")
def problem():
    X, y, a = spurious_problem()
    groupings = {"ERM": np.zeros(len(y)), "Y": y, "AY": np.column_stack([a, y])}
    return X, y, a, groupings


def test_scores_and_kl_of_each_fold_match_a_loop_written_out(problem):
    X, y, a, groupings = problem
    estimator = GroupBalancedClassifier(LogisticRegression())
    result = compare_groupings(estimator, X, y, groupings, eval_groups=a, cv=4)
    frame = pd.DataFrame({"y": y, "a": a})
    for fold, (train, test) in enumerate(StratifiedKFold(4).split(X, y)):
        cells = frame.iloc[train].groupby(["y", "a"]).size().rename("count").reset_index()
        cell = frame.iloc[train].groupby(["y", "a"]).ngroup().to_numpy()
        for name, labels in groupings.items():
            labels = pd.DataFrame(labels).astype(str).agg("-".join, axis=1).to_numpy()
            model = GroupBalancedClassifier(LogisticRegression()).fit(X[train], y[train],
                                                                       sensitive_features=labels[train])
            correct = pd.Series(model.predict(X[test]) == y[test])
            by_group = correct.groupby(a[test]).mean()
            row = result.folds.loc[(name, fold)]
            assert row["accuracy"] == pytest.approx(correct.mean())
            assert row["worst_group_accuracy"] == pytest.approx(by_group.min())
            assert row["accuracy_gap"] == pytest.approx(by_group.max() - by_group.min())
            assert row["worst_group"] == by_group.idxmin()
            membership = (pd.Series(labels[train]).groupby(cell).value_counts(normalize=True)
                          .unstack(fill_value=0))
            expected_kl = subgroup_kl_diagnostic(cells, {name: membership})["kl"].iloc[0]
            assert row["kl"] == pytest.approx(expected_kl, abs=1e-12)
    # one group is ERM; A x Y balanced is the uniform target over the cells y x a
    assert result.summary.loc["AY", "kl"] == pytest.approx(0, abs=1e-12)
    assert result.summary.loc["ERM", "n_groups"] == 1


def test_summary_intervals_and_paired_differences_follow_the_folds(problem):
    X, y, a, groupings = problem
    result = compare_groupings(GroupBalancedClassifier(LogisticRegression()), X, y, groupings, eval_groups=a,
                               cv=5, ci=0.9)
    assert result.test_fraction == pytest.approx(0.25)
    scores = result.folds.loc["AY", "worst_group_accuracy"].to_numpy()
    half = stats.t.ppf(0.95, 4) * np.sqrt((1 / 5 + 0.25) * scores.var(ddof=1))
    summary = result.summary.loc["AY"]
    assert summary["worst_group_accuracy"] == pytest.approx(scores.mean())
    assert summary["worst_group_accuracy_low"] == pytest.approx(max(scores.mean() - half, 0))
    assert summary["worst_group_accuracy_high"] == pytest.approx(min(scores.mean() + half, 1))
    paired = result.paired("ERM", score="accuracy")
    difference = (result.folds.loc["AY", "accuracy"] - result.folds.loc["ERM", "accuracy"]).to_numpy()
    assert paired.loc["AY", "difference"] == pytest.approx(difference.mean())
    # balancing A x Y in a population where A predicts Y 90% of the time costs accuracy on that population
    assert paired.loc["AY", "verdict"] == "lower"
    assert list(paired.index) == ["Y", "AY"]
    with pytest.raises(ValueError, match="reference must be one of the groupings"):
        result.paired("S")
    with pytest.raises(ValueError, match="score must be one of"):
        result.paired("ERM", score="auc")


def test_spearman_is_the_rank_correlation_of_minus_kl_and_worst_group_accuracy(problem):
    X, y, a, groupings = problem
    result = compare_groupings(GroupBalancedClassifier(LogisticRegression()), X, y,
                               {**groupings, "A": a}, eval_groups=a, cv=3)
    expected = stats.spearmanr(-result.summary["kl"], result.summary["worst_group_accuracy"])
    assert result.spearman == pytest.approx(expected.statistic)
    assert result.spearman_pvalue == pytest.approx(expected.pvalue)
    two = compare_groupings(GroupBalancedClassifier(LogisticRegression()), X, y,
                            {"ERM": groupings["ERM"], "Y": y}, eval_groups=a, cv=3)
    assert np.isnan(two.spearman)


class SeedRecorder(ClassifierMixin, BaseEstimator):
    """Predicts the majority class; records the seeds it was fitted with."""

    seen = []

    def __init__(self, random_state=None):
        self.random_state = random_state

    def fit(self, X, y, sensitive_features=None):
        SeedRecorder.seen.append(self.random_state)
        self.classes_, counts = np.unique(y, return_counts=True)
        self.majority_ = self.classes_[np.argmax(counts)]
        return self

    def predict(self, X):
        return np.full(len(X), self.majority_)


def test_random_state_seeds_each_fold_once_for_every_grouping_nested_parameters_too(problem):
    X, y, a, groupings = problem
    SeedRecorder.seen.clear()
    compare_groupings(SeedRecorder(), X, y, groupings, eval_groups=a, cv=3, random_state=0)
    seeds = np.array(SeedRecorder.seen).reshape(len(groupings), 3)  # grouping-major order, one job
    assert (seeds == seeds[0]).all() and len(set(seeds[0])) == 3
    SeedRecorder.seen.clear()
    compare_groupings(GroupBalancedClassifier(SeedRecorder(random_state=7), mode="resample"), X, y, groupings,
                      eval_groups=a, cv=3, random_state=0)
    assert np.array_equal(np.array(SeedRecorder.seen).reshape(len(groupings), 3), seeds)
    SeedRecorder.seen.clear()
    compare_groupings(SeedRecorder(random_state=7), X, y, groupings, eval_groups=a, cv=3)
    assert SeedRecorder.seen == [7] * 9  # without random_state, the estimator's own is kept


def test_parallel_jobs_give_the_sequential_result(problem):
    X, y, a, groupings = problem
    estimator = GroupBalancedClassifier(LogisticRegression(), mode="resample")
    one = compare_groupings(estimator, X, y, groupings, eval_groups=a, cv=3, random_state=1)
    two = compare_groupings(estimator, X, y, groupings, eval_groups=a, cv=3, random_state=1, n_jobs=2)
    pd.testing.assert_frame_equal(one.folds.drop(columns="fit_time"), two.folds.drop(columns="fit_time"))


def test_custom_splits_train_on_one_distribution_and_test_on_another():
    # the paper's set-up: A agrees with Y 95% of the time in training, half of the time at test
    X_train, y_train, a_train = spurious_problem(800, 0.95, seed=1)
    X_test, y_test, a_test = spurious_problem(800, 0.5, seed=2)
    X, y, a = np.vstack([X_train, X_test]), np.r_[y_train, y_test], np.r_[a_train, a_test]
    splits = [(np.arange(800), np.arange(800, 1600))]
    groupings = {"ERM": np.zeros(1600), "AY": np.column_stack([a, y])}
    result = compare_groupings(GroupBalancedClassifier(LogisticRegression()), X, y, groupings,
                               eval_groups=np.column_stack([a, y]), cv=splits)
    worst = result.summary["worst_group_accuracy"]
    assert worst["AY"] > worst["ERM"] + 0.1  # balancing A x Y removes the shortcut ERM takes
    assert np.isnan(result.summary.loc["AY", "worst_group_accuracy_low"])  # one split: no interval


def test_kl_method_auto_follows_the_estimator():
    gdro = GroupDROClassifier()
    assert _kl_method(gdro, "auto") == "gdro"
    assert _kl_method(make_pipeline(StandardScaler(), gdro), "auto") == "gdro"
    assert _kl_method(GroupBalancedClassifier(LogisticRegression()), "auto") == "resampling"
    assert _kl_method(gdro, "resampling") == "resampling"


def test_gdro_kl_method_gives_the_target_mass_of_each_group(problem):
    X, y, a, _ = problem
    result = compare_groupings(SeedRecorder(), X, y, {"Y": y}, eval_groups=a, cv=2, kl_method="gdro")
    resampling = compare_groupings(SeedRecorder(), X, y, {"Y": y}, eval_groups=a, cv=2)
    assert (result.folds["kl"] <= resampling.folds["kl"] + 1e-12).all()


def test_an_eval_group_missing_from_a_test_fold_warns(problem):
    X, y, a, groupings = problem
    rare = a.copy()
    rare[np.flatnonzero(y == 0)[:2]] = 2  # two samples, both of class 0: one fold of three lacks them
    with pytest.warns(FairkitWarning, match=r"eval group\(s\) \[2\] have no sample in the test part"):
        compare_groupings(SeedRecorder(), X, y, {"Y": y}, eval_groups=rare, cv=3)


def test_plot_shows_one_point_per_grouping(problem):
    plt = pytest.importorskip("matplotlib.pyplot")
    X, y, a, groupings = problem
    result = compare_groupings(GroupBalancedClassifier(LogisticRegression()), X, y, {**groupings, "A": a},
                               eval_groups=a, cv=3)
    ax = result.plot()
    assert len(ax.texts) == 4 and "Spearman" in ax.get_title()
    plt.close(ax.figure)


class NoGroups(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        return self


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"estimator": LogisticRegression()}, TypeError, "fit takes no sensitive_features"),
    ({"estimator": NoGroups()}, TypeError, "wrap it in GroupBalancedClassifier"),
    ({"estimator": StandardScaler()}, TypeError, "must be a scikit-learn classifier"),
    ({"groupings": {}}, ValueError, "groupings must be a non-empty mapping"),
    ({"groupings": {"Y": np.zeros(5)}}, ValueError, r"groupings\['Y'\]: has 5 rows but y has 600"),
    ({"groupings": {"Y": np.r_[np.nan, np.zeros(599)]}}, ValueError, r"groupings\['Y'\]: holds missing"),
    ({"eval_groups": np.zeros(3)}, ValueError, "sensitive_features has 3 rows but y has 600"),
    ({"kl_method": "kl"}, ValueError, "kl_method must be one of"),
    ({"ci": 1.0}, ValueError, "ci"),
    ({"y": pd.Series(np.zeros(600), index=np.arange(1, 601))}, ValueError, "different pandas indexes"),
])
def test_bad_input_is_refused_before_anything_is_fitted(problem, kwargs, error, match):
    X, y, a, groupings = problem
    SeedRecorder.seen.clear()
    arguments = {"estimator": SeedRecorder(), "X": pd.DataFrame(X), "y": y, "groupings": groupings,
                 "eval_groups": a} | kwargs
    with pytest.raises(error, match=match):
        compare_groupings(**arguments)
    assert SeedRecorder.seen == []
