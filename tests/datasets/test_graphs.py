import shutil

import numpy as np
import pytest

from fairkit.datasets import DataFileError, fetch_friendship_network, fetch_lastfm_asia

pytestmark = pytest.mark.data


def _check_graph(adjacency):
    assert (adjacency != adjacency.T).nnz == 0
    assert adjacency.diagonal().sum() == 0 and set(np.unique(adjacency.data)) == {1.0}


def test_friendship_network(data_home):
    data = fetch_friendship_network(data_home=data_home)
    _check_graph(data.adjacency)
    assert data.adjacency.shape == (322, 322) and data.adjacency.nnz == 2 * 1412
    values, counts = np.unique(data.groups, return_counts=True)
    assert values.tolist() == ["F", "M"] and counts.tolist() == [146, 176]
    lcc = fetch_friendship_network(data_home=data_home, largest_component=True, as_frame=True)
    assert lcc.adjacency.shape == (155, 155) and lcc.adjacency.nnz == 2 * 1412
    assert lcc.groups.value_counts().to_dict() == {"M": 85, "F": 70}
    assert list(lcc.frame.columns) == ["node_id", "gender"] and len(lcc.node_ids) == 155
    assert np.all(np.asarray(lcc.adjacency.sum(axis=1)) > 0)


def test_lastfm_asia(data_home):
    data = fetch_lastfm_asia(data_home=data_home)
    _check_graph(data.adjacency)
    assert data.adjacency.shape == (7624, 7624) and data.adjacency.nnz == 2 * 27806
    assert len(np.unique(data.groups)) == 18
    usual = fetch_lastfm_asia(data_home=data_home, min_country_size=500, largest_component=True)
    assert usual.adjacency.shape == (5576, 5576) and usual.adjacency.nnz == 2 * 19587
    assert sorted(np.unique(usual.groups)) == [0, 3, 6, 10, 14, 17]
    # node ids follow the rows of the adjacency: neighbours of user 0 in the full graph
    assert data.adjacency[0].indices.tolist() == [747]


def test_missing_and_corrupt_files(data_home, tmp_path):
    with pytest.raises(DataFileError, match="SocioPatterns"):
        fetch_friendship_network(data_home=tmp_path, download_if_missing=False)
    folder = tmp_path / "graphs" / "lastfm_asia"
    shutil.copytree(data_home / "graphs" / "lastfm_asia", folder)
    with open(folder / "lastfm_asia_edges.csv", "a") as f:
        f.write("0,1\n")
    with pytest.raises(DataFileError, match="SHA-256"):
        fetch_lastfm_asia(data_home=tmp_path)
