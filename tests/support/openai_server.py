"""A small OpenAI-compatible HTTP server that answers from a script (the ``cairn.graph.models.script`` format).

End-to-end tests point the real ``langchain_openai.ChatOpenAI`` at it, so the whole client path
(streaming SSE, tool-call deltas, usage, retries) is exercised without the network.

- ``POST /v1/chat/completions``: streaming (SSE, content token by token, tool-call arguments split
  across deltas, ``stream_options.include_usage``) and non-streaming.  The turn answered is the
  number of assistant messages in the request, so a client restarted mid-session gets the right
  turn.  ``http_error``/``times`` in a turn answers that status N times first (with a tiny
  ``retry-after-ms`` so client retries are fast); ``error`` answers its status every time.
  ``finish_reason`` states another finish reason (``length``); ``cut`` ends the stream without
  one (no ``[DONE]`` either: a stream cut mid-arguments); ``empty_choices: N`` answers
  ``choices: []`` N times first (``true``: always).
- ``model_turns={"name": [...]}`` answers requests for that model from their own script (a
  second model of the session, e.g. web_fetch's page summaries); other models use ``turns``.
- ``GET /v1/models``: one model, ``model_id`` (default ``scripted``), with ``context_length`` when
  the server has a ``context_limit``.
- ``sequential=True``: the n-th chat request gets turn n, however many assistant messages it
  holds (a harness that asks again, e.g. after a cut runaway reply or an empty answer).
- ``props={...}``: ``GET /props`` answers it (llama.cpp's ``n_ctx`` report); without it, 404.
- ``context_limit=N``: a chat request over N prompt tokens (words of its messages) is answered
  HTTP 400 with OpenAI's ``context_length_exceeded`` body, as a real provider does.
- cairn's compaction summary requests are answered by ``summary`` (a script turn; default: a
  fixed summary) without using a script turn; they are recorded in ``.summary_requests``.
- Every chat request body is recorded (``.requests``) and optionally appended to a JSONL file.

Run it for subprocess tests (from the repository root)::

    python -m tests.support.openai_server --script FILE [--port 0] [--requests-log FILE]

which prints ``PORT=<n>`` as its first stdout line, then ``BASE_URL=<url>``.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from cairn.graph.models.script import SCRIPTED_SUMMARY, ScriptTurn, load_script, turn_at
from tests.support.openai_wire import (
    completion_body,
    context_length_error,
    count_assistant_messages,
    count_request_tokens,
    empty_choices_body,
    empty_choices_events,
    error_body,
    find_dangling_tool_calls,
    find_orphan_tool_messages,
    is_summary_body,
    stream_events,
)

__all__ = ["ScriptedOpenAIServer", "find_dangling_tool_calls", "find_orphan_tool_messages", "main"]

_CHAT_PATHS = {"/v1/chat/completions", "/chat/completions"}
_MODELS_PATHS = {"/v1/models", "/models"}


class ScriptedOpenAIServer:
    """Serve ``turns`` on ``host:port`` (port 0 picks a free one) from a background thread."""

    def __init__(
        self,
        turns: list[ScriptTurn],
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        retry_after_ms: int = 1,
        requests_log: str | Path | None = None,
        model_turns: dict[str, list[ScriptTurn]] | None = None,
        model_info: dict[str, Any] | None = None,
        context_limit: int | None = None,
        summary: ScriptTurn | None = None,
        model_id: str = "scripted",
        props: dict[str, Any] | None = None,
        sequential: bool = False,
    ) -> None:
        self.turns = turns
        self.model_turns = dict(model_turns or {})
        #: Extra fields of the model's entry in ``GET /v1/models`` (e.g. ``max_model_len``).
        self.model_info = dict(model_info or {})
        self.context_limit = context_limit
        self.summary = summary or ScriptTurn(chunks=(SCRIPTED_SUMMARY,))
        self.model_id = model_id
        #: What ``GET /props`` answers (llama.cpp reports the served window there), or None: 404.
        self.props = props
        self.sequential = sequential
        self._answered = 0
        self.summary_requests: list[dict[str, Any]] = []
        self.rejected: list[dict[str, Any]] = []
        self.retry_after_ms = retry_after_ms
        self.requests_log = Path(requests_log) if requests_log else None
        self._lock = threading.Lock()
        self._requests: list[dict[str, Any]] = []
        self._headers: list[dict[str, str]] = []
        self._errors_served: dict[tuple[str, int], int] = {}
        self._httpd = ThreadingHTTPServer((host, port), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.app = self  # type: ignore[attr-defined]
        self._thread: threading.Thread | None = None

    # -- lifecycle ----------------------------------------------------------------------------------

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://{self._httpd.server_address[0]}:{self.port}/v1"

    def start(self) -> ScriptedOpenAIServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.05,), name="openai-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def serve_forever(self) -> None:
        """Serve in the calling thread until interrupted (the command-line entry point)."""
        try:
            self._httpd.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            self._httpd.server_close()

    def __enter__(self) -> ScriptedOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- what tests inspect -------------------------------------------------------------------------

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Every chat-completions request body received, in arrival order (a copy)."""
        with self._lock:
            return list(self._requests)

    @property
    def request_headers(self) -> list[dict[str, str]]:
        with self._lock:
            return list(self._headers)

    # -- answering ----------------------------------------------------------------------------------

    def record(self, body: dict[str, Any], headers: dict[str, str]) -> None:
        with self._lock:
            self._requests.append(body)
            self._headers.append({key.lower(): value for key, value in headers.items()})
            if self.requests_log is not None:
                with self.requests_log.open("a", encoding="utf-8") as log:
                    log.write(json.dumps(body) + "\n")

    def over_limit(self, body: dict[str, Any]) -> int | None:
        """The request's token count when it exceeds ``context_limit`` (else None)."""
        if self.context_limit is None:
            return None
        tokens = count_request_tokens(body)
        if tokens <= self.context_limit:
            return None
        with self._lock:
            self.rejected.append(body)
        return tokens

    def serve_empty(self, body: dict[str, Any], index: int, turn: ScriptTurn) -> bool:
        """Whether this attempt at turn ``index`` is answered with no choices (``empty_choices``)."""
        if turn.empty_choices <= 0:
            return False
        key = (f"empty:{body.get('model', '')}", index)
        with self._lock:
            served = self._errors_served.get(key, 0)
            if served >= turn.empty_choices:
                return False
            self._errors_served[key] = served + 1
            return True

    def plan(self, body: dict[str, Any]) -> tuple[int, ScriptTurn, tuple[int, str] | None]:
        """The turn to answer and, if this attempt must fail, its (status, message)."""
        if is_summary_body(body):
            with self._lock:
                self.summary_requests.append(body)
            return -1, self.summary, self.summary.error
        index = count_assistant_messages(body)
        if self.sequential:
            with self._lock:
                index, self._answered = self._answered, self._answered + 1
        model = str(body.get("model", ""))
        turn = turn_at(self.model_turns.get(model, self.turns), index)
        if turn.error is not None:
            return index, turn, turn.error
        if turn.http_error is not None:
            with self._lock:
                served = self._errors_served.get((model, index), 0)
                if served < turn.times:
                    self._errors_served[(model, index)] = served + 1
                    return index, turn, (turn.http_error, f"scripted error {served + 1} of {turn.times}")
        return index, turn, None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out as separate writes; avoid a 40 ms stall
    server_version = "cairn-test-openai/1"

    @property
    def app(self) -> ScriptedOpenAIServer:
        return self.server.app  # type: ignore[attr-defined]

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean

    def _send_json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path.rstrip("/") in _MODELS_PATHS:
            model = {"id": self.app.model_id, "object": "model", "created": 0, "owned_by": "cairn-tests"}
            if self.app.context_limit is not None:
                model["context_length"] = self.app.context_limit
            model.update(self.app.model_info)
            self._send_json(200, {"object": "list", "data": [model]})
        elif self.path.rstrip("/") == "/props" and self.app.props is not None:
            self._send_json(200, self.app.props)
        else:
            self._send_json(404, error_body(404, f"no route {self.path}"))

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.rstrip("/") not in _CHAT_PATHS:
            self._send_json(404, error_body(404, f"no route {self.path}"))
            return
        try:
            body = json.loads(raw)
            assert isinstance(body, dict)
        except (ValueError, AssertionError):
            self._send_json(400, error_body(400, "request body is not a JSON object"))
            return
        self.app.record(body, dict(self.headers.items()))
        tokens = self.app.over_limit(body)
        if tokens is not None:
            self._send_json(400, context_length_error(self.app.context_limit or 0, tokens))
            return
        index, turn, failure = self.app.plan(body)
        if turn.sleep > 0:
            time.sleep(turn.sleep)
        if failure is not None:
            status, message = failure
            self._send_json(
                status, error_body(status, message), {"retry-after-ms": str(self.app.retry_after_ms)}
            )
        elif self.app.serve_empty(body, index, turn):
            if body.get("stream"):
                self._stream_events(empty_choices_events(body, index), done=True)
            else:
                self._send_json(200, empty_choices_body(body, index))
        elif body.get("stream"):
            self._stream(body, turn, index)
        else:
            self._send_json(200, completion_body(body, turn, index))

    def _stream(self, body: dict[str, Any], turn: ScriptTurn, index: int) -> None:
        # A cut turn's stream simply ends: no finish reason and no ``[DONE]``.
        self._stream_events(stream_events(body, turn, index), done=not turn.cut)

    def _stream_events(self, events: list[dict[str, Any]], *, done: bool) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        payloads = [json.dumps(event) for event in events] + (["[DONE]"] if done else [])
        for payload in payloads:
            data = f"data: {payload}\n\n".encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")

    def handle_one_request(self) -> None:
        try:
            super().handle_one_request()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client went away (e.g. a test killed it)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--script", required=True, help="JSON script file (cairn.graph.models.script format)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--requests-log", help="append every chat request body to this JSONL file")
    parser.add_argument("--retry-after-ms", type=int, default=1)
    parser.add_argument("--context-limit", type=int, help="answer context_length_exceeded above N tokens")
    args = parser.parse_args(argv)
    server = ScriptedOpenAIServer(
        load_script(args.script),
        host=args.host,
        port=args.port,
        retry_after_ms=args.retry_after_ms,
        requests_log=args.requests_log,
        context_limit=args.context_limit,
    )
    print(f"PORT={server.port}", flush=True)
    print(f"BASE_URL={server.base_url}", flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
