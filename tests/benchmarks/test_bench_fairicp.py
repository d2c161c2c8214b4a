"""The FairICP benchmark's own arithmetic: paired differences, the summary tables, the reference
features, the cost section's count of multiply-adds."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
pytest.importorskip("fairlearn")
from benchmarks.bench_fairicp import (  # noqa: E402
    _compas,
    _summary,
    _synthetic,
    arithmetic_ratio,
    compas_reference_features,
    multiply_adds,
    paired_difference,
)
from fairkit.adversarial import FairICPClassifier  # noqa: E402


def test_paired_difference_is_the_t_interval_of_the_split_differences():
    ours, theirs = np.array([0.30, 0.25, 0.41, 0.28]), np.array([0.50, 0.52, 0.49, 0.61])
    differences = ours - theirs
    half_width = stats.t.ppf(0.975, 3) * differences.std(ddof=1) / 2
    result = paired_difference(ours, theirs)
    assert result["diff"] == pytest.approx(differences.mean())
    assert result["low"] == pytest.approx(differences.mean() - half_width)
    assert result["high"] == pytest.approx(differences.mean() + half_width)
    assert result["verdict"] == "real" and result["high"] < 0


def test_a_difference_whose_interval_holds_zero_is_noise():
    result = paired_difference([0.3, 0.5, 0.2, 0.6], [0.4, 0.4, 0.4, 0.4])
    assert result["low"] < 0 < result["high"] and result["verdict"] == "noise"


def test_one_split_or_an_undefined_value_gives_no_interval_and_equal_differences_a_point():
    assert paired_difference([0.3], [0.1]) == {"diff": pytest.approx(0.2), "low": None, "high": None,
                                                "verdict": "n/a"}
    constant = paired_difference([0.0, 0.0, 0.0], [0.5, 0.5, 0.5])  # e.g. DEO of two constants
    assert constant == {"diff": -0.5, "low": -0.5, "high": -0.5, "verdict": "real"}
    undefined = paired_difference([0.1, np.nan, 0.2], [0.3, 0.3, 0.3])  # a metric undefined on a split
    assert undefined["verdict"] == "n/a" and undefined["low"] is None


def _rows(n_splits=3):
    """Splits of FairICP at three μ, a weighted FairICP, Fair Dummies, EG and the constant."""
    rng = np.random.default_rng(0)
    rows = []
    for split in range(n_splits):
        for method, point, kpc in [("FairICP", 0.0, 0.04), ("FairICP", 0.9, 0.005), ("FairICP", 0.999, 0.0),
                                   ("FairICP[cells]", 0.9, 0.004), ("FairDummies", 0.9, 0.006),
                                   ("EG(MLP)", 0.02, 0.02), ("Constant", None, 0.0)]:
            rows.append({"dataset": "compas", "split": split, "method": method, "point": point,
                         "accuracy": 0.6 + rng.normal(0, 0.01), "kpc": kpc + rng.normal(0, 0.001),
                         "pvalue": 0.5, "deo": 0.5, "deo_low": 0.1, "deo_high": 1.0, "deo_floor_mean": 0.2,
                         "deo_floor_q95": 0.3, "deo_floor_pvalue": 0.5, "fit_s": 1.0})
    return rows


def test_summary_compares_every_fairicp_point_with_its_peers_over_the_same_splits():
    summary = _summary(_rows())
    curves = summary["curves"]["compas"]
    # the constant classifier (no operating point) is one row, not one per split
    assert [c["method"] for c in curves].count("Constant") == 1 and curves[-1]["splits"] == 3
    pairs = {(p["fairicp"], p["peer"]) for p in summary["paired"]["compas"]}
    assert ("FairICP μ=0.9", "EG(MLP) eps=0.02") in pairs and ("FairICP μ=0.9", "Constant") in pairs
    assert ("FairICP μ=0.9", "FairDummies μ=0.9") in pairs
    assert ("FairICP μ=0", "FairDummies μ=0.9") not in pairs  # Fair Dummies at the same μ only
    assert ("FairICP[cells] μ=0.9", "FairICP μ=0.9") in pairs  # weighted against rows at its μ
    assert all(p["splits"] == 3 for p in summary["paired"]["compas"])
    against_eg = next(p for p in summary["paired"]["compas"]
                      if (p["fairicp"], p["peer"]) == ("FairICP μ=0.9", "EG(MLP) eps=0.02"))
    assert against_eg["kpc"]["verdict"] == "real"
    assert against_eg["kpc"]["diff"] == pytest.approx(-0.015, abs=3e-3)
    steps = [(s["from"], s["to"]) for s in summary["mu_steps"]["compas"]]
    assert steps == [("FairICP μ=0", "FairICP μ=0.9"), ("FairICP μ=0.9", "FairICP μ=0.999")]
    verdicts = next(v for v in summary["verdicts"]["compas"] if v["metric"] == "kpc")
    assert verdicts["comparisons"] == len(summary["paired"]["compas"]) == verdicts["real"] + verdicts["noise"]


def test_reference_features_bin_priors_and_log_age():
    features = pd.DataFrame({"age": [18, 25, 60, 19], "age_cat": pd.Categorical(["a", "b", "c", "a"]),
                             "priors_count": [0, 1, 3, 4],
                             "c_charge_degree": pd.Categorical(["F", "M", "F", "M"])})
    reference = compas_reference_features(features)
    assert reference["priors"].tolist() == ["0", "1 to 3", "1 to 3", "More than 3"]
    np.testing.assert_allclose(reference["log_age"], np.log([1, 8, 43, 2]))
    assert list(reference.columns) == ["log_age", "age_cat", "priors", "c_charge_degree"]


@pytest.mark.data
def test_reference_features_on_compas_are_the_reference_repositorys_nine_columns(data_home):
    features, y, sensitive = _compas()
    reference = compas_reference_features(features)
    assert len(reference) == len(y) == 5278
    encoded = pd.get_dummies(reference)
    assert encoded.shape[1] == 9  # log-age, 3 age categories, 3 priors bins, 2 charge degrees
    assert not reference.isna().any().any()


@pytest.mark.parametrize("discriminator_steps", [1, 2])
def test_arithmetic_ratio_counts_what_torch_computes(discriminator_steps):
    """The cost section's arithmetic ratio equals torch's own count of a fit's matrix products."""
    from torch.utils.flop_counter import FlopCounterMode

    X, y, sensitive = _synthetic(600)
    flops = {}
    for mu in (0.0, 0.9):
        model = FairICPClassifier(mu=mu, max_epochs=2, batch_size=100, random_state=0,
                                  discriminator_steps=discriminator_steps)
        with FlopCounterMode(display=False) as counter:
            model.fit(X, y, sensitive_features=sensitive)
        flops[mu] = counter.get_total_flops()
    ratio = arithmetic_ratio(multiply_adds(model.net_.module_),
                                   multiply_adds(model.net_.discriminator_), discriminator_steps)
    assert ratio == pytest.approx(flops[0.9] / flops[0.0], rel=1e-12)
