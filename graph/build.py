"""Wiring the five nodes into the agent graph (see docs/architecture.md → The graph).

    START → reasoning ─(no tool calls)→ END
                │ tool calls
                ▼
          tool_routing ─(nothing gated, or some calls allowed)→ tool_execution → observation → reasoning
                │ only gated calls                       ▲   │ gated calls left
                ▼                                        │   ▼
          human_approval ────────────────────────────────┘ human_approval

LOW calls never wait: when a turn has both allowed and gated calls, the allowed
ones run first and the person is asked afterwards.  Calls found interrupted go
back through tool_routing.

Compaction (``cairn.graph.core.compaction``) is a sixth node beside the five:
``reasoning`` routes to it when the prompt would pass the threshold or the provider
answered ``context_length_exceeded``, and it returns to ``reasoning``; a manual
compaction (``Session.compact``) enters it from START and ends there.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.types import Command

from cairn.graph.core.context import AgentContext
from cairn.graph.core.state import AgentState
from cairn.graph.nodes.changes import routed_step
from cairn.graph.nodes.compaction import compaction
from cairn.graph.nodes.human_approval import human_approval
from cairn.graph.nodes.observation import observation
from cairn.graph.nodes.reasoning import reasoning
from cairn.graph.nodes.tool_execution import tool_execution
from cairn.graph.nodes.tool_routing import tool_routing


def _statuses(state: AgentState) -> set[str]:
    return {c.get("status", "pending") for c in state.get("pending_tool_calls") or []}


def from_start(state: AgentState) -> str:
    return "compaction" if state.get("compact_request") else "reasoning"


def after_compaction(state: AgentState) -> str:
    """An automatic compaction goes on to the model call; a manual one ends the run, or asks
    again about the calls that were waiting for a person when it started."""
    if (state.get("context") or {}).get("last_kind") != "manual":
        return "reasoning"
    return "human_approval" if _statuses(state) & {"awaiting_approval", "interrupted"} else END


def after_reasoning(state: AgentState) -> str:
    if state.get("compact_request"):
        return "compaction"
    if state.get("paused"):
        return END
    if state.get("pending_tool_calls") or state.get("completed_tool_calls"):
        return "tool_routing"
    return END


def after_routing(state: AgentState) -> str:
    statuses = _statuses(state)
    if "pending" in statuses or not statuses & {"awaiting_approval", "interrupted"}:
        return "tool_execution"
    return "human_approval"


def after_execution(state: AgentState) -> str:
    statuses = _statuses(state)
    if "interrupted" in statuses:
        return "tool_routing"
    if "awaiting_approval" in statuses:
        return "human_approval"
    return "observation"


#: The standard graph compiled once, by the node functions it was built from.
_compiled: dict[tuple[Any, ...], Any] = {}
_compiled_lock = threading.Lock()


def build_graph(
    checkpointer: Any = None,
    *,
    state_schema: Any = AgentState,
    wrap: Callable[[str, Any], Any] | None = None,
    intake: Any = None,
) -> Any:
    """The agent graph.  ``wrap(name, node)`` and ``intake`` (a node run first) are for hosts
    that cannot pass cairn's runtime context per invoke (``cairn.graph.apps.server``).

    The standard graph is compiled once per process (~15 ms: LangGraph inspects every node's
    code) and each session gets a copy bound to its checkpointer: a run never changes the
    compiled graph, so the copies share its nodes and channel specs.
    """
    if state_schema is AgentState and wrap is None and intake is None:
        # Keyed by the node functions, so a test that replaces one gets a graph with it.
        key = (reasoning, tool_routing, human_approval, tool_execution, observation, compaction)
        with _compiled_lock:
            if key not in _compiled:
                _compiled[key] = _build(AgentState, None, None, None)
            compiled = _compiled[key]
        return compiled.copy({"checkpointer": checkpointer})
    return _build(state_schema, wrap, intake, checkpointer)


#: Where each node may go next, and the function that decides it (``human_approval`` and
#: ``observation`` always go to the same node).
ROUTES: dict[str, tuple[Callable[[Any], str], tuple[str, ...]]] = {
    "reasoning": (after_reasoning, ("tool_routing", "compaction", END)),
    "compaction": (after_compaction, ("reasoning", "human_approval", END)),
    "tool_routing": (after_routing, ("tool_execution", "human_approval")),
    "tool_execution": (after_execution, ("observation", "human_approval", "tool_routing")),
}


def update_state_as(graph: Any, config: Any, values: dict[str, Any], as_node: str) -> Any:
    """``graph.update_state(config, values, as_node=as_node)``, going on where ``as_node`` would.

    The standard graph's nodes decide their next node in their own step (``routed_step``): an
    update written as one of them carries that decision (a ``Command``), made by the same route
    function on the state with ``values`` applied, as a conditional edge would have.
    """
    if as_node in ROUTES and graph.builder.branches.get(as_node) is None:
        route = ROUTES[as_node][0]
        current = dict(graph.get_state(config).values)
        return graph.update_state(
            config, Command(update=values, goto=route({**current, **values})), as_node=as_node
        )
    return graph.update_state(config, values, as_node=as_node)


def _build(state_schema: Any, wrap: Callable[[str, Any], Any] | None, intake: Any, checkpointer: Any) -> Any:
    builder = StateGraph(state_schema, context_schema=None if wrap else AgentContext)
    nodes = {
        "reasoning": reasoning,
        "tool_routing": tool_routing,
        "human_approval": human_approval,
        "tool_execution": tool_execution,
        "observation": observation,
        "compaction": compaction,
    }
    for name, node in nodes.items():
        if wrap is not None:  # a host's wrapper reads and extends the node's plain update
            builder.add_node(name, wrap(name, node))
            if name in ROUTES:
                route, ends = ROUTES[name]
                builder.add_conditional_edges(name, route, list(ends))
        elif name in ROUTES:
            route, ends = ROUTES[name]
            builder.add_node(name, routed_step(node, route), destinations=ends)
        else:
            builder.add_node(name, routed_step(node, None))
    if intake is not None:
        builder.add_node("intake", intake)
        builder.add_edge(START, "intake")
        builder.add_conditional_edges("intake", from_start, ["reasoning", "compaction"])
    else:
        builder.add_conditional_edges(START, from_start, ["reasoning", "compaction"])
    builder.add_edge("human_approval", "tool_execution")
    builder.add_edge("observation", "reasoning")
    return builder.compile(checkpointer=checkpointer)
