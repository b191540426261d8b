"""Policy cost by command length: ``policy.evaluate('bash', ...)`` on 100 B / 1 KB / 10 KB commands.

The commands are ``&&`` chains of benign read-only commands (data for the policy; nothing is
run).  Prints the median CPU time of >= 5 repeats per size, the cost per KB, and the ratio of per-KB
costs against the 1 KB chain (linearity: ~1.0 means linear).  Target (issue 17): 10 KB <= 30 ms.

Run: ``.venv/bin/python tests/benchmarks/bench_policy.py``
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from cairn.policy import evaluate

PARTS = ["git status", "ls -la src", "grep -rn TODO src", "wc -l README.md", "head -n 20 src/app.py"]
REPEATS = 7


def chain(size: int) -> str:
    out: list[str] = []
    k = 0
    while len(" && ".join(out)) < size:
        out.append(PARTS[k % len(PARTS)])
        k += 1
    text = " && ".join(out)
    while len(text) > size and len(out) > 1:
        out.pop()
        text = " && ".join(out)
    return text


def long_chain(size: int, parts: int = 40) -> str:
    """``parts`` commands (under the 50-command limit) with long arguments: analysed in full."""
    per = max(size // parts - 30, 4)
    words = [f"grep -n {'x' * per} src/app.py" for _ in range(parts)]
    text = " && ".join(words)
    return text[: size - 1] if len(text) > size else text


def median_ms(command: str, ws: Path) -> float:
    """Median CPU time of this process (``time.process_time``): on a shared, loaded machine the
    wall clock mostly measures the other processes."""
    times = []
    for _ in range(REPEATS):
        start = time.process_time()
        evaluate("bash", {"command": command}, workspace=ws)
        times.append((time.process_time() - start) * 1000)
    return statistics.median(times)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        (ws / "src").mkdir()
        (ws / "src" / "app.py").write_text("print('hi')\n")
        evaluate("bash", {"command": "ls"}, workspace=ws)  # warm imports
        baseline = median_ms("ls", ws)
        print(f"baseline: a 2-byte command `ls`: {baseline:.2f} ms (median of {REPEATS})")
        rows = []
        for size in (100, 1_000, 10_000):
            command = chain(size)
            ms = median_ms(command, ws)
            rows.append((len(command), ms))
        per_kb_1k = rows[1][1] / (rows[1][0] / 1000)
        for length, ms in rows:
            per_kb = ms / (length / 1000)
            print(
                f"{length:6d} B: {ms:8.2f} ms   {per_kb:7.2f} ms/KB   per-KB ratio vs 1 KB: "
                f"{per_kb / per_kb_1k:4.2f}   vs `ls`: {ms / baseline:6.1f}x"
            )
        print("chains of <= 40 commands with long arguments (analysed in full, not failed early):")
        full = []
        for size in (100, 1_000, 10_000):
            command = long_chain(size, parts=2 if size <= 100 else 40)
            full.append((len(command), median_ms(command, ws)))
        base_kb = full[1][1] / (full[1][0] / 1000)
        for length, ms in full:
            per_kb = ms / (length / 1000)
            print(
                f"{length:6d} B: {ms:8.2f} ms   {per_kb:7.2f} ms/KB   per-KB ratio vs 1 KB: {per_kb / base_kb:4.2f}"
            )
        ten_kb = rows[2][1]
        print(f"10 KB && chain, target <= 30 ms: {'met' if ten_kb <= 30 else 'NOT met'} ({ten_kb:.1f} ms)")
        print(f"10 KB analysed in full (40 commands): {full[2][1]:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
