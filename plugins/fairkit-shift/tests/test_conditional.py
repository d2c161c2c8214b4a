"""Stage 2 of SHIFT: the planted subset is flagged and an unrelated one is not (both decompositions), the
conditional covariate test with every column tested is the stage-1 covariate test, arrays and DataFrames
(with categorical columns) give the same answers, the logit binning by hand and by brute force, and the
errors of bad subsets."""

from functools import lru_cache

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit, logit
from sklearn.model_selection import train_test_split

from fairkit_shift._conditional import (
    conditional_covariate_test,
    conditional_outcome_test,
    logit_bin_centres,
    subset_positions,
)
from fairkit_shift._datasets import make_subgroup_shift
from fairkit_shift._detectors import covariate_candidates
from fairkit_shift._domain import Domain
from fairkit_shift._estimators import (
    conditional_covariate_estimate,
    conditional_outcome_estimate,
    covariate_shift_estimate,
)
from fairkit_shift._losses import expected_loss, per_sample_losses
from fairkit_shift._nuisance import fit_density_ratio, fit_outcome_model, predict_positive

TAU, EPS = 0.05, 0.05
TESTS = {"conditional_covariate": conditional_covariate_test, "conditional_outcome": conditional_outcome_test}


def fit_domains(data, seed, as_array=False):
    """The two domains with their stage-1 nuisances, fitted as the diagnoser fits them."""
    rng = np.random.RandomState(seed)
    domains = []
    for name, X, y in (("source", data.X_source, data.y_source), ("target", data.X_target, data.y_target)):
        y = np.asarray(y)
        loss0, loss1, loss = per_sample_losses("zero_one", data.model.predict_proba(X)[:, 1], y)
        train, test = train_test_split(np.arange(len(y)), test_size=0.5, stratify=y,
                                       random_state=rng.randint(2**31 - 1))
        domains.append(Domain(name=name, X=X.to_numpy() if as_array else X, y=y, loss0=loss0, loss1=loss1,
                              loss=loss, train=np.sort(train), test=np.sort(test)))
    source, target = domains
    mu0 = fit_outcome_model(None, source.rows(source.X, "train"), source.rows(source.y, "train"),
                            random_state=seed)
    ratio = fit_density_ratio(source.rows(source.X, "train"), target.rows(target.X, "train"),
                              random_state=seed + 1)
    for domain in domains:
        domain.mu0 = predict_positive(mu0, domain.X)
        domain.z0 = expected_loss(domain.mu0, domain.loss0, domain.loss1)
        domain.ratio = ratio.ratio(domain.X)
    return source, target


@lru_cache(maxsize=4)
def stage2_domains(design, seed):
    data = make_subgroup_shift(design, prevalence=0.2, n_samples=8000, random_state=seed)
    return fit_domains(data, seed)


def run(design, seed, subset, **params):
    source, target = stage2_domains(design, seed)
    return TESTS[design](source, target, subset, tolerance=TAU, min_prevalence=EPS, n_bootstrap=2000,
                         random_state=seed, **params)


# --------------------------------------------------------------------------- the planted subset is found
@pytest.mark.parametrize("design", list(TESTS))
def test_planted_subset_is_flagged_and_unrelated_one_is_not(design):
    estimate, test = run(design, 0, ["x3"])
    assert test.reject and test.statistic > 0.05
    assert test.statistic == np.nanmax(estimate.onestep)
    estimate, test = run(design, 0, ["x4"])
    assert not test.reject


@pytest.mark.parametrize("n_target", [8000, 3000])
def test_conditional_covariate_estimate_is_near_its_truth(monkeypatch, n_target):
    """The one-step estimate of the design's planted subgroup G is close to the truth of its estimand.

    The detector picks its own subgroups, whose truth needs the nuisances; for G itself (a fixed
    subgroup, put in place of the search; everything else is the function's own) the truth is in closed
    form: E_T[Z₀ | G] − E_H[Z₀ | G] − τ = 0.8 (Φ(μ) − 1/2) − τ = rise − τ. Also with domains of unequal
    sizes (the conditional ratio's scale).
    """
    import fairkit_shift._conditional as conditional

    data = make_subgroup_shift("conditional_covariate", prevalence=0.2, n_samples=8000, random_state=1)
    data.X_target, data.y_target = data.X_target.iloc[:n_target], data.y_target.iloc[:n_target]
    data.subgroup_target = data.subgroup_target[:n_target]
    source, target = fit_domains(data, 1)

    class Planted:
        """A 'search' that returns G (the design's membership of each row)."""

        def __len__(self):
            return 1

        def detect(self, z0, ratio, baseline_ratio=None):
            return (data.subgroup_source if z0 is source.z0 else data.subgroup_target)[:, None]

    monkeypatch.setattr(conditional, "covariate_candidates", lambda *args, **kwargs: Planted())
    estimate, _ = conditional_covariate_test(source, target, ["x3"], tolerance=TAU, min_prevalence=EPS,
                                             n_bootstrap=100, random_state=1)
    truth = data.true_rise - TAU
    assert abs(estimate.onestep[0] - truth) < 3 * estimate.std_error[0]


def test_conditional_ratio_is_that_of_x_minus_s_within_the_subgroup(monkeypatch):
    """ŵ₋ₛ|d = p_T(x₋ₛ | d = 1) / p_S(x₋ₛ | d = 1), which is 1 when X₋ₛ is independent of the domain.

    x0 moves from N(0, 1) to N(1, 1) and x1 does not; d = {x0 > 1} has prevalence 0.16 in the source and
    0.5 in the target, and the target is half the source's size. The classifier's ratio of (x₋ₛ, d = 1)
    alone is about 0.5 / 0.16; the reference's scaling (test prevalences, no size ratio; plan D6) about
    (0.5 / 0.16) · (0.16 / 0.5) · (1000 / 2000) = 0.5.
    """
    import fairkit_shift._conditional as conditional

    rng = np.random.default_rng(0)

    def domain(name, mean, n):
        X = rng.normal([mean, 0.0], 1.0, size=(n, 2))
        z0 = np.full(n, 0.3)
        loss = (rng.uniform(size=n) < z0).astype(float)
        return Domain(name=name, X=X, y=loss.astype(int), loss0=np.zeros(n), loss1=np.ones(n), loss=loss,
                      train=np.arange(0, n, 2), test=np.arange(1, n, 2), mu0=z0, z0=z0,
                      ratio=np.exp(X[:, 0] - 0.5) / 2)

    source, target = domain("source", 0.0, 4000), domain("target", 1.0, 2000)

    class Planted:
        def __len__(self):
            return 1

        def detect(self, z0, ratio, baseline_ratio=None):
            X = source.X if z0 is source.z0 else target.X
            return (X[:, :1] > 1)

    seen = {}

    def recording(*args):
        seen["conditional_ratio"], seen["detected"] = args[8], np.asarray(args[0])[:, 0]
        return conditional_covariate_estimate(*args)

    monkeypatch.setattr(conditional, "covariate_candidates", lambda *args, **kwargs: Planted())
    monkeypatch.setattr(conditional, "conditional_covariate_estimate", recording)
    conditional_covariate_test(source, target, [0], tolerance=TAU, min_prevalence=EPS, n_bootstrap=100,
                               random_state=0)
    in_subgroup = seen["conditional_ratio"][seen["detected"], 0]
    assert abs(in_subgroup.mean() - 1) < 0.1


@pytest.mark.parametrize("seed", [0, 1])
def test_conditional_outcome_estimate_is_near_its_truth(monkeypatch, seed):
    """The one-step estimate of the detected subgroup d is close to the truth E_T[e_T − ℓ̄₋ₛ | d] − τ.

    In the design, e_T = 0.1 + 0.4·1[G ∩ A] (the expected 0-1 loss given x) and, given V = (x₋ₛ, bin of
    logit μ̂₀) with s = {x3}, the expected loss is ℓ̄₋ₛ = 0.1 + 0.2·1[G] (x3 is independent of V: μ₀ carries
    no information on x3, the source's error rate being constant).
    """
    import fairkit_shift._conditional as conditional

    seen = {}

    def recording(*args):
        seen["detected_target"] = np.asarray(args[1])
        return conditional_outcome_estimate(*args)

    monkeypatch.setattr(conditional, "conditional_outcome_estimate", recording)
    estimate, _ = run("conditional_outcome", seed, ["x3"])
    data = make_subgroup_shift("conditional_outcome", prevalence=0.2, n_samples=8000, random_state=seed)
    _, target = stage2_domains("conditional_outcome", seed)
    detected = seen["detected_target"][:, 0]
    expected_given_v = 0.1 + 0.2 * data.subgroup_target
    truth = target.rows(data.error_target - expected_given_v, "test")[detected].mean() - TAU
    assert truth > 0.05
    assert abs(estimate.onestep[0] - truth) < 3 * estimate.std_error[0]


@pytest.mark.slow
@pytest.mark.parametrize("design", list(TESTS))
def test_flagging_rates_over_20_seeds(design):
    """Planted {x3} flagged in >= 80 % of 20 data sets, unrelated {x4} in <= 10 %."""
    planted = unrelated = 0
    for seed in range(20):
        data = make_subgroup_shift(design, prevalence=0.2, n_samples=8000, random_state=100 + seed)
        source, target = fit_domains(data, seed)
        for subset in (["x3"], ["x4"]):
            _, test = TESTS[design](source, target, subset, tolerance=TAU, min_prevalence=EPS,
                                    n_bootstrap=2000, random_state=seed)
            planted += test.reject and subset == ["x3"]
            unrelated += test.reject and subset == ["x4"]
    assert planted / 20 >= 0.8
    assert unrelated / 20 <= 0.1


# --------------------------------------------------------------------------- every column tested
def test_every_column_tested_is_the_stage1_covariate_test():
    """With X₋ₛ empty, w₋ₛ = ŵ₋ₛ|d = 1 and ν = E_S[L | d]: the one-step and its influence functions are
    those of the stage-1 covariate estimate of the stage-1 candidates; the plug-in uses ν from the source
    training half."""
    source, target = stage2_domains("conditional_covariate", 0)
    estimate, test = conditional_covariate_test(source, target, ["x1", "x2", "x3", "x4", "x5"], tolerance=TAU,
                                                min_prevalence=EPS, n_bootstrap=500, random_state=0)
    S, T = source, target
    found = covariate_candidates(S.rows(S.z0, "train"), S.rows(S.ratio, "train"), T.rows(T.z0, "train"),
                                 T.rows(T.ratio, "train"), tolerance=TAU, min_prevalence=EPS)
    detected_s, detected_t = found.detect(S.z0, S.ratio), found.detect(T.z0, T.ratio)
    stage1 = covariate_shift_estimate(S.rows(detected_s, "test"), T.rows(detected_t, "test"),
                                      S.rows(S.loss, "test"), S.rows(S.z0, "test"), T.rows(T.z0, "test"),
                                      S.rows(S.ratio, "test"), TAU)
    assert len(found) >= 1 and test.reject
    np.testing.assert_allclose(estimate.onestep, stage1.onestep, rtol=1e-10)
    np.testing.assert_allclose(estimate.influence_source, stage1.influence_source, atol=1e-10)
    np.testing.assert_allclose(estimate.influence_target, stage1.influence_target, atol=1e-10)
    for k in range(len(found)):
        nu = S.rows(S.loss, "train")[S.rows(detected_s[:, k], "train")].mean()
        d_t = T.rows(detected_t[:, k], "test")
        np.testing.assert_allclose(estimate.plugin[k], T.rows(T.z0, "test")[d_t].mean() - nu - TAU)


# --------------------------------------------------------------------------- arrays, DataFrames, categories
@pytest.mark.parametrize("design", list(TESTS))
def test_arrays_give_the_dataframes_answers(design):
    data = make_subgroup_shift(design, prevalence=0.2, n_samples=4000, random_state=5)
    frames, arrays = fit_domains(data, 5), fit_domains(data, 5, as_array=True)
    by_name = TESTS[design](*frames, ["x3"], tolerance=TAU, min_prevalence=EPS, n_bootstrap=500,
                            random_state=2)
    by_position = TESTS[design](*arrays, [2], tolerance=TAU, min_prevalence=EPS, n_bootstrap=500,
                                random_state=2)
    np.testing.assert_allclose(by_name[0].onestep, by_position[0].onestep)
    assert by_name[1] == by_position[1]


@pytest.mark.parametrize("design", list(TESTS))
def test_categorical_columns_keep_their_dtype(design):
    """A string category column works only if it reaches the models as a category (not object) dtype."""
    data = make_subgroup_shift(design, prevalence=0.2, n_samples=4000, random_state=6)
    rng = np.random.default_rng(6)
    for name in ("X_source", "X_target"):
        X = data[name].copy()
        X["site"] = pd.Categorical(rng.choice(["north", "south", "east"], size=len(X)),
                                   categories=["east", "north", "south"])
        data[name] = X
    data.model = _DropColumn(data.model, "site")
    source, target = fit_domains(data, 6)
    flagged = [TESTS[design](source, target, subset, tolerance=TAU, min_prevalence=EPS, n_bootstrap=500,
                             random_state=0)[1].reject for subset in (["x3"], ["site"])]
    assert flagged == [True, False]


class _DropColumn:
    def __init__(self, model, column):
        self.model, self.column, self.classes_ = model, column, model.classes_

    def predict_proba(self, X):
        return self.model.predict_proba(X.drop(columns=self.column))


def test_no_admissible_candidate_gives_p_value_one():
    source, target = stage2_domains("conditional_outcome", 0)
    for test_function in TESTS.values():
        estimate, test = test_function(source, target, ["x3"], tolerance=5.0, min_prevalence=EPS,
                                       n_bootstrap=100, random_state=0)
        assert len(estimate.onestep) == 0
        assert (test.p_value, test.reject, test.argmax) == (1.0, False, -1)


def test_reproducible():
    first, second = (run("conditional_outcome", 0, ["x3"]) for _ in range(2))
    np.testing.assert_array_equal(first[0].onestep, second[0].onestep)
    assert first[1] == second[1]


# --------------------------------------------------------------------------- binning
def test_logit_bins_by_hand():
    # logits 0 and 4 fix the range; 2 bins [0, 2), [2, 4] with centres 1 and 3; outside: the end bins
    reference = expit([0.0, 4.0, 1.0])
    centres = logit_bin_centres(reference, expit([-3.0, 0.0, 1.5, 2.5, 4.0, 40.0]), 2)
    np.testing.assert_allclose(centres, [1, 1, 1, 3, 3, 3])
    # 4 bins of width 1: centres 0.5, 1.5, 2.5, 3.5
    np.testing.assert_allclose(logit_bin_centres(reference, expit([0.2, 1.7, 2.2, 3.9]), 4),
                               [0.5, 1.5, 2.5, 3.5])


def test_logit_bins_match_brute_force():
    rng = np.random.default_rng(0)
    reference, values = rng.uniform(0.01, 0.99, 200), rng.uniform(0.001, 0.999, 500)
    centres = logit_bin_centres(reference, values, 7)
    low, high = logit(reference).min(), logit(reference).max()
    width = (high - low) / 7
    index = np.clip(np.floor((logit(values) - low) / width), 0, 6)
    inner = np.abs((logit(values) - low) / width - np.round((logit(values) - low) / width)) > 1e-9
    np.testing.assert_allclose(centres[inner], low + (index[inner] + 0.5) * width)
    assert len(np.unique(centres)) <= 7


def test_logit_bins_of_certain_and_constant_probabilities():
    # probabilities 0 and 1 give finite logits at the ends; a constant reference gives one bin
    centres = logit_bin_centres([0.0, 0.5, 1.0], [0.0, 1.0], 10)
    assert np.isfinite(centres).all() and centres[0] < 0 < centres[1]
    np.testing.assert_allclose(logit_bin_centres([0.3, 0.3], [0.1, 0.3, 0.9], 5), logit(0.3))


# --------------------------------------------------------------------------- bad subsets
def test_subset_positions():
    X = pd.DataFrame({"a": [1.0], "b": [2.0], "c": [3.0]})
    assert subset_positions(X, ["c", "a"]).tolist() == [0, 2]
    assert subset_positions(X, (1, "c")).tolist() == [1, 2]
    assert subset_positions(np.zeros((1, 3)), [np.int64(2)]).tolist() == [2]


@pytest.mark.parametrize("subset, message", [
    (["zz"], "'zz', which X does not have"),
    ([], "non-empty list"),
    ("x3", "non-empty list"),
    (None, "non-empty list"),
    (["x3", "x3"], "more than once"),
    ([7], "position 7, but X has 5 columns"),
    ([-1], "position -1"),
    ([True], "'True'|True"),
])
def test_bad_subsets_are_refused(subset, message):
    source, target = stage2_domains("conditional_outcome", 0)
    for test_function in TESTS.values():
        with pytest.raises(ValueError, match=message):
            test_function(source, target, subset, tolerance=TAU, min_prevalence=EPS)


def test_names_on_arrays_and_missing_nuisances_are_refused():
    X = np.zeros((4, 3))
    with pytest.raises(ValueError, match="array without column names"):
        subset_positions(X, ["x1"])
    domain = Domain(name="source", X=X, y=np.array([0, 1, 0, 1]), loss0=np.zeros(4), loss1=np.ones(4),
                    loss=np.zeros(4), train=np.arange(2), test=np.arange(2, 4))
    with pytest.raises(ValueError, match="source has no z0, ratio"):
        conditional_covariate_test(domain, domain, [0], tolerance=TAU, min_prevalence=EPS)
    with pytest.raises(ValueError, match="source has no mu0"):
        conditional_outcome_test(domain, domain, [0], tolerance=TAU, min_prevalence=EPS)
    domain.mu0 = np.full(4, 0.5)
    with pytest.raises(TypeError, match="target must be a Domain"):
        conditional_outcome_test(domain, X, [0], tolerance=TAU, min_prevalence=EPS)
