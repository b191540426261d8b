"""gitignore: add patterns to a .gitignore idempotently; explain whether a path is ignored."""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from pydantic import Field

from cairn.tools.base import ArgsModel, RiskLevel, Tool, ToolAction, ToolContext, ToolResult
from cairn.tools.file_ops.ignore import (
    DEFAULT_EXCLUDES_LABEL,
    IgnoreFile,
    IgnoreStack,
    decide,
    default_excluded,
)
from cairn.tools.file_ops.textio import split_lines
from cairn.tools.file_ops.walk import find_base
from cairn.tools.file_ops.writing import (
    Plan,
    WriteRefused,
    commit,
    editable_text,
    load_current,
    make_plan,
    preview_result,
)


class GitignoreArgs(ArgsModel):
    action: Literal["add", "check"] = Field(
        description='"add": append patterns to a .gitignore (skipping ones already there); '
        '"check": say whether a path is ignored and by which rule.'
    )
    patterns: list[str] = Field(
        default_factory=list,
        description='add: gitignore patterns, one per item, e.g. ["*.log", "build/", "!keep.log"].',
    )
    path: str | None = Field(
        default=None,
        description="check: the file or directory to test (required; a trailing / marks a directory). "
        "add: the directory whose .gitignore receives the patterns (default: the workspace root).",
    )


class GitignoreTool(Tool):
    name = "gitignore"
    description = (
        "Manage .gitignore rules. action='add' appends patterns to a .gitignore (creating it; patterns "
        "already present are skipped, so repeating a call changes nothing). action='check' tells whether "
        "a path is ignored (by .gitignore files at any level or by the default excludes that glob, grep "
        "and ls apply) and names the deciding rule with its file and line."
    )
    args_schema = GitignoreArgs
    risk_level = RiskLevel.MEDIUM
    plan_mode = True  # for "check" only
    actions = MappingProxyType(
        {
            "check": ToolAction(RiskLevel.LOW, "only reads", plan_mode=True),
            "add": ToolAction(RiskLevel.MEDIUM, "changes .gitignore", accept_edits=True),
        }
    )
    idempotent = True
    search_hint = "gitignore ignore patterns exclude files from git check ignored"

    def preview(self, params: Any, ctx: ToolContext) -> ToolResult | None:
        if params.action != "add":
            return None
        try:
            plan, _ = self._plan_add(params)
        except WriteRefused as exc:
            return ToolResult.fail(str(exc))
        return preview_result(plan, "edit")

    def run(self, params: Any, ctx: ToolContext) -> ToolResult:
        if params.action == "check":
            return self._check(params)
        try:
            plan, skipped = self._plan_add(params)
        except WriteRefused as exc:
            return ToolResult.fail(str(exc))
        already = f" Already present: {', '.join(skipped)}." if skipped else ""
        if not plan.changed:
            return ToolResult(
                output=f"Nothing to add: every pattern is already in {plan.display}.",
                display=f"{plan.display} unchanged",
                metadata={"path": str(plan.current.path), "skipped": skipped},
            )
        try:
            note = commit(plan, self.services)
        except WriteRefused as exc:
            return ToolResult.fail(str(exc))
        added = f"Added {plan.stats[0]} pattern{'s' if plan.stats[0] != 1 else ''} to {plan.display}"
        display = added + (f" (already present: {', '.join(skipped)})" if skipped else "")
        return ToolResult(
            output=f"{added}.{already}{note}",
            display=display,
            metadata={**plan.metadata(), "skipped": skipped},
        )

    def _plan_add(self, params: Any) -> tuple[Plan, list[str]]:
        wanted = [p.strip() for p in params.patterns]
        if not any(wanted):
            raise WriteRefused("Give at least one pattern in `patterns` to add.")
        if any("\n" in p or "\r" in p for p in wanted):
            raise WriteRefused("Each pattern must be a single line; pass several patterns as separate items.")
        resolved = self.workspace.resolve(params.path or ".")
        directory = resolved.path
        if not resolved.inside:
            raise WriteRefused(
                f"{directory} is outside the workspace ({self.workspace.root}); gitignore add only "
                "writes .gitignore files inside it. Give a directory in the workspace (or omit `path` "
                "for the workspace root)."
            )
        if not directory.is_dir():
            raise WriteRefused(f"{self.workspace.display(directory)} is not a directory.")
        path = directory / ".gitignore"
        current = load_current(path, self.services, check_stale=False)  # appending needs no prior read
        text = editable_text(current) if current.decoded else ""
        newline = current.decoded.newline if current.decoded else "\n"
        present = {line.strip() for line in split_lines(text)}
        new, skipped = [], []
        for pattern in wanted:
            if not pattern:
                continue
            (skipped if pattern in present or pattern in new else new).append(pattern)
        if new:
            if text and not text.endswith(("\n", "\r")):
                text += newline
            text += newline.join(new) + newline
        return make_plan(current, text, self.workspace.display(path)), skipped

    def _check(self, params: Any) -> ToolResult:
        if not params.path:
            return ToolResult.fail("action='check' needs `path`: the file or directory to test.")
        target = self.workspace.resolve(params.path).path
        shown = self.workspace.display(target)
        as_dir = target.is_dir() or params.path.endswith("/")
        verdict, rule = explain(target, self.workspace.root, as_dir)
        return ToolResult(
            output=f"{shown}: {verdict}",
            display=f"gitignore check {shown}: {'ignored' if rule and rule.get('ignored') else 'not ignored'}",
            metadata={"path": str(target), "rule": rule},
        )


def explain(target: Path, workspace_root: Path, is_dir: bool) -> tuple[str, dict[str, Any] | None]:
    """A sentence saying whether ``target`` is ignored, and the deciding rule as data."""
    base = find_base(target if is_dir and target.is_dir() else target.parent, workspace_root)
    if target == base:
        return "not ignored (it is the root of the search scope).", None
    parts = target.relative_to(base).as_posix().split("/")
    stack: IgnoreStack = ()
    for depth, part in enumerate(parts):
        dir_rel = "/".join(parts[:depth])
        directory = base / dir_rel if dir_rel else base
        source = f"{dir_rel}/.gitignore" if dir_rel else ".gitignore"
        ig = IgnoreFile.load(directory / ".gitignore", dir_rel=dir_rel, source=source)
        if ig is not None:
            stack = (*stack, ig)
        here = "/".join(parts[: depth + 1])
        last = depth == len(parts) - 1
        here_is_dir = is_dir or not last
        inside = "" if last else f"its directory {here}/ is "
        if default_excluded(part, here_is_dir):
            rule = {"ignored": True, "source": "default", "pattern": part, "line": 0}
            return f"ignored: {inside or ''}skipped by the {DEFAULT_EXCLUDES_LABEL}.", rule
        found = decide(stack, here, here_is_dir)
        if found is None:
            if last:
                return "not ignored: no .gitignore rule matches it.", None
            continue
        ig_file, pattern = found
        rule = {
            "ignored": not pattern.negated,
            "source": str(base / ig_file.source),
            "line": pattern.line,
            "pattern": pattern.text,
        }
        where = f"`{pattern.text}` ({ig_file.source}:{pattern.line})"
        if not pattern.negated:
            return f"ignored: {inside}matched by {where}.", rule
        if last:
            return f"not ignored: re-included by {where}.", rule
    return "not ignored.", None
