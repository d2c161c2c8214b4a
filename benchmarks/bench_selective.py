"""SelectiveRanker's whole τ path against the reference package ``selectiverank`` (same data, same output).

Times fairkit's ``SelectiveRanker().path(X)`` from the raw profile (counting included)
and selectiverank's ``SelectiveRankAggregator(...)`` + ``fit_path()`` from its records
table (built beforehand, not timed), checks that both give the same rankings, and
reports speed-ups as medians of repeats measured in the same run. Also reports
fairkit's peak memory, to show it grows as n_items², not with n_judges x n_items².

Run from the repository root: ``python -m benchmarks.bench_selective [--quick]``.
"""

import time

import numpy as np

from benchmarks._common import main, max_rss, median_time, peak_traced_memory
from fairkit.datasets import load_csrankings, load_sushi, make_preference_profiles
from fairkit.ranking import SelectiveRanker
from fairkit.ranking._reference import (
    assert_same_path,
    reference_path,
    reference_records,
)

PACKAGES = ("fairkit", "numpy", "scipy", "scikit-learn", "selectiverank", "networkx", "pandas")

# name, (n_judges, n_items) or a loader, run the reference?
FULL = [
    ("csrankings", load_csrankings, True),
    ("sushi", load_sushi, True),
    ("mallows_5000x10", (5000, 10), True),
    ("mallows_1000x100", (1000, 100), True),
    ("mallows_100000x50", (100000, 50), True),
    ("mallows_1000x1000", (1000, 1000), False),
]
QUICK = [
    ("mallows_5000x10", (5000, 10), True),
    ("mallows_300x30", (300, 30), True),
    ("mallows_200x200", (200, 200), False),
]
# selectiverank holds one row per (judge, pair), about 80 bytes each at its peak.
REFERENCE_MAX_RECORDS = 2 * 10**8
# selectiverank is run again (up to the repeats of fairkit) only while it has taken less than this.
REFERENCE_REPEAT_SECONDS = 30


def _profile(source):
    if callable(source):
        return source().data
    n_judges, n_items = source
    return make_preference_profiles(n_judges, n_items, dispersion=0.9, random_state=0)[0]


def _reference_run(X, records):
    start = time.perf_counter()
    reference = reference_path(X, records=records)
    return time.perf_counter() - start, reference


def run_case(name, source, with_reference, repeats):
    X = _profile(source)
    n_judges, n_items = X.shape
    ranker = SelectiveRanker()
    seconds, path = median_time(lambda: ranker.path(X), repeats=repeats)
    peak, _ = peak_traced_memory(lambda: ranker.path(X))
    result = {"n_judges": n_judges, "n_items": n_items, "n_rankings": len(path),
              "fairkit_seconds": seconds, "fairkit_peak_bytes": peak,
              "fairkit_peak_over_n_items_squared_int64": peak / (8 * n_items**2)}
    n_records = n_judges * n_items * (n_items - 1) // 2
    if not with_reference or n_records > REFERENCE_MAX_RECORDS:
        result["selectiverank"] = (f"not run: {n_records:,} records (its input table and "
                                   "networkx graph do not fit this benchmark's budget)")
        return result
    records = reference_records(X)
    times = []
    while len(times) < repeats and sum(times) < REFERENCE_REPEAT_SECONDS:
        elapsed, reference = _reference_run(X, records)
        times.append(elapsed)
    assert_same_path(path, reference, n_judges)  # same output, or the benchmark fails
    result.update({"selectiverank_seconds": float(np.median(times)),
                   "selectiverank_repeats": len(times),
                   "speedup": float(np.median(times)) / seconds,
                   "same_output": True})
    return result


def run(quick=False):
    """Time the path on every case; return the results (written to benchmarks/results)."""
    cases = QUICK if quick else FULL
    results = {}
    for name, source, with_reference in cases:
        results[name] = run_case(name, source, with_reference, repeats=3)
        print(name, {key: value for key, value in results[name].items() if "seconds" in key
                     or key == "speedup"})
    results["max_rss_bytes"] = max_rss()
    return {"quick": quick, "cases": results, "notes": (
        "fairkit: SelectiveRanker().path(X) from the raw profile, counting included; "
        "selectiverank 0.0.1: SelectiveRankAggregator(data, prefs=records) + fit_path(), "
        "records built beforehand and not timed. Times are medians of 3 runs; selectiverank "
        "is repeated only while its runs total under 30 s. Rankings are checked equal at "
        "every level selectiverank records, reproducing its float threshold w <= (w/p)*p.")}


if __name__ == "__main__":
    main("selective", run, PACKAGES)
