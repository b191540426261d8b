"""A tiny HTTP server on 127.0.0.1 for the network-grant tests, and the script that fetches from it.

The tests reach it under a test host name the egress proxy is told to pin to 127.0.0.1; no
other address is ever a target.
"""

from __future__ import annotations

import contextlib
import http.server
import threading
from collections.abc import Iterator

#: What the server answers every GET with.
HELLO = b"hello from the index"

#: A workspace script that prints what a URL answers (Python's urllib honours HTTP_PROXY).
FETCH = """\
import sys, urllib.request
print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())
"""


class _Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", str(len(HELLO)))
        self.end_headers()
        self.wfile.write(HELLO)

    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def hello_server() -> Iterator[int]:
    """Serve :data:`HELLO` on 127.0.0.1; yields the port."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
