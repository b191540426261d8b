"""``cairn.atomic.atomic_write``: the one temp-file-and-replace helper every layer uses."""

from __future__ import annotations

import os
import stat

import pytest

from cairn.atomic import atomic_write


def test_writes_bytes_or_text_creating_parents(tmp_path):
    target = tmp_path / "a" / "b" / "f.txt"
    atomic_write(target, "héllo\n")
    assert target.read_bytes() == "héllo\n".encode()
    atomic_write(target, b"\x00\x01", durable=False)
    assert target.read_bytes() == b"\x00\x01"
    assert sorted(p.name for p in target.parent.iterdir()) == ["f.txt"]  # no temp file left


def test_mode_is_applied_and_default_follows_the_umask(tmp_path):
    atomic_write(tmp_path / "x", "x", mode=0o640)
    assert stat.S_IMODE((tmp_path / "x").stat().st_mode) == 0o640
    old = os.umask(0o027)
    try:
        atomic_write(tmp_path / "y", "y")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "y").stat().st_mode) == 0o640


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temp(tmp_path, monkeypatch):
    target = tmp_path / "f"
    target.write_text("old")

    def broken(*_args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError, match="disk full"):
        atomic_write(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["f"]


def test_a_fixed_temp_path_replaces_a_leftover(tmp_path):
    """Writers that re-apply a plan after a kill name their temp file: a leftover is reused."""
    leftover = tmp_path / "f.tmp"
    leftover.write_text("half written")
    atomic_write(tmp_path / "f", "whole", tmp=leftover)
    assert (tmp_path / "f").read_text() == "whole" and not leftover.exists()
