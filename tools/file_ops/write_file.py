"""write_file: create or overwrite a text file atomically, with a diff and undo information."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from cairn.tools.base import LEAN_AND_FULL, ArgsModel, RiskLevel, Tool, ToolContext, ToolResult
from cairn.tools.file_ops.fmt import plural
from cairn.tools.file_ops.textio import split_lines, to_newline
from cairn.tools.file_ops.writing import WriteRefused, commit, load_current, make_plan, preview_result


class WriteFileArgs(ArgsModel):
    file_path: str = Field(
        description="Path of the file to write, relative to the workspace root or absolute."
    )
    content: str = Field(description="The complete new content of the file.")


class WriteFileTool(Tool):
    name = "write_file"
    plan_mode = False
    path_arg = "file_path"
    profiles = LEAN_AND_FULL
    lean_fields = ("file_path", "content")
    core = True
    description = (
        "Write a file with the given content, creating parent directories as needed. Overwriting an "
        "existing file requires having read it with read_file first (and it must not have changed since); "
        "prefer edit_file for changes to part of a file. An existing file keeps its encoding, BOM, line "
        "endings (CRLF stays CRLF) and permissions. The write is atomic."
    )
    args_schema = WriteFileArgs
    risk_level = RiskLevel.MEDIUM
    destructive = True
    aliases = ("Write", "FileWrite", "WriteFile", "create_file")
    search_hint = "write create new file overwrite save contents"

    def _plan(self, params: Any):
        path = self.workspace.resolve(params.file_path).path
        current = load_current(path, self.services)
        text = params.content
        if current.decoded is not None and current.decoded.newline != "\n" and "\r" not in text:
            text = to_newline(text, current.decoded.newline)
        return make_plan(current, text, self.workspace.display(path))

    def precheck(self, args: Any, ctx: ToolContext | None = None) -> str | None:
        """Why this write cannot succeed (e.g. the path is a directory), or None; asked before a
        person is."""
        try:
            self._plan(self.parse(args))
        except WriteRefused as exc:
            return str(exc)
        except Exception:  # anything else is for the run itself to report
            return None
        return None

    def preview(self, params: Any, ctx: ToolContext) -> ToolResult:
        try:
            return preview_result(self._plan(params), "overwrite")
        except WriteRefused as exc:
            return ToolResult.fail(str(exc), doomed=True)  # running it now fails the same way

    def run(self, params: Any, ctx: ToolContext) -> ToolResult:
        try:
            plan = self._plan(params)
        except WriteRefused as exc:
            return ToolResult.fail(str(exc))
        lines = plural(len(split_lines(plan.after_text)), "line")
        if plan.current.exists and not plan.changed:
            self.services.reads.record(plan.current.path, plan.data)
            return ToolResult(
                output=f"{plan.display} already has this content; nothing was written.",
                display=f"No change to {plan.display}",
                metadata=plan.metadata(),
            )
        try:
            note = commit(plan, self.services)
        except WriteRefused as exc:
            return ToolResult.fail(str(exc))
        added, removed = plan.stats
        if plan.current.exists:
            output = f"Overwrote {plan.display} ({lines}; +{added} -{removed})."
        else:
            output = f"Created {plan.display} ({lines})."
        return ToolResult(output=output + note, display=output.rstrip("."), metadata=plan.metadata())
