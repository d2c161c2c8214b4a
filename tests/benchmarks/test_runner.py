"""The benchmark suite runner and its report, on fake benchmark modules in a scratch folder."""

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from benchmarks.__main__ import discover, main  # noqa: E402

FAKE = '''
from benchmarks._common import main


def run(quick=False):
    sizes = [100, 1000] if quick else [100, 1000, 10000]
    records = []
    for n in sizes:
        records.append({"method": "fairkit", "n_samples": n, "seconds": n / 1e4})
        records.append({"method": "peer", "n_samples": n, "seconds": n / 1e3})
    return {"quick_sizes": quick, "records": records,
            "ratios": [{"peer": "peer", "n_samples": n, "speedup": 10.0, "accuracy": {"fairkit": 0.9}}
                       for n in sizes],
            "summary": {"accuracy": {"fairkit": 0.81, "peer": 0.8}}}


if __name__ == "__main__":
    main("fake", run)
'''

BROKEN = '''
raise RuntimeError("this benchmark is broken")
'''


@pytest.fixture
def bench_dir(tmp_path):
    folder = tmp_path / "benchmarks"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    shutil.copy(ROOT / "benchmarks" / "_common.py", folder / "_common.py")
    (folder / "bench_fake.py").write_text(textwrap.dedent(FAKE))
    return folder


def test_discover_lists_bench_modules(bench_dir):
    (bench_dir / "helper.py").write_text("")
    assert discover(bench_dir) == ["fake"]


def test_a_quick_run_writes_results_and_report_to_the_scratch_folder_only(bench_dir):
    assert main(["run", "fake", "--quick"], bench_dir=bench_dir) == 0
    scratch = bench_dir / "quick"
    results = json.loads((scratch / "results" / "fake.json").read_text())
    assert results["benchmark"] == "fake" and results["quick_sizes"] is True
    assert results["run"]["quick"] is True
    assert results["run"]["command"] == "python -m benchmarks run fake --quick"
    assert "python" in results["machine"] and len(results["records"]) == 4
    readme = (scratch / "README.md").read_text()
    assert "## fake" in readme and "QUICK RUN" in readme
    # the committed results, report and plots are not touched
    assert not any((bench_dir / name).exists() for name in ("results", "README.md", "plots"))
    assert "| method | n_samples | seconds |" in readme and "| peer | 1000 | 1 |" in readme
    assert "| fairkit | 0.81 |" in readme  # nested dict of scalars
    assert "| peer | n_samples | speedup | accuracy.fairkit |" in readme  # nested dicts in records
    plots = sorted(path.name for path in (scratch / "plots").glob("*.png"))
    assert plots == ["fake-ratios-speedup.png", "fake-records-n-samples.png"]
    assert all(f"(plots/{name})" in readme for name in plots)


def test_a_full_run_writes_the_committed_results_and_report(bench_dir):
    (bench_dir / "quick" / "results").mkdir(parents=True)
    (bench_dir / "quick" / "results" / "fake.json").write_text("{}")  # an earlier quick run's
    assert main(["run", "fake"], bench_dir=bench_dir) == 0
    assert json.loads((bench_dir / "results" / "fake.json").read_text())["run"]["quick"] is False
    readme = (bench_dir / "README.md").read_text()
    assert "QUICK RUN" not in readme and "| fairkit | 10000 | 1 |" in readme
    assert (bench_dir / "quick" / "results" / "fake.json").read_text() == "{}"


def test_report_alone_rebuilds_from_results(bench_dir):
    assert main(["run", "fake", "--no-report"], bench_dir=bench_dir) == 0
    assert not (bench_dir / "README.md").exists()
    assert main(["report"], bench_dir=bench_dir) == 0
    readme = (bench_dir / "README.md").read_text()
    assert "QUICK RUN" not in readme and "| fairkit | 10000 | 1 |" in readme


def test_failing_benchmark_is_reported_and_the_others_still_run(bench_dir, capsys):
    (bench_dir / "bench_broken.py").write_text(BROKEN)
    assert main(["run", "--quick", "--no-report"], bench_dir=bench_dir) == 1
    assert (bench_dir / "quick" / "results" / "fake.json").is_file()
    captured = capsys.readouterr()
    assert "failed: broken" in captured.err and "fake: done" in captured.out


def test_results_folder_can_be_redirected(bench_dir, tmp_path, monkeypatch, capsys):
    elsewhere = tmp_path / "scratch" / "results"
    monkeypatch.setenv("FAIRKIT_BENCH_RESULTS", str(elsewhere))
    assert main(["run", "fake"], bench_dir=bench_dir) == 0
    assert json.loads((elsewhere / "fake.json").read_text())["run"]["quick"] is False
    out = capsys.readouterr().out
    assert f"report not rebuilt: the results are in FAIRKIT_BENCH_RESULTS={elsewhere}" in out
    assert not any((bench_dir / name).exists() for name in ("results", "quick", "README.md", "plots"))


def test_unknown_benchmark_exits_2(bench_dir, capsys):
    assert main(["run", "nope"], bench_dir=bench_dir) == 2
    assert "unknown benchmark(s) nope; available: fake" in capsys.readouterr().err


SLOW = '''
import os
import sys
import time

with open(sys.argv[0] + ".pid", "w") as file:
    file.write(str(os.getpid()))
time.sleep(120)
'''


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_terminating_the_runner_ends_its_benchmark(bench_dir):
    # Before: the runner died and its benchmark ran on, competing with the next run's measurements.
    (bench_dir / "bench_slow.py").write_text(textwrap.dedent(SLOW))
    pid_file = bench_dir / "bench_slow.py.pid"
    script = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); from pathlib import Path; "
              "from benchmarks.__main__ import cli; "
              f"cli(['run', 'slow', '--no-report'], Path({str(bench_dir)!r}))")
    runner = subprocess.Popen([sys.executable, "-c", script])
    benchmark = None
    try:
        deadline = time.monotonic() + 60
        while not pid_file.exists() or not pid_file.read_text():
            assert time.monotonic() < deadline and runner.poll() is None
            time.sleep(0.05)
        benchmark = int(pid_file.read_text())
        runner.send_signal(signal.SIGTERM)
        assert runner.wait(timeout=30) == 128 + signal.SIGTERM
        with pytest.raises(ProcessLookupError):  # reaped by the runner, not left running
            os.kill(benchmark, 0)
    finally:  # whatever failed, leave no process behind
        runner.kill()
        if benchmark is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(benchmark, signal.SIGKILL)
