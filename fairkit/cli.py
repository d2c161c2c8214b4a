"""The ``fairkit`` command: list plugins, run the demos, audit a CSV file.

``fairkit plugins [--json]``
    the discovered plugins, their versions and what each registers.
``fairkit demo [--quick] [NAME ...]``
    run the registered demos on embedded synthetic data and print one row per
    demo: the metric, its value without and with the fairness method, and the time.
    ``fairkit demo --list`` lists the demos instead (name, plugin, what each shows).
``fairkit audit data.csv --target COL --sensitive COL[,COL] [--method NAME] [--param NAME=VALUE] ...``
    fit an unconstrained baseline and fair methods on a CSV file, print accuracy and
    the group fairness metrics with their intervals and noise floors, overall and by
    group, and write an HTML report with ``--out`` (see :mod:`fairkit.audit`).
    ``--robustness EPS``, ``--abstain COVERAGE`` and ``--check NAME=OPTION`` add the tables of checks
    that plugins register. ``--target-csv shifted.csv`` gives a second file, from a target domain with
    the same columns, and adds the shift check (``fairkit-shift``): which subgroups lose performance
    there, and why (``--check shift=TOL`` sets its tolerance). ``fairkit audit --help`` lists the methods
    and their parameters, and the checks.
"""

import argparse
import ast
import contextlib
import json
import os
import shutil
import sys
import textwrap
import time
import warnings
from pathlib import Path

from fairkit import __version__


def _number(value):
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _count(n, kind):
    """``1 estimator``, ``2 estimators``, ``1 search space``: ``kind`` is a plural ending in ``s``."""
    name = kind.replace("_", " ")
    return f"{n} {name[:-1] if n == 1 else name}"


def _status(plugin):
    """The status and the first line of the error: a table row holds one line (``--json`` has all)."""
    if plugin["error"] is None:
        return plugin["status"]
    first, *more = plugin["error"].strip().splitlines()
    return f"{plugin['status']}: {first}" + (" [...] (full text: fairkit plugins --json)" if more else "")


def _plugins(args):
    from fairkit.registry import list_plugins
    from fairkit.utils._text import text_table

    plugins = list_plugins()
    if args.json:
        print(json.dumps(plugins, indent=2))
        return 0
    kinds = ("estimators", "metrics", "datasets", "search_spaces", "demos", "audit_checks")
    rows = [[p["name"], p["distribution"] or "-", p["version"] or "-", _status(p),
             ", ".join(_count(len(p[kind]), kind) for kind in kinds if p[kind]) or "-"]
            for p in plugins]
    print(text_table(["plugin", "distribution", "version", "status", "registers"], rows))
    return 0


def _demo(args):
    from tqdm import tqdm

    from fairkit.registry import all_demos
    from fairkit.utils._text import text_table

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
    if args.list:
        return _list_demos(demos, names)
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
    print(text_table(["demo", "metric", "before", "after", "seconds", "note"], rows))
    return 0


def _list_demos(demos, names):
    """One row per demo: its name, the plugin that registers it and the first line of its docstring."""
    import inspect

    from fairkit.registry import list_plugins
    from fairkit.utils._text import text_table

    owner = {demo: plugin["name"] for plugin in list_plugins() for demo in plugin["demos"]}
    rows = [[name, owner.get(name, "-"), (inspect.getdoc(demos[name]) or "-").splitlines()[0]]
            for name in names]
    print(text_table(["demo", "plugin", "what it shows"], rows))
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
    from fairkit.audit import AuditError, _missing_plots, audit

    try:
        if args.out is not None:
            _check_out(args.out)
        result = audit(args.data, target=args.target, sensitive=[c for c in args.sensitive.split(",") if c],
                       positive_label=args.positive_label, methods=args.method, params=dict(args.param),
                       metrics=args.metric, test_size=args.test_size, tolerance=args.tolerance,
                       random_state=args.random_state, progress=not args.no_progress,
                       checks=_checks(args), target_data=args.target_csv)
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
        missing = _missing_plots()
        if missing:
            print(f"note: {missing}")
    return 1 if result.failures else 0


def _checks(args):
    """``{check name: option}`` from ``--check NAME=OPTION``, ``--robustness EPS``, ``--abstain COVERAGE`` and
    ``--target-csv`` (the shift check with its default option, unless ``--check shift=TOL`` gives one), or
    None for none."""
    from fairkit.audit import AuditError

    checks = {}
    for name, option in args.check:
        if name in checks:
            raise AuditError(f"--check {name} is given twice; give each check once")
        checks[name] = option
    if args.robustness is not None:
        if "robustness" in checks:
            raise AuditError("give --robustness EPS or --check robustness=EPS, not both")
        checks["robustness"] = args.robustness
    if args.abstain is not None:
        if "abstain" in checks:
            raise AuditError("give --abstain COVERAGE or --check abstain=COVERAGE, not both")
        checks["abstain"] = args.abstain
    if args.target_csv is not None:
        checks.setdefault("shift", None)
    return checks or None


def _positive_float(text):
    """A float > 0 (``--robustness``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text} is not a size above 0 (such as 0.1)")
    return value


def _coverage(text):
    """A share in (0, 1] (``--abstain``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"{text} is not a coverage in (0, 1] (such as 0.8)")
    return value


def _parameter(text):
    """``NAME=VALUE`` as ``(NAME, VALUE)``, VALUE read as a Python literal (``0.1``, ``None``,
    ``'text'``, ``[1, 2]``) and otherwise kept as text (``equalized_odds``)."""
    name, equals, value = text.partition("=")
    if not equals or not name.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=VALUE (such as constraint=equalized_odds)")
    with contextlib.suppress(ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        value = ast.literal_eval(value)  # else the text itself
    return name.strip(), value


def _check_option(text):
    """``NAME=OPTION`` as ``(NAME, OPTION)``, OPTION read as :func:`_parameter` reads a VALUE."""
    if "=" not in text or not text.partition("=")[0].strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=OPTION (such as robustness=0.1)")
    return _parameter(text)


def _audit_epilog():
    """The methods ``fairkit audit`` can run and their parameters, as registered now."""
    from fairkit.audit import usable_methods

    width = min(100, shutil.get_terminal_size().columns - 2)
    title = textwrap.fill("methods (--method NAME) and their parameters (--param NAME=VALUE, or "
                          "METHOD.NAME=VALUE to set it on one method only):", width)
    rows = [textwrap.fill(", ".join(parameters) or "(no parameters)", width, initial_indent=f"  {name}: ",
                          subsequent_indent="      ", break_on_hyphens=False)
            for name, parameters in usable_methods().items()]
    return "\n".join([title, *(rows or ["  none is registered"]), "", *_checks_epilog(width)])


def _checks_epilog(width):
    """The checks registered now, each with the first line of its docstring (what it measures)."""
    import inspect

    from fairkit.audit import CHECK_PLUGINS
    from fairkit.registry import all_audit_checks

    checks = all_audit_checks()
    rows = [textwrap.fill((inspect.getdoc(check) or "-").splitlines()[0], width, initial_indent=f"  {name}: ",
                          subsequent_indent="      ") for name, check in checks.items()]
    rows += [f"  {name}: not registered; it comes with a plugin: {install}"
             for name, install in CHECK_PLUGINS.items() if name not in checks]
    return [textwrap.fill("checks of plugins (--check NAME=OPTION; --robustness EPS is --check "
                          "robustness=EPS, --abstain COVERAGE is --check abstain=COVERAGE; --target-csv PATH "
                          "adds the shift check):", width),
            *(rows or ["  none is registered"])]


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose ``epilog`` may be a function, called only when the help is shown (the
    audit's help lists the methods registered then; other commands do not load the plugins for it)."""

    def format_help(self):
        if callable(self.epilog):
            self.epilog = self.epilog()
        return super().format_help()


def build_parser():
    """Return the argument parser of the ``fairkit`` command."""
    parser = _Parser(prog="fairkit", description="Fairness research methods as scikit-learn estimators.")
    parser.add_argument("--version", action="version", version=f"fairkit {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    plugins = commands.add_parser("plugins", help="list plugins and what they register")
    plugins.add_argument("--json", action="store_true", help="print JSON instead of a table")
    plugins.set_defaults(run=_plugins)

    demo = commands.add_parser("demo", help="run the registered demos on synthetic data")
    demo.add_argument("names", nargs="*", metavar="NAME", help="demos to run (default: all)")
    demo.add_argument("--quick", action="store_true", help="smaller data, about a second per demo")
    demo.add_argument("--list", action="store_true", help="list the demos (or the NAMEs given) instead "
                      "of running them")
    demo.add_argument("--no-progress", action="store_true", help="do not show a progress bar")
    demo.set_defaults(run=_demo)

    audit = commands.add_parser("audit", help="compare a baseline with fair methods on a CSV file",
                                epilog=_audit_epilog, formatter_class=argparse.RawDescriptionHelpFormatter)
    audit.add_argument("data", type=Path, help="CSV file with a header row")
    audit.add_argument("--target", required=True, metavar="COL", help="the column to predict")
    audit.add_argument("--sensitive", required=True, metavar="COL[,COL]",
                       help="sensitive column(s), comma-separated; several form intersectional groups")
    audit.add_argument("--positive-label", metavar="V", help="the target value that counts as positive")
    audit.add_argument("--method", action="extend", nargs="+", metavar="NAME",
                       help="fair methods (default: RandomizedFairBOC; the list is below)")
    audit.add_argument("--param", action="append", type=_parameter, default=[], metavar="NAME=VALUE",
                       help="a parameter of the methods, repeatable: NAME=VALUE sets it on every chosen "
                            "method that takes it, METHOD.NAME=VALUE on that one; VALUE is read as a Python "
                            "literal (0.1, None, 'text') or else taken as text (constraint=equalized_odds)")
    audit.add_argument("--metric", action="extend", nargs="+", metavar="NAME",
                       help="metrics to report besides accuracy (default: every group fairness metric)")
    audit.add_argument("--test-size", type=float, default=0.3, help="held-out fraction (default 0.3)")
    audit.add_argument("--tolerance", type=float, default=0.05,
                       help="the smallest gap that matters; groups too small to measure it are named "
                            "(default 0.05)")
    audit.add_argument("--robustness", type=_positive_float, metavar="EPS",
                       help="add the robustness check: accuracy and group gaps under attacks of size up to "
                            "EPS (needs the fairkit-robust plugin)")
    audit.add_argument("--abstain", type=_coverage, metavar="COVERAGE",
                       help="add the abstain check: coverage and selective accuracy by group when each model "
                            "answers only the share COVERAGE of rows it is surest of, and a flag for a group "
                            "left out (needs the fairkit-uncertainty plugin)")
    audit.add_argument("--target-csv", type=Path, metavar="PATH",
                       help="a CSV file from a target domain with the same columns: add the shift check, "
                            "which subgroups lose performance there and why (needs the fairkit-shift plugin; "
                            "--check shift=TOL sets its tolerance, default 0.05)")
    audit.add_argument("--check", action="append", type=_check_option, default=[], metavar="NAME=OPTION",
                       help="add a check that a plugin registers, repeatable: run it on every model with "
                            "OPTION, read as --param reads a VALUE (the checks are listed below)")
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
