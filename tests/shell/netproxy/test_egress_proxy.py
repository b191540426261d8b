"""The egress proxy on its own: what it lets through, what it refuses, what it logs.

Every server here listens on 127.0.0.1 and is reached through a name the test pins or
resolves to it; no other address is ever a target.
"""

from __future__ import annotations

import http.client
import http.server
import socket
import threading
from collections.abc import Iterator

import pytest

from cairn.tools.shell.netproxy.domains import domain_granted, normalize_domain, normalize_domains
from cairn.tools.shell.netproxy.proxy import EgressProxy


class _Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = f"hello {self.path} via {self.headers.get('Host')}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def origin() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.fixture
def proxy() -> Iterator[EgressProxy]:
    def resolver(host: str, port: int) -> list[str]:
        if host == "loop.test":
            return ["127.0.0.1"]  # a name DNS answers with loopback: refused however granted
        raise OSError("no such host")

    egress = EgressProxy(resolver=resolver, hosts={"index.test": ["127.0.0.1"]})
    yield egress
    egress.close()


def _unix_http(path: str) -> http.client.HTTPConnection:
    """An HTTP connection to the proxy over its Unix socket (what the bridge does)."""
    conn = http.client.HTTPConnection("proxy", timeout=10)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(10)
    sock.connect(path)
    conn.sock = sock
    return conn


def test_plain_http_to_a_granted_name_is_relayed_and_logged(proxy: EgressProxy, origin: int) -> None:
    lane = proxy.open_lane(["index.test"])
    conn = _unix_http(lane.socket_path)
    conn.request("GET", f"http://index.test:{origin}/simple/?q=1", headers={"Proxy-Connection": "keep-alive"})
    response = conn.getresponse()
    body = response.read()
    assert response.status == 200
    assert body == f"hello /simple/?q=1 via index.test:{origin}".encode()
    lane.close()
    (request,) = lane.log
    assert (request.method, request.host, request.port, request.allowed) == (
        "GET",
        "index.test",
        origin,
        True,
    )
    assert request.address == "127.0.0.1"
    assert request.received >= len(body) and request.sent > 0


def test_connect_tunnels_to_a_granted_name(proxy: EgressProxy, origin: int) -> None:
    lane = proxy.open_lane(["*.test"])
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(10)
    sock.connect(lane.socket_path)
    sock.sendall(f"CONNECT index.test:{origin} HTTP/1.1\r\nHost: index.test:{origin}\r\n\r\n".encode())
    assert sock.recv(100) == b"HTTP/1.1 200 Connection established\r\n\r\n"
    # The tunnel is a byte stream to the origin: speak HTTP through it.
    sock.sendall(b"GET /through HTTP/1.1\r\nHost: index.test\r\nConnection: close\r\n\r\n")
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    sock.close()
    assert data.startswith(b"HTTP/1.0 200") and data.endswith(b"hello /through via index.test")
    lane.close()
    (request,) = lane.log
    assert (request.method, request.allowed) == ("CONNECT", True)
    assert request.received == len(data) and request.sent > 0


@pytest.mark.parametrize(
    ("target", "why"),
    [
        ("other.test", "is not a domain this command may reach"),
        ("127.0.0.1", "an address, not a domain name"),
        ("loop.test", "a private, loopback or otherwise non-public address"),
        ("missing.example", "is not a domain this command may reach"),
    ],
)
def test_refusals_name_the_host_and_the_reason(
    proxy: EgressProxy, origin: int, target: str, why: str
) -> None:
    lane = proxy.open_lane(["index.test", "loop.test"])
    conn = _unix_http(lane.socket_path)
    conn.request("CONNECT", f"{target}:{origin}")
    response = conn.getresponse()
    body = response.read().decode()
    assert response.status == 403
    assert why in body and target in body
    assert why in response.getheader("X-Cairn-Refused", "")
    lane.close()
    (request,) = lane.log
    assert not request.allowed and why in request.reason and request.address is None


def test_a_granted_name_that_does_not_resolve_is_refused(proxy: EgressProxy) -> None:
    lane = proxy.open_lane(["nowhere.test"])
    conn = _unix_http(lane.socket_path)
    conn.request("GET", "http://nowhere.test/")
    response = conn.getresponse()
    assert response.status == 403 and "DNS lookup for nowhere.test failed" in response.read().decode()
    lane.close()


def test_lanes_are_separate_and_closing_one_removes_its_socket(proxy: EgressProxy, origin: int) -> None:
    first, second = proxy.open_lane(["index.test"]), proxy.open_lane(["other.test"])
    conn = _unix_http(second.socket_path)
    conn.request("GET", f"http://index.test:{origin}/")
    assert conn.getresponse().status == 403  # the second lane was not granted index.test
    first.close()
    second.close()
    with pytest.raises(OSError):
        _unix_http(first.socket_path)
    assert first.log == [] and len(second.log) == 1


def test_garbage_gets_a_bad_request(proxy: EgressProxy) -> None:
    lane = proxy.open_lane(["index.test"])
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(10)
    sock.connect(lane.socket_path)
    sock.sendall(b"HELLO\r\n\r\n")
    assert sock.recv(100).startswith(b"HTTP/1.1 400")
    sock.close()
    lane.close()


def test_domains_normalize_and_match() -> None:
    assert normalize_domains(["PyPI.org.", "*.PythonHosted.org", "pypi.org"]) == (
        "pypi.org",
        "*.pythonhosted.org",
    )
    assert normalize_domain("bücher.example") == "xn--bcher-kva.example"
    for bad in ("10.0.0.1", "-x.org", "a..b", "", "*.", "exa mple.org", "1.2.3"):
        with pytest.raises(ValueError):
            normalize_domain(bad)
    grants = ("pypi.org", "*.pythonhosted.org")
    assert domain_granted("pypi.org", grants) and domain_granted("files.pythonhosted.org", grants)
    assert not domain_granted("pythonhosted.org", grants)  # a wildcard grants subdomains only
    assert not domain_granted("evilpypi.org", grants) and not domain_granted("pypi.org.evil", grants)
