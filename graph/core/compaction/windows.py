"""How many tokens a model accepts: explicit setting, the endpoint's metadata, known defaults.

Order: ``Session(context_window=N)`` / ``--context-window N`` / ``$CAIRN_CONTEXT_WINDOW`` (the
session's ``Settings.context.window``, passed in as ``explicit``), then
what the endpoint serves, read as ``cairn models check`` reads it (``/models``: vLLM
``max_model_len``, LM Studio/OpenRouter ``context_length``, the only model listed whatever the name;
llama.cpp ``/props`` ``n_ctx``; Ollama ``/api/show``), then the defaults below by model-name
prefix, then ``FALLBACK_WINDOW`` — small on purpose: compacting early is cheap, a 400 is not.
"""

from __future__ import annotations

from typing import Any

FALLBACK_WINDOW = 32_768

#: Longest prefix wins; names are compared lower-case, without a ``provider/`` prefix.
DEFAULT_WINDOWS: dict[str, int] = {
    "gpt-4.1": 1_047_576,
    "gpt-5": 400_000,
    "gpt-4o": 128_000,
    "gpt-4-turbo": 128_000,
    "gpt-4": 8_192,
    "gpt-3.5-turbo": 16_385,
    "o1": 200_000,
    "o3": 200_000,
    "o4-mini": 200_000,
    "claude": 200_000,
    "gemini": 1_048_576,
    "deepseek": 128_000,
    "qwen2.5-coder": 32_768,
    "qwen3": 40_960,
    "llama3.1": 131_072,
    "llama-3.1": 131_072,
    "llama3.2": 131_072,
    "mistral": 32_768,
    "codestral": 256_000,
}


def default_window(model_name: str | None) -> int | None:
    name = (model_name or "").lower().rsplit("/", 1)[-1]
    best = max((p for p in DEFAULT_WINDOWS if name.startswith(p)), key=len, default=None)
    return DEFAULT_WINDOWS[best] if best else None


def parse_window(raw: Any) -> int | None:
    try:
        value = int(str(raw).replace("_", "").strip())
    except (TypeError, ValueError):
        return None
    return value if value > 0 else None


def model_identity(model: Any) -> tuple[str | None, str | None, str | None]:
    """(name, base_url, api_key) of a LangChain chat model, as far as it tells."""
    name = getattr(model, "model_name", None) or getattr(model, "model", None)
    base_url = getattr(model, "openai_api_base", None)
    key = getattr(model, "openai_api_key", None)
    secret = key.get_secret_value() if hasattr(key, "get_secret_value") else key
    return (name if isinstance(name, str) else None), base_url, secret


def resolve_window(model: Any, explicit: int | None = None) -> int:
    """The context window for ``model`` (see the module docstring for the order)."""
    if explicit:  # Settings.context.window: the argument, else $CAIRN_CONTEXT_WINDOW
        return explicit
    name, base_url, key = model_identity(model)
    if name and base_url:
        from cairn.graph.models.probe import fetch_served_window  # /models, /props, /api/show

        reported = fetch_served_window(base_url, name, key)[0]  # any failure: not reported
        if reported:
            return reported
    return default_window(name) or FALLBACK_WINDOW
