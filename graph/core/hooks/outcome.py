"""What a hook run means: exit codes and JSON output → ``HookRun``; many runs → ``Fired``.

Claude Code's contract: exit 0 goes on (stdout is context for the model on
``UserPromptSubmit``/``SessionStart``, or JSON); exit 2 blocks with stderr as the reason;
any other code is a visible, non-blocking error.  JSON on stdout may carry ``decision``
(``block``; ``approve`` for PreToolUse), ``reason``, ``continue: false`` + ``stopReason``,
``systemMessage`` and ``hookSpecificOutput`` (``permissionDecision`` allow|deny|ask,
``permissionDecisionReason``, ``updatedInput``, ``additionalContext``; PermissionRequest's
``decision: {behavior, message}``).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from cairn.graph.core.hooks.config import HookSpec
from cairn.graph.core.hooks.runner import RawRun

#: Events whose plain stdout (exit 0, not JSON) is added to the model's context.
STDOUT_IS_CONTEXT = frozenset({"UserPromptSubmit", "SessionStart"})
_STRICTNESS = {None: 0, "allow": 1, "ask": 2, "deny": 3, "block": 3}
MAX_TEXT = 4000


@dataclass
class HookRun:
    """One hook's run and what it decided: recorded in the call's lifecycle and journaled."""

    event: str
    hook: str
    source: str
    exit_code: int | None
    duration_ms: float
    #: None (go on), "allow", "ask", "deny" (PreToolUse/PermissionRequest) or "block".
    decision: str | None = None
    reason: str | None = None
    context: str | None = None
    updated_input: dict[str, Any] | None = None
    #: A non-blocking error (other exit codes, bad JSON, timeout): shown, never blocking.
    error: str | None = None
    #: ``continue: false``: the whole run stops (with ``stop_reason`` for the person).
    stop: bool = False
    stop_reason: str | None = None
    system_message: str | None = None
    #: A decision the hook was not allowed to make (a project hook's allow), and why it was not used.
    ignored: str | None = None

    def to_record(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None and v is not False}

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> HookRun:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        known.setdefault("exit_code", None)  # a hook cut at its timeout has none
        known.setdefault("duration_ms", 0.0)
        return cls(**known)


def interpret(hook: HookSpec, raw: RawRun) -> HookRun:
    run = HookRun(hook.event, hook.label, hook.source, raw.exit_code, raw.duration_ms)
    if raw.timed_out:
        run.error = f"timed out after {hook.timeout:g}s (killed)"
        return run
    if raw.exit_code == 2:
        run.decision = "deny" if hook.event == "PreToolUse" else "block"
        run.reason = _cut(raw.stderr.strip()) or f"blocked by the {hook.event} hook {hook.label}"
        return run
    if raw.exit_code != 0:
        run.error = _cut(raw.stderr.strip() or raw.stdout.strip()) or f"exit code {raw.exit_code}"
        return run
    data = raw.returned
    text = raw.stdout.strip()
    if data is None and text.startswith("{"):
        try:
            loaded = json.loads(text)
        except ValueError as exc:
            run.error = f"stdout looks like JSON but is not: {exc}"
            return run
        data = loaded if isinstance(loaded, dict) else None
    if data is None:
        if text and hook.event in STDOUT_IS_CONTEXT:
            run.context = _cut(text)
        return run
    _apply_json(run, hook.event, data)
    return run


def _apply_json(run: HookRun, event: str, data: dict[str, Any]) -> None:
    specific = data.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    legacy = data.get("decision")
    if legacy == "block":
        run.decision = "deny" if event == "PreToolUse" else "block"
    elif legacy == "approve" and event == "PreToolUse":
        run.decision = "allow"
    if isinstance(data.get("reason"), str):
        run.reason = _cut(data["reason"])
    permission = specific.get("permissionDecision")
    if event == "PreToolUse" and permission in ("allow", "deny", "ask"):
        run.decision = permission
        reason = specific.get("permissionDecisionReason")
        run.reason = _cut(reason) if isinstance(reason, str) else run.reason
    behaviour = specific.get("decision")
    if event == "PermissionRequest" and isinstance(behaviour, dict):
        if behaviour.get("behavior") in ("allow", "deny"):
            run.decision = behaviour["behavior"]
        if isinstance(behaviour.get("message"), str):
            run.reason = _cut(behaviour["message"])
        if isinstance(behaviour.get("updatedInput"), dict):
            run.updated_input = behaviour["updatedInput"]
    if isinstance(specific.get("updatedInput"), dict):
        run.updated_input = specific["updatedInput"]
    if isinstance(specific.get("additionalContext"), str) and specific["additionalContext"].strip():
        run.context = _cut(specific["additionalContext"])
    if data.get("continue") is False:
        run.stop = True
        reason = data.get("stopReason")
        run.stop_reason = _cut(reason) if isinstance(reason, str) else "a hook stopped the run"
    if isinstance(data.get("systemMessage"), str):
        run.system_message = _cut(data["systemMessage"])


@dataclass
class Fired:
    """Every hook one event ran, combined: the strictest decision wins (deny/block > ask > allow)."""

    runs: list[HookRun] = field(default_factory=list)

    @property
    def decision(self) -> str | None:
        best: str | None = None
        for run in self.runs:
            if run.ignored is None and _STRICTNESS[run.decision] > _STRICTNESS[best]:
                best = run.decision
        return best

    @property
    def deciding(self) -> HookRun | None:
        """The run whose decision counts."""
        wanted = self.decision
        return next((r for r in self.runs if r.decision == wanted and r.ignored is None), None)

    @property
    def reason(self) -> str:
        run = self.deciding
        return (run.reason if run is not None else None) or ""

    @property
    def updated_input(self) -> dict[str, Any] | None:
        found = [r.updated_input for r in self.runs if r.updated_input is not None and r.ignored is None]
        return found[-1] if found else None

    @property
    def context(self) -> str:
        return "\n\n".join(r.context for r in self.runs if r.context)

    @property
    def stop(self) -> HookRun | None:
        return next((r for r in self.runs if r.stop), None)

    def records(self) -> list[dict[str, Any]]:
        return [r.to_record() for r in self.runs]


def _cut(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + " …[cut]"
