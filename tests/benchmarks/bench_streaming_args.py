"""CPU per byte of a streamed tool-call argument: 64 KB vs 1 KB, in small deltas.

    .venv/bin/python tests/benchmarks/bench_streaming_args.py [--delta 16] [--repeat 3]

A model streaming a large ``write_file`` sends its arguments in many small deltas.  The
reasoning node's ``_call_model`` (the code under test, unchanged) collects the chunks and
merges them once at the end; the old way, adding each chunk to the reply so far, re-parsed
every argument so far on each chunk (``AIMessageChunk.__add__``), which is also timed here
as the baseline.  Printed per size: chunks, CPU seconds (this process), microseconds per
byte, and the ratio of 64 KB's per-byte cost to 1 KB's (about 1 when linear).

``--through-client`` times a whole ``Session.send(stream=True)`` (16, 64 and 128 KB) instead: the real ChatOpenAI
client against the tests' local server (SSE deltas of ``--delta`` characters), the node, the
journal and the transcript, with a cheap tool standing in for write_file.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from langchain_core.messages import AIMessageChunk  # noqa: E402

from cairn.graph.nodes.model_stream import call_model as _call_model  # noqa: E402


def chunks_for(size: int, delta: int) -> list[AIMessageChunk]:
    args = json.dumps({"file_path": "big.txt", "content": "x" * size})
    out = [
        AIMessageChunk(
            content="", tool_call_chunks=[{"name": "write_file", "args": "", "id": "c1", "index": 0}]
        )
    ]
    for i in range(0, len(args), delta):
        out.append(AIMessageChunk(content="", tool_call_chunks=[{"args": args[i : i + delta], "index": 0}]))
    out.append(AIMessageChunk(content="", response_metadata={"finish_reason": "tool_calls"}))
    return out


class ReplayModel:
    def __init__(self, chunks: list[AIMessageChunk]) -> None:
        self.chunks = chunks

    def stream(self, prompt: list) -> list[AIMessageChunk]:
        return self.chunks


def new_way(chunks: list[AIMessageChunk]) -> float:
    ctx = SimpleNamespace(stream=True, cancel=threading.Event(), emit=lambda *a, **k: None)
    start = time.process_time()
    message, _stopped = _call_model(ReplayModel(chunks), [], ctx)
    spent = time.process_time() - start
    assert len(message.tool_calls[0]["args"]["content"]) > 0
    return spent


def old_way(chunks: list[AIMessageChunk]) -> float:
    start = time.process_time()
    full = None
    for chunk in chunks:
        full = chunk if full is None else full + chunk
    spent = time.process_time() - start
    assert full is not None and full.tool_calls
    return spent


def through_client(size: int, delta: int) -> float:
    """CPU seconds of one streamed send whose single tool call carries ``size`` bytes of args."""
    import tempfile

    from cairn import Session
    from cairn.graph.models import create_model
    from tests.support.fixtures import openai_server

    content = "x" * size
    turns = [
        {
            "tool_calls": [{"name": "write_file", "args": {"file_path": "big.txt", "content": content}}],
            "arg_delta": delta,
        },
        {"content": "done"},
    ]
    with tempfile.TemporaryDirectory(dir=ROOT / ".venv") as tmp, openai_server(turns) as server:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        model = create_model("bench", base_url=server.base_url, api_key="k", max_retries=0)
        session = Session(ws, model=model, db=str(Path(tmp) / "c.db"), mode="accept-edits", snapshots=False)
        start = time.process_time()
        result = session.send("write it", stream=True)
        spent = time.process_time() - start
        session.close()
    assert result.status == "done", result.error
    return spent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delta", type=int, default=16, help="bytes per argument delta")
    parser.add_argument("--repeat", type=int, default=3, help="best of N")
    parser.add_argument("--skip-old", action="store_true", help="do not time the quadratic baseline")
    parser.add_argument("--through-client", action="store_true", help="time Session.send over HTTP")
    args = parser.parse_args()
    sizes = (1024, 64 * 1024)
    if args.through_client:
        # A send has a fixed cost (prompt, journal, checkpoints): compare the marginal cost per byte.
        spent = {}
        for size in (16 * 1024, 64 * 1024, 128 * 1024):
            spent[size] = min(through_client(size, args.delta) for _ in range(args.repeat))
            print(f"send over HTTP  {size // 1024:3d} KB  {spent[size]:7.3f} s CPU")
        low = (spent[64 * 1024] - spent[16 * 1024]) / (48 * 1024) * 1e6
        high = (spent[128 * 1024] - spent[64 * 1024]) / (64 * 1024) * 1e6
        print(f"marginal us/byte: 16->64 KB {low:.2f}, 64->128 KB {high:.2f} (equal when linear)")
        return 0
    for label, fn in (("merged once (now)", new_way), ("added per chunk (before)", old_way)):
        if fn is old_way and args.skip_old:
            continue
        per_byte = {}
        for size in sizes:
            chunks = chunks_for(size, args.delta)
            best = min(fn(chunks) for _ in range(args.repeat if fn is new_way else 1))
            per_byte[size] = best / size * 1e6
            print(
                f"{label:26} {size // 1024:3d} KB  {len(chunks):5d} chunks  {best:7.3f} s CPU  {per_byte[size]:7.2f} us/byte"
            )
        print(f"{label:26} 64 KB / 1 KB per-byte ratio: {per_byte[sizes[1]] / per_byte[sizes[0]]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
