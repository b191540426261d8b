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
from tests.cli import conftest as cli
from tests.cli.conftest import call

# the CLI fixtures, used by name through request.getfixturevalue
cli_env, run_cairn, script = cli.cli_env, cli.run_cairn, cli.script

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


# -- every output format: the real ``cairn`` command and the notebook display -------------------

BAD_ARG = "bad\udcff.txt"  # what a model may send: the raw surrogate, not the escape


def hostile_turns() -> list[dict]:
    calls = [
        call("ls", "c1", path="."),
        call("glob", "c2", pattern="*.txt"),
        call("grep", "c3", pattern="needle"),
        call("read_file", "c4", file_path=r"bad\xff.txt"),
        call("bash", "c5", command="ls"),
        call("read_file", "c6", file_path=BAD_ARG),
    ]
    return [{"content": "Looking.", "tool_calls": calls}, {"content": f"Found {BAD_ARG}."}]


def utf8(data: str) -> str:
    """``data`` as the bytes a reader gets: strict UTF-8, no surrogate in it."""
    data.encode("utf-8")
    return data


@pytest.mark.slow
@pytest.mark.usefixtures("db_location")  # on SQLite and PostgreSQL
def test_json_stream_json_text_and_show_represent_undecodable_names(hostile, request):
    run, make_script = request.getfixturevalue("run_cairn"), request.getfixturevalue("script")
    model = ["--model", make_script(hostile_turns())]
    p = run("-p", "look", *model, "--output-format", "json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(utf8(p.stdout))
    assert doc["status"] == "done" and doc["result"] == r"Found bad\xff.txt."
    results = {c["call_id"]: c for c in doc["tool_calls"]}
    assert all(c["status"] == "success" for c in results.values()), results
    assert r"file  bad\xff.txt" in results["c1"]["result"] and r"caf\xe9.txt" in results["c2"]["result"]
    assert r"bad\xff.txt:1:hello needle" in results["c3"]["result"]
    assert "hello needle" in results["c4"]["result"] and "hello needle" in results["c6"]["result"]
    assert r"bad\xff.txt" in results["c5"]["result"].splitlines()
    assert results["c6"]["arguments"] == {"file_path": r"bad\xff.txt"}

    p = run("-p", "look", *model, "--output-format", "stream-json")
    assert p.returncode == 0, p.stderr
    events = [json.loads(line) for line in utf8(p.stdout).splitlines()]
    assert events[-1]["type"] == "result" and events[-1]["result"] == r"Found bad\xff.txt."

    p = run("-p", "look", *model)
    assert p.returncode == 0, p.stderr
    assert utf8(p.stdout) == "Found bad\\xff.txt.\n"
    assert r"read_file bad\xff.txt" in p.stderr and "caf\\xe9.txt" in p.stderr

    sid = json.loads(run("sessions", "--json").stdout)[0]["session_id"]
    shown = run("show", sid)
    assert shown.returncode == 0, shown.stderr
    assert r"read_file bad\xff.txt" in utf8(shown.stdout) and r"Found bad\xff.txt." in shown.stdout
    as_json = run("show", sid, "--json")
    assert as_json.returncode == 0, as_json.stderr
    shown_calls = json.loads(utf8(as_json.stdout))["tool_calls"]
    assert r"Read bad\xff.txt (lines 1-1 of 1)" in [c.get("display") for c in shown_calls]


def test_notebook_html_and_markdown_represent_undecodable_names():
    from cairn.graph.core.state import ToolCallInfo
    from cairn.graph.display import calls_table, run_result_html, run_result_markdown, run_result_text
    from cairn.graph.display.parts import approval_html
    from cairn.graph.session.result import RunResult

    done = ToolCallInfo(
        call_id="c1",
        tool_name="read_file",
        arguments={"file_path": BAD_ARG},
        status="success",
        result=f"file {BAD_ARG}",
        display=f"Read {BAD_ARG}",
    )
    waiting = ToolCallInfo(
        call_id="c2",
        tool_name="write_file",
        arguments={"file_path": BAD_ARG, "content": "x"},
        status="awaiting_approval",
        reason=f"write_file writes {BAD_ARG}",
    )
    result = RunResult(
        session_id="s",
        status="awaiting_approval",
        text=f"see {BAD_ARG}",
        pending=[waiting],
        tool_calls=[done],
    )
    for page in (
        run_result_html(result),
        run_result_markdown(result),
        run_result_text(result),
        calls_table([done])._repr_html_(),
        approval_html(waiting),
    ):
        assert r"bad\xff.txt" in utf8(page)
