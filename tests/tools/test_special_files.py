"""FIFOs (and other non-regular files) are refused by every file tool instead of blocking in open()."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from cairn.tools.file_ops.edit_file import EditFileTool
from cairn.tools.file_ops.gitignore import GitignoreTool
from cairn.tools.file_ops.grep import GrepTool
from cairn.tools.file_ops.read_file import ReadFileTool
from cairn.tools.file_ops.write_file import WriteFileTool
from cairn.tools.services import ToolServices
from cairn.tools.workspace import Workspace

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX FIFOs")


def call_with_timeout(tool, args: dict, fifo: Path, seconds: float = 5.0):
    """Run the tool in a thread; if it blocks on the FIFO, release it (open the write end) and fail."""
    box: dict = {}
    thread = threading.Thread(target=lambda: box.setdefault("result", tool.execute(args)), daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        try:  # a reader blocked in open() returns once a writer opens the FIFO
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
        thread.join(2)
        pytest.fail(f"{tool.name} blocked on a FIFO for {seconds} s")
    return box["result"]


@pytest.fixture
def fifo(workspace) -> Path:
    path = Path(workspace) / "pipe"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize(
    ("cls", "args"),
    [
        (GrepTool, {"pattern": "x", "path": "pipe"}),
        (WriteFileTool, {"file_path": "pipe", "content": "x"}),
        (EditFileTool, {"file_path": "pipe", "old_string": "a", "new_string": "b"}),
        (ReadFileTool, {"file_path": "pipe"}),
    ],
)
def test_tools_refuse_a_fifo(workspace, fifo, cls, args):
    ws = Workspace(workspace)
    result = call_with_timeout(cls(ws, ToolServices(ws)), args, fifo)
    assert not result.ok, result.output
    assert "not a regular file" in result.error
    assert Path(fifo).is_fifo()


def test_gitignore_add_refuses_a_fifo_named_gitignore(workspace):
    path = Path(workspace) / ".gitignore"
    os.mkfifo(path)
    ws = Workspace(workspace)
    result = call_with_timeout(
        GitignoreTool(ws, ToolServices(ws)), {"action": "add", "patterns": ["*.log"]}, path
    )
    assert not result.ok and "not a regular file" in result.error


def test_grep_over_a_directory_skips_a_fifo(workspace, fifo, monkeypatch):
    (Path(workspace) / "a.txt").write_text("x marks\n")
    ws = Workspace(workspace)
    for backend in ("ripgrep", "python"):
        if backend == "python":
            monkeypatch.setenv("CAIRN_NO_RIPGREP", "1")
        result = call_with_timeout(GrepTool(ws, ToolServices(ws)), {"pattern": "x"}, fifo)
        assert result.ok, result.error
        assert result.output.splitlines()[1:] == ["a.txt:1:x marks"]


def test_a_fifo_named_gitignore_does_not_hang_the_python_walk(workspace, monkeypatch):
    """ripgrep itself blocks on such a file (rg 14.1), so only the Python walk is checked here."""
    from cairn.tools.file_ops.ls import ListDirTool

    sub = Path(workspace) / "sub"
    sub.mkdir()
    (sub / "a.txt").write_text("x\n")
    os.mkfifo(sub / ".gitignore")
    monkeypatch.setenv("CAIRN_NO_RIPGREP", "1")
    ws = Workspace(workspace)
    services = ToolServices(ws)
    grep = call_with_timeout(GrepTool(ws, services), {"pattern": "x"}, sub / ".gitignore")
    assert grep.ok and "sub/a.txt:1:x" in grep.output
    listing = call_with_timeout(ListDirTool(ws, services), {"path": "sub"}, sub / ".gitignore")
    assert listing.ok and "a.txt" in listing.output
    check = {"action": "check", "path": "sub/a.txt"}
    assert call_with_timeout(GitignoreTool(ws, services), check, sub / ".gitignore").ok
