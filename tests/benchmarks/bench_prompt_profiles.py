"""What the model reads before the conversation: system prompt + tool schemas, per profile.

    .venv/bin/python tests/benchmarks/bench_prompt_profiles.py

Tokens are counted with tiktoken's o200k_base when it is installed (offline), else estimated as
characters / 4.  The lean profile is what small local models get (``--tools lean``); every token
here is prefill the model pays on the first request of a session (and on every request when the
server cannot reuse a cached prefix).
"""

from __future__ import annotations

import json
import tempfile

from cairn.graph.core.profiles import LEAN_TOOLS, lean_schema
from cairn.graph.core.prompts import build_system_prompt
from cairn.tools import create_default_tools


def counter():
    try:
        import tiktoken

        encoding = tiktoken.get_encoding("o200k_base")
        return "o200k_base tokens", lambda text: len(encoding.encode(text))
    except Exception:
        return "≈ tokens (chars/4)", lambda text: len(text) // 4


def main() -> None:
    unit, count = counter()
    with tempfile.TemporaryDirectory() as ws:
        tools = create_default_tools(workspace=ws)
    full_schemas = [t.openai_schema() for t in tools]
    lean_schemas = [lean_schema(t.openai_schema()) for t in tools if t.name in LEAN_TOOLS]
    rows = []
    for name, system, schemas in (
        ("full", build_system_prompt("default"), full_schemas),
        ("lean", build_system_prompt("default", profile="lean"), lean_schemas),
    ):
        tools_text = json.dumps(schemas)
        rows.append((name, len(schemas), count(system), count(tools_text), count(system) + count(tools_text)))
    print(f"{'profile':8} {'tools':>5} {'system':>8} {'schemas':>8} {'total':>8}   ({unit})")
    for name, n, system, schemas, total in rows:
        print(f"{name:8} {n:5d} {system:8d} {schemas:8d} {total:8d}")
    print(f"lean / full: {rows[1][4] / rows[0][4]:.2f}")


if __name__ == "__main__":
    main()
