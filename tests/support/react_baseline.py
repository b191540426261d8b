"""The baseline beside cairn in bench_small_model.py: LangGraph's ``create_react_agent`` with the
same six tools (cairn's lean set, wrapped as LangChain tools, no approvals), the same model and
server, one task per process so the benchmark can stop it at the task's deadline.

    python -m tests.support.react_baseline --task NAME --workspace DIR --base-url URL \\
        --model NAME --out FILE.json

``run_react_task`` (used by the benchmark) makes the workspace, runs that command with a
deadline (SIGKILL of its process group), checks the task and returns a row shaped like
``small_model_run.run_task``'s.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.support.small_model_tasks import TASK_SETS, Task

LEAN_TOOLS = ("read_file", "glob", "grep", "edit_file", "write_file", "bash")
ROOT = Path(__file__).resolve().parents[2]


def langchain_tools(workspace: Path) -> list[Any]:
    """cairn's lean tools as LangChain ``StructuredTool``s (their own schemas and descriptions)."""
    from langchain_core.tools import StructuredTool

    from cairn.tools import create_default_tools

    out = []
    for tool in create_default_tools(workspace=workspace):
        if tool.name not in LEAN_TOOLS:
            continue

        def call(_tool: Any = tool, **kwargs: Any) -> str:
            result = _tool.execute(kwargs)
            text = result.model_text()
            return text if isinstance(text, str) else json.dumps(text)

        out.append(
            StructuredTool.from_function(
                func=call, name=tool.name, description=tool.description, args_schema=tool.args_schema
            )
        )
    return out


def run_in_process(task: Task, workspace: Path, base_url: str, model: str) -> dict[str, Any]:
    from langchain_core.messages import AIMessage
    from langchain_openai import ChatOpenAI
    from langgraph.prebuilt import create_react_agent

    # Streamed, so that when the run is killed at its deadline the server sees the connection
    # close and stops generating: a non-streamed reply that never ended kept llama.cpp's one slot
    # busy after the kill, and the next run (cairn's) waited behind it to its own deadline.
    chat = ChatOpenAI(
        model=model, base_url=base_url, api_key="not-needed", timeout=900, max_retries=0, streaming=True
    )
    agent = create_react_agent(chat, langchain_tools(workspace))
    state = agent.invoke({"messages": [("user", task.prompt)]}, {"recursion_limit": 40})
    messages = state["messages"]
    calls = [c for m in messages if isinstance(m, AIMessage) for c in m.tool_calls]
    last = messages[-1]
    answer = last.content if isinstance(last, AIMessage) and isinstance(last.content, str) else ""
    return {"status": "done", "answer": answer, "tool_calls": len(calls)}


def run_react_task(task: Task, base_url: str, *, model: str, timeout: float) -> dict[str, Any]:
    """One task through the ReAct baseline, start to check (a row like ``run_task``'s)."""
    with tempfile.TemporaryDirectory(prefix=f"react-{task.name}-") as tmp:
        ws, out = Path(tmp) / "ws", Path(tmp) / "out.json"
        ws.mkdir()
        task.setup(ws)
        cmd = [sys.executable, "-m", "tests.support.react_baseline", "--task", task.name]
        cmd += ["--workspace", str(ws), "--base-url", base_url, "--model", model, "--out", str(out)]
        started = time.monotonic()
        proc = subprocess.Popen(
            cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        wall = time.monotonic() - started
        doc = json.loads(out.read_text()) if out.is_file() else {}
        status = doc.get("status") or ("timeout" if proc.returncode in (None, -signal.SIGKILL) else "error")
        answer = doc.get("answer") or ""
        return {
            "task": task.name,
            "finished": bool(task.check(ws, answer)),
            "status": status,
            "wall_s": round(wall, 1),
            "tool_calls": doc.get("tool_calls", 0),
            "max_identical_calls": 0,
            "most_repeated": None,
            "approvals_asked": 0,
            "resumes": 0,
            "answer": answer[:300],
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", required=True)
    parser.add_argument("--workspace", type=Path, required=True)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    task = next(t for tasks in TASK_SETS.values() for t in tasks if t.name == args.task)
    try:
        doc = run_in_process(task, args.workspace, args.base_url, args.model)
    except Exception as exc:  # the baseline's own failure is a result, not a crash of the benchmark
        doc = {"status": "error", "answer": "", "error": f"{type(exc).__name__}: {exc}"[:500]}
    args.out.write_text(json.dumps(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
