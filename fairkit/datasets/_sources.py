"""The public data sets of fairkit's ``fetch_*`` loaders: their files, SHA-256 and download URLs.

Each file is downloaded from the URL listed here, the place where its publisher (or, for
the graphs, the repository of the cleaned files the papers use) serves it; GitHub files are
pinned to a commit, so the bytes behind a URL never change. ``DATA_SETS`` is looked up at
every call: replacing an entry (``monkeypatch.setitem(DATA_SETS, name, ...)``) makes the
loaders download from elsewhere, which is how the tests serve the files from a loopback
HTTP server.
"""

from typing import NamedTuple

from fairkit.datasets._base import DataFile, fetch_files

__all__ = ["DATA_SETS", "DataSet", "fetch_data_set"]

_UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases"
_RAW = "https://raw.githubusercontent.com"
_COMPAS = f"{_RAW}/propublica/compas-analysis/bafff5da3f2e45eca6c2d5055faad269defd135a"
_SPA = f"{_RAW}/ustunb/spa/5a810607b169d8d889416157175a1c633c71022d/data"
_SFSC = f"{_RAW}/jiiwang/scalable_fair_spectral_clustering/e9ae75fc05a1c74e1cf5f33c69e1cab308397982/test"


class DataSet(NamedTuple):
    """A public data set: what it is and where it is published, and its files."""

    source: str
    files: tuple[DataFile, ...]


DATA_SETS = {
    "adult": DataSet("Adult (UCI Machine Learning Repository, https://archive.ics.uci.edu/dataset/2/adult)", (
        DataFile("adult/adult.data", "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
                 f"{_UCI}/adult/adult.data"),
        DataFile("adult/adult.test", "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
                 f"{_UCI}/adult/adult.test"),
        DataFile("adult/adult.names", "c248284c0b5de30c9e1958d6cdd168a34a654758b620e68f46aefa83fc0a576a",
                 f"{_UCI}/adult/adult.names"),
    )),
    "compas": DataSet("COMPAS (ProPublica's compas-analysis repository, "
                      "https://github.com/propublica/compas-analysis)", (
        DataFile("compas/compas-scores-two-years.csv",
                 "c451db85908b2f7fef1d83203bedf6b71ecda0d5af468d82ae62178f91d0cc7d",
                 f"{_COMPAS}/compas-scores-two-years.csv"),
    )),
    "communities": DataSet("Communities and Crime (UCI Machine Learning Repository, "
                           "https://archive.ics.uci.edu/dataset/183/communities+and+crime)", (
        DataFile("communities/communities.data",
                 "09e0b5c07eae24c1efab19b2edee05e160e7f5743b6f31e31eec3d73624da2ea",
                 f"{_UCI}/communities/communities.data"),
        DataFile("communities/communities.names",
                 "f71e9049d2a8efe566e41be59cae27c84282a8d9d5c4bce4861490227f42c429",
                 f"{_UCI}/communities/communities.names"),
    )),
    "friendship_network": DataSet(
        "FacebookNet (the SocioPatterns high-school data, sociopatterns.org, Mastrandrea et al. 2015, "
        "as cleaned in https://github.com/jiiwang/scalable_fair_spectral_clustering)", (
            DataFile("graphs/friendship/friendship_clean.csv",
                     "6eadf517fe55872ed156f9f6fb3ff1637dbdf562586d0dad564859ecb81a5035",
                     f"{_SFSC}/friendship/friendship_clean.csv"),
            DataFile("graphs/friendship/group_clean.csv",
                     "dd89bfcb1cb53d2e69f398e978093a992413bd3545717f2f8cecc923905bd822",
                     f"{_SFSC}/friendship/group_clean.csv"),
        )),
    "lastfm_asia": DataSet(
        "LastFM Asia (SNAP, https://snap.stanford.edu/data/feather-lastfm-social.html; the files as "
        "copied in https://github.com/jiiwang/scalable_fair_spectral_clustering)", (
            DataFile("graphs/lastfm_asia/lastfm_asia_edges.csv",
                     "548eacff61bff564ab5007831fa4a7a30e1a3956075ffd24e43310ed33555842",
                     f"{_SFSC}/lastfm/lastfm_asia_edges.csv"),
            DataFile("graphs/lastfm_asia/lastfm_asia_target.csv",
                     "91f19215f6eca8321feec038bd32900cf13fd4f7e041a9976cf202807c72ac16",
                     f"{_SFSC}/lastfm/lastfm_asia_target.csv"),
        )),
    "nba_coach_votes": DataSet("NBA Coach of the Year 2020-21 ballots (the Selective Preference "
                               "Aggregation repository, https://github.com/ustunb/spa)", (
        DataFile("ranking/nba_coach_2021_rankings.csv",
                 "017c434119a46735d262e9d4e917bcf1d41ceb9b4164a59ebd050c8087986cd7",
                 f"{_SPA}/nba_coach_2021/nba_coach_2021_rankings.csv"),
    )),
    "csrankings": DataSet("CSRankings (the Selective Preference Aggregation repository, "
                          "https://github.com/ustunb/spa)", (
        DataFile("ranking/csrankings_rankings.csv",
                 "ffff60cc8712e026c74b34f98515aeba803c00a5bf6a6696308fc1aabcb9db7e",
                 f"{_SPA}/csrankings/csrankings_rankings.csv"),
    )),
    "sushi": DataSet("SUSHI (Kamishima 2003, as published in the Selective Preference Aggregation "
                     "repository, https://github.com/ustunb/spa)", (
        DataFile("ranking/sushi_rankings.csv",
                 "4a592f417c9f6754478377e27035b1dd7a70a3000b9021ae6690a0c50dc99e84",
                 f"{_SPA}/sushi/sushi_rankings.csv"),
    )),
}


def fetch_data_set(name, data_home, download_if_missing):
    """Return ``{file name: path}`` of the files of ``DATA_SETS[name]``, fetched and checked."""
    data_set = DATA_SETS[name]
    paths = fetch_files(data_set.files, data_set.source, data_home=data_home,
                        download_if_missing=download_if_missing)
    return {path.name: path for path in paths}
