"""Network by domain for sandboxed commands (bubblewrap): pip reaches a granted index, nothing else.

The package index is served by the test on 127.0.0.1 under the name ``index.test``, pinned for
the egress proxy the way a person pins an internal mirror (``[sandbox] network_hosts``).  No
address other than 127.0.0.1 is ever a target.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import http.server
import io
import shlex
import sys
import threading
import zipfile
from collections.abc import Iterator

import pytest

from cairn.tools.base import RiskLevel, ToolContext
from cairn.tools.shell.sandbox import detect_backend

from .conftest import Sandboxed, make_spec

PACKAGE = "cairnprobe"
WHEEL = f"{PACKAGE}-1.0-py3-none-any.whl"


def _wheel() -> bytes:
    """A minimal valid wheel: one module, its metadata and RECORD."""
    files = {
        f"{PACKAGE}.py": b"VALUE = 42\n",
        f"{PACKAGE}-1.0.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {PACKAGE}\nVersion: 1.0\n".encode(),
        f"{PACKAGE}-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append(f"{PACKAGE}-1.0.dist-info/RECORD,,")
    files[f"{PACKAGE}-1.0.dist-info/RECORD"] = ("\n".join(record) + "\n").encode()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def index() -> Iterator[int]:
    """A PEP 503 simple index on 127.0.0.1 with one package."""
    wheel = _wheel()
    pages = {
        "/simple/": f'<a href="/simple/{PACKAGE}/">{PACKAGE}</a>'.encode(),
        f"/simple/{PACKAGE}/": f'<a href="/files/{WHEEL}">{WHEEL}</a>'.encode(),
        f"/files/{WHEEL}": wheel,
    }

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages.get(self.path)
            self.send_response(200 if body is not None else 404)
            kind = "application/octet-stream" if self.path.endswith(".whl") else "text/html"
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.fixture
def net(area) -> Iterator[Sandboxed]:
    status = detect_backend("bwrap")
    if not status.available:
        pytest.skip(f"bwrap does not work on this machine: {status.problem}")
    tools = Sandboxed(area, status)
    tools.services.network_hosts = {"index.test": ("127.0.0.1",)}
    tools.services.network_resolver = _resolver
    yield tools
    tools.close()


def _resolver(host: str, port: int) -> list[str]:
    if host == "loop.test":
        return ["127.0.0.1"]  # DNS answering loopback: refused even when granted
    raise OSError("no such host in this test")


def _run(tools: Sandboxed, command: str, domains: tuple[str, ...]):
    spec = dataclasses.replace(make_spec("workspace-write", tools.area), allowed_domains=domains)
    return tools.bash.execute(
        {"command": command, "timeout": 120_000}, ToolContext(risk=RiskLevel.MEDIUM, sandbox=spec)
    )


def _pip(action: str, port: int, host: str = "index.test") -> str:
    python = shlex.quote(sys.executable)
    where = "-d dl" if action == "download" else "--target site"
    return (
        f"{python} -m pip {action} --no-cache-dir --disable-pip-version-check --no-deps --retries 0 "
        f"--timeout 5 --trusted-host {host} --index-url http://{host}:{port}/simple/ {where} {PACKAGE}"
    )


def test_pip_download_and_install_reach_a_granted_index(net: Sandboxed, area, index: int) -> None:
    result = _run(net, _pip("download", index), ("index.test",))
    assert result.metadata["exit_code"] == 0, result.output
    assert (area.ws / "dl" / WHEEL).is_file(), result.output
    log = result.metadata["network"]
    assert log and all(entry["host"] == "index.test" and entry["allowed"] for entry in log)
    assert sum(entry["received"] for entry in log) >= len(_wheel())

    result = _run(net, _pip("install", index), ("index.test",))
    assert result.metadata["exit_code"] == 0, result.output
    assert (area.ws / "site" / f"{PACKAGE}.py").read_text() == "VALUE = 42\n"


def test_pip_fails_when_the_index_is_not_granted(net: Sandboxed, area, index: int) -> None:
    result = _run(net, _pip("download", index), ("pypi.org",))
    assert result.metadata["exit_code"] != 0
    assert not (area.ws / "dl").exists() or not any((area.ws / "dl").iterdir())
    refused = [entry for entry in result.metadata["network"] if not entry["allowed"]]
    assert refused and refused[0]["host"] == "index.test"
    assert "refused index.test" in result.output and "domain:index.test" in result.output


def test_a_granted_name_resolving_to_loopback_is_refused(net: Sandboxed, index: int) -> None:
    result = _run(net, _pip("download", index, host="loop.test"), ("loop.test",))
    assert result.metadata["exit_code"] != 0
    (entry, *_) = result.metadata["network"]
    assert not entry["allowed"] and "non-public address" in entry["reason"]


def test_direct_connections_still_fail_with_a_grant(net: Sandboxed, index: int) -> None:
    probe = (
        f'{shlex.quote(sys.executable)} -c \'import socket; socket.create_connection(("127.0.0.1", {index}), 3); '
        'print("CONNECTED")\''
    )
    result = _run(net, probe, ("index.test",))
    assert "CONNECTED" not in result.output and result.metadata["exit_code"] != 0
    assert result.metadata["network"] == []  # it never went through the proxy


def test_the_proxy_variables_point_into_the_sandbox(net: Sandboxed) -> None:
    result = _run(net, 'echo "$HTTPS_PROXY $NO_PROXY"', ("index.test",))
    assert result.metadata["exit_code"] == 0
    url, no_proxy = result.output.split()[:2]
    assert url.startswith("http://127.0.0.1:") and "127.0.0.1" in no_proxy


def test_no_grant_no_bridge(net: Sandboxed) -> None:
    result = _run(net, 'echo "[$HTTPS_PROXY]"', ())
    assert "[]" in result.output and "network" not in result.metadata
