"""Local fake search providers on 127.0.0.1: SearXNG-, Tavily-, Brave- and Exa-format JSON.

``FakeSearch.mode`` picks the answer: ``ok`` (results), ``empty``, ``error`` (HTTP 500),
``slow`` (sleeps past the client's timeout), ``garbage`` (not JSON).  Every request is recorded.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

RESULTS = [
    {
        "title": "pathlib — Object-oriented filesystem paths",
        "url": "https://docs.python.org/3/library/pathlib.html",
        "text": "Source code: Lib/pathlib/. This module offers classes representing filesystem paths.",
    },
    {"title": "PEP 428", "url": "https://peps.python.org/pep-0428/", "text": "The pathlib module."},
    {"title": "no link", "url": "", "text": "rows without a URL are skipped"},
]


class FakeSearch:
    def __init__(self) -> None:
        self.mode = "ok"
        self.requests: list[dict[str, Any]] = []
        self.slow_seconds = 3.0
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.app = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def __enter__(self) -> FakeSearch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def body_for(self, path: str) -> dict[str, Any]:
        rows = [] if self.mode == "empty" else RESULTS
        if path == "/search" and self.requests[-1]["method"] == "GET":  # searxng
            return {
                "query": "q",
                "results": [{"title": r["title"], "url": r["url"], "content": r["text"]} for r in rows],
            }
        if path == "/search":  # tavily or exa (POST)
            body = self.requests[-1]["json"] or {}
            if "numResults" in body:
                return {
                    "results": [
                        {"title": r["title"], "url": r["url"], "highlights": [r["text"]]} for r in rows
                    ]
                }
            return {"results": [{"title": r["title"], "url": r["url"], "content": r["text"]} for r in rows]}
        if path == "/res/v1/web/search":
            return {
                "web": {
                    "results": [
                        {"title": r["title"], "url": r["url"], "description": r["text"]} for r in rows
                    ]
                }
            }
        return {}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _answer(self, method: str) -> None:
        app: FakeSearch = self.server.app  # type: ignore[attr-defined]
        parsed = urlparse(self.path)
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        app.requests.append(
            {
                "method": method,
                "path": parsed.path,
                "query": {k: v[0] for k, v in parse_qs(parsed.query).items()},
                "json": json.loads(raw) if raw else None,
                "headers": {k.lower(): v for k, v in self.headers.items()},
            }
        )
        if app.mode == "slow":
            time.sleep(app.slow_seconds)
        if app.mode == "error":
            payload, status, kind = b'{"error": "index offline"}', 500, "application/json"
        elif app.mode == "garbage":
            payload, status, kind = b"<html>not json</html>", 200, "text/html"
        else:
            payload, status, kind = json.dumps(app.body_for(parsed.path)).encode(), 200, "application/json"
        try:
            self.send_response(status)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self) -> None:
        self._answer("GET")

    def do_POST(self) -> None:
        self._answer("POST")
