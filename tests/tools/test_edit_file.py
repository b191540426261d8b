"""edit_file: exact replacement, uniqueness, hints, and byte-preservation properties."""

from __future__ import annotations

import stat
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cairn.tools.file_ops.edit_file import EditFileTool
from cairn.tools.file_ops.read_file import ReadFileTool
from cairn.tools.services import ToolServices
from cairn.tools.workspace import Workspace


def make_tools(root):
    ws = Workspace(root)
    services = ToolServices(ws)
    return ReadFileTool(ws, services), EditFileTool(ws, services)


@pytest.fixture
def tools(workspace):
    return make_tools(workspace)


def put(root, rel, data: bytes | str, read_tool=None) -> Path:
    path = Path(root) / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    if read_tool is not None:
        assert read_tool.execute({"file_path": rel}).ok
    return path


def test_replaces_unique_string_and_returns_snippet(tools, workspace):
    read, edit = tools
    path = put(workspace, "a.py", "def f():\n    return 1\n\n\ndef g():\n    return 2\n", read)
    result = edit.execute({"file_path": "a.py", "old_string": "return 1", "new_string": "return 10"})
    assert result.ok, result.error
    assert path.read_text() == "def f():\n    return 10\n\n\ndef g():\n    return 2\n"
    assert result.output.startswith("Edited a.py (line 2; +1 -1).")
    assert "     2\t    return 10" in result.output
    assert result.metadata["undo"]["before"] == "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
    assert "-    return 1" in result.metadata["diff"]


def test_several_matches_list_line_numbers(tools, workspace):
    read, edit = tools
    put(workspace, "a.py", "x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n", read)
    result = edit.execute({"file_path": "a.py", "old_string": "x = 1", "new_string": "x = 0"})
    assert not result.ok
    assert "3 times" in result.error and "lines 1, 3, 5" in result.error and "replace_all" in result.error


def test_replace_all(tools, workspace):
    read, edit = tools
    path = put(workspace, "a.py", "x = 1\ny = 2\nx = 1\n", read)
    result = edit.execute(
        {"file_path": "a.py", "old_string": "x = 1", "new_string": "x = 0", "replace_all": True}
    )
    assert result.ok and path.read_text() == "x = 0\ny = 2\nx = 0\n"
    assert "replaced 2 occurrences" in result.output


def test_identical_strings_are_an_error(tools, workspace):
    read, edit = tools
    put(workspace, "a.py", "x\n", read)
    result = edit.execute({"file_path": "a.py", "old_string": "x", "new_string": "x"})
    assert not result.ok and "identical" in result.error


def test_not_found_hints_whitespace_difference(tools, workspace):
    read, edit = tools
    put(workspace, "a.py", "def f():\n\treturn 1\n", read)
    result = edit.execute({"file_path": "a.py", "old_string": "def f():\n    return 1", "new_string": "x"})
    assert not result.ok
    assert "not found" in result.error
    assert "lines 1-2 if whitespace is ignored" in result.error and "'\\treturn 1'" in result.error


def test_not_found_hints_similar_lines(tools, workspace):
    read, edit = tools
    put(workspace, "a.py", "alpha = compute_total(items)\nbeta = 2\n", read)
    result = edit.execute(
        {"file_path": "a.py", "old_string": "alpha = compute_totl(items)", "new_string": "x"}
    )
    assert not result.ok and "line 1: alpha = compute_total(items)" in result.error


def test_not_found_hints_line_number_prefixes(tools, workspace):
    read, edit = tools
    put(workspace, "a.py", "a = 1\nb = 2\n", read)
    result = edit.execute(
        {"file_path": "a.py", "old_string": "     1\ta = 1\n     2\tb = 2", "new_string": "x"}
    )
    assert not result.ok and "line-number prefixes" in result.error


def test_not_found_hints_edit_already_made(tools, workspace):
    read, edit = tools
    put(workspace, "a.py", "value = 2\n", read)
    result = edit.execute({"file_path": "a.py", "old_string": "value = 1", "new_string": "value = 2"})
    assert not result.ok and "already appears at line 1" in result.error


def test_requires_read_and_detects_external_change(tools, workspace):
    read, edit = tools
    path = put(workspace, "a.py", "x = 1\n")
    assert (
        "has not been read" in edit.execute({"file_path": "a.py", "old_string": "1", "new_string": "2"}).error
    )
    read.execute({"file_path": "a.py"})
    path.write_text("x = 5\n")
    assert (
        "modified on disk" in edit.execute({"file_path": "a.py", "old_string": "5", "new_string": "2"}).error
    )


def test_consecutive_edits_without_rereading(tools, workspace):
    read, edit = tools
    path = put(workspace, "a.py", "a\nb\nc\n", read)
    assert edit.execute({"file_path": "a.py", "old_string": "a", "new_string": "A"}).ok
    assert edit.execute({"file_path": "a.py", "old_string": "b", "new_string": "B"}).ok
    assert path.read_text() == "A\nB\nc\n"


def test_crlf_file_stays_crlf_including_new_lines(tools, workspace):
    read, edit = tools
    path = put(workspace, "w.txt", b"one\r\ntwo\r\nthree\r\n", read)
    result = edit.execute({"file_path": "w.txt", "old_string": "one\ntwo\n", "new_string": "uno\ndos\nmas\n"})
    assert result.ok, result.error
    assert path.read_bytes() == b"uno\r\ndos\r\nmas\r\nthree\r\n"


def test_bom_encoding_and_mode_are_kept(tools, workspace):
    read, edit = tools
    path = put(workspace, "u16.txt", "héllo\r\nwörld\r\n".encode("utf-16"), read)
    path.chmod(0o640)
    assert edit.execute({"file_path": "u16.txt", "old_string": "wörld", "new_string": "wörld ☃\nmore"}).ok
    assert path.read_bytes() == "héllo\r\nwörld ☃\r\nmore\r\n".encode("utf-16")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_create_with_empty_old_string_and_missing_file_error(tools, workspace):
    _, edit = tools
    created = edit.execute({"file_path": "new/n.py", "old_string": "", "new_string": "print(1)\n"})
    assert created.ok and (Path(workspace) / "new/n.py").read_text() == "print(1)\n"
    assert created.metadata["undo"]["before"] is None
    missing = edit.execute({"file_path": "nope.py", "old_string": "a", "new_string": "b"})
    assert not missing.ok and "File not found" in missing.error


def test_empty_old_string_on_non_empty_file_is_refused(tools, workspace):
    read, edit = tools
    put(workspace, "a.py", "x\n", read)
    result = edit.execute({"file_path": "a.py", "old_string": "", "new_string": "y"})
    assert not result.ok and "old_string is empty" in result.error


def test_dry_run_shows_diff_without_writing(tools, workspace):
    read, edit = tools
    path = put(workspace, "a.py", "x = 1\n", read)
    preview = edit.dry_run({"file_path": "a.py", "old_string": "x = 1", "new_string": "x = 2"})
    assert preview.ok and "-x = 1" in preview.output and "+x = 2" in preview.output
    assert path.read_text() == "x = 1\n"
    bad = edit.dry_run({"file_path": "a.py", "old_string": "nope", "new_string": "x"})
    assert not bad.ok and "not found" in bad.error


# -- properties ---------------------------------------------------------------------------------

_TEXT = st.text(alphabet="abc xyzé\t", max_size=12)
_ENCODINGS = st.sampled_from(
    [("utf-8", b""), ("utf-8", b"\xef\xbb\xbf"), ("utf-16-le", b"\xff\xfe"), ("cp1252", b"")]
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines_before=st.lists(_TEXT, max_size=5),
    lines_after=st.lists(_TEXT, max_size=5),
    newline=st.sampled_from(["\n", "\r\n"]),
    marker_spans_lines=st.booleans(),
    new=st.lists(_TEXT, min_size=1, max_size=4).map("\n".join),
    encoding=_ENCODINGS,
    final_newline=st.booleans(),
)
def test_edit_preserves_line_endings_bom_and_untouched_bytes(
    lines_before, lines_after, newline, marker_spans_lines, new, encoding, final_newline
):
    codec, bom = encoding
    if codec == "cp1252":  # an all-ASCII file is indistinguishable from UTF-8
        lines_before = ["café", *lines_before]
    marker = "<<OLD\nTEXT>>" if marker_spans_lines else "<<OLD TEXT>>"
    prefix = "".join(line + newline for line in lines_before)
    suffix = newline.join(lines_after) + (newline if final_newline else "")
    body = prefix + marker.replace("\n", newline) + (newline if lines_after else "") + suffix
    with tempfile.TemporaryDirectory() as root:
        read, edit = make_tools(root)
        path = put(root, "f.txt", bom + body.encode(codec), read)
        new_string = new if new != marker else new + "!"
        result = edit.execute({"file_path": "f.txt", "old_string": marker, "new_string": new_string})
        assert result.ok, result.error
        data = path.read_bytes()
    assert data.startswith(bom)
    if "\n" not in body:  # no line ending to copy: new lines get the default "\n"
        newline = "\n"
    expected_new = new_string.replace("\n", newline)
    head = bom + prefix.encode(codec)
    tail = ((newline if lines_after else "") + suffix).encode(codec)
    assert data == head + expected_new.encode(codec) + tail
    text = data[len(bom) :].decode(codec)
    if newline == "\r\n":
        assert text.count("\n") == text.count("\r\n")  # still pure CRLF
    else:
        assert "\r" not in text


@settings(max_examples=100, deadline=None)
@given(
    segments=st.lists(st.tuples(_TEXT, st.sampled_from(["\n", "\r\n"])), min_size=1, max_size=8),
    index=st.integers(min_value=0),
    new=_TEXT,
)
def test_mixed_line_endings_outside_the_edit_are_untouched(segments, index, new):
    """In a file mixing LF and CRLF, only the replaced text changes, byte for byte."""
    target = index % len(segments)
    pieces = [(f"{text}#{i}", nl) for i, (text, nl) in enumerate(segments)]
    old = pieces[target][0]
    raw = "".join(text + nl for text, nl in pieces).encode()
    with tempfile.TemporaryDirectory() as root:
        read, edit = make_tools(root)
        path = put(root, "m.txt", raw, read)
        replacement = new + "@"
        result = edit.execute({"file_path": "m.txt", "old_string": old, "new_string": replacement})
        assert result.ok, result.error
        data = path.read_bytes()
    before = "".join(text + nl for text, nl in pieces[:target]).encode()
    after = pieces[target][1].encode() + "".join(text + nl for text, nl in pieces[target + 1 :]).encode()
    assert data == before + replacement.encode() + after


def test_blank_line_in_old_string_does_not_match_a_single_crlf(tools, workspace):
    read, edit = tools
    path = put(workspace, "x.txt", b"alpha\r\nbeta\r\n", read)
    result = edit.execute({"file_path": "x.txt", "old_string": "alpha\n\nbeta", "new_string": "Z"})
    assert not result.ok and "not found" in result.error
    assert path.read_bytes() == b"alpha\r\nbeta\r\n"
    blank = put(workspace, "y.txt", b"alpha\r\n\r\nbeta\r\n", read)
    assert edit.execute({"file_path": "y.txt", "old_string": "alpha\n\nbeta", "new_string": "Z"}).ok
    assert blank.read_bytes() == b"Z\r\n"


def test_line_numbers_in_a_cr_only_file(tools, workspace):
    read, edit = tools
    put(workspace, "mac.txt", b"one\rtwo\rx = 1\rfour\rx = 1\r", read)
    many = edit.execute({"file_path": "mac.txt", "old_string": "x = 1", "new_string": "x = 2"})
    assert "at lines 3, 5" in many.error
    done = edit.execute({"file_path": "mac.txt", "old_string": "four\nx = 1", "new_string": "4\nx = 2"})
    assert done.ok, done.error
    assert done.output.startswith("Edited mac.txt (line 4;")
    assert (Path(workspace) / "mac.txt").read_bytes() == b"one\rtwo\rx = 1\r4\rx = 2\r"


def test_bom_file_with_an_invalid_byte_keeps_it_when_another_line_is_edited(tools, workspace):
    read, edit = tools
    original = b"\xef\xbb\xbfname = caf\xe9\nvalue = 1\n"
    path = put(workspace, "x.txt", original, read)
    result = edit.execute({"file_path": "x.txt", "old_string": "value = 1", "new_string": "value = 2"})
    assert result.ok, result.error
    assert path.read_bytes() == original.replace(b"value = 1", b"value = 2")


def test_one_stray_latin1_byte_does_not_turn_a_utf8_file_into_cp1252(tools, workspace):
    read, edit = tools
    raw = "# (c) 2020 \xa9\n".encode("latin-1") + "name = 'café'\nother = 1\n".encode()
    path = put(workspace, "y.py", raw)
    shown = read.execute({"file_path": "y.py"})
    assert shown.output.splitlines()[:2] == ["     1\t# (c) 2020 \ufffd", "     2\tname = 'café'"]
    assert "1 invalid byte" in shown.output
    done = edit.execute({"file_path": "y.py", "old_string": "name = 'café'", "new_string": "name = 'thé'"})
    assert done.ok, done.error
    assert "\udca9" not in done.output and "\udca9" not in done.metadata["diff"]
    assert edit.execute({"file_path": "y.py", "old_string": "other = 1", "new_string": "other = 'é'"}).ok
    assert path.read_bytes() == b"# (c) 2020 \xa9\nname = 'th\xc3\xa9'\nother = '\xc3\xa9'\n"
    # the line with the invalid byte can be edited by copying read_file's replacement character
    fixed = edit.execute({"file_path": "y.py", "old_string": "2020 \ufffd", "new_string": "2020 ©"})
    assert fixed.ok, fixed.error
    assert path.read_bytes().startswith("# (c) 2020 ©\n".encode())


def test_utf16_file_that_does_not_decode_is_not_edited(tools, workspace):
    read, edit = tools
    raw = "\ufeffgood line\nsecond\n".encode("utf-16-le") + b"\x00\xd8"  # ends in a lone surrogate
    path = put(workspace, "u16.txt", raw, read)
    result = edit.execute({"file_path": "u16.txt", "old_string": "second", "new_string": "2nd"})
    assert not result.ok and "not valid utf-16-le" in result.error
    assert path.read_bytes() == raw


@settings(max_examples=150, deadline=None)
@given(
    before=st.binary(max_size=40).filter(lambda b: b"\0" not in b and b"MARK" not in b),
    after=st.binary(max_size=40).filter(lambda b: b"\0" not in b and b"MARK" not in b),
    bom=st.sampled_from([b"", b"\xef\xbb\xbf"]),
)
def test_edit_keeps_arbitrary_untouched_bytes(before, after, bom):
    """Whatever the bytes around the edit (invalid UTF-8, cp1252, control bytes), they are kept."""
    raw = bom + b"# " + before + b"<MARK>" + after
    with tempfile.TemporaryDirectory() as root:
        read, edit = make_tools(root)
        path = put(root, "f.txt", raw, read)
        result = edit.execute({"file_path": "f.txt", "old_string": "<MARK>", "new_string": "[done]"})
        assert result.ok, result.error
        assert path.read_bytes() == raw.replace(b"<MARK>", b"[done]")
