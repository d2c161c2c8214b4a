"""make_fair_classification: reproducibility, the documented model, and its two bias knobs."""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

from fairkit.datasets import make_fair_classification
from fairkit.metrics import demographic_parity_difference

N = 20_000


def base_rate_gap(label_bias, feature_bias):
    _, y, group = make_fair_classification(N, 5, label_bias=label_bias, feature_bias=feature_bias,
                                           random_state=1)
    return y[group == 1].mean() - y[group == 0].mean()


def test_reproducible_and_seed_dependent():
    first = make_fair_classification(50, 3, random_state=7)
    again = make_fair_classification(50, 3, random_state=7)
    other = make_fair_classification(50, 3, random_state=8)
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0], other[0])


def test_shapes_and_frame():
    X, y, group = make_fair_classification(30, 4, n_groups=3, random_state=0)
    assert X.shape == (30, 4) and y.shape == group.shape == (30,)
    assert set(np.unique(y)) <= {0, 1} and set(np.unique(group)) <= {0, 1, 2}
    Xf, yf, gf = make_fair_classification(30, 4, n_groups=3, random_state=0, as_frame=True)
    assert isinstance(Xf, pd.DataFrame) and list(Xf.columns) == ["x0", "x1", "x2", "x3"]
    assert yf.name == "y" and gf.name == "group"
    np.testing.assert_array_equal(Xf.to_numpy(), X)
    np.testing.assert_array_equal(gf.to_numpy(), group)


def test_label_bias_sets_the_base_rate_gap():
    gaps = [base_rate_gap(b, 0.0) for b in (0.0, 0.5, 1.5)]
    assert abs(gaps[0]) < 0.03
    assert gaps[0] + 0.1 < gaps[1] < gaps[2] - 0.1
    assert base_rate_gap(-1.5, 0.0) == pytest.approx(-gaps[2], abs=0.03)


def test_feature_bias_moves_group_means_and_acts_through_x_only():
    for bias in (0.0, 1.0, 2.0):
        X, _, group = make_fair_classification(N, 5, label_bias=0.0, feature_bias=bias,
                                               random_state=2)
        distance = np.linalg.norm(X[group == 1].mean(0) - X[group == 0].mean(0))
        assert distance == pytest.approx(2 * bias, abs=0.06)
    gaps = [base_rate_gap(0.0, b) for b in (0.0, 0.5, 1.5)]
    assert abs(gaps[0]) < 0.03 and gaps[0] + 0.1 < gaps[1] < gaps[2] - 0.1


@pytest.mark.parametrize(("label_bias", "feature_bias"), [(0.0, 1.5), (1.0, 0.0), (1.0, 1.0)])
def test_posterior_is_the_documented_logistic_model(label_bias, feature_bias):
    # P(Y=1 | X, A) = sigmoid(class_sep * u.X + label_bias * s_A), s_A = 2A - 1 for two groups
    X, y, group = make_fair_classification(N, 3, label_bias=label_bias, feature_bias=feature_bias,
                                           class_sep=2.0, random_state=3)
    model = LogisticRegression(C=1e6).fit(np.c_[X, group], y)
    coef_x, coef_group = model.coef_[0, :3], model.coef_[0, 3]
    assert np.linalg.norm(coef_x) == pytest.approx(2.0, abs=0.15)
    assert coef_group == pytest.approx(2 * label_bias, abs=0.15)
    assert model.intercept_[0] == pytest.approx(-label_bias, abs=0.15)


def test_feature_bias_makes_a_blind_classifier_unfair():
    gaps = []
    for bias in (0.0, 2.0):
        X, y, group = make_fair_classification(4000, 5, label_bias=0.0, feature_bias=bias,
                                               random_state=4)
        y_pred = LogisticRegression().fit(X, y).predict(X)
        gaps.append(demographic_parity_difference(y, y_pred, sensitive_features=group))
    assert gaps[0] < 0.06 < 0.3 < gaps[1]


def test_group_weights_and_several_groups():
    _, y, group = make_fair_classification(N, 2, n_groups=3, group_weights=[2, 1, 1],
                                           label_bias=1.0, feature_bias=0.0, random_state=5)
    np.testing.assert_allclose(np.bincount(group) / N, [0.5, 0.25, 0.25], atol=0.015)
    rates = [y[group == g].mean() for g in range(3)]
    assert rates[0] < rates[1] < rates[2]
    assert rates[1] == pytest.approx(0.5, abs=0.03)  # the middle group has score 0


def test_bad_parameters_raise():
    with pytest.raises(ValueError, match="group_weights"):
        make_fair_classification(10, n_groups=2, group_weights=[1, 1, 1])
    with pytest.raises(ValueError, match="group_weights"):
        make_fair_classification(10, n_groups=2, group_weights=[1, -1])
    with pytest.raises(ValueError, match="n_samples"):
        make_fair_classification(0)
