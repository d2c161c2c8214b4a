"""Build ``benchmarks/README.md`` (tables) and ``benchmarks/plots/*.png`` from the results files.

Each ``results/NAME.json`` is rendered generically, so a benchmark shapes its report by the
shape of its payload:

- a list of dicts (records, e.g. one per method and size) becomes a table; nested dicts in a
  record become columns named ``outer.inner``;
- a dict of scalars becomes a two-column table, and the top-level scalars one ``summary`` table;
- nested dicts become sub-sections named by their keys.

A records table gets plots: a bar chart of every column whose name contains ``ratio`` or
``speedup`` (fairkit's speed against a peer measured in the same run), and, when the records
vary a size column (``n``, ``size`` or a name starting with ``n_``), a log-log plot of each
time column (a name containing ``seconds`` or ``time``, or ending in ``_s``) against that
size, one line per method (the records' text columns) when every line has several sizes and
there are at most ten lines.
"""

import json
import math
import numbers
from pathlib import Path

HEADER = """\
# Benchmarks

fairkit against its peers, measured in the same run on the same data. Speed is reported as
ratios (peer time / fairkit time, so more than 1 means fairkit is faster), medians over repeats.
This file is generated from `results/*.json` by `python -m benchmarks report`; do not edit it.

```bash
pip install -e ".[bench]"
python -m benchmarks run                 # every benchmark, full sizes
python -m benchmarks run NAME --quick    # one benchmark, small sizes (a smoke test)
python -m benchmarks list                # the benchmarks (benchmarks/bench_NAME.py)
```

Figures from a `--quick` run are marked as such: they show that the benchmark works, not how
fast fairkit is.
"""

_SIZE_NAMES = ("n", "size")


def _is_scalar(value):
    return value is None or isinstance(value, str | bool | numbers.Number)


def _flatten(row, prefix=""):
    """``{"fit_seconds": {"fairkit": 1}}`` becomes ``{"fit_seconds.fairkit": 1}``."""
    flat = {}
    for key, value in row.items():
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def _as_records(value):
    """The rows of a list of (possibly nested) dicts of scalars, flattened; None for anything else."""
    if not (isinstance(value, list) and value and all(isinstance(row, dict) for row in value)):
        return None
    rows = [_flatten(row) for row in value]
    return rows if all(_is_scalar(cell) for row in rows for cell in row.values()) else None


def _format(value):
    if isinstance(value, bool) or value is None:
        return "-" if value is None else str(value).lower()
    if isinstance(value, numbers.Integral):
        return str(value)
    if isinstance(value, numbers.Real):
        if math.isnan(value):
            return "nan"
        return f"{value:.3g}" if abs(value) < 1e5 else f"{value:.3e}"
    return str(value).replace("|", "\\|").replace("\n", " ")


def _table(headers, rows):
    lines = ["| " + " | ".join(map(str, headers)) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(_format(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def _records_table(records):
    headers = list(dict.fromkeys(key for row in records for key in row))
    return _table(headers, [[row.get(key) for key in headers] for row in records])


def _numeric_columns(records):
    headers = dict.fromkeys(key for row in records for key in row)
    return [key for key in headers
            if all(isinstance(row.get(key), numbers.Real) and not isinstance(row.get(key), bool)
                   for row in records)]


def _text_columns(records):
    headers = dict.fromkeys(key for row in records for key in row)
    return [key for key in headers if all(isinstance(row.get(key), str) for row in records)]


def _label(row, columns, exclude=()):
    return ", ".join(str(row[key]) for key in columns if key not in exclude) or "all"


def _plot_records(records, title, path_stem):
    """Save the plots of one records table; return the paths written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    numeric, text = _numeric_columns(records), _text_columns(records)
    written = []
    for column in [key for key in numeric if "ratio" in key.lower() or "speedup" in key.lower()]:
        labels = [_label(row, text) for row in records]
        if len(set(labels)) < len(labels):  # tell the rows apart by their sizes too
            labels = [_label(row, text + [k for k in numeric if k in _SIZE_NAMES or k.startswith("n_")])
                      for row in records]
        values = [row[column] for row in records]
        fig, ax = plt.subplots(figsize=(6.4, 0.4 * len(values) + 1.2))
        ax.barh(range(len(values)), values, color="tab:blue")
        ax.set_yticks(range(len(values)), labels)
        ax.invert_yaxis()
        ax.axvline(1.0, color="black", linewidth=0.8)
        positive = [v for v in values if v > 0]
        if positive and max(positive) / min(positive) > 20:
            ax.set_xscale("log")
        ax.set_xlabel(column)
        ax.set_title(title)
        path = path_stem.with_name(f"{path_stem.name}-{_slug(column)}.png")
        fig.savefig(path, dpi=90, bbox_inches="tight")
        plt.close(fig)
        written.append(path)
    sizes = [key for key in numeric if key in _SIZE_NAMES or key.startswith("n_")]
    times = [key for key in numeric
             if "seconds" in key.lower() or "time" in key.lower() or key.lower().endswith("_s")]
    size = next((key for key in sizes if len({row[key] for row in records}) > 1), None)
    series = {}
    for row in records:
        for column in times if size is not None else []:
            name = _label(row, text) if len(times) == 1 else f"{_label(row, text)}: {column}"
            series.setdefault(name, []).append((row[size], row[column]))
    # a scaling plot only where each line has several sizes and the lines stay readable
    if series and len(series) <= 10 and all(len(points) > 1 for points in series.values()):
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        for name, points in series.items():
            ax.plot(*zip(*sorted(points), strict=True), marker="o", label=name)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(size)
        ax.set_ylabel(times[0] if len(times) == 1 else "seconds")
        ax.set_title(title)
        ax.legend(fontsize="small")
        path = path_stem.with_name(f"{path_stem.name}-{_slug(size)}.png")
        fig.savefig(path, dpi=90, bbox_inches="tight")
        plt.close(fig)
        written.append(path)
    return written


def _slug(text):
    return "".join(ch if ch.isalnum() else "-" for ch in str(text).lower()).strip("-")


def _render(payload, path, heading, plot_stem, out):
    """Append the markdown of ``payload`` (a dict) to ``out``; tables for records and scalars."""
    scalars = {key: value for key, value in payload.items() if _is_scalar(value)}
    if scalars:
        out += [_table(["name", "value"], [[key, value] for key, value in scalars.items()]), ""]
    for key, value in payload.items():
        if _is_scalar(value):
            continue
        title = " / ".join([*path, str(key)])
        out += [f"{heading} {title}", ""]
        records = _as_records(value)
        if records is not None:
            out += [_records_table(records), ""]
            stem = plot_stem.with_name(f"{plot_stem.name}-{_slug(title)}")
            try:
                plots = _plot_records(records, f"{plot_stem.name}: {title}", stem)
            except ImportError:
                plots = []
            out += [f"![{title}](plots/{plot.name})" for plot in plots]
            out += [""] if plots else []
        elif isinstance(value, dict):
            _render(value, [*path, str(key)], heading + "#" if len(heading) < 5 else heading, plot_stem, out)
        elif isinstance(value, list) and all(_is_scalar(item) for item in value):
            out += [", ".join(_format(item) for item in value), ""]
        else:
            out += ["```json", json.dumps(value, indent=1, default=str)[:2000], "```", ""]


def _machine_line(results):
    machine = results.get("machine", {})
    versions = ", ".join(f"{name} {version}" for name, version in machine.get("versions", {}).items()
                         if version)
    run = results.get("run", {})
    parts = [machine.get("date", "date unknown"), machine.get("processor"),
             f"{machine.get('cpu_count')} CPUs" if machine.get("cpu_count") else None,
             f"Python {machine['python']}" if machine.get("python") else None, versions,
             f"{run['seconds']} s" if "seconds" in run else None]
    line = "; ".join(str(part) for part in parts if part)
    command = run.get("command")
    return (f"*{'QUICK RUN (smoke test sizes); ' if run.get('quick') else ''}{line}*"
            + (f" — reproduce with `{command}`" if command else ""))


def write_report(bench_dir):
    """Rewrite ``bench_dir/README.md`` and ``bench_dir/plots/`` from ``bench_dir/results/*.json``."""
    bench_dir = Path(bench_dir)
    plots = bench_dir / "plots"
    plots.mkdir(exist_ok=True)
    for old in plots.glob("*.png"):
        old.unlink()
    out = [HEADER]
    results_files = sorted((bench_dir / "results").glob("*.json"))
    if not results_files:
        out.append("No results yet: run `python -m benchmarks run`.\n")
    for path in results_files:
        results = json.loads(path.read_text())
        name = results.get("benchmark", path.stem)
        out += [f"## {name}", "", _machine_line(results), ""]
        payload = {key: value for key, value in results.items() if key not in {"benchmark", "machine", "run"}}
        _render(payload, [], "###", plots / _slug(name), out)
    readme = bench_dir / "README.md"
    readme.write_text("\n".join(out).rstrip() + "\n")
    return readme
