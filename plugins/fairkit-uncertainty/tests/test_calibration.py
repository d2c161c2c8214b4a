"""Reliability tables, ECE, MCE and the calibration audit: oracles, known answers and the group view."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairkit_uncertainty import (
    calibration_audit,
    expected_calibration_error,
    max_calibration_error,
    reliability_table,
)


@st.composite
def predictions(draw):
    n = draw(st.integers(1, 80))
    k = draw(st.integers(2, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    proba = rng.dirichlet(np.full(k, draw(st.sampled_from([0.1, 1.0, 10.0]))), size=n)
    proba[: n // 5] = np.eye(k)[rng.integers(0, k, n // 5)]  # confidence exactly 1
    y = np.concatenate([np.arange(k), rng.integers(0, k, n)])
    proba = np.concatenate([np.eye(k), proba])
    return y, proba, draw(st.integers(1, 15))


def bins_by_loop(y, proba, n_bins):
    """Per-bin (count, accuracy, confidence), one sample at a time."""
    rows = [[0, 0.0, 0.0] for _ in range(n_bins)]
    for label, p in zip(y, proba, strict=True):
        confidence = p.max()
        b = n_bins - 1 if confidence == 1 else int(np.floor(confidence * n_bins))
        rows[b][0] += 1
        rows[b][1] += p.argmax() == label
        rows[b][2] += confidence
    return [(c, a / c, s / c) if c else (0, np.nan, np.nan) for c, a, s in rows]


@settings(max_examples=100, deadline=None)
@given(predictions())
def test_reliability_table_ece_and_mce_match_a_loop(prediction):
    y, proba, n_bins = prediction
    table = reliability_table(y, proba, n_bins=n_bins)
    expected = np.array(bins_by_loop(y, proba, n_bins), dtype=float)
    np.testing.assert_allclose(table[["count", "accuracy", "confidence"]].to_numpy(), expected, atol=1e-12)
    np.testing.assert_allclose(table["lower"], np.arange(n_bins) / n_bins)
    gaps = np.abs(expected[:, 1] - expected[:, 2])
    assert expected_calibration_error(y, proba, n_bins=n_bins) == pytest.approx(
        np.nansum(gaps * expected[:, 0]) / len(y), abs=1e-12)
    assert max_calibration_error(y, proba, n_bins=n_bins) == pytest.approx(np.nanmax(gaps), abs=1e-12)
    audit = calibration_audit(y, proba, n_bins=n_bins, tolerance=0.2)
    assert audit.passed == bool(np.nanmax(gaps) <= 0.2)


def test_known_answers():
    # confidences 0.9 (right), 0.8 (wrong), 0.65 (right), 0.55 (right) in 10 bins
    y = [1, 1, 0, 1]
    p = [0.9, 0.2, 0.35, 0.55]
    table = reliability_table(y, p)
    assert table["count"].tolist() == [0, 0, 0, 0, 0, 1, 1, 0, 1, 1]
    np.testing.assert_allclose(table["gap"].dropna(), [0.45, 0.35, 0.8, 0.1])
    assert expected_calibration_error(y, p) == pytest.approx((0.45 + 0.35 + 0.8 + 0.1) / 4)
    assert max_calibration_error(y, p) == pytest.approx(0.8)
    assert max_calibration_error(y, p, n_bins=1) == pytest.approx(abs(0.75 - (0.9 + 0.8 + 0.65 + 0.55) / 4))


def test_calibrated_predictions_pass_and_overconfident_ones_fail():
    rng = np.random.default_rng(0)
    confidence = rng.uniform(0.5, 1.0, 20_000)
    correct = rng.random(20_000) < confidence  # right with the stated probability
    y = np.where(correct, 1, 0)
    assert expected_calibration_error(y, confidence) < 0.01
    assert calibration_audit(y, confidence).passed
    sharpened = np.minimum(confidence + 0.2, 1.0)
    audit = calibration_audit(y, sharpened)
    assert not audit.passed and audit.bins["gap"].max() > 0.15
    assert audit.bins["passed"].tolist() == (~(audit.bins["gap"] > 0.15)).tolist()


def test_the_group_view_finds_a_diluted_region():
    # a calibrated majority, and a region (10%) that is always right but reports 60% confidence
    rng = np.random.default_rng(1)
    n = 20_000
    region = np.arange(n) < n // 10
    confidence = np.where(region, 0.6, rng.uniform(0.5, 1.0, n))
    y = np.where(region | (rng.random(n) < confidence), 1, 0)
    overall = calibration_audit(y, confidence)
    assert overall.passed and overall.groups is None  # diluted below the tolerance
    audit = calibration_audit(y, confidence, sensitive_features=pd.Series(region, name="region"))
    assert not audit.passed
    assert audit.groups.loc[True, "max_gap"] == pytest.approx(0.4)
    assert audit.groups.loc[True, "worst_bin"] == 6 and not audit.groups.loc[True, "passed"]
    assert audit.groups.loc[False, "passed"]
    assert audit.group_bins.index.names == ["region", "bin"]
    assert audit.group_bins.loc[(True, 6), "count"] == n // 10


def test_intersectional_groups_and_small_bins():
    y = [1, 1, 1, 1, 0, 0]
    p = [0.95, 0.95, 0.95, 0.95, 0.05, 0.45]  # one sample at confidence 0.55 and wrong
    sf = pd.DataFrame({"sex": ["f", "m", "f", "m", "f", "m"], "age": [1, 1, 2, 2, 1, 2]})
    audit = calibration_audit(y, p, sensitive_features=sf)
    assert not audit.passed  # the one wrong sample at 0.55 is a gap of 0.55
    assert audit.groups.index.names == ["sex", "age"] and len(audit.groups) == 4
    assert not audit.groups.loc[("m", 2), "passed"]
    assert calibration_audit(y, p, sensitive_features=sf, min_bin_count=2).passed


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"n_bins": 0}, "n_bins"), ({"tolerance": 1.5}, "tolerance"), ({"min_bin_count": 0}, "min_bin_count"),
     ({"sensitive_features": [0, 1]}, "sensitive_features has 2 rows")],
)
def test_bad_audit_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        calibration_audit([0, 1, 1], [0.2, 0.7, 0.9], **kwargs)


def test_probabilities_must_be_probabilities():
    with pytest.raises(ValueError, match="values in \\[0, 1\\]"):
        reliability_table([0, 1], [-0.1, 1.1])
    with pytest.raises(ValueError, match="NaN"):
        expected_calibration_error([0, 1], [np.nan, 0.5])


@pytest.mark.parametrize(("n_classes", "n_bins", "seed"), [(2, 10, 0), (3, 15, 1), (5, 7, 2)])
def test_ece_and_mce_agree_with_torchmetrics(n_classes, n_bins, seed):
    torch = pytest.importorskip("torch")
    classification = pytest.importorskip("torchmetrics.functional.classification")
    rng = np.random.default_rng(seed)
    proba = rng.dirichlet(np.full(n_classes, 0.7), size=3000)
    y = rng.integers(0, n_classes, 3000)
    for norm, ours in (("l1", expected_calibration_error), ("max", max_calibration_error)):
        peer = classification.multiclass_calibration_error(torch.tensor(proba), torch.tensor(y), n_classes,
                                                            n_bins=n_bins, norm=norm).item()
        assert ours(y, proba, n_bins=n_bins) == pytest.approx(peer, abs=1e-6)
