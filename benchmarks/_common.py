"""What every benchmark shares: timing by median of repeats, peak memory, machine info, results files.

A benchmark module ``benchmarks/bench_NAME.py`` defines ``run(quick=False) -> dict`` and
ends with ``if __name__ == "__main__": main(NAME, run)``; its results go to
``results_dir(quick)/NAME.json``: the committed ``benchmarks/results/`` for a full run, the
scratch folder ``benchmarks/quick/results/`` (ignored by git) for a ``--quick`` one, or the
folder named by ``FAIRKIT_BENCH_RESULTS`` when it is set. Speed claims are ratios against a
peer measured in the same run on the same data.
"""

import argparse
import json
import os
import platform
import statistics
import sys
import time
import tracemalloc
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np

BENCH_DIR = Path(__file__).resolve().parent
#: The packages whose versions every results file records.
DEFAULT_PACKAGES = ("fairkit", "numpy", "scipy", "scikit-learn")


def median_time(fn, repeats=3):
    """Call ``fn()`` ``repeats`` times; return (median seconds, last result)."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def peak_traced_memory(fn):
    """Call ``fn()`` once under tracemalloc; return (peak bytes of Python and NumPy allocations, result).

    Allocations made outside Python's allocator hooks (torch tensors, HiGHS, BLAS
    workspaces) are not counted; use :func:`max_rss` for the whole process.
    """
    tracemalloc.start()
    try:
        result = fn()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak, result


def max_rss():
    """Peak resident set size of this process so far, in bytes (Linux and macOS)."""
    import resource

    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss if sys.platform == "darwin" else rss * 1024


def rounded(value):
    """Floats to 4 significant digits, numpy scalars as Python ones, in nested dicts and lists.

    Benchmark figures vary far more between runs than in their fifth digit.
    """
    if isinstance(value, float | np.floating):
        return float(f"{value:.4g}")
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, dict):
        return {key: rounded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [rounded(item) for item in value]
    return value


def _version(package):
    try:
        return version(package)
    except PackageNotFoundError:
        return None


def machine_info(packages=DEFAULT_PACKAGES):
    """Describe the machine and the versions of ``packages``."""
    return {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "versions": {name: _version(name) for name in packages},
    }


def results_dir(quick, bench_dir=BENCH_DIR):
    """The folder of a run's results files.

    ``FAIRKIT_BENCH_RESULTS`` when it is set; otherwise ``bench_dir/results`` (the committed
    results) for a full run and ``bench_dir/quick/results`` (a scratch folder) for a quick
    run, so that a smoke test never overwrites the measured figures.
    """
    if os.environ.get("FAIRKIT_BENCH_RESULTS"):
        return Path(os.environ["FAIRKIT_BENCH_RESULTS"])
    return (bench_dir / "quick" if quick else bench_dir) / "results"


def write_results(name, payload, folder, packages=DEFAULT_PACKAGES):
    """Write ``payload`` (floats to 4 significant digits) with machine info to ``folder/NAME.json``.

    Returns the path.
    """
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(json.dumps({"benchmark": name, "machine": machine_info(packages), **rounded(payload)},
                               indent=2, default=float) + "\n")
    return path


def main(name, run, packages=DEFAULT_PACKAGES):
    """Command line of one benchmark: ``python -m benchmarks.bench_NAME [--quick]``."""
    parser = argparse.ArgumentParser(description=f"Run the {name} benchmark.")
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    args = parser.parse_args()
    path = write_results(name, run(quick=args.quick), results_dir(args.quick), packages)
    print(f"wrote {path}")
