"""Running the graph for a Session and reporting where it stands afterwards."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage

from cairn.graph.core.calllog import assemble_calls
from cairn.graph.core.context import AgentContext, EventCallback
from cairn.graph.core.messages import is_person_message, message_text
from cairn.graph.core.state import GATED_STATUSES, calls, unfinished_steps
from cairn.graph.session.child_approvals import with_child_asks
from cairn.graph.session.result import RunResult

if TYPE_CHECKING:
    from cairn.graph.session.core import SessionCore

#: Long runs prune intermediate checkpoints as they go, so storage stays linear.
PRUNE_EVERY_STEPS = 64


def make_context(session: SessionCore, stream: bool, on_event: EventCallback | None) -> AgentContext:
    from cairn.graph.core.prompts import build_session_context, build_system_prompt
    from cairn.graph.core.tool_selection import deferred_prompt
    from cairn.graph.models.call_limits import call_limits
    from cairn.tools.memory import load_memory

    profile = session.tool_profile
    prompts: dict[str, str] = {}

    def system_prompt(mode: str) -> str:  # constant per mode and profile: a prefix caches can reuse
        if mode not in prompts:
            prompts[mode] = build_system_prompt(mode, profile=profile)
        return prompts[mode]

    context = AgentContext(
        thread_id=session.id,
        workspace=session.workspace,
        store=session.store,
        model=session.model,
        registry=session.registry,
        rules=session.rules,
        mode=session.mode,
        max_steps=session.max_steps,
        max_tokens=session.max_tokens,
        repeat_limit=session.repeat_limit,
        stream=stream,
        on_event=on_event,
        cancel=session.cancel_event,
        system_prompt=system_prompt,
        tool_profile=profile,
        sandbox=session.sandbox,
        snapshots=session.snapshotter,
        pinned_tools=session.pinned_tools,
        defer_threshold=session.extensions.defer_threshold,
        budget=session.budget,
        call_limits=call_limits(
            session.settings.model.max_output_tokens,
            session.settings.model.call_timeout,
            session.settings.model.temperature,
        ),
        _bound=session.bound_models,
        hooks=session.hooks_engine,  # -- hooks (issue 32)
        # issue 34 hook-in: money and telemetry (cairn.graph.core.cost, cairn.graph.core.telemetry)
        max_cost=session.max_cost,
        pricing=session.pricing,
    )
    # Skills, custom commands and the deferred tools' names belong to this session, not to the
    # constant system prompt: they go in the session context, after the rest of it.
    extras = "\n\n".join(
        p for p in (session.extensions.prompt_section(), deferred_prompt(context, session.mode)) if p
    )
    context.session_context = build_session_context(
        session.workspace.root, memory=load_memory(session.workspace), extensions=extras, profile=profile
    )
    return context


def run_head(session: SessionCore, snapshot: Any) -> str | None:
    """The transcript head the stored run stands at.

    Usually the state's ``head``.  A run killed after its input checkpoint but before its input
    step's writes were saved has its head only in LangGraph's input channel (``__start__``):
    the state still shows the previous head, and the message that started the run is after it.
    """
    if "__start__" in unfinished_steps(snapshot):
        saved = session.graph.checkpointer.get_tuple(session.config())
        start = (saved.checkpoint.get("channel_values") or {}).get("__start__") if saved else None
        if isinstance(start, dict) and start.get("head"):
            return start["head"]
    return snapshot.values.get("head")


def run_graph(
    session: SessionCore, payload: Any, *, stream: bool, on_event: EventCallback | None
) -> RunResult:
    """Run until done or paused; a failure (model down, bug) pauses resumably with the error."""
    started = time.perf_counter()
    snapshot = session.snapshot()
    values = snapshot.values
    counters_before = dict(values.get("counters") or {})
    staged = payload.get("head") if isinstance(payload, dict) else None
    since_head = staged or run_head(session, snapshot)
    # The stop flag is not cleared here: a stop announced before the graph started (Ctrl-C
    # a few ms after a send) must still stop it.  ``Session._run`` clears it when its run ends.
    context = make_context(session, stream, on_event)
    store = session.store
    from cairn.graph.core.cost.report import total_ledger  # issue 34 hook-in: the run's cost

    spend_before = total_ledger(store, session.id, values)
    from cairn.graph.core.telemetry.hooks import start_run  # issue 34 hook-in: the run's spans

    recorder = start_run(session, context)
    store.sessions.update(session.id, status="running")
    # glob's stat cache learns the workspace now; the rewind snapshot and the shell's git status
    # are warmed when a call first needs them (``workspace_snapshots.warm_for``).
    session.services.warm(writing=False)
    error: str | None = None
    try:
        updates = session.graph.stream(
            payload, session.config(), context=context, durability="sync", stream_mode="updates"
        )
        for steps, _ in enumerate(updates, start=1):
            if steps == 1 and staged:  # a checkpoint holds the prompt now (cairn.checkpoints.inbox)
                store.inbox.clear(session.id, staged)
            if steps % PRUNE_EVERY_STEPS == 0:
                _prune(session)
    except KeyboardInterrupt as exc:
        # The last checkpoint and the journal are intact: continue_() recovers.
        store.sessions.update(session.id, status="interrupted")
        if recorder is not None:
            recorder.end(error=exc)
        raise
    except Exception as exc:
        from cairn.graph.models import describe_model_error

        error = describe_model_error(exc)
    result = build_result(
        session, started, counters_before, since_head=since_head, error=error, spend_before=spend_before
    )
    store.sessions.update(session.id, status=result.status)
    if recorder is not None:
        recorder.end(result)
    _prune(session)
    return result


def _prune(session: SessionCore) -> None:
    try:
        session.store.prune(session.id)
    except Exception:  # pruning is housekeeping; never fail a run over it
        pass


def build_result(
    session: SessionCore,
    started: float | None,
    counters_before: dict[str, int] | None,
    *,
    since_head: str | None,
    error: str | None = None,
    spend_before: dict[str, Any] | None = None,
) -> RunResult:
    """Where the session stands; ``since_head`` bounds which calls belong to this run
    and ``spend_before`` (the usage ledger at its start) what it cost."""
    snap = session.snapshot()
    values = snap.values
    own = [c for c in calls(values.get("pending_tool_calls")) if c.status in GATED_STATUSES]
    pending = with_child_asks(session, own)  # sub-agents' calls that wait for a person
    if error is not None:
        status = "error"
    elif any(c.status == "awaiting_approval" for c in pending):
        status = "awaiting_approval"
    elif pending:
        status = "interrupted"
    elif values.get("paused") == "max_steps":
        status = "max_steps"
    elif values.get("paused") == "loop":
        status, error = "loop", values.get("pause_reason") or "the model kept repeating the same call"
    elif values.get("paused") == "incomplete":  # the model's answer was cut off (turn_end)
        status, error = "incomplete", values.get("pause_reason") or "the answer was cut off"
    elif values.get("paused") == "no_answer":  # empty final reply, even after a nudge (issue 31)
        status, error = "no_answer", values.get("pause_reason") or "the model gave no answer"
    elif values.get("paused") == "budget":  # issue 34: the run's money budget is spent
        status, error = "budget", values.get("pause_reason") or "the run's budget is spent"
    elif values.get("paused") == "stopped":
        status = "interrupted"  # the person stopped the model's answer (or the run between steps)
    elif unfinished_steps(snap):
        status, error = "error", "the run stopped before finishing; continue_() resumes it"
    else:
        status = "done"
    counters = values.get("counters") or {}
    base = counters if counters_before is None else counters_before
    usage = {
        "input_tokens": counters.get("tokens_in", 0) - base.get("tokens_in", 0),
        "output_tokens": counters.get("tokens_out", 0) - base.get("tokens_out", 0),
        "model_calls": counters.get("model_calls", 0) - base.get("model_calls", 0),
    }
    from cairn.graph.core.cost.report import run_cost_fields  # issue 34 hook-in: usage.cost

    usage.update(
        run_cost_fields(
            session.store,
            session.id,
            values,
            spend_before,
            session.pricing,
            session.max_cost,
        )
    )
    head = values.get("head")
    tail = (
        session.store.transcript.tail(
            session.id, head, stop=lambda m: m.id == since_head or is_person_message(m)
        )
        if since_head
        else []
    )
    text = ""
    finished_turn = status in ("done", "interrupted", "incomplete") or (
        status == "awaiting_approval" and not own
    )
    if finished_turn and tail and isinstance(tail[-1], AIMessage):
        text = message_text(tail[-1])
    return RunResult(
        session_id=session.id,
        status=status,  # type: ignore[arg-type]
        text=text,
        pending=pending,
        tool_calls=assemble_calls(session.store, session.id, tail, values) if tail else [],
        usage=usage,
        error=error,
        elapsed_s=time.perf_counter() - started if started is not None else 0.0,
    )
