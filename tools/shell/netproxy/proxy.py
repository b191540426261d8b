"""The egress proxy: HTTP ``CONNECT`` and plain HTTP, one Unix socket per command (a *lane*).

Each sandboxed command that was granted domains gets its own lane: a Unix socket (bound into
its sandbox) and the domains of its verdict.  For every request the proxy

1. refuses an address written as the host (grants are by name), or a name outside the grant;
2. resolves the name itself (the command's DNS is never used), or takes the address a person
   pinned in their settings (``[sandbox] network_hosts``);
3. refuses names that resolve to loopback, private, link-local, metadata or otherwise
   non-public addresses (the web tools' SSRF rule, :func:`cairn.tools.web.ssrf.is_forbidden`);
4. connects to an address it checked (no second lookup) and relays bytes; TLS is not
   intercepted, so what is sent to a granted host is not inspected.

Every request is logged on the lane (host, port, allowed or refused and why, bytes) for the
call's result metadata.  Threads, not an event loop: a lane's listener is one thread, each
connection one (two while relaying, with zero-copy ``splice``); a session that grants no network
starts none.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import tempfile
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import urlsplit

from cairn.tools.shell.netproxy.bridge import relay
from cairn.tools.shell.netproxy.domains import domain_granted, normalize_domains
from cairn.tools.web.ssrf import is_forbidden, literal_address, system_resolver

__all__ = ["EgressProxy", "Lane", "NetRequest", "Resolver"]

#: ``resolver(host, port) -> [address, ...]``; raises ``OSError`` when the name does not resolve.
Resolver = Callable[[str, int], list[str]]

_HEAD_LIMIT = 64 * 1024
_HEAD_TIMEOUT_S = 30.0


@dataclass
class NetRequest:
    """One request a command made through its lane."""

    method: str
    host: str
    port: int
    allowed: bool = False
    #: Why it was refused (or could not connect); empty when allowed.
    reason: str = ""
    #: The address the proxy connected to.
    address: str | None = None
    #: Bytes from the command to the host, and back.
    sent: int = 0
    received: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def add_sent(self, n: int) -> None:
        self.sent += n

    def add_received(self, n: int) -> None:
        self.received += n


@dataclass
class Lane:
    """One command's way out: a Unix socket only its sandbox sees, and the domains it may reach."""

    socket_path: str
    domains: tuple[str, ...]
    log: list[NetRequest] = field(default_factory=list)
    _listener: socket.socket | None = field(default=None, repr=False)
    _open: set[socket.socket] = field(default_factory=set, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _on_close: Callable[[Lane], None] | None = field(default=None, repr=False)

    def refused(self) -> list[NetRequest]:
        return [r for r in self.log if not r.allowed]

    def track(self, sock: socket.socket) -> bool:
        """Remember an open connection (cut when the lane closes); False once it is closed."""
        with self._lock:
            if self._listener is None:
                return False
            self._open.add(sock)
            return True

    def untrack(self, sock: socket.socket) -> None:
        with self._lock:
            self._open.discard(sock)

    def close(self) -> None:
        """Stop listening and cut the open connections (the command has ended)."""
        with self._lock:
            listener, self._listener = self._listener, None
            open_now, self._open = list(self._open), set()
        if listener is None:
            return
        for sock in (listener, *open_now):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()
        try:
            os.unlink(self.socket_path)
        except OSError:
            pass
        if self._on_close is not None:
            self._on_close(self)


class EgressProxy:
    """The session's proxy; :meth:`open_lane` per command, :meth:`close` with the session."""

    def __init__(
        self,
        *,
        resolver: Resolver | None = None,
        hosts: Mapping[str, Sequence[str]] | None = None,
        connect_timeout_s: float = 10.0,
        socket_dir: str | None = None,
    ) -> None:
        #: DNS for the names a command asks for (default: the system resolver, run by cairn).
        self.resolver: Resolver = resolver or system_resolver
        #: Names a person pinned to addresses in their own settings: no DNS, and the public-
        #: address rule does not apply (an internal package mirror).
        self.hosts = {name.lower().rstrip("."): list(addrs) for name, addrs in (hosts or {}).items()}
        self.connect_timeout_s = connect_timeout_s
        self._socket_dir = socket_dir
        self._lock = threading.Lock()
        self._dir: str | None = None
        self._count = 0
        self._lanes: list[Lane] = []

    # -- lanes --------------------------------------------------------------------------
    def open_lane(self, domains: Iterable[str]) -> Lane:
        """A new lane for one command; raises ``ValueError`` for a malformed domain."""
        grant = normalize_domains(domains)
        with self._lock:
            self._count += 1
            if self._dir is None:
                self._dir = tempfile.mkdtemp(prefix="cairn-egress-", dir=self._socket_dir)
            path = os.path.join(self._dir, f"lane-{self._count}.sock")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(path)
        listener.listen(64)
        lane = Lane(path, grant, _listener=listener, _on_close=self._forget)
        with self._lock:
            self._lanes.append(lane)
        threading.Thread(target=self._accept, args=(lane, listener), name="cairn-egress", daemon=True).start()
        return lane

    def close(self) -> None:
        """Close every lane (the session ends)."""
        with self._lock:
            lanes, directory, self._dir = list(self._lanes), self._dir, None
        for lane in lanes:
            lane.close()
        if directory is not None:
            try:
                os.rmdir(directory)
            except OSError:
                pass

    def _forget(self, lane: Lane) -> None:
        with self._lock:
            if lane in self._lanes:
                self._lanes.remove(lane)

    def _accept(self, lane: Lane, listener: socket.socket) -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return  # the lane closed
            if not lane.track(conn):
                conn.close()
                return
            threading.Thread(target=self._serve, args=(lane, conn), daemon=True).start()

    # -- one connection -----------------------------------------------------------------
    def _serve(self, lane: Lane, conn: socket.socket) -> None:
        try:
            self._handle(lane, conn)
        except OSError:
            pass  # the command or the host went away, or the lane closed
        finally:
            lane.untrack(conn)
            conn.close()

    def _handle(self, lane: Lane, conn: socket.socket) -> None:
        head, rest = _read_head(conn)
        if head is None:
            _reply(conn, 400, "Bad Request", "cairn proxy: no complete HTTP request head")
            return
        lines = head.decode("latin-1").split("\r\n")
        target = _target(lines[0])
        if isinstance(target, str):
            _reply(conn, 400, "Bad Request", f"cairn proxy: {target}")
            return
        method, host, port, path, version = target
        request = NetRequest(method=method, host=host, port=port)
        lane.log.append(request)
        addresses, why = self._check(lane, host, port)
        if not addresses:
            request.reason = why
            _reply(conn, 403, "Forbidden", f"cairn sandbox: refused {host}:{port}: {why}")
            return
        upstream = self._connect(addresses, port, request)
        if upstream is None:
            _reply(conn, 502, "Bad Gateway", f"cairn sandbox: {request.reason}")
            return
        if not lane.track(upstream):
            upstream.close()
            return
        try:
            request.allowed = True
            if path is None:
                conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            else:
                first = _origin_request(method, path, version, lines[1:])
                upstream.sendall(first)
                request.sent += len(first)
            if rest:
                upstream.sendall(rest)
                request.sent += len(rest)
            conn.settimeout(None)
            relay(conn, upstream, request.add_sent, request.add_received)
        finally:
            lane.untrack(upstream)
            upstream.close()

    def _check(self, lane: Lane, host: str, port: int) -> tuple[list[str], str]:
        """The addresses to connect to, or ``([], why)``."""
        name = host.lower().rstrip(".")
        if literal_address(name) is not None:
            return [], "an address, not a domain name: sandboxed commands reach granted domains only"
        if not domain_granted(name, lane.domains):
            granted = ", ".join(lane.domains) or "none"
            return [], f"{name} is not a domain this command may reach (granted: {granted})"
        if not 0 < port < 65536:
            return [], f"port {port} is not a TCP port"
        pinned = self.hosts.get(name)
        if pinned:
            return pinned, ""
        try:
            found = list(self.resolver(name, port))
        except (OSError, UnicodeError) as exc:
            return [], f"DNS lookup for {name} failed ({exc})"
        if not found:
            return [], f"DNS lookup for {name} returned no address"
        for text in found:
            try:
                address = ipaddress.ip_address(text)
            except ValueError:
                return [], f"DNS for {name} answered {text!r}, not an address"
            if is_forbidden(address):
                return [], f"{name} resolves to {text}, a private, loopback or otherwise non-public address"
        return found, ""

    def _connect(self, addresses: list[str], port: int, request: NetRequest) -> socket.socket | None:
        error: Exception | None = None
        for address in addresses:
            try:
                sock = socket.create_connection((address, port), timeout=self.connect_timeout_s)
            except OSError as exc:
                error = exc
                continue
            sock.settimeout(None)
            request.address = address
            return sock
        request.reason = f"could not connect to {request.host}:{port} ({error or 'no address'})"
        return None


def _read_head(conn: socket.socket) -> tuple[bytes | None, bytes]:
    """The request head (up to the blank line) and any bytes read past it."""
    conn.settimeout(_HEAD_TIMEOUT_S)
    data = b""
    while b"\r\n\r\n" not in data:
        if len(data) > _HEAD_LIMIT:
            return None, b""
        try:
            chunk = conn.recv(65536)
        except TimeoutError:
            return None, b""
        if not chunk:
            return None, b""
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return head + b"\r\n\r\n", rest


def _target(line: str) -> tuple[str, str, int, str | None, str] | str:
    """``(method, host, port, path or None for CONNECT, version)`` or why the line is bad."""
    parts = line.split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/"):
        return "not an HTTP request line"
    method, target, version = parts[0].upper(), parts[1], parts[2]
    if method == "CONNECT":
        host, sep, port = target.rpartition(":")
        if not sep or not port.isdigit():
            return "CONNECT needs host:port"
        return method, host.strip("[]"), int(port), None, version
    url = urlsplit(target)
    if url.scheme.lower() != "http" or not url.hostname:
        return "only absolute http:// URLs (HTTPS goes through CONNECT)"
    try:
        port_number = url.port or 80
    except ValueError:
        return "bad port"
    path = (url.path or "/") + (f"?{url.query}" if url.query else "")
    return method, url.hostname, port_number, path, version


_HOP_HEADERS = ("proxy-connection:", "proxy-authorization:", "connection:", "keep-alive:")


def _origin_request(method: str, path: str, version: str, header_lines: list[str]) -> bytes:
    """The request as the origin server expects it: its path, no proxy headers, one request."""
    headers = [h for h in header_lines if h and not h.lower().startswith(_HOP_HEADERS)]
    text = (
        f"{method} {path} {version}\r\n" + "".join(f"{h}\r\n" for h in headers) + "Connection: close\r\n\r\n"
    )
    return text.encode("latin-1")


def _reply(conn: socket.socket, code: int, phrase: str, body: str) -> None:
    data = (body + "\n").encode("utf-8", "replace")
    reason = body.replace("\r", " ").replace("\n", " ")[:300]
    head = (
        f"HTTP/1.1 {code} {phrase}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"X-Cairn-Refused: {reason}\r\nContent-Length: {len(data)}\r\nConnection: close\r\n\r\n"
    )
    try:
        conn.sendall(head.encode("latin-1", "replace") + data)
    except OSError:
        pass
