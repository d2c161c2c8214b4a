"""Run the benchmark suite and rebuild its report.

``python -m benchmarks run [NAME ...] [--quick]``
    run ``benchmarks/bench_NAME.py`` for the named benchmarks (default: all), each in its
    own process (so that its peak memory is its own), then rebuild ``benchmarks/README.md``.
    A ``--quick`` run writes its results and report to the scratch folder
    ``benchmarks/quick/`` instead, leaving the committed ones as they are;
    ``FAIRKIT_BENCH_RESULTS=DIR`` sends the results files to ``DIR`` (no report is rebuilt).
``python -m benchmarks report``
    rebuild ``benchmarks/README.md`` and its plots from ``benchmarks/results/*.json``.
``python -m benchmarks list``
    list the benchmarks.

Interrupting the runner (Ctrl-C, or SIGTERM) also ends the benchmark it is running.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from benchmarks._common import results_dir

HERE = Path(__file__).resolve().parent


def discover(bench_dir=HERE):
    """Return the names of the benchmarks in ``bench_dir`` (``bench_NAME.py`` gives ``NAME``)."""
    return sorted(path.stem.removeprefix("bench_") for path in Path(bench_dir).glob("bench_*.py"))


def run_one(name, *, quick=False, bench_dir=HERE):
    """Run one benchmark as ``python -m <package>.bench_NAME [--quick]``; return (exit code, seconds).

    Its output goes straight to the terminal. On success the runner records how it ran
    (``quick``, the command, the wall time) under ``"run"`` in its results file
    (``results_dir(quick)/NAME.json``).
    """
    bench_dir = Path(bench_dir)
    command = [sys.executable, "-m", f"{bench_dir.name}.bench_{name}", *(["--quick"] if quick else [])]
    start = time.perf_counter()
    code = subprocess.run(command, cwd=bench_dir.parent).returncode  # killed if the runner is interrupted
    seconds = time.perf_counter() - start
    path = results_dir(quick, bench_dir) / f"{name}.json"
    if code == 0 and path.is_file():
        results = json.loads(path.read_text())
        results["run"] = {"quick": quick, "seconds": round(seconds, 1),
                          "command": f"python -m benchmarks run {name}{' --quick' if quick else ''}"}
        path.write_text(json.dumps(results, indent=2) + "\n")
    elif code == 0:
        print(f"benchmark {name} wrote no {path}", file=sys.stderr)
        code = 1
    return code, seconds


def run(names=None, *, quick=False, bench_dir=HERE, report=True):
    """Run benchmarks one after the other; return the names of those that failed."""
    names = names or discover(bench_dir)
    failed = []
    for i, name in enumerate(names, 1):
        print(f"[{i}/{len(names)}] {name}{' (quick)' if quick else ''}", flush=True)
        code, seconds = run_one(name, quick=quick, bench_dir=bench_dir)
        print(f"[{i}/{len(names)}] {name}: {'done' if code == 0 else f'FAILED (exit {code})'} "
              f"in {seconds:.1f} s", flush=True)
        if code != 0:
            failed.append(name)
    if report and os.environ.get("FAIRKIT_BENCH_RESULTS"):
        print(f"report not rebuilt: the results are in FAIRKIT_BENCH_RESULTS={results_dir(quick, bench_dir)}")
    elif report:
        from benchmarks._report import write_report

        print(f"wrote {write_report(results_dir(quick, bench_dir).parent)}")
    return failed


def main(argv=None, bench_dir=HERE):
    """The command line; return its exit code."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run_parser = commands.add_parser("run", help="run benchmarks and rebuild the report")
    run_parser.add_argument("names", nargs="*", metavar="NAME", help="benchmarks to run (default: all)")
    run_parser.add_argument("--quick", action="store_true",
                            help="small sizes: a smoke test of minutes, written to benchmarks/quick/")
    run_parser.add_argument("--no-report", action="store_true", help="do not rebuild the report (README.md)")
    commands.add_parser("report", help="rebuild benchmarks/README.md from the results files")
    commands.add_parser("list", help="list the benchmarks")
    args = parser.parse_args(argv)

    available = discover(bench_dir)
    if args.command == "list":
        print("\n".join(available) if available else "no benchmarks")
        return 0
    if args.command == "report":
        from benchmarks._report import write_report

        print(f"wrote {write_report(bench_dir)}")
        return 0
    unknown = sorted(set(args.names) - set(available))
    if unknown:
        print(f"python -m benchmarks: unknown benchmark(s) {', '.join(unknown)}; available: "
              f"{', '.join(available) or 'none'}", file=sys.stderr)
        return 2
    failed = run(args.names, quick=args.quick, bench_dir=bench_dir, report=not args.no_report)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def cli(argv=None, bench_dir=HERE):
    """``python -m benchmarks``: :func:`main`, with SIGTERM ending it as Ctrl-C does.

    Both raise in the runner, and ``subprocess.run`` then kills the benchmark it runs, which
    would otherwise run on, competing with the next run's measurements.
    """
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    sys.exit(main(argv, bench_dir))


if __name__ == "__main__":
    cli()
