"""grep: regex search over file contents, backed by ripgrep with a pure-Python fallback."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from cairn.tools.base import LEAN_AND_FULL, ArgsModel, RiskLevel, Tool, ToolContext, ToolResult
from cairn.tools.file_ops import grep_py, grep_rg, ripgrep
from cairn.tools.file_ops.fmt import plural
from cairn.tools.file_ops.globs import path_filter, rg_name_glob, split_top_level
from cairn.tools.file_ops.grep_format import MAX_KEPT_ROWS, format_results
from cairn.tools.file_ops.grep_types import NEWLINE_ERROR, FileResult, PatternError, PatternTooSlow, Query
from cairn.tools.file_ops.named_files import files_named
from cairn.tools.file_ops.names import unescape_name
from cairn.tools.file_ops.walk import find_base, make_scope
from cairn.tools.output import truncate_middle


class GrepArgs(ArgsModel):
    pattern: str = Field(
        min_length=1,
        description="Regular expression to search for (ripgrep/Rust syntax: like Python's re, without "
        "look-around or backreferences). Matched one line at a time.",
    )
    path: str | None = Field(
        default=None, description="File or directory to search. Default: the workspace root."
    )
    glob: str | None = Field(
        default=None,
        description='Only search files matching this glob. Without "/" it matches the file name at any '
        'depth ("*.py", "*.{ts,tsx}", "test_*"); with "/" the path relative to `path` ("src/**/*.ts"). '
        "Several globs can be separated by commas.",
    )
    output_mode: Literal["content", "files_with_matches", "count"] = Field(
        default="content",
        description='"content": matching lines as path:line:text; "files_with_matches": only the paths; '
        '"count": matching lines per file.',
    )
    context: int = Field(
        default=0, ge=0, le=50, description="Lines of context before and after each match (content mode)."
    )
    case_insensitive: bool = Field(default=False, description="Ignore case when matching.")
    head_limit: int = Field(
        default=250,
        ge=0,
        description="Show at most this many output lines (content), files or count rows. 0 = no limit.",
    )


class GrepTool(Tool):
    name = "grep"
    plan_mode = True
    path_arg = "path"
    profiles = LEAN_AND_FULL
    lean_fields = ("pattern", "path", "glob")
    core = True
    description = (
        "Search file contents with a regular expression (ripgrep). Searches the workspace (or `path`) "
        "recursively, honouring .gitignore files and skipping binary files and .git, node_modules, "
        "__pycache__, .venv, dist, build, *.pyc. Results are sorted by path. In content mode matching "
        "lines read `path:line:text` and context lines `path-line-text`, with `--` between separate "
        "groups; lines over 500 characters are cut around the match. Use `glob` to restrict file "
        "types, output_mode='files_with_matches' to just find files, and read_file to see more."
    )
    args_schema = GrepArgs
    risk_level = RiskLevel.LOW
    read_only = True
    concurrency_safe = True
    idempotent = True
    aliases = ("Grep", "search", "Search")
    search_hint = "search file contents regex ripgrep rg find text in files"

    def run(self, params: Any, ctx: ToolContext) -> ToolResult:
        target = self.workspace.resolve(params.path or ".")
        missing = ""
        if not target.path.exists():
            # A path the model invented (issue 31: ``src/utils/duration.ts`` when asked where a
            # function is): the question is answered from the whole workspace, and it is told so.
            # Its glob is dropped too: made up with the path (``RateLimiter.java``), it hid the answer.
            dropped = f", without the glob {params.glob!r}" if params.glob else ""
            missing = f"[{params.path} does not exist, so the whole workspace was searched{dropped}.]"
            target, params = self.workspace.resolve("."), params.model_copy(update={"glob": None})
        where = _where(self.workspace.display(target.path))
        if not (target.path.is_dir() or target.path.is_file()):
            return ToolResult.fail(f"{where} is not a regular file (a device, socket or pipe); not searched.")
        globs = unescape_name(params.glob.strip()) if params.glob else ""
        query = Query(
            pattern=params.pattern,
            mode=params.output_mode,
            context=params.context if params.output_mode == "content" else 0,
            case_insensitive=params.case_insensitive,
            accept=path_filter(globs) if globs else None,
            rg_names=_rg_names(globs),
            max_rows=params.head_limit or MAX_KEPT_ROWS,
        )
        try:
            if target.path.is_dir():
                base, results, backend, note = self._search_dir(target.path, query, ctx)
            else:
                base, results, backend, note = self._search_file(target.path, query, ctx)
        except (PatternError, PatternTooSlow) as exc:
            return ToolResult.fail(str(exc))
        except ripgrep.Cancelled:
            return ToolResult.fail("grep was cancelled.")
        if base is None:
            return ToolResult(output=note, display=f"grep in {where}: binary file, not searched")

        def path_of(raw: bytes) -> str:
            rel = os.fsdecode(raw)
            return rel if base == self.workspace.root else self.workspace.display(base / rel)

        text, stats = format_results(results, query, path_of, params.head_limit)
        if not results:
            text = _no_match_text(params, where, self.workspace.root)
        text = "\n".join(part for part in (missing, note, text) if part)
        summary = f"{plural(int(stats['matches']), 'matching line')} in {plural(int(stats['files']), 'file')}"
        return ToolResult(
            output=truncate_middle(text, self.max_output_chars),
            display=f"grep /{params.pattern}/ in {where}: {summary}",
            metadata={"backend": backend, **stats},
        )

    def _search_dir(
        self, directory: Path, query: Query, ctx: ToolContext
    ) -> tuple[Path, list[FileResult], str, str]:
        scope = make_scope(directory, self.workspace.root)
        rg = ripgrep.rg_path()
        if rg is None:
            return scope.base, grep_py.search_scope(scope, query, ctx.cancel), "python", ""
        try:
            return scope.base, grep_rg.search_scope(rg, scope, query, ctx.cancel), "ripgrep", ""
        except PatternError as exc:
            if str(exc) == NEWLINE_ERROR:
                raise
            try:  # look-around, backreferences...: Python's re may accept what Rust's rejects
                results = grep_py.search_scope(scope, query, ctx.cancel)
            except PatternError:
                raise exc from None
            note = "(ripgrep rejected the pattern; searched with Python's re instead.)"
            return scope.base, results, "python", note

    def _search_file(
        self, path: Path, query: Query, ctx: ToolContext
    ) -> tuple[Path | None, list[FileResult], str, str]:
        base = find_base(path.parent, self.workspace.root)
        rel = path.relative_to(base).as_posix()
        binary = (
            None,
            [],
            "",
            f"{self.workspace.display(path)} is a binary (or unreadable) file; not searched.",
        )
        if grep_py.is_binary_file(str(path)):
            return binary
        rg = ripgrep.rg_path()
        backend = "python"
        result = None
        if rg is not None:
            try:
                result, backend = grep_rg.search_file(rg, base, rel, query, ctx.cancel), "ripgrep"
            except grep_rg.BinaryFile:
                return binary
            except PatternError as exc:
                if str(exc) == NEWLINE_ERROR:
                    raise
                try:
                    result = grep_py.search_file(path, rel, query, ctx.cancel)
                except PatternError:
                    raise exc from None
        else:
            result = grep_py.search_file(path, rel, query, ctx.cancel)
        return base, [result] if result else [], backend, ""


def _rg_names(globs: str) -> tuple[str, ...]:
    """File-name globs rg can pre-filter with: all or nothing (exact filtering happens after)."""
    names = [rg_name_glob(g) for g in split_top_level(globs)] if globs else []
    if not names or any(n is None for n in names):
        return ()
    return tuple(n for n in names if n)


#: A pattern that is a file's name (``parity.py``, ``config/db.ini``), not text to find in files.
_FILE_NAME = re.compile(r"[\w./-]*\w\.[A-Za-z0-9]{1,8}")


def _no_match_text(params: Any, where: str, root: Path | None = None) -> str:
    scope = f" in {where}" + (f" (files matching {params.glob!r})" if params.glob else "")
    named = _FILE_NAME.fullmatch(params.pattern) and root is not None
    files = files_named(root, Path(params.pattern).name) if named else []
    if files:  # grep searches text in files; small models grep for a file's name (issue 31)
        return (
            f"No matches for /{params.pattern}/{scope}: grep searches the text inside files. A file "
            f"of that name is at: {', '.join(files)}; read it with read_file."
        )
    hints = []
    if not params.case_insensitive and any(c.isalpha() for c in params.pattern):
        hints.append("case_insensitive=true")
    if any(c in params.pattern for c in "()[]{}.*+?|\\^$"):
        hints.append("escaping regex characters if you meant them literally")
    hint = f" Consider {' or '.join(hints)}." if hints else ""
    return (
        f"No matches for /{params.pattern}/{scope}. Ignored files (.gitignore, node_modules, .venv, "
        f"build, dist, ...) and binary files are not searched.{hint}"
    )


def _where(display: str) -> str:
    return "the workspace root" if display == "." else display
