"""Which tools are bound to a model call: deferred loading with ``tool_search``.

With at most ``defer_threshold`` tools (default 15; not counted: tools passed as Python objects
to ``Session(tools=...)``, and tools that declare ``counted = False``: ``tool_search``, the
optional built-ins that exist only when configured (``web_search``, the skill tools,
``slash_command``) and the companions of a counted tool (``agent_status``/``agent_list``/
``agent_merge`` of ``agent``, ``task_create``/``task_list``/``task_update`` of ``todo_write``))
every tool is bound, and ``tool_search`` is not.
With more, only the core set is bound — the tools that declare ``core = True`` (``bash``,
``read_file``, ``edit_file``, ``write_file``, ``glob``, ``grep``, ``agent``, ``tool_search``,
``read_skill``), the Python tools and any ``always_load`` names — plus the tools activated in
this session (``AgentState.activated_tools``: by ``tool_search`` or by calling a deferred tool
directly).
Activations are checkpointed state: they survive a restart and a compaction, and a new session
starts without them.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    CORE_TOOLS: frozenset[str]

DEFAULT_DEFER_THRESHOLD = 15
SEARCH_TOOL = "tool_search"
MAX_LISTED = 80


@lru_cache(maxsize=1)
def core_tools() -> frozenset[str]:
    """The built-in tools that declare ``core``: bound even when the session defers tools."""
    from cairn.tools import builtin_tool_classes

    return frozenset(cls.name for cls in builtin_tool_classes() if cls.core)


def __getattr__(name: str) -> Any:
    """``CORE_TOOLS``: derived from the tools' ``core`` fact on first use."""
    if name == "CORE_TOOLS":
        return core_tools()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def deferring(ctx: Any, registry: Any) -> bool:
    counted = [t for t in registry if getattr(t, "counted", True) and t.name not in ctx.pinned_tools]
    return len(counted) > ctx.defer_threshold


def bound_tool_names(ctx: Any, mode: str, activated: Iterable[str] = ()) -> tuple[str, ...]:
    """Names of the tools to bind for ``mode``, in registry order."""
    registry = ctx.active_registry(mode)
    if not deferring(ctx, ctx.registry):
        return tuple(t.name for t in registry if t.name != SEARCH_TOOL)
    keep = ctx.pinned_tools | set(activated)
    return tuple(t.name for t in registry if getattr(t, "core", False) or t.name in keep)


def deferred_names(ctx: Any, mode: str, activated: Iterable[str] = ()) -> list[str]:
    bound = set(bound_tool_names(ctx, mode, activated))
    return [t.name for t in ctx.active_registry(mode) if t.name not in bound]


def deferred_prompt(ctx: Any, mode: str) -> str:
    """The system prompt's note on deferred tools (names only; bounded). Empty when none."""
    if not deferring(ctx, ctx.registry):
        return ""
    names = deferred_names(ctx, mode)
    if not names:
        return ""
    shown = ", ".join(names[:MAX_LISTED]) + (
        f", ... ({len(names) - MAX_LISTED} more)" if len(names) > MAX_LISTED else ""
    )
    return (
        "More tools are available but not loaded, to keep requests small. Call tool_search with what "
        f"you need (or select:NAME) to load them before use: {shown}"
    )


def activate_called(calls: list[Any], ctx: Any, mode: str, activated: list[str]) -> list[str] | None:
    """Deferred tools the model called directly get activated, with a note on the call.

    Returns the new activation list, or ``None`` when nothing changed.
    """
    if not calls or not deferring(ctx, ctx.registry):
        return None
    bound = set(bound_tool_names(ctx, mode, activated))
    added: list[str] = []
    for call in calls:
        if call.tool_name not in bound and call.tool_name not in added:
            added.append(call.tool_name)
            call.note = (
                f"{call.tool_name} was not loaded; it is now activated for the rest of this session "
                "(tool_search finds and loads other tools)."
            )
    return [*activated, *added] if added else None
