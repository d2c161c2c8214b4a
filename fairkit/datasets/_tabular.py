"""Loaders of the classic tabular fairness data sets: Adult, COMPAS, Communities and Crime.

Each takes the published files from the data home (``data_home=`` or ``FAIRKIT_DATA``),
downloading the missing ones (see ``_sources.py`` for their URLs), checks their SHA-256 and
applies the usual cleaning, all with vectorized pandas.
"""

import re

import numpy as np
import pandas as pd
from sklearn.utils import Bunch

from fairkit.datasets._sources import fetch_data_set

__all__ = ["fetch_adult", "fetch_communities", "fetch_compas"]


def _bunch(frame, target, sensitive_columns, as_frame, descr, **extra):
    """A Bunch in scikit-learn's layout; categorical columns become codes when not ``as_frame``."""
    sensitive = frame[sensitive_columns]
    bunch = Bunch(feature_names=list(frame.columns), DESCR=descr, **extra)
    if as_frame:
        bunch.update(data=frame, target=target, sensitive=sensitive,
                     frame=pd.concat([frame, target], axis=1))
        return bunch
    categorical = [c for c in frame.columns if isinstance(frame[c].dtype, pd.CategoricalDtype)]
    codes = frame.assign(**{c: frame[c].cat.codes.astype(float).where(frame[c].notna())
                            for c in categorical})
    bunch.update(data=codes.to_numpy(dtype=float), target=target.to_numpy(),
                 sensitive=sensitive.to_numpy(), frame=None,
                 categories={c: list(frame[c].cat.categories) for c in categorical})
    for key, value in extra.items():
        if isinstance(value, pd.Series):
            bunch[key] = value.to_numpy()
    return bunch


# ---------------------------------------------------------------------------------------------
# Adult


def _adult_schema(names_path):
    """Column names and categories, in order, from the ``attribute: values.`` lines of adult.names."""
    text = names_path.read_text(encoding="latin-1")
    attributes = re.findall(r"^([a-z-]+): (.+)\.\s*$", text, flags=re.MULTILINE)
    return {name: None if values == "continuous" else values.split(", ")
            for name, values in attributes}


def fetch_adult(*, subset="all", data_home=None, download_if_missing=True, as_frame=False):
    """Fetch the UCI Adult (Census Income) data set: does income exceed $50K a year?

    Reads the original UCI files ``adult/adult.data`` (training part, 32,561 rows),
    ``adult/adult.test`` (test part, 16,281 rows) and ``adult/adult.names`` from the data
    home, downloading the missing ones from
    ``https://archive.ics.uci.edu/ml/machine-learning-databases/adult/``, and cleans them as usual:
    spaces after commas are dropped, ``?`` is a missing value (NaN), the first line
    of ``adult.test`` (``|1x3 Cross validator``) is skipped and the trailing ``.``
    of its labels removed. Rows with missing values are kept. The categories of
    each categorical column are those listed in ``adult.names``, sorted (identical for
    every ``subset``, so the codes of the training and test parts agree).

    Parameters
    ----------
    subset : {"all", "train", "test"}, default="all"
        Both parts (48,842 rows, training part first), or one of them.
    data_home : str or path-like, default=None
        Folder holding ``adult/``; ``None`` uses ``FAIRKIT_DATA``, else ``~/fairkit_data``.
    download_if_missing : bool, default=True
        Download the missing files into ``data_home``; otherwise a missing file is an error.
    as_frame : bool, default=False
        Return pandas objects (categorical columns of dtype ``category``).

    Returns
    -------
    bunch : Bunch
        ``data`` (14 features, ``sex`` and ``race`` included; without ``as_frame`` a
        float array where categorical columns hold the codes of ``categories``),
        ``target`` (1 when income is ``>50K``, else 0), ``sensitive`` (columns
        ``sex`` and ``race``), ``feature_names``, ``target_names``, ``frame``
        (data and target, or None), ``categories`` (without ``as_frame``), ``DESCR``.

    Raises
    ------
    DataFileError
        If files are missing and not downloaded (the message names them all, with their
        URLs), if a download failed (naming its URL), or if a file is altered.

    Examples
    --------
    >>> from fairkit.datasets import fetch_adult
    >>> adult = fetch_adult(subset="test", as_frame=True)  # doctest: +SKIP
    >>> adult.data.shape, adult.target.mean().round(3)  # doctest: +SKIP
    ((16281, 14), np.float64(0.236))
    """
    parts = {"all": ["adult.data", "adult.test"], "train": ["adult.data"], "test": ["adult.test"]}
    if subset not in parts:
        raise ValueError(f"subset must be 'all', 'train' or 'test', got {subset!r}.")
    files = fetch_data_set("adult", data_home, download_if_missing)
    schema = _adult_schema(files["adult.names"])
    categories = {name: pd.CategoricalDtype(sorted(values)) for name, values in schema.items()
                  if values is not None}
    frame = pd.concat([_read_adult_part(files[name],
                                        schema, categories, skiprows=int(name == "adult.test"))
                       for name in parts[subset]], ignore_index=True)
    target = frame.pop("income").isin([">50K", ">50K."]).astype(np.int64)
    return _bunch(frame, target, ["sex", "race"], as_frame, _ADULT_DESCR,
                  target_names=["<=50K", ">50K"])


_ADULT_DESCR = """\
Adult (Census Income), UCI Machine Learning Repository (Becker & Kohavi 1996).
48,842 people from the 1994 US Census (32,561 training + 16,281 test rows), 14 features.
Target: income above $50K a year (1) or not (0). Sensitive features: sex, race.
'?' marks missing values (workclass, occupation, native-country); rows are kept.
Source: https://archive.ics.uci.edu/dataset/2/adult
(files from https://archive.ics.uci.edu/ml/machine-learning-databases/adult/)
"""


def _read_adult_part(path, schema, categories, skiprows):
    part = pd.read_csv(path, header=None, names=[*schema, "income"], skipinitialspace=True,
                       na_values="?", skiprows=skiprows,
                       dtype={name: "category" for name in [*categories, "income"]})
    labels = set(part["income"].cat.categories)
    if not labels <= {"<=50K", ">50K", "<=50K.", ">50K."}:
        raise ValueError(f"Unexpected income labels in {str(path)!r}: {sorted(labels)}.")
    return part.astype(categories)


# ---------------------------------------------------------------------------------------------
# COMPAS

_COMPAS_FEATURES = ["sex", "age", "age_cat", "race", "juv_fel_count", "juv_misd_count",
                    "juv_other_count", "priors_count", "c_charge_degree"]


def fetch_compas(*, data_home=None, download_if_missing=True, as_frame=False):
    """Fetch ProPublica's COMPAS two-year recidivism data (Broward County, 2013-2014).

    Reads ``compas/compas-scores-two-years.csv`` (7,214 rows) from the data home,
    downloading it from ProPublica's ``compas-analysis`` repository on GitHub when
    it is missing, and applies
    ProPublica's filter, leaving 6,172 rows: the COMPAS screening within 30 days of
    the arrest (``|days_b_screening_arrest| <= 30``), a known recidivism outcome
    (``is_recid != -1``), no ordinary traffic offence (``c_charge_degree != "O"``)
    and a COMPAS score (``score_text != "N/A"``).

    The features are the defendant's demographics and criminal history, as in the
    usual fairness studies: ``sex, age, age_cat, race, juv_fel_count,
    juv_misd_count, juv_other_count, priors_count, c_charge_degree``. COMPAS's own
    risk score is not a feature; it is returned as ``compas_score`` so that the
    tool itself can be audited.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Folder holding ``compas/``; ``None`` uses ``FAIRKIT_DATA``, else ``~/fairkit_data``.
    download_if_missing : bool, default=True
        Download the file into ``data_home`` when it is missing; otherwise that is an error.
    as_frame : bool, default=False
        Return pandas objects (categorical columns of dtype ``category``).

    Returns
    -------
    bunch : Bunch
        ``data`` (the 9 features; without ``as_frame`` a float array where
        categorical columns hold the codes of ``categories``), ``target``
        (``two_year_recid``: 1 if re-arrested within two years), ``sensitive``
        (columns ``race`` and ``sex``), ``compas_score`` (the COMPAS decile score,
        1-10), ``feature_names``, ``target_names``, ``frame`` (data and target, or
        None), ``categories`` (without ``as_frame``), ``DESCR``.

    Raises
    ------
    DataFileError
        If the file is missing and not downloaded (the message gives its URL), if its
        download failed, or if it is altered.

    Examples
    --------
    >>> from fairkit.datasets import fetch_compas
    >>> compas = fetch_compas(as_frame=True)  # doctest: +SKIP
    >>> compas.data.shape, compas.sensitive.columns.tolist()  # doctest: +SKIP
    ((6172, 9), ['race', 'sex'])
    """
    files = fetch_data_set("compas", data_home, download_if_missing)
    raw = pd.read_csv(files["compas-scores-two-years.csv"], keep_default_na=False, na_values=[""])
    keep = (raw["days_b_screening_arrest"].between(-30, 30) & (raw["is_recid"] != -1)
            & (raw["c_charge_degree"] != "O") & (raw["score_text"] != "N/A"))
    raw = raw.loc[keep].reset_index(drop=True)
    frame = raw[_COMPAS_FEATURES].astype({c: "category" for c in
                                          ["sex", "age_cat", "race", "c_charge_degree"]})
    return _bunch(frame, raw["two_year_recid"].astype(np.int64), ["race", "sex"], as_frame,
                  _COMPAS_DESCR, target_names=["no recidivism", "recidivism"],
                  compas_score=raw["decile_score"].rename("compas_score"))


_COMPAS_DESCR = """\
COMPAS recidivism data, ProPublica (Angwin, Larson, Mattu & Kirchner 2016, "Machine Bias").
Defendants screened with COMPAS in Broward County, Florida, 2013-2014; 6,172 rows after
ProPublica's filter. Target: two_year_recid. Sensitive features: race, sex.
Source: https://github.com/propublica/compas-analysis (compas-scores-two-years.csv)
"""


# ---------------------------------------------------------------------------------------------
# Communities and Crime

_COMMUNITIES_NOT_PREDICTIVE = ["state", "county", "community", "communityname", "fold"]
_COMMUNITIES_RACE = ["racepctblack", "racePctWhite", "racePctAsian", "racePctHisp"]


def fetch_communities(*, data_home=None, download_if_missing=True, as_frame=False):
    """Fetch the UCI Communities and Crime data set (1,994 US communities).

    Reads ``communities/communities.data`` with the column names declared in
    ``communities/communities.names`` from the data home, downloading the missing files
    from ``https://archive.ics.uci.edu/ml/machine-learning-databases/communities/``;
    ``?`` is a missing value (NaN, kept: 22
    police-related columns miss most values, ``OtherPerCap`` one). The five
    columns the ``.names`` file calls non-predictive (``state, county, community,
    communityname, fold``) are dropped, leaving 122 features, all normalised to
    [0, 1] by the data's authors. The target is ``ViolentCrimesPerPop``, a
    continuous rate in [0, 1] (threshold it for classification).

    The sensitive features are the race percentage columns ``racepctblack,
    racePctWhite, racePctAsian, racePctHisp`` (continuous; they stay among the
    features). Group metrics need groups, e.g. ``sensitive["racepctblack"] > 0.06``.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Folder holding ``communities/``; ``None`` uses ``FAIRKIT_DATA``, else ``~/fairkit_data``.
    download_if_missing : bool, default=True
        Download the missing files into ``data_home``; otherwise a missing file is an error.
    as_frame : bool, default=False
        Return pandas objects.

    Returns
    -------
    bunch : Bunch
        ``data`` (122 features), ``target`` (``ViolentCrimesPerPop``),
        ``sensitive`` (the four race columns), ``feature_names``, ``frame`` (data
        and target, or None), ``DESCR``.

    Raises
    ------
    DataFileError
        If files are missing and not downloaded (the message names them all, with their
        URLs), if a download failed (naming its URL), or if a file is altered.

    Examples
    --------
    >>> from fairkit.datasets import fetch_communities
    >>> communities = fetch_communities()  # doctest: +SKIP
    >>> communities.data.shape, communities.sensitive.shape  # doctest: +SKIP
    ((1994, 122), (1994, 4))
    """
    files = fetch_data_set("communities", data_home, download_if_missing)
    names_text = files["communities.names"].read_text(encoding="latin-1")
    columns = re.findall(r"^@attribute (\S+) \S+", names_text, flags=re.MULTILINE)
    frame = pd.read_csv(files["communities.data"], header=None, names=columns, na_values="?")
    frame = frame.drop(columns=_COMMUNITIES_NOT_PREDICTIVE)
    target = frame.pop("ViolentCrimesPerPop")
    return _bunch(frame, target, _COMMUNITIES_RACE, as_frame, _COMMUNITIES_DESCR)


_COMMUNITIES_DESCR = """\
Communities and Crime, UCI Machine Learning Repository (Redmond & Baveja 2002).
1,994 US communities; socio-economic data from the 1990 US Census, law enforcement data
from the 1990 LEMAS survey, crime data from the 1995 FBI UCR. 122 predictive features
normalised to [0, 1]; '?' marks missing values. Target: ViolentCrimesPerPop.
Sensitive features: racepctblack, racePctWhite, racePctAsian, racePctHisp.
Source: https://archive.ics.uci.edu/dataset/183/communities+and+crime
(files from https://archive.ics.uci.edu/ml/machine-learning-databases/communities/)
"""
