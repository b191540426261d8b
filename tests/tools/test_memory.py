"""memory: per-workspace notes in the state dir, atomic writes, bounds, and load_memory."""

from __future__ import annotations

import hashlib
import os
import threading

import pytest

from cairn.tools.base import RiskLevel
from cairn.tools.memory import (
    MAX_NOTE_CHARS,
    MAX_NOTES,
    MemoryTool,
    load_memory,
    memory_file_for,
    read_notes,
)
from cairn.tools.registry import ToolRegistry
from cairn.tools.workspace import Workspace


@pytest.fixture
def tool(workspace):
    return MemoryTool(Workspace(workspace))


def test_metadata_and_aliases(tool):
    assert tool.name == "memory" and tool.risk_level is RiskLevel.MEDIUM
    assert tool.read_only is False and tool.concurrency_safe is False
    registry = ToolRegistry([tool])
    assert registry.resolve_name("Memory") == "memory" and registry.resolve_name("remember") == "memory"


def test_file_location_uses_cairn_home_and_root_hash(workspace, tmp_path, monkeypatch):
    monkeypatch.setenv("CAIRN_HOME", str(tmp_path / "home"))
    digest = hashlib.sha256(workspace.encode()).hexdigest()[:16]
    assert memory_file_for(workspace) == tmp_path / "home" / "memory" / f"{digest}.md"
    # same workspace through a symlink and a Workspace object -> same file
    link = tmp_path / "link"
    link.symlink_to(workspace)
    assert memory_file_for(link) == memory_file_for(Workspace(workspace))
    assert memory_file_for(tmp_path) != memory_file_for(workspace)


def test_without_cairn_home_uses_platform_state_dir(workspace, monkeypatch, tmp_path):
    monkeypatch.delenv("CAIRN_HOME")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    import platformdirs

    expected_root = platformdirs.user_state_dir("cairn")
    assert str(memory_file_for(workspace)).startswith(os.path.join(expected_root, "memory"))


def test_add_view_remove_roundtrip(tool, workspace):
    assert tool.execute({"action": "view"}).output == "Memory for this workspace is empty."
    assert not memory_file_for(workspace).exists()  # view creates nothing
    r1 = tool.execute({"action": "add", "note": "Run tests with `.venv/bin/pytest -q`"})
    assert r1.ok and r1.output == "Remembered as note 1: Run tests with `.venv/bin/pytest -q`"
    tool.execute({"action": "add", "note": "User prefers\n small   commits"})
    view = tool.execute({"action": "view"})
    assert view.output == (
        "Memory for this workspace (2/50 notes):\n"
        "1. Run tests with `.venv/bin/pytest -q`\n"
        "2. User prefers small commits"
    )
    text = memory_file_for(workspace).read_text()
    assert "- Run tests with `.venv/bin/pytest -q`\n- User prefers small commits\n" in text
    assert load_memory(workspace) == "- Run tests with `.venv/bin/pytest -q`\n- User prefers small commits"
    removed = tool.execute({"action": "remove", "index": 1})
    assert removed.ok and removed.metadata["removed"] == "Run tests with `.venv/bin/pytest -q`"
    assert "1. User prefers small commits" in removed.output
    assert load_memory(workspace) == "- User prefers small commits"


def test_persists_across_tool_instances(workspace):
    MemoryTool(Workspace(workspace)).execute({"action": "add", "note": "uses poetry"})
    assert "1. uses poetry" in MemoryTool(Workspace(workspace)).execute({"action": "view"}).output


def test_workspaces_are_separate(tool, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    tool.execute({"action": "add", "note": "only here"})
    assert load_memory(other) == ""


def test_duplicate_add_is_a_noop(tool, workspace):
    tool.execute({"action": "add", "note": "Use ruff"})
    result = tool.execute({"action": "add", "note": "use RUFF"})
    assert result.ok and result.output.startswith("Already in memory")
    assert load_memory(workspace) == "- Use ruff"


def test_note_length_bound(tool, workspace):
    result = tool.execute({"action": "add", "note": "x" * (MAX_NOTE_CHARS + 1)})
    assert not result.ok and f"limit is {MAX_NOTE_CHARS}" in result.error
    assert tool.execute({"action": "add", "note": "y" * MAX_NOTE_CHARS}).ok


def test_note_count_bound(tool, workspace):
    for i in range(MAX_NOTES):
        assert tool.execute({"action": "add", "note": f"fact {i}"}).ok
    result = tool.execute({"action": "add", "note": "one too many"})
    assert not result.ok and "Memory is full (50 notes)" in result.error
    assert len(read_notes(memory_file_for(workspace))) == MAX_NOTES


def test_argument_errors(tool):
    assert "needs a non-empty `note`" in tool.execute({"action": "add"}).error
    assert "needs `index`" in tool.execute({"action": "remove"}).error
    assert "index" in tool.execute({"action": "remove", "index": 0}).error
    tool.execute({"action": "add", "note": "a"})
    missing = tool.execute({"action": "remove", "index": 5})
    assert not missing.ok and "There is no note 5" in missing.error and "1. a" in missing.error
    assert "action" in tool.execute({"action": "delete"}).error


def test_hand_edited_file_is_parsed_and_bounded(workspace):
    path = memory_file_for(workspace)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["# My notes", "- first", "  continued here", "* second", "not a note", "-", ""]
    lines += [f"- n{i} " + "z" * 600 for i in range(60)]
    path.write_text("\n".join(lines))
    notes = load_memory(workspace).splitlines()
    assert notes[0] == "- first continued here" and notes[1] == "- second"
    assert len(notes) == MAX_NOTES
    assert all(len(n) <= MAX_NOTE_CHARS + 2 for n in notes)


def test_writes_are_atomic_and_leave_no_temp_files(tool, workspace):
    tool.execute({"action": "add", "note": "a"})
    tool.execute({"action": "add", "note": "b"})
    folder = memory_file_for(workspace).parent
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]


def test_concurrent_adds_lose_nothing(workspace):
    def add(i: int) -> None:
        MemoryTool(Workspace(workspace)).execute({"action": "add", "note": f"note {i}"})

    threads = [threading.Thread(target=add, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(load_memory(workspace).splitlines()) == sorted(f"- note {i}" for i in range(20))


def test_preview_describes_the_change(tool):
    tool.execute({"action": "add", "note": "keep me"})
    assert tool.dry_run({"action": "add", "note": "new"}).output == "Would remember: new"
    assert tool.dry_run({"action": "remove", "index": 1}).output == "Would remove note 1: keep me"
    assert tool.dry_run({"action": "view"}) is None
    assert "keep me" in tool.execute({"action": "view"}).output  # preview changed nothing
