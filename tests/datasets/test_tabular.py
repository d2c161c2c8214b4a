"""Loaders of Adult, COMPAS and Communities: row counts, cleaning, checksums, missing files."""

import shutil

import numpy as np
import pandas as pd
import pytest

from fairkit.datasets import DataFileError, fetch_adult, fetch_communities, fetch_compas
from fairkit.metrics import group_summary

pytestmark = pytest.mark.data


@pytest.mark.parametrize(("subset", "rows", "positives"),
                         [("train", 32_561, 7_841), ("test", 16_281, 3_846),
                          ("all", 48_842, 11_687)])
def test_adult_rows_and_labels(data_home, subset, rows, positives):
    adult = fetch_adult(subset=subset, data_home=data_home)
    assert adult.data.shape == (rows, 14)
    assert adult.target.shape == (rows,) and set(np.unique(adult.target)) == {0, 1}
    assert adult.target.sum() == positives  # the test labels' trailing '.' is handled
    assert adult.sensitive.shape == (rows, 2)
    assert adult.frame is None and adult.target_names == ["<=50K", ">50K"]


def test_adult_frame_missing_values_and_codes(data_home):
    adult = fetch_adult(subset="train", data_home=data_home, as_frame=True)
    assert adult.data.shape == (32_561, 14) and "income" not in adult.data
    assert list(adult.sensitive.columns) == ["sex", "race"]
    assert adult.data.iloc[0]["age"] == 39 and adult.data.iloc[0]["workclass"] == "State-gov"
    # '?' is NaN: the UCI counts for the training part
    missing = adult.data.isna().sum()
    assert missing[["workclass", "occupation", "native-country"]].tolist() == [1836, 1843, 583]
    assert missing.sum() == 1836 + 1843 + 583
    assert list(adult.frame.columns) == [*adult.data.columns, "income"]
    # the same codes in both parts, from the categories of adult.names
    train, test = fetch_adult(subset="train", data_home=data_home), fetch_adult(
        subset="test", data_home=data_home)
    assert train.categories == test.categories
    assert len(train.categories["native-country"]) == 41
    column = train.feature_names.index("sex")
    np.testing.assert_array_equal(
        test.data[:, column], (test.sensitive[:, 0] == "Male").astype(float))
    # the first test row, read past the "|1x3 Cross validator" line
    assert test.data[0, 0] == 25 and test.sensitive[0].tolist() == ["Male", "Black"]


def test_compas_propublica_filter(data_home):
    compas = fetch_compas(data_home=data_home, as_frame=True)
    assert compas.data.shape == (6_172, 9)
    assert compas.target.mean() == pytest.approx(0.4551, abs=1e-4)
    # ProPublica's counts after the filter
    assert compas.sensitive["race"].value_counts().to_dict() == {
        "African-American": 3175, "Caucasian": 2103, "Hispanic": 509, "Other": 343, "Asian": 31,
        "Native American": 11}
    assert compas.sensitive["sex"].value_counts().to_dict() == {"Male": 4997, "Female": 1175}
    assert compas.compas_score.between(1, 10).all() and len(compas.compas_score) == 6_172
    assert "decile_score" not in compas.data and "two_year_recid" not in compas.data
    arrays = fetch_compas(data_home=data_home)
    assert arrays.data.shape == (6_172, 9) and not np.isnan(arrays.data).any()
    np.testing.assert_array_equal(arrays.target, compas.target.to_numpy())


def test_compas_score_audit_runs(data_home):
    compas = fetch_compas(data_home=data_home)
    high_risk = (compas.compas_score >= 5).astype(int)
    summary = group_summary(compas.target, high_risk, sensitive_features=compas.sensitive[:, 0])
    # ProPublica: black defendants who did not reoffend were flagged high risk far more often
    assert summary.loc["African-American", "false_positive_rate"] > \
        1.5 * summary.loc["Caucasian", "false_positive_rate"]


def test_communities(data_home):
    communities = fetch_communities(data_home=data_home, as_frame=True)
    assert communities.data.shape == (1_994, 122)
    assert communities.target.name == "ViolentCrimesPerPop"
    assert communities.target.between(0, 1).all()
    assert list(communities.sensitive.columns) == ["racepctblack", "racePctWhite", "racePctAsian",
                                                   "racePctHisp"]
    for dropped in ["state", "county", "community", "communityname", "fold"]:
        assert dropped not in communities.data
    missing = communities.data.isna().sum()
    assert (missing == 1675).sum() == 22 and missing["OtherPerCap"] == 1
    assert (missing > 0).sum() == 23
    arrays = fetch_communities(data_home=data_home)
    assert arrays.data.dtype == float and arrays.sensitive.shape == (1_994, 4)
    np.testing.assert_array_equal(arrays.data, communities.data.to_numpy())


@pytest.mark.parametrize(("loader", "folder", "altered"), [
    (fetch_adult, "adult", "adult.test"),
    (fetch_compas, "compas", "compas-scores-two-years.csv"),
    (fetch_communities, "communities", "communities.data"),
])
def test_altered_file_raises(data_home, tmp_path, loader, folder, altered):
    shutil.copytree(data_home / folder, tmp_path / folder)
    assert loader(data_home=tmp_path).data.shape[0] > 0  # an exact copy loads
    with open(tmp_path / folder / altered, "ab") as f:
        f.write(b"\n")
    with pytest.raises(DataFileError, match="SHA-256"):
        loader(data_home=tmp_path)


@pytest.mark.parametrize(("loader", "source"), [
    (fetch_adult, "archive.ics.uci.edu/dataset/2/adult"),
    (fetch_compas, "github.com/propublica/compas-analysis"),
    (fetch_communities, "archive.ics.uci.edu/dataset/183"),
])
def test_missing_file_names_the_source(tmp_path, monkeypatch, loader, source):
    with pytest.raises(DataFileError, match=source):
        loader(data_home=tmp_path, download_if_missing=False)
    monkeypatch.setenv("FAIRKIT_DATA", str(tmp_path))
    with pytest.raises(DataFileError, match=str(tmp_path)):
        loader(download_if_missing=False)


def test_bad_subset_raises(data_home):
    with pytest.raises(ValueError, match="subset"):
        fetch_adult(subset="validation", data_home=data_home)


def test_frames_feed_group_metrics(data_home):
    adult = fetch_adult(subset="test", data_home=data_home, as_frame=True)
    summary = group_summary(adult.target, adult.target, sensitive_features=adult.sensitive)
    assert summary["count"].sum() == 16_281
    assert isinstance(summary.index, pd.MultiIndex) and summary.index.names == ["sex", "race"]
