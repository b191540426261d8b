"""What write_file, edit_file and gitignore share: load the current file, plan, preview, commit.

A :class:`Plan` is computed without side effects (the dry-run shows its diff);
:func:`commit` writes it atomically and records the new content as read, so
the next edit of the same file needs no fresh read.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cairn.errors import CairnError
from cairn.tools.base import ToolResult
from cairn.tools.file_ops.atomic import atomic_write, read_only_reason
from cairn.tools.file_ops.binary import sniff
from cairn.tools.file_ops.diffing import unified_diff_stats
from cairn.tools.file_ops.textio import Decoded, decode, encode_like, printable
from cairn.tools.services import ToolServices


class WriteRefused(CairnError):
    """A write that must not happen; the message is for the model. ``help`` is more detail the
    graph adds when the model fails the same way twice in a row (``cairn.graph.core.loops``)."""

    def __init__(self, message: str, help: str | None = None) -> None:
        super().__init__(message)
        self.help = help


@dataclass(frozen=True)
class Current:
    """A file as it is on disk now (``decoded is None``: it does not exist)."""

    path: Path
    data: bytes | None
    decoded: Decoded | None
    links: int = 1  # hard links of the existing file

    @property
    def exists(self) -> bool:
        return self.decoded is not None


#: Non-blocking: opening a FIFO that slipped past the stat check must not wait for a writer.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_NOT_REGULAR = (
    "{} is not a regular file (a device, socket or pipe); the file tools only change regular files."
)


def load_current(path: Path, services: ToolServices, *, check_stale: bool = True) -> Current:
    """Read the file about to be changed, refusing directories, special and read-only files,
    binary files and stale reads."""
    try:
        st = path.stat()
    except (FileNotFoundError, NotADirectoryError):  # the write reports a file in the way
        return Current(path, None, None)
    except OSError as exc:
        raise WriteRefused(f"Cannot read {path}: {exc.strerror or exc}.") from None
    if stat.S_ISDIR(st.st_mode):
        raise WriteRefused(f"{path} is a directory; give a file path.")
    if not stat.S_ISREG(st.st_mode):
        raise WriteRefused(_NOT_REGULAR.format(path))
    try:
        data, st = _read_regular(path)
    except OSError as exc:
        raise WriteRefused(f"Cannot read {path}: {exc.strerror or exc}.") from None
    if data is None:
        raise WriteRefused(_NOT_REGULAR.format(path))
    if reason := read_only_reason(path, st):
        raise WriteRefused(f"Cannot change {path}: {reason}.")
    kind = sniff(data[:8192])
    if kind is not None:
        raise WriteRefused(
            f"{path} is a binary file ({kind.label}); the file tools only change text files "
            "(use a shell command to replace or delete it)."
        )
    if check_stale and (reason := services.reads.stale_reason(path)):
        raise WriteRefused(reason)
    decoded = decode(data)
    if services.files is not None:  # editor files (issue 33): the buffer, unsaved changes included
        text = services.files.read_text(path)
        if text is not None and text != decoded.text:
            try:
                data = encode_like(text, decoded)
                decoded = decode(data)
            except UnicodeEncodeError:  # the buffer holds what the file's codec cannot: the disk's
                pass
    return Current(path, data, decoded, st.st_nlink)


def _read_regular(path: Path) -> tuple[bytes | None, os.stat_result]:
    """The bytes of ``path`` if what was opened is a regular file (``None`` otherwise), and its stat."""
    fd = os.open(path, _OPEN_FLAGS)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, st
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks), st
    finally:
        os.close(fd)


@dataclass(frozen=True)
class Plan:
    current: Current
    display: str  # workspace-relative path for people
    after_text: str
    data: bytes  # exact bytes to write
    diff: str  # cut to MAX_DIFF_CHARS for a huge change
    added: int  # lines, counted on the whole diff
    removed: int

    @property
    def changed(self) -> bool:
        return self.current.data != self.data

    @property
    def stats(self) -> tuple[int, int]:
        return self.added, self.removed

    def metadata(self) -> dict[str, Any]:
        cur = self.current
        before = cur.decoded.text if cur.decoded is not None else None
        added, removed = self.stats
        undo = {"path": str(cur.path), "before": printable(before) if before is not None else None}
        if cur.decoded is not None:
            undo.update(encoding=cur.decoded.encoding, bom=bool(cur.decoded.bom))
        return {
            "path": str(cur.path),
            "diff": self.diff,
            "created": not cur.exists,
            "added": added,
            "removed": removed,
            "undo": undo,
        }


def make_plan(current: Current, after_text: str, display: str) -> Plan:
    """Encode ``after_text`` like the current file (UTF-8 for a new one) and diff it."""
    try:
        data = encode_like(after_text, current.decoded)
    except UnicodeEncodeError as exc:
        enc = current.decoded.encoding if current.decoded else "utf-8"
        bad = after_text[exc.start : exc.end]
        raise WriteRefused(
            f"The new text contains {bad!r}, which the file's encoding ({enc}) cannot represent. "
            "Use characters the encoding supports (or an escape sequence the language allows)."
        ) from None
    before = current.decoded.text if current.decoded is not None else None
    diff, added, removed = unified_diff_stats(before, after_text, display)
    return Plan(current, display, after_text, data, printable(diff), added, removed)


def editable_text(current: Current) -> str:
    """The text of an existing file for a partial edit; refuses one whose text would not give
    back its bytes (a UTF-16/32 file that does not decode), as the untouched part would change."""
    decoded = current.decoded
    assert decoded is not None
    if decoded.lossy:
        raise WriteRefused(
            f"{current.path} is not valid {decoded.encoding} (some bytes do not decode), so part of it "
            "cannot be changed without altering the rest. Replace the whole file with write_file, or use "
            "a shell command."
        )
    return decoded.text


def preview_result(plan: Plan, verb: str) -> ToolResult:
    added, removed = plan.stats
    what = "create" if not plan.current.exists else verb
    summary = (
        f"Would {what} {plan.display} (+{added} -{removed})"
        if plan.changed
        else f"No change to {plan.display}"
    )
    return ToolResult(output=plan.diff or summary, display=summary, metadata=plan.metadata())


def commit(plan: Plan, services: ToolServices) -> str:
    """Write the plan; an OS error (permissions, a file where a directory should be, a full disk)
    becomes :class:`WriteRefused` with a message for the model.

    Returns a note for the model ("" normally): a hard-linked file became a file of its own.
    """
    try:
        # editor files (issue 33): the change lands in the editor's buffer, which saves it
        if services.files is not None and services.files.write_text(plan.current.path, plan.after_text):
            try:
                services.reads.record(plan.current.path, plan.data)
            except OSError:  # the editor keeps it unsaved for now
                pass
            return ""
        atomic_write(plan.current.path, plan.data)
    except OSError as exc:
        raise WriteRefused(f"Cannot write {plan.display}: {exc.strerror or exc}.") from None
    services.reads.record(plan.current.path, plan.data)
    links = plan.current.links
    if links < 2:
        return ""
    return (
        f"\n[{plan.display} had {links} hard links; it is now a file of its own and the other "
        f"{links - 1} link{'s' if links > 2 else ''} keep the old content.]"
    )
