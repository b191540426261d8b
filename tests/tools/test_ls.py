"""ls: entries with type and size, dirs first, ignored entries hidden and counted, bounded."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cairn.tools.file_ops.ls import MAX_ENTRIES, ListDirTool
from cairn.tools.services import ToolServices
from cairn.tools.workspace import Workspace


@pytest.fixture
def ls(workspace):
    ws = Workspace(workspace)
    return ListDirTool(ws, ToolServices(ws))


def make(root, *rels, data="x"):
    for rel in rels:
        path = Path(root) / rel
        if rel.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(data)


def test_dirs_first_then_files_with_sizes(ls, workspace):
    make(workspace, "zeta/", "alpha/", "b.txt", "A.md")
    (Path(workspace) / "b.txt").write_text("y" * 2048)
    result = ls.execute({"path": "."})
    assert result.ok
    assert result.output.splitlines() == [
        "./ (2 dirs, 2 files)",
        "dir   alpha/",
        "dir   zeta/",
        "file  A.md  (1 B)",
        "file  b.txt  (2.0 KB)",
    ]


def test_git_default_excludes_and_gitignored_entries_are_hidden(ls, workspace):
    make(
        workspace, ".git/HEAD", "node_modules/x/", "__pycache__/m.pyc", "src/a.py", "debug.log", ".gitignore"
    )
    (Path(workspace) / ".gitignore").write_text("*.log\n")
    out = ls.execute({"path": "."}).output
    assert "dir   src/" in out and "file  .gitignore" in out
    for hidden in (".git/", "node_modules/", "__pycache__/", "debug.log"):
        assert f"   {hidden}" not in out and f"  {hidden}  " not in out
    assert "4 ignored entries not listed" in out and "include_ignored=true" in out
    full = ls.execute({"path": ".", "include_ignored": True}).output
    assert "dir   node_modules/" in full and "file  debug.log" in full and "dir   .git/" not in full


def test_nested_gitignore_applies_to_subdirectory_listing(ls, workspace):
    make(workspace, "pkg/gen/", "pkg/keep.py", "pkg/tmp.txt", "pkg/.gitignore")
    (Path(workspace) / ".gitignore").write_text("gen/\n")
    (Path(workspace) / "pkg/.gitignore").write_text("tmp.txt\n")
    out = ls.execute({"path": "pkg"}).output
    assert out.splitlines()[0] == "pkg/ (0 dirs, 2 files)"
    assert "keep.py" in out and "tmp.txt  (" not in out and "gen/" not in out.splitlines()[1]


def test_symlinks_show_targets(ls, workspace):
    make(workspace, "real/", "f.txt")
    os.symlink("real", Path(workspace) / "to_dir")
    os.symlink("missing", Path(workspace) / "dangling")
    out = ls.execute({"path": "."}).output
    assert "link  to_dir/ -> real" in out and "link  dangling -> missing" in out


def test_errors(ls, workspace):
    make(workspace, "f.txt")
    assert "Directory not found" in ls.execute({"path": "nope"}).error
    assert "is a file" in ls.execute({"path": "f.txt"}).error


def test_empty_directory(ls, workspace):
    make(workspace, "empty/")
    assert ls.execute({"path": "empty"}).output.splitlines()[-1] == "(empty)"


def test_listing_is_bounded(ls, workspace):
    d = Path(workspace) / "many"
    d.mkdir()
    for i in range(MAX_ENTRIES + 25):
        (d / f"f{i:05}.txt").write_text("")
    out = ls.execute({"path": "many"}).output
    assert "[25 more entries not shown" in out
    assert sum(1 for line in out.splitlines() if line.startswith("file  ")) == MAX_ENTRIES


def test_metadata_flags():
    assert ListDirTool.read_only and ListDirTool.concurrency_safe and "LS" in ListDirTool.aliases
