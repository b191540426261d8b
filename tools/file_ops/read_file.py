"""read_file: numbered lines of a text file, images as image content, clear notes for the rest."""

from __future__ import annotations

import difflib
import io
import os
import stat
from pathlib import Path
from typing import Any

from pydantic import Field

from cairn.tools.base import LEAN_AND_FULL, ArgsModel, RiskLevel, Tool, ToolContext, ToolResult
from cairn.tools.file_ops.binary import SNIFF_BYTES, FileKind, sniff
from cairn.tools.file_ops.fmt import human_size, plural
from cairn.tools.file_ops.images import ImageTooLarge, prepare_image
from cairn.tools.file_ops.named_files import files_named, only_file_named
from cairn.tools.file_ops.textio import decode, printable, split_bom, split_lines

#: Files above this size are only read with an explicit offset/limit.
MAX_WHOLE_FILE = 10 * 1024 * 1024
#: Images above this size are refused (decoding them could exhaust memory).
MAX_IMAGE_FILE = 50 * 1024 * 1024
#: Lines longer than this are cut, with a marker.
MAX_LINE_CHARS = 2000
#: Files up to this size are hashed for the stale-write check even when read in part.
MAX_TRACKED = 64 * 1024 * 1024
#: Characters read at a time when a big file is streamed (a long line is never held whole).
_CHUNK = 65536


class ReadFileArgs(ArgsModel):
    file_path: str = Field(description="Path of the file, relative to the workspace root or absolute.")
    offset: int = Field(
        default=0, ge=0, description="Line number to start at (1-based; 0 or 1 = the beginning)."
    )
    limit: int = Field(default=2000, ge=1, le=100_000, description="Maximum number of lines to return.")


class ReadFileTool(Tool):
    name = "read_file"
    plan_mode = True
    path_arg = "file_path"
    profiles = LEAN_AND_FULL
    lean_fields = ("file_path", "offset", "limit")
    core = True
    description = (
        "Read a file. Text comes back as numbered lines (`cat -n` style: line number, tab, text), at most "
        "`limit` lines (default 2000) from line `offset`; lines over 2000 characters are cut. The note at "
        "the end says how many lines remain and which offset continues. Images (PNG, JPEG, GIF, WebP, BMP) "
        "are returned as images; PDFs and other binary files get a short description. Files over 10 MB "
        "need offset/limit. Read a file before editing or overwriting it. Use ls for directories."
    )
    args_schema = ReadFileArgs
    risk_level = RiskLevel.LOW
    read_only = True
    concurrency_safe = True
    idempotent = True
    aliases = ("Read", "FileRead", "ReadFile", "read")
    search_hint = "read view open show file contents cat lines image"
    #: Enough for 2000 ordinary lines; reads stop at a line boundary before it and say where to go on.
    max_output_chars = 100_000

    def run(self, params: Any, ctx: ToolContext) -> ToolResult:
        path = self.workspace.resolve(params.file_path).path
        found = only_file_named(self.workspace.root, path)
        if found is not None:
            path = self.workspace.resolve(found).path
        shown = self.workspace.display(path)
        try:
            result = self._read(path, shown, params, ctx.line_numbers)
            if found is None or result.error or not isinstance(result.output, str):
                return result
            note = f"[{params.file_path} does not exist; this is {found}, the only file of that name in the workspace.]"
            return result.model_copy(update={"output": f"{note}\n{result.output}"})
        except PermissionError:
            return ToolResult.fail(f"Cannot read {shown}: permission denied.")
        except OSError as exc:
            return ToolResult.fail(f"Cannot read {shown}: {exc.strerror or exc}.")

    def _read(self, path: Path, shown: str, params: Any, numbered: bool = True) -> ToolResult:
        try:
            st = path.stat()
        except FileNotFoundError:
            return ToolResult.fail(
                _not_found(path, params.file_path, self.workspace.root), display=f"not found: {shown}"
            )
        if stat.S_ISDIR(st.st_mode):
            return ToolResult.fail(
                f"{shown} is a directory, not a file. Use ls to list it (or glob to find files)."
            )
        if not stat.S_ISREG(st.st_mode):
            return ToolResult.fail(f"{shown} is not a regular file (device, socket or pipe); not read.")
        with open(path, "rb") as fh:
            head = fh.read(SNIFF_BYTES)
        kind = sniff(head)
        if kind is not None:
            return self._non_text(path, shown, kind, st.st_size)
        if st.st_size == 0:
            self.services.reads.record(path, b"")
            return ToolResult(
                output=f"{shown} exists but is empty (0 bytes).", display=f"Read {shown} (empty)"
            )
        explicit = bool({"offset", "limit"} & params.model_fields_set)
        if st.st_size > MAX_WHOLE_FILE:
            if not explicit:
                return ToolResult.fail(
                    f"{shown} is {human_size(st.st_size)}, over the 10 MB read_file reads at once. Pass offset "
                    "and limit to read part of it (e.g. offset=1, limit=500), or use grep to find the lines you need."
                )
            return self._read_part(path, shown, params, head, st.st_size, numbered)
        data = path.read_bytes()
        self.services.reads.record(path, data)
        decoded = decode(data)
        text = printable(decoded.text) if decoded.invalid else decoded.text
        if self.services.files is not None:  # editor files (issue 33): what the editor shows
            shown = self.services.files.read_text(path)
            text = text if shown is None else shown
        lines = split_lines(text)
        start = max(params.offset, 1)
        if start > len(lines):
            return ToolResult.fail(
                f"offset {params.offset} is past the end of {shown}, which has {plural(len(lines), 'line')}."
            )
        body, end = self._numbered(lines[start - 1 : start - 1 + params.limit], start, numbered=numbered)
        notes = []
        if end < len(lines):
            notes.append(
                f"[{plural(len(lines) - end, 'more line')} not shown ({plural(len(lines), 'line')} in total). "
                f"Call read_file with offset={end + 1} to continue.]"
            )
        if decoded.encoding != "utf-8" or decoded.bom or decoded.newline != "\n" or decoded.invalid:
            keep = "; edits keep it" if not decoded.lossy else ""
            notes.append(f"[File encoding: {decoded.describe()}{keep}.]")
        output = body + ("\n" + "\n".join(notes) if notes else "")
        return ToolResult(
            output=output,
            display=f"Read {shown} (lines {start}-{end} of {len(lines)})",
            metadata={
                "path": str(path),
                "start_line": start,
                "end_line": end,
                "total_lines": len(lines),
                "encoding": decoded.describe(),
            },
        )

    def _numbered(
        self, lines: list[str], start: int, lengths: list[int] | None = None, *, numbered: bool = True
    ) -> tuple[str, int]:
        """``cat -n`` style text for ``lines`` (or the lines alone), stopping before the output budget runs out.

        ``lengths`` are the full lengths of lines that were read only in part.
        """
        out: list[str] = []
        budget = self.max_output_chars - 400
        number = start - 1
        for number, line in enumerate(lines, start):
            full = lengths[number - start] if lengths else len(line)
            if full > MAX_LINE_CHARS:
                line = f"{line[:MAX_LINE_CHARS]}... [line cut: {full:,} characters in total]"
            row = f"{number:>6}\t{line}" if numbered else line
            budget -= len(row) + 1
            if budget < 0 and out:
                return "\n".join(out), number - 1
            out.append(row)
        return "\n".join(out), number

    def _read_part(
        self, path: Path, shown: str, params: Any, head: bytes, size: int, numbered: bool = True
    ) -> ToolResult:
        """Stream the requested lines of a big file without loading it, nor any whole long line."""
        bom, encoding = split_bom(head)
        start = max(params.offset, 1)
        lines: list[str] = []
        lengths: list[int] = []
        with open(path, "rb") as raw:
            raw.seek(len(bom))
            # Lines end at "\n" only, as split_lines and grep count them.
            fh = io.TextIOWrapper(raw, encoding=encoding or "utf-8", errors="replace", newline="\n")
            for _ in range(start - 1):
                if _read_line(fh, 0) is None:
                    break
            for _ in range(params.limit):
                got = _read_line(fh, MAX_LINE_CHARS + 1)
                if got is None:
                    break
                lines.append(got[0])
                lengths.append(got[1])
        if not lines:
            return ToolResult.fail(f"offset {params.offset} is past the end of {shown}.")
        if size <= MAX_TRACKED:
            self.services.reads.record(path)
        body, end = self._numbered(lines, start, lengths, numbered=numbered)
        note = (
            f"\n[{shown} is {human_size(size)}; showed lines {start}-{end}. "
            f"Call read_file with offset={end + 1} to continue.]"
        )
        return ToolResult(
            output=body + note,
            display=f"Read {shown} (lines {start}-{end}, {human_size(size)} file)",
            metadata={"path": str(path), "start_line": start, "end_line": end},
        )

    def _non_text(self, path: Path, shown: str, kind: FileKind, size: int) -> ToolResult:
        if kind.image:
            if size > MAX_IMAGE_FILE:
                return ToolResult.fail(f"{shown} is a {kind.label} of {human_size(size)}; too large to load.")
            try:
                img = prepare_image(path.read_bytes(), kind)
            except ImageTooLarge as exc:
                return ToolResult.fail(f"{shown} is a {kind.label} that was not loaded: {exc}.")
            except Exception as exc:  # Pillow raises many types for broken files
                return ToolResult.fail(f"{shown} looks like a {kind.label} but could not be decoded: {exc}")
            dims = f"{img.original_width}x{img.original_height}"
            if (img.width, img.height) != (img.original_width, img.original_height):
                dims += f", sent as {img.width}x{img.height}"
            fmt = kind.label.removesuffix(" image")
            text = f"Image: {shown} ({fmt}, {dims}, {human_size(size)})"
            meta = {
                "mime_type": img.mime_type,
                "base64": img.base64,
                "width": img.width,
                "height": img.height,
            }
            return ToolResult(
                output=[{"type": "text", "text": text}, img.block()],
                display=text,
                metadata={"path": str(path), "image": meta},
            )
        if kind.is_pdf:
            pages = _pdf_pages(path)
            count = f"{plural(pages, 'page')}, " if pages else ""
            text = (
                f"{shown} is a PDF document ({count}{human_size(size)}). read_file does not extract PDF "
                "text; use a command-line tool such as pdftotext if one is installed."
            )
            return ToolResult(output=text, display=f"PDF: {shown} ({human_size(size)})")
        text = f"{shown} is a binary file ({kind.label}, {human_size(size)}); its contents are not shown."
        return ToolResult(output=text, display=f"Binary: {shown} ({kind.label})")


def _read_line(fh: io.TextIOWrapper, keep: int) -> tuple[str, int] | None:
    """The next line's first ``keep`` characters (without the line ending) and its full length,
    reading at most 64K characters at a time; ``None`` at the end of the file."""
    piece = fh.readline(_CHUNK)
    if not piece:
        return None
    kept, length, tail = piece[:keep], len(piece), piece[-2:]
    while not piece.endswith("\n"):
        piece = fh.readline(_CHUNK)
        if not piece:
            break
        length += len(piece)
        tail = (tail + piece)[-2:]
    if tail.endswith("\n"):
        length -= 2 if tail == "\r\n" else 1
    return kept[:length], length


def _pdf_pages(path: Path) -> int:
    """Rough page count (``/Type /Page`` objects) of a PDF up to 20 MB; 0 if unknown."""
    import re

    try:
        if path.stat().st_size > 20 * 1024 * 1024:
            return 0
        return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", path.read_bytes()))
    except OSError:
        return 0


def _not_found(path: Path, given: str, root: Path | None = None) -> str:
    parent = path.parent
    message = f"File not found: {given} (resolved to {path})."
    if not parent.is_dir():
        message += f" The directory {parent} does not exist either."
        elsewhere = files_named(root, path.name) if root is not None else []
        if elsewhere:
            message += " A file of that name is in the workspace at: " + ", ".join(elsewhere) + "."
        return message
    try:
        names = os.listdir(parent)
    except OSError:
        return message
    close = difflib.get_close_matches(path.name, names, n=3, cutoff=0.6)
    if close:
        message += " Similar names in that directory: " + ", ".join(close) + "."
    return message + " Use glob to search for it."
