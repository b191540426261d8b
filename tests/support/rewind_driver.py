"""A cairn process for the rewind kill tests: one Session action, pausing at a hook to be killed.

    python -m tests.support.rewind_driver --db DB --workspace WS --script S.json --session ID \
        --marks DIR (--send TEXT | --rewind CALL_ID) [--hook write|snapshot]

- ``write``: a rewind pauses after writing its first file (files half restored)
- ``snapshot``: the first snapshot pauses after updating the shadow index, before ``write-tree``

At the hook the process writes ``DIR/hook`` and sleeps, so the test SIGKILLs it exactly there.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any


def _pause(marks: Path) -> None:
    (marks / "hook").write_text(str(time.time()))
    time.sleep(120)


def install_hook(name: str, marks: Path) -> None:
    if name == "write":
        from cairn.checkpoints import restore

        real_write = restore._write

        def write(path: Path, data: bytes, mode: str) -> None:
            real_write(path, data, mode)
            _pause(marks)

        restore._write = write
    elif name == "snapshot":
        from cairn.checkpoints.shadow_repo import ShadowRepo

        real_git = ShadowRepo.git

        def git(self: Any, *args: str, **kwargs: Any) -> bytes:
            if args and args[0] == "write-tree":
                _pause(marks)
            return real_git(self, *args, **kwargs)

        ShadowRepo.git = git  # type: ignore[method-assign]


def main() -> None:
    parser = argparse.ArgumentParser()
    for flag in ("--db", "--workspace", "--script", "--session", "--marks"):
        parser.add_argument(flag, required=True)
    parser.add_argument("--send")
    parser.add_argument("--rewind")
    parser.add_argument("--hook")
    ns = parser.parse_args()
    from cairn import Session
    from cairn.graph.models.scripted import ScriptedChatModel

    if ns.hook:
        install_hook(ns.hook, Path(ns.marks))
    model = ScriptedChatModel.from_file(ns.script)
    session = Session(ns.workspace, model=model, db=ns.db, mode="bypass", session_id=ns.session)
    if ns.send:
        session.send(ns.send)
    if ns.rewind:
        session.rewind(ns.rewind)
    session.close()


if __name__ == "__main__":
    main()
