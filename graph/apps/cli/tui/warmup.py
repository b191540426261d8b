"""Loading the agent in the background while the person types the first message.

langgraph + langchain-openai take ~1.5 s to import; the prompt appears at once and a daemon
thread imports them (``input()`` releases the GIL while it waits).  The Session itself is
created only when the first message is sent, so opening and leaving cairn leaves no empty
session behind.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


class Background:
    """``fn()`` on a daemon thread; ``result()`` waits for it and re-raises its error."""

    def __init__(self, fn: Callable[[], Any], name: str = "cairn-warmup") -> None:
        self._box: dict[str, Any] = {}
        self._thread = threading.Thread(target=self._work, args=(fn,), name=name, daemon=True)
        self._thread.start()

    def _work(self, fn: Callable[[], Any]) -> None:
        try:
            self._box["value"] = fn()
        except BaseException as exc:
            self._box["error"] = exc

    def done(self) -> bool:
        return not self._thread.is_alive()

    def result(self) -> Any:
        self._thread.join()
        if "error" in self._box:
            raise self._box["error"]
        return self._box.get("value")


def warm_imports(spec: str) -> None:
    """Import what the first run needs: the graph, the tools, the policy and the model client
    (with the collector paused meanwhile: graph/apps/cli/startup.py)."""
    from cairn.graph.apps.cli.startup import quiet_gc

    with quiet_gc():
        import cairn.graph.session.session  # langgraph, langchain-core, checkpoints
        from cairn import policy  # noqa: F401
        from cairn.tools import builtin_tool_classes

        builtin_tool_classes()
        from cairn.tools.shell.sandbox import detect_backend

        detect_backend()  # the probe (one bwrap run), cached for the session's first command
        if spec.startswith("script:"):
            import cairn.graph.models.scripted  # noqa: F401
        else:
            import langchain_openai  # noqa: F401
