"""``tool_search``: find deferred tools by name, alias, description and ``search_hint``, and load them.

When a session has many tools, only the core ones are bound to the model (see
``cairn.graph.core.tool_selection``); the others are listed by name in the system prompt and found
here.  The matches come back with their descriptions and are *activated*: the graph records
them in the checkpointed state (``metadata["state"]["activate_tools"]``), so the next model
call binds them, also after a restart.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field

from cairn.tools.base import ArgsModel, RiskLevel, Tool, ToolContext, ToolResult

__all__ = ["ToolSearchTool", "rank_tools"]

DESCRIPTION = """Search the tools that are not loaded yet (MCP servers, extra tools) and load the best
matches, so you can call them in your next step.

- query: words describing what you need ("github issues", "database query"), or
  "select:name1,name2" to load tools by exact name.
- Returns each match's name and description; matched tools are then available to call."""

_WORD = re.compile(r"[a-z0-9]+")


class ToolSearchArgs(ArgsModel):
    query: str = Field(description='What you need, or "select:NAME[,NAME...]" for exact names.')
    max_results: int = Field(default=5, ge=1, le=20, description="Most tools to return and load.")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower().replace("_", " ")))


def rank_tools(tools: list[Any], query: str, limit: int) -> list[Any]:
    """Best matches first: whole name > words in the name or aliases > search_hint > description."""
    q = query.strip().lower()
    terms = _words(q)
    scored = []
    for tool in tools:
        name = tool.name.lower()
        aliases = [a.lower() for a in getattr(tool, "aliases", ())]
        score = 0.0
        if q == name or q in aliases:
            score += 100
        elif q and q in name:
            score += 20
        name_words = _words(name) | {w for a in aliases for w in _words(a)}
        hint = _words(getattr(tool, "search_hint", "") or "")
        desc = _words(getattr(tool, "description", "") or "")
        for term in terms:
            score += 6 * (term in name_words) + 3 * (term in hint) + 1 * (term in desc)
            score += 2 * any(w.startswith(term) and w != term for w in name_words)
        if score > 0:
            scored.append((score, tool.name, tool))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [tool for _, _, tool in scored[:limit]]


class ToolSearchTool(Tool):
    name = "tool_search"
    plan_mode = True
    counted = False  # it exists to load the deferred tools
    core = True
    description = DESCRIPTION
    args_schema = ToolSearchArgs
    risk_level = RiskLevel.LOW
    read_only = True
    concurrency_safe = True
    idempotent = True
    aliases = ("ToolSearch", "search_tools")
    search_hint = "find load more tools deferred mcp"

    def run(self, params: ToolSearchArgs, ctx: ToolContext) -> ToolResult:
        registry = self.services.registry
        if registry is None:
            return ToolResult.fail("No tool catalogue is available in this session.")
        candidates = [t for t in registry if t.name != self.name]
        query = params.query.strip()
        if query.lower().startswith("select:"):
            wanted = [n.strip() for n in query[len("select:") :].split(",") if n.strip()]
            found = [registry.get(n) for n in wanted]
            matches = [t for t in found if t is not None and t.name != self.name]
            missing = [n for n, t in zip(wanted, found, strict=True) if t is None]
        else:
            matches, missing = rank_tools(candidates, query, params.max_results), []
        if not matches:
            return ToolResult(
                output=f"No tool matches {query!r}. Try other words; tools available to load: "
                + ", ".join(t.name for t in candidates[:60]),
                display=f"no tools match {query[:60]}",
            )
        lines = [f"Loaded {len(matches)} tool(s); call them by name in your next step:"]
        for tool in matches:
            first = " ".join((tool.description or "").split())[:300]
            lines.append(f"- {tool.name}: {first}")
        if missing:
            lines.append(f"Unknown: {', '.join(missing)}")
        names = [t.name for t in matches]
        return ToolResult(
            output="\n".join(lines),
            display=f"loaded {', '.join(names)[:100]}",
            metadata={"state": {"activate_tools": names}},
        )
