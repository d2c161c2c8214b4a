"""Loaders of social graphs with a sensitive attribute on each vertex (fair graph clustering)."""

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.sparse.csgraph import connected_components
from sklearn.utils import Bunch

from fairkit.datasets._sources import fetch_data_set

__all__ = ["fetch_friendship_network", "fetch_lastfm_asia"]


def _graph(node_ids, heads, tails):
    """Symmetric 0/1 adjacency matrix over ``node_ids`` (in that order) of the edges ``heads``-``tails``."""
    position = pd.Series(np.arange(len(node_ids)), index=node_ids)
    heads, tails = position.loc[heads].to_numpy(), position.loc[tails].to_numpy()
    rows, cols = np.r_[heads, tails], np.r_[tails, heads]
    n_nodes = len(node_ids)
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


def fetch_friendship_network(*, data_home=None, download_if_missing=True, largest_component=False,
                             as_frame=False):
    """Fetch FacebookNet: Facebook friendships among students of a French high school, with gender.

    The vertices are the 322 students of the 2013 SocioPatterns high-school study whose
    gender is known; an edge joins two students who are Facebook friends (the 1412
    pairs marked 1 in ``friendship_clean.csv``). 167 students have no friend in the
    data. The usual fair-clustering setup (Kleindessner et al., 2019; Wang et al.,
    2023) keeps the largest connected component, 155 students (70 female, 85 male)
    joined by all 1412 edges: ``largest_component=True``.

    The files ``graphs/friendship/group_clean.csv`` and ``friendship_clean.csv`` are read
    from the data home; missing ones are downloaded from the s-FSC repository
    (``jiiwang/scalable_fair_spectral_clustering`` on GitHub, folder ``test/friendship``).

    Parameters
    ----------
    data_home : str or path-like, default=None
        Folder holding ``graphs/friendship/``; ``None`` reads ``FAIRKIT_DATA``, else
        ``~/fairkit_data``.
    download_if_missing : bool, default=True
        Download the missing files into ``data_home``; otherwise a missing file is an error.
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
        If files are missing and not downloaded (the message names them all, with their
        URLs), if a download failed, or if a file is not the published one.

    Examples
    --------
    >>> from fairkit.datasets import fetch_friendship_network
    >>> data = fetch_friendship_network(largest_component=True)  # doctest: +SKIP
    >>> data.adjacency.shape  # doctest: +SKIP
    (155, 155)
    """
    files = fetch_data_set("friendship_network", data_home, download_if_missing)
    nodes = pd.read_csv(files["group_clean.csv"], header=None, names=["node_id", "gender"])
    nodes["gender"] = nodes["gender"].map({0: "F", 1: "M"})
    pairs = pd.read_csv(files["friendship_clean.csv"], header=None, names=["head", "tail", "friends"])
    pairs = pairs[pairs["friends"] == 1]
    adjacency = _graph(nodes["node_id"], pairs["head"], pairs["tail"])
    adjacency, keep = _restrict(adjacency, np.ones(len(nodes), dtype=bool), largest_component)
    return _bunch(adjacency, nodes[keep], "gender", as_frame, fetch_friendship_network.__doc__)


def fetch_lastfm_asia(*, data_home=None, download_if_missing=True, min_country_size=None,
                      largest_component=False, as_frame=False):
    """Fetch LastFM Asia: mutual followers among LastFM users of Asian countries, with their country.

    7,624 users and 27,806 undirected edges (Rozemberczki and Sarkar, 2020); the
    sensitive attribute is the country (18 anonymised codes). The usual fair-clustering
    setup (Wang et al., 2023; Tonin et al., 2025) keeps the countries with at least 500
    users, then the largest connected component: ``min_country_size=500,
    largest_component=True`` gives 5,576 users in 6 countries joined by 19,587 edges.

    The files ``graphs/lastfm_asia/lastfm_asia_edges.csv`` and ``lastfm_asia_target.csv``
    (SNAP's) are read from the data home; missing ones are downloaded from their copy in
    the s-FSC repository (``jiiwang/scalable_fair_spectral_clustering`` on GitHub, folder
    ``test/lastfm``).

    Parameters
    ----------
    data_home : str or path-like, default=None
        Folder holding ``graphs/lastfm_asia/``; ``None`` reads ``FAIRKIT_DATA``, else
        ``~/fairkit_data``.
    download_if_missing : bool, default=True
        Download the missing files into ``data_home``; otherwise a missing file is an error.
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
        If files are missing and not downloaded (the message names them all, with their
        URLs), if a download failed, or if a file is not the published one.

    Examples
    --------
    >>> from fairkit.datasets import fetch_lastfm_asia
    >>> data = fetch_lastfm_asia(min_country_size=500, largest_component=True)  # doctest: +SKIP
    >>> data.adjacency.shape, len(set(data.groups))  # doctest: +SKIP
    ((5576, 5576), 6)
    """
    files = fetch_data_set("lastfm_asia", data_home, download_if_missing)
    nodes = pd.read_csv(files["lastfm_asia_target.csv"])
    nodes = nodes.rename(columns={"id": "node_id", "target": "country"})
    nodes = nodes.sort_values("node_id", ignore_index=True)
    edges = pd.read_csv(files["lastfm_asia_edges.csv"])
    adjacency = _graph(nodes["node_id"], edges["node_1"], edges["node_2"])
    sizes = nodes["country"].map(nodes["country"].value_counts())
    keep = sizes >= (min_country_size or 0)
    adjacency, keep = _restrict(adjacency, keep, largest_component)
    return _bunch(adjacency, nodes[keep], "country", as_frame, fetch_lastfm_asia.__doc__)
