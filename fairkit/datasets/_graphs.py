"""Loaders of social graphs with a sensitive attribute on each vertex (fair graph clustering)."""

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.sparse.csgraph import connected_components
from sklearn.utils import Bunch

from fairkit.datasets._base import fetch_file

__all__ = ["load_friendship_network", "load_lastfm_asia"]

_FRIENDSHIP_SOURCE = (
    "the SocioPatterns high-school data (sociopatterns.org, 'High school contact and friendship "
    "networks', Mastrandrea et al. 2015), cleaned as in "
    "github.com/jiiwang/scalable_fair_spectral_clustering (test/friendship)")
_LASTFM_SOURCE = ("SNAP, 'LastFM Asia Social Network' "
                  "(snap.stanford.edu/data/feather-lastfm-social.html)")


def _graph(n_nodes, heads, tails):
    """Symmetric 0/1 adjacency matrix of an undirected graph given by its edge list."""
    rows, cols = np.r_[heads, tails], np.r_[tails, heads]
    adjacency = sparse.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n_nodes, n_nodes))
    adjacency.data[:] = 1.0  # an edge listed twice is still one edge
    return adjacency


def _restrict(adjacency, keep, largest_component):
    """Keep the vertices in ``keep`` and, optionally, only the largest connected component."""
    keep = np.array(keep, dtype=bool)
    if largest_component:
        _, component = connected_components(adjacency[keep][:, keep], directed=False)
        inside = component == np.argmax(np.bincount(component))
        keep[np.flatnonzero(keep)[~inside]] = False
    return adjacency[keep][:, keep].tocsr(), keep


def _bunch(adjacency, frame, group_column, as_frame, descr):
    frame = frame.reset_index(drop=True)
    groups = frame[group_column] if as_frame else frame[group_column].to_numpy()
    return Bunch(adjacency=adjacency, groups=groups, node_ids=frame["node_id"].to_numpy(),
                 frame=frame if as_frame else None, DESCR=descr)


def load_friendship_network(*, data_home=None, largest_component=False, as_frame=False):
    """Load FacebookNet: Facebook friendships among students of a French high school, with gender.

    The vertices are the 322 students of the 2013 SocioPatterns high-school study whose
    gender is known; an edge joins two students who are Facebook friends (the 1412
    pairs marked 1 in ``friendship_clean.csv``). 167 students have no friend in the
    data. The usual fair-clustering setup (Kleindessner et al., 2019; Wang et al.,
    2023) keeps the largest connected component, 155 students (70 female, 85 male)
    joined by all 1412 edges: ``largest_component=True``.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Folder holding ``graphs/friendship/``; ``None`` reads ``FAIRKIT_DATA``.
    largest_component : bool, default=False
        Keep only the largest connected component.
    as_frame : bool, default=False
        Return ``groups`` as a pandas Series and the vertex table as ``frame``.

    Returns
    -------
    data : Bunch
        ``adjacency`` (scipy.sparse.csr_matrix of shape (n, n), symmetric 0/1),
        ``groups`` (gender, ``"F"`` or ``"M"``), ``node_ids`` (student ids of the
        study), ``frame`` (DataFrame with ``node_id`` and ``gender`` when ``as_frame``,
        else None) and ``DESCR``.

    Raises
    ------
    DataFileError
        If a file is missing or is not the published one.

    Examples
    --------
    >>> from fairkit.datasets import load_friendship_network
    >>> data = load_friendship_network(largest_component=True)  # doctest: +SKIP
    >>> data.adjacency.shape  # doctest: +SKIP
    (155, 155)
    """
    folder = "graphs/friendship"
    groups_path = fetch_file(f"{folder}/group_clean.csv",
                             "dd89bfcb1cb53d2e69f398e978093a992413bd3545717f2f8cecc923905bd822",
                             _FRIENDSHIP_SOURCE, data_home)
    edges_path = fetch_file(f"{folder}/friendship_clean.csv",
                            "6eadf517fe55872ed156f9f6fb3ff1637dbdf562586d0dad564859ecb81a5035",
                            _FRIENDSHIP_SOURCE, data_home)
    nodes = pd.read_csv(groups_path, header=None, names=["node_id", "gender"])
    nodes["gender"] = nodes["gender"].map({0: "F", 1: "M"})
    pairs = pd.read_csv(edges_path, header=None, names=["head", "tail", "friends"])
    pairs = pairs[pairs["friends"] == 1]
    position = pd.Series(np.arange(len(nodes)), index=nodes["node_id"])
    adjacency = _graph(len(nodes), position[pairs["head"]].to_numpy(),
                       position[pairs["tail"]].to_numpy())
    adjacency, keep = _restrict(adjacency, np.ones(len(nodes), dtype=bool), largest_component)
    return _bunch(adjacency, nodes[keep], "gender", as_frame, load_friendship_network.__doc__)


def load_lastfm_asia(*, data_home=None, min_country_size=None, largest_component=False,
                     as_frame=False):
    """Load LastFM Asia: mutual followers among LastFM users of Asian countries, with their country.

    7,624 users and 27,806 undirected edges (Rozemberczki and Sarkar, 2020); the
    sensitive attribute is the country (18 anonymised codes). The usual fair-clustering
    setup (Wang et al., 2023; Tonin et al., 2025) keeps the countries with at least 500
    users, then the largest connected component: ``min_country_size=500,
    largest_component=True`` gives 5,576 users in 6 countries joined by 19,587 edges.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Folder holding ``graphs/lastfm_asia/``; ``None`` reads ``FAIRKIT_DATA``.
    min_country_size : int, default=None
        Drop the users of countries with fewer users than this (counted in the whole
        graph), before taking the largest component.
    largest_component : bool, default=False
        Keep only the largest connected component.
    as_frame : bool, default=False
        Return ``groups`` as a pandas Series and the vertex table as ``frame``.

    Returns
    -------
    data : Bunch
        ``adjacency`` (scipy.sparse.csr_matrix of shape (n, n), symmetric 0/1),
        ``groups`` (country code, int), ``node_ids`` (user ids of the data set),
        ``frame`` (DataFrame with ``node_id`` and ``country`` when ``as_frame``, else
        None) and ``DESCR``.

    Raises
    ------
    DataFileError
        If a file is missing or is not the published one.

    Examples
    --------
    >>> from fairkit.datasets import load_lastfm_asia
    >>> data = load_lastfm_asia(min_country_size=500, largest_component=True)  # doctest: +SKIP
    >>> data.adjacency.shape, len(set(data.groups))  # doctest: +SKIP
    ((5576, 5576), 6)
    """
    folder = "graphs/lastfm_asia"
    edges_path = fetch_file(f"{folder}/lastfm_asia_edges.csv",
                            "548eacff61bff564ab5007831fa4a7a30e1a3956075ffd24e43310ed33555842",
                            _LASTFM_SOURCE, data_home)
    target_path = fetch_file(f"{folder}/lastfm_asia_target.csv",
                             "91f19215f6eca8321feec038bd32900cf13fd4f7e041a9976cf202807c72ac16",
                             _LASTFM_SOURCE, data_home)
    nodes = pd.read_csv(target_path).rename(columns={"id": "node_id", "target": "country"})
    nodes = nodes.sort_values("node_id", ignore_index=True)
    edges = pd.read_csv(edges_path)
    position = pd.Series(np.arange(len(nodes)), index=nodes["node_id"])
    adjacency = _graph(len(nodes), position[edges["node_1"]].to_numpy(),
                       position[edges["node_2"]].to_numpy())
    sizes = nodes["country"].map(nodes["country"].value_counts())
    keep = sizes >= (min_country_size or 0)
    adjacency, keep = _restrict(adjacency, keep, largest_component)
    return _bunch(adjacency, nodes[keep], "country", as_frame, load_lastfm_asia.__doc__)
