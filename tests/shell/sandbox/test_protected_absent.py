"""Item 3 of issue 26 under bubblewrap: in ``workspace-write`` the protected names cannot be
created, replaced, renamed over, hard-linked or swapped for a symlink, whether or not they exist
when the command starts; the model is told what was refused; placeholders leave nothing behind."""

from __future__ import annotations

import os
import time

import pytest

from cairn.policy.sandbox_paths import READ_ONLY_IN_WORKSPACE
from cairn.tools.shell.sandbox import placeholders
from tests.shell.sandbox.deny_default import bwrap_tools, settle, text


@pytest.fixture
def bw(area):
    yield from bwrap_tools(area)


#: Every protected name, plus git's per-worktree config and a submodule's hooks.
NAMES = (*READ_ONLY_IN_WORKSPACE, ".git/config.worktree", ".git/info/attributes")
FILES = {
    "AGENTS.md",
    "CONTEXT.md",
    ".envrc",
    ".pre-commit-config.yaml",
    ".mcp.json",
    ".git/config",
    ".git/config.worktree",
    ".git/info/attributes",
}
ROUTES = {
    "create": "printf owned > {n}",
    "mkdir": "mkdir -p {n} && printf owned > {n}/settings.json",
    "rename": "printf owned > staged.tmp && mv -f staged.tmp {n}",
    "hardlink": "printf owned > staged.tmp && ln -f staged.tmp {n}",
    "symlink": "ln -sfn staged.tmp {n}; ln -sfn /etc/passwd {n}",
    "remove": "rm -rf {n} && printf owned > {n}",
}


def _owned(path) -> bool:
    """Whether the probe's marker reached ``path`` (a file, a link, or inside a directory)."""
    if os.path.islink(path):
        return True
    if path.is_file():
        return "owned" in path.read_text(errors="replace")
    if path.is_dir():
        return any("owned" in p.read_text(errors="replace") for p in path.rglob("*") if p.is_file())
    return False


@pytest.mark.parametrize("route", ROUTES)
def test_absent_protected_names_cannot_be_made(bw, area, route):
    existing = {name for name in NAMES if os.path.lexists(area.ws / name)}  # .git/hooks, .git/config
    command = "; ".join(ROUTES[route].format(n=name) for name in NAMES)
    result = bw.run(command, "workspace-write")
    settle()
    for name in NAMES:
        path = area.ws / name
        assert not _owned(path), f"{name} via {route}: {text(result)}"
        if name not in existing and name != ".cairn":  # .cairn stays, empty (as before)
            assert not os.path.lexists(path), f"{name} left behind after {route}"
    assert "sandbox refused" in text(result)
    control = area.base / "control"
    (control / ".git").mkdir(parents=True)
    bw.run(f"cd {control} && " + ROUTES[route].format(n="AGENTS.md"), None)
    assert _owned(control / "AGENTS.md")  # the same route works without a sandbox


@pytest.mark.parametrize("route", ROUTES)
def test_present_protected_names_stay_as_they_were(bw, area, route):
    for name in NAMES:
        path = area.ws / name
        if name in FILES:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("original\n")
        else:
            path.mkdir(parents=True, exist_ok=True)
            (path / "kept.txt").write_text("original\n")
    command = "; ".join(ROUTES[route].format(n=name) for name in NAMES)
    result = bw.run(command, "workspace-write")
    for name in NAMES:
        path = area.ws / name
        assert not _owned(path), f"{name} via {route}: {text(result)}"
        kept = path if path.is_file() else path / "kept.txt"
        assert kept.read_text() == "original\n", f"{name} via {route}"


def test_git_directory_cannot_be_swapped(bw, area):
    result = bw.run(
        "mv .git .git-old; mkdir -p .git/hooks && printf owned > .git/hooks/pre-commit", "workspace-write"
    )
    assert not (area.ws / ".git-old").exists(), text(result)
    assert not (area.ws / ".git" / "hooks" / "pre-commit").exists()


def test_submodule_hooks_are_protected_even_when_missing(bw, area):
    module = area.ws / ".git" / "modules" / "lib"
    module.mkdir(parents=True)
    (module / "config").write_text("[core]\n")
    result = bw.run(
        "mkdir -p .git/modules/lib/hooks; printf owned > .git/modules/lib/hooks/post-checkout; "
        "printf owned >> .git/modules/lib/config",
        "workspace-write",
    )
    assert not (module / "hooks" / "post-checkout").exists(), text(result)
    assert (module / "config").read_text() == "[core]\n"


def test_ordinary_files_next_to_placeholders_are_writable(bw, area):
    result = bw.run(
        "printf ok > notes.md && mkdir -p src && printf ok > src/a.py && mv notes.md NOTES.md",
        "workspace-write",
    )
    assert (area.ws / "NOTES.md").read_text() == "ok" and (area.ws / "src" / "a.py").read_text() == "ok", (
        text(result)
    )


def test_a_background_task_holds_its_placeholders_until_it_ends(bw, area):
    from cairn.tools.base import RiskLevel, ToolContext

    spec = bw.spec("workspace-write")
    ctx = ToolContext(risk=RiskLevel.LOW, sandbox=spec)
    started = bw.bash.execute(
        {"command": "sleep 1; printf owned > AGENTS.md; echo finished", "run_in_background": True}, ctx
    )
    task = bw.services.shell.task(started.metadata["task_id"])
    assert (area.ws / "AGENTS.md").is_dir()  # the placeholder, while the task runs
    task.run.done.wait(20)
    settle()
    assert not os.path.lexists(area.ws / "AGENTS.md")


def test_placeholders_are_gone_as_soon_as_the_command_ends(bw, area):
    """No placeholder lingers after a command: a directory at ``.mcp.json`` or ``CONTEXT.md``
    would stand where cairn's own tools and config loading expect a file."""
    bw.run("true", "workspace-write")
    end = time.monotonic() + 5
    while any(placeholders.held().values()) and time.monotonic() < end:
        time.sleep(0.02)  # released by a watcher thread once the sandbox has exited
    assert not any(placeholders.held().values())
    for name in (".mcp.json", "AGENTS.md", "CONTEXT.md", ".envrc"):
        assert not os.path.lexists(area.ws / name), name


def test_a_killed_runs_leftover_placeholders_are_cleared_when_a_session_starts(area):
    """A cairn killed mid-command leaves its marked placeholders behind; the next session removes
    them before anything reads those names (an unmarked empty directory is a person's: kept)."""
    from cairn.graph.core.sandbox_setup import clear_placeholder_leftovers

    left = area.ws / ".mcp.json"
    left.mkdir()
    try:
        os.setxattr(left, "user.cairn.placeholder", b"1")
    except OSError:
        pytest.skip("this file system keeps no user extended attributes")
    mine = area.ws / "AGENTS.md"
    mine.mkdir()  # a person's own (unmarked) directory
    removed = clear_placeholder_leftovers(area.ws)
    assert removed == [str(left)]
    assert not os.path.lexists(left) and mine.is_dir()
