"""File names that are not UTF-8 (b'bad\\xff.txt', Latin-1 names) through every file tool and bash.

Each tool must show such a name with an escape (``bad\\xff.txt``), hand out only text that
encodes as UTF-8 (the journal, the model's request and every output format need that), and
find the file again when the model passes the escaped form back.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cairn.tools.base import ToolResult
from cairn.tools.file_ops.edit_file import EditFileTool
from cairn.tools.file_ops.glob import GlobTool
from cairn.tools.file_ops.grep import GrepTool
from cairn.tools.file_ops.ls import ListDirTool
from cairn.tools.file_ops.names import escape_text, unescape_name
from cairn.tools.file_ops.read_file import ReadFileTool
from cairn.tools.file_ops.write_file import WriteFileTool
from cairn.tools.services import ToolServices
from cairn.tools.shell.bash import BashTool
from cairn.tools.workspace import Workspace

BAD = b"bad\xff.txt"  # not UTF-8 at all
LATIN = b"caf\xe9.txt"  # a Latin-1 name
SUBDIR = b"sub\xfe"


@pytest.fixture
def hostile(workspace):
    """A workspace with undecodable names; every file holds the word ``needle``."""
    root = os.fsencode(workspace)
    Path(os.fsdecode(root + b"/" + BAD)).write_bytes(b"hello needle\n")
    Path(os.fsdecode(root + b"/" + LATIN)).write_bytes(b"caf\xe9 needle\n")
    os.mkdir(root + b"/" + SUBDIR)
    Path(os.fsdecode(root + b"/" + SUBDIR + b"/in.txt")).write_bytes(b"needle inside\n")
    ws = Workspace(workspace)
    return ws, ToolServices(ws)


def encodable(result: ToolResult) -> ToolResult:
    """The result serialises to strict UTF-8 JSON (what the journal and the API need)."""
    json.dumps(result.to_json(), ensure_ascii=False).encode("utf-8")
    json.dumps(result.model_text(), ensure_ascii=False).encode("utf-8")
    result.display.encode("utf-8")
    return result


def run(tool_cls, hostile, args) -> ToolResult:
    ws, services = hostile
    return encodable(tool_cls(ws, services).execute(args))


def test_escape_round_trip():
    name = os.fsdecode(BAD)
    assert escape_text(name) == r"bad\xff.txt"
    assert unescape_name(r"bad\xff.txt") == name
    assert escape_text("ok \u00e9 text") == "ok \u00e9 text"  # real non-ASCII characters stay
    assert escape_text("lone \ud800") == r"lone \ud800"  # a surrogate that is no byte


def test_ls_shows_escapes_and_lists_an_escaped_directory(hostile):
    out = run(ListDirTool, hostile, {"path": "."}).output
    assert r"dir   sub\xfe/" in out and r"file  bad\xff.txt" in out and r"file  caf\xe9.txt" in out
    inner = run(ListDirTool, hostile, {"path": r"sub\xfe"})
    assert inner.ok and "file  in.txt" in inner.output


def test_glob_shows_escapes_and_accepts_them_in_pattern_and_path(hostile, backend):
    out = run(GlobTool, hostile, {"pattern": "**/*.txt"}).output
    assert {r"bad\xff.txt", r"caf\xe9.txt", r"sub\xfe/in.txt"} <= {
        line.split("  ")[0] for line in out.splitlines()[1:]
    }
    assert r"bad\xff.txt" in run(GlobTool, hostile, {"pattern": r"bad\xff*"}).output
    sub = run(GlobTool, hostile, {"pattern": "*.txt", "path": r"sub\xfe"})
    assert r"sub\xfe/in.txt" in sub.output


def test_grep_shows_escaped_names_and_filters_by_an_escaped_glob(hostile, backend):
    out = run(GrepTool, hostile, {"pattern": "needle", "output_mode": "content"}).output
    assert r"bad\xff.txt:1:hello needle" in out
    assert r"sub\xfe/in.txt:1:needle inside" in out
    assert r"caf\xe9.txt:1:" in out
    only = run(GrepTool, hostile, {"pattern": "needle", "glob": r"bad\xff.txt", "output_mode": "content"})
    assert r"bad\xff.txt" in only.output and "caf" not in only.output
    inside = run(GrepTool, hostile, {"pattern": "needle", "path": r"sub\xfe"})
    assert inside.ok and "in.txt" in inside.output


@pytest.mark.parametrize("given", [r"bad\xff.txt", "bad\udcff.txt"])
def test_read_file_finds_the_escaped_and_the_raw_name(hostile, given):
    result = run(ReadFileTool, hostile, {"file_path": given})
    assert result.ok and "hello needle" in result.output
    assert r"bad\xff.txt" in result.display


def test_edit_and_write_through_escaped_names_change_the_real_files(hostile, workspace):
    root = os.fsencode(workspace)
    run(ReadFileTool, hostile, {"file_path": r"bad\xff.txt"})
    edit = run(
        EditFileTool, hostile, {"file_path": r"bad\xff.txt", "old_string": "hello", "new_string": "bye"}
    )
    assert edit.ok, edit.error
    assert r"bad\xff.txt" in edit.output
    assert Path(os.fsdecode(root + b"/" + BAD)).read_bytes() == b"bye needle\n"

    run(ReadFileTool, hostile, {"file_path": r"sub\xfe/in.txt"})
    write = run(WriteFileTool, hostile, {"file_path": r"sub\xfe/in.txt", "content": "rewritten\n"})
    assert write.ok, write.error
    assert Path(os.fsdecode(root + b"/" + SUBDIR + b"/in.txt")).read_bytes() == b"rewritten\n"
    # a new file in the escaped directory lands in the real one, not in a new "sub\xfe" folder
    new = run(WriteFileTool, hostile, {"file_path": r"sub\xfe/new.txt", "content": "n\n"})
    assert new.ok, new.error
    assert sorted(os.listdir(root + b"/" + SUBDIR)) == [b"in.txt", b"new.txt"]
    assert sorted(os.listdir(root)) == sorted([BAD, LATIN, SUBDIR])


def test_a_name_that_really_has_a_backslash_wins(hostile, workspace):
    literal = Path(workspace) / r"bad\xff.txt"
    literal.write_text("the literal one\n")
    result = run(ReadFileTool, hostile, {"file_path": r"bad\xff.txt"})
    assert "the literal one" in result.output


def test_unchanged_file_read_records_have_storable_names(hostile):
    _ws, services = hostile
    saved = []
    services.reads.on_record = saved.append
    run(ReadFileTool, hostile, {"file_path": r"caf\xe9.txt"})
    assert saved and saved[0].path.endswith(r"caf\xe9.txt")
    saved[0].path.encode("utf-8")
    # a write right after the read is not refused as unread or stale
    write = run(WriteFileTool, hostile, {"file_path": r"caf\xe9.txt", "content": "caf\u00e9\n"})
    assert write.ok, write.error


def test_bash_output_with_undecodable_names_is_text_with_escapes(hostile):
    listing = run(BashTool, hostile, {"command": "ls"})
    assert listing.ok
    lines = listing.output.splitlines()
    assert r"bad\xff.txt" in lines and r"caf\xe9.txt" in lines and r"sub\xfe" in lines
    content = run(BashTool, hostile, {"command": "cat caf*"})
    assert content.output.splitlines()[0] == r"caf\xe9 needle"
