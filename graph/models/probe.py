"""Probing an OpenAI-compatible endpoint: what cairn can rely on before a session starts.

Plain httpx on purpose: the answer should describe the server, not what a client smooths over.
Checks: ``/models`` answers and lists the model (and the context window, where the server says:
vLLM ``max_model_len``, llama.cpp ``meta.n_ctx``, LM Studio/OpenRouter ``context_length``);
a request with one tool gets a native ``tool_calls`` reply, JSON in the text (which cairn
recovers), or neither; a streamed request arrives as server-sent events.

The window is the *server's*, whatever model name the client uses (llama.cpp serves one model under
any name; the recipe in docs/models.md says ``--model any``): the listed entry of that name, else
the only entry when ``/models`` lists one, else llama.cpp's ``/props`` (``n_ctx``), else Ollama's
``/api/show`` (``num_ctx``, else the model's ``context_length``).  ``served_window`` says which.
"""

from __future__ import annotations

import json
from collections.abc import Callable
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
    #: Where ``context_window`` came from, for people (``cairn models check`` prints it).
    window_source: str = ""
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


def list_models(client: httpx.Client, base: str) -> tuple[bool, list[dict[str, Any]] | None, str]:
    """``GET {base}/models``, the one client of it: (reachable, the entries or None, the problem)."""
    try:
        response = client.get(f"{base}/models")
    except httpx.HTTPError as exc:
        return False, None, f"{base}/models is not reachable: {type(exc).__name__}: {exc}"
    if response.status_code >= 400:
        return True, None, f"{base}/models answered HTTP {response.status_code}"
    try:
        data = response.json().get("data") or []
    except (ValueError, AttributeError):
        return True, None, f"{base}/models did not answer with the OpenAI list format"
    return True, [d for d in data if isinstance(d, dict)], ""


def _check_models(client: httpx.Client, base: str, report: ProbeReport) -> None:
    report.reachable, entries, problem = list_models(client, base)
    if entries is None:
        report.problems.append(problem)
        return
    report.models = [str(d.get("id")) for d in entries]
    report.listed = any(d.get("id") == report.model for d in entries)
    report.context_window, report.window_source = served_window(
        report.model, entries, lambda path, body=None: _ask(client, base, path, body)
    )


Ask = Callable[..., Any]
"""``ask(path, body=None)``: the JSON a server path answers (GET, or POST with ``body``), or None."""


def served_window(model: str, entries: list[dict[str, Any]], ask: Ask) -> tuple[int | None, str]:
    """(window, where it came from) for ``model`` on a server whose ``/models`` listed ``entries``."""
    mine = next((d for d in entries if d.get("id") == model), None)
    why = f"/models entry {model!r}"
    if mine is None and len(entries) == 1:
        mine, why = entries[0], f"/models lists one model ({entries[0].get('id')}), whatever the name asked"
    listed = window_of(mine) if mine is not None else None
    if listed and window_of(_served_fields(mine)):  # type: ignore[arg-type]
        return listed, why
    # Only the trained length (llama.cpp's meta.n_ctx_train), or nothing: the server may say more.
    props = ask("/props")
    if isinstance(props, dict):
        settings = props.get("default_generation_settings")
        for source, where in ((props, "n_ctx"), (settings, "default_generation_settings.n_ctx")):
            value = source.get("n_ctx") if isinstance(source, dict) else None
            if isinstance(value, int) and value > 0:
                return value, f"llama.cpp /props {where}"
    show = ask("/api/show", {"model": model})
    if isinstance(show, dict):
        value = _ollama_window(show)
        if value:
            return value, "Ollama /api/show"
    if listed:
        return listed, f"{why} (the trained length: the server did not say what it serves)"
    return None, ""


def _served_fields(entry: dict[str, Any]) -> dict[str, Any]:
    """``entry`` without the trained length, which is not the window a server was started with."""
    meta = entry.get("meta")
    if isinstance(meta, dict):
        return {**entry, "meta": {k: v for k, v in meta.items() if k != "n_ctx_train"}}
    return {k: v for k, v in entry.items() if k != "n_ctx_train"}


def fetch_served_window(
    base_url: str, model: str, api_key: str | None = None, timeout: float = 3.0
) -> tuple[int | None, str]:
    """``served_window`` of a live server (the session's first use; any failure: not reported)."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    base = base_url.rstrip("/")
    try:
        with httpx.Client(timeout=timeout, headers=headers) as client:
            entries = list_models(client, base)[1] or []
            return served_window(model, entries, lambda path, body=None: _ask(client, base, path, body))
    except Exception:
        return None, ""


def _ollama_window(show: dict[str, Any]) -> int | None:
    """Ollama serves ``num_ctx`` (from the model's parameters) of the model's trained length."""
    for line in str(show.get("parameters") or "").splitlines():
        key, _, value = line.strip().partition(" ")
        if key == "num_ctx" and value.strip().isdigit():
            return int(value.strip())
    info = show.get("model_info")
    if isinstance(info, dict):
        for key, value in info.items():
            if key.endswith(".context_length") and isinstance(value, int) and value > 0:
                return value
    return None


def server_root(base: str) -> str:
    """``http://host:port`` of ``http://host:port/v1``: llama.cpp and Ollama serve their own
    paths (``/props``, ``/api/show``) beside the OpenAI-compatible ones."""
    base = base.rstrip("/")
    return base[: -len("/v1")] if base.endswith("/v1") else base


def _ask(client: httpx.Client, base: str, path: str, body: dict[str, Any] | None = None) -> Any:
    """The JSON ``path`` answers on the server's root (``/props``, ``/api/show``), or None."""
    url = server_root(base) + path
    try:
        response = client.post(url, json=body) if body is not None else client.get(url)
        if response.status_code >= 400:
            return None
        return response.json()
    except (httpx.HTTPError, ValueError):
        return None


def window_of(entry: dict[str, Any]) -> int | None:
    """The context window a ``/models`` entry reports (shared with ``cairn.graph.core.compaction``)."""
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
