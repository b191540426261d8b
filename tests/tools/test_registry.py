"""The tool contract and the registry: lookup, aliases, schemas, validation, LangChain tools."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.tools import tool as lc_tool
from pydantic import Field

from cairn.tools import RiskLevel, Tool, ToolRegistry, ToolResult, builtin_aliases, create_default_tools
from cairn.tools.base import ArgsModel, ToolContext
from cairn.tools.langchain_adapter import LangChainTool


class CountArgs(ArgsModel):
    n: int = Field(description="How many.")
    loud: bool = Field(default=False, description="Shout.")
    tags: list[str] = Field(default_factory=list, description="Labels.")


class CountTool(Tool):
    name = "count"
    description = "Counts."
    args_schema = CountArgs
    risk_level = RiskLevel.LOW
    aliases = ("Count", "counter")

    def run(self, params: Any, ctx: ToolContext) -> ToolResult:
        if params.n < 0:
            raise RuntimeError("negative")
        return ToolResult(output=f"{params.n} {params.loud} {params.tags}", display="counted")


@pytest.fixture
def registry(workspace) -> ToolRegistry:
    return ToolRegistry([CountTool(workspace_obj(workspace))])


def workspace_obj(path: str):
    from cairn.tools.workspace import Workspace

    return Workspace(path)


def test_create_default_tools_is_the_builtin_list(workspace):
    names = [t.name for t in create_default_tools(workspace=workspace)]
    assert names[:4] == ["read_file", "ls", "glob", "grep"]
    assert {"edit_file", "write_file", "bash", "bash_output", "kill_bash", "web_fetch", "agent"} <= set(names)
    assert len(names) == len(set(names))
    ToolRegistry(create_default_tools(workspace=workspace))  # no duplicate names or aliases


def test_familiar_aliases_resolve(workspace):
    reg = ToolRegistry(create_default_tools(workspace=workspace))
    for alias, name in [
        ("Read", "read_file"),
        ("FileRead", "read_file"),
        ("Bash", "bash"),
        ("Edit", "edit_file"),
        ("Write", "write_file"),
        ("Grep", "grep"),
        ("Glob", "glob"),
        ("ListDir", "ls"),
        ("WebFetch", "web_fetch"),
    ]:
        assert reg.resolve_name(alias) == name, alias
        assert builtin_aliases()[alias.lower()] == name
    assert reg.resolve_name("nope") is None


def test_duplicates_are_rejected(registry, workspace):
    with pytest.raises(ValueError, match="duplicate"):
        registry.register(CountTool(workspace_obj(workspace)))


def test_model_mistakes_are_coerced(registry):
    tool, args = registry.validate("count", {"n": "5", "loud": "true", "tags": '["a", "b"]'})
    assert args == {"n": 5, "loud": True, "tags": ["a", "b"]}
    tool, args = registry.validate("Count", '{"n": 3}')
    assert tool.name == "count" and args == {"n": 3}


def test_validation_errors_say_what_to_fix(registry):
    result = registry.validate("count", {"n": "many", "extra": 1})
    assert isinstance(result, ToolResult) and not result.ok
    assert "n:" in result.error and "'many'" in result.error
    assert "extra: unknown argument" in result.error
    assert "required field is missing" in registry.validate("count", {}).error
    assert "not valid JSON" in registry.validate("count", "{nope").error
    assert "must be a JSON object" in registry.validate("count", [1]).error


def test_unknown_tool_lists_the_valid_ones(registry):
    result = registry.execute("frobnicate", {})
    assert "Unknown tool 'frobnicate'" in result.error and "count" in result.error


def test_execute_turns_exceptions_into_errors(registry):
    result = registry.execute("count", {"n": -1})
    assert not result.ok and "negative" in result.error
    assert registry.execute("count", {"n": 2}).output == "2 False []"


def test_schemas_and_filtered_views(workspace):
    reg = ToolRegistry(create_default_tools(workspace=workspace))
    schemas = reg.schemas()
    assert all(s["type"] == "function" for s in schemas)
    read_only = reg.filtered(read_only=True)
    assert "read_file" in read_only.names and "bash" not in read_only.names
    assert reg.filtered(["Read", "bash"]).names == ["read_file", "bash"]


def test_langchain_tools_register_with_medium_risk_by_default(registry):
    @lc_tool
    def shout(text: str) -> str:
        """Upper-case a text."""
        return text.upper()

    wrapped = registry.register(shout)
    assert isinstance(wrapped, LangChainTool) and wrapped.risk_level == RiskLevel.MEDIUM
    assert registry.execute("shout", {"text": "hi"}).output == "HI"
    assert "Invalid arguments" in registry.execute("shout", {}).error
    schema = wrapped.openai_schema()["function"]
    assert schema["name"] == "shout" and "text" in schema["parameters"]["properties"]


def test_langchain_tool_metadata_sets_risk_and_read_only(registry):
    @lc_tool
    def lookup(key: str) -> str:
        """Look a key up."""
        return key

    lookup.metadata = {"risk_level": "LOW", "read_only": True}
    wrapped = registry.register(lookup)
    assert wrapped.risk_level == RiskLevel.LOW and wrapped.read_only


def test_tool_result_is_json_safe_even_with_odd_metadata():
    data = ToolResult(output="x", metadata={"when": object()}).to_json()
    assert data["output"] == "x" and isinstance(data["metadata"]["when"], str)


def test_a_real_tool_name_beats_a_builtin_alias(workspace):
    reg = ToolRegistry(create_default_tools(workspace=workspace))
    assert reg.resolve_name("fetch") == "web_fetch"

    @lc_tool
    def fetch(url: str) -> str:
        """An MCP-style tool that happens to be called fetch."""
        return f"fetched {url}"

    reg.register(fetch)
    assert reg.resolve_name("fetch") == "fetch"
    assert reg.execute("fetch", {"url": "x"}).output == "fetched x"
    assert reg.resolve_name("WebFetch") == "web_fetch"


def test_async_only_langchain_tools_run_even_inside_a_running_loop(registry):
    import asyncio

    from langchain_core.tools import StructuredTool

    async def lookup(key: str) -> str:
        await asyncio.sleep(0)
        return f"value of {key}"

    tool = StructuredTool.from_function(coroutine=lookup, name="lookup", description="Async only.")
    registry.register(tool)

    async def inside_loop() -> ToolResult:
        return registry.execute("lookup", {"key": "k"})

    assert registry.execute("lookup", {"key": "k"}).output == "value of k"
    assert asyncio.run(inside_loop()).output == "value of k"


def test_langchain_schemas_with_field_aliases(registry):
    from langchain_core.tools import StructuredTool
    from pydantic import BaseModel

    class Range(BaseModel):
        from_: int = Field(alias="from", description="Start.")
        to: int = Field(description="End.")

    tool = StructuredTool.from_function(
        func=lambda **kw: f"{kw['from_']}..{kw['to']}", name="span", description="Span.", args_schema=Range
    )
    registry.register(tool)
    assert registry.execute("span", {"from": 1, "to": 3}).output == "1..3"
