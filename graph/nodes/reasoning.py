"""``reasoning``: one model call with the active tools bound.

Appends the AIMessage to the transcript and turns its tool calls into
``pending`` ToolCallInfos.  Calls that cannot run at all (malformed JSON,
unknown tool, invalid arguments) are answered at once with an error result the
model can act on; the policy never sees them.

A turn the model did not finish (``finish_reason: "length"``, a stream cut short:
``cairn.graph.models.turn_end``) is never executed as complete: each of its calls is
answered at once with an error telling the model it was cut off and to send it again,
smaller if needed; a cut answer without calls ends the run ``incomplete`` (``/continue``
asks the model again).

Small models (issue 31): every call carries an output-token cap and a time budget
(``cairn.graph.models.call_limits``); a reply that starts repeating the prompt is cut while it
streams (``cairn.graph.models.runaway``), the model is told and asked once more, then the run
pauses ``incomplete``; a call over its time budget is retried once with another seed and
temperature, never unchanged; an empty final answer gets one nudge (the question and what the
tools found), then the run ends ``no_answer``; with the lean profile, an answer given before any
tool was called since the person's request is asked once more, to look first
(``prompts.look_first_nudge``), an answer right after a failed call, to fix the call
(``prompts.after_error_nudge``), and an answer to a request for a change that made none
(``prompts.change_nudge``); a run whose request names files in the workspace starts with cairn
reading them (``cairn.graph.core.named_reads``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.runtime import Runtime

from cairn.graph.core.agent_reports import undelivered_reports
from cairn.graph.core.compaction import prepare as compaction
from cairn.graph.core.context import AgentContext
from cairn.graph.core.cost.spend import after_model, over_budget
from cairn.graph.core.events import Message, ToolEnd
from cairn.graph.core.messages import message_text
from cairn.graph.core.state import AgentState, ToolCallInfo, dump_calls
from cairn.graph.core.tool_selection import activate_called
from cairn.graph.nodes.call_planning import cut_calls, plan_calls
from cairn.graph.nodes.model_stream import call_model, timed_out


def reasoning(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """One step: stop if a limit says so, catch the transcript up, call the model, record its turn."""
    ctx = runtime.context
    stop = _stop_before_call(state, ctx)
    if stop is not None:
        return stop
    step = _catch_up(state, ctx)
    activated = list(state.get("activated_tools") or [])
    reads = _named_reads(ctx, step.recent) if ctx.tool_profile == "lean" else None
    if reads is not None:  # (issue 31) a small model's run starts by reading the files named
        return _recorded(state, ctx, step, _settle(reads, False, ctx, activated))
    system = [SystemMessage(ctx.system_prompt(ctx.mode))] if ctx.system_prompt is not None else []
    # Context budget (cairn.graph.core.compaction): the prompt as sent, or a compaction first.
    prepared = compaction.prepare_prompt(state, ctx, step.head, system)
    if prepared.compact is not None:
        return {**step.update(), "context": prepared.context, "compact_request": prepared.compact}
    # issue 34: the model call's ``chat`` span (None when telemetry is off)
    traced = ctx.telemetry.model_call(ctx.model, prepared.messages) if ctx.telemetry is not None else None
    try:
        message, stopped, failed = _reply(ctx.bound_model(ctx.mode, activated), prepared.messages, ctx)
    except Exception as exc:
        if traced is not None:
            traced.fail(exc)
        retry = compaction.on_model_error(prepared, exc)
        if retry is None:
            raise
        return {**step.update(), **retry}
    if traced is not None:
        traced.end(message, ctx.pricing)
    if failed is not None:  # (issue 31) echoed the prompt twice, or no answer even after a nudge
        return _paused(*failed, step.update(), counters=_counted(state, None), run_steps=_next_step(state))
    if stopped and not message_text(message).strip():
        return _paused("stopped", None, step.update())  # stopped by the person before any text
    turn = _settle(message, stopped, ctx, activated)
    usage = getattr(turn.message, "usage_metadata", None) or {}
    update = {
        **_recorded(state, ctx, step, turn),
        "counters": _counted(state, usage),
        "context": compaction.after_model(prepared, usage),
        **after_model(state, ctx, turn.message),  # issue 34: the call's usage in the ledgers
    }
    if stopped:  # the person stopped the reply: the text they saw is kept, no call runs
        return _paused("stopped", None, update)
    if turn.cut is not None and not turn.completed:  # a cut answer without calls
        return _paused("incomplete", turn.cut, update)
    return update


def _recorded(state: AgentState, ctx: AgentContext, step: _Step, turn: _Turn) -> dict[str, Any]:
    """The turn appended to the transcript and announced; the step's update for it."""
    step.head = ctx.store.transcript.append(ctx.thread_id, step.head, [turn.message])
    _announce(turn, ctx)
    return {
        **step.update(),
        "pending_tool_calls": dump_calls(turn.pending),
        "completed_tool_calls": dump_calls(turn.completed),
        "run_steps": _next_step(state),
        "paused": None,
        "pause_reason": None,
        "activated_tools": turn.activated,
    }


def _named_reads(ctx: AgentContext, recent: list[BaseMessage]) -> AIMessage | None:
    """cairn's own first turn of a run whose request names files in the workspace: reading them
    (``cairn.graph.core.named_reads``), or ``None``."""
    from uuid import uuid4

    from cairn.graph.core.named_reads import fresh_request, named_files, reading_turn

    request = fresh_request(recent)  # only a step that starts a run: the rest return here
    if request is None or "read_file" not in ctx.active_registry(ctx.mode).names_and_aliases():
        return None
    paths = [p for p in named_files(request, ctx.workspace) if _allowed_read(p, ctx)]
    return reading_turn(paths, f"call_read_{uuid4().hex[:8]}") if paths else None


def _allowed_read(path: str, ctx: AgentContext) -> bool:
    """Whether reading ``path`` runs without asking: cairn's own reads never ask the person
    (a file the policy guards, such as ``credentials.json``, is left to the model's own call)."""
    from cairn import policy

    verdict = policy.evaluate(
        "read_file", {"file_path": path}, workspace=ctx.workspace, mode=ctx.mode, rules=ctx.rules
    )
    return str(verdict.decision) == "allow"


def _paused(kind: str, why: str | None, base: dict[str, Any] | None = None, **more: Any) -> dict[str, Any]:
    """The one shape of a paused step: ``paused``/``pause_reason`` set, no calls left to run."""
    return {
        **(base or {}),
        **more,
        "paused": kind,
        "pause_reason": why,
        "pending_tool_calls": [],
        "completed_tool_calls": [],
    }


def _stop_before_call(state: AgentState, ctx: AgentContext) -> dict[str, Any] | None:
    """The pause due before any model call: steps or tokens spent, a loop, a stop."""
    if state.get("run_steps", 0) >= ctx.max_steps:
        return _paused("max_steps", None)
    spent = _tokens(state)
    if ctx.max_tokens is not None and spent >= ctx.max_tokens:
        return _paused("max_steps", f"its token budget of {ctx.max_tokens} is spent ({spent} tokens)")
    budget_pause = over_budget(state, ctx)  # issue 34: a run's money budget
    if budget_pause is not None:
        return budget_pause
    if state.get("paused") == "loop":  # tool_routing noticed a loop: the person decides
        return _paused("loop", state.get("pause_reason"))
    if ctx.cancel.is_set():  # stopped between steps: do not spend a model call
        return _paused("stopped", None)
    return None


@dataclass
class _Step:
    """Where this step's transcript stands, and the sub-agent reports it delivered."""

    head: str | None
    delivered: list[str] = field(default_factory=list)
    #: The transcript since the last model turn, when nothing was added to it in this step.
    recent: list[BaseMessage] = field(default_factory=list)

    def update(self) -> dict[str, Any]:
        return {"head": self.head, "delivered_agents": self.delivered}


def _catch_up(state: AgentState, ctx: AgentContext) -> _Step:
    """Answer calls a run abandoned and add the reports of finished background sub-agents.

    The reports come before this model call; the delivered ids are checkpointed with the new
    head, so each report is delivered exactly once."""
    step = _Step(state.get("head"), list(state.get("delivered_agents") or []))
    recent = ctx.store.transcript.tail(ctx.thread_id, step.head, stop=lambda m: isinstance(m, AIMessage))
    unanswered = dangling_tool_messages(recent)
    if unanswered:
        step.head = ctx.store.transcript.append(ctx.thread_id, step.head, unanswered)
    reports = undelivered_reports(ctx.store, ctx.thread_id, step.delivered)
    if reports:
        step.head = ctx.store.transcript.append(ctx.thread_id, step.head, [m for _, m in reports])
        step.delivered += [child_id for child_id, _ in reports]
    if not unanswered and not reports:
        step.recent = recent
    return step


@dataclass
class _Turn:
    """The model's turn as it is stored: its calls split into to-run and answered-at-once."""

    message: AIMessage
    pending: list[ToolCallInfo]
    completed: list[ToolCallInfo]
    activated: list[str]
    cut: str | None = None


def _settle(message: AIMessage, stopped: bool, ctx: AgentContext, activated: list[str]) -> _Turn:
    """A stopped reply keeps its text only; a cut-off turn's calls are refused; the rest are planned."""
    from cairn.graph.models import recover_text_tool_calls
    from cairn.graph.models.turn_end import cut_off

    if stopped:
        # A reply cut off by the person: keep the text they saw, never its half-sent tool calls.
        kept = AIMessage(content=message.content, usage_metadata=message.usage_metadata)
        return _Turn(kept, [], [], activated)
    cut = cut_off(message, ctx.model)
    if cut is not None:
        message, completed = cut_calls(message, ctx, cut)
        return _Turn(message, [], completed, activated, cut)
    message = recover_text_tool_calls(message, ctx.active_registry(ctx.mode).names_and_aliases())
    message, pending, completed = plan_calls(message, ctx, ctx.mode)
    return _Turn(message, pending, completed, activate_called(pending, ctx, ctx.mode, activated) or activated)


def _announce(turn: _Turn, ctx: AgentContext) -> None:
    """The ``message`` event, and ``tool_end`` for the calls answered here.

    (R2, issue 28) calls answered here (refused in plan mode, invalid, cut off) never reach
    tool_execution: surfaces get their tool_end now, or the live CLI shows no line for them."""
    message = turn.message
    ctx.emit(
        Message(
            text=message_text(message),
            tool_calls=len(turn.pending) + len(turn.completed),
            call_ids=[c["id"] for c in message.tool_calls],  # the model's order, for surfaces to keep
        )
    )
    for call in turn.completed:
        ctx.emit(ToolEnd(call.to_state()))


def _counted(state: AgentState, usage: dict[str, Any] | None) -> dict[str, int]:
    """The state's counters after one more model call (and its tokens, when ``usage`` is known)."""
    counters = dict(state.get("counters") or {})
    counters["model_calls"] = counters.get("model_calls", 0) + 1
    if usage is not None:
        counters["tokens_in"] = counters.get("tokens_in", 0) + int(usage.get("input_tokens", 0) or 0)
        counters["tokens_out"] = counters.get("tokens_out", 0) + int(usage.get("output_tokens", 0) or 0)
    return counters


def _next_step(state: AgentState) -> int:
    return state.get("run_steps", 0) + 1


def _tokens(state: AgentState) -> int:
    counters = state.get("counters") or {}
    return int(counters.get("tokens_in", 0)) + int(counters.get("tokens_out", 0))


def dangling_tool_messages(history: list[BaseMessage]) -> list[ToolMessage]:
    """Error ToolMessages for calls of the last AIMessage that have none.

    Observation always answers every call, so this only fires when a run was
    abandoned half-way (e.g. a person sent a new message instead of deciding);
    it keeps invariant 3: no model request ever carries an unanswered call.
    """
    answered: set[str] = set()
    for message in reversed(history):
        if isinstance(message, ToolMessage):
            answered.add(message.tool_call_id)
        elif isinstance(message, AIMessage):
            return [
                ToolMessage(
                    content="Error: this call was abandoned before it produced a result.",
                    tool_call_id=tc["id"],
                    name=tc["name"],
                    status="error",
                )
                for tc in message.tool_calls
                if tc["id"] not in answered
            ]
    return []


def _reply(
    model: Any, prompt: list[BaseMessage], ctx: AgentContext
) -> tuple[AIMessage, bool, tuple[str, str] | None]:
    """The model's reply, whether the person stopped it, and (pause, why) when the run must pause.

    At most one extra call for each failure: an echo of the prompt (the model is told; a second
    echo: another seed and temperature), a call over its time budget (the same, shared with the
    echo), an empty answer (the nudge), and with the lean profile an answer that looked at nothing
    (the look-first nudge), that came right after a failed call (the after-error nudge), or that
    was asked for a change and made none (the change nudge)."""
    from cairn.graph.core.prompts import empty_reply_nudge
    from cairn.graph.models import call_limits as limits_of
    from cairn.graph.models.runaway import EchoGuard, RunawayReply, runaway_note
    from cairn.graph.models.turn_end import cut_off

    limits = ctx.call_limits or limits_of.call_limits()
    window = getattr(ctx.budget, "window", None)
    self_hosted = limits_of.is_self_hosted(ctx.model)
    cap = limits_of.output_cap(limits, window, self_hosted=self_hosted)
    model = limits_of.with_output_cap(ctx.model, model, cap)
    temperature = limits_of.sampling_temperature(limits, self_hosted=self_hosted, profile=ctx.tool_profile)
    model = limits_of.with_temperature(ctx.model, model, temperature)
    sent, echoed, resampled, nudged = prompt, 0, False, False
    given: set[str] = set()  # the lean profile's nudges given in this model turn (each once)
    while True:
        guard = EchoGuard.for_request(prompt, model)
        try:
            message, stopped = call_model(model, sent, ctx, guard, limits.call_timeout)
        except RunawayReply as exc:
            kept = _calls_before_echo(guard.text_before_echo(), ctx)
            if kept is not None:  # a whole call came before the echo: run it, drop the echo
                return kept, False, None
            echoed += 1
            if echoed == 1:
                sent = [*prompt, HumanMessage(runaway_note(exc.reason))]
                continue
            if not resampled:  # a second echo: once more with another seed and temperature
                resampled, model = True, limits_of.with_new_sampling(ctx.model, model)
                continue
            why = f"the model's reply was cut {echoed} times because {exc.reason}; /continue asks it again"
            return AIMessage(content=""), False, ("incomplete", why)
        except Exception as exc:
            if not timed_out(exc):
                raise
            message = None
        if message is None:  # raised out here, so the timeout's own message is what people read
            if resampled:
                raise limits_of.ModelCallTimeout(limits.call_timeout)
            resampled, model = True, limits_of.with_new_sampling(ctx.model, model)
            continue
        if stopped or cut_off(message, ctx.model) is not None:
            return message, stopped, None
        final = _with_text_calls(message, ctx)  # calls written as text are calls, not text
        if not _empty(final, guard):
            nudge = _lean_nudge(prompt, final, given) if ctx.tool_profile == "lean" else None
            if nudge is None:
                return message, stopped, None
            sent = [*prompt, HumanMessage(nudge)]
            continue
        if nudged:
            why = "the model's answer was empty, again after it was reminded of the question"
            return message, False, ("no_answer", f"{why}; /continue asks it again")
        nudged, sent = True, [*prompt, HumanMessage(empty_reply_nudge(prompt))]


def _lean_nudge(prompt: list[BaseMessage], final: AIMessage, given: set[str]) -> str | None:
    """(issue 31) What a small model's final answer is asked again with, in its place: when no
    tool was called since the request (look first), right after a failed call (fix the call), or
    when a change was asked for and none made; each at most once per model turn (``given``)."""
    from cairn.graph.core.prompts import (
        after_error_nudge,
        answered_without_looking,
        change_not_made,
        change_nudge,
        gave_up_after_error,
        look_first_nudge,
    )
    from cairn.policy.table import EDIT_TOOLS

    if "look" not in given and answered_without_looking(prompt, final):
        given.add("look")
        return look_first_nudge(prompt)
    error = None if "error" in given else gave_up_after_error(prompt, final)
    if error is not None:
        given.add("error")
        return after_error_nudge(prompt, error)
    if "change" not in given and change_not_made(prompt, final, EDIT_TOOLS):
        given.add("change")
        return change_nudge(prompt)
    return None


def _calls_before_echo(text: str, ctx: AgentContext) -> AIMessage | None:
    """The turn the model wrote before it began to echo the prompt, when that part holds whole
    tool calls (written as text); ``None`` otherwise."""
    message = AIMessage(content=text, response_metadata={"finish_reason": "stop"})
    recovered = _with_text_calls(message, ctx)
    return recovered if recovered.tool_calls else None


def _with_text_calls(message: AIMessage, ctx: AgentContext) -> AIMessage:
    """``message`` with the tool calls it wrote as text recovered (as ``_settle`` will)."""
    from cairn.graph.models import recover_text_tool_calls

    return recover_text_tool_calls(message, ctx.active_registry(ctx.mode).names_and_aliases())


def _empty(message: AIMessage, guard: Any) -> bool:
    """No call and no text (template tokens aside), or text that only restates the prompt."""
    from cairn.graph.models.template_tags import strip_template_tags

    if message.tool_calls or message.invalid_tool_calls:
        return False
    text = strip_template_tags(message_text(message)).strip()
    return not text or guard.check(text) is not None
