"""The rewind hook of ``tool_execution``: snapshot the workspace around calls that may change it.

A call may change files unless it was judged read-only: the tool says so, the settings list
it in ``read_only_tools``, or the policy gave it LOW risk (a read-only shell command).
The snapshot itself is ``cairn.checkpoints.snapshotter``'s job.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cairn.graph.core.state import ToolCallInfo

if TYPE_CHECKING:
    from cairn.graph.core.context import AgentContext


def may_change_files(call: ToolCallInfo, ctx: AgentContext) -> bool:
    tool = ctx.registry.get(call.tool_name)
    if tool is not None and tool.read_only:
        return False
    if call.tool_name in set(getattr(ctx.rules, "read_only_tools", ()) or ()):
        return False
    return (call.risk or "").upper() != "LOW"


def snapshot_before(call: ToolCallInfo, ctx: AgentContext) -> bool:
    """Snapshot before the call's ``executing`` record; True when one was taken."""
    if ctx.snapshots is None or not may_change_files(call, ctx):
        return False
    ctx.snapshots.before(call.call_id)
    return True


def snapshot_after(call: ToolCallInfo, ctx: AgentContext) -> None:
    if ctx.snapshots is not None:
        ctx.snapshots.after(call.call_id)
