"""Where the local copies of public data sets live, and how a loader finds and checks one."""

import hashlib
import os
from pathlib import Path, PurePath

__all__ = ["DataFileError", "fetch_file", "get_data_home"]


class DataFileError(FileNotFoundError):
    """A data file is missing or is not the published file (its checksum differs)."""


def get_data_home(data_home=None):
    """Return the folder that holds fairkit's data files.

    Parameters
    ----------
    data_home : str or path-like, default=None
        The folder. ``None`` reads the ``FAIRKIT_DATA`` environment variable and
        falls back to ``~/fairkit_data``.

    Returns
    -------
    path : Path

    Raises
    ------
    TypeError
        If ``data_home`` is neither None, a string nor a path-like object.
    """
    if data_home is None:
        data_home = os.environ.get("FAIRKIT_DATA") or Path.home() / "fairkit_data"
    if not isinstance(data_home, str | os.PathLike):
        raise TypeError(f"data_home must be the path of a folder (a str or pathlib.Path) or None, got "
                        f"{type(data_home).__name__} {data_home!r}.")
    return Path(data_home).expanduser()


def _sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _below_data_home(relative_path):
    """``relative_path`` without ``..`` parts, if it stays inside the data home (checked on its text)."""
    normalized = os.path.normpath(relative_path)
    if PurePath(relative_path).anchor:
        problem = "is absolute"
    elif normalized.split(os.sep)[0] == os.pardir:
        problem = "leads out of it through '..'"
    else:
        return normalized
    raise ValueError(f"relative_path must name a file inside the data home, but {str(relative_path)!r} "
                     f"{problem}. Give the file's path below the data home (e.g. 'adult/adult.data') "
                     "and choose the folder with data_home= or the FAIRKIT_DATA environment variable.")


def fetch_file(relative_path, sha256, source, data_home=None):
    """Return the path of a local data file after checking its SHA-256.

    Nothing is downloaded: a missing file raises an error that says where to get it.

    Parameters
    ----------
    relative_path : str
        Path of the file below the data home, e.g. ``"adult/adult.data"``. An absolute
        path, or one whose ``..`` parts lead out of the data home, is refused (checked on
        the path's text; links inside the data home are followed).
    sha256 : str
        The expected SHA-256 of the published file.
    source : str
        Where the file can be downloaded (named in the error message).
    data_home : str or path-like, default=None
        See :func:`get_data_home`.

    Returns
    -------
    path : Path

    Raises
    ------
    ValueError
        If ``relative_path`` is absolute or leads out of the data home.
    DataFileError
        If the file is missing or its checksum differs.
    """
    home = get_data_home(data_home)
    path = home / _below_data_home(relative_path)
    if not path.is_file():
        raise DataFileError(
            f"Data file {relative_path!r} not found in {str(home)!r}. Download it from {source} "
            f"and save it as {str(path)!r}, or point data_home= or the FAIRKIT_DATA environment "
            "variable to the folder that holds it.")
    actual = _sha256(path)
    if actual != sha256:
        raise DataFileError(
            f"Data file {str(path)!r} has SHA-256 {actual}, expected {sha256}: it is not the "
            f"published file (re-download it from {source}).")
    return path
