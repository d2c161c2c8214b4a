"""A new user's first fetch: a copy of the package, an empty data home, the data's source on loopback.

Nothing here reads the shared data folder as a data home: the only use of it is to give the
loopback server (standing in for the UCI repository) the published bytes of Adult to serve.
"""

import filecmp
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fairkit.datasets._sources import DATA_SETS

ROOT = Path(__file__).resolve().parents[2]

# Run in the copy: point Adult's URLs at the base URL given (the documented way to choose
# where files are downloaded from), then fetch and describe it once per mode given
# ("download": download_if_missing=True, "offline": False).
SCRIPT = """
import sys
import fairkit
from fairkit.datasets import fetch_adult
from fairkit.datasets._sources import DATA_SETS

assert fairkit.__file__.startswith(sys.argv[1]), f"imported {fairkit.__file__}, not the copy"
adult = DATA_SETS["adult"]
DATA_SETS["adult"] = adult._replace(files=tuple(f._replace(url=sys.argv[2] + f.path) for f in adult.files))
for mode in sys.argv[3:]:
    bunch = fetch_adult(as_frame=True, download_if_missing=mode == "download")
    print(bunch.data.shape, int(bunch.target.sum()), sorted(bunch.sensitive.columns))
"""


@pytest.mark.data
def test_a_fresh_copy_fetches_adult_from_its_source_then_runs_offline_from_the_data_home(file_server,
                                                                                        data_home, tmp_path):
    clone = tmp_path / "clone"
    shutil.copytree(ROOT / "fairkit", clone / "fairkit", ignore=shutil.ignore_patterns("__pycache__"))
    for file in DATA_SETS["adult"].files:  # the "UCI repository": the published bytes
        (file_server.folder / file.path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(data_home / file.path, file_server.folder / file.path)
    home = tmp_path / "user" / "fairkit_data"  # does not exist yet
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path / "user"), "FAIRKIT_DATA": str(home),
           "PYTHONPATH": str(clone), "PYTHONDONTWRITEBYTECODE": "1"}

    def run(*modes):
        return subprocess.run([sys.executable, "-c", SCRIPT, str(clone), file_server.url, *modes],
                              cwd=clone, env=env, capture_output=True, text=True, timeout=300)

    first = run("download")
    assert first.returncode == 0, first.stderr
    assert first.stdout == "(48842, 14) 11687 ['race', 'sex']\n"
    assert sorted(file_server.requests) == ["/adult/adult.data", "/adult/adult.names", "/adult/adult.test"]
    for file in DATA_SETS["adult"].files:  # the published bytes, checked here independently
        saved = home / file.path
        assert filecmp.cmp(saved, file_server.folder / file.path, shallow=False)
        assert hashlib.sha256(saved.read_bytes()).hexdigest() == file.sha256
    assert sorted(path.name for path in home.rglob("*")) == ["adult", "adult.data", "adult.names",
                                                             "adult.test"]  # no temporary file left

    file_server.stop()  # offline from now on: a download would fail
    again = run("download", "offline")
    assert again.returncode == 0, again.stderr
    assert again.stdout == first.stdout * 2
    assert len(file_server.requests) == 3
