"""Recovery invariants, each checked by SIGKILLing a real cairn process at one point.

A first process runs a session until a marker file says it reached the point,
then gets SIGKILL. A second process resumes the session. We then assert, from
the database and the side-effect log:

1. no side effect ran twice (runs.log),
2. no completed result was lost (journal + transcript),
3. every AIMessage tool call has exactly one ToolMessage,
4. awaiting calls are asked again; executing calls come back ``interrupted`` and
   run again only after an explicit retry.

Set CAIRN_KILL_REPEAT=5 to run every kill point five times in a row.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from cairn.checkpoints import open_store

pytestmark = pytest.mark.slow
REPEAT = int(os.environ.get("CAIRN_KILL_REPEAT", "1"))
ROOT = Path(__file__).resolve().parents[2]


class Harness:
    def __init__(self, tmp: Path, turns: list[dict], db: str) -> None:
        self.tmp = tmp
        self.ws = tmp / "ws"
        self.ws.mkdir()
        self.marks = tmp / "marks"
        self.marks.mkdir()
        self.db = db  # a SQLite file or a postgresql:// URL (the ``db_location`` fixture)
        self.script = tmp / "script.json"
        self.script.write_text(json.dumps({"turns": turns}))
        self.session_id: str | None = None

    def _cmd(self, *action: str, hook: str | None = None) -> list[str]:
        cmd = [
            sys.executable,
            "-m",
            "tests.support.kill_driver",
            "--db",
            str(self.db),
            "--workspace",
            str(self.ws),
            "--script",
            str(self.script),
            "--marks",
            str(self.marks),
        ]
        if self.session_id:
            cmd += ["--session", self.session_id]
        if hook:
            cmd += ["--hook", hook]
        return cmd + list(action)

    def _env(self) -> dict[str, str]:
        return {**os.environ, "PYTHONPATH": str(ROOT)}

    def start_and_kill(
        self, *action: str, marker: str | tuple[str, ...], hook: str | None = None, timeout: float = 30
    ) -> None:
        markers = (marker,) if isinstance(marker, str) else marker
        proc = subprocess.Popen(
            self._cmd(*action, hook=hook),
            cwd=ROOT,
            env=self._env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        first = proc.stdout.readline()
        if self.session_id is None:
            self.session_id = json.loads(first)["session_id"]
        deadline = time.monotonic() + timeout
        while not all((self.marks / m).exists() for m in markers):
            if proc.poll() is not None:
                raise AssertionError(f"driver exited early: {proc.stdout.read()} {proc.stderr.read()}")
            if time.monotonic() > deadline:
                proc.kill()
                raise AssertionError(f"marker {marker} never appeared")
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        proc.stdout.close()
        proc.stderr.close()

    def run(self, *action: str) -> dict:
        out = subprocess.run(
            self._cmd(*action), cwd=ROOT, env=self._env(), capture_output=True, text=True, timeout=120
        )
        assert out.returncode == 0, out.stderr
        lines = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
        if self.session_id is None:
            self.session_id = lines[0]["session_id"]
        return lines[-1]

    def runs(self) -> list[str]:
        log = self.marks / "runs.log"
        return log.read_text().split() if log.exists() else []

    def transcript(self) -> list:
        store = open_store(self.db)
        try:
            snap_head = _head(store, self.session_id)
            return store.transcript.read(self.session_id, snap_head)
        finally:
            store.close()

    def journal(self) -> dict:
        store = open_store(self.db)
        try:
            return {e.call_id: e for e in store.journal.entries(self.session_id)}
        finally:
            store.close()


def _head(store, thread_id: str) -> str | None:
    tup = store.saver.get_tuple({"configurable": {"thread_id": thread_id}})
    return tup.checkpoint["channel_values"].get("head") if tup else None


def assert_one_tool_message_per_call(messages: list) -> None:
    calls = [tc["id"] for m in messages if isinstance(m, AIMessage) for tc in m.tool_calls]
    answers = [m.tool_call_id for m in messages if isinstance(m, ToolMessage)]
    assert sorted(calls) == sorted(answers), (calls, answers)
    assert len(answers) == len(set(answers))


def call(name: str, label: str, seconds: float = 0.0, cid: str | None = None) -> dict:
    return {"name": name, "args": {"label": label, "seconds": seconds}, "id": cid or f"call_{label}"}


@pytest.mark.smoke
@pytest.mark.parametrize("attempt", range(REPEAT))
def test_kill_while_tool_executing(tmp_path, db_location, attempt):
    h = Harness(
        tmp_path, [{"tool_calls": [call("effect", "slow", 60)]}, {"content": "finished"}], db_location
    )
    h.start_and_kill("--send", "go", marker="started-slow")
    assert h.runs() == ["slow"]
    result = h.run("--continue")
    assert result["status"] == "interrupted"
    assert [p["call_id"] for p in result["pending"]] == ["call_slow"]
    assert h.runs() == ["slow"], "an interrupted call must not be re-run silently"
    # Only an explicit retry runs it again (made instant so the test stays quick).
    (h.marks / "fast").write_text("")
    result = h.run("--retry")
    assert result["status"] == "done", result
    assert h.runs() == ["slow", "slow"]
    assert_one_tool_message_per_call(h.transcript())


@pytest.mark.parametrize("attempt", range(REPEAT))
def test_kill_after_tool_returned_before_graph_moved_on(tmp_path, db_location, attempt):
    h = Harness(tmp_path, [{"tool_calls": [call("effect", "once")]}, {"content": "finished"}], db_location)
    h.start_and_kill("--send", "go", marker="journaled-call_once", hook="after_result")
    assert h.runs() == ["once"]
    result = h.run("--continue")
    assert result["status"] == "done", result
    assert h.runs() == ["once"], "the journaled result must be adopted, not re-run"
    messages = h.transcript()
    assert_one_tool_message_per_call(messages)
    tool_msgs = [m for m in messages if isinstance(m, ToolMessage)]
    assert tool_msgs[0].content == "ran once"
    assert h.journal()["call_once"].status == "success"


@pytest.mark.parametrize("attempt", range(REPEAT))
def test_kill_after_a_node_saved_its_writes_before_the_next_checkpoint(tmp_path, db_location, attempt):
    """The run is not finished although LangGraph's ``next`` is empty: resuming applies the
    saved writes and goes on (found by the Postgres load benchmark)."""
    turns = [{"tool_calls": [call("effect", "once")]}, {"content": "finished"}]
    h = Harness(tmp_path, turns, db_location)
    h.start_and_kill("--send", "go", marker="observed", hook="after_writes")
    result = h.run("--continue")
    assert result["status"] == "done" and result["result"] == "finished", result
    assert h.runs() == ["once"]
    messages = h.transcript()
    assert_one_tool_message_per_call(messages)
    assert messages[-1].content == "finished"


@pytest.mark.parametrize("hook", ["after_input", "input_only"])
@pytest.mark.parametrize("attempt", range(REPEAT))
def test_kill_before_the_first_step_then_a_new_message_or_continue(tmp_path, db_location, attempt, hook):
    """Killed after the run's input checkpoint, before its first step: the message never
    reached the model.  A new message is taken after it (``send`` used to refuse, "unfinished
    tool calls (__start__)", and a caller retrying ``send`` spun forever: found by the
    Postgres load benchmark); ``continue_`` runs the lost message.  ``input_only``: the input
    step's writes never landed either, so the new head is only in LangGraph's input channel
    (``send`` used to put the new message after the previous head and lose "go")."""
    turns = [{"content": "first answer"}, {"content": "second answer"}]
    h = Harness(tmp_path, turns, db_location)
    h.start_and_kill("--send", "go", marker="input-saved", hook=hook)
    result = h.run("--send", "again")
    assert result["status"] == "done" and result["result"] == "first answer", result
    got = [(m.type, m.content) for m in h.transcript()]
    assert got == [("human", "go"), ("human", "again"), ("ai", "first answer")], got

    (tmp_path / "continued").mkdir()
    other = Harness(tmp_path / "continued", turns, db_location)
    other.start_and_kill("--send", "go", marker="input-saved", hook=hook)
    result = other.run("--continue")
    assert result["status"] == "done" and result["result"] == "first answer", result
    assert [(m.type, m.content) for m in other.transcript()] == [("human", "go"), ("ai", "first answer")]


@pytest.mark.parametrize("attempt", range(REPEAT))
def test_kill_while_awaiting_approval(tmp_path, db_location, attempt):
    h = Harness(
        tmp_path, [{"tool_calls": [call("gated_effect", "gated")]}, {"content": "finished"}], db_location
    )
    h.start_and_kill("--send", "go", marker="held", hook="hold")
    assert h.runs() == []
    result = h.run("--continue")
    assert result["status"] == "awaiting_approval", "the call must be asked again"
    assert [p["call_id"] for p in result["pending"]] == ["call_gated"]
    assert h.runs() == []
    result = h.run("--approve")
    assert result["status"] == "done", result
    assert h.runs() == ["gated"]
    assert_one_tool_message_per_call(h.transcript())


@pytest.mark.parametrize("attempt", range(REPEAT))
def test_kill_during_model_call(tmp_path, db_location, attempt):
    h = Harness(tmp_path, [{"tool_calls": [call("effect", "before")]}, {"content": "finished"}], db_location)
    (h.marks / "slow-model").write_text("")
    # The first model call (no AI message yet) hangs: kill there.
    h.start_and_kill("--send", "go", marker="model-0", hook="model")
    (h.marks / "slow-model").unlink()
    assert h.runs() == []
    result = h.run("--continue")
    assert result["status"] == "done", result
    assert h.runs() == ["before"]
    messages = h.transcript()
    assert [m.content for m in messages if m.type == "human"] == ["go"]
    assert_one_tool_message_per_call(messages)


@pytest.mark.parametrize("attempt", range(REPEAT))
def test_kill_between_parallel_calls(tmp_path, db_location, attempt):
    turns = [
        {"tool_calls": [call("parallel_effect", "fast", 0), call("parallel_effect", "slow", 60)]},
        {"content": "finished"},
    ]
    h = Harness(tmp_path, turns, db_location)
    # kill once the fast call returned and was journaled while the slow one is still running
    h.start_and_kill("--send", "go", marker=("journaled-call_fast", "started-slow"), hook="after_result")
    result = h.run("--continue")
    assert result["status"] == "interrupted", result
    assert [p["call_id"] for p in result["pending"]] == ["call_slow"]
    assert sorted(h.runs()) == ["fast", "slow"]
    journal = h.journal()
    assert journal["call_fast"].status == "success"
    assert journal["call_slow"].status == "interrupted"
    # cancel the interrupted call: the fast result is kept, the slow one never runs again
    from cairn import Session

    session = Session.resume(h.session_id, db=h.db, model=_finished_model(), tools=_tools(h))
    done = session.cancel()
    session.close()
    assert done.status == "done", done
    assert sorted(h.runs()) == ["fast", "slow"]
    messages = h.transcript()
    assert_one_tool_message_per_call(messages)
    by_id = {m.tool_call_id: m for m in messages if isinstance(m, ToolMessage)}
    assert by_id["call_fast"].content == "ran fast"
    assert by_id["call_slow"].status == "error"


@pytest.mark.parametrize("attempt", range(REPEAT))
def test_kill_during_read_only_call_retries_it_automatically(tmp_path, db_location, attempt):
    h = Harness(
        tmp_path, [{"tool_calls": [call("lookup", "look", 60)]}, {"content": "finished"}], db_location
    )
    h.start_and_kill("--send", "go", marker="started-look")
    (h.marks / "fast").write_text("")
    result = h.run("--continue")
    assert result["status"] == "done", result
    assert h.runs() == ["look", "look"], "a read-only call is re-run once, without asking"
    [info] = [c for c in result["tool_calls"] if c["call_id"] == "call_look"]
    assert info["status"] == "success" and "retried automatically" in info["reason"]
    assert_one_tool_message_per_call(h.transcript())


def _finished_model():
    from cairn.graph.models.scripted import ScriptedChatModel

    return ScriptedChatModel.from_turns([{"content": "unused"}, {"content": "finished"}])


def _tools(h: Harness):
    from cairn.tools.workspace import Workspace
    from tests.support import kill_driver

    kill_driver.MARKS = h.marks
    ws = Workspace(h.ws)
    return [cls(ws) for cls in kill_driver.TEST_TOOLS]


def test_a_second_process_cannot_drive_a_running_session(tmp_path, db_location):
    """While one process runs a session, another is refused; once the first is killed, the
    lock is gone with it and recovery proceeds at once."""
    from cairn import Session, SessionError

    h = Harness(
        tmp_path, [{"tool_calls": [call("effect", "slow", 60)]}, {"content": "finished"}], db_location
    )
    proc = subprocess.Popen(
        h._cmd("--send", "go"),
        cwd=ROOT,
        env=h._env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    h.session_id = json.loads(proc.stdout.readline())["session_id"]
    deadline = time.monotonic() + 30
    while not (h.marks / "started-slow").exists():
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.02)
    other = Session.resume(h.session_id, db=h.db, model=_finished_model(), tools=_tools(h))
    with pytest.raises(SessionError, match="another process"):
        other.continue_()
    assert h.runs() == ["slow"]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    proc.stdout.close()
    proc.stderr.close()
    result = other.continue_()
    assert result.status == "interrupted", result
    other.close()


def test_retry_all_recovers_a_crashed_run_first(tmp_path, db_location):
    from cairn import Session

    h = Harness(
        tmp_path, [{"tool_calls": [call("effect", "slow", 60)]}, {"content": "finished"}], db_location
    )
    h.start_and_kill("--send", "go", marker="started-slow")
    (h.marks / "fast").write_text("")
    session = Session.resume(h.session_id, db=h.db, model=_finished_model(), tools=_tools(h))
    result = session.retry("all")
    session.close()
    assert result.status == "done", result
    assert h.runs() == ["slow", "slow"]


def _summaries(h: Harness) -> int:
    log = h.marks / "summaries.log"
    return len(log.read_text().split()) if log.exists() else 0


def _compaction_setup(tmp_path, db_location) -> Harness:
    turns = [
        {"tool_calls": [call("effect", "one")]},
        {"tool_calls": [call("effect", "two")]},
        {"tool_calls": [call("effect", "three")]},
        {"content": "finished"},
        {"content": "still here"},
    ]
    h = Harness(tmp_path, turns, db_location)
    assert h.run("--send", "go")["status"] == "done"
    return h


def _assert_compacted_once_and_whole(h: Harness) -> None:
    from cairn.graph.core.compaction.view import is_marker

    messages = h.transcript()
    assert next(m for m in messages if m.type == "human").content == "go"
    assert sum(isinstance(m, ToolMessage) for m in messages) == 3, "no message may be lost"
    assert sum(isinstance(m, AIMessage) for m in messages) == 4
    assert sum(is_marker(m) for m in messages) == 1
    assert_one_tool_message_per_call(messages)
    [entry] = [e for e in h.journal().values() if e.tool_name == "compaction"]
    assert entry.status == "success"
    assert h.runs() == ["one", "two", "three"]


@pytest.mark.parametrize("attempt", range(REPEAT))
def test_kill_during_the_compaction_summary_call(tmp_path, db_location, attempt):
    h = _compaction_setup(tmp_path, db_location)
    (h.marks / "slow-summary").write_text("")
    h.start_and_kill("--compact", marker="summary-started", hook="summary")
    (h.marks / "slow-summary").unlink()
    assert _summaries(h) == 1
    result = h.run("--continue")
    assert result["status"] == "done", result
    # the killed call never answered, so it was asked again once; nothing else changed
    assert _summaries(h) == 2
    _assert_compacted_once_and_whole(h)
    result = h.run("--send", "and now?")  # the session goes on from the summary
    assert result["status"] == "done" and result["result"] == "still here", result


@pytest.mark.parametrize("attempt", range(REPEAT))
def test_kill_after_the_summary_was_journaled_does_not_ask_twice(tmp_path, db_location, attempt):
    h = _compaction_setup(tmp_path, db_location)
    h.start_and_kill("--compact", marker="journaled-compaction", hook="after_result")
    assert _summaries(h) == 1
    result = h.run("--continue")
    assert result["status"] == "done", result
    assert _summaries(h) == 1, "the journaled summary must be adopted, not asked again"
    _assert_compacted_once_and_whole(h)
