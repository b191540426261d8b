"""The cairn agent: state, nodes, graph builder, Session API, CLI, models.

``from graph import Session`` is the public entry point; it is imported lazily
so ``cairn --help`` stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graph.result import RunResult
    from graph.session import Session, SessionError
    from graph.state import ToolCallInfo

__all__ = ["RunResult", "Session", "SessionError", "ToolCallInfo"]


def __getattr__(name: str) -> Any:
    if name in ("Session", "SessionError"):
        from graph import session

        return getattr(session, name)
    if name == "RunResult":
        from graph.result import RunResult

        return RunResult
    if name == "ToolCallInfo":
        from graph.state import ToolCallInfo

        return ToolCallInfo
    raise AttributeError(name)
