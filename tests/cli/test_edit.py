"""Editing a gated call's arguments: $VISUAL/$EDITOR, with inline editing when it cannot run."""

from __future__ import annotations

import io

from rich.console import Console

from cairn.graph.apps.cli.tui.edit import edit_arguments
from cairn.graph.core.state import ToolCallInfo


class FakePrompter:
    tty = True

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.asked: list[tuple[str, str]] = []

    def line(self, prompt: str, prefill: str = "") -> str:
        self.asked.append((prompt, prefill))
        return self.answer


def test_a_missing_editor_falls_back_to_inline_editing(monkeypatch, tmp_path):
    monkeypatch.setenv("EDITOR", str(tmp_path / "no-such-editor"))
    monkeypatch.delenv("VISUAL", raising=False)
    call = ToolCallInfo(
        call_id="b1", tool_name="bash", arguments={"command": "ls"}, status="awaiting_approval"
    )
    out = io.StringIO()
    prompter = FakePrompter("ls -la")
    got = edit_arguments(call, prompter, Console(file=out, width=200))
    assert got == {"command": "ls -la"}
    assert prompter.asked == [("    new command: ", "ls")]
    assert "cannot run the editor" in out.getvalue() and "no-such-editor" in out.getvalue()


def test_an_unparsable_editor_variable_falls_back_too(monkeypatch):
    monkeypatch.setenv("VISUAL", "vim 'unterminated")
    call = ToolCallInfo(
        call_id="w1",
        tool_name="write_file",
        arguments={"file_path": "a", "content": "x"},
        status="awaiting_approval",
    )
    prompter = FakePrompter('{"file_path": "b", "content": "y"}')
    got = edit_arguments(call, prompter, Console(file=io.StringIO(), width=200))
    assert got == {"file_path": "b", "content": "y"}
