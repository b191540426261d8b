"""The ``task`` tool runs a read-only sub-agent and returns only its report."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from cairn import Session


class TwoAgentModel(BaseChatModel):
    """Answers as the parent or as the sub-agent, depending on the conversation it is given."""

    @property
    def _llm_type(self) -> str:
        return "two-agent-test"

    def bind_tools(self, tools: Any, **kwargs: Any) -> TwoAgentModel:
        return self

    def _generate(self, messages: list, stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
        first = next(m for m in messages if isinstance(m, HumanMessage))
        ais = sum(isinstance(m, AIMessage) for m in messages)
        if "[sub-agent task" in str(first.content):  # after the session context block
            turns = [
                AIMessage("", tool_calls=[{"name": "grep", "args": {"pattern": "def target"}, "id": "s1"}]),
                AIMessage(
                    "",
                    tool_calls=[
                        {"name": "write_file", "args": {"file_path": "x.txt", "content": "no"}, "id": "s2"}
                    ],
                ),
                AIMessage("target is defined in lib/code.py"),
            ]
        else:
            turns = [
                AIMessage(
                    "",
                    tool_calls=[
                        {
                            "name": "task",
                            "args": {"description": "find target", "prompt": "Where is target defined?"},
                            "id": "t1",
                        }
                    ],
                ),
                AIMessage("The sub-agent says: lib/code.py"),
            ]
        return ChatResult(generations=[ChatGeneration(message=turns[min(ais, len(turns) - 1)])])


def test_task_runs_a_read_only_subagent(tmp_path, db_location):
    ws = tmp_path / "ws"
    (ws / "lib").mkdir(parents=True)
    (ws / "lib" / "code.py").write_text("def target():\n    pass\n")
    s = Session(ws, model=TwoAgentModel(), db=db_location)
    r = s.send("where is target?")
    assert r.status == "awaiting_approval" and r.pending[0].tool_name == "agent"
    r = s.approve()
    assert r.status == "done", r
    report = next(m for m in s.history() if isinstance(m, ToolMessage) and m.tool_call_id == "t1")
    assert report.content == "target is defined in lib/code.py"
    assert not (ws / "x.txt").exists(), "the sub-agent could not write"
    assert [c["session_id"] for c in Session.list(db=db_location)] == [s.id], "children are hidden"
    [row] = s.store.db.query("SELECT thread_id, mode FROM cairn_sessions WHERE thread_id != ?", (s.id,))
    child_id, mode = row
    assert child_id == f"{s.id}-sub-t1" and mode == "plan"
    s.close()
    again = Session.resume(child_id, db=db_location, model=TwoAgentModel())
    calls = {c.tool_name: c for c in again.tool_calls()}
    assert calls["grep"].status == "success"
    assert calls["write_file"].status in ("cancelled", "error")
    again.close()
