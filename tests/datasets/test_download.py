"""Downloads: a missing file comes from its URL, checked and renamed into place, or nothing is left.

Every download here is served by a loopback HTTP server (``file_server``, ``serve_data_set``
in conftest.py); nothing leaves the machine.
"""

import hashlib
import re
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import fairkit.datasets as datasets
from fairkit.datasets import DataFileError, fetch_adult, fetch_file, fetch_nba_coach_votes
from fairkit.datasets._sources import DATA_SETS

ROOT = Path(__file__).resolve().parents[2]
CONTENT = b"item,rank\nA,1\nB,2\n" * 1000
SHA256 = hashlib.sha256(CONTENT).hexdigest()


def _files(folder):
    return sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file())


def test_a_missing_file_is_downloaded_checked_and_then_read_from_the_data_home(file_server, tmp_path):
    (file_server.folder / "data.csv").write_bytes(CONTENT)
    home = tmp_path / "home"
    url = file_server.url + "data.csv"
    path = fetch_file("set/data.csv", SHA256, "a test set", home, url=url)
    assert path == home / "set" / "data.csv" and path.read_bytes() == CONTENT
    assert _files(home) == ["set/data.csv"]  # no temporary file left
    assert fetch_file("set/data.csv", SHA256, "a test set", home, url=url) == path
    assert file_server.requests == ["/data.csv"]  # the second call read the data home


def test_a_corrupt_download_names_the_url_and_the_file_and_leaves_nothing(file_server, tmp_path):
    (file_server.folder / "data.csv").write_bytes(CONTENT[:-1] + b"X")
    home = tmp_path / "home"
    url = file_server.url + "data.csv"
    with pytest.raises(DataFileError, match=rf"downloaded from {re.escape(url)} for 'set/data.csv' has "
                                            rf"SHA-256 [0-9a-f]{{64}}, expected {SHA256}: it is not the "
                                            "published file, and nothing was saved"):
        fetch_file("set/data.csv", SHA256, "a test set", home, url=url)
    assert not home.exists()  # neither the file nor the folders made for it


def test_a_failed_download_names_the_url_and_the_file_and_leaves_nothing(file_server, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    url = file_server.url + "absent.csv"
    with pytest.raises(DataFileError, match=rf"Downloading 'set/data.csv' from {re.escape(url)} failed "
                                            r"\(HTTP Error 404: File not found\); nothing was saved"):
        fetch_file("set/data.csv", SHA256, "a test set", home, url=url)
    assert _files(home) == [] and list(home.iterdir()) == []


def test_a_transfer_cut_short_leaves_nothing(file_server, tmp_path):
    def half_then_close(handler):
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(CONTENT)))
        handler.end_headers()
        handler.wfile.write(CONTENT[: len(CONTENT) // 2])
        handler.close_connection = True

    file_server.responses["data.csv"] = half_then_close
    home = tmp_path / "home"
    short = len(CONTENT) - len(CONTENT) // 2
    with pytest.raises(DataFileError, match=rf"Downloading 'set/data.csv' from \S+ stopped {short} bytes "
                                            "short of the end; nothing was saved"):
        fetch_file("set/data.csv", SHA256, "a test set", home, url=file_server.url + "data.csv")
    assert not home.exists()


def test_the_file_takes_its_name_only_once_complete_and_checked(file_server, tmp_path):
    release = threading.Event()

    def half_then_wait(handler):
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(CONTENT)))
        handler.end_headers()
        handler.wfile.write(CONTENT[: len(CONTENT) // 2])
        handler.wfile.flush()
        release.wait(10)
        handler.wfile.write(CONTENT[len(CONTENT) // 2:])

    file_server.responses["data.csv"] = half_then_wait
    home = tmp_path / "home"
    fetched = []
    thread = threading.Thread(target=lambda: fetched.append(
        fetch_file("set/data.csv", SHA256, "a test set", home, url=file_server.url + "data.csv")))
    thread.start()
    try:
        for _ in range(200):  # until the first half is in the temporary file
            partial = list((home / "set").glob(".data.csv.*.part")) if (home / "set").is_dir() else []
            if partial and partial[0].stat().st_size > 0:
                break
            time.sleep(0.05)
        assert partial and partial[0].stat().st_size > 0
        assert not (home / "set" / "data.csv").exists()
    finally:
        release.set()
        thread.join(10)
    assert fetched == [home / "set" / "data.csv"] and fetched[0].read_bytes() == CONTENT
    assert _files(home) == ["set/data.csv"]


def test_every_missing_file_of_a_data_set_is_named_in_one_error(tmp_path):
    with pytest.raises(DataFileError) as error:
        fetch_adult(data_home=tmp_path, download_if_missing=False)
    message = str(error.value)
    assert "3 data file(s) of Adult (UCI Machine Learning Repository" in message
    assert f"not found in {str(tmp_path)!r}" in message
    for file in DATA_SETS["adult"].files:
        assert f"  {file.path}  from {file.url}\n" in message
    assert "call the loader with download_if_missing=True" in message
    assert _files(tmp_path) == []


@pytest.mark.data
def test_a_failed_download_also_names_the_files_not_downloaded(serve_data_set, tmp_path):
    server = serve_data_set("adult")
    (server.folder / "adult" / "adult.test").unlink()  # the second of three files: 404
    home = tmp_path / "home"
    with pytest.raises(DataFileError) as error:
        fetch_adult(data_home=home)
    message = str(error.value)
    assert re.search(r"Downloading 'adult/adult.test' from \S+adult/adult.test failed \(HTTP Error 404",
                     message)
    assert "Not downloaded either:\n  adult/adult.names  from " in message
    assert _files(home) == ["adult/adult.data"]  # the complete, checked first file stays


@pytest.mark.data
def test_an_altered_file_is_named_and_neither_replaced_nor_downloaded(serve_data_set, tmp_path):
    server = serve_data_set("nba_coach_votes")
    altered = tmp_path / "ranking" / "nba_coach_2021_rankings.csv"
    altered.parent.mkdir()
    altered.write_text("item_name,judge\nsomeone,1\n")
    expected = DATA_SETS["nba_coach_votes"].files[0].sha256
    with pytest.raises(DataFileError, match=rf"{re.escape(repr(str(altered)))} has SHA-256 [0-9a-f]{{64}}, "
                                            rf"expected {expected}\nDelete them to download them again"):
        fetch_nba_coach_votes(data_home=tmp_path)
    assert altered.read_text() == "item_name,judge\nsomeone,1\n" and server.requests == []


@pytest.mark.data
def test_a_data_set_downloaded_from_its_url_loads_as_the_reference_copy(serve_data_set, data_home, tmp_path):
    server = serve_data_set("nba_coach_votes")
    downloaded = fetch_nba_coach_votes(data_home=tmp_path, as_frame=True)
    assert server.requests == ["/ranking/nba_coach_2021_rankings.csv"]
    reference = fetch_nba_coach_votes(data_home=data_home, as_frame=True)
    assert downloaded.data.equals(reference.data)
    server.stop()  # offline: the data home serves it
    np.testing.assert_array_equal(fetch_nba_coach_votes(data_home=tmp_path).data, reference.data.to_numpy())


@pytest.mark.data
def test_the_environment_variable_names_the_data_home_that_receives_downloads(serve_data_set, tmp_path,
                                                                               monkeypatch):
    serve_data_set("nba_coach_votes")
    monkeypatch.setenv("FAIRKIT_DATA", str(tmp_path / "from_env"))
    assert fetch_nba_coach_votes().data.shape == (100, 7)
    assert _files(tmp_path / "from_env") == ["ranking/nba_coach_2021_rankings.csv"]


@pytest.mark.parametrize("value", ["no", 0, None])
def test_download_if_missing_must_be_a_bool(tmp_path, value):
    with pytest.raises(TypeError, match=f"download_if_missing must be True or False, got {value!r}"):
        fetch_nba_coach_votes(data_home=tmp_path, download_if_missing=value)
    assert _files(tmp_path) == []


def test_the_former_load_names_are_the_fetch_functions():
    for name in datasets.__all__:
        if name.startswith("load_"):
            assert getattr(datasets, name) is getattr(datasets, "fetch_" + name.removeprefix("load_"))


def test_each_url_is_https_pinned_and_listed_in_the_user_guide():
    guide = (ROOT / "docs" / "user_guide" / "tabular_datasets.rst").read_text()
    for name, data_set in DATA_SETS.items():
        assert hasattr(datasets, f"fetch_{name}"), f"no fetch_{name} for the data set {name!r}"
        for file in data_set.files:
            assert file.url.startswith("https://") and Path(file.url).name == Path(file.path).name
            if "raw.githubusercontent.com" in file.url:  # pinned to a commit: the bytes never change
                assert re.search(r"/[0-9a-f]{40}/", file.url), file.url
            assert file.url in guide, f"{file.url} is not listed in docs/user_guide/tabular_datasets.rst"
