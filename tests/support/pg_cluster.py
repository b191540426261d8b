"""A throwaway PostgreSQL cluster for the test suite (and CI): initdb + pg_ctl in a temp dir.

    python -m tests.support.pg_cluster start       # prints "DIR URL" (the cluster lives in DIR)
    python -m tests.support.pg_cluster stop DIR     # stops it and removes DIR

``initdb`` refuses to run as root, so as root the cluster belongs to ``nobody`` (CI runs as
root on a fresh machine). It listens on 127.0.0.1 only, on a free port, with trust auth for
the one local user ``cairn``; durability settings are off (the tests kill processes, not
the machine).  ``tests/conftest.py`` starts one per test session when ``CAIRN_TEST_PG_URL``
is not set.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

USER = "cairn"


class ClusterError(RuntimeError):
    """The cluster could not be started (no binaries, initdb failed...): the reason, for a skip."""


def bin_dir() -> Path:
    """PostgreSQL 15's binaries, else the newest installed, else whatever ``initdb`` is on PATH."""
    preferred = Path("/usr/lib/postgresql/15/bin")
    if (preferred / "initdb").exists():
        return preferred
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("initdb")
    if on_path:
        return Path(on_path).resolve().parent
    raise ClusterError("PostgreSQL is not installed (no initdb; `apt-get install -y postgresql`)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(cmd: list[str], *, timeout: float = 120) -> subprocess.CompletedProcess:
    kwargs: dict = {}
    if os.geteuid() == 0:
        kwargs = {"user": "nobody", "group": "nogroup" if _has_group("nogroup") else "nobody"}
    return subprocess.run(
        cmd, capture_output=True, text=True, timeout=timeout, cwd="/", env=_env(), check=False, **kwargs
    )


def _has_group(name: str) -> bool:
    import grp

    try:
        grp.getgrnam(name)
        return True
    except KeyError:
        return False


def _env() -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "TZ": "UTC"}


def start() -> tuple[Path, str]:
    """Create and start a cluster in a new temp dir; returns the dir and the URL."""
    import tempfile

    binaries = bin_dir()
    # In the system temp dir (not a test's private tmp_path): as root the server runs as
    # ``nobody``, which must be able to reach its data directory.
    root = Path(tempfile.mkdtemp(prefix="cairn-pg-"))
    try:
        return root, _start_in(root, binaries)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise


def _start_in(root: Path, binaries: Path) -> str:
    data = root / "data"
    if os.geteuid() == 0:
        os.chmod(root, 0o755)
        shutil.chown(root, "nobody")
    out = _run(
        [str(binaries / "initdb"), "-D", str(data), "-U", USER, "--auth=trust", "-E", "UTF8", "--no-sync"]
    )
    if out.returncode != 0:
        raise ClusterError(f"initdb failed: {(out.stderr or out.stdout).strip()[-500:]}")
    settings = (
        "listen_addresses='127.0.0.1'\n"
        f"unix_socket_directories='{root}'\n"
        "fsync=off\nsynchronous_commit=off\nfull_page_writes=off\n"
        "max_connections=300\nshared_buffers=64MB\n"
    )
    with open(data / "postgresql.conf", "a") as fh:
        fh.write(settings)
    last = ""
    for _ in range(5):  # the free port may be taken between the probe and the bind
        port = _free_port()
        out = _run(
            [
                str(binaries / "pg_ctl"),
                "-D",
                str(data),
                "-l",
                str(root / "server.log"),
                "-o",
                f"-p {port}",
                "-w",
                "-t",
                "60",
                "start",
            ]
        )
        if out.returncode == 0:
            (root / "port").write_text(str(port))
            return url(port)
        last = (root / "server.log").read_text()[-500:] if (root / "server.log").exists() else out.stderr
    raise ClusterError(f"pg_ctl start failed: {last.strip()}")


def url(port: int, database: str = "postgres") -> str:
    return f"postgresql://{USER}@127.0.0.1:{port}/{database}"


def stop(root: Path) -> None:
    """Stop the cluster (immediate: nothing to keep) and remove its directory."""
    data = root / "data"
    if (data / "postmaster.pid").exists():
        _run([str(bin_dir() / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"], timeout=60)
    shutil.rmtree(root, ignore_errors=True)


def wait_ready(conninfo: str, timeout: float = 30) -> None:
    import psycopg

    deadline = time.monotonic() + timeout
    while True:
        try:
            psycopg.connect(conninfo, connect_timeout=2).close()
            return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def main(argv: list[str]) -> int:
    if argv == ["start"]:
        pass
    elif len(argv) == 2 and argv[0] == "stop":
        stop(Path(argv[1]))
        return 0
    else:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        root, address = start()
        print(root, address)
    except ClusterError as exc:
        print(f"cannot start PostgreSQL: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
