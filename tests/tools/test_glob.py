"""glob: patterns, newest-first order, ignore rules (checked against git itself), both backends."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from cairn.tools.file_ops import glob as glob_module
from cairn.tools.file_ops import ripgrep
from cairn.tools.file_ops.glob import GlobTool
from cairn.tools.file_ops.globs import compile_glob, literal_prefix, path_filter
from cairn.tools.file_ops.ignore import default_excluded
from cairn.tools.services import ToolServices
from cairn.tools.workspace import Workspace
from tests.tools.gen_tree import build_tree


@pytest.fixture
def glob(workspace):
    ws = Workspace(workspace)
    return GlobTool(ws, ToolServices(ws))


def make(root, *rels, mtime=None):
    for i, rel in enumerate(rels):
        path = Path(root) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x" * (i + 1))
        if mtime is not None:
            os.utime(path, (mtime + i, mtime + i))


def paths(result) -> list[str]:
    return [line.rsplit("  (", 1)[0] for line in result.output.splitlines()[1:]]


def test_recursive_pattern_newest_first_with_sizes(glob, workspace, backend):
    make(workspace, "old.py", "src/mid.py", "src/deep/new.py", "notes.md", mtime=1_700_000_000)
    result = glob.execute({"pattern": "**/*.py"})
    assert result.ok, result.error
    assert result.output.splitlines() == [
        "Found 3 files matching '**/*.py' in the workspace root, newest first:",
        "src/deep/new.py  (3 B)",
        "src/mid.py  (2 B)",
        "old.py  (1 B)",
    ]
    assert result.metadata["backend"] == backend


def test_many_files_with_equal_times_come_newest_first_then_by_path(glob, workspace, backend):
    """More files than one stat batch (listing.STAT_BATCH), most sharing one mtime."""
    from cairn.tools.file_ops import listing

    rels = [f"d{i % 7}/f{i:04}.py" for i in range(3 * listing.STAT_BATCH + 17)]
    make(workspace, *rels)
    for rel in rels:
        os.utime(Path(workspace, rel), (1_700_000_000, 1_700_000_000))
    os.utime(Path(workspace, rels[5]), (1_700_000_100, 1_700_000_100))
    result = glob.execute({"pattern": "**/*.py"})
    assert result.metadata["count"] == len(rels)
    shown = [p for p in paths(result) if not p.startswith("[...")]
    assert shown[0] == rels[5]
    rest = shown[1:]
    assert rest == sorted(rest) and len(set(shown)) == len(shown)


def test_the_deeper_matches_hint_counts_every_file_across_stat_batches(glob, workspace, backend):
    from cairn.tools.file_ops import listing

    n = 3 * listing.STAT_BATCH + 5
    make(workspace, *(f"sub{i % 3}/m{i}.py" for i in range(n)))
    result = glob.execute({"pattern": "*.py"})
    assert result.metadata["count"] == 0
    assert f"subdirectories ({n:,} files)" in result.output


@pytest.mark.parametrize("read_bytes", [3, 7, 11, 64])
def test_names_split_across_reads_of_rgs_output(glob, workspace, monkeypatch, read_bytes):
    """The .gitignore files rg lists for the fast prefilter never come back as matches, even when
    a read of rg's output ends in the middle of their name."""
    from cairn.tools.file_ops import listing

    if ripgrep.rg_path() is None:
        pytest.skip("needs the rg binary (the pure-Python walk reads no rg output)")
    monkeypatch.setattr(listing, "READ_BYTES", read_bytes)
    make(workspace, "a/one.py", "a/b/two.py", "c/three.py", "notes.md")
    Path(workspace, "a", ".gitignore").write_text("*.log\n")
    Path(workspace, "a", "b", ".gitignore").write_text("*.tmp\n")
    result = glob.execute({"pattern": "**/*.py"})
    assert result.metadata["prefilter"] == "glob"
    assert sorted(paths(result)) == ["a/b/two.py", "a/one.py", "c/three.py"]


def test_a_cancelled_glob_says_so(glob, workspace, backend):
    from cairn.tools.base import ToolContext

    make(workspace, *(f"f{i}.py" for i in range(50)))
    ctx = ToolContext()
    ctx.cancel.set()
    result = glob.execute({"pattern": "**/*.py"}, ctx)
    if backend == "ripgrep":
        assert not result.ok and "cancelled" in result.error
    else:  # the Python walk is quick and does not poll
        assert result.ok


def test_star_stays_in_one_directory_with_hint(glob, workspace, backend):
    make(workspace, "top.md", "docs/inner.md")
    assert paths(glob.execute({"pattern": "*.md"})) == ["top.md"]
    make(workspace, "src/a.py")
    none = glob.execute({"pattern": "*.py"})
    assert none.output.startswith("No files match '*.py'") and "'**/*.py' would also match" in none.output


def test_patterns_braces_classes_prefix_and_path(glob, workspace, backend):
    make(workspace, "src/a.ts", "src/b.tsx", "src/c.js", "src/x/d1.ts", "src/x/d2.ts", "lib/e.ts")
    assert sorted(paths(glob.execute({"pattern": "src/**/*.{ts,tsx}"}))) == [
        "src/a.ts", "src/b.tsx", "src/x/d1.ts", "src/x/d2.ts",
    ]  # fmt: skip
    assert sorted(paths(glob.execute({"pattern": "**/d?.ts"}))) == ["src/x/d1.ts", "src/x/d2.ts"]
    assert sorted(paths(glob.execute({"pattern": "**/d[!1].ts"}))) == ["src/x/d2.ts"]
    assert sorted(paths(glob.execute({"pattern": "*.ts", "path": "src"}))) == ["src/a.ts"]
    assert sorted(paths(glob.execute({"pattern": "./x/*", "path": "src"}))) == ["src/x/d1.ts", "src/x/d2.ts"]
    assert paths(glob.execute({"pattern": "lib/**"})) == ["lib/e.ts"]


def test_absolute_pattern_and_outside_paths(glob, workspace, tmp_path, backend):
    other = tmp_path / "other"
    make(other, "o.txt", "sub/p.txt")
    result = glob.execute({"pattern": f"{other}/**/*.txt"})
    assert sorted(paths(result)) == [str(other / "o.txt"), str(other / "sub/p.txt")]


def test_literal_path(glob, workspace, backend):
    make(workspace, "src/a.py")
    assert glob.execute({"pattern": "src/a.py"}).output.splitlines()[1] == "src/a.py  (1 B)"
    assert "does not exist" in glob.execute({"pattern": "src/zz.py"}).output
    assert "is a directory" in glob.execute({"pattern": "src"}).output


def test_ignored_files_skipped_unless_asked(glob, workspace, backend):
    make(workspace, ".gitignore", "a.py", "gen/g.py", "node_modules/n.py", "build/b.py", "x.pyc", ".git/h.py")
    (Path(workspace) / ".gitignore").write_text("gen/\n")
    assert sorted(paths(glob.execute({"pattern": "**/*"}))) == [".gitignore", "a.py"]
    everything = sorted(paths(glob.execute({"pattern": "**/*", "include_ignored": True})))
    assert everything == [".gitignore", "a.py", "build/b.py", "gen/g.py", "node_modules/n.py", "x.pyc"]


def test_result_cap_with_note(glob, workspace, backend, monkeypatch):
    monkeypatch.setattr(glob_module, "MAX_RESULTS", 20)
    make(workspace, *(f"f{i:03}.txt" for i in range(30)))
    result = glob.execute({"pattern": "*.txt"})
    assert result.output.splitlines()[0].endswith("(showing the first 20):")
    assert len(result.output.splitlines()) == 21 and result.metadata == {**result.metadata, "count": 30}


def test_missing_directory_and_file_as_path(glob, workspace, backend):
    make(workspace, "f.txt")
    assert "does not exist" in glob.execute({"pattern": "nope/**/*.py"}).output
    assert "is a file" in glob.execute({"pattern": "*.py", "path": "f.txt"}).error


def _git_visible_files(root: Path) -> list[str]:
    """What git itself considers not ignored (tracked or untracked), minus cairn's default excludes
    and symlinks (which glob, like ripgrep, does not list)."""
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root)}
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root, check=True, capture_output=True, env=env,
    ).stdout  # fmt: skip
    visible = []
    for rel in filter(None, out.decode().split("\0")):
        parts = rel.split("/")
        if any(default_excluded(p, i < len(parts) - 1) for i, p in enumerate(parts)):
            continue
        if (root / rel).is_symlink():
            continue
        visible.append(rel)
    return sorted(visible)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed (used as the oracle)")
@pytest.mark.parametrize("seed", [1, 2])
def test_gitignore_semantics_match_git_itself(tmp_path, backend, seed):
    root = tmp_path / "tree"
    build_tree(root, seed)
    ws = Workspace(root)
    result = GlobTool(ws, ToolServices(ws)).execute({"pattern": "**/*"})
    ours = sorted(paths(result))
    git = _git_visible_files(root)
    assert ours == git
    assert len(ours) > 30


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fallback_matches_ripgrep_on_generated_tree(tmp_path, monkeypatch, seed):
    root = tmp_path / "tree"
    build_tree(root, seed)
    ws = Workspace(root)
    tool = GlobTool(ws, ToolServices(ws))
    for args in [
        {"pattern": "**/*"},
        {"pattern": "**/*.py"},
        {"pattern": "**/*.{txt,md}"},
        {"pattern": "*.log"},
        {"pattern": "src/**/*"},
        {"pattern": "**/cache/*"},
        {"pattern": "*", "path": "data"},
        {"pattern": "**/*", "path": "src/pkg"},
        {"pattern": "**/*", "include_ignored": True},
    ]:
        monkeypatch.delenv("CAIRN_NO_RIPGREP", raising=False)
        with_rg = tool.execute(args)
        monkeypatch.setenv("CAIRN_NO_RIPGREP", "1")
        fallback = tool.execute(args)
        assert with_rg.metadata["backend"] == "ripgrep" and fallback.metadata["backend"] == "python"
        assert sorted(paths(fallback)) == sorted(paths(with_rg)), args


# -- the glob compiler ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "yes", "no"),
    [
        ("*.py", ["a.py", ".hidden.py"], ["src/a.py", "a.pyc"]),
        ("**/*.py", ["a.py", "x/y/a.py"], ["a.pyc"]),
        ("src/**", ["src/a", "src/x/y"], ["src", "other/a"]),
        ("a/**/b", ["a/b", "a/x/b", "a/x/y/b"], ["a/xb", "ab"]),
        ("*.{js,ts}", ["a.js", "b.ts"], ["c.tsx"]),
        ("f?.txt", ["f1.txt"], ["f10.txt", "f/.txt"]),
        ("[a-c]*", ["apple", "cat"], ["dog"]),
        ("[!a]*", ["bob"], ["alice"]),
        ("lit\\*", ["lit*"], ["literal"]),
        ("a**b", ["ab", "axxb"], ["a/b"]),
    ],
)
def test_compile_glob(pattern, yes, no):
    rx = compile_glob(pattern)
    assert all(rx.fullmatch(p) for p in yes), [p for p in yes if not rx.fullmatch(p)]
    assert not any(rx.fullmatch(p) for p in no), [p for p in no if rx.fullmatch(p)]


def test_path_filter_and_literal_prefix():
    accept = path_filter("*.py,docs/*.md")
    assert accept("deep/x.py") and accept("docs/a.md") and not accept("x/docs/a.md")
    assert literal_prefix("src/app/**/*.ts") == ("src/app", "**/*.ts")
    assert literal_prefix("/abs/dir/*.py") == ("/abs/dir", "*.py")
    assert literal_prefix("plain/file.txt") == ("plain/file.txt", "")


# -- rg's fast -g pre-filter must never bring back ignored files ------------------------------------


def test_fast_name_prefilter_is_used_only_when_it_cannot_leak(glob, workspace):
    assert ripgrep.rg_path() is not None
    make(workspace, "a.py", "logs/x.log", "gen_x.py", "sub/gen_y.py", "odd.py/inner.py", "keep.txt")
    root = Path(workspace)
    (root / ".gitignore").write_text("*.log\n")
    safe = glob.execute({"pattern": "**/*.py"})
    assert safe.metadata["prefilter"] == "glob"
    assert sorted(paths(safe)) == ["a.py", "gen_x.py", "odd.py/inner.py", "sub/gen_y.py"]
    # A pattern that can hide .py files forces the (slower) type filter, which honours it.
    (root / "sub/.gitignore").write_text("gen_*.py\n")
    (root / ".gitignore").write_text("*.log\nodd.py/\n")
    leaky = glob.execute({"pattern": "**/*.py"})
    assert leaky.metadata["prefilter"] == "type"
    assert sorted(paths(leaky)) == ["a.py", "gen_x.py"]
    assert paths(glob.execute({"pattern": "**/*.log"})) == []


@pytest.mark.parametrize(
    ("ignore", "name", "overlap"),
    [
        ("*.log", "*.py", False),
        ("*.pyc", "*.py", False),
        ("gen_*.py", "*.py", True),
        ("artifacts", "*.py", False),
        ("x.py", "*.py", True),
        ("*", "*.py", True),
        ("**", "*.json", True),
        ("test_*", "*.py", True),
        ("test_*", "conf*.py", False),
        ("*.bak", "*.{ts,tsx}", False),
        ("*.tsx", "*.{ts,tsx}", True),
        ("[ab].py", "*.py", True),
        ("notes.md", "*.{md,txt}", True),
    ],
)
def test_name_prefilter_overlap(ignore, name, overlap):
    from cairn.tools.file_ops.ignore import IgnoreFile
    from cairn.tools.file_ops.name_prefilter import may_reinclude

    rules = [IgnoreFile([ignore, "!" + name], dir_rel="", source="t")]
    assert may_reinclude(rules, name) is overlap
