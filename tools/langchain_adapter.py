"""Run any LangChain ``BaseTool`` (and MCP tools via langchain-mcp-adapters) as a cairn tool."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from pydantic import BaseModel, ConfigDict, create_model

from cairn.tools.base import RiskLevel, Tool, ToolContext, ToolResult
from cairn.tools.workspace import Workspace


class _FreeformArgs(BaseModel):
    model_config = ConfigDict(extra="allow")


def _schema_for(lc_tool: Any) -> type[BaseModel]:
    schema = getattr(lc_tool, "args_schema", None)
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return schema
    if isinstance(schema, dict):
        # JSON-schema tools (MCP): accept the declared fields, validated by the tool itself.
        fields = {name: (Any, ...) for name in schema.get("required", [])}
        for name in schema.get("properties", {}):
            fields.setdefault(name, (Any, None))
        return create_model(f"{lc_tool.name}_args", __base__=_FreeformArgs, **fields)
    return _FreeformArgs


class LangChainTool(Tool):
    """Adapter: validation and errors-as-data around a LangChain tool."""

    # Instance-level overrides of the class metadata.
    def __init__(
        self,
        lc_tool: Any,
        *,
        risk_level: RiskLevel | str | None = None,
        read_only: bool = False,
        workspace: Workspace | None = None,
    ) -> None:
        super().__init__(workspace or Workspace("."))
        self.lc_tool = lc_tool
        self.name = lc_tool.name  # type: ignore[misc]
        self.description = lc_tool.description or lc_tool.name  # type: ignore[misc]
        self.args_schema = _schema_for(lc_tool)  # type: ignore[misc]
        self.risk_level = RiskLevel(risk_level or RiskLevel.MEDIUM)  # type: ignore[misc]
        self.read_only = read_only  # type: ignore[misc]
        self.plan_mode = read_only  # type: ignore[misc]  # plan mode offers it only when declared read-only
        self.concurrency_safe = read_only  # type: ignore[misc]

    def run(self, params: Any, ctx: ToolContext) -> ToolResult:
        if isinstance(params, BaseModel):
            args = params.model_dump(exclude_unset=True, by_alias=True)
        else:
            args = dict(params)
        try:
            value = self.lc_tool.invoke(args)
        except NotImplementedError:
            # Async-only tools (MCP tools from langchain-mcp-adapters): run the coroutine on a
            # private event loop in a worker thread, so a running loop (Jupyter) is never touched.
            with ThreadPoolExecutor(max_workers=1) as pool:
                value = pool.submit(asyncio.run, self.lc_tool.ainvoke(args)).result()
        text = value if isinstance(value, str) else getattr(value, "content", None) or str(value)
        if not isinstance(text, str):
            text = str(text)
        first = text.strip().splitlines()[0][:120] if text.strip() else "(no output)"
        return ToolResult(output=text, display=f"{self.name}: {first}")

    def openai_schema(self) -> dict[str, Any]:
        schema = getattr(self.lc_tool, "args_schema", None)
        if isinstance(schema, dict):
            params = dict(schema)
            params.pop("title", None)
            return {
                "type": "function",
                "function": {
                    "name": self.name,
                    "description": self.description,
                    "parameters": params,
                },
            }
        return super().openai_schema()


def wrap_langchain_tool(lc_tool: Any, *, risk_level: Any = None) -> LangChainTool:
    if not hasattr(lc_tool, "invoke") or not hasattr(lc_tool, "name"):
        raise TypeError(f"not a tool: {lc_tool!r} (expected a cairn Tool or a LangChain BaseTool)")
    meta = getattr(lc_tool, "metadata", None) or {}
    risk = risk_level or meta.get("risk_level")
    read_only = bool(meta.get("read_only", False))
    return LangChainTool(lc_tool, risk_level=risk, read_only=read_only)
