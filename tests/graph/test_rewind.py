"""Rewind through the Session API: every kind of file change, the person's git state, conflicts."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage

from cairn import SessionError
from tests.graph.rewind_support import (
    bash,
    fingerprint,
    git,
    git_state,
    one_call_per_turn,
    session,
    user_repo,
)

GEN_SCRIPT = """#!/bin/sh
mkdir -p gen/sub
printf 'one\\n' > gen/one.txt
printf 'two\\000bytes' > gen/sub/two.bin
printf 'changed by script\\n' >> a.txt
rm -f staged.txt
"""

CALLS = [
    [
        {"name": "read_file", "args": {"file_path": "a.txt"}, "id": "read1"},
        {
            "name": "edit_file",
            "args": {"file_path": "a.txt", "old_string": "beta", "new_string": "BETA"},
            "id": "edit1",
        },
    ],
    [{"name": "write_file", "args": {"file_path": "new/w.txt", "content": "written\n"}, "id": "write1"}],
    [bash("sed -i 's/alpha/ALPHA/' a.txt", "sed1")],
    [bash("echo hi > redirected.txt && echo more >> old.txt", "redir1")],
    [bash("rm old.txt", "rm1")],
    [bash("mv mv_me.txt moved.txt", "mv1")],
    [bash("chmod -x tool.sh && chmod +x a.txt && ln -s a.txt link", "chmod1")],
    [bash("sh gen.sh", "script1")],
]


def _ws(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    user_repo(ws)
    (ws / "gen.sh").write_text(GEN_SCRIPT)
    return ws


@pytest.fixture
def ran(tmp_path, db_location):
    """A session that ran CALLS, one person turn each, with the workspace after every turn."""
    ws = _ws(tmp_path)
    s = session(ws, db_location, one_call_per_turn(CALLS))
    states = [fingerprint(ws)]
    git_before = git_state(ws)
    for index in range(len(CALLS)):
        r = s.send(f"turn {index + 1}")
        assert r.status == "done" and all(c.status == "success" for c in r.tool_calls), r.tool_calls
        # (a rare PostgreSQL-only flake: a turn whose fingerprint did not change; name what ran)
        assert [c.call_id for c in r.tool_calls] == [c["id"] for c in CALLS[index]], (index, r.tool_calls)
        states.append(fingerprint(ws))
    yield s, ws, states, git_before
    s.close()


def _same_git(ws: Path, before: dict[str, str], *, status: bool) -> None:
    now = git_state(ws)
    keys = [k for k in before if status or k != "status"]
    assert {k: now[k] for k in keys} == {k: before[k] for k in keys}


def test_rewind_to_each_call_restores_exact_bytes_and_modes(ran):
    s, ws, states, git_before = ran
    unchanged = [CALLS[i][-1]["id"] for i, (a, b) in enumerate(itertools.pairwise(states)) if a == b]
    assert unchanged == [], f"these calls changed nothing in the workspace: {unchanged}"
    for index, group in enumerate(CALLS):
        call_id = group[-1]["id"]
        r = s.rewind(call_id, code=True, conversation=False)
        assert fingerprint(ws) == states[index], call_id
        assert not r.not_restored and r.changed
        _same_git(ws, git_before, status=index == 0)
        s.redo()
        assert fingerprint(ws) == states[-1]
        _same_git(ws, git_before, status=False)
    assert (ws / "build" / "out.o").read_bytes() == b"\x00ignored"  # ignored files are never touched


def test_snapshots_skip_read_only_calls_and_come_before_the_executing_record(ran):
    s, *_ = ran
    snaps = s.store.snapshots.snapshots(s.id)
    snapped = {r.call_id for r in snaps}
    assert "read1" not in snapped and snapped == {g[-1]["id"] for g in CALLS}
    journal = {e.call_id: e for e in s.store.journal.entries(s.id)}
    for record in snaps:
        if record.phase == "before":
            assert record.tree and record.created_at <= journal[record.call_id].started_at
        else:
            assert record.created_at >= journal[record.call_id].started_at


def test_conversation_rewind_moves_the_head_and_keeps_the_old_branch(ran):
    s, ws, states, _git = ran
    old = s.history()
    r = s.rewind(turn=3)
    assert fingerprint(ws) == states[2]
    people = [m.content for m in s.history() if isinstance(m, HumanMessage)]
    assert people == ["turn 1", "turn 2"]
    assert r.messages_rewound == len(old) - len(s.history()) and r.old_head == old[-1].id
    assert len(s.store.transcript.read(s.id, r.old_head)) == len(old)  # the old branch is still there
    assert s.store.snapshots.rewinds(s.id)[-1].plan["old_head"] == old[-1].id
    redone = s.redo()
    assert [m.id for m in s.history()] == [m.id for m in old] and redone.head == old[-1].id
    assert fingerprint(ws) == states[-1]


def test_conversation_continues_on_a_new_branch_after_a_rewind(tmp_path, db_location):
    ws = _ws(tmp_path)
    s = session(ws, db_location, one_call_per_turn(CALLS[:2]))
    s.send("one")
    s.send("two")
    s.rewind(turn=2)
    assert not (ws / "new").exists()
    # The scripted model answers by position, so the new branch repeats the write under a new id.
    r = s.send("two, differently")
    assert r.status == "done" and r.text == "ok"
    [call] = r.tool_calls
    assert call.tool_name == "write_file" and call.call_id != "write1"
    assert [m.content for m in s.history() if isinstance(m, HumanMessage)] == ["one", "two, differently"]
    assert (ws / "new" / "w.txt").exists()
    with pytest.raises(SessionError, match="changed files since"):
        s.redo()
    s.rewind(call.call_id)  # the new branch's call rewinds like any other
    assert not (ws / "new").exists()


def test_person_edits_are_conflicts_unless_forced(ran):
    s, ws, states, _git = ran
    (ws / "moved.txt").write_text("the person's words\n")  # after the agent's last call
    r = s.rewind("mv1", conversation=False)
    assert r.conflicts == ["moved.txt"] and "moved.txt" in r.not_restored
    assert (ws / "moved.txt").read_text() == "the person's words\n"
    assert (ws / "mv_me.txt").read_bytes() == states[5]["mv_me.txt"][1]
    s.redo()
    forced = s.rewind("mv1", conversation=False, force=True)
    assert not forced.conflicts and fingerprint(ws) == states[5]


def test_a_person_edit_between_two_calls_is_a_conflict(tmp_path, db_location):
    ws = _ws(tmp_path)
    s = session(ws, db_location, one_call_per_turn(CALLS[1:3]))
    s.send("write")
    (ws / "a.txt").write_text("person\n")
    s.send("sed")  # the agent's sed runs on the person's text
    r = s.rewind("write1", conversation=False)
    assert r.conflicts == ["a.txt"] and r.deleted == ["new/w.txt"]
    assert (ws / "a.txt").read_text() == "person\n".replace("alpha", "ALPHA")


def test_dry_run_shows_diffs_and_changes_nothing(ran):
    s, ws, states, _git = ran
    head = s.state["head"]
    r = s.rewind("sed1", dry_run=True)
    assert r.dry_run and fingerprint(ws) == states[-1] and s.state["head"] == head
    assert "-ALPHA" in r.diffs["a.txt"] and "+alpha" in r.diffs["a.txt"]
    assert "redirected.txt" in r.deleted and "/dev/null" in r.diffs["redirected.txt"]
    assert not s.store.snapshots.rewinds(s.id)


def test_undo_one_call_where_it_is_the_latest_change(ran):
    s, ws, *_ = ran
    assert s.undo_problem("mv1") is None
    assert "changed the same files later" in (s.undo_problem("edit1") or "")
    r = s.undo_call("mv1")
    assert sorted(r.changed) == ["moved.txt", "mv_me.txt"]
    assert (ws / "mv_me.txt").exists() and not (ws / "moved.txt").exists()
    assert (ws / "gen" / "one.txt").exists()  # later calls' changes stay
    with pytest.raises(SessionError):
        s.undo_call("edit1")


def test_a_workspace_that_is_not_a_git_repository(tmp_path, db_location):
    ws = tmp_path / "plain"
    ws.mkdir()
    (ws / "a.txt").write_text("alpha\n")
    (ws / ".gitignore").write_text("*.log\n")
    (ws / "keep.log").write_text("log\n")
    s = session(
        ws,
        db_location,
        one_call_per_turn([[bash("rm a.txt; echo x > b.txt; echo y > keep.log", "c1")]]),
    )
    before = fingerprint(ws)
    s.send("go")
    r = s.rewind("c1", conversation=False)
    after = fingerprint(ws)
    assert {k: v for k, v in after.items() if k != "keep.log"} == {
        k: v for k, v in before.items() if k != "keep.log"
    }
    assert after["keep.log"][1] == b"y\n"  # ignored: not snapshotted, not touched
    assert not (ws / ".git").exists() and sorted(r.changed) == ["a.txt", "b.txt"]


def test_files_above_the_size_bound_are_reported_not_restorable(tmp_path, db_location):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "small.txt").write_text("s\n")
    calls = [
        [bash("head -c 5000 /dev/zero > big.bin && echo t >> small.txt", "c1")],
        [bash("echo u >> small.txt", "c2")],
    ]
    s = session(ws, db_location, one_call_per_turn(calls), snapshot_max_file_bytes=1000)
    s.send("one")
    s.send("two")
    r = s.rewind("c2", conversation=False)
    assert "big.bin" in r.not_restored and "size bound" in r.not_restored["big.bin"]
    assert (ws / "big.bin").stat().st_size == 5000 and (ws / "small.txt").read_text() == "s\nt\n"


def test_the_shadow_repository_lives_in_the_state_directory(ran):
    s, ws, _states, _git = ran
    git_dir = s.core.snapshotter.repo.git_dir
    assert Path(os.environ["CAIRN_HOME"]) in git_dir.parents and ws not in git_dir.parents
    assert git(ws, "rev-parse", "--git-dir").strip() == ".git"


def test_a_stale_index_lock_from_a_killed_snapshot_is_cleared(ran):
    s, *_ = ran
    repo = s.core.snapshotter.repo
    Path(f"{repo.index}.lock").write_text("")
    assert repo.snapshot().tree


def test_rewinding_a_paused_session_drops_its_undecided_calls(tmp_path, db_location):
    ws = _ws(tmp_path)
    s = session(ws, db_location, one_call_per_turn(CALLS[1:3]))
    s.send("write")
    s.set_mode("default")
    r = s.send("sed")
    assert r.status == "awaiting_approval" and [c.call_id for c in r.pending] == ["sed1"]
    s.rewind(turn=2)
    assert s.pending() == [] and s.state["pending_tool_calls"] == []
    assert (ws / "new" / "w.txt").exists()  # turn 1's write stays
    again = s.send("sed, again")
    assert again.status == "awaiting_approval"  # a fresh branch from turn 2
    assert [m.content for m in s.history() if isinstance(m, HumanMessage)] == ["write", "sed, again"]
