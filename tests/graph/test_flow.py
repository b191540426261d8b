"""The graph through the Session API, on a scripted model: lifecycle, decisions, limits."""

from __future__ import annotations

import threading

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from cairn import Session, SessionError
from tests.graph.conftest import effect


def tool_messages(session: Session) -> dict[str, ToolMessage]:
    return {m.tool_call_id: m for m in session.history() if isinstance(m, ToolMessage)}


def test_plain_answer(harness):
    s = harness.session([{"content": "Hello there."}])
    r = s.send("hi")
    assert r.status == "done" and r.text == "Hello there."
    assert [type(m) for m in s.history()] == [HumanMessage, AIMessage]
    assert r.usage["model_calls"] == 1 and r.usage["input_tokens"] > 0


def test_low_call_runs_without_asking(harness):
    s = harness.session([{"tool_calls": [effect("a")]}, {"content": "done"}])
    r = s.send("go")
    assert r.status == "done" and r.text == "done"
    assert harness.runs() == ["a"]
    assert [c.status for c in r.tool_calls] == ["success"]
    assert r.tool_calls[0].risk == "LOW"
    assert tool_messages(s)["call_a"].content == "ran a"


def test_medium_call_waits_then_approve(harness):
    s = harness.session([{"tool_calls": [effect("g", "gated_effect")]}, {"content": "done"}])
    r = s.send("go")
    assert r.status == "awaiting_approval"
    [p] = r.pending
    assert p.call_id == "call_g" and p.status == "awaiting_approval" and p.risk == "MEDIUM"
    assert p.reason
    assert harness.runs() == []
    r = s.approve("call_g")
    assert r.status == "done"
    assert harness.runs() == ["g"]


def test_reject_with_message_reaches_the_model(harness):
    s = harness.session([{"tool_calls": [effect("g", "gated_effect")]}, {"content": "ok, not doing it"}])
    s.send("go")
    r = s.reject("call_g", "use pathlib instead")
    assert r.status == "done"
    assert harness.runs() == []
    msg = tool_messages(s)["call_g"]
    assert msg.status == "error" and "use pathlib instead" in msg.content
    [call] = [c for c in s.tool_calls() if c.call_id == "call_g"]
    assert call.status == "cancelled"


def test_edit_runs_new_args_and_tells_the_model(harness):
    s = harness.session([{"tool_calls": [effect("g", "gated_effect")]}, {"content": "done"}])
    s.send("go")
    r = s.edit("call_g", {"label": "edited"})
    assert r.status == "done"
    assert harness.runs() == ["edited"]
    content = tool_messages(s)["call_g"].content
    assert "edited the arguments" in content and "ran edited" in content


def test_edit_with_invalid_args_is_refused_before_resuming(harness):
    s = harness.session([{"tool_calls": [effect("g", "gated_effect")]}, {"content": "done"}])
    s.send("go")
    with pytest.raises(ValueError, match="seconds"):
        s.edit("call_g", {"label": "x", "seconds": "soon"})
    assert [p.call_id for p in s.pending()] == ["call_g"]


def test_always_allow_adds_a_session_rule(harness):
    turns = [
        {"tool_calls": [effect("g", "gated_effect")]},
        {"tool_calls": [effect("g2", "gated_effect", cid="call_g2")]},
        {"content": "done"},
    ]
    s = harness.session(turns)
    s.send("go")
    r = s.approve("call_g", always=True)
    assert r.status == "done", r
    assert harness.runs() == ["g", "g2"]
    rules = s.state["session_rules"]
    assert rules and all("gated_effect" in r for r in rules)
    # the rule survives a restart
    s.close()
    again = Session.resume(s.id, db=harness.db, tools=harness.tools())
    assert again.state["session_rules"] == rules
    again.close()


def test_low_call_does_not_wait_for_a_gated_one(harness):
    s = harness.session([{"tool_calls": [effect("g", "gated_effect"), effect("a")]}, {"content": "done"}])
    r = s.send("go")
    assert r.status == "awaiting_approval"
    assert harness.runs() == ["a"], "the LOW call ran while the other waits"
    r = s.approve()
    assert r.status == "done"
    assert harness.runs() == ["a", "g"]
    # ToolMessages keep the model's order
    ids = [m.tool_call_id for m in s.history() if isinstance(m, ToolMessage)]
    assert ids == ["call_g", "call_a"]


def test_decide_several_at_once_and_partial_decisions(harness):
    turns = [{"tool_calls": [effect("x", "gated_effect"), effect("y", "gated_effect")]}, {"content": "done"}]
    s = harness.session(turns)
    s.send("go")
    r = s.approve("call_x")
    assert r.status == "awaiting_approval", "still waiting for call_y"
    assert harness.runs() == []
    r = s.decide({"call_y": {"reject": "not that one"}})
    assert r.status == "done"
    assert harness.runs() == ["x"]


def test_unknown_decision_ids_are_clear_errors(harness):
    s = harness.session([{"tool_calls": [effect("g", "gated_effect")]}, {"content": "done"}])
    s.send("go")
    with pytest.raises(ValueError, match="call_g"):
        s.approve("nope")
    with pytest.raises(ValueError, match="choose one of"):
        s.retry("call_g")


def test_parallel_calls_run_concurrently(harness, monkeypatch):
    barrier = threading.Barrier(2, timeout=5)
    from tests.support.kill_driver import ParallelEffectTool

    original = ParallelEffectTool.run

    def run(self, params, ctx):
        barrier.wait()  # both must be running at the same time, or this times out
        return original(self, params, ctx)

    monkeypatch.setattr(ParallelEffectTool, "run", run)
    turns = [
        {"tool_calls": [effect("p1", "parallel_effect"), effect("p2", "parallel_effect")]},
        {"content": "done"},
    ]
    s = harness.session(turns)
    r = s.send("go")
    assert r.status == "done"
    assert [c.status for c in r.tool_calls] == ["success", "success"]


def test_unknown_tool_and_bad_args_are_answered(harness):
    turns = [
        {
            "tool_calls": [
                {"name": "no_such_tool", "args": {}, "id": "c1"},
                {"name": "effect", "args": {"label": 5, "bogus": 1}, "id": "c2"},
                {"name": "effect", "raw_args": "{not json", "id": "c3"},
            ]
        },
        {"content": "fixed"},
    ]
    s = harness.session(turns)
    r = s.send("go")
    assert r.status == "done"
    msgs = tool_messages(s)
    assert "Valid tools are" in msgs["c1"].content and "effect" in msgs["c1"].content
    assert "bogus" in msgs["c2"].content
    assert "could not be parsed" in msgs["c3"].content
    assert harness.runs() == []


def test_aliases_resolve(harness):
    s = harness.session(
        [{"tool_calls": [{"name": "Read", "args": {"file_path": "f.txt"}, "id": "c1"}]}, {"content": "done"}]
    )
    (harness.ws / "f.txt").write_text("hello\n")
    r = s.send("go")
    assert r.status == "done"
    assert "hello" in tool_messages(s)["c1"].content


def test_max_steps_pauses_and_continue_resumes(harness):
    turns = [{"tool_calls": [effect(f"s{i}")]} for i in range(3)] + [{"content": "done"}]
    s = harness.session(turns, max_steps=2)
    r = s.send("go")
    assert r.status == "max_steps"
    assert harness.runs() == ["s0", "s1"]
    r = s.continue_()
    assert r.status == "done"
    assert harness.runs() == ["s0", "s1", "s2"]


def test_model_error_pauses_resumably(harness):
    turns = [{"error": {"status": 500, "message": "upstream exploded"}}]
    s = harness.session(turns)
    r = s.send("go")
    assert r.status == "error" and "exploded" in (r.error or "")
    # the session is resumable: a working model continues from the same checkpoint
    from cairn.graph.models.scripted import ScriptedChatModel

    s.core._model = ScriptedChatModel.from_turns([{"content": "recovered"}])
    r = s.continue_()
    assert r.status == "done" and r.text == "recovered"
    assert [m.content for m in s.history() if isinstance(m, HumanMessage)] == ["go"]


def test_send_while_paused_is_refused(harness):
    s = harness.session([{"tool_calls": [effect("g", "gated_effect")]}, {"content": "done"}])
    s.send("go")
    with pytest.raises(SessionError, match="call_g"):
        s.send("another thing")


def test_plan_mode_offers_only_read_only_tools(harness):
    s = harness.session([{"tool_calls": [effect("a")]}, {"content": "here is my plan"}], mode="plan")
    r = s.send("plan it")
    assert r.status == "done"
    assert harness.runs() == []
    assert "plan mode" in tool_messages(s)["call_a"].content.lower()


def test_todo_tasks_survive_in_state(harness):
    todos = [{"content": "read code", "status": "in_progress"}, {"content": "fix", "status": "pending"}]
    s = harness.session(
        [{"tool_calls": [{"name": "todo_write", "args": {"todos": todos}, "id": "t1"}]}, {"content": "done"}]
    )
    s.send("plan")
    assert [t["content"] for t in s.state["tasks"]] == ["read code", "fix"]
    s.close()
    again = Session.resume(s.id, db=harness.db, tools=harness.tools())
    assert [t["content"] for t in again.state["tasks"]] == ["read code", "fix"]
    again.close()


def test_tool_calls_listing_and_sessions_index(harness):
    s = harness.session([{"tool_calls": [effect("a"), effect("g", "gated_effect")]}, {"content": "done"}])
    s.send("list things please")
    listed = s.tool_calls()
    assert [(c.call_id, c.status) for c in listed] == [("call_a", "success"), ("call_g", "awaiting_approval")]
    s.reject("call_g")
    assert [(c.call_id, c.status) for c in s.tool_calls()] == [("call_a", "success"), ("call_g", "cancelled")]
    [row] = Session.list(db=harness.db, workspace=str(harness.ws))
    assert row["session_id"] == s.id and row["title"] == "list things please" and row["status"] == "done"
    assert Session.list(db=harness.db, workspace=str(harness.root)) == []


def test_checkpoint_history_is_browsable(harness):
    s = harness.session([{"tool_calls": [effect("a")]}, {"content": "done"}])
    s.send("go")
    history = s.checkpoints()
    assert history[0]["next"] == [] and history[0]["messages"] == 4
    assert any(h["next"] == ["reasoning"] for h in history)


def test_streaming_emits_tokens_and_tool_events(harness):
    s = harness.session([{"content": "let me look", "tool_calls": [effect("a")]}, {"content": "all good"}])
    events: list[tuple[str, dict]] = []
    r = s.send("go", stream=True, on_event=lambda k, p: events.append((k, p)))
    assert r.status == "done"
    tokens = "".join(p["text"] for k, p in events if k == "token")
    assert tokens == "let me lookall good"
    kinds = [k for k, _ in events]
    assert kinds.index("tool_start") < kinds.index("tool_end")


def test_resume_by_prefix_and_unknown_id(harness):
    s = harness.session([{"content": "x"}])
    s.send("go")
    s.close()
    again = Session.resume(s.id[:8], db=harness.db)
    assert again.id == s.id
    again.close()
    with pytest.raises(SessionError, match="no session"):
        Session.resume("ffffffffffff", db=harness.db)


def test_stop_interrupts_a_running_tool(harness):
    turns = [{"tool_calls": [effect("slow", seconds=30)]}, {"content": "done"}]
    s = harness.session(turns)

    def on_event(kind, payload):
        if kind == "tool_start":
            threading.Timer(0.2, s.stop).start()

    r = s.send("go", on_event=on_event)
    assert r.status == "interrupted"
    [p] = r.pending
    assert p.status == "interrupted"
    r = s.cancel()
    assert r.status == "done"
    assert "not to run it again" in tool_messages(s)["call_slow"].content


def test_run_result_lists_only_this_runs_calls_with_details(harness):
    turns = [
        {"tool_calls": [effect("a")]},
        {"tool_calls": [effect("g", "gated_effect")]},
        {"content": "done"},
    ]
    s = harness.session(turns)
    first = s.send("go")
    assert [c.call_id for c in first.tool_calls] == ["call_a", "call_g"]
    r = s.edit("call_g", {"label": "changed"})
    assert [c.call_id for c in r.tool_calls] == ["call_g"]
    [edited] = r.tool_calls
    assert edited.decision == "edited" and edited.original_arguments == {"label": "g", "seconds": 0.0}
    # the call log keeps the details after the run, too
    [logged] = [c for c in s.tool_calls() if c.call_id == "call_g"]
    assert logged.decision == "edited" and logged.status == "success"


def test_file_reads_survive_a_restart_for_stale_write_checks(harness):
    target = harness.ws / "calc.py"
    target.write_text("x = 1\n")
    turns = [
        {"tool_calls": [{"name": "read_file", "args": {"file_path": "calc.py"}, "id": "r"}]},
        {
            "tool_calls": [
                {
                    "name": "edit_file",
                    "args": {"file_path": "calc.py", "old_string": "x = 1", "new_string": "x = 2"},
                    "id": "e",
                }
            ]
        },
        {"content": "done"},
    ]
    s = harness.session(turns)
    assert s.send("edit").status == "awaiting_approval"
    s.close()
    from cairn.graph.models.scripted import ScriptedChatModel

    again = Session.resume(s.id, db=harness.db, model=ScriptedChatModel.from_turns(turns))
    r = again.approve()
    again.close()
    assert r.status == "done", r.tool_calls
    assert target.read_text() == "x = 2\n"


def test_a_new_message_after_a_model_error_supersedes_the_failed_call(harness):
    s = harness.session([{"error": {"status": 500, "message": "boom"}}])
    assert s.send("first").status == "error"
    from cairn.graph.models.scripted import ScriptedChatModel

    s.core._model = ScriptedChatModel.from_turns([{"content": "answer to second"}])
    r = s.send("second")
    assert r.status == "done" and r.text == "answer to second"
    assert [m.content for m in s.history()] == ["first", "second", "answer to second"]


def test_extra_secret_env_names_are_withheld_from_commands(harness, monkeypatch):
    monkeypatch.setenv("CAIRN_SECRET_ENV", "MY_DB_URL, *_CREDENTIALS")
    monkeypatch.setenv("MY_DB_URL", "postgres://user:hunter2@db")
    monkeypatch.setenv("CLOUD_CREDENTIALS", "s3cr3t")
    monkeypatch.setenv("HARMLESS_SETTING", "visible")
    turns = [{"tool_calls": [{"name": "bash", "args": {"command": "env"}, "id": "e"}]}, {"content": "done"}]
    s = harness.session(turns, mode="bypass")
    s.send("show env")
    out = next(m.content for m in s.history() if getattr(m, "tool_call_id", None) == "e")
    assert "visible" in out
    assert "hunter2" not in out and "s3cr3t" not in out


def test_shell_commands_are_judged_from_the_directory_cd_left_them_in(harness):
    (harness.ws / "sub").mkdir()
    (harness.ws / "readme.txt").write_text("inside the workspace\n")
    turns = [
        {"tool_calls": [{"name": "bash", "args": {"command": "cd sub"}, "id": "c1"}]},
        {"tool_calls": [{"name": "bash", "args": {"command": "cat ../readme.txt"}, "id": "c2"}]},
        {"content": "done"},
    ]
    s = harness.session(turns)
    r = s.send("go")
    while r.status == "awaiting_approval" and r.pending[0].call_id == "c1":
        r = s.approve()
    # from sub/, ../readme.txt is inside the workspace: a read-only command runs without asking
    assert r.status == "done", r.pending
    out = next(m.content for m in s.history() if getattr(m, "tool_call_id", None) == "c2")
    assert "inside the workspace" in out


def test_a_custom_tool_named_like_a_builtin_alias_is_judged_as_itself(harness):
    from langchain_core.tools import tool as lc_tool

    @lc_tool
    def search(query: str) -> str:
        """Search the web (an MCP-style tool that happens to be called like grep's alias)."""
        return f"results for {query}"

    turns = [
        {
            "tool_calls": [
                {"name": "search", "args": {"query": "cairn"}, "id": "s1"},
                {"name": "grep", "args": {"pattern": "x"}, "id": "g1"},
            ]
        },
        {"content": "done"},
    ]
    s = Session(
        harness.ws,
        model=__import__("cairn.graph.models.scripted", fromlist=["x"]).ScriptedChatModel.from_turns(turns),
        db=harness.db,
        tools=[search],
    )
    r = s.send("go")
    assert r.status == "awaiting_approval", "an unknown custom tool asks (MEDIUM), it is not a grep"
    assert [p.call_id for p in r.pending] == ["s1"]
    assert [c.status for c in r.tool_calls if c.call_id == "g1"] == ["success"], "grep itself still runs"
    r = s.approve()
    assert r.status == "done"
    assert "results for cairn" in next(
        m.content for m in s.history() if getattr(m, "tool_call_id", None) == "s1"
    )


def test_globs_of_a_session_share_its_stat_cache_until_it_closes(harness):
    """The second glob takes the first one's files from the session's stat cache, still seeing
    a file changed in between; closing the session drops the cache's inotify watches."""
    import os

    for i, name in enumerate(["a.py", "b.py"]):
        (harness.ws / name).write_text("x" * (i + 1))
        os.utime(harness.ws / name, (1_700_000_000 + i, 1_700_000_000 + i))
    glob = {"name": "glob", "args": {"pattern": "**/*.py"}}
    s = harness.session(
        [
            {"tool_calls": [{**glob, "id": "g1"}]},
            {"content": "one"},
            {"tool_calls": [{**glob, "id": "g2"}]},
            {"content": "two"},
        ]
    )
    assert s.send("list").status == "done"
    assert tool_messages(s)["g1"].content.splitlines()[1:] == ["b.py  (2 B)", "a.py  (1 B)"]
    cache = s.core.services.stat_cache
    assert cache.settle(timeout=30)
    assert cache.remembered == 2
    (harness.ws / "a.py").write_text("grown")
    os.utime(harness.ws / "a.py", (1_700_000_009, 1_700_000_009))
    assert s.send("again").status == "done"
    assert tool_messages(s)["g2"].content.splitlines()[1:] == ["a.py  (5 B)", "b.py  (2 B)"]
    s.close()
    assert cache.remembered == 0 and "stat_cache" not in s.core.services.__dict__


@pytest.mark.parametrize("mode", ["default", "plan"])
def test_a_run_warms_the_stat_cache_for_the_first_glob(harness, mode):
    """The run's warm-up learns the workspace's files (in plan mode too: globs explore); the
    shell (and its git status for writing commands) waits for a call that needs it."""
    for name in ("a.py", "b/c.py"):
        (harness.ws / name).parent.mkdir(exist_ok=True)
        (harness.ws / name).write_text("x")
    s = harness.session([{"content": "hello"}], mode=mode)
    assert s.send("hi").status == "done"
    assert s.core.services.stat_cache.settle(timeout=30)
    assert s.core.services.stat_cache.remembered == 2
    assert "shell" not in s.core.services.__dict__
    assert s.core.snapshotter is None or s.core.snapshotter._warming is None


def test_the_rewind_snapshot_is_warmed_by_the_first_call_that_may_change_files(harness):
    """A session whose calls only read never builds the rewind snapshot's index; a call that may
    change files starts it when it is routed, before the person is asked (and before it runs)."""
    s = harness.session(
        [{"tool_calls": [effect("a")]}, {"tool_calls": [effect("g", "gated_effect")]}, {"content": "done"}]
    )
    snapshots = s.core.snapshotter
    assert snapshots is not None
    r = s.send("go")
    assert r.status == "awaiting_approval" and harness.runs() == ["a"]
    assert snapshots._warming is not None  # started for call_g while it waits for a person
    snapshots._warming.join(timeout=30)
    assert s.approve("call_g").status == "done" and harness.runs() == ["a", "g"]
    assert [rec.call_id for rec in s.store.snapshots.snapshots(s.id) if rec.phase == "before"] == ["call_g"]


def test_a_writing_shell_command_warms_its_git_status_when_routed(harness):
    """The shell is set up for the first ``bash`` call, not for every run; a command that may
    write gets its first ``git status`` started in the background when it is routed."""
    s = harness.session(
        [
            {"tool_calls": [{"name": "bash", "args": {"command": "touch made.txt"}, "id": "b1"}]},
            {"content": "ok"},
        ]
    )
    r = s.send("go")
    assert r.status == "awaiting_approval", r.status
    assert s.core.services.shell.changes._warming is not None
