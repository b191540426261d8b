"""-- hooks (issue 32): the session-level hook events, called at marked points of ``Session``.

``UserPromptSubmit`` (before a prompt is stored: exit 2 blocks it, context is added to it),
``SessionStart`` (first run of a Session object: ``startup`` or ``resume``), ``Stop`` (a run
is about to finish: a block continues the run with the reason as the next instruction, at most
``MAX_STOP_ROUNDS`` times) and ``SessionEnd`` (``close``).
"""

from __future__ import annotations

import os
from typing import Any

from langchain_core.messages import HumanMessage

from cairn.graph.core.events import HookRan, Notification
from cairn.graph.core.hooks.engine import HookEngine
from cairn.graph.core.hooks.outcome import Fired
from cairn.graph.core.state import FRESH_RUN
from cairn.graph.session.result import RunResult

#: A Stop hook that keeps blocking continues the run at most this many times.
MAX_STOP_ROUNDS = 3


def build_engine(session: Any, python_hooks: Any, *, trust_project_hooks: bool) -> HookEngine | None:
    """The session's engine, or None when no hook is configured anywhere (the fast path)."""
    from cairn.graph.core.hooks.loading import load_config, project_profile

    root = session.workspace.root
    config = load_config(root, python_hooks)
    if not config:
        return None
    profile = project_profile(config, root, trust_flag=trust_project_hooks)

    def env() -> dict[str, str]:
        return session.services.shell.environment(str(root))[0]

    def launcher(name: str) -> Any:
        spec = session.sandbox.spec(name)
        if spec is None:
            return None
        from cairn.tools.shell.sandbox.backend import Private

        shell = session.services.shell
        status = shell.sandbox_backend
        if status.backend is None:
            raise OSError(f"no sandbox backend works here ({status.problem})")
        private = shell._private_dir()
        paths = Private(*(os.path.join(private, sub) for sub in ("init", "cwd", "tmp")))
        return status.backend.launch(spec, cwd=str(root), private=paths)

    return HookEngine(
        config, root, session_id=session.id, project_profile=profile, env=env, launcher=launcher
    )


def _report(fired: Fired, on_event: Any) -> None:
    if on_event is None:
        return
    for run in fired.runs:
        try:
            on_event(HookRan(run.to_record()))
        except Exception:  # a broken display never breaks the agent
            pass


def prompt_submit(session: Any, text: str, on_event: Any) -> tuple[str, RunResult | None]:
    """``UserPromptSubmit``: the prompt to store (with hook context), or a result saying it was blocked."""
    engine: HookEngine | None = session.hooks_engine
    if engine is None or not engine.has("UserPromptSubmit"):
        return text, None
    fired = engine.fire(
        "UserPromptSubmit", engine.base_payload("UserPromptSubmit", session.mode) | {"prompt": text}
    )
    _report(fired, on_event)
    if fired.decision == "block" or fired.stop is not None:
        why = fired.reason or (fired.stop.stop_reason if fired.stop else "") or "blocked by a hook"
        return text, RunResult(
            session_id=session.id, status="error", error=f"Prompt blocked by a UserPromptSubmit hook: {why}"
        )
    if fired.context:
        text = f'{text}\n\n<hook-context event="UserPromptSubmit">\n{fired.context}\n</hook-context>'
    return text, None


def session_start(session: Any, on_event: Any) -> str | None:
    """``SessionStart`` once per Session object: context for the model (added to the next prompt)."""
    engine: HookEngine | None = session.hooks_engine
    if engine is None or session.hooks_started or not engine.has("SessionStart"):
        return None
    session.hooks_started = True
    source = "resume" if session.snapshot().values.get("head") else "startup"
    fired = engine.fire(
        "SessionStart", engine.base_payload("SessionStart", session.mode) | {"source": source}
    )
    _report(fired, on_event)
    return fired.context or None


def after_run(session: Any, result: RunResult, rerun: Any, on_event: Any) -> RunResult:
    """``Stop``: a finished run's hooks may send the model back to work (bounded)."""
    engine: HookEngine | None = session.hooks_engine
    if engine is None or not engine.has("Stop"):
        return result
    record = session.store.sessions.get(session.id)
    if record is not None and record.parent_id:  # a sub-agent: its parent fires SubagentStop
        return result
    from cairn.graph.session.runs import run_head

    for round_ in range(MAX_STOP_ROUNDS + 1):
        if result.status != "done":
            return result
        payload = engine.base_payload("Stop", session.mode) | {
            "stop_hook_active": round_ > 0,
            "last_assistant_message": result.text,
        }
        fired = engine.fire("Stop", payload)
        _report(fired, on_event)
        if fired.decision != "block" or round_ == MAX_STOP_ROUNDS:
            return result
        reason = fired.reason or "a Stop hook asks you to go on"
        head = run_head(session, session.snapshot())
        head = session.store.transcript.append(session.id, head, [HumanMessage(f"[Stop hook] {reason}")])
        result = rerun({"head": head, **FRESH_RUN})
    return result


def before_prompt(session: Any, text: str, on_event: Any) -> tuple[str, RunResult | None]:
    """``SessionStart`` (first prompt of this Session object) then ``UserPromptSubmit``."""
    start = session_start(session, on_event)
    text, blocked = prompt_submit(session, text, on_event)
    if blocked is None and start:
        text = f'{text}\n\n<hook-context event="SessionStart">\n{start}\n</hook-context>'
    return text, blocked


def session_end(session: Any, reason: str = "close") -> None:
    engine: HookEngine | None = session.hooks_engine
    if engine is None or not engine.has("SessionEnd"):
        return
    engine.fire("SessionEnd", engine.base_payload("SessionEnd", session.mode) | {"reason": reason})


def notify_after_run(session: Any, result: RunResult, on_event: Any) -> None:
    """Notifications: a run that waits for a person, failed, or took long (``[notifications]``).

    Fires the ``Notification`` hook, emits a ``notification`` event (notebooks show a badge) and
    uses the session's ``notifier`` (the interactive CLI's terminal channels) — for the
    surfaces ``[notifications]`` enables (headless runs only with ``headless = true``)."""
    from cairn.graph.core.hooks.loading import load_notifications
    from cairn.graph.core.hooks.notify import notice_for

    config = session.__dict__.get("_notifications")
    if config is None:
        config = session.__dict__["_notifications"] = load_notifications(session.workspace.root)
    if not config.active(session.surface):
        return
    record = session.store.sessions.get(session.id)
    if record is not None and record.parent_id:  # a sub-agent: its parent's run notifies
        return
    notice = notice_for(
        result.status, result.elapsed_s, len(result.pending), result.error, config.after_seconds
    )
    if notice is None:
        return
    kind, message = notice
    engine: HookEngine | None = session.hooks_engine
    if engine is not None and engine.has("Notification"):
        payload = engine.base_payload("Notification", session.mode) | {
            "message": message,
            "notification_type": kind,
        }
        _report(engine.fire("Notification", payload), on_event)
    if on_event is not None:
        try:
            on_event(Notification(kind, message))
        except Exception:  # a broken display never breaks the agent
            pass
    notifier = session.notifier
    if notifier is not None:
        notifier.send(kind, message)


def subagent_stop(parent: Any, child_id: str, result: Any) -> None:
    """``SubagentStop`` at the parent when a sub-agent's run ends (recorded; it cannot block)."""
    engine: HookEngine | None = parent.hooks_engine
    if engine is None or not engine.has("SubagentStop"):
        return
    payload = engine.base_payload("SubagentStop", parent.mode) | {
        "agent_id": child_id,
        "status": result.status,
        "last_assistant_message": result.text,
        "stop_hook_active": False,
    }
    _report(engine.fire("SubagentStop", payload), parent.event_sink)
