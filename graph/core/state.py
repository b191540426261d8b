"""The agent's checkpointed state.

Everything here is plain serializable data.  Messages are not stored in the
state: they live once in the transcript table (``cairn.checkpoints.transcript``) and
the state keeps ``head``, the id of the newest message, so checkpoints stay a
few hundred bytes however long the conversation grows.

A tool call moves through the statuses in ``STATUSES``::

    pending → awaiting_approval → pending (approved) | cancelled (rejected)
    pending → executing → success | error
    executing → interrupted (process died or was stopped mid-call)
    executing → awaiting_approval (an ``agent`` call whose sync sub-agent waits for a person;
                                   approved once the sub-agent's calls are decided)
    interrupted → pending (explicit retry) | cancelled (explicit cancel)
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

Status = Literal["pending", "awaiting_approval", "executing", "success", "error", "cancelled", "interrupted"]
STATUSES: tuple[str, ...] = (
    "pending",
    "awaiting_approval",
    "executing",
    "success",
    "error",
    "cancelled",
    "interrupted",
)
TERMINAL_STATUSES = frozenset({"success", "error", "cancelled"})
#: Calls waiting for a person: to be approved, or to be retried/cancelled after an interruption.
GATED_STATUSES = ("awaiting_approval", "interrupted")


#: Fields left out of a call's JSON while empty, so outputs made before them keep their shape.
_OMITTED_WHEN_EMPTY = ("network", "network_offer", "hooks")


class ToolCallInfo(BaseModel):
    """One tool call and where it stands in its lifecycle."""

    model_config = ConfigDict(extra="ignore")

    call_id: str
    tool_name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    status: Status = "pending"
    #: What the model reads (text, or content blocks for images); set when the call ends.
    result: str | list[dict[str, Any]] | None = None
    error_msg: str | None = None
    risk: str | None = None
    reason: str | None = None
    #: The one-line summary a person sees (ToolResult.display).
    display: str | None = None
    #: Person-facing structured data (diff, changed files, image), never sent to the model.
    metadata: dict[str, Any] = Field(default_factory=dict)
    #: Why a person decided as they did ("edited", "rejected: use pathlib", "retried").
    decision: str | None = None
    #: Arguments as the model first sent them, when a person edited them.
    original_arguments: dict[str, Any] | None = None
    #: Dry-run preview (e.g. the diff of an edit) shown when asking for approval.
    preview: str | None = None
    #: A harness note for the model, put before the result (e.g. a deferred tool got activated).
    note: str | None = None
    #: Incremented by an explicit retry, so the journal tells a fresh retry from a crashed run.
    attempt: int = 0
    #: The OS sandbox profile a shell call runs in (from the verdict, or "off" when a person
    #: chose "run without sandbox"); None for other tools.
    sandbox: str | None = None
    #: Domains this shell call may reach through the sandbox's egress proxy: its allow rule's, or
    #: a person's "yes, with network" (``cairn.tools.shell.netproxy``); None: no network.
    network: list[str] | None = None
    #: Domains the approval prompt offers for it (the package managers' registries); offered only.
    network_offer: list[str] | None = None
    #: A sub-agent's call shown at its parent (``cairn.graph.session.child_approvals``): the
    #: child session's id and its description.  The call id is then ``<agent call>/<call>``.
    agent_id: str | None = None
    agent: str | None = None
    #: -- hooks (issue 32): the hook runs of this call (``cairn.graph.core.hooks.outcome.HookRun`` records).
    hooks: list[dict[str, Any]] = Field(default_factory=list)

    @model_serializer(mode="wrap")
    def _without_empty_new_fields(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Network grants and hook runs appear only when a call has them, so JSON outputs made
        before them (stream-json, ``cairn show --json``) keep their shape for every other call."""
        data = handler(self)
        for key in _OMITTED_WHEN_EMPTY:
            if key in data and not data[key]:
                del data[key]
        return data

    def to_state(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_defaults=True) | {
            "call_id": self.call_id,
            "tool_name": self.tool_name,
            "status": self.status,
        }


class AgentState(TypedDict, total=False):
    """Checkpointed state of one session (a LangGraph thread)."""

    #: Id of the newest transcript message (see ``cairn.checkpoints.transcript``).
    head: str | None
    #: Tool calls of the current turn that are not finished (ToolCallInfo dicts, model order).
    pending_tool_calls: list[dict[str, Any]]
    #: Tool calls of the current turn that are finished, waiting for ``observation``.
    completed_tool_calls: list[dict[str, Any]]
    #: "Always allow" rules granted by a person during this session.
    session_rules: list[str]
    #: The agent's one task list (todo_write, task_create/task_update), survives restarts.
    tasks: list[dict[str, Any]]
    #: Counters: model_calls, tool_calls, tokens_in, tokens_out, ...
    counters: dict[str, int]
    #: Model calls since the last person message or continue (for max_steps).
    run_steps: int
    #: Deferred tools activated in this session (tool_search, or called directly); bound from then on.
    activated_tools: list[str]
    #: Set when a run paused on its own (``"max_steps"``, ``"loop"``), cleared by the next run.
    paused: str | None
    #: Why the run paused, for people (e.g. which call the model kept repeating).
    pause_reason: str | None
    #: Background sub-agents whose final report was delivered to this session (exactly once).
    delivered_agents: list[str]
    #: This run's finished calls by tool + arguments, to notice repeats (``cairn.graph.core.loops``).
    loop_memory: dict[str, Any] | None
    #: Context bookkeeping (``cairn.graph.core.compaction``): the latest compaction marker id,
    #: ``elide_before``, token calibration, the last prompt size, ``hard_retry``.
    context: dict[str, Any]
    #: A compaction to run before the next model call: ``{"id", "kind", "focus"}``.
    compact_request: dict[str, Any] | None
    # -- issue 34 hook-in (cairn.graph.core.cost.spend): usage ledgers {model: {tokens..., calls}} --
    #: The session's own model usage.
    spend: dict[str, Any]
    #: This run's usage (its own model calls and its sub-agents'), for ``max_cost``.
    run_spend: dict[str, Any] | None
    #: Sub-agents' usage already counted into ``run_spend``.
    agents_spend: dict[str, Any]


#: A new run (a message, or continuing a paused one) starts its step count and repeat memory anew.
FRESH_RUN: dict[str, Any] = {
    "run_steps": 0,
    "paused": None,
    "pause_reason": None,
    "loop_memory": None,
    "run_spend": None,  # issue 34 hook-in: each run has its own money budget
}


def calls(items: list[dict[str, Any]] | None) -> list[ToolCallInfo]:
    return [ToolCallInfo.model_validate(i) for i in items or []]


def dump_calls(items: list[ToolCallInfo]) -> list[dict[str, Any]]:
    return [i.to_state() for i in items]


def unfinished_steps(snapshot: Any) -> tuple[str, ...]:
    """The nodes a stored run still has to go through, from a LangGraph ``StateSnapshot``.

    ``snapshot.next`` leaves out a node that finished and saved its writes when the process
    died before the next checkpoint; its task is still listed (with its writes), and
    resuming applies them and goes on.  Both mean the run is not finished.
    """
    return tuple(snapshot.next) or tuple(t.name for t in getattr(snapshot, "tasks", ()) or ())
