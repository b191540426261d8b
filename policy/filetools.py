"""Assessing the file tools (read_file, ls, glob, grep, edit_file, write_file) by their path.

One lane for every tool (issue 26): a write tool that runs without a person approving that
very call runs under the verdict's ``workspace-write`` profile, like a shell command, so it
cannot write outside the workspace (a rule or accept-edits that would allow it then asks; bypass
mode refuses it) nor to a protected path (refused in every mode).  :func:`bind_to_lane` applies
that to a verdict, and :func:`lane_refusal` checks it again just before the tool runs (the path
may have become a symlink since it was judged).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cairn.policy.decide import Assessment
from cairn.policy.levels import Decision, RiskLevel, Verdict
from cairn.policy.paths import (
    PathInfo,
    device_reason,
    hard_link_reason,
    home_dir,
    protected_reason,
    resolve_path,
    sensitive_read_reason,
    sensitive_write_reason,
)
from cairn.policy.table import EDIT_TOOLS, PATH_ARG
from cairn.tools.workspace import Workspace

__all__ = ["assess_file_tool", "bind_to_lane", "file_path_of", "lane_refusal"]

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
            reason = f"{name} writes outside the workspace: {info.path}{via}"
            return Assessment(RiskLevel.HIGH, reason, extra={"lane": "outside the workspace"}), info
        sensitive = sensitive_write_reason(info, workspace)
        if sensitive:
            reason = f"{name} changes {shown}: {sensitive}"
            return Assessment(RiskLevel.MEDIUM, reason, extra={"lane": "a protected path"}), info
        return Assessment(RiskLevel.MEDIUM, f"{name} changes {shown}", auto_edit=True), info
    secret = sensitive_read_reason(info)
    if secret:
        reason = f"{name} reads {info.path}: {secret}{via}"
        return Assessment(RiskLevel.HIGH, reason, read_only=True, credential=True), info
    if not info.inside:
        lane = {"lane": "a location the sandbox hides"} if hidden_by_sandbox(info.path) else {}
        return Assessment(
            RiskLevel.MEDIUM,
            f"{name} reads outside the workspace: {info.path}{via}",
            read_only=True,
            extra=lane,
        ), info
    return Assessment(RiskLevel.LOW, f"{name} reads {shown} inside the workspace", read_only=True), info


def bind_to_lane(name: str, verdict: Verdict, assessment: Assessment, mode: str) -> Verdict:
    """``verdict`` for a write tool, bound by the ``workspace-write`` lane it would run in unattended.

    A read the sandbox would hide (``~/.bash_history``, HOME outside its allowlist) asks in
    bypass mode instead of running unattended (other modes ask for reads outside the workspace
    anyway, and an allow rule a person wrote for it stands).

    A write outside the workspace, or to a path the sandbox protects (``.envrc``, ``AGENTS.md``,
    IDE and agent settings), that a rule, a session "always" rule or a mode allowed asks a
    person instead; in bypass mode (no one is asked) it is refused with a message that says why.
    """
    where = assessment.extra.get("lane")
    if verdict.decision != Decision.ALLOW or not where:
        return verdict
    if name not in EDIT_TOOLS:  # a read the sandbox would hide: bypass mode asks for it
        if mode != "bypass":
            return verdict
        return Verdict(
            Decision.ASK,
            verdict.risk,
            f"{assessment.reason}: the sandbox hides {where} from commands that run without a "
            "person, so this read asks even in bypass mode",
            verdict.rule,
        )
    if mode == "bypass":
        return Verdict(
            Decision.DENY,
            RiskLevel.HIGH,
            f"{assessment.reason}: refused in bypass mode, whose writes stay in the workspace-write "
            f"sandbox (no write to {where}); switch to default mode to approve this write yourself",
            verdict.rule,
        )
    return Verdict(
        Decision.ASK,
        RiskLevel.HIGH,
        f"{assessment.reason}: the workspace-write sandbox does not write to {where}, "
        "so a person must approve this call",
        verdict.rule,
    )


def hidden_by_sandbox(path: Path) -> bool:
    """Whether a sandboxed command could not read ``path``: a secret location, or the home
    directory outside its read-only allowlist (the workspace is judged before this)."""
    from cairn.policy.sandbox_paths import hidden_paths, readable_in_home

    text = str(path)
    if any(_under(text, hidden) for hidden in hidden_paths()):
        return True
    return _under(text, str(home_dir())) and not any(_under(text, r) for r in readable_in_home())


def _under(path: str, base: str) -> bool:
    return path == base or path.startswith(base.rstrip("/") + "/")


def lane_refusal(
    name: str, args: Mapping[str, Any], workspace: Workspace, cwd: Path | None = None
) -> str | None:
    """Just before a write tool runs unattended: why it must not run now, or ``None``.

    The same checks as the verdict (protected path, device, hard link, outside the workspace),
    on the path as it resolves *now*.
    """
    if name not in EDIT_TOOLS:
        return None
    assessment, info = assess_file_tool(name, args, workspace, cwd)
    if assessment.deny:
        return assessment.deny
    if info is None:
        return None
    if assessment.fail_closed or assessment.extra.get("lane"):
        return (
            f"{name} refused: {assessment.fail_closed or assessment.reason} "
            "(checked again before writing: the workspace-write sandbox does not write there)"
        )
    return None
