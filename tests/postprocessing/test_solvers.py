"""The solvers against exact oracles: LPs over single points, brute force, the fewest randomized points."""

import itertools

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from fairkit.postprocessing import RandomizedFairBOC
from fairkit.postprocessing._curves import group_curves, upper_hull
from fairkit.postprocessing._equalized_odds import roc_curves
from fairkit.postprocessing._lp import lp_equalized_odds

SIMPLE = ["demographic_parity", "equal_opportunity", "predictive_equality"]
TIED_SCORES = [0.0, 0.1, 0.25, 0.5, 0.5, 0.7, 0.9, 1.0]
TIGHT = {"primal_feasibility_tolerance": 1e-10}  # the oracles' LPs; HiGHS's default is 1e-7


@st.composite
def instances(draw, max_groups=4, max_size=7):
    """Scores, groups and weights of a small fit set, with ties at will."""
    n_groups = draw(st.integers(2, max_groups))
    sizes = draw(st.lists(st.integers(1, max_size), min_size=n_groups, max_size=n_groups))
    n = sum(sizes)
    tied = draw(st.booleans())
    # scores on a grid of 1e-6: HiGHS, the oracle, treats coefficients below 1e-9 as 0
    score = st.sampled_from(TIED_SCORES) if tied else st.integers(0, 10**6).map(lambda k: k / 10**6)
    scores = np.array(draw(st.lists(score, min_size=n, max_size=n)))
    codes = np.repeat(np.arange(n_groups), sizes)
    if draw(st.booleans()):
        weights = np.ones(n)
    else:
        weights = np.array(draw(st.lists(st.floats(0.1, 3.0), min_size=n, max_size=n)))
    return scores, codes, weights


def _valid(scores, codes, constraint):
    cost = {"demographic_parity": np.ones_like(scores), "equal_opportunity": scores,
            "predictive_equality": 1.0 - scores}[constraint]
    return all(cost[codes == a].sum() > 0 for a in np.unique(codes))


def _fit(plugin, scores, codes, weights, **params):
    """Fit through the public API; return the decision probabilities on the fit data."""
    X = scores[:, None]
    y = np.arange(len(scores)) % 2
    fair = RandomizedFairBOC(plugin.ScoreColumn(), random_state=0, **params)
    fair.fit(X, y, sensitive_features=codes, sample_weight=weights)
    return fair, fair.predict_proba(X, sensitive_features=codes)[:, 1]


def oracle_lp(plugin, scores, codes, weights, constraint, delta):
    """Best plug-in accuracy over f ∈ [0, 1]ⁿ, one variable per sample, pairwise rate constraints."""
    cost = plugin.costs(constraint, scores, weights)
    groups = np.unique(codes)
    rate_rows = np.array([np.where(codes == a, cost, 0.0) / cost[codes == a].sum() for a in groups])
    pairs = [rate_rows[a] - rate_rows[b] for a, b in itertools.permutations(range(len(groups)), 2)]
    gain = weights * (2 * scores - 1) / weights.sum()
    result = linprog(-gain, A_ub=np.array(pairs), b_ub=np.full(len(pairs), delta), bounds=(0, 1),
                     method="highs", options=TIGHT)
    assert result.status == 0
    return float(np.sum(weights * (1 - scores)) / weights.sum() - result.fun)


def _check_rule(plugin, fair, decision, scores, codes, weights, constraint, delta):
    rates = plugin.rates(decision, scores, weights, codes, constraint)
    assert rates.max() - rates.min() <= delta + 1e-9
    assert np.allclose([fair.group_rates_[a] for a in fair.groups_], rates, atol=1e-9)
    for a in np.unique(codes):  # a threshold rule: never more positive at a lower score
        s, f = scores[codes == a], decision[codes == a]
        order = np.argsort(s, kind="stable")
        assert np.all(np.diff(f[order]) >= -1e-12)


@settings(max_examples=100, deadline=None)
@given(instance=instances(), constraint=st.sampled_from(SIMPLE),
       delta=st.one_of(st.just(0.0), st.floats(0.01, 0.6)), solver=st.sampled_from(["sweep", "lp"]))
@example(instance=(np.array([0.25, 0.7, 0.9, 0.9, 1, 0.7, 0.9, 0.9, 0.7, 0.7]),
                   np.array([0, 0, 0, 0, 0, 1, 1, 1, 2, 2]), np.ones(10)),
         constraint="predictive_equality", delta=0.0, solver="sweep")  # two groups' rate 0.4, an ulp apart
def test_randomized_rule_is_the_lp_optimum(plugin, instance, constraint, delta, solver):
    scores, codes, weights = instance
    assume(_valid(scores, codes, constraint))
    fair, decision = _fit(plugin, scores, codes, weights, constraint=constraint, tolerance=delta,
                          solver=solver)
    accuracy = plugin.accuracy(decision, scores, weights)
    assert accuracy == pytest.approx(oracle_lp(plugin, scores, codes, weights, constraint, delta),
                                     abs=1e-9)
    _check_rule(plugin, fair, decision, scores, codes, weights, constraint, delta)
    # a vertex: at most K - 1 randomized blocks of tied scores (points, when scores are distinct)
    fractional = {(a, s) for a, s, f in zip(codes, scores, decision, strict=True) if 0 < f < 1}
    assert len(fractional) <= len(np.unique(codes)) - 1


@settings(max_examples=60, deadline=None)
@given(n_groups=st.integers(2, 4), seed=st.integers(0, 10**6), constraint=st.sampled_from(SIMPLE),
       delta=st.one_of(st.just(0.0), st.floats(0.01, 0.3)))
def test_at_most_k_minus_1_randomized_points(plugin, n_groups, seed, constraint, delta):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_groups, 300)
    codes[:n_groups] = np.arange(n_groups)
    scores = rng.beta(2, 2, 300)  # distinct scores
    fair, decision = _fit(plugin, scores, codes, np.ones(300), constraint=constraint, tolerance=delta)
    assert fair.n_randomized_ == np.count_nonzero((decision > 0) & (decision < 1)) <= n_groups - 1


def brute_force_deterministic(plugin, scores, codes, weights, constraint, delta):
    """Best accuracy over every combination of one threshold per group (whole tied blocks)."""
    groups = np.unique(codes)
    cuts = [np.append(np.unique(scores[codes == a]), np.inf) for a in groups]
    best = -np.inf
    for combo in itertools.product(*cuts):
        decision = (scores >= np.array(combo)[codes]).astype(float)
        rates = plugin.rates(decision, scores, weights, codes, constraint)
        if rates.max() - rates.min() <= delta + 1e-12:
            best = max(best, plugin.accuracy(decision, scores, weights))
    return best


@settings(max_examples=100, deadline=None)
@given(instance=instances(max_groups=3, max_size=5), constraint=st.sampled_from(SIMPLE),
       delta=st.one_of(st.just(0.0), st.floats(0.01, 0.6)))
def test_deterministic_rule_is_the_best_threshold_combination(plugin, instance, constraint, delta):
    scores, codes, weights = instance
    assume(_valid(scores, codes, constraint))
    fair, decision = _fit(plugin, scores, codes, weights, constraint=constraint, tolerance=delta,
                          randomized=False)
    assert set(np.unique(decision)) <= {0.0, 1.0} and fair.n_randomized_ == 0
    assert plugin.accuracy(decision, scores, weights) == pytest.approx(
        brute_force_deterministic(plugin, scores, codes, weights, constraint, delta), abs=1e-12)
    _check_rule(plugin, fair, decision, scores, codes, weights, constraint, delta)


def label_costs(constraint, labels, weights):
    return weights * labels if constraint == "equal_opportunity" else weights * (1.0 - labels)


def oracle_monotone(plugin, scores, codes, weights, constraints, delta, labels=None):
    """Best plug-in accuracy of rules non-decreasing in the score within each group (a variable per point).

    The rates are plug-in, or counted from ``labels`` when given.
    """
    n = len(scores)
    rows = []
    for constraint in constraints:
        plugin_rate = labels is None or constraint == "demographic_parity"
        cost = (plugin.costs(constraint, scores, weights) if plugin_rate
                else label_costs(constraint, labels, weights))
        rate = np.array([np.where(codes == a, cost, 0.0) / cost[codes == a].sum() for a in np.unique(codes)])
        rows += [rate[a] - rate[b] for a, b in itertools.permutations(range(len(rate)), 2)]
    b_ub = [delta] * len(rows)
    for i, j in itertools.permutations(range(n), 2):  # monotone: f_j ≤ f_i when s_j ≤ s_i
        if codes[i] == codes[j] and scores[j] <= scores[i]:
            row = np.zeros(n)
            row[j], row[i] = 1.0, -1.0
            rows.append(row)
            b_ub.append(0.0)
    gain = weights * (2 * scores - 1) / weights.sum()
    result = linprog(-gain, A_ub=np.array(rows), b_ub=b_ub, bounds=(0, 1), method="highs", options=TIGHT)
    assert result.status == 0
    return float(np.sum(weights * (1 - scores)) / weights.sum() - result.fun)


def empirical_rates(decision, labels, weights, codes, constraint):
    cost = weights if constraint == "demographic_parity" else label_costs(constraint, labels, weights)
    return np.array([np.sum(cost[codes == a] * decision[codes == a]) / cost[codes == a].sum()
                     for a in np.unique(codes)])


def _check_monotone(scores, codes, decision):
    """Within each group a higher score never has a lower chance of 1; tied scores share one decision."""
    for a in np.unique(codes):
        s, f = scores[codes == a], decision[codes == a]
        order = np.lexsort((f, s))
        assert np.all(np.diff(f[order]) >= -1e-12)
        for value in np.unique(s):
            assert np.ptp(f[s == value]) == 0


def _randomized_bands(scores, codes, decision):
    """Per group, the distinct fit scores with a fractional decision, and whether they are adjacent."""
    bands = {}
    for a in np.unique(codes):
        distinct = np.unique(scores[codes == a])
        fractional = np.unique(scores[(codes == a) & (decision > 0) & (decision < 1)])
        where = np.searchsorted(distinct, fractional)
        bands[a] = (fractional, len(where) == 0 or where[-1] - where[0] == len(where) - 1)
    return bands


@settings(max_examples=50, deadline=None)
@given(instance=instances(max_groups=3, max_size=6), delta=st.one_of(st.just(0.0), st.floats(0.01, 0.5)))
@example(instance=(np.array([0, 0, 0.25, 0, 0, 0, 0.9, 0, 0.1]), np.array([0, 0, 0, 1, 1, 1, 1, 2, 2]),
                   np.array([1, 1, 1, 1, 1, 0.5, 3, 1, 0.5])), delta=0.0)  # a rate of 1 + 2e-16 (found in CI)
def test_equalized_odds_is_the_best_monotone_rule(plugin, instance, delta):
    scores, codes, weights = instance
    assume(_valid(scores, codes, "equal_opportunity") and _valid(scores, codes, "predictive_equality"))
    fair, decision = _fit(plugin, scores, codes, weights, constraint="equalized_odds", tolerance=delta)
    assert plugin.accuracy(decision, scores, weights) == pytest.approx(
        oracle_monotone(plugin, scores, codes, weights, SIMPLE[1:], delta), abs=1e-9)
    for constraint, column in (("equal_opportunity", 0), ("predictive_equality", 1)):
        rates = plugin.rates(decision, scores, weights, codes, constraint)
        assert rates.max() - rates.min() <= delta + 1e-9
        assert np.allclose([fair.group_rates_[a][column] for a in fair.groups_], rates, atol=1e-9)
    _check_monotone(scores, codes, decision)


def test_equalized_odds_rates_stay_in_the_window_with_scores_near_0_and_1(plugin):
    """HiGHS's default feasibility tolerance (1e-7) let a true positive rate leave the window by 6e-8."""
    scores = np.array([0, 1e-6, 0, 0, 0, 1e-6, 0, 0, 0, 2e-6, 0.999999])
    codes = np.array([0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2])
    fair, decision = _fit(plugin, scores, codes, np.ones(11), constraint="equalized_odds", tolerance=0.0625)
    rates = plugin.rates(decision, scores, np.ones(11), codes, "equal_opportunity")
    assert rates.max() - rates.min() <= 0.0625 + 1e-12


def _roc_knots(scores, weights):
    """A group's plug-in ROC knots (knot j: its j highest distinct scores predicted 1) and block weights."""
    distinct = np.unique(scores)[::-1]
    block = np.searchsorted(-distinct, -scores)
    weight = np.bincount(block, weights=weights)
    positive, negative = distinct * weight, (1 - distinct) * weight
    knots = np.column_stack([np.r_[0, np.cumsum(negative)] / negative.sum(),
                             np.r_[0, np.cumsum(positive)] / positive.sum()])
    return knots, weight


def fewest_randomized_weight(point, knots, block_weights, tolerance=1e-10):
    """Least weight of consecutive blocks a .. b − 1 whose threshold rules K_a .. K_b reach ``point``.

    Any rule monotone in the score that randomizes only those blocks is a mixture of
    those threshold rules; feasibility is an LP (distance to their hull, in L1).
    """
    best = np.inf
    for a in range(len(knots)):
        for b in range(a, len(knots)):
            hull = knots[a:b + 1]
            m = len(hull)  # variables: λ (m), residual+ (2), residual- (2)
            A_eq = np.zeros((3, m + 4))
            A_eq[:2, :m], A_eq[:2, m:m + 2], A_eq[:2, m + 2:] = hull.T, np.eye(2), -np.eye(2)
            A_eq[2, :m] = 1.0
            result = linprog(np.r_[np.zeros(m), np.ones(4)], A_eq=A_eq, b_eq=np.r_[point, 1.0],
                             bounds=(0, None), method="highs", options=TIGHT)
            if result.status == 0 and result.fun <= tolerance:
                best = min(best, block_weights[a:b].sum())
    return best


@settings(max_examples=80, deadline=None)
@given(instance=instances(max_groups=3, max_size=7), delta=st.one_of(st.just(0.0), st.floats(0.01, 0.3)))
def test_equalized_odds_randomizes_the_fewest_points(plugin, instance, delta):
    """Rates and accuracy are the LP optimum's; each group randomizes the least weight a monotone rule can.

    Hardt et al.'s threshold plus a group-wide coin randomized every sample of a group
    whose point lies inside its ROC hull.
    """
    scores, codes, weights = instance
    assume(_valid(scores, codes, "equal_opportunity") and _valid(scores, codes, "predictive_equality"))
    fair, decision = _fit(plugin, scores, codes, weights, constraint="equalized_odds", tolerance=delta)
    curves = roc_curves(scores, codes, weights, np.unique(codes))
    optimum = lp_equalized_odds([(c.fpr, c.tpr, c.gain) for c in curves], delta)
    realised = np.column_stack([plugin.rates(decision, scores, weights, codes, constraint)
                                for constraint in ("equal_opportunity", "predictive_equality")])
    for a, (knots, lam) in enumerate(optimum):  # the LP's points, which Hardt's coin realised before
        expected = (lam @ curves[a].tpr[knots], lam @ curves[a].fpr[knots])
        np.testing.assert_allclose(realised[a], expected, atol=1e-9)
    _check_monotone(scores, codes, decision)
    for a, (fractional, adjacent) in _randomized_bands(scores, codes, decision).items():
        group = codes == a
        assert adjacent  # one band of consecutive fit scores
        assert len(np.unique(decision[group & (decision > 0) & (decision < 1)])) <= 2
        knots, block_weights = _roc_knots(scores[group], weights[group])
        point = np.array(fair.group_rates_[a])[::-1]
        randomized = weights[group & np.isin(scores, fractional)].sum()
        assert randomized == pytest.approx(fewest_randomized_weight(point, knots, block_weights), abs=1e-9)


@settings(max_examples=80, deadline=None)
@given(instance=instances(max_groups=3, max_size=6), data=st.data(),
       constraint=st.sampled_from(SIMPLE + ["equalized_odds"]),
       delta=st.one_of(st.just(0.0), st.floats(0.01, 0.5)), solver=st.sampled_from(["auto", "lp"]))
def test_empirical_rates_give_the_best_monotone_rule(plugin, instance, data, constraint, delta, solver):
    """rates='empirical': the rates counted from y are within the tolerance on the fit data, and the
    plug-in accuracy is the best of any rule monotone in the score (an LP over single points)."""
    scores, codes, weights = instance
    labels = np.array(data.draw(st.lists(st.integers(0, 1), min_size=len(scores), max_size=len(scores))))
    assume(0 < labels.sum() < len(labels))
    constrained = SIMPLE[1:] if constraint == "equalized_odds" else [constraint]
    for c in constrained:
        assume(all(label_costs(c, labels, weights)[codes == a].sum() > 0 for a in np.unique(codes)))
    if constraint == "equalized_odds" and solver == "lp":
        solver = "auto"
    X = scores[:, None]
    fair = RandomizedFairBOC(plugin.ScoreColumn(), constraint=constraint, rates="empirical", tolerance=delta,
                             solver=solver).fit(X, labels, sensitive_features=codes, sample_weight=weights)
    decision = fair.predict_proba(X, sensitive_features=codes)[:, 1]
    assert plugin.accuracy(decision, scores, weights) == pytest.approx(
        oracle_monotone(plugin, scores, codes, weights, constrained, delta, labels), abs=1e-9)
    for column, c in enumerate(constrained):
        rates = empirical_rates(decision, labels, weights, codes, c)
        assert rates.max() - rates.min() <= delta + 1e-9
        fitted = [fair.group_rates_[a] for a in fair.groups_]
        if constraint == "equalized_odds":
            fitted = [pair[column] for pair in fitted]  # (true, false positive rate), as constrained
        np.testing.assert_allclose(fitted, rates, atol=1e-9)
    _check_monotone(scores, codes, decision)
    bands = _randomized_bands(scores, codes, decision)
    if constraint != "equalized_odds":  # one band per randomizing group, at most K - 1 of them
        assert all(adjacent for _, adjacent in bands.values())
        assert sum(len(fractional) > 0 for fractional, _ in bands.values()) <= len(bands) - 1


def test_empirical_demographic_parity_is_the_plugin_rule(plugin):
    rng = np.random.default_rng(0)
    scores, codes, y = rng.beta(2, 2, 400), rng.integers(0, 3, 400), rng.integers(0, 2, 400)
    fits = [RandomizedFairBOC(plugin.ScoreColumn(), rates=rates, tolerance=0.01)
            .fit(scores[:, None], y, sensitive_features=codes) for rates in ("plugin", "empirical")]
    assert fits[0].thresholds_ == fits[1].thresholds_ and fits[0].randomization_ == fits[1].randomization_
    assert fits[0].group_rates_ == fits[1].group_rates_


def test_upper_hull_against_a_monotone_chain():
    rng = np.random.default_rng(0)
    for _ in range(200):
        n = rng.integers(1, 40)
        x = np.sort(rng.integers(0, 8, n)).astype(float)
        y = rng.integers(-5, 5, n).astype(float)
        chain = []  # Andrew's monotone chain over the highest point of each abscissa, collinear kept
        for i in range(n):
            if np.any((x == x[i]) & (y > y[i])) or np.any((x == x[i]) & (y == y[i]) & (np.arange(n) < i)):
                continue
            while len(chain) >= 2:
                (x0, y0), (x1, y1) = (x[chain[-2]], y[chain[-2]]), (x[chain[-1]], y[chain[-1]])
                if (x1 - x0) * (y[i] - y0) - (y1 - y0) * (x[i] - x0) > 0:
                    chain.pop()
                else:
                    break
            chain.append(i)
        np.testing.assert_array_equal(upper_hull(x, y), chain)


def test_equalized_odds_column_generation_matches_the_full_lp():
    """Many blocks per group, so that column generation has to add knots to its first LP."""
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 3, 3000)
    scores = np.clip(rng.beta(2, 3, 3000) + 0.15 * codes, 0, 1)
    curves = roc_curves(scores, codes, np.ones(3000), np.arange(3))
    knots = [(c.fpr, c.tpr, c.gain) for c in curves]
    points = []
    for n_initial in (2, 10**6):  # start from almost nothing, or from every knot
        mixtures = lp_equalized_odds(knots, 0.0, n_initial=n_initial)
        points.append([(lam @ c.fpr[k], lam @ c.tpr[k])
                       for c, (k, lam) in zip(curves, mixtures, strict=True)])
        assert all(len(k) <= 3 for k, _ in mixtures)  # a vertex: at most three knots per group
    np.testing.assert_allclose(points[0], points[1], atol=1e-9)


def test_group_curve_is_concave_with_merged_ties():
    scores = np.array([0.9, 0.9, 0.6, 0.2, 0.6, 0.8])
    codes = np.array([0, 0, 0, 0, 1, 1])
    curves = group_curves(scores, codes, np.ones(6), np.array(["a", "b"]), "demographic_parity")
    np.testing.assert_allclose(curves[0].x, [0, 0.5, 0.75, 1.0])
    np.testing.assert_allclose(curves[0].y, np.cumsum([0, 2 * 0.8, 0.2, -0.6]) / 6)
    assert curves[0].peak == 2 and curves[1].peak == 2
    assert np.all(np.diff(np.diff(curves[0].y) / np.diff(curves[0].x)) < 0)


def test_undefined_rate_names_the_group(plugin):
    scores = np.array([0.0, 0.0, 0.3, 0.8])
    with pytest.raises(ValueError, match="Group 'b' has a true positive rate of 0/0"):
        _fit(plugin, scores, np.array(["b", "b", "c", "c"]), np.ones(4), constraint="equal_opportunity")


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(20))
def test_sweep_matches_the_lp_on_larger_instances(plugin, seed):
    rng = np.random.default_rng(seed)
    n_groups, n = rng.integers(2, 7), 2000
    codes = np.sort(rng.integers(0, n_groups, n))
    codes[:n_groups] = np.arange(n_groups)
    scores = np.round(rng.beta(2, 2, n) + 0.05 * codes, 3).clip(0, 1)  # many ties
    weights = rng.uniform(0.5, 2.0, n)
    for constraint in SIMPLE:
        delta = [0.0, 0.02, 0.2][seed % 3]
        sweep = _fit(plugin, scores, codes, weights, constraint=constraint, tolerance=delta)[1]
        lp = _fit(plugin, scores, codes, weights, constraint=constraint, tolerance=delta, solver="lp")[1]
        assert plugin.accuracy(sweep, scores, weights) == pytest.approx(
            plugin.accuracy(lp, scores, weights), abs=1e-9)
        fractional = {(a, s) for a, s, f in zip(codes, scores, sweep, strict=True) if 0 < f < 1}
        assert len(fractional) <= n_groups - 1
