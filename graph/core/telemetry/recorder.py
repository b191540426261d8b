"""One run's spans: ``invoke_agent`` for the run, ``chat {model}`` per model call,
``execute_tool {tool}`` per tool call (GenAI semantic conventions, plus ``cairn.*``).

Tool spans come from the run's events (``tool_start``/``tool_end``), as every surface sees
them; model calls are recorded by ``reasoning`` through ``model_call``.  Spans get explicit
parents (tool calls run on worker threads).  A sub-agent's run is a child of its parent's
``execute_tool agent`` span when both run in this process, else it joins the same trace
(``instruments.session_trace_id``).
"""

from __future__ import annotations

import threading
import time
from datetime import datetime
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from cairn.graph.core import events as ev
from cairn.graph.core.telemetry.chat import PROVIDERS, ModelCall, content
from cairn.graph.core.telemetry.instruments import Telemetry, next_trace_id, session_trace_id

#: Open ``execute_tool`` spans by (session id, call id): sub-agents' runs find their parent here.
_open_tools: dict[tuple[str, str], Any] = {}
#: When a call started waiting for a person, by (session id, call id) (this process).
_asked_at: dict[tuple[str, str], float] = {}
_lock = threading.Lock()


class RunRecorder:
    """The ``invoke_agent`` span of one run and the spans under it."""

    def __init__(self, tele: Telemetry, session: Any) -> None:
        self.tele = tele
        self.session_id: str = session.id
        self.agent = _agent_name(session.id)
        parent_ctx = _parent_context(session.id)
        token = next_trace_id.set(session_trace_id(session.id))
        try:
            self.span = tele.tracer.start_span(
                f"invoke_agent {self.agent}",
                kind=SpanKind.INTERNAL,
                context=parent_ctx,
                attributes={
                    "gen_ai.operation.name": "invoke_agent",
                    "gen_ai.agent.name": self.agent,
                    "gen_ai.conversation.id": session.id,
                    "gen_ai.request.model": _model_label(getattr(session, "_model", None), session),
                    "cairn.mode": session.mode,
                    "cairn.workspace": str(session.workspace.root),
                },
            )
        finally:
            next_trace_id.reset(token)
        self.context = trace.set_span_in_context(self.span)
        self._tools: dict[str, tuple[Any, float]] = {}
        _note_waiting(session)

    # -- model calls (from ``reasoning``) --------------------------------------------------
    def model_call(self, model: Any, prompt: list[Any]) -> ModelCall:
        return ModelCall(self, _model_label(model, None), _provider(model), prompt)

    # -- tool calls (from the run's events) -------------------------------------------------
    def wrap(self, on_event: Any) -> Any:
        """The run's event callback (typed events, :mod:`cairn.graph.core.events`) with the tool spans
        opened and closed on the way."""

        def observe(event: ev.Event) -> None:
            try:
                self.observe(event)
            except Exception:  # telemetry never breaks a run
                pass
            if on_event is not None:
                on_event(event)

        return observe

    def observe(self, event: ev.Event) -> None:
        match event:
            case ev.ToolStart(call=call):
                self._tool_start(call or {})
            case ev.ToolEnd(call=call):
                self._tool_end(call or {})
            case (
                ev.Token()
                | ev.Thought()
                | ev.Message()
                | ev.ToolProgress()
                | ev.Compacted()
                | ev.SubagentStart()
                | ev.SubagentEvent()
                | ev.SubagentEnd()
                | ev.Waiting()
                | ev.DecisionRefused()
                | ev.HookRan()
                | ev.Notification()
            ):
                pass  # spans are per run, model call and tool call

    def _tool_start(self, call: dict[str, Any]) -> None:
        call_id, name = str(call.get("call_id")), str(call.get("tool_name"))
        attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": call_id,
            "gen_ai.tool.type": "function",
            "gen_ai.conversation.id": self.session_id,
        }
        if self.tele.log_content:
            attributes["gen_ai.tool.call.arguments"] = content(call.get("arguments") or {})
        span = self.tele.tracer.start_span(
            f"execute_tool {name}", kind=SpanKind.INTERNAL, context=self.context, attributes=attributes
        )
        with _lock:
            self._tools[call_id] = (span, time.monotonic())
            _open_tools[(self.session_id, call_id)] = span

    def _tool_end(self, call: dict[str, Any]) -> None:
        call_id = str(call.get("call_id"))
        with _lock:
            opened = self._tools.pop(call_id, None)
            _open_tools.pop((self.session_id, call_id), None)
            asked = _asked_at.pop((self.session_id, call_id), None)
        if opened is None:  # answered without running (refused, denied, rejected): a span all the same
            self._tool_start(call)
            with _lock:
                opened = self._tools.pop(call_id)
                _open_tools.pop((self.session_id, call_id), None)
        span, _ = opened
        status = str(call.get("status") or "")
        decision = str(call.get("decision") or "")
        by_person = bool(decision) or asked is not None
        span.set_attribute("cairn.tool.status", status)
        for key in ("risk", "sandbox", "agent_id"):
            if call.get(key):
                span.set_attribute(f"cairn.{key}", str(call[key]))
        if call.get("reason"):
            span.set_attribute("cairn.reason", str(call["reason"])[:300])
        if decision:
            verdict = decision.split(":", 1)[0].split(" (", 1)[
                0
            ]  # "approved always (rule)" → "approved always"
        elif asked is not None:
            verdict = "approved"
        else:
            verdict = "deny" if status == "cancelled" else "allow"
        span.set_attribute("cairn.decision", verdict)
        span.set_attribute("cairn.decided_by", "person" if by_person else "policy")
        if asked is not None:
            span.set_attribute("cairn.approval.wait_s", round(time.time() - asked, 3))
        if self.tele.log_content and call.get("result") is not None:
            span.set_attribute("gen_ai.tool.call.result", content(call["result"]))
        if status in ("error", "interrupted"):
            span.set_status(Status(StatusCode.ERROR, str(call.get("error_msg") or status)[:300]))
            span.set_attribute("error.type", status)
        span.end()
        self.tele.tool_calls.add(
            1, {"gen_ai.tool.name": str(call.get("tool_name")), "cairn.tool.status": status}
        )

    # -- the end of the run ------------------------------------------------------------------
    def end(self, result: Any = None, error: BaseException | None = None) -> None:
        span = self.span
        with _lock:
            for call_id, (tool_span, _) in list(self._tools.items()):  # never ended: cut off
                tool_span.set_attribute("cairn.tool.status", "interrupted")
                tool_span.end()
                _open_tools.pop((self.session_id, call_id), None)
            self._tools.clear()
        if result is not None:
            span.set_attribute("cairn.status", result.status)
            usage = result.usage or {}
            span.set_attribute("gen_ai.usage.input_tokens", int(usage.get("input_tokens") or 0))
            span.set_attribute("gen_ai.usage.output_tokens", int(usage.get("output_tokens") or 0))
            if usage.get("cost") is not None:
                span.set_attribute("cairn.cost.usd", float(usage["cost"]))
            now = time.time()
            with _lock:
                for call in result.pending:
                    if call.status == "awaiting_approval":
                        _asked_at.setdefault((self.session_id, call.call_id), now)
            if result.status == "error":
                span.set_status(Status(StatusCode.ERROR, str(result.error or "")[:300]))
        if error is not None:
            span.set_attribute("cairn.status", "interrupted")
            span.set_status(Status(StatusCode.ERROR, type(error).__name__))
        span.end()


def _note_waiting(session: Any) -> None:
    """Calls the stored session waits on a person for (paused in this or an earlier process):
    since when, from the checkpoint that paused it, for ``cairn.approval.wait_s``."""
    try:
        snap = session.snapshot()
        if "human_approval" not in tuple(snap.next) or not snap.created_at:
            return
        since = datetime.fromisoformat(str(snap.created_at)).timestamp()
    except Exception:  # telemetry never breaks a run
        return
    with _lock:
        for call in snap.values.get("pending_tool_calls") or []:
            if call.get("status") == "awaiting_approval":
                _asked_at.setdefault((session.id, str(call.get("call_id"))), since)


def _agent_name(session_id: str) -> str:
    return "cairn sub-agent" if "-sub-" in session_id else "cairn"


def _parent_context(session_id: str) -> Any:
    """A sub-agent's parent ``execute_tool`` span (same process), else None (a root span)."""
    if "-sub-" not in session_id:
        return None
    parent_id, _, call_id = session_id.rpartition("-sub-")
    with _lock:
        span = _open_tools.get((parent_id, call_id))
    return trace.set_span_in_context(span) if span is not None else None


def _model_label(model: Any, session: Any) -> str:
    for attr in ("model_name", "model", "model_id"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    spec = getattr(session, "model_spec", None) if session is not None else None
    return spec or type(model).__name__ if model is not None else (spec or "unknown")


def _provider(model: Any) -> str:
    return PROVIDERS.get(type(model).__name__, type(model).__name__)
