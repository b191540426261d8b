"""The kill driver, with one more place to stop at: right after a PostToolUse run is journaled.

    python -m tests.hooks.hold_driver [--hold-after-post] <kill_driver arguments>

With ``--hold-after-post`` the process writes ``MARKS/post-journaled`` once the hook journal
holds a finished PostToolUse event and then sleeps, so the test kills it before the
checkpoint of ``tool_execution`` is written.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from tests.support import kill_driver


def main(argv: list[str]) -> int:
    if "--hold-after-post" in argv:
        argv = [a for a in argv if a != "--hold-after-post"]
        from cairn.checkpoints.hook_journal import HookJournal

        original = HookJournal.record_done

        def record_done(self: Any, thread_id: str, call_id: str, event: str, *args: Any) -> None:
            original(self, thread_id, call_id, event, *args)
            if event == "PostToolUse":
                (kill_driver.MARKS / "post-journaled").write_text(str(time.time()))
                time.sleep(120)

        HookJournal.record_done = record_done  # type: ignore[method-assign]
    return kill_driver.main(argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
