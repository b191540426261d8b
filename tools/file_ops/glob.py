"""glob: files matching a glob pattern, gitignore-aware, newest first, with sizes."""

from __future__ import annotations

import os
from typing import Any

from pydantic import Field

from cairn.tools.base import LEAN_AND_FULL, ArgsModel, RiskLevel, Tool, ToolContext, ToolResult
from cairn.tools.file_ops import ripgrep
from cairn.tools.file_ops.fmt import bounded_rows, human_size, plural
from cairn.tools.file_ops.globs import compile_glob, literal_prefix, rg_name_glob
from cairn.tools.file_ops.listing import list_files
from cairn.tools.file_ops.names import unescape_name
from cairn.tools.file_ops.walk import make_scope
from cairn.tools.output import truncate_middle

#: Most files returned; the rest are counted.
MAX_RESULTS = 10_000


class GlobArgs(ArgsModel):
    pattern: str = Field(
        min_length=1,
        description='Glob relative to `path`: "**/*.py" (any depth), "src/**/test_*.ts", "*.md" (top level '
        'only), "*.{js,ts}". `*` and `?` stay within one directory; `**` spans directories.',
    )
    path: str | None = Field(default=None, description="Directory to search in. Default: the workspace root.")
    include_ignored: bool = Field(
        default=False,
        description="Also match files hidden by .gitignore and the default excludes (node_modules, .venv, "
        "build, dist, __pycache__, *.pyc); .git is always skipped.",
    )


class GlobTool(Tool):
    name = "glob"
    plan_mode = True
    path_arg = "path"
    profiles = LEAN_AND_FULL
    lean_fields = ("pattern", "path")
    core = True
    description = (
        "Find files by name pattern (e.g. '**/*.py', 'src/**/*.{ts,tsx}'). Honours .gitignore files at every "
        "level and skips .git, node_modules, __pycache__, .venv, dist, build and *.pyc unless "
        "include_ignored=true. Returns paths newest first with their sizes, at most 10,000. Use grep to "
        "search file contents."
    )
    args_schema = GlobArgs
    risk_level = RiskLevel.LOW
    read_only = True
    concurrency_safe = True
    idempotent = True
    aliases = ("Glob",)
    search_hint = "find files by name pattern wildcard glob list recursively"

    def run(self, params: Any, ctx: ToolContext) -> ToolResult:
        pattern = unescape_name(params.pattern.strip())  # "bad\\xff*" matches the byte 0xff (names.py)
        while pattern.startswith("./"):
            pattern = pattern[2:]
        expanded = os.path.expanduser(pattern)
        prefix, rest = literal_prefix(expanded)
        if os.path.isabs(expanded):
            root = self.workspace.resolve(prefix or "/").path
        else:
            root = self.workspace.resolve(os.path.join(params.path or ".", prefix)).path
        where = _where(self.workspace.display(root))
        if not rest:  # no wildcard: a plain path
            return self._literal(root, params.pattern)
        if not root.is_dir():
            if root.exists():
                return ToolResult.fail(f"{where} is a file; `path` must be a directory.")
            return ToolResult(
                output=f"No files match {params.pattern!r}: the directory {where} does not exist. "
                "Leave `path` out to search the whole workspace.",
                display=f"glob {params.pattern!r}: directory {where} not found",
                metadata={"count": 0},
            )
        rx = compile_glob(rest)
        flat = "/" not in rest and "**" not in rest  # "*.py": top level only; count deeper matches for a hint
        deeper: list[str] = []  # appended to from the listing's stat threads (append is atomic)

        def accept(rel: str) -> bool:
            if rx.fullmatch(rel) is not None:
                return True
            if flat and "/" in rel and rx.fullmatch(rel.rpartition("/")[2]) is not None:
                deeper.append(rel)
            return False

        scope = make_scope(root, self.workspace.root, include_ignored=params.include_ignored)
        name_glob = rg_name_glob(rest)
        # "**/NAME" selects exactly the files whose name matches NAME: no per-path check needed.
        exact = name_glob is not None and rest == f"**/{name_glob}"
        try:
            listing = list_files(
                scope,
                None if exact else accept,
                name_glob=name_glob,
                cancel=ctx.cancel,
                stat_cache=self.services.stat_cache,
            )
        except ripgrep.Cancelled:
            return ToolResult.fail("glob was cancelled.")
        entries = listing.entries
        entries.sort()  # newest first, ties by path (see listing.Entry)
        total = len(entries)
        same_base = scope.base == self.workspace.root

        def show(rel: str) -> str:
            return rel if same_base else self.workspace.display(scope.base / rel)

        if total:
            head = f"Found {plural(total, 'file')} matching {params.pattern!r} in {where}, newest first"
            head += f" (showing the first {MAX_RESULTS:,}):" if total > MAX_RESULTS else ":"

            def row(i: int) -> str:
                _, rel, size = entries[i]
                return f"{show(rel)}  ({human_size(size)})"

            budget = self.max_output_chars - len(head) - 100
            text = "\n".join([head, *bounded_rows(min(total, MAX_RESULTS), row, budget, unit="files")])
        else:
            text = _none_found(params, where, rest, len(deeper))
        listing.learn_later()
        return ToolResult(
            output=truncate_middle(text, self.max_output_chars),
            display=f"glob {params.pattern!r} in {where}: {plural(total, 'file')}",
            metadata={
                "count": total,
                "backend": listing.backend,
                "prefilter": listing.prefilter,
                "truncated": total > MAX_RESULTS,
            },
        )

    def _literal(self, path, given: str) -> ToolResult:
        where = self.workspace.display(path)
        if path.is_file():
            size = human_size(path.stat().st_size)
            return ToolResult(
                output=f"Found 1 file matching {given!r}:\n{where}  ({size})",
                display=f"glob {given!r}: 1 file",
                metadata={"count": 1},
            )
        if path.is_dir():
            note = f"{where} is a directory; use ls to list it or a pattern such as '{given.rstrip('/')}/**'."
        else:
            note = f"No file matches {given!r} ({where} does not exist)."
        return ToolResult(output=note, display=f"glob {given!r}: 0 files", metadata={"count": 0})


def _where(display: str) -> str:
    return "the workspace root" if display == "." else display


def _none_found(params: Any, where: str, rest: str, deeper: int) -> str:
    """What glob says when nothing matched: the top-level-only hint, the skipped ignored files."""
    text = f"No files match {params.pattern!r} in {where}."
    if deeper:
        text += (
            f" {rest!r} only matches at the top level; '**/{rest}' would also match files in "
            f"subdirectories ({plural(deeper, 'file')})."
        )
    if not params.include_ignored:
        text += " Ignored files (.gitignore, node_modules, .venv, build, ...) were skipped."
    return text
