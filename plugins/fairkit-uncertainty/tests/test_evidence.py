"""The issue's evidence at CI size: learned confidence, equal coverage, Mirage, routing.

``benchmarks/bench_selective_clf.py`` measures the same at full size over 5 splits, with
intervals; the slow tests here repeat its main claims over several splits. What
``test_selective.py`` already shows on toy problems (thresholds, carried-over coverage, one
pocket the learned confidence finds) is not repeated: here, several seeds of a planted problem,
real tables (Adult, COMPAS) with the sex × race groups as sensitive features (not features of
the models), the plugin's Mirage network, and routing against random routing with a bound
from the hypergeometric null.
"""

import math

import numpy as np
import pytest
from sklearn.compose import make_column_selector, make_column_transformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from threadpoolctl import threadpool_limits

from fairkit.datasets import fetch_adult, fetch_compas
from fairkit.metrics import resampled_interval
from fairkit_uncertainty._demo import NetworkClassifier, make_network, make_region_problem
from fairkit_uncertainty._mirage import mirage_finetune
from fairkit_uncertainty._report import selective_report
from fairkit_uncertainty._selective import SelectiveClassifier

COVERAGE = 0.8
SENSITIVE = ["sex", "race"]


@pytest.fixture(autouse=True)
def one_thread():
    """One OpenMP / BLAS thread: the models here are small, and on a busy machine spinning threads
    make gradient boosting many times slower."""
    with threadpool_limits(1):
        yield


# ----------------------------------------------------------------------------- data and models
def noisy_region_problem(n, seed):
    """Labels follow x0 > 0, flipped with probability 0.35 where x2 > 0.8 (a fifth of the rows) and
    0.05 elsewhere. A logistic regression on x0 is as sure in the noisy region as outside it, so its
    probabilities cannot see the region; a confidence learned from its errors can."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    region = X[:, 2] > 0.8
    y = (X[:, 0] > 0).astype(int)
    flip = rng.random(n) < np.where(region, 0.35, 0.05)
    y[flip] = 1 - y[flip]
    return X, y, region


def pocket_problem(n, seed):
    """Labels follow x0 > 0 except in a pocket (x1 > 1.2, about 12 % of the rows) where they are
    reversed: a logistic regression is wrong there, gradient boosting is not."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
    y[X[:, 1] > 1.2] = 1 - y[X[:, 1] > 1.2]
    return X, y


def table(name, data_home, seed, n_train=None):
    """A 75/25 split of Adult or COMPAS (stratified by label): X without sex and race, y, sex × race.

    COMPAS's 2 Asian and 11 Native American people are merged into its race "Other".
    """
    fetch = fetch_adult if name == "Adult" else fetch_compas
    bunch = fetch(data_home=data_home, as_frame=True)
    groups = bunch.data[SENSITIVE].astype(str)
    groups["race"] = groups["race"].replace({"Asian": "Other", "Native American": "Other"})
    X, y = bunch.data.drop(columns=SENSITIVE), bunch.target.to_numpy().astype(int)
    train, test = train_test_split(np.arange(len(y)), test_size=0.25, stratify=y, random_state=seed)
    train = train[:n_train]
    take = lambda rows: (X.iloc[rows].reset_index(drop=True), y[rows],  # noqa: E731
                         groups.iloc[rows].reset_index(drop=True))
    return take(train), take(test)


def logistic_pipeline():
    """One-hot encoding of the categorical columns, scaling of the others, logistic regression."""
    encode = make_column_transformer(
        (OneHotEncoder(handle_unknown="ignore"), make_column_selector(dtype_include="category")),
        remainder=StandardScaler())
    return make_pipeline(encode, LogisticRegression(max_iter=1000))


def group_codes(frame):
    """One code per sex × race group of a frame, and each group's label."""
    labels, codes = np.unique(frame.to_numpy(dtype=str), axis=0, return_inverse=True)
    return [tuple(label) for label in labels], codes.ravel()


def coverage_by_group(accepted, frame):
    """{group: (test coverage, test rows)}, by brute force over the groups."""
    labels, codes = group_codes(frame)
    return {label: (accepted[codes == g].mean(), int(np.sum(codes == g))) for g, label in enumerate(labels)}


def routing_z(base_right, fallback_right, routed):
    """How many standard deviations routing ``routed`` beats a random subset of the same size.

    Under random routing, the fallback's net gain sum over the k routed rows is a sample without
    replacement of the per-row gains d = fallback right - base right: its mean is k d̄ and its
    variance k (n - k) / (n - 1) var(d) (the hypergeometric null).
    """
    d = fallback_right.astype(float) - base_right
    n, k = d.size, int(routed.sum())
    excess = d[routed].sum() - k * d.mean()
    return excess / math.sqrt(k * (n - k) / (n - 1) * d.var())


# ----------------------------------------------------------------------------- learned confidence
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_learned_confidence_beats_max_probability_where_the_base_cannot_see_its_noise(seed):
    X, y, _ = noisy_region_problem(3000, seed)
    X_new, y_new, region_new = noisy_region_problem(5000, 100 + seed)
    accuracy = {}
    for kind in ("learned", "max_proba"):
        clf = SelectiveClassifier(confidence=kind, coverage=COVERAGE, random_state=seed).fit(X, y)
        accepted = clf.accepts(X_new)
        assert abs(accepted.mean() - COVERAGE) < 0.03
        accuracy[kind] = np.mean(clf.predict(X_new)[accepted] == y_new[accepted])
        if kind == "learned":  # the noisy region is where it abstains
            assert accepted[region_new].mean() < 0.5 < accepted[~region_new].mean()
    # ideal: rejecting the noisy fifth (35 % errors) instead of clean rows (5 %) gains about 0.06;
    # the standard error of the difference at 4,000 answered rows is about 0.007
    assert accuracy["learned"] - accuracy["max_proba"] > 0.015


@pytest.mark.slow
def test_learned_confidence_helps_logistic_regression_on_adult(data_home):
    # the benchmark: +1.2 points (1.0, 1.5) at 80 % coverage over 5 splits; here 3 splits
    differences = []
    for seed in range(3):
        (X, y, groups), (X_test, y_test, _) = table("Adult", data_home, seed)
        accuracy = {}
        for kind in ("learned", "max_proba"):
            clf = SelectiveClassifier(logistic_pipeline(), confidence=kind, coverage=COVERAGE,
                                      random_state=seed).fit(X, y, sensitive_features=groups)
            confidence, right = clf.predict_confidence(X_test), clf.estimator_.predict(X_test) == y_test
            top = np.argsort(-confidence, kind="stable")[:math.ceil(COVERAGE * len(y_test))]
            accuracy[kind] = right[top].mean()
        differences.append(accuracy["learned"] - accuracy["max_proba"])
    assert resampled_interval(differences, test_fraction=1 / 3).low > 0


# ----------------------------------------------------------------------------- equal coverage
def fit_both(X, y, groups, base):
    shared = SelectiveClassifier(base(), confidence="max_proba", coverage=COVERAGE)
    equal = SelectiveClassifier(base(), confidence="max_proba", coverage=COVERAGE, group_coverage="equal")
    return shared.fit(X, y, sensitive_features=groups), equal.fit(X, y, sensitive_features=groups)


def assert_equal_coverage_within_noise(equal, X, groups, X_test, groups_test):
    """Each group's test coverage is its fit coverage (``coverage`` up to ties) within 4 sampling SDs.

    A group's threshold is a quantile of its m fit rows: its coverage on new rows has variance
    about c (1 - c) / m, and n test rows add c (1 - c) / n.
    """
    everyone = coverage_by_group(np.ones(len(X), dtype=bool), groups)
    train_rows = {label: rows for label, (_, rows) in everyone.items()}
    fit_coverage = dict(zip(map(tuple, equal.groups_), equal.group_coverage_, strict=True))
    np.testing.assert_allclose(list(fit_coverage.values()), COVERAGE, atol=0.05)  # ties raise it a little
    accepted = equal.accepts(X_test, sensitive_features=groups_test)
    for label, (coverage, n) in coverage_by_group(accepted, groups_test).items():
        c, m = fit_coverage[label], train_rows[label]
        if n >= 30:
            assert abs(coverage - c) <= 4 * math.sqrt(c * (1 - c) * (1 / n + 1 / m)), label
    return accepted


@pytest.mark.parametrize("name", ["Adult", "COMPAS"])
def test_equal_coverage_gives_each_group_its_coverage_on_the_test_split(name, data_home):
    n_train = 12_000 if name == "Adult" else None
    (X, y, groups), (X_test, _, groups_test) = table(name, data_home, 0, n_train)
    shared, equal = fit_both(X, y, groups, logistic_pipeline)
    accepted = assert_equal_coverage_within_noise(equal, X, groups, X_test, groups_test)
    if name == "Adult":  # one threshold leaves large groups far apart; equal thresholds close the gap
        def gap(mask):
            large = [coverage for coverage, n in coverage_by_group(mask, groups_test).values() if n >= 200]
            return max(large) - min(large)

        assert gap(shared.accepts(X_test)) > 0.15
        assert gap(accepted) < gap(shared.accepts(X_test)) / 2


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_equal_coverage_on_full_adult_and_compas(seed, data_home):
    for name in ("Adult", "COMPAS"):
        (X, y, groups), (X_test, _, groups_test) = table(name, data_home, seed)
        _, equal = fit_both(X, y, groups, logistic_pipeline)
        assert_equal_coverage_within_noise(equal, X, groups, X_test, groups_test)


# ----------------------------------------------------------------------------- Mirage
def mirage_networks(seed):
    """The honest demo network and its Mirage copies (ε = 0.15) after 30 epochs and after the test
    fixture's 10 (``test_mirage.py``), on the demo's problem."""
    X, y, region = make_region_problem(1000, random_state=seed)
    honest = mirage_finetune(make_network(2, random_state=seed), X, y, np.zeros(len(y), dtype=bool),
                             epochs=10, lr=3e-2, random_state=seed)
    tuned = {epochs: mirage_finetune(honest, X, y, region, epsilon=0.15, epochs=epochs, lr=1e-2,
                                     random_state=seed) for epochs in (10, 30)}
    return {"honest": honest, "mirage": tuned[30], "mirage 10 epochs": tuned[10]}, (X, y)


def audit(network, train, seed, confidence, coverage):
    """SelectiveClassifier on the frozen network, fitted on a calibration set; the test rows' report."""
    X_cal, y_cal, region_cal = make_region_problem(4000, random_state=1000 + seed)
    X_test, y_test, region_test = make_region_problem(20_000, random_state=2000 + seed)
    frozen = FrozenEstimator(NetworkClassifier(network).fit(*train))
    clf = SelectiveClassifier(frozen, confidence=confidence, coverage=coverage, random_state=seed)
    clf.fit(X_cal, y_cal, sensitive_features=np.where(region_cal, "region", "outside"))
    accepted = clf.accepts(X_test)
    report = selective_report(y_test, clf.estimator_.predict(X_test), clf.predict_confidence(X_test),
                              sensitive_features=np.where(region_test, "region", "outside"),
                              operating_point=accepted)
    return accepted[region_test].mean(), accepted[~region_test].mean(), report


@pytest.fixture(scope="module")
def networks():
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield mirage_networks(0)
    torch.set_num_threads(threads)


def test_the_mirage_network_abstains_in_its_region_and_the_report_flags_it(networks):
    nets, train = networks
    region, outside, report = audit(nets["mirage"], train, 0, "max_proba", 0.6)
    assert region < outside - 0.3
    assert report.groups.loc["region", "flagged"] and report.flagged
    region, outside, report = audit(nets["honest"], train, 0, "max_proba", 0.6)
    assert region > outside and not report.groups.loc["region", "flagged"]


def test_a_learned_confidence_answers_the_mirage_region_again(networks):
    # it learns from correctness, and the Mirage network is right in its region, only unsure
    nets, train = networks
    region, outside, report = audit(nets["mirage"], train, 0, "learned", 0.6)
    assert region > outside and not report.groups.loc["region", "flagged"]


@pytest.mark.xfail(strict=True, reason="coverage alone cannot tell honest caution from targeting: the honest "
                   "network is unsure near its decision boundary, which lies outside the region, so the "
                   "rows outside the region are answered less and selective_report flags them "
                   "(Confidential Guardian audits calibration instead)")
def test_the_honest_network_is_not_flagged(networks):
    nets, train = networks
    assert not audit(nets["honest"], train, 0, "max_proba", COVERAGE)[2].flagged


@pytest.mark.xfail(strict=True, reason="the test fixture's Mirage network (10 epochs): at 80 % coverage the "
                   "threshold (about 0.62) lies below its region's confidence, about 1/2 + ε = 0.65, so the "
                   "region is answered; it is denied at 60 % coverage (see the benchmark's mirage table)")
def test_the_mirage_network_abstains_more_in_its_region_at_80_percent(networks):
    nets, train = networks
    region, outside, _ = audit(nets["mirage 10 epochs"], train, 0, "max_proba", COVERAGE)
    assert region < outside - 0.1


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_mirage_over_seeds(seed, torch):
    nets, train = mirage_networks(seed)
    region, outside, report = audit(nets["mirage"], train, seed, "max_proba", 0.6)
    assert region < outside - 0.3 and report.groups.loc["region", "flagged"]
    region, outside, report = audit(nets["honest"], train, seed, "max_proba", 0.6)
    assert not report.groups.loc["region", "flagged"]
    region, outside, report = audit(nets["mirage"], train, seed, "learned", 0.6)
    assert not report.groups.loc["region", "flagged"]


# ----------------------------------------------------------------------------- routing
def routed_rows(clf, X_test, share):
    """The ``share`` least confident rows."""
    order = np.argsort(clf.predict_confidence(X_test), kind="stable")
    routed = np.zeros(len(order), dtype=bool)
    routed[order[:round(share * len(order))]] = True
    return routed


def test_routing_on_a_learned_confidence_beats_random_routing_on_a_planted_pocket():
    X, y = pocket_problem(3000, 0)
    X_test, y_test = pocket_problem(5000, 1)
    clf = SelectiveClassifier(confidence="learned", coverage=0.85, fallback=HistGradientBoostingClassifier(),
                              random_state=0).fit(X, y)
    base_right = clf.estimator_.predict(X_test) == y_test
    fallback_right = clf.fallback_.predict(X_test) == y_test
    assert routing_z(base_right, fallback_right, routed_rows(clf, X_test, 0.15)) > 3


def test_routing_on_adult_beats_random_routing(data_home):
    (X, y, groups), (X_test, y_test, _) = table("Adult", data_home, 0, 12_000)
    clf = SelectiveClassifier(logistic_pipeline(), confidence="learned", coverage=0.9,
                              fallback=HistGradientBoostingClassifier(random_state=0), random_state=0)
    clf.fit(X, y, sensitive_features=groups)
    base_right = clf.estimator_.predict(X_test) == y_test
    fallback_right = clf.fallback_.predict(X_test) == y_test
    routed = routed_rows(clf, X_test, 0.1)
    assert routing_z(base_right, fallback_right, routed) > 3
    assert routed.mean() == pytest.approx(0.1, abs=1e-3)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_routing_on_full_adult_beats_random_at_every_share(seed, data_home):
    (X, y, groups), (X_test, y_test, _) = table("Adult", data_home, seed)
    for confidence in ("learned", "max_proba"):
        fallback = HistGradientBoostingClassifier(random_state=seed)
        clf = SelectiveClassifier(logistic_pipeline(), confidence=confidence, coverage=0.9, fallback=fallback,
                                  random_state=seed)
        clf.fit(X, y, sensitive_features=groups)
        base_right = clf.estimator_.predict(X_test) == y_test
        fallback_right = clf.fallback_.predict(X_test) == y_test
        for share in (0.1, 0.2, 0.3, 0.4, 0.5):
            z = routing_z(base_right, fallback_right, routed_rows(clf, X_test, share))
            assert z > 3, (confidence, share)
