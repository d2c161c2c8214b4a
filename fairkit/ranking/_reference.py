"""Adapter to the reference implementation, the ``selectiverank`` package (module ``spa``).

The tests use it as an oracle and the benchmark as the peer; nothing in fairkit
depends on it. ``pip install selectiverank networkx dill`` (the ``test`` and ``bench``
extras). Two quirks of selectiverank 0.0.1 are handled here:

* it relabels preferences with ``df.pref.replace(..., inplace=True)``, a no-op under
  pandas >= 3 copy-on-write (every weight then equals the number of judges), so the
  records are passed already labelled;
* it prints, shows a progress bar and warns; all three are silenced.
"""

import contextlib
import io
import warnings

import numpy as np
import pandas as pd

__all__ = [
    "assert_same_path",
    "reference_aggregator",
    "reference_fit",
    "reference_lookup",
    "reference_path",
    "reference_records",
    "reference_tiers",
]

_LABELS = np.array(["prefer_2", "prefer_none", "prefer_1"], dtype=object)  # sign -1, 0, +1


@contextlib.contextmanager
def _quiet():
    with (contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()),
          warnings.catch_warnings()):
        warnings.simplefilter("ignore")
        yield


def reference_records(X, input_type="ranks"):
    """The profile as selectiverank's records: judge_id, item_id_1 < item_id_2, labelled pref.

    Missing answers are left out; selectiverank counts them as dissent from both orders.
    """
    X = np.asarray(X, dtype=np.float64)
    n_judges, n_items = X.shape
    first, second = np.triu_indices(n_items, 1)
    sign = np.sign(X[:, second] - X[:, first]).ravel()  # +1: item_id_1 has the smaller rank
    if input_type == "ratings":
        sign = -sign
    answered = ~np.isnan(sign)
    return pd.DataFrame({
        "judge_id": np.repeat(np.arange(n_judges, dtype=np.int32), len(first))[answered],
        "item_id_1": np.tile(first.astype(np.int32), n_judges)[answered],
        "item_id_2": np.tile(second.astype(np.int32), n_judges)[answered],
        "pref": _LABELS[sign[answered].astype(np.int8) + 1],
    })


def _dataset(n_judges, n_items):
    """A minimal PreferenceDataset: only its judges and items are used (records go apart)."""
    from spa.data import PreferenceDataset

    first, second = np.triu_indices(n_items, 1)
    stub = pd.DataFrame({"judge_id": 0, "item_id_1": first, "item_id_2": second, "pref": 0})
    items = pd.DataFrame({"item_id": list(range(n_items)),
                          "item_name": [str(i) for i in range(n_items)]})
    judges = pd.DataFrame({"judge_id": list(range(n_judges))})
    return PreferenceDataset(prefs=stub, items=items, judges=judges, prefs_dict={}, judge_prefs={},
                             preference_type="rankings")


def reference_aggregator(X, input_type="ranks", records=None):
    """selectiverank's ``SelectiveRankAggregator`` on the profile ``X`` (or on ``records``)."""
    from spa.spa import SelectiveRankAggregator

    n_judges, n_items = np.shape(X)
    records = reference_records(X, input_type) if records is None else records
    with _quiet():
        return SelectiveRankAggregator(_dataset(n_judges, n_items), prefs=records)


def reference_tiers(ranking, n_items):
    """A selectiverank ``Ranking`` as a tier array (0 = best)."""
    tier_of_item = np.full(n_items, -1, dtype=np.int64)
    tier_of_item[ranking.ranks["item_id"].to_numpy()] = ranking.ranks["rank"].to_numpy() - 1
    return tier_of_item


def reference_path(X, input_type="ranks", records=None):
    """selectiverank's solution path on ``X``: ``{tau: tier_of_item}`` (empty if it finds none)."""
    aggregator = reference_aggregator(X, input_type, records)
    with _quiet():
        result = aggregator.fit_path()
    if result is None:
        return {}
    n_items = np.shape(X)[1]
    return {float(tau): reference_tiers(ranking, n_items)
            for tau, ranking in result[0].rankings.items()}


def reference_fit(X, tau, input_type="ranks"):
    """selectiverank's ranking at dissent level ``tau`` (``fit``), as a tier array."""
    aggregator = reference_aggregator(X, input_type)
    with _quiet():
        ranking, _ = aggregator.fit(tau)
    return reference_tiers(ranking, np.shape(X)[1])


def reference_lookup(X, tau, input_type="ranks"):
    """The ranking selectiverank's solution path returns for ``tau`` (``RankingPath[tau]``)."""
    aggregator = reference_aggregator(X, input_type)
    with _quiet():
        path, _ = aggregator.fit_path()
        ranking = path[tau]
    return reference_tiers(ranking, np.shape(X)[1])


def assert_same_path(path, reference, n_judges):
    """Assert that a :class:`SelectivePath` holds the reference's rankings (``reference_path``).

    The reference keeps edges of support ``w <= (w / p) * p`` computed in floating
    point, so its ranking at a recorded level ``tau`` is fairkit's at
    ``floor(tau * p) / p``; where no level is affected, the levels at which the tiers
    change must be the same too (the reference also records its first candidate level,
    fairkit records 0).
    """
    for tau, ranking in reference.items():
        np.testing.assert_array_equal(path.at(np.floor(tau * n_judges) / n_judges), ranking,
                                      err_msg=f"different rankings at tau={tau}")
    first = min(reference)
    if all(np.floor(tau * n_judges) == round(tau * n_judges) for tau in reference):
        assert {tau for tau in path.taus if tau > first} == set(reference) - {first}
