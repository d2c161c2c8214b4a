"""Where fairkit's data files live, and how a loader gets one: from the data home, or downloaded.

Every file is checked against the SHA-256 of the published file. A download goes to a
temporary file beside its final place, is checked, and only then renamed into place, so a
failed or corrupt download leaves nothing behind.
"""

import hashlib
import http.client
import os
import urllib.error
import urllib.request
import uuid
from pathlib import Path, PurePath
from typing import NamedTuple

__all__ = ["DataFileError", "fetch_file", "get_data_home"]

#: Seconds a download may wait for the server to answer or to send more data.
_TIMEOUT = 60


class DataFileError(FileNotFoundError):
    """A data file is missing, could not be downloaded, or is not the published file."""


class DataFile(NamedTuple):
    """A published data file: its path below the data home, its SHA-256, and where to download it."""

    path: str
    sha256: str
    url: str | None = None


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


def _download(file, path):
    """Download ``file.url`` to ``path`` through a checked temporary file; leave nothing on failure."""
    created = [folder for folder in (path.parent, *path.parent.parents) if not folder.exists()]
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.part")
    try:
        digest = hashlib.sha256()
        with open(partial, "xb") as out, urllib.request.urlopen(file.url, timeout=_TIMEOUT) as response:
            for block in iter(lambda: response.read1(1 << 16), b""):
                digest.update(block)
                out.write(block)
            if getattr(response, "length", None):  # fewer bytes than the server announced
                raise DataFileError(
                    f"Downloading {file.path!r} from {file.url} stopped {response.length} bytes short of "
                    f"the end; nothing was saved. Try again, or download the file yourself and save it "
                    f"as {str(path)!r}.")
        if digest.hexdigest() != file.sha256:
            raise DataFileError(
                f"The file downloaded from {file.url} for {file.path!r} has SHA-256 {digest.hexdigest()}, "
                f"expected {file.sha256}: it is not the published file, and nothing was saved. Try again "
                f"later, or download it yourself and save it as {str(path)!r}.")
        os.replace(partial, path)
    except BaseException as error:  # an interrupted download too: remove what it left
        partial.unlink(missing_ok=True)
        for folder in created:  # innermost first; stops at the first folder that is not empty
            try:
                folder.rmdir()
            except OSError:
                break
        if isinstance(error, urllib.error.HTTPError):
            error.close()  # it holds the server's answer, and its connection
        if isinstance(error, OSError | http.client.HTTPException) and not isinstance(error, DataFileError):
            raise DataFileError(
                f"Downloading {file.path!r} from {file.url} failed ({error}); nothing was saved. Check "
                f"the network, or download the file yourself and save it as {str(path)!r}.") from error
        raise


def fetch_files(files, source, *, data_home=None, download_if_missing=True):
    """Return the paths of data files in the data home, downloading the missing ones.

    Parameters
    ----------
    files : sequence of DataFile
        The files, with paths below the data home.
    source : str
        What the files are and where they are published (named in error messages).
    data_home : str or path-like, default=None
        See :func:`get_data_home`.
    download_if_missing : bool, default=True
        Download the missing files that have a URL; otherwise a missing file is an error.

    Returns
    -------
    paths : list of Path
        In the order of ``files``.

    Raises
    ------
    TypeError
        If ``download_if_missing`` is not a bool.
    DataFileError
        Naming every file of ``files`` that is altered, or every file that is missing
        (when not downloaded), or the file and URL of a download that failed.
    """
    if not isinstance(download_if_missing, bool):
        raise TypeError(f"download_if_missing must be True or False, got {download_if_missing!r}.")
    home = get_data_home(data_home)
    paths = [home / _below_data_home(file.path) for file in files]
    altered = [(file, path, digest) for file, path in zip(files, paths, strict=True)
               if path.is_file() and (digest := _sha256(path)) != file.sha256]
    if altered:
        raise DataFileError(
            f"Data files of {source} are not the published files:\n"
            + "".join(f"  {str(path)!r} has SHA-256 {digest}, expected {file.sha256}\n"
                      for file, path, digest in altered)
            + "Delete them to download them again, or save the published files in their place.")
    missing = [(file, path) for file, path in zip(files, paths, strict=True) if not path.is_file()]
    if missing and download_if_missing and all(file.url for file, _ in missing):
        for done, (file, path) in enumerate(missing):
            try:
                _download(file, path)
            except DataFileError as error:
                if done + 1 == len(missing):
                    raise
                raise DataFileError(f"{error}\nNot downloaded either:\n{_listing(missing[done + 1:])}") \
                    from error
    elif missing:
        how = ("call the loader with download_if_missing=True to download them"
               if all(file.url for file, _ in missing)
               else f"download them from {source} and save them under that folder")
        raise DataFileError(
            f"{len(missing)} data file(s) of {source} not found in {str(home)!r}:\n{_listing(missing)}"
            f"To get them, {how}, or point data_home= or the FAIRKIT_DATA environment variable "
            "to a folder that holds them.")
    return paths


def _listing(missing):
    """One line per missing file: its path below the data home and its URL."""
    return "".join(f"  {file.path}" + (f"  from {file.url}" if file.url else "") + "\n"
                   for file, _ in missing)


def fetch_file(relative_path, sha256, source, data_home=None, *, url=None, download_if_missing=True):
    """Return the path of a data file of the data home, checked, downloading it if needed.

    The file is looked up in the data home; when it is missing and ``url`` is given (and
    ``download_if_missing``), it is downloaded from ``url`` into a temporary file beside
    its final place, checked and renamed into place. Either way its SHA-256 must be
    ``sha256``. Plugins that ship loaders of their own use this function.

    Parameters
    ----------
    relative_path : str
        Path of the file below the data home, e.g. ``"adult/adult.data"``. An absolute
        path, or one whose ``..`` parts lead out of the data home, is refused (checked on
        the path's text; links inside the data home are followed).
    sha256 : str
        The expected SHA-256 of the published file.
    source : str
        Where the file is published (named in error messages).
    data_home : str or path-like, default=None
        See :func:`get_data_home`.
    url : str, default=None
        The URL the file is downloaded from; ``None`` never downloads.
    download_if_missing : bool, default=True
        Download a missing file from ``url``; otherwise a missing file is an error.

    Returns
    -------
    path : Path

    Raises
    ------
    ValueError
        If ``relative_path`` is absolute or leads out of the data home.
    DataFileError
        If the file is missing (and not downloaded), its download failed, or its
        checksum differs. A failed download leaves no file behind.
    """
    return fetch_files([DataFile(relative_path, sha256, url)], source, data_home=data_home,
                       download_if_missing=download_if_missing)[0]
