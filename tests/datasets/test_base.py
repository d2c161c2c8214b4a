"""The data home and fetch_file: where data files are looked up, and what may be looked up."""

import hashlib

import pytest

from fairkit.datasets import DataFileError, fetch_file, get_data_home


def _file(path, text="published data\n"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return hashlib.sha256(text.encode()).hexdigest()


def test_fetch_file_returns_a_file_of_the_data_home_with_the_published_checksum(tmp_path):
    sha256 = _file(tmp_path / "home" / "set" / "data.csv")
    assert fetch_file("set/data.csv", sha256, "https://example.org", data_home=tmp_path / "home") == \
        tmp_path / "home" / "set" / "data.csv"


def test_get_data_home_reads_fairkit_data_and_expands_the_user(monkeypatch, tmp_path):
    monkeypatch.setenv("FAIRKIT_DATA", str(tmp_path))
    assert get_data_home() == tmp_path
    monkeypatch.setenv("HOME", str(tmp_path))
    assert get_data_home("~/data") == tmp_path / "data"


# Bad input (issue 14)

@pytest.mark.parametrize("data_home", [123, b"/tmp", ["/tmp"]])
def test_a_data_home_that_is_not_a_path_is_named(data_home):
    with pytest.raises(TypeError, match="data_home must be the path of a folder .* or None, got"):
        get_data_home(data_home)


def test_fetch_file_refuses_a_relative_path_that_leads_out_of_the_data_home(tmp_path):
    sha256 = _file(tmp_path / "secret.txt")  # next to the data home, with the expected checksum
    with pytest.raises(ValueError, match=r"relative_path must name a file inside the data home, but "
                                         r"'\.\./secret\.txt' leads out of it through '\.\.'"):
        fetch_file("../secret.txt", sha256, "https://example.org", data_home=tmp_path / "home")
    with pytest.raises(ValueError, match="leads out of it"):
        fetch_file("set/../../secret.txt", sha256, "https://example.org", data_home=tmp_path / "home")


def test_fetch_file_refuses_an_absolute_path(tmp_path):
    sha256 = _file(tmp_path / "secret.txt")
    with pytest.raises(ValueError, match="is absolute"):
        fetch_file(str(tmp_path / "secret.txt"), sha256, "https://example.org", data_home=tmp_path / "home")


def test_dot_dot_is_resolved_on_the_text_not_through_a_link_of_the_data_home(tmp_path):
    # home/link -> elsewhere/inner: the system would resolve link/../secret.txt to elsewhere/secret.txt
    sha256 = _file(tmp_path / "elsewhere" / "secret.txt")
    (tmp_path / "elsewhere" / "inner").mkdir()
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "link").symlink_to(tmp_path / "elsewhere" / "inner")
    with pytest.raises(DataFileError, match="not found"):
        fetch_file("link/../secret.txt", sha256, "https://example.org", data_home=tmp_path / "home")
    inside = _file(tmp_path / "home" / "secret.txt", "the data home's own file\n")
    assert fetch_file("link/../secret.txt", inside, "https://example.org", data_home=tmp_path / "home") == \
        tmp_path / "home" / "secret.txt"
