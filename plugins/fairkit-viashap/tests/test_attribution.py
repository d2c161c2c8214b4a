import numpy as np
import pandas as pd
import pytest
from scipy import stats

from fairkit_viashap._attribution import attribution_disparity


def random_case(seed=0, n=60, d=4):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)), rng.choice(["x", "y", "z"], size=n)


def test_hand_computed_two_groups():
    phi = np.array([[2.0, 0.0, -2.0], [-4.0, 1.0, 0.0], [1.0, -1.0, 1.0]])
    frame = attribution_disparity(phi, ["m", "m", "f"], feature_names=["a", "b", "c"])
    # m: mean |phi| = (3, 0.5, 1), total 4.5; f: (1, 1, 1), total 3
    np.testing.assert_allclose(frame["mean_abs"]["m"], [3.0, 0.5, 1.0])
    np.testing.assert_allclose(frame["mean_abs"]["f"], [1.0, 1.0, 1.0])
    np.testing.assert_allclose(frame["share"]["m"], [3 / 4.5, 0.5 / 4.5, 1 / 4.5])
    np.testing.assert_allclose(frame["share"]["f"], [1 / 3, 1 / 3, 1 / 3])
    np.testing.assert_allclose(frame["gap"]["mean_abs"], [2.0, 0.5, 0.0])
    np.testing.assert_allclose(frame["gap"]["share"], [3 / 4.5 - 1 / 3, 1 / 3 - 0.5 / 4.5, 1 / 3 - 1 / 4.5])


def test_layout():
    phi, groups = random_case()
    frame = attribution_disparity(phi, groups)
    assert frame.index.tolist() == ["feature_0", "feature_1", "feature_2", "feature_3"]
    assert frame.index.name == "feature" and frame.columns.names == ["statistic", "group"]
    assert frame.columns.tolist() == [("mean_abs", g) for g in "xyz"] + [("share", g) for g in "xyz"] + [
        ("gap", "mean_abs"), ("gap", "share")]


def test_shares_sum_to_one_and_gaps_are_max_minus_min():
    phi, groups = random_case(1)
    frame = attribution_disparity(phi, groups)
    np.testing.assert_allclose(frame["share"].sum(axis=0), 1.0)
    for statistic in ("mean_abs", "share"):
        table = frame[statistic].to_numpy()
        np.testing.assert_allclose(frame["gap"][statistic], table.max(1) - table.min(1))


def test_means_match_pandas_groupby():
    phi, groups = random_case(2)
    frame = attribution_disparity(phi, groups)
    expected = pd.DataFrame(np.abs(phi)).groupby(groups).mean()
    np.testing.assert_allclose(frame["mean_abs"].to_numpy(), expected.to_numpy().T)


def test_sign_and_row_order_do_not_matter():
    phi, groups = random_case(3)
    frame = attribution_disparity(phi, groups)
    order = np.random.default_rng(0).permutation(len(phi))
    pd.testing.assert_frame_equal(attribution_disparity(-phi[order], groups[order]), frame)


def test_several_columns_give_intersections():
    phi, _ = random_case(4, n=40)
    rng = np.random.default_rng(5)
    sex, race = rng.choice(["F", "M"], size=40), rng.choice([1, 2], size=40)
    frame = attribution_disparity(phi, pd.DataFrame({"sex": sex, "race": race}))
    assert frame["mean_abs"].columns.tolist() == [("F", 1), ("F", 2), ("M", 1), ("M", 2)]
    combined = attribution_disparity(phi, [f"{s}{r}" for s, r in zip(sex, race, strict=True)])
    np.testing.assert_allclose(frame.to_numpy(), combined.to_numpy())


def test_feature_names_are_used():
    phi, groups = random_case(6, d=2)
    frame = attribution_disparity(phi, groups, feature_names=np.array(["age", "income"]))
    assert frame.index.tolist() == ["age", "income"]


def test_group_with_no_attribution_has_undefined_share():
    phi = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0], [0.0, 3.0]])
    frame = attribution_disparity(phi, [0, 0, 1, 1])
    assert frame["share"][0].isna().all()
    np.testing.assert_allclose(frame["share"][1], [0.25, 0.75])
    np.testing.assert_allclose(frame["gap"]["share"], 0.0)  # one group with a defined share
    np.testing.assert_allclose(frame["gap"]["mean_abs"], [0.5, 1.5])


def test_single_group_has_no_gap():
    phi, _ = random_case(7)
    frame = attribution_disparity(phi, np.zeros(len(phi)))
    np.testing.assert_allclose(frame["gap"], 0.0)


@pytest.mark.parametrize(
    ("shap_values", "sensitive", "names", "match"),
    [
        (np.zeros((4, 2, 3)), [0, 0, 1, 1], None, r"multiclass .* pass one class, shap_values\[:, :, k\]"),
        (np.zeros(4), [0, 0, 1, 1], None, "Expected 2D array"),
        ([[0.0, np.nan]] * 4, [0, 0, 1, 1], None, "NaN"),
        (np.zeros((4, 2)), [0, 1, 1], None, "sensitive_features has 3 rows but shap_values has 4 samples"),
        (np.zeros((4, 2)), [0, 1, None, 1], None, "missing values"),
        (np.zeros((4, 2)), [0, 0, 1, 1], ["a"], "feature_names has 1 names but shap_values has 2 features"),
        (np.zeros((4, 2)), [0, 0, 1, 1], ["a", "a"], "feature_names must be unique; repeated: a"),
    ],
)
def test_bad_input_is_refused(shap_values, sensitive, names, match):
    with pytest.raises(ValueError, match=match):
        attribution_disparity(shap_values, sensitive, feature_names=names)


def test_groups_named_like_statistics_keep_their_columns():
    phi = np.array([[1.0, 0.0], [0.0, 1.0]])
    frame = attribution_disparity(phi, ["share", "mean_abs"])
    assert frame["mean_abs"].columns.tolist() == ["mean_abs", "share"]
    np.testing.assert_allclose(frame[("mean_abs", "share")], [1.0, 0.0])
    np.testing.assert_allclose(frame[("gap", "share")], [1.0, 1.0])


def test_intervals_match_scipy_t_intervals_at_the_bonferroni_level():
    phi, groups = random_case(3, n=90, d=2)
    frame = attribution_disparity(phi, groups, ci=0.9)
    level = 1 - 0.1 / (3 * 2)  # three groups, two features
    for g in "xyz":
        values = np.abs(phi[groups == g])
        low, high = stats.t.interval(level, len(values) - 1, loc=values.mean(0), scale=stats.sem(values))
        np.testing.assert_allclose(frame[("mean_abs_low", g)], low)
        np.testing.assert_allclose(frame[("mean_abs_high", g)], high)
    lows, highs = frame["mean_abs_low"].to_numpy(), frame["mean_abs_high"].to_numpy()
    np.testing.assert_allclose(frame[("gap", "mean_abs_low")],
                               np.maximum(0.0, lows.max(1) - highs.min(1)))
    np.testing.assert_allclose(frame[("gap", "mean_abs_high")], highs.max(1) - lows.min(1))


def test_intervals_add_columns_and_change_nothing_else():
    phi, groups = random_case(4)
    plain, with_ci = attribution_disparity(phi, groups), attribution_disparity(phi, groups, ci=0.95)
    assert with_ci.columns.tolist() == plain.columns.tolist()[:6] + [
        (s, g) for s in ("mean_abs_low", "mean_abs_high") for g in "xyz"] + [
        ("gap", "mean_abs"), ("gap", "share"), ("gap", "mean_abs_low"), ("gap", "mean_abs_high")]
    pd.testing.assert_frame_equal(with_ci[plain.columns], plain)


def test_equal_groups_rarely_show_a_gap_and_a_planted_gap_is_found():
    # 400 draws of 3 groups x 5 features from one distribution: the gap's interval excludes 0 (a
    # false finding) in at most 1 - ci of them, up to binomial noise; a planted gap is found
    rng = np.random.default_rng(0)
    groups = np.repeat(["a", "b", "c"], 50)
    false_findings = sum(
        bool((attribution_disparity(rng.standard_t(4, size=(150, 5)), groups, ci=0.9)[("gap", "mean_abs_low")]
              > 0).any()) for _ in range(400))
    assert false_findings / 400 <= 0.1 + 3 * np.sqrt(0.1 * 0.9 / 400)
    planted = rng.normal(size=(150, 5)) * np.where(groups == "a", 2.0, 1.0)[:, None]
    found = attribution_disparity(planted, groups, ci=0.9)[("gap", "mean_abs_low")]
    assert (found > 0).all()


def test_group_of_one_row_has_no_interval():
    frame = attribution_disparity(np.arange(8.0).reshape(4, 2), ["a", "a", "a", "b"], ci=0.9)
    assert frame[("mean_abs_low", "b")].isna().all() and frame[("gap", "mean_abs_high")].isna().all()
    assert frame[("mean_abs_low", "a")].notna().all()


@pytest.mark.parametrize("ci", [0, 1, 1.5, "0.9"])
def test_bad_ci_is_refused(ci):
    with pytest.raises((ValueError, TypeError), match="ci"):
        attribution_disparity(np.zeros((4, 2)), [0, 0, 1, 1], ci=ci)
