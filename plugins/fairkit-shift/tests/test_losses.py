"""Per-sample losses at both labels: hand-computed values, callables, and the errors of bad input."""

import numpy as np
import pytest

from fairkit_shift._losses import expected_loss, per_sample_losses

PROBA = np.array([0.1, 0.5, 0.6, 0.95])
Y = np.array([1, 0, 0, 1])


def test_zero_one_by_hand():
    loss0, loss1, observed = per_sample_losses("zero_one", PROBA, Y)
    # predictions 1{p > 0.5} = 0, 0, 1, 1 (0.5 is not above the threshold)
    np.testing.assert_array_equal(loss0, [0, 0, 1, 1])
    np.testing.assert_array_equal(loss1, [1, 1, 0, 0])
    np.testing.assert_array_equal(observed, [1, 0, 1, 0])


def test_zero_one_threshold():
    loss0, _, observed = per_sample_losses("zero_one", PROBA, Y, threshold=0.05)
    np.testing.assert_array_equal(loss0, [1, 1, 1, 1])
    np.testing.assert_array_equal(observed, [0, 1, 1, 0])


def test_brier_by_hand():
    loss0, loss1, observed = per_sample_losses("brier", PROBA, Y)
    np.testing.assert_allclose(loss0, [0.01, 0.25, 0.36, 0.9025])
    np.testing.assert_allclose(loss1, [0.81, 0.25, 0.16, 0.0025])
    np.testing.assert_allclose(observed, [0.81, 0.25, 0.36, 0.0025])


def test_without_labels_observed_is_none():
    assert per_sample_losses("brier", PROBA)[2] is None


def test_callable_log_loss():
    def log_loss(y_true, proba):
        return -np.where(y_true == 1, np.log(proba), np.log1p(-proba))

    loss0, loss1, observed = per_sample_losses(log_loss, PROBA, Y)
    np.testing.assert_allclose(loss0, -np.log(1 - PROBA))
    np.testing.assert_allclose(loss1, -np.log(PROBA))
    np.testing.assert_allclose(observed, [-np.log(0.1), -np.log(0.5), -np.log(0.4), -np.log(0.95)])


@pytest.mark.parametrize("bad", [lambda y, p: np.mean(p), lambda y, p: np.where(y == 1, p, np.inf)])
def test_callable_bad_output(bad):
    with pytest.raises(ValueError, match="one finite loss per sample"):
        per_sample_losses(bad, PROBA, Y)


def test_expected_loss_by_hand():
    np.testing.assert_allclose(expected_loss([0.2, 0.7], [1.0, 0.5], [0.0, 2.0]), [0.8, 0.15 + 1.4])


def test_expected_loss_of_the_true_probability_is_the_mean_loss():
    rng = np.random.default_rng(0)
    mu = np.full(200_000, 0.3)
    y = rng.binomial(1, mu)
    loss0, loss1, observed = per_sample_losses("brier", np.full(len(mu), 0.6), y)
    assert abs(observed.mean() - expected_loss(mu, loss0, loss1)[0]) < 4 * observed.std() / np.sqrt(len(mu))


@pytest.mark.parametrize(("loss", "proba", "y", "match"), [
    ("hinge", PROBA, Y, "loss must be one of"),
    ("brier", [0.2, 1.2], None, "probabilities in"),
    ("brier", [0.2, np.nan], None, "NaN"),
    ("brier", [[0.2, 0.3]], None, "1-D"),
    ("brier", ["a", "b"], None, "proba holds values that are not numbers"),
    ("brier", PROBA, [1, 2, 0, 1], "encoded 0/1"),
    ("brier", PROBA, ["yes", "no", "no", "yes"], "encoded 0/1"),
    ("brier", PROBA, [1, 0], "inconsistent numbers of samples"),
])
def test_bad_input(loss, proba, y, match):
    with pytest.raises(ValueError, match=match):
        per_sample_losses(loss, proba, y)


def test_bad_threshold():
    with pytest.raises(ValueError, match="threshold"):
        per_sample_losses("zero_one", PROBA, threshold=1.5)
