"""Peak memory of the bash tool for a 1 GB output, against a no-output baseline in the same run.

Run: ``.venv/bin/python tests/benchmarks/bench_bash_memory.py``.  Each command runs in a
fresh interpreter (so ``ru_maxrss`` is that command's peak), through ``BashTool.execute``
with a progress callback attached (the streaming path the CLI uses).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import textwrap

CHILD = textwrap.dedent(
    """
    import json, resource, sys, tempfile, time
    from cairn.tools.base import ToolContext
    from cairn.tools.services import ToolServices
    from cairn.tools.shell.bash import BashTool
    from cairn.tools.workspace import Workspace

    ws = Workspace(sys.argv[1])
    services = ToolServices(ws)
    lines = []
    start = time.perf_counter()
    result = BashTool(ws, services).execute(
        {"command": sys.argv[2], "timeout": 600000}, ToolContext(on_progress=lines.append)
    )
    took = time.perf_counter() - start
    services.close()
    print(json.dumps({
        "peak_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "seconds": took,
        "output_bytes": result.metadata.get("stdout_bytes", 0) + result.metadata.get("stderr_bytes", 0),
        "model_chars": len(result.model_text()),
        "progress_lines": len(lines),
        "ok": result.ok,
    }))
    """
)

CASES = [
    ("baseline: true", "true"),
    ("1 MB: yes | head -c 1M", "yes | head -c 1M"),
    ("1 GB: yes | head -c 1G", "yes | head -c 1G"),
    ("1 GB on stderr", "yes | head -c 1G >&2"),
]


def measure(workspace: str, command: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, workspace, command], capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    with tempfile.TemporaryDirectory() as workspace:
        results = [(label, measure(workspace, command)) for label, command in CASES]
    base = results[0][1]["peak_rss_kb"]
    print(f"{'case':28} {'peak RSS':>10} {'vs baseline':>12} {'time':>8} {'MB/s':>8} {'to model':>10}")
    for label, r in results:
        size = r["output_bytes"] or 0
        rate = size / 1e6 / r["seconds"] if size and r["seconds"] else 0.0
        print(
            f"{label:28} {r['peak_rss_kb'] / 1024:8.1f}MB {r['peak_rss_kb'] / base:11.2f}x "
            f"{r['seconds']:7.2f}s {rate:8.0f} {r['model_chars']:>9}c"
        )


if __name__ == "__main__":
    main()
