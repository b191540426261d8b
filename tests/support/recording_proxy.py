"""A pass-through HTTP proxy on 127.0.0.1 that records what each model request cost.

Put between cairn and a real OpenAI-compatible server (the local llama.cpp one), it forwards
every request unchanged, streams the answer back as it arrives, and records per chat request:
the ``label`` the caller set (which run it belongs to), the number of messages and tools sent,
the time to the first streamed token or tool-call delta (``ttft_s``), the total time, and what
the server reported: ``usage`` and llama.cpp's ``timings`` (``prompt_n`` tokens evaluated,
``cache_n`` tokens reused from its prefix cache, ``prompt_ms``), and the text the model wrote.  Used by
``tests/benchmarks/bench_small_model.py`` and the local-model e2e test.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host"}


class RecordingProxy:
    def __init__(self, upstream: str) -> None:
        """``upstream``: the server's base URL (``http://127.0.0.1:PORT/v1``)."""
        parts = urlsplit(upstream)
        self.upstream_host = parts.hostname or "127.0.0.1"
        self.upstream_port = parts.port or 80
        self.prefix = parts.path.rstrip("/")
        self.label = ""
        self.records: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}{self.prefix}"

    def __enter__(self) -> RecordingProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def for_label(self, label: str) -> list[dict[str, Any]]:
        with self._lock:
            return [r for r in self.records if r["label"] == label]

    def add(self, record: dict[str, Any]) -> None:
        with self._lock:
            self.records.append(record)


def _handler(proxy: RecordingProxy) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"  # the answer ends when the connection closes

        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            self._forward(None)

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            self._forward(self.rfile.read(length))

        def _forward(self, body: bytes | None) -> None:
            label, started = proxy.label, time.monotonic()
            conn = http.client.HTTPConnection(proxy.upstream_host, proxy.upstream_port, timeout=1800)
            headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP}
            conn.request(self.command, self.path, body=body, headers=headers)
            upstream = conn.getresponse()
            self.send_response(upstream.status)
            for key, value in upstream.getheaders():
                if key.lower() not in _HOP:
                    self.send_header(key, value)
            self.end_headers()
            chat = self.command == "POST" and self.path.endswith("/chat/completions")
            record: dict[str, Any] = {"label": label, "status": upstream.status, "ttft_s": None}
            if chat and body:
                sent = json.loads(body)
                record.update(messages=len(sent.get("messages") or []), tools=len(sent.get("tools") or []))
                record["stream"] = bool(sent.get("stream"))
            raw = b""
            try:
                while line := upstream.readline():
                    if chat:
                        raw += line
                        if record["ttft_s"] is None and _has_delta(line):
                            record["ttft_s"] = round(time.monotonic() - started, 3)
                    self.wfile.write(line)
                    self.wfile.flush()
            except OSError:  # the client went away (cairn stopped or killed): record what came
                record["client_gone"] = True
            finally:
                conn.close()
            if chat:
                record["total_s"] = round(time.monotonic() - started, 3)
                record.update(_reported(raw))
                proxy.add(record)

    return Handler


def _has_delta(line: bytes) -> bool:
    """Does this SSE line (or a whole JSON body) carry generated text or a tool-call delta?"""
    text = line.strip()
    if text.startswith(b"data:"):
        text = text[5:].strip()
    if not text.startswith(b"{"):
        return False
    try:
        doc = json.loads(text)
    except ValueError:
        return False
    for choice in doc.get("choices") or []:
        part = choice.get("delta") or choice.get("message") or {}
        if part.get("content") or part.get("tool_calls"):
            return True
    return False


def _reported(raw: bytes) -> dict[str, Any]:
    """usage, timings and finish_reason from a streamed (SSE) or a plain JSON answer."""
    found: dict[str, Any] = {}
    docs = []
    for line in raw.splitlines():
        text = line.strip()
        if text.startswith(b"data:"):
            text = text[5:].strip()
        if text.startswith(b"{"):
            try:
                docs.append(json.loads(text))
            except ValueError:
                continue
    if not docs and raw.strip().startswith(b"{"):
        docs = [json.loads(raw)]
    text = []
    for doc in docs:
        for key in ("usage", "timings"):
            if doc.get(key):
                found[key] = doc[key]
        for choice in doc.get("choices") or []:
            if choice.get("finish_reason"):
                found["finish_reason"] = choice["finish_reason"]
            part = choice.get("delta") or choice.get("message") or {}
            if isinstance(part.get("content"), str):
                text.append(part["content"])
    found["content"] = "".join(text)[:4000]  # what the model wrote (for reading a run afterwards)
    return found
