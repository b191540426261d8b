"""The bash tool's side of network grants: open a lane for a command, report what it did."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

from cairn.tools.shell.sandbox.spec import SandboxSpec

if TYPE_CHECKING:
    from cairn.tools.shell.netproxy.proxy import EgressProxy, Lane

__all__ = ["lane_notes", "open_for"]


def open_for(
    spec: SandboxSpec | None, proxy: Callable[[], EgressProxy], backend: str | None
) -> tuple[SandboxSpec | None, Lane | None, list[str]]:
    """The spec to run with, the lane to close after the command, and notes for the model.

    Only bubblewrap confines a command's network to its lane (its own network namespace);
    Landlock cannot tell one host from another, so there a grant runs without network.
    """
    if spec is None or not spec.enabled or not spec.allowed_domains:
        return spec, None, []
    if backend != "bwrap":
        note = (
            f"Note: network to {', '.join(spec.allowed_domains)} was granted, but the "
            f"{backend or 'available'} sandbox cannot limit network by domain, so the command ran "
            "without network (bubblewrap can)."
        )
        return dataclasses.replace(spec, allowed_domains=()), None, [note]
    lane = proxy().open_lane(spec.allowed_domains)
    return dataclasses.replace(spec, proxy_socket=lane.socket_path), lane, []


def lane_notes(lane: Lane) -> list[str]:
    """One note per refused host: which, why, and how a person can allow it."""
    notes: list[str] = []
    seen: set[str] = set()
    for request in lane.refused():
        if request.host in seen:
            continue
        seen.add(request.host)
        notes.append(
            f"Note: the sandbox's network proxy refused {request.host}:{request.port}: {request.reason}. "
            f"A person can grant that domain at the approval prompt (w), with a rule such as "
            f"bash(COMMAND:*; domain:{request.host}), or in their settings ([sandbox] allowed_domains)."
        )
    return notes


def lane_log(lane: Lane) -> list[dict[str, object]]:
    """The lane's requests for the call's result metadata."""
    return [request.to_dict() for request in lane.log]
