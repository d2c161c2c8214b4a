"""The ``fairkit`` command: list plugins and run the demos.

``fairkit plugins [--json]``
    the discovered plugins, their versions and what each registers.
``fairkit demo [--quick] [NAME ...]``
    run the registered demos on embedded synthetic data and print one row per
    demo: the metric, its value without and with the fairness method, and the time.
``fairkit audit data.csv --target COL --sensitive COL[,COL] [--out report.html] ...``
    fit an unconstrained baseline and fair methods on a CSV file, print accuracy and
    the group fairness metrics, overall and by group, and write an HTML report
    (see :mod:`fairkit.audit`).
"""

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

from fairkit import __version__


def _table(headers, rows):
    """Format rows as a plain-text table with left-aligned columns."""
    cells = [headers, *[[str(cell) for cell in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
             for row in cells]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def _number(value):
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _status(plugin):
    """The status and the first line of the error: a table row holds one line (``--json`` has all)."""
    if plugin["error"] is None:
        return plugin["status"]
    first, *more = plugin["error"].strip().splitlines()
    return f"{plugin['status']}: {first}" + (" [...] (full text: fairkit plugins --json)" if more else "")


def _plugins(args):
    from fairkit.registry import list_plugins

    plugins = list_plugins()
    if args.json:
        print(json.dumps(plugins, indent=2))
        return 0
    kinds = ("estimators", "metrics", "datasets", "search_spaces", "demos")
    rows = [[p["name"], p["distribution"] or "-", p["version"] or "-", _status(p),
             ", ".join(f"{len(p[kind])} {kind.replace('_', ' ')}" for kind in kinds if p[kind]) or "-"]
            for p in plugins]
    print(_table(["plugin", "distribution", "version", "status", "registers"], rows))
    return 0


def _demo(args):
    from tqdm import tqdm

    from fairkit.registry import all_demos

    demos = all_demos()
    unknown = sorted(set(args.names) - set(demos))
    if unknown:
        print(f"fairkit demo: unknown demo(s) {', '.join(unknown)}; available: "
              f"{', '.join(demos) or 'none'}", file=sys.stderr)
        return 2
    names = args.names or list(demos)
    if not names:
        print("No demos are registered.")
        return 0
    rows = []
    for name in tqdm(names, desc="demos", unit="demo", file=sys.stderr, disable=args.no_progress):
        start = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = demos[name](quick=args.quick)
        except ImportError as exc:  # an optional dependency (e.g. torch) is not installed
            rows.append([name, "-", "-", "-", "-", f"skipped: {exc}"])
            continue
        elapsed = time.perf_counter() - start
        rows.append([name, result["metric"], _number(result["before"]), _number(result["after"]),
                     f"{elapsed:.2f}", result.get("note", "")])
    print(_table(["demo", "metric", "before", "after", "seconds", "note"], rows))
    return 0


def _check_out(path):
    """Raise AuditError unless a report can be written at ``path`` (checked before the audit runs)."""
    from fairkit.audit import AuditError

    folder = path.resolve().parent
    if path.is_dir():
        raise AuditError(f"--out {path} is a folder; give a file name, such as {path / 'report.html'}")
    if not folder.is_dir():
        problem = "is not a folder" if folder.exists() else "does not exist"
        raise AuditError(f"cannot write --out {path}: {path.parent} {problem}")
    target = path if path.exists() else folder
    if not os.access(target, os.W_OK):
        raise AuditError(f"cannot write --out {path}: no permission to write {target}; choose another place")


def _audit(args):
    from fairkit.audit import AuditError, audit

    try:
        if args.out is not None:
            _check_out(args.out)
        result = audit(args.data, target=args.target, sensitive=[c for c in args.sensitive.split(",") if c],
                       positive_label=args.positive_label, methods=args.method, metrics=args.metric,
                       test_size=args.test_size, tolerance=args.tolerance, random_state=args.random_state,
                       progress=not args.no_progress)
    except AuditError as exc:
        print(f"fairkit audit: {exc}", file=sys.stderr)
        return 2
    print(result.to_text())
    if args.out is not None:
        try:
            print(f"wrote {result.write_html(args.out)}")
        except OSError as exc:  # checked before the audit, but a disk can fill up meanwhile
            print(f"fairkit audit: cannot write the report to {args.out}: {exc.strerror or exc}",
                  file=sys.stderr)
            return 2
    return 1 if result.failures else 0


def build_parser():
    """Return the argument parser of the ``fairkit`` command."""
    parser = argparse.ArgumentParser(prog="fairkit", description="Fairness research methods as "
                                     "scikit-learn estimators.")
    parser.add_argument("--version", action="version", version=f"fairkit {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    plugins = commands.add_parser("plugins", help="list plugins and what they register")
    plugins.add_argument("--json", action="store_true", help="print JSON instead of a table")
    plugins.set_defaults(run=_plugins)

    demo = commands.add_parser("demo", help="run the registered demos on synthetic data")
    demo.add_argument("names", nargs="*", metavar="NAME", help="demos to run (default: all)")
    demo.add_argument("--quick", action="store_true", help="smaller data, about a second per demo")
    demo.add_argument("--no-progress", action="store_true", help="do not show a progress bar")
    demo.set_defaults(run=_demo)

    audit = commands.add_parser("audit", help="compare a baseline with fair methods on a CSV file")
    audit.add_argument("data", type=Path, help="CSV file with a header row")
    audit.add_argument("--target", required=True, metavar="COL", help="the column to predict")
    audit.add_argument("--sensitive", required=True, metavar="COL[,COL]",
                       help="sensitive column(s), comma-separated; several form intersectional groups")
    audit.add_argument("--positive-label", metavar="V", help="the target value that counts as positive")
    audit.add_argument("--method", action="extend", nargs="+", metavar="NAME",
                       help="fair methods (registered classifiers; default: RandomizedFairBOC)")
    audit.add_argument("--metric", action="extend", nargs="+", metavar="NAME",
                       help="metrics to report besides accuracy (default: every group fairness metric)")
    audit.add_argument("--test-size", type=float, default=0.3, help="held-out fraction (default 0.3)")
    audit.add_argument("--tolerance", type=float, default=0.05,
                       help="the smallest gap that matters; groups too small to measure it are named "
                            "(default 0.05)")
    audit.add_argument("--random-state", type=int, default=0, help="seed of the split and the methods")
    audit.add_argument("--out", type=Path, metavar="report.html", help="write an HTML report here")
    audit.add_argument("--no-progress", action="store_true", help="do not show a progress bar")
    audit.set_defaults(run=_audit)
    return parser


def main(argv=None):
    """Run the ``fairkit`` command; return its exit code."""
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
