"""The tool registry: lookup by name or alias, schemas for the model, validation.

Built from a plain list.  Any LangChain ``BaseTool`` can be registered; it is
wrapped in :class:`cairn.tools.langchain_adapter.LangChainTool` (risk MEDIUM unless
given).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from cairn.tools.base import Tool, ToolContext, ToolResult, format_validation_error, without_null_optionals

#: Error types where a JSON-encoded string probably holds the intended value.
_JSON_COERCIBLE = {"list_type", "dict_type", "model_type", "model_attributes_type", "tuple_type"}


class ToolRegistry:
    """An ordered, name-unique collection of tools with alias resolution."""

    def __init__(self, tools: Iterable[Any] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._aliases: dict[str, str] = {}
        self._schemas: list[dict[str, Any]] | None = None
        for tool in tools:
            self.register(tool)

    # -- building ---------------------------------------------------------------------
    def register(self, tool: Any, *, risk_level: Any = None) -> Tool:
        """Add a cairn ``Tool`` or a LangChain ``BaseTool``; duplicate names are rejected."""
        if not isinstance(tool, Tool):
            from cairn.tools.langchain_adapter import wrap_langchain_tool

            tool = wrap_langchain_tool(tool, risk_level=risk_level)
        if tool.name in self._tools:
            raise ValueError(f"duplicate tool name: {tool.name!r}")
        # A real name beats an alias: an MCP tool called "fetch" or "search" takes that name.
        self._aliases.pop(tool.name.lower(), None)
        self._tools[tool.name] = tool
        self._schemas = None
        for alias in tool.aliases:
            # An alias never shadows a real tool name or another tool's alias.
            if alias not in self._tools and alias.lower() not in self._aliases:
                self._aliases[alias.lower()] = tool.name
        return tool

    # -- lookup -----------------------------------------------------------------------
    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def __iter__(self):
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.resolve_name(name) is not None

    def names_and_aliases(self) -> list[str]:
        """Every name the model may use for a tool here (canonical names and aliases)."""
        aliases = [a for t in self._tools.values() for a in t.aliases]
        return [*self._tools, *aliases]

    def resolve_name(self, name: str) -> str | None:
        """Canonical name for ``name`` or one of its aliases (aliases are case-insensitive)."""
        if name in self._tools:
            return name
        owner = self._aliases.get(name.lower())
        return owner if owner in self._tools else None

    def get(self, name: str) -> Tool | None:
        canonical = self.resolve_name(name)
        return self._tools[canonical] if canonical else None

    def unknown_tool_message(self, name: str) -> str:
        return (
            f"Unknown tool {name!r}. Valid tools are: {', '.join(self.names)}. "
            "Call one of these by its exact name."
        )

    # -- views ------------------------------------------------------------------------
    def filtered(self, names: Iterable[str] | None = None, *, read_only: bool = False) -> ToolRegistry:
        """A view with only the named tools and/or only read-only ones."""
        wanted = None if names is None else {self.resolve_name(n) or n for n in names}
        view = ToolRegistry()
        for tool in self._tools.values():
            if wanted is not None and tool.name not in wanted:
                continue
            if read_only and not tool.read_only:
                continue
            view.register(tool)
        return view

    def schemas(self) -> list[dict[str, Any]]:
        """OpenAI-format function schemas, for ``bind_tools`` (computed once per tool set)."""
        if self._schemas is None:
            self._schemas = [tool.openai_schema() for tool in self._tools.values()]
        return self._schemas

    # -- validation and execution -----------------------------------------------------------
    def validate(self, name: str, args: Any) -> tuple[Tool, dict[str, Any]] | ToolResult:
        """Resolve the tool and validate ``args``, coercing common model mistakes.

        Returns ``(tool, normalized_args)`` or an error ``ToolResult`` for the model.
        """
        tool = self.get(name)
        if tool is None:
            return ToolResult.fail(self.unknown_tool_message(name), display=f"unknown tool {name}")
        if isinstance(args, str):
            try:
                args = json.loads(args) if args.strip() else {}
            except json.JSONDecodeError as exc:
                return ToolResult.fail(f"Arguments for {tool.name} are not valid JSON: {exc}")
        if not isinstance(args, Mapping):
            return ToolResult.fail(
                f"Arguments for {tool.name} must be a JSON object, got {type(args).__name__}."
            )
        try:
            model = _validate_with_coercion(tool.args_schema, without_null_optionals(tool.args_schema, args))
        except ValidationError as exc:
            return ToolResult.fail(format_validation_error(tool.name, exc, tool.args_schema.model_fields))
        return tool, model.model_dump(mode="json", exclude_unset=True, by_alias=True)

    def execute(self, name: str, args: Any, ctx: ToolContext | None = None) -> ToolResult:
        checked = self.validate(name, args)
        if isinstance(checked, ToolResult):
            return checked
        tool, normalized = checked
        return tool.execute(normalized, ctx)


def _validate_with_coercion(schema: type[BaseModel], args: dict[str, Any]) -> BaseModel:
    """Validate in lax mode ("5" -> 5, "true" -> True); retry once decoding JSON strings
    the model sent where a list or object was expected."""
    try:
        return schema.model_validate(args)
    except ValidationError as exc:
        fixed = dict(args)
        changed = False
        for err in exc.errors():
            loc = err.get("loc", ())
            if len(loc) != 1 or err.get("type") not in _JSON_COERCIBLE:
                continue
            value = fixed.get(loc[0])
            if isinstance(value, str):
                try:
                    fixed[loc[0]] = json.loads(value)
                    changed = True
                except json.JSONDecodeError:
                    pass
        if not changed:
            raise
        return schema.model_validate(fixed)
