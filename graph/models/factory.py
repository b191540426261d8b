"""Model factory: a spec string → a LangChain chat model.

- ``None`` → ``$CAIRN_MODEL``, else ``$OPENAI_MODEL``, else ``gpt-4o-mini``.
- ``script:PATH`` → ``ScriptedChatModel`` replaying a JSON script (demos, tests; offline).
- anything else (optionally ``openai:NAME``) → ``ChatOpenAI`` (``CairnChatOpenAI``: the request body
  skips the OpenAI SDK's per-message typed transform, see ``openai_chat``) against ``OPENAI_BASE_URL`` / ``--base-url``
  or OpenAI itself, so OpenAI, vLLM, Ollama, llama.cpp server and LM Studio all work.

Transient failures (429, 5xx, timeouts) are retried with backoff by the openai client itself
(``max_retries``); what escapes is for the graph to turn into a resumable pause.

Imports stay light: ``langchain_openai`` (slow to import) is loaded only when a ChatOpenAI is built,
so ``cairn --help`` never pays for it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from cairn.graph.models.errors import ModelConfigError, describe_model_error, is_transient_model_error
from cairn.graph.models.text_tool_calls import recover_text_tool_calls

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

__all__ = [
    "DEFAULT_MODEL",
    "ModelConfigError",
    "create_model",
    "default_model_spec",
    "describe_model_error",
    "is_transient_model_error",
    "recover_text_tool_calls",
]

DEFAULT_MODEL = "gpt-4o-mini"
PLACEHOLDER_API_KEY = "not-needed"
DEFAULT_MAX_RETRIES = 3
"""Retries after the first attempt; the openai client backs off 0.5 s, 1 s, 2 s (or Retry-After)."""
DEFAULT_TIMEOUT = 300.0
"""Seconds per request (``$CAIRN_MODEL_TIMEOUT`` overrides); generous for slow local models."""

_MISSING_ENDPOINT = """\
No model endpoint is configured for model {model!r}. Choose one:
  - OpenAI: set OPENAI_API_KEY (export OPENAI_API_KEY=sk-...).
  - A local or self-hosted OpenAI-compatible server (Ollama, vLLM, llama.cpp server, LM Studio):
    set OPENAI_BASE_URL or pass --base-url, e.g.
      cairn --base-url http://localhost:11434/v1 --model qwen2.5-coder:7b
    Local servers ignore the API key, so none is needed (cairn sends a placeholder).
  - Offline demo or tests: --model script:FILE replays a scripted conversation."""


def env_model_spec() -> str | None:
    """``$CAIRN_MODEL``, else ``$OPENAI_MODEL``, else ``None`` (the one place they are read)."""
    return os.environ.get("CAIRN_MODEL") or os.environ.get("OPENAI_MODEL") or None


def default_model_spec() -> str:
    """The spec used when none is given: ``$CAIRN_MODEL``, ``$OPENAI_MODEL``, then ``gpt-4o-mini``."""
    return env_model_spec() or DEFAULT_MODEL


def _default_timeout() -> float:
    raw = os.environ.get("CAIRN_MODEL_TIMEOUT", "")
    try:
        value = float(raw)
    except ValueError:
        return DEFAULT_TIMEOUT
    return value if value > 0 else DEFAULT_TIMEOUT


#: Joins a model name and the endpoint it is served from in a recorded spec (``NAME via URL``).
ENDPOINT_SEP = " via "


def split_spec(spec: str) -> tuple[str, str | None]:
    """``("NAME", "URL")`` of a spec ``NAME via URL``; ``(spec, None)`` for one without an endpoint."""
    name, sep, url = spec.partition(ENDPOINT_SEP)
    return (name.strip(), url.strip() or None) if sep else (spec, None)


def create_model(
    spec: str | None = None,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    temperature: float | None = None,
    max_retries: int | None = None,
    timeout: float | None = None,
) -> BaseChatModel:
    """Build the chat model ``spec`` names; ``ModelConfigError`` explains what is missing."""
    spec = (spec or default_model_spec()).strip()
    if spec.startswith("script:"):
        return _scripted(spec.removeprefix("script:").strip())
    # (R2, issue 28) "NAME via URL": the endpoint a session was started with, recorded with it
    # so a resume talks to the same server whatever $OPENAI_BASE_URL says now.
    name, _, recorded = spec.removeprefix("openai:").partition(ENDPOINT_SEP)
    name = name.strip()
    if not name:
        raise ModelConfigError("empty model name; pass --model NAME (or script:FILE)")
    base_url = base_url or recorded.strip() or os.environ.get("OPENAI_BASE_URL") or None
    api_key = api_key or os.environ.get("OPENAI_API_KEY") or None
    if not api_key and not base_url:
        raise ModelConfigError(_MISSING_ENDPOINT.format(model=name))

    from cairn.graph.models.openai_chat import CairnChatOpenAI

    options: dict[str, object] = {}
    if temperature is not None:
        options["temperature"] = temperature
    return CairnChatOpenAI(
        model=name,
        base_url=base_url,
        api_key=api_key or PLACEHOLDER_API_KEY,
        max_retries=DEFAULT_MAX_RETRIES if max_retries is None else max_retries,
        timeout=timeout if timeout is not None else _default_timeout(),
        stream_usage=True,
        **options,
    )


def _scripted(path: str) -> BaseChatModel:
    if not path:
        raise ModelConfigError("script: needs a file, e.g. --model script:demo.json")
    from cairn.graph.models.scripted import ScriptedChatModel

    try:
        return ScriptedChatModel.from_file(path)
    except ValueError as exc:
        raise ModelConfigError(str(exc)) from exc
