"""grep under hostile input: catastrophic patterns, huge outputs, huge lines, cancellation."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

import pytest

from cairn.tools.base import ToolContext
from cairn.tools.file_ops import grep_py, grep_rg, ripgrep
from cairn.tools.file_ops.grep import GrepTool
from cairn.tools.file_ops.grep_collect import Collector
from cairn.tools.file_ops.grep_types import FileResult, Record
from cairn.tools.services import ToolServices
from cairn.tools.workspace import Workspace

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def grep(workspace):
    ws = Workspace(workspace)
    return GrepTool(ws, ToolServices(ws))


def run_isolated(code: str, timeout: float = 60) -> str:
    """Run ``code`` in a fresh interpreter: a pattern that holds the GIL cannot hang the test run."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"still running after {timeout} s")
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_ripgrep_path_runs_no_python_regex_on_long_matching_lines(workspace):
    """rg finds the line in linear time; cutting it around the match must not re-run the pattern
    with a backtracking engine (Python's re took minutes on this line and held the GIL)."""
    (Path(workspace) / "a.txt").write_text("word " * 120 + "! end;" + " pad" * 10 + "\n")
    out = run_isolated(
        f"""
        import time
        from cairn.tools import Workspace, ToolServices
        from cairn.tools.file_ops.grep import GrepTool
        ws = Workspace({str(workspace)!r})
        start = time.monotonic()
        res = GrepTool(ws, ToolServices(ws)).execute({{"pattern": r"(\\w+\\s?)+;"}})
        print(res.metadata["backend"], round(time.monotonic() - start, 1))
        print(res.output)
        """
    )
    backend, seconds = out.splitlines()[0].split()
    assert backend == "ripgrep" and float(seconds) < 5
    row = out.splitlines()[2]
    assert row.startswith("a.txt:1:[... ") and "! end; pad" in row


@pytest.mark.slow
@pytest.mark.parametrize("pattern", [r"(a|aa)+$", r"(?=a)(a|aa)+$"])
def test_python_backend_gives_up_on_a_catastrophic_pattern(workspace, pattern):
    """Without rg (or when rg rejects the pattern: look-around), a pattern that backtracks
    exponentially stops with a clear error after PATTERN_TIMEOUT instead of hanging."""
    (Path(workspace) / "a.txt").write_text("a" * 60 + "b\n")
    no_rg = "import os; os.environ['CAIRN_NO_RIPGREP'] = '1'" if "?=" not in pattern else ""
    out = run_isolated(
        f"""
        {no_rg}
        import time
        from cairn.tools import Workspace, ToolServices
        from cairn.tools.file_ops import grep_regex
        from cairn.tools.file_ops.grep import GrepTool
        grep_regex.PATTERN_TIMEOUT = 0.5
        ws = Workspace({str(workspace)!r})
        start = time.monotonic()
        res = GrepTool(ws, ToolServices(ws)).execute({{"pattern": {pattern!r}}})
        print(round(time.monotonic() - start, 1))
        print(res.error)
        """
    )
    seconds, error = out.split("\n", 1)
    assert float(seconds) < 10
    assert error.startswith("The pattern is too slow for Python's regex engine")


def test_content_output_is_streamed_and_only_the_shown_lines_are_kept(grep, workspace, backend):
    (Path(workspace) / "many.txt").write_bytes(b"the quick brown fox\n" * 100_000)
    tracemalloc.start()
    try:
        result = grep.execute({"pattern": "quick", "path": "." if backend == "ripgrep" else "many.txt"})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.ok, result.error
    lines = result.output.splitlines()
    assert lines[0] == "Found 100,000 matching lines in 1 file."
    assert lines[250] == "many.txt:250:the quick brown fox"
    assert "Showing the first 250 of 100,000 lines" in lines[-1]
    if backend == "ripgrep":  # the fallback holds the file it searches, rg's output is never held
        assert peak < 2_500_000, f"peak {peak:,} bytes"  # rg printed 3.5 MB


def test_single_file_is_checked_for_binary_without_reading_it_whole(grep, workspace):
    (Path(workspace) / "big.txt").write_bytes(b"x" * 4_000_000 + b"\nneedle\n")
    tracemalloc.start()
    try:
        result = grep.execute({"pattern": "needle", "path": "big.txt"})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.output.splitlines()[1:] == ["big.txt:2:needle"]
    assert peak < 2_500_000, f"peak {peak:,} bytes"


def test_head_limit_zero_keeps_a_bounded_number_of_lines(grep, workspace, backend, monkeypatch):
    from cairn.tools.file_ops import grep as grep_module

    monkeypatch.setattr(grep_module, "MAX_KEPT_ROWS", 10)
    (Path(workspace) / "m.txt").write_text("hit\n" * 30)
    result = grep.execute({"pattern": "hit", "head_limit": 0})
    lines = result.output.splitlines()
    assert len([ln for ln in lines if ln.startswith("m.txt:")]) == 10
    assert lines[-1] == (
        "[Showing the first 10 of 30 lines. Narrow the search (path, glob, a more specific pattern).]"
    )


def test_huge_lines_are_read_only_in_part_the_same_way_by_both_backends(tmp_path, monkeypatch):
    monkeypatch.setattr(grep_rg, "PREVIEW_BYTES", 2000)
    monkeypatch.setattr(grep_py, "PREVIEW_BYTES", 2000)
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("x" * 1000 + " needle " + "y" * 4000 + "\n")
    (root / "b.txt").write_text("z" * 3000 + " needle\n")
    tool = GrepTool(Workspace(root), ToolServices(Workspace(root)))
    with_rg = tool.execute({"pattern": "needle"})
    monkeypatch.setenv("CAIRN_NO_RIPGREP", "1")
    fallback = tool.execute({"pattern": "needle"})
    assert with_rg.metadata["backend"] == "ripgrep" and fallback.metadata["backend"] == "python"
    assert with_rg.output == fallback.output
    a_row, b_row = with_rg.output.splitlines()[1:]
    assert a_row.startswith("a.txt:1:[... 901 chars] ") and " needle " in a_row
    assert a_row.endswith(" [... over 599 more chars]")
    assert b_row.endswith(" [... over 1,500 more chars] [first match at byte 3,002]")


def test_cancel_kills_ripgrep(grep, workspace):
    assert ripgrep.rg_path() is not None
    (Path(workspace) / "a.txt").write_text("x\n")
    ctx = ToolContext()
    ctx.cancel.set()
    assert grep.execute({"pattern": "x"}, ctx).error == "grep was cancelled."


def test_stream_reports_exit_code_and_stderr(workspace):
    rg = ripgrep.rg_path()
    assert rg is not None
    (Path(workspace) / "a.txt").write_text("one\ntwo\n")
    with ripgrep.Stream([rg, "--no-config", "o", "a.txt"], Path(workspace)) as run:
        assert list(run.lines()) == [b"one", b"two"]
        assert run.finish() == (0, b"")
    with ripgrep.Stream([rg, "--no-config", "(", "a.txt"], Path(workspace)) as run:
        assert list(run.lines()) == []
        rc, err = run.finish()
    assert rc == 2 and b"regex parse error" in err


def test_collector_keeps_the_first_rows_in_path_order_whatever_the_arrival_order():
    rng = random.Random(5)
    files = {f"f{i:03}".encode(): rng.randint(1, 40) for i in range(200)}
    order = list(files)
    rng.shuffle(order)
    collector = Collector(max_rows=25)
    built = 0
    for path in order:
        room = collector.room(path)
        n = files[path]
        kept = n if room is None else min(n, room)
        built += kept
        records = [Record(line, 1, f"{path.decode()}:{line}") for line in range(1, kept + 1)]
        collector.add(FileResult(path, n, n, records))
    results = collector.results()
    assert [r.path for r in results] == sorted(files)
    assert [r.count for r in results] == [files[p] for p in sorted(files)]
    shown = [rec.text for r in results for rec in r.records]
    expected = [f"{p.decode()}:{line}" for p in sorted(files) for line in range(1, files[p] + 1)][:25]
    assert shown == expected
    assert built < sum(files.values()) / 2  # files past the cutoff built no records


def test_counts_stay_exact_when_only_counting_is_left(grep, workspace, backend):
    """Past head_limit lines are only counted (rg's output in bulk); a file whose NUL byte comes
    after many matches is still dropped as binary, as the fallback does."""
    root = Path(workspace)
    (root / "a.txt").write_bytes(b"hit a\n" * 60_000)
    (root / "b.txt").write_bytes(b"hit b\nmiss\n" * 40_000)
    (root / "c.bin").write_bytes(b"hit c\n" * 50_000 + b"\0")
    result = grep.execute({"pattern": "hit", "head_limit": 3})
    lines = result.output.splitlines()
    assert lines[:4] == [
        "Found 100,000 matching lines in 2 files.",
        "a.txt:1:hit a",
        "a.txt:2:hit a",
        "a.txt:3:hit a",
    ]
    assert lines[-1].startswith("[Showing the first 3 of 100,000 lines.")
    counts = grep.execute({"pattern": "hit", "output_mode": "count"}).output.splitlines()
    assert counts == ["Found 100,000 matching lines in 2 files.", "a.txt:60000", "b.txt:40000"]


def test_only_patterns_that_can_backtrack_pay_for_the_time_budget():
    import re

    from cairn.tools.file_ops.grep_regex import may_backtrack

    for safe in [rb"def main", rb"class \w+Error\(", rb"foo.*bar", rb"(?:ab)+c", rb"(foo|bar)baz"]:
        assert not may_backtrack(re.compile(safe)), safe
    for risky in [rb"(\w+\s?)+;", rb"(x+x+)+y", rb"\w+\w+x", rb"(a|aa)+b"]:
        assert may_backtrack(re.compile(risky)), risky
