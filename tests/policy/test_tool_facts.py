"""Tool facts stated once, on the tool classes: the policy's table and the graph's tool sets
derive from them, and plan mode has one predicate that the graph and the policy share."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import ToolMessage

from cairn import policy
from cairn.graph.core.context import AgentContext
from cairn.graph.core.rule_setup import session_rules
from cairn.policy import RiskLevel, evaluate
from cairn.policy import table as policy_table
from cairn.tools import ToolRegistry, ToolServices, Workspace, builtin_tool_classes
from cairn.tools.base import ArgsModel, Tool, ToolContext, ToolResult, plan_allows
from cairn.tools.langchain_adapter import wrap_langchain_tool


class _NoArgs(ArgsModel):
    pass


class _LowTool(Tool):
    """A new read-only built-in: it declares its facts and nothing else is edited."""

    name = "new_low_tool"
    description = "A new low-risk tool."
    args_schema = _NoArgs
    risk_level = RiskLevel.LOW
    read_only = True
    plan_mode = True

    def run(self, params: Any, ctx: ToolContext) -> ToolResult:
        return ToolResult(output="ok")


class _WriterTool(_LowTool):
    name = "new_writer_tool"
    risk_level = RiskLevel.MEDIUM
    read_only = False
    plan_mode = False


@pytest.fixture
def added_tools(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``builtin_tool_classes`` (the one enumeration of built-in tools) with two more tools."""
    import cairn.tools

    original = cairn.tools.builtin_tool_classes
    monkeypatch.setattr(cairn.tools, "builtin_tool_classes", lambda: [*original(), _LowTool, _WriterTool])
    policy_table.tool_facts.cache_clear()
    yield
    monkeypatch.undo()
    policy_table.tool_facts.cache_clear()


def test_a_new_tool_is_in_the_table_from_its_class_alone(added_tools: None, ws: Path) -> None:
    assert policy.DEFAULT_TOOL_RISK["new_low_tool"] == RiskLevel.LOW
    assert policy.DEFAULT_TOOL_RISK["new_writer_tool"] == RiskLevel.MEDIUM
    assert "new_low_tool" in policy.PLAN_TOOLS and "new_writer_tool" not in policy.PLAN_TOOLS
    low = evaluate("new_low_tool", {}, workspace=ws)
    assert (low.decision, low.risk) == ("allow", "LOW")
    assert "default for tools not in the policy table" not in low.reason
    assert evaluate("new_low_tool", {}, workspace=ws, mode="plan").decision == "allow"
    writer = evaluate("new_writer_tool", {}, workspace=ws)
    assert (writer.decision, writer.risk) == ("ask", "MEDIUM")
    planned = evaluate("new_writer_tool", {}, workspace=ws, mode="plan")
    assert planned.decision == "deny" and "plan mode" in planned.reason


def test_without_the_class_the_same_name_is_an_unknown_tool(ws: Path) -> None:
    assert "new_low_tool" not in policy.DEFAULT_TOOL_RISK
    verdict = evaluate("new_low_tool", {}, workspace=ws)
    assert (verdict.decision, verdict.risk) == ("ask", "MEDIUM")


def test_the_table_is_the_classes_facts() -> None:
    classes = builtin_tool_classes()
    assert dict(policy.DEFAULT_TOOL_RISK) == {cls.name: cls.risk_level for cls in classes}
    assert {cls.name for cls in classes if plan_allows(cls)} == policy.PLAN_TOOLS
    assert dict(policy_table.PATH_ARG) == {cls.name: cls.path_arg for cls in classes if cls.path_arg}
    assert {"read_file", "ls", "glob", "grep"} == policy_table.READ_TOOLS
    assert {"edit_file", "write_file"} == policy_table.EDIT_TOOLS


def test_gitignore_is_medium_with_a_low_check(ws: Path) -> None:
    """The tool said MEDIUM and the old table LOW: it writes .gitignore, so MEDIUM; ``check`` only reads."""
    assert policy.DEFAULT_TOOL_RISK["gitignore"] == RiskLevel.MEDIUM
    check = evaluate("gitignore", {"action": "check", "path": "x"}, workspace=ws)
    assert (check.decision, check.risk) == ("allow", "LOW")
    add = evaluate("gitignore", {"action": "add", "patterns": ["build/"]}, workspace=ws)
    assert (add.decision, add.risk) == ("ask", "MEDIUM")
    assert evaluate("gitignore", {"action": "add"}, workspace=ws, mode="accept-edits").decision == "allow"
    assert (
        evaluate("memory", {"action": "add", "note": "x"}, workspace=ws, mode="accept-edits").decision
        == "ask"
    )


def test_langchain_and_mcp_style_tools_default_to_medium_outside_plan_mode() -> None:
    from langchain_core.tools import tool

    @tool
    def lookup(q: str) -> str:
        """Look something up."""
        return q

    wrapped = wrap_langchain_tool(lookup)
    assert wrapped.risk_level == RiskLevel.MEDIUM and not plan_allows(wrapped)
    lookup.metadata = {"read_only": True}
    assert plan_allows(wrap_langchain_tool(lookup))


# -- plan mode: what the graph offers is what the policy allows --------------------------------

#: Calls per tool; tools not listed are called with ``{}`` and, with actions, once per action.
SAMPLES: dict[str, list[dict[str, Any]]] = {
    "bash": [{"command": "git status"}, {"command": "ls src"}, {"command": "touch x"}],
    "read_file": [{"file_path": "src/app.py"}],
    "ls": [{"path": "src"}],
    "glob": [{"pattern": "*.py"}],
    "grep": [{"pattern": "print", "path": "src"}],
    "edit_file": [{"file_path": "src/app.py", "old_string": "hi", "new_string": "ho"}],
    "write_file": [{"file_path": "notes.md", "content": "x"}],
    "web_fetch": [{"url": "https://93.184.216.34/"}],
    "web_search": [{"query": "langgraph"}],
    "bash_output": [{"task_id": "b1"}],
    "kill_bash": [{"task_id": "b1"}],
}


def _samples(tool: Any) -> list[dict[str, Any]]:
    if tool.name in SAMPLES:
        return SAMPLES[tool.name]
    if tool.actions:
        return [{"action": action} for action in tool.actions]
    return [{}]


def _refused_for_plan(verdict: Any) -> bool:
    return verdict.decision == "deny" and "plan mode" in verdict.reason


class _CustomReader(_LowTool):
    name = "search_docs"
    plan_mode = None  # not declared: a read-only custom tool is offered in plan mode


class _CustomWriter(_LowTool):
    name = "publish_docs"
    risk_level = RiskLevel.MEDIUM
    read_only = False
    plan_mode = None


def _plan_context(ws: Path) -> AgentContext:
    workspace = Workspace(ws)
    services = ToolServices(workspace)
    tools = [cls(workspace, services) for cls in builtin_tool_classes()]
    tools += [_CustomReader(workspace), _CustomWriter(workspace)]
    registry = ToolRegistry(tools)
    rules = session_rules(policy.Rules(), None, registry)
    rules = rules.merged(policy.Rules(search_provider="searxng"))
    return AgentContext(
        thread_id="t",
        workspace=workspace,
        store=None,
        model=None,
        registry=registry,
        rules=rules,
        mode="plan",
    )


def test_plan_mode_offers_exactly_the_tools_the_policy_allows_there(ws: Path) -> None:
    ctx = _plan_context(ws)
    offered = {tool.name for tool in ctx.active_registry("plan")}
    allowed_somewhere: set[str] = set()
    for tool in ctx.registry:
        for args in _samples(tool):
            verdict = evaluate(tool.name, args, workspace=ws, mode="plan", rules=ctx.rules)
            if not plan_allows(tool, args):
                assert _refused_for_plan(verdict), (tool.name, args, verdict)
            elif not _refused_for_plan(verdict):
                allowed_somewhere.add(tool.name)
    assert offered == allowed_somewhere
    # the contested cases, settled one way: read-only shell, memory view and gitignore check are
    # offered and allowed; their writing forms are refused by the policy
    assert {"bash", "memory", "gitignore", "kill_bash", "search_docs"} <= offered
    assert not {"edit_file", "write_file", "agent", "save_memory", "publish_docs"} & offered


def test_plan_mode_refuses_the_writing_forms_of_offered_tools(ws: Path) -> None:
    for tool, args in (
        ("bash", {"command": "touch x"}),
        ("memory", {"action": "add", "note": "x"}),
        ("memory", {"action": "remove", "index": 1}),
        ("gitignore", {"action": "add", "patterns": ["x"]}),
    ):
        verdict = evaluate(tool, args, workspace=ws, mode="plan")
        assert _refused_for_plan(verdict), (tool, args, verdict)
    for tool, args in (("memory", {"action": "view"}), ("gitignore", {"action": "check", "path": "x"})):
        assert evaluate(tool, args, workspace=ws, mode="plan").decision == "allow"


def test_ask_and_deny_rules_still_come_before_plan_mode(ws: Path) -> None:
    asked = evaluate("agent", {"prompt": "x"}, workspace=ws, mode="plan", rules=policy.Rules(ask=["agent"]))
    assert asked.decision == "ask" and asked.rule == "agent"
    denied = evaluate("agent", {"prompt": "x"}, workspace=ws, mode="plan", rules=policy.Rules(deny=["agent"]))
    assert denied.decision == "deny" and denied.rule == "agent"


def test_a_plan_mode_session_runs_what_it_offers_and_refuses_the_rest(db_location: str, ws: Path) -> None:
    from cairn import Session
    from cairn.graph.models.scripted import ScriptedChatModel

    calls = [
        {"name": "bash", "args": {"command": "ls src"}, "id": "b1"},
        {"name": "bash", "args": {"command": "touch src/new.txt"}, "id": "b2"},
        {"name": "memory", "args": {"action": "view"}, "id": "m1"},
        {"name": "memory", "args": {"action": "add", "note": "x"}, "id": "m2"},
        {"name": "gitignore", "args": {"action": "check", "path": "src/app.py"}, "id": "g1"},
        {
            "name": "edit_file",
            "args": {"file_path": "src/app.py", "old_string": "hi", "new_string": "ho"},
            "id": "e1",
        },
    ]
    model = ScriptedChatModel.from_turns([{"tool_calls": calls}, {"content": "the plan"}])
    session = Session(ws, model=model, db=db_location, mode="plan")
    try:
        result = session.send("plan it")
        if result.status == "awaiting_approval":  # no sandbox backend here: read-only commands ask
            assert [c.call_id for c in session.tool_calls() if c.status == "awaiting_approval"] == ["b1"]
            result = session.approve("b1")
        assert result.status == "done"
        messages = {m.tool_call_id: m for m in session.history() if isinstance(m, ToolMessage)}
        assert "app.py" in str(messages["b1"].content)  # read-only shell runs in plan mode
        assert "plan mode" in str(messages["b2"].content)
        assert not (ws / "src" / "new.txt").exists()
        assert "plan mode" not in str(messages["m1"].content)
        assert "plan mode" not in str(messages["g1"].content)
        assert "plan mode" in str(messages["m2"].content)  # offered tool, refused action
        assert "not available in plan mode" in str(messages["e1"].content)  # not offered
        assert (ws / "src" / "app.py").read_text() == "print('hi')\n"
    finally:
        session.close()


# -- profiles and the core set are tool facts too ----------------------------------------------


def test_lean_and_core_sets_come_from_the_tools() -> None:
    from cairn.graph.core.profiles import LEAN_TOOLS
    from cairn.graph.core.tool_selection import CORE_TOOLS

    classes = builtin_tool_classes()
    assert tuple(cls.name for cls in classes if "lean" in cls.profiles) == LEAN_TOOLS
    assert set(LEAN_TOOLS) == {"read_file", "glob", "grep", "edit_file", "write_file", "bash"}
    assert {cls.name for cls in classes if cls.core} == CORE_TOOLS
    assert {"bash", "read_file", "agent", "tool_search", "read_skill"} <= CORE_TOOLS
    # what never makes a session defer: tool_search, tools that exist only when configured, and
    # the companions of a counted tool
    assert {cls.name for cls in classes if not cls.counted} == {
        "tool_search",
        "web_search",
        "list_skills",
        "read_skill",
        "slash_command",
        "agent_status",
        "agent_list",
        "agent_merge",
        "task_create",
        "task_list",
        "task_update",
    }


def test_a_lean_session_offers_the_lean_tools(ws: Path) -> None:
    ctx = _plan_context(ws)
    ctx.tool_profile = "lean"
    assert [t.name for t in ctx.active_registry("default")] == list(
        n for n in ctx.registry.names if n in {"read_file", "glob", "grep", "edit_file", "write_file", "bash"}
    )
    assert "edit_file" not in {t.name for t in ctx.active_registry("plan")}


def test_lean_schemas_show_the_fields_the_tools_declare(ws: Path) -> None:
    from cairn.graph.core.profiles import LEAN_FIELDS, lean_schema

    assert LEAN_FIELDS["bash"] == ("command", "timeout")
    ctx = _plan_context(ws)
    for tool in ctx.registry:
        if not tool.lean_fields:
            continue
        shown = lean_schema(tool.openai_schema(), tool.lean_fields)["function"]["parameters"]["properties"]
        required = set(tool.openai_schema()["function"]["parameters"].get("required", ()))
        assert set(shown) == set(tool.lean_fields) | required, tool.name
