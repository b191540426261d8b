"""cairn: a coding agent built as a LangGraph state machine.

The public API::

    from cairn import Session, RunResult, ToolCallInfo, SessionError

Subpackages: ``cairn.graph`` (the agent, Session API, models, notebook display, CLI),
``cairn.tools`` (tools and their contract), ``cairn.policy`` (risk and rules) and
``cairn.checkpoints`` (storage).  This module is the composition root: it sits above
every other module and imports lazily, so ``import cairn`` is cheap and has no side effects.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cairn.graph.core.state import ToolCallInfo
    from cairn.graph.session import RunResult, Session, SessionError

__all__ = ["RunResult", "Session", "SessionError", "ToolCallInfo", "__version__"]


def __getattr__(name: str) -> Any:
    if name in ("Session", "SessionError", "RunResult"):
        from cairn.graph import session

        if name == "Session":
            _connect_notebook_if_in_kernel()
        return getattr(session, name)
    if name == "ToolCallInfo":
        from cairn.graph.core.state import ToolCallInfo

        return ToolCallInfo
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("cairn-agent")
        except PackageNotFoundError:
            return "0+unknown"
    raise AttributeError(f"module 'cairn' has no attribute {name!r}")


def _connect_notebook_if_in_kernel() -> None:
    """Inside a Jupyter kernel, ``stream=True`` shows the run in the cell: the notebook
    package plugs its cell stream into the Session (the session layer never imports it)."""
    import sys

    if "ipykernel" in sys.modules:
        from cairn.graph.apps.notebook import connect

        connect()
