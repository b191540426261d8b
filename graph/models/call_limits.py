"""Limits of one model call: how many tokens it may write and how long it may take.

Settings (``[model]`` in the project's or the person's settings file; the environment wins; read
by ``cairn.graph.core.settings`` and handed to each run as ``AgentContext.call_limits``):

- ``max_output_tokens`` (``$CAIRN_MAX_OUTPUT_TOKENS``): the reply's output-token cap.  Unset, a
  self-hosted endpoint (one with a base URL: llama.cpp, vLLM, Ollama, LM Studio) gets
  ``min(4096, window // 4)``, so a reply that never ends stops at the server instead of at a client
  timeout minutes later (issue 31); a hosted provider keeps its own limit.  A reply the cap cuts
  ends with ``finish_reason: length`` and the turn is ``incomplete`` (``cairn.graph.models.turn_end``).
- ``temperature`` (``$CAIRN_TEMPERATURE``): the sampling temperature; unset, a self-hosted model
  with the lean profile samples at ``LEAN_TEMPERATURE``, any other at its server's default.
- ``call_timeout`` (``$CAIRN_MODEL_CALL_TIMEOUT``): seconds one model call may take in all,
  including the client's own retries.  A call over it is abandoned and tried once more with a
  different seed and temperature (never unchanged), then the run stops with an error saying so.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from cairn.errors import CairnError

DEFAULT_CALL_TIMEOUT = 600.0
MAX_DEFAULT_OUTPUT = 4096
#: The sampling a timed-out call is retried with (a fresh seed is added).
RETRY_TEMPERATURE = 0.7


#: The temperature a self-hosted model with the lean profile samples at, unless set: sampled
#: five times after reading ``version.txt``, Qwen2.5-Coder-1.5B wrote the ``write_file`` call in
#: 5 of 5 at 0.2 and 3 of 5 at llama.cpp's default 0.8 (issue 31).
LEAN_TEMPERATURE = 0.2


@dataclass(frozen=True)
class CallLimits:
    max_output_tokens: int | None = None
    call_timeout: float = DEFAULT_CALL_TIMEOUT
    temperature: float | None = None


def call_limits(
    max_output_tokens: int | None = None, call_timeout: float | None = None, temperature: float | None = None
) -> CallLimits:
    """The limits from the session's settings (``Settings.model``: environment, then project,
    then user settings); unset values take the defaults here."""
    return CallLimits(max_output_tokens or None, call_timeout or DEFAULT_CALL_TIMEOUT, temperature)


def sampling_temperature(limits: CallLimits, *, self_hosted: bool, profile: str) -> float | None:
    """The temperature calls ask for: the setting, else ``LEAN_TEMPERATURE`` for a self-hosted
    model with the lean profile, else none (the server's or provider's default)."""
    if limits.temperature is not None:
        return limits.temperature
    return LEAN_TEMPERATURE if self_hosted and profile == "lean" else None


def with_temperature(model: Any, bound: Any, temperature: float | None) -> Any:
    """``bound`` asking for ``temperature`` (OpenAI-compatible clients only; a retry's
    ``with_new_sampling`` binds over it)."""
    if temperature is None or not any(c.__name__ == "BaseChatOpenAI" for c in type(model).__mro__):
        return bound
    return bound.bind(temperature=temperature)


def output_cap(limits: CallLimits, window: int | None, *, self_hosted: bool) -> int | None:
    """The output-token cap of a call: the setting, else ``min(4096, window // 4)`` for a
    self-hosted endpoint, else none."""
    if limits.max_output_tokens:
        return limits.max_output_tokens
    if self_hosted and window:
        return max(256, min(MAX_DEFAULT_OUTPUT, window // 4))
    return None


def is_self_hosted(model: Any) -> bool:
    """An OpenAI-compatible client pointed at a base URL other than OpenAI's own."""
    base = getattr(model, "openai_api_base", None)
    return isinstance(base, str) and bool(base) and "api.openai.com" not in base


def with_output_cap(model: Any, bound: Any, cap: int | None) -> Any:
    """``bound`` (the model with its tools) asking for at most ``cap`` output tokens.

    A self-hosted server gets ``max_tokens`` as sent (every OpenAI-compatible server reads it);
    OpenAI gets it as ``max_completion_tokens`` (the client's conversion).  Other chat models
    (the scripted one) are left alone."""
    if cap is None or not any(c.__name__ == "BaseChatOpenAI" for c in type(model).__mro__):
        return bound
    if is_self_hosted(model):
        return bound.bind(extra_body={**(getattr(model, "extra_body", None) or {}), "max_tokens": cap})
    return bound.bind(max_tokens=cap)


def with_new_sampling(model: Any, bound: Any) -> Any:
    """``bound`` with another seed and temperature: what a timed-out call is retried with."""
    if not any(c.__name__ == "BaseChatOpenAI" for c in type(model).__mro__):
        return bound
    return bound.bind(temperature=RETRY_TEMPERATURE, seed=random.randrange(1, 2**31))


class ModelCallTimeout(CairnError, RuntimeError):
    """A model call took longer than ``call_timeout``, twice (the second time resampled)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(
            "the model did not finish a reply in time, twice (the second time with another seed "
            f"and temperature); the run stopped. Budget per call: {seconds:g} s ([model] "
            "call_timeout, CAIRN_MODEL_CALL_TIMEOUT; each request also has CAIRN_MODEL_TIMEOUT). "
            "Check the server's load; /continue tries again"
        )
