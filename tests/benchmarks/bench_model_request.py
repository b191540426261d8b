"""CPU per model call through ChatOpenAI, beside a raw httpx + orjson POST of the same payload.

    .venv/bin/python tests/benchmarks/bench_model_request.py [--sizes 100,1000,10000] [--repeats 7]

A history of N messages (a person's message, then turns of an AIMessage with one tool call and
a ~400-byte ToolMessage) plus cairn's real tool schemas and a system prompt is sent, streaming,
to ``tests/support/openai_server.py`` running in a subprocess (so its CPU is not counted).
Measured is this process's CPU time (``time.process_time``) for one whole call, reply included:

- ``stock``: ``langchain_openai.ChatOpenAI`` as shipped (the OpenAI SDK's typed transform);
- ``cairn``: what ``create_model`` returns (``CairnChatOpenAI``), first call and later calls
  (a session resends the same history plus a few messages: converted messages are reused);
- ``raw``: the OpenAI-format payload built once, then ``orjson.dumps`` + ``httpx`` POST, reading
  the streamed reply — the floor for any client.

Medians of ``--repeats`` calls after one warm-up; the ratio is cairn / raw.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def history(n: int) -> list:
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    out: list = [SystemMessage("You are cairn. " * 200), HumanMessage("Please fix the failing tests.")]
    i = 0
    while len(out) < n:
        call = {"name": "bash", "args": {"command": f"pytest -q tests/test_{i}.py"}, "id": f"call_{i}"}
        out.append(AIMessage(f"Running test file {i}.", tool_calls=[call]))
        out.append(ToolMessage(("ok line of output\n" * 24)[:400], tool_call_id=f"call_{i}", name="bash"))
        i += 1
    return out[:n]


def tool_schemas() -> list[dict]:
    from cairn.tools import ToolRegistry, Workspace, create_default_tools

    with tempfile.TemporaryDirectory() as d:
        tools = create_default_tools(workspace=Workspace(d))
        return ToolRegistry(tools).schemas()


def start_server(tmp: Path) -> tuple[subprocess.Popen, str]:
    script = tmp / "script.json"
    script.write_text(json.dumps([{"content": "ok"}]))
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.support.openai_server", "--script", str(script)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    proc.stdout.readline()  # PORT=
    base_url = proc.stdout.readline().strip().split("=", 1)[1]
    return proc, base_url


def cpu_per_call(call, repeats: int) -> list[float]:
    call()  # warm-up (connection, imports)
    samples = []
    for _ in range(repeats):
        t0 = time.process_time()
        call()
        samples.append(time.process_time() - t0)
    return samples


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="100,1000,10000")
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()

    schemas = tool_schemas()
    print(f"{len(schemas)} tool schemas; CPU ms per call, median of {args.repeats}")
    print(
        f"{'messages':>8} {'stock':>9} {'cairn 1st':>10} {'cairn':>8} {'raw':>7} {'cairn/raw':>10} {'stock/cairn':>12}"
    )
    for n in [int(x) for x in args.sizes.split(",")]:
        measure(n, schemas, args.repeats)


def measure(n: int, schemas: list[dict], repeats: int) -> None:
    import httpx
    import orjson
    from langchain_openai import ChatOpenAI
    from langchain_openai.chat_models.base import _convert_message_to_dict

    from cairn.graph.models import create_model

    with tempfile.TemporaryDirectory() as d:
        server, base_url = start_server(Path(d))
        try:
            messages = history(n)
            common = {"model": "scripted", "base_url": base_url, "api_key": "x", "stream_usage": True}
            stock = ChatOpenAI(**common, max_retries=0).bind_tools(schemas)
            cairn = create_model("scripted", base_url=base_url, api_key="x", max_retries=0).bind_tools(
                schemas
            )

            def run(model, msgs=messages):
                for _ in model.stream(msgs):
                    pass

            stock_ms = statistics.median(cpu_per_call(lambda: run(stock), repeats))
            first = []
            for _ in range(3):  # a fresh message list each time: nothing converted yet
                fresh = [m.model_copy() for m in messages]
                t0 = time.process_time()
                run(cairn, fresh)
                first.append(time.process_time() - t0)
            cairn_ms = statistics.median(cpu_per_call(lambda: run(cairn), repeats))

            payload = {
                "model": "scripted",
                "messages": [_convert_message_to_dict(m) for m in messages],
                "tools": stock.kwargs["tools"],
                "stream": True,
                "stream_options": {"include_usage": True},
            }
            with httpx.Client(base_url=base_url, headers={"Authorization": "Bearer x"}) as client:

                def raw():
                    body = orjson.dumps(payload)
                    headers = {"Content-Type": "application/json"}
                    with client.stream(
                        "POST", "/chat/completions", content=body, headers=headers
                    ) as response:
                        for _ in response.iter_lines():
                            pass

                raw_ms = statistics.median(cpu_per_call(raw, repeats))
            first_ms = statistics.median(first)
            print(
                f"{n:>8} {stock_ms * 1000:>9.1f} {first_ms * 1000:>10.1f} {cairn_ms * 1000:>8.1f} "
                f"{raw_ms * 1000:>7.1f} {cairn_ms / raw_ms:>10.2f} {stock_ms / cairn_ms:>12.1f}"
            )
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
