"""Item 2 of issue 26 under bubblewrap: no Unix socket of the host is reachable (pathname
listeners in HOME, in a fake ``$XDG_RUNTIME_DIR`` outside /run, anywhere else visible; abstract
ones), the seccomp filter refuses the socket families and kernel interfaces a command has no
use for - while a ``socketpair`` and a server the command binds in its own /tmp still work.
Every listener is the test's own; each denial has an unsandboxed control."""

from __future__ import annotations

import os
import socket
import sys
import uuid

import pytest

from tests.shell.sandbox.deny_default import bwrap_tools, text


@pytest.fixture
def bw(area):
    yield from bwrap_tools(area)


PROFILES = ("read-only", "workspace-write")


_CONNECT = """
import socket, sys
address = sys.argv[1]
if address.startswith("@"):
    address = "\\0" + address[1:]  # the abstract namespace
s = socket.socket(socket.AF_UNIX)
s.settimeout(2)
s.connect(address)
s.sendall(b"hi")
print("CONNECTED")
"""


def _connect_probe(address: str) -> str:
    """A command connecting to ``address`` (``@name``: abstract) with the probe script."""
    script = os.path.join(os.environ["HOME"], "..", "connect_probe.py")
    with open(script, "w", encoding="utf-8") as fh:
        fh.write(_CONNECT)
    return f"'{sys.executable}' '{os.path.realpath(script)}' '{address}'"


def _listener(path: str) -> socket.socket:
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen(4)
    server.settimeout(0.3)
    return server


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("where", ["home", "xdg", "elsewhere"])
def test_pathname_unix_sockets_of_the_host_are_unreachable(bw, area, monkeypatch, profile, where):
    if where == "home":
        directory = area.home  # a docker.sock / ssh-agent socket in $HOME
    elif where == "xdg":
        directory = area.base / "xdg-runtime"  # $XDG_RUNTIME_DIR not under /run
        directory.mkdir()
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(directory))
    else:
        directory = area.outside  # visible in the sandbox: covered because it listens
    path = str(directory / "agent.sock")
    with _listener(path) as server:
        result = bw.run(_connect_probe(path), profile)
        assert "CONNECTED" not in text(result)
        with pytest.raises(TimeoutError):
            server.accept()
        control = bw.run(_connect_probe(path), None)
        assert "CONNECTED" in text(control)
        server.accept()[0].close()


@pytest.mark.parametrize("profile", PROFILES)
def test_abstract_unix_sockets_of_the_host_are_unreachable(bw, profile):
    name = f"cairn-test-{uuid.uuid4().hex[:12]}"
    with _listener("\0" + name) as server:
        result = bw.run(_connect_probe("@" + name), profile)
        assert "CONNECTED" not in text(result)
        with pytest.raises(TimeoutError):
            server.accept()
        assert "CONNECTED" in text(bw.run(_connect_probe("@" + name), None))
        server.accept()[0].close()


_BENIGN = r"""
import os, socket, threading
a, b = socket.socketpair()
a.sendall(b"pair"); print("SOCKETPAIR", b.recv(4).decode())
path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "own.sock")
server = socket.socket(socket.AF_UNIX); server.bind(path); server.listen(1)
def serve():
    conn, _ = server.accept(); conn.sendall(conn.recv(5).upper()); conn.close()
threading.Thread(target=serve).start()
client = socket.socket(socket.AF_UNIX); client.connect(path); client.sendall(b"hello")
print("OWN SERVER", client.recv(5).decode())
print("LOCALHOST", socket.getaddrinfo("localhost", 80)[0][4][0])
"""


@pytest.mark.parametrize("profile", PROFILES)
def test_socketpair_and_a_server_in_its_own_tmp_work(bw, area, profile):
    (area.base / "benign.py").write_text(_BENIGN)
    result = bw.run(f"'{sys.executable}' '{area.base / 'benign.py'}'", profile)
    out = text(result)
    assert "SOCKETPAIR pair" in out and "OWN SERVER HELLO" in out, out
    assert "LOCALHOST 127.0.0.1" in out, out  # netlink route (getaddrinfo) still works


_REFUSED = r"""
import ctypes, errno, socket
tries = {
    "packet": (socket.AF_PACKET, socket.SOCK_RAW, 0),
    "raw-inet": (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP),
    "raw-inet6": (socket.AF_INET6, socket.SOCK_RAW | socket.SOCK_CLOEXEC, socket.IPPROTO_ICMPV6),
    "netlink-audit": (socket.AF_NETLINK, socket.SOCK_RAW, 9),
    "vsock": (40, socket.SOCK_STREAM, 0),
    "bluetooth": (31, socket.SOCK_RAW, 0),
    "alg": (38, socket.SOCK_SEQPACKET, 0),
}
for name, args in tries.items():
    try:
        socket.socket(*args).close(); print(name, "OPENED")
    except OSError as exc:
        print(name, "REFUSED", errno.errorcode.get(exc.errno))
libc = ctypes.CDLL(None, use_errno=True)
params = ctypes.create_string_buffer(120)
fd = libc.syscall(425, 4, params)  # io_uring_setup
print("io_uring", "OPENED" if fd >= 0 else "REFUSED " + errno.errorcode.get(ctypes.get_errno(), "?"))
"""


def test_seccomp_refuses_families_raw_sockets_and_io_uring(bw, area):
    (area.base / "refused.py").write_text(_REFUSED)
    result = bw.run(f"'{sys.executable}' '{area.base / 'refused.py'}'", "workspace-write")
    out = text(result)
    for name in ("packet", "raw-inet", "raw-inet6", "netlink-audit", "vsock", "bluetooth", "alg"):
        assert f"{name} REFUSED E" in out and f"{name} OPENED" not in out, out
    assert "io_uring REFUSED EPERM" in out, out
    if os.geteuid() == 0:  # control: as root without a sandbox, raw and packet sockets open
        control = text(bw.run(f"'{sys.executable}' '{area.base / 'refused.py'}'", None))
        assert "raw-inet OPENED" in control and "packet OPENED" in control, control


def test_without_libseccomp_bubblewrap_is_not_used(monkeypatch):
    from cairn.tools.shell.sandbox import seccomp_filter
    from cairn.tools.shell.sandbox.bwrap import BwrapBackend

    monkeypatch.setattr(seccomp_filter, "_cached", None)
    monkeypatch.setitem(sys.modules, "pyseccomp", None)  # import fails
    backend = BwrapBackend()
    if backend.binary is None:
        pytest.skip("no bwrap binary here")
    assert "seccomp" in (backend.problem() or "")
