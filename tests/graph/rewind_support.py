"""Helpers for the rewind tests: a user's git repository, workspace fingerprints, scripted turns."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

from cairn import Session
from cairn.graph.models.scripted import ScriptedChatModel

GIT_ENV = {
    "GIT_AUTHOR_NAME": "p",
    "GIT_AUTHOR_EMAIL": "p@example.com",
    "GIT_COMMITTER_NAME": "p",
    "GIT_COMMITTER_EMAIL": "p@example.com",
}


def git(ws: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV, "GIT_OPTIONAL_LOCKS": "0"}
    return subprocess.run(["git", *args], cwd=ws, env=env, check=True, capture_output=True, text=True).stdout


def user_repo(ws: Path) -> None:
    """A git repository with one commit, a staged change and a stash: the person's own state."""
    git(ws, "init", "-q", "-b", "main")
    (ws / ".gitignore").write_text("build/\n")
    (ws / "a.txt").write_text("alpha\nbeta\n")
    (ws / "old.txt").write_text("old file\n")
    (ws / "mv_me.txt").write_text("moving\n")
    (ws / "tool.sh").write_text("#!/bin/sh\necho tool\n")
    (ws / "tool.sh").chmod(0o755)
    (ws / "secret.bin").write_bytes(bytes(range(256)) * 4)
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "initial")
    (ws / "a.txt").write_text("alpha\nbeta\nstashed\n")
    git(ws, "stash", "-q")
    (ws / "staged.txt").write_text("staged\n")
    git(ws, "add", "staged.txt")
    (ws / "build").mkdir()
    (ws / "build" / "out.o").write_bytes(b"\x00ignored")


def git_state(ws: Path) -> dict[str, str]:
    """Everything of the person's repository that snapshots and rewinds must leave alone."""
    return {
        "head": git(ws, "rev-parse", "HEAD"),
        "refs": git(ws, "for-each-ref"),
        "stash": git(ws, "stash", "list"),
        "index": (ws / ".git" / "index").read_bytes().hex(),
        "staged": git(ws, "diff", "--cached", "--name-status"),
        "status": git(ws, "status", "--porcelain", "--untracked-files=all"),
    }


def fingerprint(ws: Path) -> dict[str, tuple[str, bytes]]:
    """Every file outside .git: (kind+exec bit, bytes or link target)."""
    out: dict[str, tuple[str, bytes]] = {}
    for folder, dirs, files in os.walk(ws):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files:
            path = Path(folder) / name
            rel = str(path.relative_to(ws))
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.fsencode(os.readlink(path)))
            else:
                out[rel] = (oct(stat.S_IMODE(st.st_mode)), path.read_bytes())
    return out


def bash(command: str, cid: str) -> dict:
    return {"name": "bash", "args": {"command": command}, "id": cid}


def one_call_per_turn(calls: list[list[dict]]) -> list[dict]:
    """A script: each person turn makes the given calls, then says ok."""
    turns: list[dict] = []
    for group in calls:
        turns += [{"tool_calls": group}, {"content": "ok"}]
    return turns


def session(ws: Path, db: str, turns: list[dict], mode: str = "bypass", **kwargs) -> Session:
    return Session(ws, model=ScriptedChatModel.from_turns(turns), db=db, mode=mode, **kwargs)
