"""cairn's graph for LangGraph Server and ``langgraph dev`` (``langgraph.json`` → ``graph``).

The server owns threads, runs, checkpoints and the Agent Protocol; cairn's nodes also need
what a ``Session`` gives them per run (the model, the tools bound to a workspace, the policy
rules, cairn's journal and transcript), which a server cannot send as JSON.  So each node is
wrapped to build that context from the server process's environment, once per thread:

- ``CAIRN_WORKSPACE``: the directory the agent works in (default: the server's cwd);
- ``CAIRN_MODEL`` (+ ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL``): the model;
- ``CAIRN_DB``: where cairn keeps its journal and transcript (a ``postgresql://`` URL when
  the server runs on Postgres; a file for ``langgraph dev``);
- ``CAIRN_SERVER_MODE``: the approval mode (default ``default``: risky calls interrupt).

Input ``{"prompt": "..."}`` starts a turn; the approval interrupt's value lists the gated
calls and carries a JSON ``response_schema``; resume with ``Command(resume={"decisions":
{call_id: {"action": "approve" | "always" | "reject" | "edit" | "retry" | "cancel",
"message": "why (reject)", "args": {...} (edit)}}})``; ``reply`` in the state is the agent's
last answer.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.runnables import RunnableConfig

from cairn.graph.build import build_graph
from cairn.graph.core.messages import message_text
from cairn.graph.core.state import AgentState


class ServerState(AgentState, total=False):
    #: A new person message for this run (consumed by ``intake``).
    prompt: str | None
    #: The agent's last answer (set when a model turn ends without tool calls).
    reply: str


class _Runtime:
    """What the nodes read from LangGraph's ``Runtime``: the context."""

    def __init__(self, context: Any) -> None:
        self.context = context


_sessions: dict[str, Any] = {}
_lock = threading.Lock()


def _session(thread_id: str) -> Any:
    from cairn.graph.models.factory import default_model_spec
    from cairn.graph.session.session import Session

    with _lock:
        if thread_id not in _sessions:
            _sessions[thread_id] = Session(
                os.environ.get("CAIRN_WORKSPACE") or os.getcwd(),
                model=default_model_spec(),  # $CAIRN_MODEL, $OPENAI_MODEL, gpt-4o-mini
                db=None,  # $CAIRN_DB, else cairn.db in the state dir (cairn.checkpoints.location)
                mode=os.environ.get("CAIRN_SERVER_MODE") or "default",
                session_id=thread_id,
            )
        return _sessions[thread_id]


def _context(config: RunnableConfig) -> Any:
    from cairn.graph.session.runs import make_context

    return make_context(_session(config["configurable"]["thread_id"]).core, False, None)


def _wrap(name: str, node: Any) -> Any:
    def run(state: ServerState, config: RunnableConfig) -> dict[str, Any]:
        ctx = _context(config)
        update = node(state, _Runtime(ctx))
        if name == "reasoning" and update.get("head") and not update.get("pending_tool_calls"):
            [last] = ctx.store.transcript.read(ctx.thread_id, update["head"])[-1:]
            if isinstance(last, AIMessage):
                update = {**update, "reply": message_text(last)}
        return update

    run.__name__ = name
    return run


def intake(state: ServerState, config: RunnableConfig) -> dict[str, Any]:
    """Append the run's prompt to cairn's transcript (what ``Session.send`` does)."""
    prompt = (state.get("prompt") or "").strip()
    if not prompt:
        return {}
    session = _session(config["configurable"]["thread_id"])
    head = session.store.transcript.append(session.id, state.get("head"), [HumanMessage(prompt)])
    return {"head": head, "prompt": None, "run_steps": 0, "paused": None, "reply": ""}


def make_graph() -> Any:
    """The compiled graph, without a checkpointer (the server brings its own)."""
    return build_graph(state_schema=ServerState, wrap=_wrap, intake=intake)


graph = make_graph()
