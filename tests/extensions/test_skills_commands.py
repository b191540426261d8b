"""Skills, custom commands and save_memory, loaded from a temporary config dir and workspace."""

from __future__ import annotations

import os
from pathlib import Path

from cairn import Session
from cairn.graph.models.scripted import ScriptedChatModel
from cairn.tools.commands import discover_commands, expand_command, find_command
from cairn.tools.save_memory import add_memory
from cairn.tools.skills import discover_skills, skills_prompt
from cairn.tools.workspace import Workspace


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def install(ws: Path) -> Path:
    home = Path(os.environ["CAIRN_HOME"])  # the tests' temporary config dir
    write(
        home / "skills" / "pdf" / "SKILL.md",
        "---\nname: pdf\ndescription: Fill PDF forms.\n---\nUse forms.py.\n",
    )
    write(home / "skills" / "pdf" / "forms.py", "print('fill')\n")
    write(
        home / "skills" / "shared" / "SKILL.md", "---\nname: shared\ndescription: user version\n---\nuser\n"
    )
    write(
        ws / ".cairn" / "skills" / "shared" / "SKILL.md",
        "---\nname: shared\ndescription: project version\n---\nproj\n",
    )
    write(ws / ".cairn" / "skills" / "plain" / "SKILL.md", "No front matter: the first line describes it.\n")
    write(
        home / "commands" / "review.md",
        "---\ndescription: Review a file\nargument-hint: FILE\nallowed-tools: read_file, grep\n---\nReview $ARGUMENTS carefully.\n",
    )
    write(ws / ".cairn" / "commands" / "git" / "pr.md", "Open a PR titled $1 for branch $2.\n")
    write(ws / ".cairn" / "commands" / "plain.md", "Say hello.\n")
    return home


def test_skills_are_discovered_project_first_and_listed_in_the_prompt(workspace):
    ws = Path(workspace)
    install(ws)
    skills = {s.name: s for s in discover_skills(Workspace(ws))}
    assert set(skills) == {"pdf", "shared", "plain"}
    assert skills["shared"].description == "project version" and skills["shared"].source == "project"
    assert skills["plain"].description == "No front matter: the first line describes it."
    text = skills_prompt(list(skills.values()), max_chars=150)
    assert "read_skill" in text and "more (list_skills shows all)" in text


def test_skill_tools_through_a_session(workspace):
    ws = Path(workspace)
    install(ws)
    turns = [
        {
            "tool_calls": [
                {"name": "list_skills", "args": {}, "id": "l1"},
                {"name": "read_skill", "args": {"name": "pdf"}, "id": "r1"},
                {"name": "read_skill", "args": {"name": "pdf", "file": "forms.py"}, "id": "r2"},
                {"name": "read_skill", "args": {"name": "pdf", "file": "../shared/SKILL.md"}, "id": "r3"},
            ]
        },
        {"content": "done"},
    ]
    s = Session(ws, model=ScriptedChatModel.from_turns(turns), db=":memory:")
    try:
        r = s.send("fill the form")
        assert r.status == "done"  # all LOW: nothing asked
        by = {c.call_id: c for c in s.tool_calls()}
        assert "pdf [user]: Fill PDF forms. (files: forms.py)" in by["l1"].result
        assert "Use forms.py." in by["r1"].result
        assert "print('fill')" in by["r2"].result
        assert by["r3"].status == "error" and "outside the skill's folder" in by["r3"].error_msg
    finally:
        s.close()


def test_session_context_lists_skills_and_commands_and_the_system_prompt_stays_constant(workspace):
    from cairn.graph.session.runs import make_context

    ws = Path(workspace)
    install(ws)
    s = Session(ws, model=ScriptedChatModel.from_turns([{"content": "x"}]), db=":memory:")
    try:
        context = make_context(s.core, False, None)
        assert "# Skills" not in context.system_prompt("default")  # byte-identical across sessions
        prompt = context.session_context
        assert prompt.index("# Environment") < prompt.index("# Skills") < prompt.index("# Custom commands")
        assert prompt.endswith("</session-context>")
        assert "- pdf: Fill PDF forms." in prompt
        assert "- /review FILE: Review a file" in prompt
        assert "- /git:pr: Open a PR titled $1 for branch $2." in prompt
    finally:
        s.close()


def test_commands_expand_arguments(workspace):
    ws = Path(workspace)
    install(ws)
    commands = discover_commands(Workspace(ws))
    names = {c.name for c in commands}
    assert names == {"review", "git:pr", "plain"}
    review = find_command(commands, "/review")
    assert review.description == "Review a file" and review.argument_hint == "FILE"
    assert review.allowed_tools == ("read_file", "grep")
    assert expand_command(review, "src/app.py") == "Review src/app.py carefully."
    assert (
        expand_command(find_command(commands, "git:pr"), '"Fix bug" topic')
        == "Open a PR titled Fix bug for branch topic."
    )
    assert expand_command(find_command(commands, "plain"), "x y") == "Say hello.\n\nARGUMENTS: x y"


def test_slash_command_tool(workspace):
    ws = Path(workspace)
    install(ws)
    turns = [
        {
            "tool_calls": [
                {"name": "slash_command", "args": {"command": "/review a.py"}, "id": "c1"},
                {"name": "slash_command", "args": {"command": "/nope"}, "id": "c2"},
            ]
        },
        {"content": "ok"},
    ]
    s = Session(ws, model=ScriptedChatModel.from_turns(turns), db=":memory:")
    try:
        assert s.send("go").status == "done"
        by = {c.call_id: c for c in s.tool_calls()}
        assert "Review a.py carefully." in by["c1"].result
        assert by["c2"].status == "error" and "/review" in by["c2"].error_msg
    finally:
        s.close()


def test_no_skills_or_commands_no_tools(workspace):
    s = Session(workspace, model=ScriptedChatModel.from_turns([{"content": "x"}]), db=":memory:")
    try:
        assert not {"list_skills", "read_skill", "slash_command"} & set(s.core.registry.names)
    finally:
        s.close()


def test_save_memory_asks_then_writes_under_the_heading(workspace):
    ws = Path(workspace)
    (ws / "CONTEXT.md").write_text(
        "# Project\n\nKeep this.\n\n## Agent Memories\n\n- old fact\n\n## Later\ntail\n"
    )
    turns = [
        {"tool_calls": [{"name": "save_memory", "args": {"fact": "tests run with make test"}, "id": "m1"}]},
        {"content": "saved"},
    ]
    s = Session(ws, model=ScriptedChatModel.from_turns(turns), db=":memory:")
    try:
        r = s.send("remember how to test")
        assert r.status == "awaiting_approval" and r.pending[0].tool_name == "save_memory"
        assert "+- tests run with make test" in (r.pending[0].preview or "")
        assert "make test" not in (ws / "CONTEXT.md").read_text()
        assert s.approve().status == "done"
        assert (ws / "CONTEXT.md").read_text() == (
            "# Project\n\nKeep this.\n\n## Agent Memories\n\n- old fact\n- tests run with make test\n\n## Later\ntail\n"
        )
    finally:
        s.close()
    # The next session's context carries it (CONTEXT.md is an instruction file).
    from cairn.graph.core.prompts import build_session_context

    assert "- tests run with make test" in build_session_context(ws)


def test_save_memory_creates_the_file_and_heading():
    assert add_memory("", "a") == "## Agent Memories\n\n- a\n"
    assert add_memory("# T\nintro", "a") == "# T\nintro\n\n## Agent Memories\n\n- a\n"
    assert add_memory("## Agent Memories\r\n- x", "a") == "## Agent Memories\r\n- x\r\n- a\r\n"
