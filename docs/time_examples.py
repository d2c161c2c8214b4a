"""Measure how long each gallery example runs; write ``docs/gallery_times.json``.

    python docs/time_examples.py [plot_NAME.py ...]

The docs build reads the file to execute only the fastest examples within
``FAIRKIT_GALLERY_BUDGET`` seconds (see ``docs/_ext/fairkit_docs.py``). Run it after adding
or changing an example and commit the result; an example never measured is shown without
its output in budgeted builds. Examples run as in CI's docs build: with ``FAIRKIT_DATA``
naming a folder that does not exist, and an example that fetches a data set into it (or
fails for want of one) counts as failed: every example must run without a data folder.
"""

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DOCS = Path(__file__).resolve().parent
EXAMPLES = DOCS.parent / "examples"
TIMES = DOCS / "gallery_times.json"


def main(names):
    times = json.loads(TIMES.read_text()) if TIMES.is_file() else {}
    paths = [EXAMPLES / name for name in names] or sorted(EXAMPLES.glob("plot_*.py"))
    failed = []
    for path in paths:
        with tempfile.TemporaryDirectory() as scratch:
            no_data = Path(scratch) / "no_data"
            env = {**os.environ, "MPLBACKEND": "Agg", "FAIRKIT_DATA": str(no_data)}
            start = time.perf_counter()
            code = subprocess.run([sys.executable, path.name], cwd=EXAMPLES, env=env).returncode
            seconds = round(time.perf_counter() - start, 1)
            if no_data.exists():
                print(f"{path.name} fetched data into FAIRKIT_DATA: {sorted(no_data.rglob('*'))}")
                code = code or 1
        print(f"{path.name}: {'failed' if code else f'{seconds} s'}")
        if code:
            failed.append(path.name)
            times.pop(path.name, None)
        else:
            times[path.name] = seconds
    present = {path.name for path in EXAMPLES.glob("plot_*.py")}
    TIMES.write_text(json.dumps({k: v for k, v in sorted(times.items()) if k in present}, indent=2) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
