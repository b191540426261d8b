"""Probing an OpenAI-compatible endpoint: what cairn can rely on before a session starts.

Plain httpx on purpose: the answer should describe the server, not what a client smooths over.
Checks: ``/models`` answers and lists the model (and the context window, where the server says:
vLLM ``max_model_len``, llama.cpp ``meta.n_ctx_train``, LM Studio/OpenRouter ``context_length``);
a request with one tool gets a native ``tool_calls`` reply, JSON in the text (which cairn
recovers), or neither; a streamed request arrives as server-sent events.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import httpx

PING_TOOL = {
    "type": "function",
    "function": {
        "name": "ping",
        "description": "Reply to a ping.",
        "parameters": {
            "type": "object",
            "properties": {"text": {"type": "string", "description": "what to send"}},
            "required": ["text"],
        },
    },
}
PING_PROMPT = "Call the ping tool with text 'hello'. Do not answer in plain text."
_WINDOW_KEYS = (
    "context_window",
    "context_length",
    "max_model_len",
    "max_context_length",
    "n_ctx",
    "n_ctx_train",
)


@dataclass
class ProbeReport:
    base_url: str
    model: str
    reachable: bool = False
    models: list[str] = field(default_factory=list)
    listed: bool | None = None
    context_window: int | None = None
    tool_calls: str = "untested"  # native | json-in-text | none | error
    streaming: str = "untested"  # yes | no | error
    problems: list[str] = field(default_factory=list)

    @property
    def usable(self) -> bool:
        return self.reachable and self.tool_calls in ("native", "json-in-text")

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "usable": self.usable}


def probe_endpoint(
    base_url: str, model: str, api_key: str = "not-needed", timeout: float = 60.0
) -> ProbeReport:
    base = base_url.rstrip("/")
    report = ProbeReport(base, model)
    headers = {"Authorization": f"Bearer {api_key}"}
    with httpx.Client(timeout=timeout, headers=headers) as client:
        _check_models(client, base, report)
        if not report.reachable:
            return report
        _check_tools(client, base, report)
        _check_streaming(client, base, report)
    return report


def _check_models(client: httpx.Client, base: str, report: ProbeReport) -> None:
    try:
        response = client.get(f"{base}/models")
    except httpx.HTTPError as exc:
        report.problems.append(f"{base}/models is not reachable: {type(exc).__name__}: {exc}")
        return
    report.reachable = True
    if response.status_code >= 400:
        report.problems.append(f"{base}/models answered HTTP {response.status_code}")
        return
    try:
        data = response.json().get("data") or []
    except (ValueError, AttributeError):
        report.problems.append(f"{base}/models did not answer with the OpenAI list format")
        return
    entries = [d for d in data if isinstance(d, dict)]
    report.models = [str(d.get("id")) for d in entries]
    mine = next((d for d in entries if d.get("id") == report.model), None)
    report.listed = mine is not None
    if mine is not None:
        report.context_window = window_of(mine)


def window_of(entry: dict[str, Any]) -> int | None:
    """The context window a ``/models`` entry reports (shared with ``cairn.graph.compaction``)."""
    for source in (entry, entry.get("meta") or {}, entry.get("details") or {}):
        if not isinstance(source, dict):
            continue
        for key in _WINDOW_KEYS:
            value = source.get(key)
            if isinstance(value, int) and value > 0:
                return value
    return None


def _check_tools(client: httpx.Client, base: str, report: ProbeReport) -> None:
    body = {
        "model": report.model,
        "messages": [{"role": "user", "content": PING_PROMPT}],
        "tools": [PING_TOOL],
        "temperature": 0,
    }
    try:
        response = client.post(f"{base}/chat/completions", json=body)
        response.raise_for_status()
        message = response.json()["choices"][0]["message"]
    except (httpx.HTTPError, ValueError, KeyError, IndexError, TypeError) as exc:
        report.tool_calls = "error"
        report.problems.append(f"a chat request with a tool failed: {type(exc).__name__}: {exc}"[:300])
        return
    calls = message.get("tool_calls") or []
    if any((c.get("function") or {}).get("name") == "ping" for c in calls if isinstance(c, dict)):
        report.tool_calls = "native"
        return
    from langchain_core.messages import AIMessage

    from cairn.graph.models.text_tool_calls import recover_text_tool_calls

    recovered = recover_text_tool_calls(AIMessage(content=message.get("content") or ""), {"ping"})
    report.tool_calls = "json-in-text" if recovered.tool_calls else "none"
    if report.tool_calls == "none":
        report.problems.append("the model did not call the tool (natively or as JSON text)")


def _check_streaming(client: httpx.Client, base: str, report: ProbeReport) -> None:
    body = {"model": report.model, "messages": [{"role": "user", "content": "Say OK."}], "stream": True}
    try:
        with client.stream("POST", f"{base}/chat/completions", json=body) as response:
            response.raise_for_status()
            events = 0
            for line in response.iter_lines():
                if line.startswith("data:") and line[5:].strip() not in ("", "[DONE]"):
                    json.loads(line[5:])
                    events += 1
        report.streaming = "yes" if events else "no"
    except (httpx.HTTPError, ValueError) as exc:
        report.streaming = "error"
        report.problems.append(f"a streamed request failed: {type(exc).__name__}: {exc}"[:300])
