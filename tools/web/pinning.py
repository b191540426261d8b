"""Connect to the address that was checked, not to whatever DNS answers next.

The fetch resolves a host once, the URL check judges those addresses, and the connection goes
to one of them: a DNS server that answers a public address for the check and ``127.0.0.1`` for
the connection (DNS rebinding) gets nowhere.  TLS still verifies the certificate against the
host *name* (httpcore passes the URL's host as ``server_hostname``), so pinning changes where
the bytes go, not who must answer.
"""

from __future__ import annotations

import ipaddress
import ssl
from typing import Any

import certifi
import httpcore
import httpx

__all__ = ["PinnedBackend", "pinned_transport"]


class PinnedBackend(httpcore.NetworkBackend):
    """A network backend that only connects to addresses pinned for a host."""

    def __init__(self) -> None:
        self.pins: dict[str, list[str]] = {}
        self._inner = httpcore.SyncBackend()

    def pin(self, host: str, addresses: list[str]) -> None:
        self.pins[host.lower().strip("[]")] = list(addresses)

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.NetworkStream:
        key = host.lower().strip("[]")
        addresses = self.pins.get(key)
        if addresses is None:
            try:
                ipaddress.ip_address(key)
            except ValueError:
                raise httpcore.ConnectError(f"{host} was not checked before connecting") from None
            addresses = [key]
        error: Exception | None = None
        for address in addresses:
            try:
                return self._inner.connect_tcp(address, port, timeout, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                error = exc
        assert error is not None
        raise error

    def connect_unix_socket(self, path: str, timeout: float | None = None, socket_options: Any = None) -> Any:
        raise httpcore.ConnectError("unix sockets are not used by web_fetch")

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def pinned_transport(backend: PinnedBackend) -> httpx.HTTPTransport:
    """An httpx transport whose connections go through ``backend``.  (A proxy from the
    environment is mounted by the client in front of it; the proxy then connects.)"""
    transport = httpx.HTTPTransport()
    context = ssl.create_default_context(cafile=certifi.where())
    # httpx has no public hook for the network backend; its transport is a thin wrapper around
    # this pool, so the pool is replaced with one that has the same TLS settings.
    transport._pool = httpcore.ConnectionPool(ssl_context=context, network_backend=backend)
    return transport
