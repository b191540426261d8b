"""write_file: create, overwrite after read, stale checks, atomicity, mode, line endings, dry run."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from cairn.tools.file_ops.read_file import ReadFileTool
from cairn.tools.file_ops.write_file import WriteFileTool
from cairn.tools.services import ToolServices
from cairn.tools.workspace import Workspace


@pytest.fixture
def tools(workspace):
    ws = Workspace(workspace)
    services = ToolServices(ws)
    return ReadFileTool(ws, services), WriteFileTool(ws, services)


def test_creates_file_and_parents(tools, workspace):
    _, write = tools
    result = write.execute({"file_path": "a/b/c.txt", "content": "hello\nworld\n"})
    assert result.ok, result.error
    path = Path(workspace) / "a/b/c.txt"
    assert path.read_bytes() == b"hello\nworld\n"
    assert result.output == "Created a/b/c.txt (2 lines)."
    assert result.metadata["created"] is True
    assert result.metadata["undo"] == {"path": str(path), "before": None}
    assert result.metadata["diff"].startswith("--- /dev/null\n+++ b/a/b/c.txt")
    # new files get the usual umask-derived mode, not mkstemp's 0600
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask


def test_overwrite_requires_a_read(tools, workspace):
    read, write = tools
    path = Path(workspace) / "x.txt"
    path.write_text("old\n")
    refused = write.execute({"file_path": "x.txt", "content": "new\n"})
    assert not refused.ok and "has not been read" in refused.error
    assert path.read_text() == "old\n"
    read.execute({"file_path": "x.txt"})
    done = write.execute({"file_path": "x.txt", "content": "new\n"})
    assert done.ok and path.read_text() == "new\n"
    assert done.metadata["undo"]["before"] == "old\n"
    assert "-old" in done.metadata["diff"] and "+new" in done.metadata["diff"]


def test_overwrite_refused_when_changed_on_disk(tools, workspace):
    read, write = tools
    path = Path(workspace) / "x.txt"
    path.write_text("v1\n")
    read.execute({"file_path": "x.txt"})
    path.write_text("v2 by someone else\n")
    refused = write.execute({"file_path": "x.txt", "content": "mine\n"})
    assert not refused.ok and "modified on disk" in refused.error
    assert path.read_text() == "v2 by someone else\n"


def test_touch_without_change_is_not_stale(tools, workspace):
    read, write = tools
    path = Path(workspace) / "x.txt"
    path.write_text("same\n")
    read.execute({"file_path": "x.txt"})
    later = time.time() + 5
    os.utime(path, (later, later))
    assert write.execute({"file_path": "x.txt", "content": "new\n"}).ok


def test_consecutive_writes_need_no_reread(tools, workspace):
    _, write = tools
    assert write.execute({"file_path": "f.txt", "content": "1\n"}).ok
    assert write.execute({"file_path": "f.txt", "content": "2\n"}).ok
    assert (Path(workspace) / "f.txt").read_text() == "2\n"


def test_keeps_mode_of_existing_file(tools, workspace):
    read, write = tools
    path = Path(workspace) / "run.sh"
    path.write_text("#!/bin/sh\necho hi\n")
    path.chmod(0o750)
    read.execute({"file_path": "run.sh"})
    write.execute({"file_path": "run.sh", "content": "#!/bin/sh\necho bye\n"})
    assert stat.S_IMODE(path.stat().st_mode) == 0o750


def test_keeps_crlf_bom_and_encoding_of_existing_file(tools, workspace):
    read, write = tools
    path = Path(workspace) / "win.txt"
    path.write_bytes("\ufeffone\r\ntwo\r\n".encode("utf-8"))
    read.execute({"file_path": "win.txt"})
    write.execute({"file_path": "win.txt", "content": "uno\ndos\ntres\n"})
    assert path.read_bytes() == b"\xef\xbb\xbfuno\r\ndos\r\ntres\r\n"


def test_unencodable_content_is_refused(tools, workspace):
    read, write = tools
    path = Path(workspace) / "legacy.txt"
    path.write_bytes("café\n".encode("cp1252"))
    read.execute({"file_path": "legacy.txt"})
    result = write.execute({"file_path": "legacy.txt", "content": "snow ☃\n"})
    assert not result.ok and "cannot represent" in result.error
    assert path.read_bytes() == "café\n".encode("cp1252")


def test_atomic_write_leaves_no_temp_files_and_follows_symlinks(tools, workspace):
    read, write = tools
    real = Path(workspace) / "real.txt"
    real.write_text("a\n")
    os.symlink(real, Path(workspace) / "link.txt")
    read.execute({"file_path": "link.txt"})
    assert write.execute({"file_path": "link.txt", "content": "b\n"}).ok
    assert real.read_text() == "b\n"
    assert (Path(workspace) / "link.txt").is_symlink()
    assert sorted(p.name for p in Path(workspace).iterdir()) == ["link.txt", "real.txt"]


def test_dry_run_has_diff_and_no_side_effect(tools, workspace):
    read, write = tools
    path = Path(workspace) / "x.txt"
    path.write_text("a\nb\n")
    read.execute({"file_path": "x.txt"})
    preview = write.dry_run({"file_path": "x.txt", "content": "a\nc\n"})
    assert preview is not None and preview.ok
    assert "-b" in preview.output and "+c" in preview.output
    assert preview.display == "Would overwrite x.txt (+1 -1)"
    assert path.read_text() == "a\nb\n"
    new = write.dry_run({"file_path": "new/y.txt", "content": "z\n"})
    assert new.display.startswith("Would create new/y.txt")
    assert not (Path(workspace) / "new").exists()


def test_directory_and_binary_targets_are_refused(tools, workspace):
    _, write = tools
    (Path(workspace) / "d").mkdir()
    assert "directory" in write.execute({"file_path": "d", "content": "x"}).error
    (Path(workspace) / "b.bin").write_bytes(b"\x00\x01binary")
    assert "binary" in write.execute({"file_path": "b.bin", "content": "x"}).error


def test_unchanged_content_writes_nothing(tools, workspace):
    read, write = tools
    path = Path(workspace) / "x.txt"
    path.write_text("same\n")
    read.execute({"file_path": "x.txt"})
    before = path.stat().st_mtime_ns
    result = write.execute({"file_path": "x.txt", "content": "same\n"})
    assert result.ok and "nothing was written" in result.output
    assert path.stat().st_mtime_ns == before


def test_missing_argument_is_a_validation_error(tools):
    _, write = tools
    result = write.execute({"file_path": "x.txt"})
    assert not result.ok and "content: required field is missing" in result.error


def test_os_errors_come_back_as_messages(tools, workspace):
    _, write = tools
    (Path(workspace) / "plain.txt").write_text("x")
    result = write.execute({"file_path": "plain.txt/child.txt", "content": "y"})
    assert not result.ok and result.error.startswith("Cannot write plain.txt/child.txt")


def test_added_and_removed_count_lines_starting_with_dashes_and_pluses(tools, workspace):
    read, write = tools
    (Path(workspace) / "q.sql").write_text("-- comment\n--- yaml\nselect 1;\n")
    read.execute({"file_path": "q.sql"})
    result = write.execute({"file_path": "q.sql", "content": "select 1;\n++i;\n+++x\n"})
    assert result.ok, result.error
    assert (result.metadata["added"], result.metadata["removed"]) == (2, 2)
    assert result.output.endswith("+2 -2).")


def test_counts_come_from_the_whole_diff_even_when_the_kept_diff_is_cut(tools, workspace):
    from cairn.tools.file_ops.diffing import MAX_DIFF_CHARS

    read, write = tools
    n = MAX_DIFF_CHARS // 20
    (Path(workspace) / "big.txt").write_text("".join(f"old line number {i}\n" for i in range(n)))
    read.execute({"file_path": "big.txt"})
    result = write.execute({"file_path": "big.txt", "content": "".join(f"new {i}\n" for i in range(n))})
    assert result.ok, result.error
    assert len(result.metadata["diff"]) <= MAX_DIFF_CHARS + 200
    assert (result.metadata["added"], result.metadata["removed"]) == (n, n)


def test_diff_stats_skips_only_the_file_header():
    from cairn.tools.file_ops.diffing import diff_stats, unified_diff

    diff = unified_diff("-- comment\nselect 1;\n", "select 1;\n++i;\n", "q.sql")
    assert diff_stats(diff) == (1, 1)


def test_read_only_file_is_refused_not_replaced(tools, workspace):
    read, write = tools
    path = Path(workspace) / "locked.txt"
    path.write_text("keep\n")
    path.chmod(0o444)
    read.execute({"file_path": "locked.txt"})
    result = write.execute({"file_path": "locked.txt", "content": "changed\n"})
    assert not result.ok and "read-only" in result.error
    assert path.read_text() == "keep\n" and stat.S_IMODE(path.stat().st_mode) == 0o444


def test_name_of_255_characters_can_be_written(tools, workspace):
    read, write = tools
    name = "n" * 251 + ".txt"
    (Path(workspace) / name).write_text("a\n")
    read.execute({"file_path": name})
    result = write.execute({"file_path": name, "content": "b\n"})
    assert result.ok, result.error
    assert (Path(workspace) / name).read_text() == "b\n"
    assert [p.name for p in Path(workspace).iterdir()] == [name]


def test_hard_linked_file_gets_its_own_copy_and_the_output_says_so(tools, workspace):
    """Writing in place would change every link, e.g. a pnpm or uv store shared by other projects."""
    read, write = tools
    path, other = Path(workspace) / "a.txt", Path(workspace) / "b.txt"
    path.write_text("old\n")
    os.link(path, other)
    read.execute({"file_path": "a.txt"})
    result = write.execute({"file_path": "a.txt", "content": "new\n"})
    assert result.ok, result.error
    assert path.read_text() == "new\n" and other.read_text() == "old\n"
    assert "hard links" in result.output and "keep the old content" in result.output
