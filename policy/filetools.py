"""Assessing the file tools (read_file, ls, glob, grep, edit_file, write_file) by their path."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cairn.policy.decide import Assessment
from cairn.policy.levels import RiskLevel
from cairn.policy.paths import (
    PathInfo,
    device_reason,
    hard_link_reason,
    protected_reason,
    resolve_path,
    sensitive_read_reason,
    sensitive_write_reason,
)
from cairn.policy.table import EDIT_TOOLS, PATH_ARG
from cairn.tools.workspace import Workspace

__all__ = ["assess_file_tool", "file_path_of"]

_BAD_CHARS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def file_path_of(name: str, args: Mapping[str, Any]) -> str | None:
    """The path a file tool call touches (``None`` when it has none)."""
    key = PATH_ARG[name]
    value = args.get(key)
    if value is None and key == "file_path":
        value = args.get("path")
    if value is None and name in ("ls", "glob", "grep"):
        value = "."
    if name == "glob":
        pattern = args.get("pattern")
        if isinstance(pattern, str) and pattern:
            literal = re.split(r"[*?\[{]", pattern, maxsplit=1)[0]
            if literal.startswith(("/", "~")) or ".." in literal.split("/"):
                base = literal.rsplit("/", 1)[0] if "/" in literal else literal
                value = os.path.join(str(value or "."), base or "/")
    return value if isinstance(value, str) else None


def assess_file_tool(
    name: str, args: Mapping[str, Any], workspace: Workspace, cwd: Path | None
) -> tuple[Assessment, PathInfo | None]:
    given = file_path_of(name, args)
    writing = name in EDIT_TOOLS
    if given is None:
        raw = args.get(PATH_ARG[name])
        if raw is not None:
            return Assessment(
                RiskLevel.MEDIUM,
                f"{name}: the path argument is not a string",
                fail_closed=f"{name}: the path argument is not a string",
            ), None
        risk = RiskLevel.MEDIUM if writing else RiskLevel.LOW
        return Assessment(risk, f"{name} without a path", read_only=not writing), None
    if _BAD_CHARS.search(given):
        reason = f"{name}: the path {given!r} contains control or invisible characters"
        return Assessment(RiskLevel.HIGH, reason, fail_closed=reason), None
    info = resolve_path(given, workspace, cwd)
    shown = workspace.display(info.path)
    # written inside, really outside (workspace.contains() would resolve the link again)
    if info.path != info.lexical and not info.inside and info.lexical.is_relative_to(workspace.root):
        via = f" (through a symlink to {info.path})"
    else:
        via = ""
    if writing:
        device = device_reason(info.lexical) or device_reason(info.path)
        if device:
            return Assessment(RiskLevel.HIGH, f"{name} {given}", deny=f"{name} refused: {device}"), info
        protected = protected_reason(info, workspace)
        if protected:
            return Assessment(
                RiskLevel.HIGH, f"{name} {given}", deny=f"{name} refused: {protected}{via}"
            ), info
        linked = hard_link_reason(info)
        if linked:
            reason = f"{name} {given}: {linked}"
            return Assessment(RiskLevel.HIGH, reason, fail_closed=reason), info
        if not info.inside:
            return Assessment(RiskLevel.HIGH, f"{name} writes outside the workspace: {info.path}{via}"), info
        sensitive = sensitive_write_reason(info, workspace)
        if sensitive:
            return Assessment(RiskLevel.MEDIUM, f"{name} changes {shown}: {sensitive}"), info
        return Assessment(RiskLevel.MEDIUM, f"{name} changes {shown}", auto_edit=True), info
    secret = sensitive_read_reason(info)
    if secret:
        reason = f"{name} reads {info.path}: {secret}{via}"
        return Assessment(RiskLevel.HIGH, reason, read_only=True, credential=True), info
    if not info.inside:
        return Assessment(
            RiskLevel.MEDIUM, f"{name} reads outside the workspace: {info.path}{via}", read_only=True
        ), info
    return Assessment(RiskLevel.LOW, f"{name} reads {shown} inside the workspace", read_only=True), info
