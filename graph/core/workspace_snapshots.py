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


def warm_for(call: ToolCallInfo, ctx: AgentContext) -> None:
    """Start in the background what a call about to run (or to be asked about) will wait for,
    once per session: the rewind snapshot's index before the first call that may change files,
    and a writing shell command's first ``git status`` (``cairn.tools.shell.changes``).

    Called by ``tool_routing`` once the policy has judged the call, so a session whose calls
    only read never pays for either; ``snapshot_before`` takes the snapshot in any case (waiting
    for a warm-up under way), so this only moves work earlier, never decides what is taken.
    """
    if not may_change_files(call, ctx):
        return
    if ctx.snapshots is not None and ctx.mode != "plan":
        ctx.snapshots.warm()
    tool = ctx.registry.get(call.tool_name)
    if tool is not None and tool.name == "bash" and getattr(tool, "services", None) is not None:
        tool.services.shell.changes.warm()


def snapshot_before(call: ToolCallInfo, ctx: AgentContext) -> bool:
    """Snapshot before the call's ``executing`` record; True when one was taken."""
    if ctx.snapshots is None or not may_change_files(call, ctx):
        return False
    ctx.snapshots.before(call.call_id)
    return True


def snapshot_after(call: ToolCallInfo, ctx: AgentContext) -> None:
    if ctx.snapshots is not None:
        ctx.snapshots.after(call.call_id)
