"""ls: the entries of one directory with type and size, directories first, ignored ones hidden."""

from __future__ import annotations

import os
from typing import Any

from pydantic import Field

from cairn.tools.base import ArgsModel, RiskLevel, Tool, ToolContext, ToolResult
from cairn.tools.file_ops.fmt import human_size, plural
from cairn.tools.file_ops.ignore import default_excluded, is_ignored
from cairn.tools.file_ops.walk import make_scope, start_stack
from cairn.tools.output import truncate_middle

#: Most entries listed; the rest are counted.
MAX_ENTRIES = 1000


class ListDirArgs(ArgsModel):
    path: str = Field(
        default=".", description="Directory to list, relative to the workspace root or absolute."
    )
    include_ignored: bool = Field(
        default=False,
        description="Also list entries hidden by .gitignore and the default excludes (node_modules, .venv, ...).",
    )


class ListDirTool(Tool):
    name = "ls"
    plan_mode = True
    path_arg = "path"
    description = (
        "List one directory: subdirectories first (with a trailing /), then files with their sizes, then "
        "symlinks with their targets. .git and entries ignored by .gitignore or the default excludes "
        "(node_modules, __pycache__, .venv, dist, build, *.pyc) are left out and counted. At most 1000 "
        "entries. Use glob to find files recursively."
    )
    args_schema = ListDirArgs
    risk_level = RiskLevel.LOW
    read_only = True
    concurrency_safe = True
    idempotent = True
    aliases = ("LS", "ListDir", "List", "list_dir", "list_directory")
    search_hint = "list directory folder contents files ls dir"

    def run(self, params: Any, ctx: ToolContext) -> ToolResult:
        path = self.workspace.resolve(params.path).path
        shown = self.workspace.display(path)
        if not path.exists():
            return ToolResult.fail(f"Directory not found: {params.path} (resolved to {path}).")
        if not path.is_dir():
            return ToolResult.fail(f"{shown} is a file, not a directory. Use read_file to read it.")
        scope = make_scope(path, self.workspace.root, include_ignored=params.include_ignored)
        stack = start_stack(scope)
        prefix = f"{scope.start}/" if scope.start else ""
        dirs: list[str] = []
        files: list[tuple[str, int]] = []
        links: list[tuple[str, str]] = []
        hidden: list[str] = []
        try:
            entries = sorted(os.scandir(path), key=lambda e: (e.name.lower(), e.name))
        except OSError as exc:
            return ToolResult.fail(f"Cannot list {shown}: {exc.strerror or exc}.")
        for entry in entries:
            try:
                is_link = entry.is_symlink()
                is_dir = entry.is_dir()  # a symlink to a directory counts as one
            except OSError:
                continue
            name = entry.name
            skip = name == ".git" or (
                not params.include_ignored
                and (default_excluded(name, is_dir) or is_ignored(stack, prefix + name, is_dir))
            )
            if skip:
                hidden.append(name + ("/" if is_dir else ""))
            elif is_link:
                links.append((name + ("/" if is_dir else ""), _readlink(entry.path)))
            elif is_dir:
                dirs.append(name + "/")
            else:
                try:
                    files.append((name, entry.stat(follow_symlinks=False).st_size))
                except OSError:
                    files.append((name, -1))
        rows = [f"dir   {d}" for d in dirs]
        rows += [f"file  {n}  ({human_size(s) if s >= 0 else '?'})" for n, s in files]
        rows += [f"link  {n} -> {t}" for n, t in links]
        total = len(rows)
        counts = f"{plural(len(dirs), 'dir')}, {plural(len(files), 'file')}" + (
            f", {plural(len(links), 'symlink')}" if links else ""
        )
        parts = [f"{shown}/ ({counts})" if shown != "." else f"./ ({counts})", *rows[:MAX_ENTRIES]]
        if total > MAX_ENTRIES:
            parts.append(f"[{total - MAX_ENTRIES:,} more entries not shown; use glob to narrow down.]")
        if not rows:
            parts.append("(empty)" if not hidden else "(no entries besides ignored ones)")
        if hidden:
            sample = ", ".join(hidden[:8]) + (", ..." if len(hidden) > 8 else "")
            tail = "" if params.include_ignored else "; pass include_ignored=true to list them"
            parts.append(
                f"[{plural(len(hidden), 'ignored entry', 'ignored entries')} not listed: {sample}{tail}]"
            )
        return ToolResult(
            output=truncate_middle("\n".join(parts), self.max_output_chars),
            display=f"ls {shown}: {counts}",
            metadata={"path": str(path), "entries": total, "ignored": len(hidden)},
        )


def _readlink(path: str) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return "?"
