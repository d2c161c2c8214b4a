"""The ``fairkit`` command: list plugins and run the demos.

``fairkit plugins [--json]``
    the discovered plugins, their versions and what each registers.
``fairkit demo [--quick] [NAME ...]``
    run the registered demos on embedded synthetic data and print one row per
    demo: the metric, its value without and with the fairness method, and the time.
"""

import argparse
import json
import sys
import time
import warnings

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


def _plugins(args):
    from fairkit.registry import list_plugins

    plugins = list_plugins()
    if args.json:
        print(json.dumps(plugins, indent=2))
        return 0
    kinds = ("estimators", "metrics", "datasets", "search_spaces", "demos")
    rows = [[p["name"], p["distribution"] or "-", p["version"] or "-",
             p["status"] if p["error"] is None else f"{p['status']}: {p['error']}",
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
    return parser


def main(argv=None):
    """Run the ``fairkit`` command; return its exit code."""
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
