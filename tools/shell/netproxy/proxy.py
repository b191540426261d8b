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
call's result metadata.  The proxy's event loop runs in one daemon thread, started by the
first lane; a session that grants no network never starts it.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import tempfile
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import urlsplit

from cairn.tools.shell.netproxy.domains import domain_granted, normalize_domains
from cairn.tools.web.ssrf import is_forbidden, literal_address, system_resolver

__all__ = ["EgressProxy", "Lane", "NetRequest", "Resolver"]

#: ``resolver(host, port) -> [address, ...]``; raises ``OSError`` when the name does not resolve.
Resolver = Callable[[str, int], list[str]]

_HEAD_LIMIT = 64 * 1024
_HEAD_TIMEOUT_S = 30.0
_CHUNK = 256 * 1024


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


@dataclass
class Lane:
    """One command's way out: a Unix socket only its sandbox sees, and the domains it may reach."""

    socket_path: str
    domains: tuple[str, ...]
    log: list[NetRequest] = field(default_factory=list)
    _close: Callable[[], None] | None = field(default=None, repr=False)

    def refused(self) -> list[NetRequest]:
        return [r for r in self.log if not r.allowed]

    def close(self) -> None:
        """Stop listening and cut the open connections (the command has ended)."""
        close, self._close = self._close, None
        if close is not None:
            close()


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
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._dir: str | None = None
        self._count = 0
        self._lanes: list[Lane] = []

    # -- lanes --------------------------------------------------------------------------
    def open_lane(self, domains: Iterable[str]) -> Lane:
        """A new lane for one command; raises ``ValueError`` for a malformed domain."""
        grant = normalize_domains(domains)
        loop = self._ensure_loop()
        with self._lock:
            self._count += 1
            path = os.path.join(self._ensure_dir(), f"lane-{self._count}.sock")
        lane = Lane(path, grant)
        tasks: set[asyncio.Task[Any]] = set()

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            task = asyncio.current_task()
            if task is not None:
                tasks.add(task)
            try:
                await self._handle(lane, reader, writer)
            except (Exception, asyncio.CancelledError):  # a broken connection, or the lane closed
                pass
            finally:
                writer.close()
                if task is not None:
                    tasks.discard(task)

        server = asyncio.run_coroutine_threadsafe(
            asyncio.start_unix_server(handle, path, limit=_HEAD_LIMIT), loop
        ).result(timeout=10)

        async def shut() -> None:
            server.close()
            for task in list(tasks):
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        def close() -> None:
            try:
                asyncio.run_coroutine_threadsafe(shut(), loop).result(timeout=10)
            except Exception:
                pass
            try:
                os.unlink(path)
            except OSError:
                pass
            with self._lock:
                if lane in self._lanes:
                    self._lanes.remove(lane)

        lane._close = close
        with self._lock:
            self._lanes.append(lane)
        return lane

    def close(self) -> None:
        """Close every lane and stop the proxy's thread."""
        with self._lock:
            lanes = list(self._lanes)
        for lane in lanes:
            lane.close()
        with self._lock:
            loop, thread, self._loop, self._thread = self._loop, self._thread, None, None
            directory, self._dir = self._dir, None
        if loop is not None:
            loop.call_soon_threadsafe(loop.stop)
            if thread is not None:
                thread.join(timeout=5)
            loop.close()
        if directory is not None:
            try:
                os.rmdir(directory)
            except OSError:
                pass

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="cairn-egress-proxy", daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    def _ensure_dir(self) -> str:
        if self._dir is None:
            self._dir = tempfile.mkdtemp(prefix="cairn-egress-", dir=self._socket_dir)
        return self._dir

    # -- one connection -----------------------------------------------------------------
    async def _handle(self, lane: Lane, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), _HEAD_TIMEOUT_S)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            await _reply(writer, 400, "Bad Request", "cairn proxy: no complete HTTP request head")
            return
        lines = head.decode("latin-1").split("\r\n")
        target = _target(lines[0])
        if isinstance(target, str):
            await _reply(writer, 400, "Bad Request", f"cairn proxy: {target}")
            return
        method, host, port, path, version = target
        request = NetRequest(method=method, host=host, port=port)
        lane.log.append(request)
        addresses, why = await self._check(lane, host, port)
        if not addresses:
            request.reason = why
            await _reply(writer, 403, "Forbidden", f"cairn sandbox: refused {host}:{port}: {why}")
            return
        upstream = await self._connect(addresses, port, request)
        if upstream is None:
            await _reply(writer, 502, "Bad Gateway", f"cairn sandbox: {request.reason}")
            return
        up_reader, up_writer = upstream
        request.allowed = True
        if path is None:
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            await writer.drain()
        else:
            first = _origin_request(method, path, version, lines[1:])
            request.sent += len(first)
            up_writer.write(first)
        try:
            await asyncio.gather(
                _pipe(reader, up_writer, lambda n: _add(request, "sent", n)),
                _pipe(up_reader, writer, lambda n: _add(request, "received", n)),
            )
        finally:
            up_writer.close()

    async def _check(self, lane: Lane, host: str, port: int) -> tuple[list[str], str]:
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
        loop = asyncio.get_running_loop()
        try:
            found = await loop.run_in_executor(None, self.resolver, name, port)
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
        return list(found), ""

    async def _connect(
        self, addresses: list[str], port: int, request: NetRequest
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        error: Exception | None = None
        for address in addresses:
            try:
                stream = await asyncio.wait_for(
                    asyncio.open_connection(address, port, limit=_CHUNK), self.connect_timeout_s
                )
            except (OSError, TimeoutError) as exc:
                error = exc
                continue
            request.address = address
            return stream
        request.reason = f"could not connect to {request.host}:{port} ({error or 'no address'})"
        return None


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


def _add(request: NetRequest, what: str, n: int) -> None:
    setattr(request, what, getattr(request, what) + n)


async def _pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter, count: Callable[[int], None]) -> None:
    try:
        while data := await src.read(_CHUNK):
            count(len(data))
            dst.write(data)
            await dst.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        try:
            if dst.can_write_eof():
                dst.write_eof()
        except (OSError, RuntimeError):
            pass


async def _reply(writer: asyncio.StreamWriter, code: int, phrase: str, body: str) -> None:
    data = (body + "\n").encode("utf-8", "replace")
    reason = body.replace("\r", " ").replace("\n", " ")[:300]
    writer.write(
        f"HTTP/1.1 {code} {phrase}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"X-Cairn-Refused: {reason}\r\nContent-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode(
            "utf-8", "replace"
        )
        + data
    )
    try:
        await writer.drain()
    except (ConnectionError, OSError):
        pass
