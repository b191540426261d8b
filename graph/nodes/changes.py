"""A node's update, less the values it would write unchanged.

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


def writing_changes_only(node: Callable[..., Any]) -> Callable[..., Any]:
    """``node`` returning only what it changes (same signature, so LangGraph still passes ``runtime``)."""

    @functools.wraps(node)
    def run(state: Any, *args: Any, **kwargs: Any) -> Any:
        return changes_only(state, node(state, *args, **kwargs))

    return run
