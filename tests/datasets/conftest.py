"""Downloads in the data-set tests: from a loopback HTTP server only.

The ``file_server`` fixture serves a temporary folder over HTTP on 127.0.0.1 from a thread;
``serve_data_set`` copies a data set's reference files into it and points the data set's
URLs at it, the documented way (replacing its entry of ``fairkit.datasets._sources.DATA_SETS``).
Any other download a test attempts fails (``tests/conftest.py``).
"""

import functools
import http.server
import shutil
import threading
from types import SimpleNamespace

import pytest

from fairkit.datasets._sources import DATA_SETS


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Serves the server's folder; records each path asked for; lets a test replace a response."""

    def do_GET(self):  # noqa: N802 (the name http.server calls)
        self.server.requests.append(self.path)
        respond = self.server.responses.get(self.path.lstrip("/"))
        if respond is None:
            super().do_GET()
        else:
            respond(self)

    def log_message(self, format, *args):  # noqa: A002 (the signature of http.server)
        pass


@pytest.fixture
def file_server(tmp_path):
    """An HTTP server on loopback, in a thread, serving the folder ``tmp_path / "served"``.

    Yields a namespace with ``url`` (ending in ``/``), ``folder``, ``requests`` (the paths
    asked for, in order), ``responses`` (``{relative path: handler -> None}`` to answer a
    path by hand, e.g. to cut a transfer short) and ``stop()``.
    """
    folder = tmp_path / "served"
    folder.mkdir()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Handler, directory=folder))
    server.daemon_threads = True
    server.requests, server.responses = [], {}
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def stop():
        if thread.is_alive():
            server.shutdown()
            server.server_close()
            thread.join()

    yield SimpleNamespace(url=f"http://127.0.0.1:{server.server_port}/", folder=folder,
                          requests=server.requests, responses=server.responses, stop=stop)
    stop()


@pytest.fixture
def serve_data_set(file_server, monkeypatch, data_home):
    """``serve_data_set(name)``: serve the reference copy of a data set's files from ``file_server``.

    Its files are copied from the shared data (``data_home``) to the server's folder, and its
    entry of ``DATA_SETS`` is replaced by one whose URLs point there. Returns the server.
    """

    def serve(name):
        data_set = DATA_SETS[name]
        for file in data_set.files:
            (file_server.folder / file.path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(data_home / file.path, file_server.folder / file.path)
        monkeypatch.setitem(DATA_SETS, name, data_set._replace(
            files=tuple(file._replace(url=file_server.url + file.path) for file in data_set.files)))
        return file_server

    return serve
