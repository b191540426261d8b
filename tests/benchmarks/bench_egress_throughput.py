"""Throughput through the sandbox's egress proxy against a direct local download (issue 35).

Run: ``.venv/bin/python tests/benchmarks/bench_egress_throughput.py [MB] [REPEATS]`` (default
50 MB, 3 repeats), or ``bench_sandbox.py --throughput``.  A server on 127.0.0.1 serves MB
megabytes; the same ``python3`` download script runs through the bash tool twice per round:
unsandboxed straight to ``127.0.0.1`` ("direct"), and in the ``workspace-write`` sandbox granted
``index.test`` (pinned to 127.0.0.1 as ``[sandbox] network_hosts`` would), so every byte crosses
the bridge and the proxy ("proxied").  Best of the repeats; the target is proxied >= 50 % of direct.
"""

from __future__ import annotations

import dataclasses
import http.server
import os
import shutil
import sys
import tempfile
import threading
import time

from cairn.graph.core.sandbox_setup import build_spec
from cairn.policy.sandbox import SandboxSettings
from cairn.tools.base import RiskLevel, ToolContext
from cairn.tools.services import ToolServices
from cairn.tools.shell.bash import BashTool
from cairn.tools.shell.sandbox import detect_backend
from cairn.tools.workspace import Workspace

FETCH = """\
import sys, urllib.request
total = 0
with urllib.request.urlopen(sys.argv[1], timeout=60) as response:
    while chunk := response.read(1 << 20):
        total += len(chunk)
print(total)
"""


def _server(size: int) -> http.server.ThreadingHTTPServer:
    block = os.urandom(1 << 20)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", str(size))
            self.end_headers()
            sent = 0
            while sent < size:
                n = min(len(block), size - sent)
                self.wfile.write(block[:n])
                sent += n

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main(megabytes: int = 50, repeats: int = 3) -> None:
    if not detect_backend("bwrap").available:
        print("throughput: needs the bubblewrap backend")
        return
    size = megabytes << 20
    server = _server(size)
    port = server.server_address[1]
    root = os.path.realpath(tempfile.mkdtemp(prefix="cairn-bench-egress-", dir="/var/tmp"))
    with open(os.path.join(root, "fetch.py"), "w") as handle:
        handle.write(FETCH)
    ws = Workspace(root)
    services = ToolServices(ws, network_hosts={"index.test": ("127.0.0.1",)})
    tool = BashTool(ws, services)
    granted = dataclasses.replace(
        build_spec("workspace-write", root, SandboxSettings()), allowed_domains=("index.test",)
    )
    runs = {
        "direct": (f"python3 fetch.py http://127.0.0.1:{port}/", None),
        "proxied": (f"python3 fetch.py http://index.test:{port}/", granted),
    }
    best: dict[str, float] = {}
    try:
        for _ in range(repeats):
            for name, (command, sandbox) in runs.items():
                ctx = ToolContext(risk=RiskLevel.MEDIUM, sandbox=sandbox)
                t0 = time.perf_counter()
                result = tool.execute({"command": command, "timeout": 600_000}, ctx)
                took = time.perf_counter() - t0
                assert str(size) in result.output, result.output
                best[name] = min(best.get(name, took), took)
    finally:
        services.close()
        server.shutdown()
        shutil.rmtree(root, ignore_errors=True)
    print(f"a {megabytes} MB download through the bash tool, best of {repeats}:")
    for name, took in best.items():
        print(f"  {name:8s} {took:6.2f} s  {megabytes / took:7.1f} MB/s")
    print(f"  proxied / direct throughput: {best['direct'] / best['proxied']:.2f} (target >= 0.50)")


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    main(*args)
