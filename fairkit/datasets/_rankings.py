"""Loaders of the preference data of Selective Preference Aggregation (Kadekodi et al., ICML 2025).

The published files hold one row per item and one column per judge. The loaders
return the transpose, one row per judge and one column per item: the
``(n_judges, n_items)`` profile that :class:`fairkit.ranking.SelectiveRanker` takes.
"""

import numpy as np
import pandas as pd
from sklearn.utils import Bunch

from fairkit.datasets._sources import fetch_data_set

__all__ = ["fetch_csrankings", "fetch_nba_coach_votes", "fetch_sushi"]


def _bunch(table, as_frame, descr):
    """Turn an items x judges table of ranks into the Bunch of a judges x items profile."""
    frame = table.T.astype(np.float64)
    frame.index.name, frame.columns.name = "judge", "item"
    return Bunch(data=frame if as_frame else frame.to_numpy(),
                 frame=frame if as_frame else None,
                 item_names=np.asarray(frame.columns, dtype=object),
                 judge_names=np.asarray(frame.index, dtype=object),
                 DESCR=descr)


def _read(name, data_home, download_if_missing):
    (path,) = fetch_data_set(name, data_home, download_if_missing).values()
    return pd.read_csv(path, index_col="item_name", dtype={"item_name": str})


def fetch_nba_coach_votes(*, data_home=None, download_if_missing=True, as_frame=False):
    """Fetch the 2020-21 NBA Coach of the Year ballots: 100 voters ranking 7 coaches.

    Each voter ranked three coaches (1 best); the four coaches a voter left off
    share rank 4 (a tie).

    Parameters
    ----------
    data_home : str or path-like, default=None
        Folder holding ``ranking/nba_coach_2021_rankings.csv``; defaults to the
        ``FAIRKIT_DATA`` environment variable, else to ``~/fairkit_data``.
    download_if_missing : bool, default=True
        Download the file into ``data_home`` when it is missing (from the SPA repository,
        ``ustunb/spa`` on GitHub); otherwise a missing file is an error.
    as_frame : bool, default=False
        Return ``data`` as a DataFrame (judges as rows, coaches as columns).

    Returns
    -------
    data : Bunch
        ``data`` (n_judges=100, n_items=7) ranks (smaller is better), ``frame``
        (the DataFrame or None), ``item_names``, ``judge_names``, ``DESCR``.

    Raises
    ------
    fairkit.datasets.DataFileError
        If the file is missing and not downloaded (the message gives its URL), if its
        download failed, or if it is not the published file.

    Examples
    --------
    >>> from fairkit.datasets import fetch_nba_coach_votes
    >>> fetch_nba_coach_votes().data.shape  # doctest: +SKIP
    (100, 7)
    """
    return _bunch(_read("nba_coach_votes", data_home, download_if_missing), as_frame,
                  "NBA Coach of the Year 2020-21: 100 voters' top-3 ballots over 7 coaches; "
                  "unranked coaches share rank 4. Ranks: smaller is better.")


def fetch_csrankings(*, data_home=None, download_if_missing=True, as_frame=False):
    """Fetch CSRankings: 5 AI sub-areas ranking 175 institutions by research output.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Folder holding ``ranking/csrankings_rankings.csv``; defaults to the
        ``FAIRKIT_DATA`` environment variable, else to ``~/fairkit_data``.
    download_if_missing : bool, default=True
        Download the file into ``data_home`` when it is missing (from the SPA repository,
        ``ustunb/spa`` on GitHub); otherwise a missing file is an error.
    as_frame : bool, default=False
        Return ``data`` as a DataFrame (sub-areas as rows, institutions as columns).

    Returns
    -------
    data : Bunch
        ``data`` (n_judges=5, n_items=175) ranks (smaller is better; institutions
        without output in a sub-area tie at its last rank), ``frame``, ``item_names``,
        ``judge_names``, ``DESCR``.

    Raises
    ------
    fairkit.datasets.DataFileError
        If the file is missing and not downloaded (the message gives its URL), if its
        download failed, or if it is not the published file.

    Examples
    --------
    >>> from fairkit.datasets import fetch_csrankings
    >>> fetch_csrankings().data.shape  # doctest: +SKIP
    (5, 175)
    """
    return _bunch(_read("csrankings", data_home, download_if_missing), as_frame,
                  "CSRankings: 5 AI sub-areas (judges) ranking 175 institutions (items). "
                  "Ranks: smaller is better.")


def fetch_sushi(*, data_home=None, download_if_missing=True, as_frame=False):
    """Fetch the SUSHI preference data (Kamishima 2003): 5,000 complete rankings of 10 sushi.

    The published file is in *order* format, whatever its row labels say: column
    ``j`` lists judge ``j``'s items from most to least preferred, as item ids 0-9
    (0 ebi, 1 anago, 2 maguro, 3 ika, 4 uni, 5 ikura, 6 tamago, 7 toro,
    8 tekka_maki, 9 kappa_maki: the row labels, in id order). The loader turns each
    order into ranks. (Read as ranks, toro would be the least liked sushi; read as
    orders it is the most liked, as in Kamishima's data.)

    Parameters
    ----------
    data_home : str or path-like, default=None
        Folder holding ``ranking/sushi_rankings.csv``; defaults to the
        ``FAIRKIT_DATA`` environment variable, else to ``~/fairkit_data``.
    download_if_missing : bool, default=True
        Download the file into ``data_home`` when it is missing (from the SPA repository,
        ``ustunb/spa`` on GitHub); otherwise a missing file is an error.
    as_frame : bool, default=False
        Return ``data`` as a DataFrame (judges as rows, sushi as columns).

    Returns
    -------
    data : Bunch
        ``data`` (n_judges=5000, n_items=10) ranks 1-10 (smaller is better),
        ``frame``, ``item_names``, ``judge_names``, ``DESCR``.

    Raises
    ------
    fairkit.datasets.DataFileError
        If the file is missing and not downloaded (the message gives its URL), if its
        download failed, or if it is not the published file.

    Examples
    --------
    >>> from fairkit.datasets import fetch_sushi
    >>> fetch_sushi().data.shape  # doctest: +SKIP
    (5000, 10)
    """
    orders = _read("sushi", data_home, download_if_missing)
    ids = orders.to_numpy()  # ids[position, judge]
    ranks = np.empty_like(ids)
    np.put_along_axis(ranks, ids, np.arange(1, len(ids) + 1)[:, None], axis=0)
    table = pd.DataFrame(ranks, index=orders.index, columns=orders.columns)
    return _bunch(table, as_frame,
                  "SUSHI (Kamishima 2003): 5,000 judges' complete rankings of 10 sushi. "
                  "Ranks: smaller is better.")
