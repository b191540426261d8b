"""The shadow repository and restore on their own: exact bytes whatever git is told, odd shapes."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from cairn.checkpoints.code_rewind import plan_restore
from cairn.checkpoints.restore import apply_ops, diffs
from cairn.checkpoints.shadow_repo import ShadowRepo


@pytest.fixture
def ws(tmp_path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def repo_for(ws: Path, tmp_path: Path, **kwargs) -> ShadowRepo:
    return ShadowRepo(tmp_path / "state" / "shadow", ws, index_name="s1", **kwargs)


def rewind_to(repo: ShadowRepo, target) -> dict[str, str]:
    plan = plan_restore(repo, target, repo.snapshot(), later=[])
    return apply_ops(repo, plan.ops) | plan.not_restored


def tree_of(ws: Path) -> dict[str, bytes]:
    out = {}
    for path in sorted(ws.rglob("*")):
        if ".git" in path.relative_to(ws).parts:
            continue
        if path.is_symlink():
            out[str(path.relative_to(ws))] = b"->" + os.fsencode(os.readlink(path))
        elif path.is_file():
            out[str(path.relative_to(ws))] = path.read_bytes() + oct(path.stat().st_mode).encode()
    return out


def test_no_filter_or_line_ending_conversion_touches_the_bytes(ws, tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text('[core]\n\tautocrlf = true\n[filter "up"]\n\tclean = tr a-z A-Z\n')
    monkeypatch.setenv("HOME", str(home))
    (ws / ".gitattributes").write_text("* text=auto eol=crlf filter=up\n")
    (ws / "crlf.txt").write_bytes(b"one\r\ntwo\n\xff\xfe")
    repo = repo_for(ws, tmp_path)
    target = repo.snapshot()
    before = tree_of(ws)
    (ws / "crlf.txt").write_bytes(b"replaced\n")
    assert rewind_to(repo, target) == {}
    assert tree_of(ws) == before


def test_inherited_git_variables_are_ignored(ws, tmp_path, monkeypatch):
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    monkeypatch.setenv("GIT_DIR", str(ws / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(ws / ".git" / "index"))
    (ws / "a.txt").write_text("a\n")
    repo = repo_for(ws, tmp_path)
    repo.snapshot()
    assert not (ws / ".git" / "index").exists()  # the person's index was never written
    assert repo.git_dir.exists() and repo.git_dir != ws / ".git"


def test_file_and_directory_swaps_and_symlinks_come_back(ws, tmp_path):
    (ws / "thing").write_text("was a file\n")
    (ws / "dir").mkdir()
    (ws / "dir" / "inner.txt").write_text("inner\n")
    (ws / "link").symlink_to("thing")
    (ws / "run.sh").write_text("#!/bin/sh\n")
    (ws / "run.sh").chmod(0o755)
    repo = repo_for(ws, tmp_path)
    target = repo.snapshot()
    before = tree_of(ws)
    (ws / "thing").unlink()
    (ws / "thing").mkdir()
    (ws / "thing" / "now.txt").write_text("now a dir\n")
    (ws / "dir" / "inner.txt").unlink()
    (ws / "dir").rmdir()
    (ws / "dir").write_text("now a file\n")
    (ws / "link").unlink()
    (ws / "link").symlink_to("elsewhere")
    (ws / "run.sh").chmod(0o644)
    (ws / "deep" / "er").mkdir(parents=True)
    (ws / "deep" / "er" / "x.txt").write_text("created\n")
    assert rewind_to(repo, target) == {}
    assert tree_of(ws) == before
    assert not (ws / "deep").exists()  # directories the rewind emptied are removed


def test_size_bound_and_a_workspace_without_git(ws, tmp_path):
    (ws / "small.txt").write_text("s\n")
    (ws / "big.bin").write_bytes(b"\0" * 2048)
    repo = repo_for(ws, tmp_path, max_file_bytes=1024)
    snap = repo.snapshot()
    assert list(snap.skipped) == ["big.bin"] and "size bound" in snap.skipped["big.bin"]
    (ws / "big.bin").write_bytes(b"\1" * 4096)
    (ws / "small.txt").write_text("changed\n")
    why = rewind_to(repo, snap)
    assert "big.bin" in why and (ws / "big.bin").read_bytes() == b"\1" * 4096
    assert (ws / "small.txt").read_text() == "s\n"
    assert not (ws / ".git").exists()


def test_dry_run_diffs(ws, tmp_path):
    (ws / "a.txt").write_text("old\n")
    repo = repo_for(ws, tmp_path)
    target = repo.snapshot()
    (ws / "a.txt").write_text("new\n")
    (ws / "bin.dat").write_bytes(b"\0\1\2")
    plan = plan_restore(repo, target, repo.snapshot(), later=[])
    shown = diffs(repo, plan.ops)
    assert "-new\n+old\n" in shown["a.txt"] and "Binary" in shown["bin.dat"]
    assert (ws / "a.txt").read_text() == "new\n"
