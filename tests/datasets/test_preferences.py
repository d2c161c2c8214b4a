"""Mallows preference profiles (against the exact model probabilities) and the ranking loaders."""

import ast
import itertools
import shutil
from pathlib import Path

import numpy as np
import pytest

from fairkit.datasets import (
    DataFileError,
    fetch_csrankings,
    fetch_nba_coach_votes,
    fetch_sushi,
    make_preference_profiles,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "plot_selective_ranking.py"


def kendall_distance(ranks, center):
    return sum((ranks[i] - ranks[j]) * (center[i] - center[j]) < 0
               for i, j in itertools.combinations(range(len(center)), 2))


@pytest.mark.parametrize("dispersion", [0.3, 0.7, 1.0])
def test_rankings_follow_the_mallows_distribution(dispersion):
    n_judges, n_items = 40000, 4
    X, center = make_preference_profiles(n_judges, n_items, dispersion=dispersion, random_state=0)
    rankings, frequencies = np.unique(X, axis=0, return_counts=True)
    assert len(rankings) == 24  # every permutation of 4 items shows up
    weights = np.array([dispersion ** kendall_distance(r - 1, center) for r in rankings])
    expected = weights / weights.sum()
    # 4 standard errors of a binomial proportion with 40,000 draws.
    tolerance = 4 * np.sqrt(expected * (1 - expected) / n_judges)
    assert (np.abs(frequencies / n_judges - expected) < tolerance).all()


def test_zero_dispersion_gives_the_center():
    X, center = make_preference_profiles(5, 9, dispersion=0.0, random_state=1)
    np.testing.assert_array_equal(X, np.tile(center + 1, (5, 1)))
    assert sorted(center) == list(range(9))


def test_ranks_ratings_and_missing_entries():
    X, center = make_preference_profiles(2000, 10, dispersion=0.6, random_state=2)
    assert X.shape == (2000, 10)
    assert (np.sort(X, axis=1) == np.arange(1, 11)).all()  # each row a permutation
    assert np.corrcoef(X.mean(axis=0), center)[0, 1] > 0.95
    ratings, center = make_preference_profiles(2000, 10, kind="ratings", n_levels=4,
                                               dispersion=0.6, random_state=2)
    assert set(np.unique(ratings)) == {1, 2, 3, 4}
    np.testing.assert_array_equal(np.sort(ratings, axis=1)[0], [1, 1, 2, 2, 2, 3, 3, 4, 4, 4])
    assert np.corrcoef(ratings.mean(axis=0), center)[0, 1] < -0.95  # larger is better
    holes, _ = make_preference_profiles(2000, 10, missing_rate=0.3, random_state=2)
    assert abs(np.isnan(holes).mean() - 0.3) < 0.01


def test_profiles_are_reproducible():
    first = make_preference_profiles(30, 6, random_state=np.random.RandomState(4))
    second = make_preference_profiles(30, 6, random_state=np.random.RandomState(4))
    np.testing.assert_array_equal(first[0], second[0])
    np.testing.assert_array_equal(first[1], second[1])


@pytest.mark.parametrize(("params", "message"), [
    ({"n_judges": 0}, "n_judges"),
    ({"kind": "pairs"}, "kind"),
    ({"dispersion": 1.5}, "dispersion"),
    ({"missing_rate": 1.0}, "missing_rate"),
    ({"n_levels": 0}, "n_levels"),
])
def test_bad_parameters(params, message):
    with pytest.raises(ValueError, match=message):
        make_preference_profiles(**params)


@pytest.mark.data
def test_nba_ballots_are_judges_by_coaches(data_home):
    votes = fetch_nba_coach_votes(data_home=data_home)
    assert votes.data.shape == (100, 7) and len(votes.judge_names) == 100
    first_place = dict(zip(votes.item_names, (votes.data == 1).sum(axis=0), strict=True))
    assert max(first_place, key=first_place.get) == "Monty Williams"
    assert ((votes.data == 4).sum(axis=1) == 4).all()  # four coaches left off each ballot
    frame = fetch_nba_coach_votes(data_home=data_home, as_frame=True).data
    assert list(frame.columns) == list(votes.item_names) and frame.index.name == "judge"


@pytest.mark.data
def test_csrankings_are_areas_by_institutions(data_home):
    ranks = fetch_csrankings(data_home=data_home)
    assert ranks.data.shape == (5, 175)
    assert ranks.item_names[np.argmin(ranks.data.sum(axis=0))] == "CMU"


@pytest.mark.data
def test_sushi_orders_become_ranks(data_home):
    sushi = fetch_sushi(data_home=data_home)
    assert sushi.data.shape == (5000, 10)
    assert (np.sort(sushi.data, axis=1) == np.arange(1, 11)).all()
    mean_rank = dict(zip(sushi.item_names, sushi.data.mean(axis=0), strict=True))
    assert min(mean_rank, key=mean_rank.get) == "toro"  # fatty tuna, the favourite
    assert max(mean_rank, key=mean_rank.get) == "kappa_maki"


def test_missing_or_altered_files_raise(tmp_path, data_home):
    with pytest.raises(DataFileError, match="github.com/ustunb/spa"):
        fetch_nba_coach_votes(data_home=tmp_path, download_if_missing=False)
    (tmp_path / "ranking").mkdir()
    target = tmp_path / "ranking" / "nba_coach_2021_rankings.csv"
    shutil.copy(data_home / "ranking" / "nba_coach_2021_rankings.csv", target)
    with target.open("a") as f:
        f.write("\n")
    with pytest.raises(DataFileError, match="SHA-256"):
        fetch_nba_coach_votes(data_home=tmp_path)


@pytest.mark.data
def test_the_selective_ranking_example_writes_out_the_published_ballots(data_home):
    # The gallery example runs without data: its ballots must be those of the published file.
    constants = {node.targets[0].id: ast.literal_eval(node.value)
                 for node in ast.parse(EXAMPLE.read_text()).body
                 if isinstance(node, ast.Assign)
                 and getattr(node.targets[0], "id", None) in {"COACHES", "BALLOTS"}}
    votes = fetch_nba_coach_votes(data_home=data_home, download_if_missing=False)
    assert constants["COACHES"] == list(votes.item_names)
    published = ["".join(str(int(np.flatnonzero(ranks == place)[0])) for place in (1, 2, 3))
                 for ranks in votes.data]
    assert constants["BALLOTS"].split() == published
