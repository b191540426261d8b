"""gitignore tool (add/check) and the gitignore rule engine shared by ls/glob/grep."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.tools.file_ops.gitignore import GitignoreTool
from cairn.tools.file_ops.ignore import IgnoreFile, is_ignored, parse_line, rebase_line
from cairn.tools.file_ops.read_file import ReadFileTool
from cairn.tools.file_ops.write_file import WriteFileTool
from cairn.tools.services import ToolServices
from cairn.tools.workspace import Workspace


@pytest.fixture
def tool(workspace):
    ws = Workspace(workspace)
    return GitignoreTool(ws, ToolServices(ws))


def test_add_creates_file_and_is_idempotent(tool, workspace):
    gi = Path(workspace) / ".gitignore"
    first = tool.execute({"action": "add", "patterns": ["*.log", "build/", "*.log"]})
    assert first.ok and gi.read_text() == "*.log\nbuild/\n"
    assert first.metadata["undo"] == {"path": str(gi), "before": None}
    again = tool.execute({"action": "add", "patterns": ["build/", " *.log "]})
    assert again.ok and "Nothing to add" in again.output and gi.read_text() == "*.log\nbuild/\n"
    more = tool.execute({"action": "add", "patterns": ["dist/", "*.log"]})
    assert gi.read_text() == "*.log\nbuild/\ndist/\n"
    assert "Already present: *.log" in more.output and more.metadata["undo"]["before"] == "*.log\nbuild/\n"


def test_add_keeps_existing_text_line_endings_and_missing_final_newline(tool, workspace):
    gi = Path(workspace) / ".gitignore"
    gi.write_bytes(b"# mine\r\nnode_modules/")
    tool.execute({"action": "add", "patterns": ["*.tmp"]})
    assert gi.read_bytes() == b"# mine\r\nnode_modules/\r\n*.tmp\r\n"


def test_add_into_subdirectory_and_dry_run(tool, workspace):
    (Path(workspace) / "pkg").mkdir()
    preview = tool.dry_run({"action": "add", "patterns": ["gen/"], "path": "pkg"})
    assert preview.ok and "+gen/" in preview.output and not (Path(workspace) / "pkg/.gitignore").exists()
    assert tool.execute({"action": "add", "patterns": ["gen/"], "path": "pkg"}).ok
    assert (Path(workspace) / "pkg/.gitignore").read_text() == "gen/\n"
    assert tool.dry_run({"action": "check", "path": "x"}) is None


def test_add_errors(tool, workspace):
    assert "at least one pattern" in tool.execute({"action": "add", "patterns": []}).error
    assert "single line" in tool.execute({"action": "add", "patterns": ["a\nb"]}).error
    assert "not a directory" in tool.execute({"action": "add", "patterns": ["a"], "path": "nope"}).error


def test_file_added_to_is_known_read_for_later_edits(tool, workspace):
    ws = Workspace(workspace)
    write = WriteFileTool(ws, tool.services)
    tool.execute({"action": "add", "patterns": ["*.log"]})
    assert write.execute({"file_path": ".gitignore", "content": "*.tmp\n"}).ok
    # and a .gitignore changed behind our back is still appended to safely (no stale clobbering)
    (Path(workspace) / ".gitignore").write_text("*.tmp\nmine/\n")
    tool.execute({"action": "add", "patterns": ["x/"]})
    assert (Path(workspace) / ".gitignore").read_text() == "*.tmp\nmine/\nx/\n"
    assert ReadFileTool(ws, tool.services).execute({"file_path": ".gitignore"}).ok


def test_check_names_the_deciding_rule(tool, workspace):
    root = Path(workspace)
    (root / ".gitignore").write_text("# logs\n*.log\n!keep.log\nbuild-out/\n")
    (root / "sub").mkdir()
    (root / "sub/.gitignore").write_text("local.txt\n")

    def check(path):
        result = tool.execute({"action": "check", "path": path})
        assert result.ok, result.error
        return result

    assert check("debug.log").output == "debug.log: ignored: matched by `*.log` (.gitignore:2)."
    kept = check("sub/keep.log")
    assert kept.output == "sub/keep.log: not ignored: re-included by `!keep.log` (.gitignore:3)."
    assert kept.metadata["rule"] == {
        "ignored": False, "source": str(root / ".gitignore"), "line": 3, "pattern": "!keep.log",
    }  # fmt: skip
    assert "matched by `local.txt` (sub/.gitignore:1)" in check("sub/local.txt").output
    assert "its directory build-out/ is matched by `build-out/`" in check("build-out/x/y.c").output
    assert "default excludes" in check("node_modules/pkg/index.js").output
    assert "default excludes" in check("mod.pyc").output
    assert check("src/main.py").output == "src/main.py: not ignored: no .gitignore rule matches it."
    assert "needs `path`" in tool.execute({"action": "check"}).error


def test_check_uses_repository_root_above_workspace(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".gitignore").write_text("*.secret\n")
    (repo / "ws").mkdir()
    ws = Workspace(repo / "ws")
    result = GitignoreTool(ws, ToolServices(ws)).execute({"action": "check", "path": "a.secret"})
    assert result.output == "a.secret: ignored: matched by `*.secret` (.gitignore:1)."


# -- rule engine -----------------------------------------------------------------------------------


def rules(text: str, dir_rel: str = "") -> tuple[IgnoreFile, ...]:
    return (IgnoreFile(text.splitlines(), dir_rel=dir_rel, source="t"),)


@pytest.mark.parametrize(
    ("text", "path", "is_dir", "ignored"),
    [
        ("*.log", "a/b/x.log", False, True),
        ("/top.txt", "top.txt", False, True),
        ("/top.txt", "a/top.txt", False, False),
        ("a/b", "a/b", False, True),
        ("a/b", "x/a/b", False, False),
        ("build/", "build", True, True),
        ("build/", "build", False, False),  # dir-only pattern, a file named build
        ("**/cache/", "x/y/cache", True, True),
        ("a/**/z", "a/z", False, True),
        ("a/**/z", "a/b/c/z", False, True),
        ("foo/**", "foo", True, False),  # contents, not the directory itself
        ("foo/**", "foo/x", False, True),
        ("*\n!*/\n!*.txt", "sub", True, False),  # where pathspec's GitIgnoreSpec says "ignored"
        ("*\n!*/\n!*.txt", "sub/b.py", False, True),
        ("*\n!*/\n!*.txt", "sub/b.txt", False, False),
        ("\\#hash", "#hash", False, True),
        ("# comment", "# comment", False, False),
        ("\\!bang", "!bang", False, True),
        ("trail   ", "trail", False, True),
        ("trail\\ ", "trail ", False, True),
        ("f[0-9].txt", "f7.txt", False, True),
        ("f[!0-9].txt", "f7.txt", False, False),
        ("a?c", "abc", False, True),
        ("a?c", "a/c", False, False),
    ],
)
def test_rule_semantics(text, path, is_dir, ignored):
    assert is_ignored(rules(text), path, is_dir) is ignored


def test_deeper_files_win_and_only_cover_their_directory():
    stack = (*rules("*.txt"), *rules("!keep.txt", "sub"))
    assert is_ignored(stack, "sub/keep.txt", False) is False
    assert is_ignored(stack, "other/keep.txt", False) is True
    assert parse_line("", 1) is None and parse_line("/", 1) is None


@pytest.mark.parametrize(
    ("line", "dir_rel", "expected"),
    [
        ("*.log", "src", "/src/**/*.log"),
        ("/only", "src", "/src/only"),
        ("a/b/", "src", "/src/a/b/"),
        ("!keep.log", "src/x", "!/src/x/**/keep.log"),
        ("**/gen", "src", "/src/**/gen"),
        ("*.log", "", "*.log"),
        ("# c", "src", None),
    ],
)
def test_rebase_line_keeps_meaning_relative_to_the_base(line, dir_rel, expected):
    assert rebase_line(line, dir_rel) == expected
    if expected:
        original = rules(line, dir_rel)
        rebased = rules(expected)
        for path in ("src/a.log", "src/x/y/keep.log", "src/only", "src/x/only", "src/a/b", "src/q/gen"):
            for is_dir in (False, True):
                assert is_ignored(original, path, is_dir) == is_ignored(rebased, path, is_dir), (path, is_dir)


def test_add_display_names_the_file(tool, workspace):
    result = tool.execute({"action": "add", "patterns": ["*.log"]})
    assert result.display == "Added 1 pattern to .gitignore"
    again = tool.execute({"action": "add", "patterns": ["*.log", "*.tmp"]})
    assert again.display == "Added 1 pattern to .gitignore (already present: *.log)"


def test_add_refuses_a_directory_outside_the_workspace(tool, workspace, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    result = tool.execute({"action": "add", "patterns": ["*"], "path": str(outside)})
    assert not result.ok
    assert "outside the workspace" in result.error and str(outside) in result.error
    assert not (outside / ".gitignore").exists()
    link = Path(workspace) / "escape"
    link.symlink_to(outside)
    assert not tool.execute({"action": "add", "patterns": ["*"], "path": "escape"}).ok
    assert not (outside / ".gitignore").exists()
    dry = tool.dry_run({"action": "add", "patterns": ["*"], "path": str(outside)})
    assert dry is not None and not dry.ok
