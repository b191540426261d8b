"""``cairn sandbox check``'s probes: one harmless probe per guarantee, run through ``bash``.

Each probe of :data:`cairn.tools.shell.sandbox.guarantees.GUARANTEES` runs under the spec a
session would build, in a temporary workspace and a temporary HOME created outside ``/tmp``
(the sandbox's private ``/tmp`` would hide a fake home there and make a probe pass for the
wrong reason).  Probes only write marker files, read secrets planted for them, connect to
listeners this process opens on ``127.0.0.1`` or in the temporary HOME, and start sleepers that
are counted and stopped.  ``sandbox_report`` runs them per backend and profile and judges them.
The temporary HOME reaches the spec (``build_spec(home=...)``) and the commands (the shell's
``env_overrides``); this process's own environment is never changed.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cairn.tools.shell.sandbox.guarantees import GUARANTEES

#: The process bound the probe sets (the default, 1024, would need a thousand sleepers).
PROBE_MAX_PROCESSES = 32
_SECRET = "cairn-check-fake-secret"


@dataclass
class Place:
    base: Path
    ws: Path
    home: Path
    outside: Path
    token: str


@contextlib.contextmanager
def probe_place(base_dir: str | None) -> Iterator[Place]:
    base = Path(os.path.realpath(tempfile.mkdtemp(prefix="cairn-check-", dir=base_dir or _scratch())))
    place = Place(base, base / "ws", base / "home", base / "outside", f"cairn-check-{uuid.uuid4().hex[:10]}")
    for d in (place.ws / ".git" / "hooks", place.ws / "sub", place.home, place.outside, base / place.token):
        d.mkdir(parents=True, exist_ok=True)
    (place.ws / ".git" / "config").write_text("[core]\n")
    os.chmod(base, 0o755)
    try:
        yield place
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _scratch() -> str:
    """A writable directory outside /tmp for the temporary workspace and HOME."""
    for root in ("/var/tmp", os.path.join(os.path.expanduser("~"), ".cache")):
        if os.path.isdir(root) and os.access(root, os.W_OK) and not root.startswith("/tmp"):
            return root
    return os.getcwd()


def probe_all(place: Place, status: Any, profile: str) -> dict[str, tuple[bool | None, str]]:
    """Per guarantee: (refused, what the probe saw); ``None``: the probe could not run here."""
    from cairn.graph.core.sandbox_setup import build_spec
    from cairn.policy.sandbox import SandboxSettings
    from cairn.tools.base import RiskLevel, ToolContext
    from cairn.tools.services import ToolServices
    from cairn.tools.shell.bash import BashTool
    from cairn.tools.shell.state import ShellState
    from cairn.tools.workspace import Workspace

    ws = Workspace(place.ws)
    services = ToolServices(ws)
    shell = ShellState(ws, sandbox_backend=status, env_overrides={"HOME": str(place.home)})
    shell.term_grace_s = shell.kill_grace_s = 1.0
    services.__dict__["shell"] = shell
    bash = BashTool(ws, services)
    settings = SandboxSettings(max_processes=PROBE_MAX_PROCESSES)
    spec = build_spec(profile, place.ws, settings, home=place.home)

    def run(command: str) -> str:
        result = bash.execute(
            {"command": command, "timeout": 30_000}, ToolContext(risk=RiskLevel.LOW, sandbox=spec)
        )
        out = result.output if isinstance(result.output, str) else ""
        return out + (result.error or "")

    try:
        # The socket and process probes are Python: if it cannot run here, they prove nothing.
        alive = "cairn-probe-alive" in run(f"{_PY} -I -S -c \"print('cairn-probe-alive')\"")
        lame = (None, f"{_PY} does not run in this sandbox (add its prefix to sandbox_readable)")
        return {
            name: probe(place, run) if alive or name not in _NEEDS_PYTHON else lame
            for name, probe in _PROBES.items()
        }
    finally:
        services.close()


Run = Callable[[str], str]
_PY = sys.executable
_NEEDS_PYTHON = frozenset(
    {"unix-socket-home", "abstract-socket", "tcp-localhost", "udp-localhost", "process-bound", "survivor"}
)


def _write_outside(place: Place, run: Run) -> tuple[bool, str]:
    marker = place.outside / "marker"
    run(f"printf x > {marker}")
    return not marker.exists(), f"wrote {marker}"


def _protected_absent(place: Place, run: Run) -> tuple[bool, str]:
    names = (".envrc", "AGENTS.md", ".vscode/tasks.json", ".git/config.worktree")
    run("; ".join(f'mkdir -p "$(dirname {n})"; printf x > {n}' for n in names))
    made = [n for n in names if (place.ws / n).is_file()]
    return not made, f"created {', '.join(made)}"


def _protected_present(place: Place, run: Run) -> tuple[bool, str]:
    run("printf x >> .git/config; printf 'exit 0' > .git/hooks/pre-commit")
    changed = (place.ws / ".git" / "config").read_text() != "[core]\n"
    hook = (place.ws / ".git" / "hooks" / "pre-commit").exists()
    return not (changed or hook), "changed .git/config or wrote .git/hooks/pre-commit"


def _hard_link(place: Place, run: Run) -> tuple[bool, str]:
    target = place.outside / "linked"
    target.write_text("original\n")
    os.link(target, place.ws / "sub" / "linked")
    run("printf x >> sub/linked")
    return target.read_text() == "original\n", f"wrote through a hard link to {target}"


def _home_secret(place: Place, run: Run) -> tuple[bool, str]:
    for name in (".pgpass", ".bash_history"):
        (place.home / name).write_text(f"{_SECRET}-{name}\n")
    out = run('cat "$HOME/.pgpass" "$HOME/.bash_history"')
    return _SECRET not in out, "read ~/.pgpass or ~/.bash_history"


def _workspace_env(place: Place, run: Run) -> tuple[bool, str]:
    (place.ws / ".env").write_text(f"API_KEY={_SECRET}\n")
    return _SECRET not in run("cat .env"), "read the workspace's .env"


def _connect_py(target: str, kind: str) -> str:
    """A python one-liner that connects (stream) or sends (datagram) and prints DONE."""
    if kind == "udp":
        host, port = target.rsplit(":", 1)
        body = f"s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); s.sendto(b'probe',('{host}',{port}))"
    elif kind == "tcp":
        host, port = target.rsplit(":", 1)
        body = f"socket.create_connection(('{host}',{port}),timeout=2)"
    else:
        body = f"socket.socket(socket.AF_UNIX).connect({target!r})"
    return f"{_PY} -I -S -c \"import socket; {body}; print('DONE')\""


def _listener(family: int, kind: int, address: Any) -> socket.socket:
    sock = socket.socket(family, kind)
    sock.bind(address)
    if kind == socket.SOCK_STREAM:
        sock.listen(4)
    sock.settimeout(0.3)
    return sock


def _reached(sock: socket.socket) -> bool:
    try:
        if sock.type == socket.SOCK_STREAM:
            sock.accept()[0].close()
        else:
            sock.recvfrom(64)
        return True
    except OSError:
        return False


def _unix_socket_home(place: Place, run: Run) -> tuple[bool, str]:
    path = str(place.home / "agent.sock")
    with _listener(socket.AF_UNIX, socket.SOCK_STREAM, path) as sock:
        run(_connect_py(path, "unix"))
        return not _reached(sock), f"connected to {path}"


def _abstract_socket(place: Place, run: Run) -> tuple[bool, str]:
    name = "\0" + place.token
    with _listener(socket.AF_UNIX, socket.SOCK_STREAM, name) as sock:
        run(_connect_py(name, "unix"))
        return not _reached(sock), f"connected to @{place.token}"


def _tcp_localhost(place: Place, run: Run) -> tuple[bool, str]:
    with _listener(socket.AF_INET, socket.SOCK_STREAM, ("127.0.0.1", 0)) as sock:
        run(_connect_py(f"127.0.0.1:{sock.getsockname()[1]}", "tcp"))
        return not _reached(sock), "connected to a listener on 127.0.0.1"


def _udp_localhost(place: Place, run: Run) -> tuple[bool, str]:
    with _listener(socket.AF_INET, socket.SOCK_DGRAM, ("127.0.0.1", 0)) as sock:
        run(_connect_py(f"127.0.0.1:{sock.getsockname()[1]}", "udp"))
        return not _reached(sock), "a datagram reached a listener on 127.0.0.1"


def _marked_sleep(place: Place) -> str:
    sleep = place.base / place.token / "sleep"
    if not sleep.exists():
        sleep.symlink_to(os.path.realpath(shutil.which("sleep") or "/bin/sleep"))
    return str(sleep)


def _process_bound(place: Place, run: Run) -> tuple[bool, str]:
    limit = PROBE_MAX_PROCESSES * 2
    script = place.base / place.token / "spawn.py"
    script.write_text(
        "import subprocess, sys\n"
        "n = 0\n"
        f"for _ in range({limit}):\n"
        "    try:\n"
        "        subprocess.Popen([sys.argv[1], '30'])\n"
        "        n += 1\n"
        "    except OSError:\n"
        "        break\n"
        "print('spawned', n)\n"
    )
    out = run(f"{_PY} -I -S {script} {_marked_sleep(place)}")
    words = out.split("spawned")
    count = int(words[-1].split()[0]) if len(words) > 1 and words[-1].split() else 0
    _stop_marked(place)
    return count < limit, f"started {count} processes with a bound of {PROBE_MAX_PROCESSES}"


def _survivor(place: Place, run: Run) -> tuple[bool, str]:
    script = place.base / place.token / "survive.py"
    script.write_text(
        "import os, sys\n"
        "if os.fork() == 0:\n"
        "    try:\n"
        "        os.setsid()\n"
        "    except OSError:\n"
        "        pass\n"
        "    if os.fork() == 0:\n"
        "        os.execv(sys.argv[1], [sys.argv[1], '30'])\n"
        "    os._exit(0)\n"
        "os.wait()\n"
    )
    run(f"{_PY} -I -S {script} {_marked_sleep(place)}")
    time.sleep(1.0)
    left = _stop_marked(place)
    return not left, f"{left} process(es) outlived the command"


def _agent_environ(place: Place, run: Run) -> tuple[bool, str]:
    try:
        with open("/proc/self/environ", "rb") as fh:
            first = fh.read().split(b"\0", 1)[0].decode("utf-8", "replace")
    except OSError:
        return True, ""
    out = run(f"tr '\\0' '\\n' < /proc/{os.getpid()}/environ")
    return not first or first not in out, "read the agent's /proc/PID/environ"


def _stop_marked(place: Place) -> int:
    """Kill the probe's own marked sleepers that are still running (by pid); how many there were."""
    found = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                argv = fh.read()
        except OSError:
            continue
        if place.token.encode() in argv:
            found += 1
            with contextlib.suppress(OSError):
                os.kill(int(entry), 9)
    return found


_PROBES: dict[str, Callable[[Place, Run], tuple[bool, str]]] = {
    "write-outside": _write_outside,
    "protected-absent": _protected_absent,
    "protected-present": _protected_present,
    "hard-link": _hard_link,
    "home-secret": _home_secret,
    "workspace-env": _workspace_env,
    "unix-socket-home": _unix_socket_home,
    "abstract-socket": _abstract_socket,
    "tcp-localhost": _tcp_localhost,
    "udp-localhost": _udp_localhost,
    "process-bound": _process_bound,
    "survivor": _survivor,
    "agent-environ": _agent_environ,
}
assert set(_PROBES) == set(GUARANTEES)
