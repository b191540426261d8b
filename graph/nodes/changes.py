"""A node's step as the graph runs it: its update, less the values it would write unchanged,
and where the graph goes next.

Every key a node returns is a write: LangGraph saves it (``put_writes``), bumps the channel's
version, reads it back for the edges and lists it in the checkpoint's ``updated_channels``.
Nodes return their whole shape (``paused: None``, the same ``activated_tools``, the same
ledgers) on every step, so most of a step's writes changed nothing.  Dropping those keeps the
state each step produces identical (a channel not written keeps its value) at a fraction of
the work.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from langgraph.types import Command

_IMMUTABLE = (str, int, float, bool, type(None))


def unchanged(old: Any, new: Any) -> bool:
    """Whether writing ``new`` over ``old`` would change nothing.

    The very same mutable object is written again: the node may have changed it in place, so
    it is not dropped (its new version is what a checkpointer must save).
    """
    if isinstance(new, _IMMUTABLE):
        return type(old) is type(new) and old == new
    return old is not new and type(old) is type(new) and old == new


def changes_only(state: dict[str, Any], update: Any) -> Any:
    """``update`` without the keys whose value ``state`` already holds (other results as they are)."""
    if not isinstance(update, dict) or not update:
        return update
    return {k: v for k, v in update.items() if k not in state or not unchanged(state[k], v)}


def routed_step(node: Callable[..., Any], route: Callable[[Any], str] | None) -> Callable[..., Any]:
    """``node`` returning only what it changes and, given ``route``, where the graph goes next
    (a ``Command``), with the same signature (LangGraph still passes ``runtime``).

    ``route`` is the function a conditional edge would call; it gets the state as the edge would
    read it (every channel holds its last value: the state with the update applied).  A
    conditional edge costs LangGraph a copy of every channel after each step to compute that
    view; deciding in the node's own step writes the same ``branch:to:<node>`` channel without it.
    """

    @functools.wraps(node)
    def run(state: Any, *args: Any, **kwargs: Any) -> Any:
        update = changes_only(state, node(state, *args, **kwargs))
        if route is None or not isinstance(update, dict):
            return update
        return Command(update=update, goto=route({**state, **update}))

    return run
