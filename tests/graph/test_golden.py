"""Golden files: the compiled graph's shape, the system prompt, the tool schemas.

Regenerate after an intended change with:

    CAIRN_REGEN_GOLDEN=1 .venv/bin/python -m pytest tests/graph/test_golden.py

and review the diff like code.
"""

from __future__ import annotations

import json
import os
from datetime import date
from pathlib import Path

from cairn.graph.build import build_graph
from cairn.graph.core.prompts import build_session_context, build_system_prompt
from cairn.tools import create_default_tools

GOLDEN = Path(__file__).parent / "golden"
REGEN = os.environ.get("CAIRN_REGEN_GOLDEN") == "1"


def check(name: str, actual: str) -> None:
    path = GOLDEN / name
    if REGEN or not path.exists():
        assert REGEN, f"golden file {path} is missing: run with CAIRN_REGEN_GOLDEN=1"
        path.write_text(actual)
    assert actual == path.read_text(), f"{name} changed; if intended, regenerate (see module docstring)"


def test_graph_shape():
    graph = build_graph().get_graph()
    check("graph.mmd", graph.draw_mermaid())
    nodes = set(graph.nodes) - {"__start__", "__end__"}
    # The five required nodes, plus compaction (issue 12: "keeping the five required nodes").
    assert nodes == {
        "reasoning",
        "tool_routing",
        "human_approval",
        "tool_execution",
        "observation",
        "compaction",
    }


def test_system_prompt(tmp_path):
    prompt = build_system_prompt("default")
    check("system_prompt.txt", prompt)
    assert build_system_prompt("plan").count("PLAN MODE") == 1
    lean = build_system_prompt("default", profile="lean")
    check("system_prompt_lean.txt", lean)
    assert len(lean) < len(prompt) * 0.6


def test_session_context(tmp_path):
    ws = tmp_path / "project"
    ws.mkdir()
    (ws / "AGENTS.md").write_text("Run tests with `make test`.\n")
    context = build_session_context(
        ws, today=date(2026, 1, 2), os_name="Linux 6.1", memory="- prefers pathlib"
    )
    check("session_context.txt", context.replace(str(ws), "<WORKSPACE>"))
    assert "make test" in context and "prefers pathlib" in context


def test_tool_schemas(tmp_path):
    schemas = [t.openai_schema() for t in create_default_tools(workspace=tmp_path)]
    check("tool_schemas.json", json.dumps(schemas, indent=2, sort_keys=True) + "\n")
    for schema in schemas:
        for field, spec in schema["function"]["parameters"].get("properties", {}).items():
            assert spec.get("description"), f"{schema['function']['name']}.{field} has no description"
