"""edit_file: exact string replacement that keeps encoding, BOM, line endings and mode."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field

from cairn.tools.base import LEAN_AND_FULL, ArgsModel, RiskLevel, Tool, ToolContext, ToolResult
from cairn.tools.file_ops.edit_match import (
    closest_region,
    find_occurrences,
    line_of,
    match_contexts,
    not_found_hint,
    replacement_text,
)
from cairn.tools.file_ops.named_files import only_file_named
from cairn.tools.file_ops.textio import printable, split_lines
from cairn.tools.file_ops.writing import (
    Plan,
    WriteRefused,
    commit,
    editable_text,
    load_current,
    make_plan,
    preview_result,
)

#: Lines of context shown around the edit in the result.
SNIPPET_CONTEXT = 3
SNIPPET_MAX_LINES = 40


class EditFileArgs(ArgsModel):
    file_path: str = Field(
        description="Path of the file to edit, relative to the workspace root or absolute."
    )
    old_string: str = Field(
        description="The exact text to replace (without read_file's line-number prefixes). Must occur "
        "exactly once unless replace_all is true; include surrounding lines to make it unique. Empty "
        "only to create a new file or fill an empty one."
    )
    new_string: str = Field(description="The text to put in its place (must differ from old_string).")
    replace_all: bool = Field(default=False, description="Replace every occurrence of old_string.")


class EditFileTool(Tool):
    name = "edit_file"
    plan_mode = False
    path_arg = "file_path"
    profiles = LEAN_AND_FULL
    lean_fields = ("file_path", "old_string", "new_string", "replace_all")
    core = True
    description = (
        "Replace an exact string in a file. old_string must match the file character for character "
        "(indentation included) and be unique unless replace_all=true; read the file first. Line endings "
        "(CRLF), BOM, encoding and permissions are kept; the write is atomic. Returns the edited region "
        "with line numbers."
    )
    args_schema = EditFileArgs
    risk_level = RiskLevel.MEDIUM
    aliases = ("Edit", "MultiEdit", "FileEdit", "str_replace", "StrReplace")
    search_hint = "edit modify change replace text string in file patch"

    def _plan(self, params: Any) -> tuple[Plan, int, int]:
        """(plan, occurrences replaced, line of the first replacement)."""
        path = self.workspace.resolve(params.file_path).path
        shown = self.workspace.display(path)
        old, new = params.old_string, params.new_string
        current = load_current(path, self.services)
        if current.decoded is None and old:
            raise WriteRefused(
                f"File not found: {params.file_path} (resolved to {path}). {self._to_do(path)}"
            )
        if old == new:
            raise WriteRefused("old_string and new_string are identical; there is nothing to change.")
        if current.decoded is None:
            return make_plan(current, new, shown), 1, 1
        text = editable_text(current)
        if not old:
            if text:
                raise WriteRefused(
                    f"old_string is empty but {shown} is not; give the text to replace (or use write_file "
                    "to replace the whole file)."
                )
            return make_plan(current, new, shown), 1, 1
        found = find_occurrences(text, old)
        if not found:
            hint = printable(not_found_hint(text, old, new))
            raise WriteRefused(
                f"old_string was not found in {shown}.\n{hint}", help=closest_region(text, old)
            )
        if len(found) > 1 and not params.replace_all:
            where = ", ".join(str(line_of(text, o.start)) for o in found[:50])
            raise WriteRefused(
                f"old_string occurs {len(found)} times in {shown} (at lines {where}). Include more "
                "surrounding lines to make it unique, or set replace_all=true to replace every occurrence.",
                help=match_contexts(text, [line_of(text, o.start) for o in found]),
            )
        pieces, pos = [], 0
        for occ in found:
            pieces += [text[pos : occ.start], replacement_text(new, occ, current.decoded.newline)]
            pos = occ.end
        pieces.append(text[pos:])
        return make_plan(current, "".join(pieces), shown), len(found), line_of(text, found[0].start)

    def _to_do(self, path: Path) -> str:
        """What to do about a file that is not there: edit the one of that name, when the model put
        it in a directory that does not exist (issue 31: ``src/calc.py`` for ``calc.py``, then
        write_file made a new ``src/calc.py``), else create it."""
        found = only_file_named(self.workspace.root, path)
        if found is not None:
            return f"The file of that name is {found}: read it, then edit {found}."
        return "To create a file use write_file (or edit_file with an empty old_string)."

    def precheck(self, args: Any, ctx: ToolContext | None = None) -> str | None:
        """Why this call cannot succeed (identical texts, a missing file, old_string not found or
        not unique), or None: asked before a person is, so nobody approves a call bound to fail."""
        try:
            self._plan(self.parse(args))
        except WriteRefused as exc:
            return str(exc)
        except Exception:  # anything else is for the run itself to report
            return None
        return None

    def preview(self, params: Any, ctx: ToolContext) -> ToolResult:
        try:
            plan, _, _ = self._plan(params)
        except WriteRefused as exc:
            return ToolResult.fail(str(exc), doomed=True)  # running it now fails the same way
        return preview_result(plan, "edit")

    def run(self, params: Any, ctx: ToolContext) -> ToolResult:
        try:
            plan, count, first_line = self._plan(params)
        except WriteRefused as exc:
            return ToolResult.fail(str(exc), **({"help": exc.help} if exc.help else {}))
        try:
            note = commit(plan, self.services)
        except WriteRefused as exc:
            return ToolResult.fail(str(exc))
        added, removed = plan.stats
        what = "Created" if not plan.current.exists else "Edited"
        times = f"replaced {count} occurrences" if count > 1 else f"line {first_line}"
        header = f"{what} {plan.display} ({times}; +{added} -{removed})."
        snippet = _snippet(plan.after_text, first_line, params.new_string, ctx.line_numbers)
        return ToolResult(
            output=f"{header}\n{snippet}{note}", display=header.rstrip("."), metadata=plan.metadata()
        )


def _snippet(text: str, first_line: int, new: str, numbered: bool = True) -> str:
    """The edited region of the new text, ``cat -n`` style (``numbered``; the lean profile shows
    the lines alone), so the model can check the result."""
    lines = split_lines(text)
    span = max(1, new.replace("\r\n", "\n").count("\n") + 1)
    lo = max(1, first_line - SNIPPET_CONTEXT)
    hi = min(len(lines), first_line + span - 1 + SNIPPET_CONTEXT, lo + SNIPPET_MAX_LINES - 1)
    rows = (f"{n:>6}\t{lines[n - 1][:500]}" if numbered else lines[n - 1][:500] for n in range(lo, hi + 1))
    return printable("\n".join(rows))
